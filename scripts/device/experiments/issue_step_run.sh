#!/usr/bin/env bash
# scripts/device/experiments/issue_step_run.sh -- one device call (from the repository root on the GPU machine, the tree
# clean): issue_step.patch applied and built (/tmp/b: tessera_cli, gemm_device_test, gemm_fp8_test); the decode tests
# and gemm_fp8_test's decode plans with TESSERA_ISSUE_STEP=4 and 3; ROUNDS (default 3) rounds of the bf16 decode set with
# the step at 2 (main), 4, 3 and 6 in turn (dec_S_r.json), then one round of FP8's at 2 and 4; the probe's runs mode
# first (scripts/device/share_probe.cu) if PROBE=1.  Everything in $OUT/s.tar.xz.  Pass TESSERA_GIT_COMMIT.  About 330 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, patch_build)
R=$O/s; mkdir -p $R
if [ "${PROBE:-0}" = 1 ]; then
  nvcc -std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a -I include -I scripts/device scripts/device/share_probe.cu \
    -o /tmp/shp -lcublas > $R/probe_build.log 2>&1 && timeout 120 /tmp/shp runs > $R/probe.log 2>&1
  echo "probe rc=$? at $(el) s"; cat $R/probe.log
fi
patch_build issue_step.patch tessera_cli gemm_device_test gemm_fp8_test || { tar -C $O -cJf $OUT/s.tar.xz .; exit 1; }
for st in 4 3; do
  TESSERA_ISSUE_STEP=$st timeout 90 $T/gemm_device_test --gtest_filter='GemmDevice.*Decode*:GemmDevice.ClusterPair*:GemmDevice.ShortBoxes' > $R/dt_$st.log 2>&1
  echo "step $st decode tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $R/dt_$st.log | tr '\n' ' ') at $(el) s"
  TESSERA_ISSUE_STEP=$st timeout 90 $T/gemm_fp8_test --gtest_filter='GemmFp8.DecodePlans:GemmFp8Sanitize.*' > $R/f8_$st.log 2>&1
  echo "step $st fp8 rc=$? $(grep -E '^\[  (PASSED|FAILED)' $R/f8_$st.log | tr '\n' ' ')"
  grep -A8 Failure $R/dt_$st.log $R/f8_$st.log | head -20
done
bin=/tmp/b/tools/tessera
for r in $(seq 1 "${ROUNDS:-3}"); do
  for st in 2 4 3 6; do
    TESSERA_ISSUE_STEP=$st timeout 40 $bin bench gemm --shapes decode --repeats 10 --json $R/dec_${st}_$r.json > $R/dec_${st}_$r.log 2>&1 || echo "step $st round $r failed"
  done
  python3 scripts/device/gemm_ratios.py $R/dec_2_$r.json $R/dec_4_$r.json $R/dec_3_$r.json $R/dec_6_$r.json | grep -E "json|^bare"
done
f8="bench gemm --dtype e4m3 --fp8-accum promoted --shapes decode --repeats 10"
for st in 2 4; do TESSERA_ISSUE_STEP=$st timeout 60 $bin $f8 --json $R/f8_$st.json > $R/f8b_$st.log 2>&1 || echo "fp8 $st failed"; done
cp $O/build.log $O/cfg.log $R/ 2>/dev/null
tar -C $O -cJf $OUT/s.tar.xz s
echo "all done at $(el) s"
