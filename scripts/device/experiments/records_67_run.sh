#!/usr/bin/env bash
# scripts/device/experiments/records_67_run.sh -- one device call (from the repository root on the GPU machine): the tree
# built in /tmp/b (tessera_cli, gemm_device_test, gemm_fp8_test); two rounds of the decode set, the planner's grid and
# issue 10's small shapes (the records); then gemm_device_test and gemm_fp8_test whole and memcheck / racecheck / synccheck
# on the read-ahead and tile tests.  Everything in $OUT/r67.tar.xz.  Pass TESSERA_GIT_COMMIT.  About 400 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, results_build, sanitize)
results_build r67  # (R, B)
for r in 1 2; do
  timeout 40 $B bench gemm --shapes decode --repeats 10 --json $R/dec_$r.json > $R/dec_$r.log 2>&1 || echo "dec $r failed"
  python3 scripts/device/gemm_ratios.py $R/dec_$r.json | grep -E "^bare|^bias_silu"
  grep -E "^M=(1|16),N=8192,K=8192" $R/dec_$r.log | cut -c1-60
done
timeout 200 $B bench gemm --plans --shapes decode-grid --repeats 10 --json $R/plans.json > $R/plans.log 2>&1
echo "plans rc=$? at $(el) s"; tail -1 $R/plans.log; grep -E "^M=256" $R/plans.log | cut -c1-130
timeout 60 $B bench gemm --shapes 1024x1024x1024,2048x2048x2048,8000x5000x3000 --repeats 10 --json $R/small.json \
  > $R/small.log 2>&1; echo "small rc=$?"; python3 scripts/device/gemm_ratios.py $R/small.json | grep -E "^bare|^bias"
timeout 150 $T/gemm_device_test > $R/dt.log 2>&1; echo "device rc=$? $(grep -E '^\[  (PASSED|FAILED)' $R/dt.log | tr '\n' ' ') at $(el) s"
timeout 90 $T/gemm_fp8_test > $R/f8.log 2>&1; echo "fp8 rc=$? $(grep -E '^\[  (PASSED|FAILED)' $R/f8.log | tr '\n' ' ') at $(el) s"
grep -A8 Failure $R/dt.log $R/f8.log | head -20
sanitize 'GemmDevice.EpilogueReadAhead:GemmDevice.WgmmaTiles' 520 50 $R
cp $O/build.log $O/cfg.log $R/ 2>/dev/null
tar -C $O -cJf $OUT/r67.tar.xz r67
echo "all done at $(el) s"
