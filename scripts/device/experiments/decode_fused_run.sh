#!/usr/bin/env bash
# scripts/device/experiments/decode_fused_run.sh -- one device call that measures decode_fused_registers.patch (run from
# the repository root on the GPU machine, the tree clean): applies the patch, builds (/tmp/b), tests with TESSERA_EXP=4
# (also under compute-sanitizer), then the decode set and batches of 2-16 with TESSERA_EXP = 0, 4, 12 in turn; results
# under $OUT (decode_fused.tar.xz) and gemm_ratios.py's summary on stdout.  About 450 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, patch_build)
patch_build decode_fused_registers.patch tessera_cli gemm_device_test gemm_fp8_test || exit 1
F='GemmDevice.Wgmma128x16*:GemmSanitize.*'
TESSERA_EXP=4 timeout 150 $T/gemm_device_test --gtest_filter="$F" > $O/dt.log 2>&1; echo "device rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/dt.log | tr '\n' ' ')"; grep -A4 Failure $O/dt.log | head -20
TESSERA_EXP=4 timeout 90 $T/gemm_fp8_test > $O/f8t.log 2>&1; echo "fp8 rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/f8t.log | tr '\n' ' ')"
for tool in memcheck racecheck synccheck; do
  TESSERA_EXP=4 timeout 90 compute-sanitizer --tool $tool --error-exitcode 3 $T/gemm_device_test --gtest_filter="$F" > $O/san_$tool.log 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED)' $O/san_$tool.log | head -3 | tr '\n' ' ') at $(el) s"
done
S=2x4096x4096,8x4096x4096,16x4096x4096,4x8192x8192,16x8192x8192,4x14336x4096,16x14336x4096,8x4096x14336
for r in 1 2 3; do
  for x in 0 4 12; do
    TESSERA_EXP=$x timeout 60 /tmp/b/tools/tessera bench gemm --shapes decode --repeats 10 --json $O/dec_${x}_$r.json > $O/dec_${x}_$r.log 2>&1 || echo "decode $x $r failed"
    TESSERA_EXP=$x timeout 60 /tmp/b/tools/tessera bench gemm --shapes $S --repeats 10 --json $O/sm_${x}_$r.json > $O/sm_${x}_$r.log 2>&1 || echo "small $x $r failed"
  done
  echo "round $r at $(el) s"
  [ $(el) -gt 520 ] && break
done
for x in 0 4 12; do echo "== TESSERA_EXP=$x"; python3 scripts/device/gemm_ratios.py $O/dec_${x}_*.json $O/sm_${x}_*.json; done
cd /tmp/o && tar cf - *.json *.log | xz -1 > $OUT/decode_fused.tar.xz
echo "all done at $(el) s"
