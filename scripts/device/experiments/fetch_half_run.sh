#!/usr/bin/env bash
# scripts/device/experiments/fetch_half_run.sh -- one device call (from the repository root on the GPU machine, the tree
# clean): fetch_half.patch applied and built (/tmp/b: tessera_cli, gemm_device_test, gemm_fp8_test); gemm_fp8_test whole
# with TESSERA_FETCH_WHOLE set (main's paths: the FP8 pairs' scatter, not run in the sixty-third session) and without
# it (the patch); the cluster pairs' device tests (ClusterPair64Menus, Wgmma64Decode, Wgmma128x16Decode, ShortBoxes,
# GemmSanitize.*), then memcheck and racecheck on them and memcheck on the FP8 pairs' tests; ROUNDS (default 2) rounds
# of the decode set with each pair block reading half the inputs ahead and with TESSERA_FETCH_WHOLE set (the whole
# tile's, as main) in turn.  Pass TESSERA_GIT_COMMIT.  Results under $OUT (fetch_half.tar.xz).  About 420 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, patch_build, ab_decode)
patch_build fetch_half.patch tessera_cli gemm_device_test gemm_fp8_test || exit 1
P8=/tmp/b/tests/kernel_gemm/gemm_fp8_test
TESSERA_FETCH_WHOLE=1 timeout 150 $P8 > $O/fp8_whole.log 2>&1
echo "fp8 tests (main's paths) rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/fp8_whole.log | tr '\n' ' ') at $(el) s"
grep -A8 Failure $O/fp8_whole.log | head -20
timeout 150 $P8 > $O/fp8_half.log 2>&1
echo "fp8 tests (half) rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/fp8_half.log | tr '\n' ' ') at $(el) s"
F='GemmDevice.ClusterPair64Menus:GemmDevice.Wgmma64Decode:GemmDevice.Wgmma128x16Decode:GemmDevice.ShortBoxes:GemmSanitize.*'
timeout 120 $T/gemm_device_test --gtest_filter="$F" > $O/dt.log 2>&1
echo "pair tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/dt.log | tr '\n' ' ') at $(el) s"
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 3 $P8 --gtest_filter='GemmFp8.ChannelScales:GemmFp8.BlockScales' > $O/san_fp8.log 2>&1
echo "fp8 memcheck rc=$? $(grep -E 'ERROR SUMMARY' $O/san_fp8.log | head -1) at $(el) s"
for tool in memcheck racecheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 3 $T/gemm_device_test --gtest_filter="$F" > $O/san_$tool.log 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $O/san_$tool.log | head -1) at $(el) s"
done
ab_decode half whole TESSERA_FETCH_WHOLE "${ROUNDS:-2}" fetch_half.tar.xz
echo "all done at $(el) s"
