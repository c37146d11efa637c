#!/usr/bin/env bash
# scripts/device/experiments/pair_share_run.sh -- one device call (from the repository root on the GPU machine, the tree
# clean): pair_share.patch applied, tessera_cli built; ROUNDS (default 2) rounds of the decode set with the scattered
# pair (the tree's) and with TESSERA_PAIR_SHARE set (the staged exchange) in turn, the epilogue-cost line after each.
# Pass TESSERA_GIT_COMMIT.  Results under $OUT (pair_share.tar.xz).
# About 220 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, el, patch_build)
patch_build pair_share.patch tessera_cli || exit 1
B=/tmp/b/tools/tessera
for r in $(seq 1 ${ROUNDS:-2}); do
  timeout 30 $B bench gemm --shapes decode --repeats 10 --json $O/dec_scatter_$r.json > $O/dec_scatter_$r.log 2>&1 || echo "scatter round $r failed"
  TESSERA_PAIR_SHARE=1 timeout 30 $B bench gemm --shapes decode --repeats 10 --json $O/dec_share_$r.json > $O/dec_share_$r.log 2>&1 || echo "share round $r failed"
  python3 scripts/device/gemm_ratios.py $O/dec_scatter_$r.json $O/dec_share_$r.json | grep -E "cost_bias_sil"
  cd $O && tar cf - *.json *.log | xz -1 > $OUT/pair_share.tar.xz; cd - > /dev/null
done
echo "all done at $(el) s"
