#!/usr/bin/env bash
# scripts/device/experiments/sk76_split_run.sh -- one device call (from the repository root on the GPU machine, the tree
# clean): (1) main's tessera_cli; the two L shapes whose last wave of cluster units is 76% full (8192 x 4096 x 14336,
# 8192 x 4096 x 4096) with the planner's plan and with --stream-k on in turn, ROUNDS times (default 3, order swapped
# each round), each its own process; (2) run_split.patch (GemmSm90::run split into issue / produce / consume / finish)
# built on top (tessera_cli, gemm_device_test), the non-persistent kernels' device tests with it, then the decode set
# and the small shapes with main's and the patched CLI in turn, two rounds; (3) time allowing (GUARD, default 500 s),
# the sanitizers on GemmDevice.Wgmma64Decode.  Everything in $OUT/sks.tar.xz after each step.  Pass TESSERA_GIT_COMMIT.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, tree_build, bare_us, sanitize)
R=$O/sks; B=/tmp/b/tools/tessera; mkdir -p $R
pack() { tar -C $O -cJf $OUT/sks.tar.xz sks; }
tree_build tessera_cli || { tar -C $O -cJf $OUT/sks.tar.xz .; exit 1; }
base=$TESSERA_GIT_COMMIT
# (The CLI forwards bench to tessera-gpu beside it: both are copied.)
mkdir -p /tmp/tools_main /tmp/tools_split && cp $B /tmp/b/tools/tessera-gpu /tmp/tools_main/
S=8192x4096x14336,8192x4096x4096
order=(auto on)
for r in $(seq 1 "${ROUNDS:-3}"); do
  for v in "${order[@]}"; do
    TESSERA_GIT_COMMIT=$base+sk_$v timeout 60 /tmp/tools_main/tessera bench gemm --shapes $S $([ $v = on ] && echo --stream-k on) --repeats 10 \
      --json $R/s_${v}_$r.json > $R/s_${v}_$r.log 2>&1 || echo "$v $r failed"
  done
  [ -f $R/s_auto_$r.json ] || { head -3 $R/s_auto_$r.log; pack; exit 1; }
  python3 scripts/device/gemm_ratios.py $R/s_auto_$r.json $R/s_on_$r.json
  bare_us $R/s_auto_$r.json $R/s_on_$r.json
  order=("${order[1]}" "${order[0]}")
  pack
done
grep -v '^\[gemm\]' $R/s_on_1.log | grep -i "plan\|stream\|tile" | head -12 | cut -c1-170
echo "stream-K done at $(el) s"
git apply scripts/device/experiments/run_split.patch || { echo "run_split.patch does not apply"; exit 1; }
cmake --build /tmp/b -j 16 --target tessera_cli gemm_device_test > $O/build2.log 2>&1 || { grep -B2 -A8 error $O/build2.log | head -30; pack; exit 1; }
echo "split built at $(el) s"; grep -E "C75[0-9]+" $O/build2.log | head -3
cp $B /tmp/b/tools/tessera-gpu /tmp/tools_split/
timeout 120 $T/gemm_device_test --gtest_filter='GemmDevice.*Decode*:GemmDevice.ClusterPair*:GemmDevice.ShortBoxes:GemmDevice.WgmmaTiles:GemmDevice.Wgmma*' > $R/dt.log 2>&1
echo "device (split) rc=$? $(grep -E '^\[  (PASSED|FAILED)' $R/dt.log | tr '\n' ' ') at $(el) s"
grep -A8 Failure $R/dt.log | head -20
pack
SM=2048x2048x2048,1024x1024x1024,8000x5000x3000
for r in 1 2; do
  for v in main split; do
    TESSERA_GIT_COMMIT=$base+$v timeout 60 /tmp/tools_$v/tessera bench gemm --shapes decode --repeats 10 --json $R/d_${v}_$r.json > $R/d_${v}_$r.log 2>&1 || echo "decode $v $r failed"
    TESSERA_GIT_COMMIT=$base+$v timeout 30 /tmp/tools_$v/tessera bench gemm --shapes $SM --repeats 10 --json $R/m_${v}_$r.json > $R/m_${v}_$r.log 2>&1 || echo "small $v $r failed"
    echo "$v $r at $(el) s"
  done
  python3 scripts/device/gemm_ratios.py $R/d_main_$r.json $R/d_split_$r.json $R/m_main_$r.json $R/m_split_$r.json | grep -E "json|^bare|^bias_silu|cost_bias_sil"
  pack
  [ $(el) -gt ${GUARD:-500} ] && break
done
sanitize 'GemmDevice.Wgmma64Decode' ${GUARD:-500} 40 $R
pack; echo "all done at $(el) s"
