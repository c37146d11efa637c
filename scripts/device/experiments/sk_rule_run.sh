#!/usr/bin/env bash
# scripts/device/experiments/sk_rule_run.sh -- one device call (from the repository root on the GPU machine): the tree as
# it is (stream_k_pays: the 16-bit tail up to a last wave 55% full, none for short pieces of menus the store warps
# finish) built in /tmp/b (tessera_cli, gemm_device_test); GemmDevice.StreamKTail and the persistent tests; then two
# rounds of L with the planner's choice (the records) against the earlier rule's plans forced (8192^3 --stream-k off,
# 8192x14336x4096 --stream-k on), each bench its own process; FP8 e4m3 on L once (its rule unchanged).  Everything in
# $OUT/skr.tar.xz after each step.  Pass TESSERA_GIT_COMMIT.  About 320 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, tree_build)
tree_build tessera_cli gemm_device_test || { tar -C $O -cJf $OUT/skr.tar.xz .; exit 1; }
B=/tmp/b/tools/tessera; R=$O/skr; mkdir -p $R; base=$TESSERA_GIT_COMMIT
pack() { tar -C $O -cJf $OUT/skr.tar.xz skr; }
timeout 120 $T/gemm_device_test --gtest_filter='GemmDevice.StreamKTail:GemmDevice.Persistent*' > $R/dt.log 2>&1
echo "device rc=$? $(grep -E '^\[  (PASSED|FAILED)' $R/dt.log | tr '\n' ' ') at $(el) s"; grep -A8 Failure $R/dt.log | head -20
L=4096x4096x4096,8192x8192x8192,8192x4096x4096,8192x14336x4096,8192x4096x14336
for r in 1 2; do
  timeout 120 $B bench gemm --shapes $L,2048x2048x2048,1024x1024x1024,8000x5000x3000 --repeats 10 --json $R/l_$r.json > $R/l_$r.log 2>&1
  echo "L $r rc=$? at $(el) s"; python3 scripts/device/gemm_ratios.py $R/l_$r.json
  grep -E "^M=8192,N=(8192|14336),K=(8192|4096) " $R/l_$r.log | cut -c1-90 | head -4
  TESSERA_GIT_COMMIT=$base+sk_off timeout 60 $B bench gemm --shapes 8192x8192x8192 --stream-k off --repeats 10 --json $R/a_off_$r.json > $R/a_off_$r.log 2>&1
  TESSERA_GIT_COMMIT=$base+sk_on timeout 60 $B bench gemm --shapes 8192x14336x4096 --stream-k on --repeats 10 --json $R/b_on_$r.json > $R/b_on_$r.log 2>&1
  python3 scripts/device/gemm_ratios.py $R/a_off_$r.json $R/b_on_$r.json
  pack
done
timeout 120 $B bench gemm --dtype e4m3 --shapes $L --repeats 10 --json $R/fp8.json > $R/fp8.log 2>&1
echo "fp8 rc=$? at $(el) s"; grep -v '^\[gemm\]' $R/fp8.log | tail -6 | cut -c1-160
pack; echo "all done at $(el) s"
