#!/usr/bin/env bash
# scripts/device/experiments/issue_pairs_run.sh -- one device call (from the repository root on the GPU machine, the tree
# clean): issue_pairs.patch applied and built (/tmp/b); ROUNDS (default 2) rounds of the decode set with
# TESSERA_ISSUE_PAIRS unset, 1 and 2 in turn (dec_{off,p1,p2}_r.json); then gemm_device_test whole with
# TESSERA_ISSUE_PAIRS=2 and memcheck / racecheck / synccheck on GemmSanitize.* and GemmDevice.Wgmma64Decode with it
# (guarded at 520 s).  Pass TESSERA_GIT_COMMIT.  Results in $OUT/pairs.tar.xz.  About 480 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, patch_build)
patch_build issue_pairs.patch tessera_cli gemm_host_test gemm_device_test || exit 1
bin=/tmp/b/tools/tessera
for r in $(seq 1 "${ROUNDS:-2}"); do
  for v in off p1 p2; do
    case $v in off) e="TESSERA_ISSUE_PAIRS=0";; p1) e="TESSERA_ISSUE_PAIRS=1";; p2) e="TESSERA_ISSUE_PAIRS=2";; esac
    env $e timeout 40 $bin bench gemm --shapes decode --repeats 10 --json $O/dec_${v}_$r.json > $O/dec_${v}_$r.log 2>&1 ||
      echo "$v round $r failed"
  done
  python3 scripts/device/gemm_ratios.py $O/dec_off_$r.json $O/dec_p1_$r.json $O/dec_p2_$r.json | grep -E "json|^bare|cost_bias_sil"
  (cd $O && tar cf - *.json *.log | xz -1 > "$OUT/pairs.tar.xz")
done
echo "bench done at $(el) s"
export TESSERA_ISSUE_PAIRS=2
timeout 150 $T/gemm_device_test > $O/dt.log 2>&1
echo "device (pairs 2) rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/dt.log | tr '\n' ' ') at $(el) s"
grep -A8 Failure $O/dt.log | head -30
for tool in memcheck racecheck synccheck; do
  [ $(el) -gt 520 ] && { echo "$tool skipped (time)"; continue; }
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 3 $T/gemm_device_test \
    --gtest_filter='GemmSanitize.*:GemmDevice.Wgmma64Decode' > $O/san_$tool.log 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED)' $O/san_$tool.log | head -3 | tr '\n' ' ') at $(el) s"
done
(cd $O && tar cf - *.json *.log | xz -1 > "$OUT/pairs.tar.xz")
echo "all done at $(el) s"
