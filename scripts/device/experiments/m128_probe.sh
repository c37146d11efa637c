#!/usr/bin/env bash
# scripts/device/experiments/m128_probe.sh -- one device call (from the repository root on the GPU machine): every forced
# plan (`--plans`) at batches of 96 and 128 against weights of (8192, 8192) and (14336, 4096), the batch as A (as the
# planner runs it) and as B (the weights as A: shapes NxMxK), with the cluster pairs sharing A off and on
# (TESSERA_SHARE_A); then Nsight Compute on the planner's kernel at 128 x 8192^2 and 96 x 8192^2 both ways.  Builds
# /tmp/b (tessera_cli).  Results under $OUT (m128.tar.xz), a summary on stdout.  About 280 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, patch_build, tree_build)
patch_build pair_share_a.patch tessera_cli || exit 1
B=/tmp/b/tools/tessera
S=128x8192x8192,8192x128x8192,96x8192x8192,8192x96x8192,128x14336x4096,14336x128x4096
for x in 0 1; do
  TESSERA_SHARE_A=$x timeout 120 $B bench gemm --plans --shapes $S --repeats 10 --json $O/plans_$x.json > $O/plans_$x.log 2>&1; echo "plans share=$x rc=$? at $(el) s"
  grep -E "^M=" $O/plans_$x.log | cut -c1-150
done
for x in 0 1; do
  TESSERA_SHARE_A=$x TESSERA_BIN=/tmp/b/tools OUT=$O/ncu_$x NCU_COUNT=12 timeout 200 bash scripts/device/ncu_decode_vs_cublas.sh 128x8192x8192 96x8192x8192 2>&1 | tail -8
  echo "ncu share=$x at $(el) s"
done
cd $O && tar cf - *.json *.log ncu_* | xz -1 > $OUT/m128.tar.xz
echo "all done at $(el) s"
