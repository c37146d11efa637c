#!/usr/bin/env bash
# scripts/device/experiments/push_fused_run.sh -- one device call (from the repository root on the GPU machine, the tree
# clean): push_fused.patch applied and built (/tmp/b: tessera_cli, gemm_device_test, gemm_host_test); gemm_host_test,
# then gemm_device_test whole and compute-sanitizer memcheck / racecheck / synccheck on GemmSanitize.* with
# TESSERA_PUSH_FUSED=1 (the fused menus of the 64-wide pairs pushed); three rounds of the decode set with the switch off
# and on in turn.  Pass TESSERA_GIT_COMMIT.  Results under $OUT (push_fused.tar.xz), a summary on stdout.  About 400 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, patch_build, gemm_tests)
patch_build push_fused.patch tessera_cli gemm_device_test gemm_host_test || exit 1
B=/tmp/b/tools/tessera
export TESSERA_PUSH_FUSED=1
gemm_tests 'GemmSanitize.*' 330
unset TESSERA_PUSH_FUSED
for r in 1 2 3; do
  timeout 40 $B bench gemm --shapes decode --repeats 10 --json $O/dec_off_$r.json > $O/dec_off_$r.log 2>&1 || echo "off round $r failed"
  TESSERA_PUSH_FUSED=1 timeout 40 $B bench gemm --shapes decode --repeats 10 --json $O/dec_on_$r.json > $O/dec_on_$r.log 2>&1 || echo "on round $r failed"
done
python3 scripts/device/gemm_ratios.py $O/dec_off_*.json $O/dec_on_*.json | grep -E "json|^bare|cost_bias_sil"
cd $O && tar cf - *.json *.log | xz -1 > $OUT/push_fused.tar.xz
echo "all done at $(el) s"
