#!/usr/bin/env bash
# scripts/device/experiments/short_box_test.sh -- one short device call (from the repository root on the GPU machine):
# builds gemm_device_test alone (/tmp/b) and runs GemmDevice.ShortBoxes and GemmDevice.HopperDecodePlans, then
# GemmDevice.ShortBoxes under compute-sanitizer memcheck, racecheck and synccheck while time allows.  Pass
# TESSERA_GIT_COMMIT.  Logs under $OUT (short_box_test.tar.xz).  About 200 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, tree_build)
tree_build gemm_device_test || exit 1
timeout 60 $T/gemm_device_test --gtest_filter='GemmDevice.ShortBoxes:GemmDevice.HopperDecodePlans' > $O/dt.log 2>&1
echo "tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/dt.log | tr '\n' ' ') at $(el) s"; grep -A8 Failure $O/dt.log | head -30
for tool in memcheck racecheck synccheck; do
  [ $(el) -gt 200 ] && { echo "$tool skipped (time)"; continue; }
  timeout 40 compute-sanitizer --tool $tool --error-exitcode 3 $T/gemm_device_test --gtest_filter='GemmDevice.ShortBoxes' > $O/san_$tool.log 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED)' $O/san_$tool.log | head -3 | tr '\n' ' ') at $(el) s"
done
cd $O && tar cf - *.log | xz -1 > $OUT/short_box_test.tar.xz
