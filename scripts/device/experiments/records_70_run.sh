#!/usr/bin/env bash
# scripts/device/experiments/records_70_run.sh -- one device call (from the repository root on the GPU machine): the tree
# as it is built in /tmp/b (tessera_cli, gemm_device_test, gemm_fp8_test); the planner's grid under the K-tile pairs'
# rule of 93cc799 (`--plans --shapes decode-grid`), two rounds of the decode set, issue 10's L and small shapes
# (bf16, the planner's choice), then -- time allowing (GUARD, default 500 s) -- the decode and tile device tests.
# Everything in $OUT/r70.tar.xz after each step.  Pass TESSERA_GIT_COMMIT.  About 560 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, results_build)
results_build r70  # (R, B)
pack() { cp $O/build.log $O/cfg.log $R/ 2>/dev/null; tar -C $O -cJf $OUT/r70.tar.xz r70; }
timeout 220 $B bench gemm --plans --shapes decode-grid --repeats 10 --json $R/plans.json > $R/plans.log 2>&1
echo "plans rc=$? at $(el) s"; tail -1 $R/plans.log; pack
for r in 1 2; do
  timeout 40 $B bench gemm --shapes decode --repeats 10 --json $R/dec_$r.json > $R/dec_$r.log 2>&1 || echo "dec $r failed"
  python3 scripts/device/gemm_ratios.py $R/dec_$r.json | grep -E "^bare|^bias_silu|cost_bias_sil"
  bare_us $R/dec_$r.json
  grep -E "^M=(1|16),N=8192,K=8192" $R/dec_$r.log | cut -c1-60
done
echo "decode at $(el) s"; pack
timeout 120 $B bench gemm --shapes 4096x4096x4096,8192x8192x8192,8192x4096x4096,8192x14336x4096,8192x4096x14336,2048x2048x2048,1024x1024x1024,8000x5000x3000 \
  --repeats 10 --json $R/l.json > $R/l.log 2>&1; echo "L rc=$? at $(el) s"
python3 scripts/device/gemm_ratios.py $R/l.json; pack
if [ $(el) -lt ${GUARD:-500} ]; then
  timeout 60 $T/gemm_device_test --gtest_filter='GemmDevice.*Decode*:GemmDevice.ClusterPair*:GemmDevice.ShortBoxes:GemmDevice.WgmmaTiles' > $R/dt.log 2>&1
  echo "device rc=$? $(grep -E '^\[  (PASSED|FAILED)' $R/dt.log | tr '\n' ' ') at $(el) s"
fi
pack
echo "all done at $(el) s"
