#!/usr/bin/env bash
# scripts/device/experiments/fused_wide_run.sh -- one device call (from the repository root on the GPU machine, the tree
# clean): the tree built (/tmp/b: tessera_cli, gemm_device_test, gemm_host_test) and tested (gemm_host_test,
# gemm_device_test whole, compute-sanitizer memcheck on GemmDevice.HopperDecodePlans), then the fused menu's `--plans`
# at the batches of 2-16 against (14336, 4096) and (28672, 8192) (fused_wide_plan), two rounds of the decode set, and
# the non-persistent kernels' timeline (a -DTESSERA_GEMM_TRACE build of tessera_kernels, scripts/device/trace_gemm.cu)
# at 128 x 14336 x 4096 (128 x 128 tile) and 128 x 4096^2 (128 x 64 tile, two splits): bare against the fused menus.
# Pass TESSERA_GIT_COMMIT.  Results under $OUT (fused_wide.tar.xz), a summary on stdout.  About 480 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, tree_build, trace_m128)
tree_build tessera_cli gemm_device_test gemm_host_test || exit 1
B=/tmp/b/tools/tessera
timeout 60 $T/gemm_host_test > $O/ht.log 2>&1; echo "host rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/ht.log | tr '\n' ' ')"
timeout 150 $T/gemm_device_test > $O/dt.log 2>&1
echo "device rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/dt.log | tr '\n' ' ') at $(el) s"; grep -A8 Failure $O/dt.log | head -30
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 3 $T/gemm_device_test --gtest_filter=GemmDevice.HopperDecodePlans > $O/san_memcheck.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY|^\[  (PASSED|FAILED)' $O/san_memcheck.log | head -2 | tr '\n' ' ') at $(el) s"
S=2x14336x4096,4x14336x4096,8x14336x4096,16x14336x4096,2x28672x8192,4x28672x8192,8x28672x8192,16x28672x8192
timeout 90 $B bench gemm --plans --menu bias_silu_residual --shapes $S --repeats 10 --json $O/plans_wide.json > $O/plans_wide.log 2>&1
echo "plans rc=$? at $(el) s"; grep -E "^M=|within" $O/plans_wide.log | cut -c1-160
for r in 1 2; do
  timeout 40 $B bench gemm --shapes decode --repeats 10 --json $O/dec_$r.json > $O/dec_$r.log 2>&1 || echo "decode round $r failed"
done
python3 scripts/device/gemm_ratios.py $O/dec_*.json | grep -E "json|^bare|cost_bias_sil"
echo "benches done at $(el) s"
[ $(el) -lt 330 ] && trace_m128 '.'
cd $O && tar cf - *.json *.log | xz -1 > $OUT/fused_wide.tar.xz
echo "all done at $(el) s"
