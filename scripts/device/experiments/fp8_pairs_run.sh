#!/usr/bin/env bash
# scripts/device/experiments/fp8_pairs_run.sh -- one device call (from the repository root on the GPU machine, the tree
# clean): fp8_pairs.patch applied and built (/tmp/b: tessera_cli, gemm_fp8_test); gemm_fp8_test with
# TESSERA_ISSUE_PAIRS_F8=1 and memcheck / racecheck / synccheck on GemmFp8Sanitize.* and GemmFp8.DecodePlans with it;
# ROUNDS (default 2) rounds of the FP8 decode set (e4m3, promoted accumulation) without and with the switch in turn
# (f8_off_r.json, f8_on_r.json); then one `--plans --shapes decode-grid` of main's bf16 (plans.json: the forced plans
# since the K-tile pairs).  Pass TESSERA_GIT_COMMIT.  Results in $OUT.  About 450 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, patch_build)
patch_build fp8_pairs.patch tessera_cli gemm_fp8_test || exit 1
TESSERA_ISSUE_PAIRS_F8=1 timeout 90 $T/gemm_fp8_test > $O/fp8.log 2>&1
echo "fp8 (pairs) rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/fp8.log | tr '\n' ' ') at $(el) s"
grep -A8 Failure $O/fp8.log | head -20
for tool in memcheck racecheck synccheck; do
  TESSERA_ISSUE_PAIRS_F8=1 timeout 100 compute-sanitizer --tool $tool --error-exitcode 3 $T/gemm_fp8_test \
    --gtest_filter='GemmFp8Sanitize.*:GemmFp8.DecodePlans' > $O/san_$tool.log 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED)' $O/san_$tool.log | head -3 | tr '\n' ' ') at $(el) s"
done
bin=/tmp/b/tools/tessera
f8="bench gemm --dtype e4m3 --fp8-accum promoted --shapes decode --repeats 10"
for r in $(seq 1 "${ROUNDS:-2}"); do
  timeout 60 $bin $f8 --json $OUT/f8_off_$r.json > $O/f8_off_$r.log 2>&1 || echo "off $r failed"
  TESSERA_ISSUE_PAIRS_F8=1 timeout 60 $bin $f8 --json $OUT/f8_on_$r.json > $O/f8_on_$r.log 2>&1 || echo "on $r failed"
  python3 scripts/device/gemm_ratios.py $OUT/f8_off_$r.json $OUT/f8_on_$r.json | grep -E "json|^bare"
done
echo "fp8 bench done at $(el) s"
timeout 200 $bin bench gemm --plans --shapes decode-grid --repeats 10 --json $OUT/plans.json > $O/plans.log 2>&1
echo "plans rc=$? at $(el) s"; tail -5 $O/plans.log
cp $O/*.log "$OUT/" 2>/dev/null
echo "all done at $(el) s"
