#!/usr/bin/env bash
# scripts/device/experiments/l_rounds_run.sh -- one device call (from the repository root on the GPU machine): the tree as
# it is, tessera_cli alone built in /tmp/b; then L in bf16 (ROUNDS, default 2) and f16 (once), the planner's choice,
# each bench its own process.  Everything in $OUT/lr.tar.xz after each run.  Pass TESSERA_GIT_COMMIT.  About 200 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, el, tree_build)
tree_build tessera_cli || { tar -C $O -cJf $OUT/lr.tar.xz .; exit 1; }
B=/tmp/b/tools/tessera; R=$O/lr; mkdir -p $R
L=4096x4096x4096,8192x8192x8192,8192x4096x4096,8192x14336x4096,8192x4096x14336
for r in $(seq 1 "${ROUNDS:-2}"); do
  timeout 30 $B bench gemm --shapes $L --repeats 10 --json $R/bf16_$r.json > $R/bf16_$r.log 2>&1; echo "bf16 $r rc=$? at $(el) s"
  python3 scripts/device/gemm_ratios.py $R/bf16_$r.json; tar -C $O -cJf $OUT/lr.tar.xz lr
done
timeout 30 $B bench gemm --dtype f16 --shapes $L --repeats 10 --json $R/f16.json > $R/f16.log 2>&1; echo "f16 rc=$? at $(el) s"
python3 scripts/device/gemm_ratios.py $R/f16.json; tar -C $O -cJf $OUT/lr.tar.xz lr
echo "all done at $(el) s"
