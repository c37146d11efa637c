#!/usr/bin/env bash
# scripts/device/experiments/fetch_half_run.sh -- one device call (from the repository root on the GPU machine, the tree
# clean): fetch_half.patch applied and built (/tmp/b: tessera_cli, gemm_device_test); the cluster pairs' device tests
# (ClusterPair64Menus, Wgmma64Decode, Wgmma128x16Decode, ShortBoxes, GemmSanitize.*), then memcheck and racecheck on
# them; ROUNDS (default 2) rounds of the decode set with each pair block reading half the inputs ahead and with
# TESSERA_FETCH_WHOLE set (the whole tile's, as main) in turn, the epilogue-cost line after each.  Pass
# TESSERA_GIT_COMMIT.  Results under $OUT (fetch_half.tar.xz).  About 330 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, patch_build, ab_decode)
patch_build fetch_half.patch tessera_cli gemm_device_test || exit 1
F='GemmDevice.ClusterPair64Menus:GemmDevice.Wgmma64Decode:GemmDevice.Wgmma128x16Decode:GemmDevice.ShortBoxes:GemmSanitize.*'
timeout 120 $T/gemm_device_test --gtest_filter="$F" > $O/dt.log 2>&1
echo "pair tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/dt.log | tr '\n' ' ') at $(el) s"
for tool in memcheck racecheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 3 $T/gemm_device_test --gtest_filter="$F" > $O/san_$tool.log 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $O/san_$tool.log | head -1) at $(el) s"
done
ab_decode half whole TESSERA_FETCH_WHOLE "${ROUNDS:-2}" fetch_half.tar.xz
echo "all done at $(el) s"
