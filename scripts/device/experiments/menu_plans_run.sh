#!/usr/bin/env bash
# scripts/device/experiments/menu_plans_run.sh -- one device call (from the repository root on the GPU machine, the tree
# clean): the tree built (/tmp/b: tessera_cli, gemm_device_test, gemm_host_test) and tested (gemm_host_test,
# gemm_device_test whole, compute-sanitizer memcheck / racecheck / synccheck on GemmDevice.ShortBoxes and
# GemmSanitize.*), then `tessera bench gemm --plans --menu bias_silu_residual` over issue 11's decode set (which plan
# runs the fused menu fastest, against the planner's) and two rounds of the decode set.  Pass TESSERA_GIT_COMMIT.
# Results under $OUT (menu_plans.tar.xz), a summary on stdout.  About 450 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, tree_build, gemm_tests)
tree_build tessera_cli gemm_device_test gemm_host_test || exit 1
B=/tmp/b/tools/tessera
gemm_tests 'GemmSanitize.*:GemmDevice.ShortBoxes' 360
timeout 120 $B bench gemm --plans --menu bias_silu_residual --shapes decode --repeats 10 --json $O/plans_menu.json > $O/plans_menu.log 2>&1
echo "plans (bias+SiLU+residual) rc=$? at $(el) s"; grep -E "^M=|within" $O/plans_menu.log | cut -c1-170
for r in 1 2; do
  [ $(el) -gt 540 ] && break
  timeout 40 $B bench gemm --shapes decode --repeats 10 --json $O/dec_$r.json > $O/dec_$r.log 2>&1 || echo "decode round $r failed"
done
python3 scripts/device/gemm_ratios.py $O/dec_*.json | grep -E "json|^bare|cost_bias_sil"
cd $O && tar cf - *.json *.log | xz -1 > $OUT/menu_plans.tar.xz
echo "all done at $(el) s"
