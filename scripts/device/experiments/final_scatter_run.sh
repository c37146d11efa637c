#!/usr/bin/env bash
# scripts/device/experiments/final_scatter_run.sh -- one device call (from the repository root on the GPU machine, the
# tree clean): bare_scatter.patch applied and built (/tmp/b: tessera_cli, gemm_device_test, gemm_host_test);
# gemm_host_test and gemm_device_test whole (the tree's paths), then the 16-wide and 64-row tiles' tests with
# TESSERA_BARE_SCATTER set (the experiment's path); ROUNDS (default 3) rounds of the decode set without and with it in
# turn; `--plans --menu bias_silu_residual --shapes decode` without it (the scattered pair's fused plans against every
# forced plan).  Pass TESSERA_GIT_COMMIT.  Results under $OUT (final_scatter.tar.xz), a summary on stdout.  About 480 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, patch_build, gemm_tests)
patch_build bare_scatter.patch tessera_cli gemm_device_test gemm_host_test || exit 1
B=/tmp/b/tools/tessera
gemm_tests 'none' 0
TESSERA_BARE_SCATTER=1 timeout 90 $T/gemm_device_test --gtest_filter='GemmDevice.Wgmma128x16*:GemmDevice.Wgmma64Decode:GemmDevice.HopperDecodePlans' > $O/dt_bare_scatter.log 2>&1
echo "bare scatter tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/dt_bare_scatter.log | tr '\n' ' ') at $(el) s"
for r in $(seq 1 ${ROUNDS:-3}); do
  timeout 40 $B bench gemm --shapes decode --repeats 10 --json $O/dec_$r.json > $O/dec_$r.log 2>&1 || echo "round $r failed"
  TESSERA_BARE_SCATTER=1 timeout 40 $B bench gemm --shapes decode --repeats 10 --json $O/dec_bs_$r.json > $O/dec_bs_$r.log 2>&1 || echo "bs round $r failed"
done
python3 scripts/device/gemm_ratios.py $O/dec_[0-9]*.json $O/dec_bs_*.json | grep -E "json|^bare|cost_bias_sil|cost_bias_gel"
cd $O && tar cf - *.json *.log | xz -1 > $OUT/final_scatter.tar.xz
timeout 150 $B bench gemm --plans --menu bias_silu_residual --shapes decode --repeats 10 --json $O/plans_menu.json > $O/plans_menu.log 2>&1
echo "plans (bias+SiLU+residual) rc=$? at $(el) s"; grep -E "^M=|within" $O/plans_menu.log | cut -c1-170
cd $O && tar cf - *.json *.log | xz -1 > $OUT/final_scatter.tar.xz
echo "all done at $(el) s"
