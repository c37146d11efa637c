#!/usr/bin/env bash
# scripts/device/experiments/pairs_final_run.sh -- one device call (from the repository root on the GPU machine, the tree
# clean): pairs_off.patch applied and built (/tmp/b: tessera_cli, gemm_device_test, gemm_fp8_test); ROUNDS (default 2)
# rounds of the decode set as main plans it (dec_on_r.json) and with TESSERA_ISSUE_PAIRS=0 (dec_off_r.json) in turn;
# gemm_fp8_test whole; gemm_device_test's decode tests.  Pass TESSERA_GIT_COMMIT.  Results in $OUT.  About 330 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, patch_build)
patch_build pairs_off.patch tessera_cli gemm_device_test gemm_fp8_test || exit 1
bin=/tmp/b/tools/tessera
for r in $(seq 1 "${ROUNDS:-2}"); do
  timeout 40 $bin bench gemm --shapes decode --repeats 10 --json $OUT/dec_on_$r.json > $O/dec_on_$r.log 2>&1 || echo "on $r failed"
  TESSERA_ISSUE_PAIRS=0 timeout 40 $bin bench gemm --shapes decode --repeats 10 --json $OUT/dec_off_$r.json > $O/dec_off_$r.log 2>&1 ||
    echo "off $r failed"
  python3 scripts/device/gemm_ratios.py $OUT/dec_on_$r.json $OUT/dec_off_$r.json | grep -E "json|^bare|cost_bias_sil|^decode"
done
echo "bench done at $(el) s"
timeout 90 $T/gemm_fp8_test > $O/fp8.log 2>&1
echo "fp8 rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/fp8.log | tr '\n' ' ') at $(el) s"
timeout 90 $T/gemm_device_test --gtest_filter='GemmDevice.*Decode*:GemmDevice.ClusterPair*:GemmDevice.ShortBoxes:GemmDevice.Gemv' > $O/dt.log 2>&1
echo "decode tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/dt.log | tr '\n' ' ') at $(el) s"
grep -A8 Failure $O/dt.log $O/fp8.log | head -20
cp $O/*.log "$OUT/" 2>/dev/null
echo "all done at $(el) s"
