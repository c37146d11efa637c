#!/usr/bin/env bash
# scripts/device/experiments/batch_65_127_plans.sh -- one device call (from the repository root on the GPU machine): the
# planner's plan against every forced plan (`--plans`) at batches of 72-120 (partial 128-row tiles of the batch as A)
# against issue 11's weights (4096, 4096), (8192, 8192), (14336, 4096), (4096, 14336).  Builds /tmp/b (tessera_cli).
# Results under $OUT (b65.tar.xz), the table on stdout.  About 200 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, patch_build, tree_build)
tree_build tessera_cli || exit 1
S=""
for w in 4096x4096 8192x8192 14336x4096 4096x14336; do for b in 72 96 112 120; do S="$S${S:+,}${b}x$w"; done; done
timeout 100 /tmp/b/tools/tessera bench gemm --plans --shapes $S --repeats 10 --json $O/plans.json > $O/plans.log 2>&1; echo "plans rc=$? at $(el) s"
grep -E "^M=|within" $O/plans.log | cut -c1-170
cd $O && tar cf - *.json *.log | xz -1 > $OUT/b65.tar.xz
