#!/usr/bin/env bash
# scripts/device/experiments/scatter_run.sh -- one device call (from the repository root on the GPU machine, the tree
# clean): the tree built (/tmp/b: tessera_cli, gemm_device_test, gemm_host_test); gemm_host_test and gemm_device_test
# whole, compute-sanitizer memcheck / racecheck / synccheck on the cluster pairs' tests (GemmSanitize.*, ClusterPair64Menus,
# Wgmma64Decode, Wgmma128x16Decode); then ROUNDS (default 3) rounds of the decode set with the scattered pair (the
# tree's) and with TESSERA_PAIR_SHARE set (the staged exchange) in turn.  Pass TESSERA_GIT_COMMIT.  Results under $OUT
# (scatter.tar.xz), a summary on stdout.  About 380 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, tree_build, gemm_tests)
tree_build tessera_cli gemm_device_test gemm_host_test || exit 1
B=/tmp/b/tools/tessera
gemm_tests 'GemmSanitize.*:GemmDevice.ClusterPair64Menus:GemmDevice.Wgmma64Decode:GemmDevice.Wgmma128x16Decode' 380
for r in $(seq 1 ${ROUNDS:-3}); do
  timeout 40 $B bench gemm --shapes decode --repeats 10 --json $O/dec_scatter_$r.json > $O/dec_scatter_$r.log 2>&1 || echo "scatter round $r failed"
  TESSERA_PAIR_SHARE=1 timeout 40 $B bench gemm --shapes decode --repeats 10 --json $O/dec_share_$r.json > $O/dec_share_$r.log 2>&1 || echo "share round $r failed"
done
python3 scripts/device/gemm_ratios.py $O/dec_scatter_*.json $O/dec_share_*.json | grep -E "json|^bare|cost_bias_sil|cost_bias_gel"
cd $O && tar cf - *.json *.log | xz -1 > $OUT/scatter.tar.xz
echo "all done at $(el) s"
