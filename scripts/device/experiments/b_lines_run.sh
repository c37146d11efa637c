#!/usr/bin/env bash
# scripts/device/experiments/b_lines_run.sh -- one device call (from the repository root on the GPU machine): 128-byte L2
# lines for a streamed B (the weights as B of a problem one tile row high: a batch of 65-128 as A), as a streamed A
# has them (TESSERA_B_LINES = 0: none; 1: where the blocks fill 90% of the SMs; 2: 80%).  Builds /tmp/b (tessera_cli,
# gemm_device_test, gemm_host_test), runs the host tests and the decode plan tests, then the decode set and six
# batch-of-96/128 shapes with TESSERA_B_LINES = 0, 1, 2 in turn (three rounds), and the planner's grid (0).  Results
# under $OUT (b_lines.tar.xz), a summary on stdout.  About 330 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, patch_build, tree_build)
patch_build b_lines.patch tessera_cli gemm_device_test gemm_host_test || exit 1
B=/tmp/b/tools/tessera
timeout 60 $T/gemm_host_test > $O/ht.log 2>&1; echo "host rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/ht.log | tr '\n' ' ')"
F='GemmDevice.HopperDecodePlans:GemmDevice.Wgmma64Decode:GemmDevice.ClusterPair64Menus:GemmSanitize.*'
TESSERA_B_LINES=1 timeout 100 $T/gemm_device_test --gtest_filter="$F" > $O/dt.log 2>&1; echo "device rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/dt.log | tr '\n' ' ') at $(el) s"; grep -A6 Failure $O/dt.log | head -20
S=128x8192x8192,128x14336x4096,128x4096x4096,128x4096x14336,96x8192x8192,128x28672x8192
for r in 1 2 3; do
  for x in 0 1 2; do
    TESSERA_B_LINES=$x timeout 60 $B bench gemm --shapes decode --repeats 10 --json $O/dec_${x}_$r.json > $O/dec_${x}_$r.log 2>&1 || echo "decode $x $r failed"
    TESSERA_B_LINES=$x timeout 60 $B bench gemm --shapes $S --repeats 10 --json $O/m128_${x}_$r.json > $O/m128_${x}_$r.log 2>&1 || echo "m128 $x $r failed"
  done
  echo "round $r at $(el) s"
  [ $(el) -gt 380 ] && break
done
for x in 0 1 2; do echo "== TESSERA_B_LINES=$x"; python3 scripts/device/gemm_ratios.py $O/dec_${x}_*.json $O/m128_${x}_*.json | grep -E "json|^bare|cost_bias_sil"; done
grep -h "128-byte" $O/m128_2_1.log | cut -c1-60 | head -8
timeout 60 $B bench gemm --plans --shapes decode-grid --repeats 10 --json $O/plans.json > $O/plans.log 2>&1; echo "plans rc=$? at $(el) s"; grep -E "within" $O/plans.log
cd $O && tar cf - *.json *.log | xz -1 > $OUT/b_lines.tar.xz
echo "all done at $(el) s"
