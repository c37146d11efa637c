#!/usr/bin/env bash
# scripts/device/experiments/sk_orders_run.sh -- one device call (from the repository root on the GPU machine): the tree
# as it is, tessera_cli alone built in /tmp/b; three rounds of issue 10's fused menus with the planner's stream-K choice
# against the other one (8192x14336x4096 planner (stream-K) / --stream-k off; 4096^3 and 8192^3 planner (none) /
# --stream-k on), each bench its own process with cuBLAS / cuBLASLt in it; then L in the three other operand orders
# (the four-orders target's records).  Everything in $OUT/sk.tar.xz after each step.  Pass TESSERA_GIT_COMMIT.  ~330 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, el, tree_build)
tree_build tessera_cli || { tar -C $O -cJf $OUT/sk.tar.xz .; exit 1; }
B=/tmp/b/tools/tessera; R=$O/sk; mkdir -p $R; base=$TESSERA_GIT_COMMIT
pack() { tar -C $O -cJf $OUT/sk.tar.xz sk; }
for r in 1 2 3; do
  for v in plan off; do
    TESSERA_GIT_COMMIT=$base+sk_$v timeout 60 $B bench gemm --shapes 8192x14336x4096 --repeats 10 $([ $v = off ] && echo --stream-k off) \
      --json $R/a_${v}_$r.json > $R/a_${v}_$r.log 2>&1 || echo "a $v $r failed"
  done
  for v in plan on; do
    TESSERA_GIT_COMMIT=$base+sk_$v timeout 60 $B bench gemm --shapes 4096x4096x4096,8192x8192x8192 --repeats 10 $([ $v = on ] && echo --stream-k on) \
      --json $R/b_${v}_$r.json > $R/b_${v}_$r.log 2>&1 || echo "b $v $r failed"
  done
  python3 scripts/device/gemm_ratios.py $R/a_plan_$r.json $R/a_off_$r.json $R/b_plan_$r.json $R/b_on_$r.json | grep -E "json|^bare|^bias_silu|cost_bias_sil"
done
echo "stream-K at $(el) s"; pack
L=4096x4096x4096,8192x8192x8192,8192x4096x4096,8192x14336x4096,8192x4096x14336
for o in "--b-row-major" "--a-col-major" "--a-col-major --b-row-major"; do
  n=$(echo $o | tr -d ' -' | sed 's/major/_/g')
  timeout 120 $B bench gemm $o --shapes $L --repeats 10 --json $R/o_$n.json > $R/o_$n.log 2>&1; echo "$o rc=$? at $(el) s"
  python3 scripts/device/gemm_ratios.py $R/o_$n.json | grep -E "^bare|^bias"
done
pack; echo "all done at $(el) s"
