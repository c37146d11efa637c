#!/usr/bin/env bash
# scripts/device/experiments/pair_share_b_run.sh -- one device call (from the repository root on the GPU machine, the tree
# clean): pair_share_b.patch, applied over pair_share_a.patch (pairs of tiles along M sharing B's loads,
# TESSERA_SHARE_B=1: with the weights as A, two weight tiles multicast halves of their common batch, so that each block's
# own requests are its 16 KB of weights and 4 KB of the batch a stage).  Builds /tmp/b (tessera_cli, gemm_device_test), tests PairSharesB
# with and without the switch and PairSharesA, compute-sanitizer on PairSharesB, then (TESSERA_SHARE_A=0 throughout)
# `--plans` at batches of 96 and 128 as B against issue 11's weights with TESSERA_SHARE_B = 0 and 1, and the decode set
# both ways, two rounds; before those, GemmDevice.ShortBoxes and GemmSanitize.* with both switches off (the tree's code
# path), plain and under the sanitizers.  Results under $OUT (share_b.tar.xz), a summary on stdout.  About 400 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, patch_build, tree_build)
git apply scripts/device/experiments/pair_share_a.patch || { echo 'pair_share_a.patch does not apply'; exit 1; }
patch_build pair_share_b.patch tessera_cli gemm_device_test || exit 1
B=/tmp/b/tools/tessera
TESSERA_SHARE_B=1 timeout 90 $T/gemm_device_test --gtest_filter='GemmDevice.PairShares*:GemmDevice.HopperDecodePlans' > $O/dt1.log 2>&1
echo "share_b=1 rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/dt1.log | tr '\n' ' ')"; grep -A6 Failure $O/dt1.log | head -20
timeout 90 $T/gemm_device_test --gtest_filter='GemmDevice.PairSharesB' > $O/dt0.log 2>&1; echo "share_b unset rc=$?"
for tool in memcheck racecheck synccheck; do
  TESSERA_SHARE_B=1 timeout 100 compute-sanitizer --tool $tool --error-exitcode 3 $T/gemm_device_test --gtest_filter=GemmDevice.PairSharesB > $O/san_$tool.log 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED)' $O/san_$tool.log | head -3 | tr '\n' ' ') at $(el) s"
done
# The short boxes as landed (both switches off: the tree's code path): ShortBoxes and GemmSanitize.*, then under the
# three sanitizers.
TESSERA_SHARE_A=0 TESSERA_SHARE_B=0 timeout 90 $T/gemm_device_test --gtest_filter='GemmDevice.ShortBoxes:GemmSanitize.*' > $O/sb.log 2>&1
echo "short boxes rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/sb.log | tr '\n' ' ')"; grep -A6 Failure $O/sb.log | head -20
for tool in memcheck racecheck synccheck; do
  TESSERA_SHARE_A=0 TESSERA_SHARE_B=0 timeout 100 compute-sanitizer --tool $tool --error-exitcode 3 $T/gemm_device_test --gtest_filter='GemmDevice.ShortBoxes:GemmSanitize.*' > $O/san_sb_$tool.log 2>&1
  echo "short boxes $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED)' $O/san_sb_$tool.log | head -3 | tr '\n' ' ') at $(el) s"
done
export TESSERA_SHARE_A=0
S=8192x128x8192,14336x128x4096,4096x128x4096,4096x128x14336,8192x96x8192,8192x128x28672
for x in 0 1; do
  [ $(el) -gt 470 ] && { echo "plans $x skipped (time)"; continue; }
  TESSERA_SHARE_B=$x timeout 60 $B bench gemm --plans --shapes $S --repeats 10 --json $O/plans_$x.json > $O/plans_$x.log 2>&1; echo "plans share_b=$x rc=$? at $(el) s"
  grep -E "^M=" $O/plans_$x.log | cut -c1-150
done
for r in 1 2; do
  for x in 0 1; do
    [ $(el) -gt 540 ] && continue
    TESSERA_SHARE_B=$x timeout 30 $B bench gemm --shapes decode --repeats 10 --json $O/dec_${x}_$r.json > $O/dec_${x}_$r.log 2>&1 || echo "decode $x $r failed"
  done
done
for x in 0 1; do echo "== TESSERA_SHARE_B=$x"; python3 scripts/device/gemm_ratios.py $O/dec_${x}_*.json | grep -E "json|^bare|cost_bias_sil"; done
cd $O && tar cf - *.json *.log | xz -1 > $OUT/share_b.tar.xz
echo "all done at $(el) s"
