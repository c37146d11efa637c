#!/usr/bin/env bash
# scripts/device/experiments/rows64_batch32_run.sh -- one device call (from the repository root on the GPU machine):
# whether the 64-wide 64-row tile in cluster pairs should take batches of 25-32 too (rows64_plan's threshold, 32 at
# e2e967e).  Builds (/tmp/b), then five rounds of `--versus wgmma64x64x64:2` (the planner's plan against the forced
# 64x64 pair; < 1: the pair faster) at batches 24 / 28 / 32 against weights of 4096 rows (K 4096, 14336), and of
# `--versus wgmma128x64x64:2` (the 128 x 64 pair forced, the planner's plan at batch 32) at the same shapes; then the
# grid.  Results under $OUT (batch32.tar.xz) and a summary on stdout.  About 300 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, patch_build, tree_build)
tree_build tessera_cli || exit 1
B=/tmp/b/tools/tessera
S=24x4096x4096,28x4096x4096,32x4096x4096,24x4096x14336,28x4096x14336,32x4096x14336
for r in 1 2 3 4 5; do
  for v in wgmma64x64x64:2 wgmma128x64x64:2; do
    tag=${v%%x64x64:2}
    timeout 60 $B bench gemm --shapes $S --repeats 10 --versus $v --json $O/vs_${tag}_$r.json > $O/vs_${tag}_$r.log 2>&1 || echo "versus $v round $r failed"
  done
  echo "round $r at $(el) s"
done
python3 - <<'PY'
import json, glob
for f in sorted(glob.glob('/tmp/o/vs_*.json')):
    out = [f"{r['shape']} {r['ratio']:.3f}" for r in json.load(open(f))['records'] if r['case'] == 'plan_vs_forced']
    print(f.split('/')[-1], ' | '.join(out))
PY
timeout 150 $B bench gemm --plans --shapes decode-grid --repeats 10 --json $O/plans.json > $O/plans.log 2>&1; echo "plans rc=$? at $(el) s"; grep -E "within" $O/plans.log
cd $O && tar cf - *.json *.log | xz -1 > $OUT/batch32.tar.xz
echo "all done at $(el) s"
