#!/usr/bin/env bash
# scripts/device/experiments/rows64_fused_run.sh -- one device call (from the repository root on the GPU machine, the
# tree clean): the planner's grid and the decode tests of the tree as it is, then decode_fused_registers.patch measured
# by its gate (TESSERA_EXP 4: the decode tiles' fused menus from registers) in the same build: its tests and
# sanitizers, the decode set at EXP 0 / 4 in turn (three rounds).  Results under $OUT (rows64_fused.tar.xz).  About 400 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, patch_build)
patch_build decode_fused_registers.patch tessera_cli gemm_host_test gemm_device_test || exit 1
B=/tmp/b/tools/tessera
timeout 60 $T/gemm_host_test > $O/ht.log 2>&1; echo "host rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/ht.log | tr '\n' ' ')"
F='GemmDevice.Wgmma64Decode:GemmDevice.Wgmma128x16*:GemmDevice.HopperDecodePlans:GemmDevice.EpilogueReadAhead:GemmDevice.Gemv'
for x in 0 4; do
  TESSERA_EXP=$x timeout 200 $T/gemm_device_test --gtest_filter="$F" > $O/dt_$x.log 2>&1; echo "device EXP=$x rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/dt_$x.log | tr '\n' ' ') at $(el) s"; grep -B2 -A6 Failure $O/dt_$x.log | head -20
done
for tool in memcheck racecheck synccheck; do
  TESSERA_EXP=4 timeout 120 compute-sanitizer --tool $tool --error-exitcode 3 $T/gemm_device_test --gtest_filter='GemmDevice.Wgmma64Decode:GemmDevice.EpilogueReadAhead' > $O/san_$tool.log 2>&1
  echo "$tool EXP=4 rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED)' $O/san_$tool.log | head -3 | tr '\n' ' ') at $(el) s"
done
TESSERA_EXP=0 timeout 150 $B bench gemm --plans --shapes decode-grid --repeats 10 --json $O/plans.json > $O/plans.log 2>&1; echo "plans rc=$? at $(el) s"; grep -E "within" $O/plans.log
for r in 1 2 3; do
  for x in 0 4; do
    TESSERA_EXP=$x timeout 60 $B bench gemm --shapes decode --repeats 10 --json $O/decode_x${x}_$r.json > $O/decode_x${x}_$r.log 2>&1 || echo "decode $x $r failed"
  done
  echo "round $r at $(el) s"
done
python3 scripts/device/gemm_ratios.py $O/decode_x*.json 2>&1 | grep -E "json|^bare|epilogue_cost|silu_res"
cd $O && tar cf - *.json *.log | xz -1 > $OUT/rows64_fused.tar.xz
echo "all done at $(el) s"
