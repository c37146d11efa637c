#!/usr/bin/env bash
# scripts/device/experiments/sk76_run.sh -- one device call (from the repository root on the GPU machine): main's
# tessera_cli, then the two L shapes whose last wave of cluster units is 76% full (8192 x 4096 x 14336 and
# 8192 x 4096 x 4096: 512 pair units over 66 workers) with the planner's plan (no stream-K tail under the 55% rule)
# and with --stream-k on, in turn, each its own process, ROUNDS times (default 4, the order swapped each round); the
# bench tables' plan lines; everything in $OUT/sk76.tar.xz.  Pass TESSERA_GIT_COMMIT.  About 260 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, el, tree_build, bare_us)
R=$O/sk76; B=/tmp/b/tools/tessera; mkdir -p $R
tree_build tessera_cli || { tar -C $O -cJf $OUT/sk76.tar.xz .; exit 1; }
base=$TESSERA_GIT_COMMIT
S=8192x4096x14336,8192x4096x4096
order=(auto on)
for r in $(seq 1 "${ROUNDS:-4}"); do
  for v in "${order[@]}"; do
    TESSERA_GIT_COMMIT=$base+sk_$v timeout 60 $B bench gemm --shapes $S $([ $v = on ] && echo --stream-k on) --repeats 10 --json $R/s_${v}_$r.json \
      > $R/s_${v}_$r.log 2>&1 || echo "$v $r failed"
  done
  python3 scripts/device/gemm_ratios.py $R/s_auto_$r.json $R/s_on_$r.json
  bare_us $R/s_auto_$r.json $R/s_on_$r.json
  order=("${order[1]}" "${order[0]}")
  tar -C $O -cJf $OUT/sk76.tar.xz sk76
done
grep -v '^\[gemm\]' $R/s_on_1.log | head -30 | cut -c1-170
grep -v '^\[gemm\]' $R/s_auto_1.log | head -30 | cut -c1-170
echo "all done at $(el) s"
