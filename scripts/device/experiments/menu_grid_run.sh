#!/usr/bin/env bash
# scripts/device/experiments/menu_grid_run.sh -- one device call (from the repository root on the GPU machine, the tree
# clean): tessera_cli built (/tmp/b), then `tessera bench gemm --plans --menu bias_silu_residual` over issue 11's
# decode grid (the planner's fused plan against every forced plan with that menu, 45 shapes), and the persistent
# cooperative 128 x 256 kernel with its stream-K tail forced on at the batch-of-64 / 128 decode shapes (every menu,
# against cuBLAS), beside the planner's plans of the same shapes.  Pass TESSERA_GIT_COMMIT.  Results under $OUT
# (menu_grid.tar.xz), a summary on stdout.  About 300 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, tree_build)
tree_build tessera_cli || exit 1
B=/tmp/b/tools/tessera
timeout 240 $B bench gemm --plans --menu bias_silu_residual --shapes decode-grid --repeats 10 --json $O/plans_menu_grid.json > $O/plans_menu_grid.log 2>&1
echo "plans (bias+SiLU+residual, grid) rc=$? at $(el) s"; grep -E "^M=|within" $O/plans_menu_grid.log | cut -c1-160
S=128x14336x4096,128x8192x8192,128x4096x4096,128x4096x14336,64x14336x4096,128x28672x8192
for r in 1 2; do
  [ $(el) -gt 480 ] && break
  timeout 60 $B bench gemm --shapes $S --repeats 10 --json $O/plan_$r.json > $O/plan_$r.log 2>&1; echo "planner round $r rc=$? at $(el) s"
  timeout 60 $B bench gemm --shapes $S --repeats 10 --tile coop128x256x64 --stream-k on --json $O/sk_$r.json > $O/sk_$r.log 2>&1; echo "stream-K round $r rc=$? at $(el) s"
done
grep -hE "^M=" $O/plan_*.log $O/sk_*.log | cut -c1-150
cd $O && tar cf - *.json *.log | xz -1 > $OUT/menu_grid.tar.xz
echo "all done at $(el) s"
