#!/usr/bin/env bash
# scripts/device/experiments/share_rows_probe.sh -- one device call (from the repository root on the GPU machine): the
# cluster pairs sharing A where the problem has several tile rows (TESSERA_SHARE_A=2: tiles (tm, 2i), (tm, 2i + 1), the
# grouped order one row a group), i.e. the weights as A shared by the two 64-wide batch halves of a batch of 128 (as
# cuBLAS's 128x64 1x2 kernel runs 128 x 8192^2).  Builds /tmp/b (tessera_cli, gemm_device_test), PairSharesA with
# TESSERA_SHARE_A=2 (and racecheck), `--plans` and Nsight Compute at 8192x128x8192 with TESSERA_SHARE_A = 0 and 2.
# Results under $OUT (share_rows.tar.xz), a summary on stdout.  About 260 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, patch_build, tree_build)
patch_build pair_share_a.patch tessera_cli gemm_device_test || exit 1
B=/tmp/b/tools/tessera
TESSERA_SHARE_A=2 timeout 60 $T/gemm_device_test --gtest_filter=GemmDevice.PairSharesA > $O/dt2.log 2>&1; echo "rows rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/dt2.log | tr '\n' ' ')"; grep -A6 Failure $O/dt2.log | head -20
TESSERA_SHARE_A=2 timeout 100 compute-sanitizer --tool racecheck --error-exitcode 3 $T/gemm_device_test --gtest_filter=GemmDevice.PairSharesA > $O/san2.log 2>&1; echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' $O/san2.log)"
S=8192x128x8192,128x8192x8192,8192x128x28672,128x8192x28672
for r in 1 2; do
  for x in 0 2; do
    TESSERA_SHARE_A=$x timeout 120 $B bench gemm --plans --shapes $S --repeats 10 --json $O/plans_${x}_$r.json > $O/plans_${x}_$r.log 2>&1; echo "plans share=$x rc=$? at $(el) s"
    grep -E "^M=" $O/plans_${x}_$r.log | cut -c1-150
  done
done
TESSERA_SHARE_A=2 timeout 60 $B bench gemm --shapes 8192x128x8192 --tile wgmma128x64x64 --split-k 1 --repeats 10 > $O/forced2.log 2>&1; grep -E "^M=" $O/forced2.log | cut -c1-200
for x in 0 2; do
  TESSERA_SHARE_A=$x TESSERA_BIN=/tmp/b/tools OUT=$O/ncu_$x NCU_COUNT=12 timeout 100 bash scripts/device/ncu_decode_vs_cublas.sh 8192x128x8192 2>&1 | tail -4
done
cd $O && tar cf - *.json *.log ncu_* | xz -1 > $OUT/share_rows.tar.xz
echo "all done at $(el) s"
