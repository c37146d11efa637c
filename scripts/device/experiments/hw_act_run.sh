#!/usr/bin/env bash
# scripts/device/experiments/hw_act_run.sh -- one device call (from the repository root on the GPU machine, the tree
# clean): the tree built (/tmp/b: tessera_cli, gemm_device_test, gemm_host_test); gemm_host_test, gemm_device_test whole
# and compute-sanitizer memcheck / racecheck / synccheck on GemmSanitize.* and GemmDevice.EpilogueInplace; then ROUNDS
# (default 4) rounds of the decode set.  Written for the staged epilogue's hardware-tanh activations (the GEMM kernels'
# gelu_tanh and silu as the fragment epilogue's) and its alpha-one store pass.  Pass TESSERA_GIT_COMMIT.  Results under
# $OUT (hw_act.tar.xz), a summary on stdout.  About 300 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, tree_build, gemm_tests)
tree_build tessera_cli gemm_device_test gemm_host_test || exit 1
B=/tmp/b/tools/tessera
gemm_tests 'GemmSanitize.*:GemmDevice.EpilogueInplace:ActivationBound.*' 330
for r in $(seq 1 ${ROUNDS:-4}); do
  timeout 40 $B bench gemm --shapes decode --repeats 10 --json $O/dec_$r.json > $O/dec_$r.log 2>&1 || echo "round $r failed"
done
python3 scripts/device/gemm_ratios.py $O/dec_*.json | grep -E "json|^bare|cost_bias_sil|cost_bias_gel"
cd $O && tar cf - *.json *.log | xz -1 > $OUT/hw_act.tar.xz
echo "all done at $(el) s"
