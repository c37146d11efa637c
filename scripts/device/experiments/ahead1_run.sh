#!/usr/bin/env bash
# scripts/device/experiments/ahead1_run.sh -- one device call (from the repository root on the GPU machine): the tree as it
# is (the 128 x 128 tile's ring of six with a one-matrix read-ahead buffer; pairs_any.patch's TESSERA_EXP_PAIRS_ANY switch
# in the tree) built in /tmp/b (tessera_cli, gemm_device_test, gemm_fp8_test); ROUNDS (default 3) rounds of the decode
# set; `--plans` (the planner's plan and every forced one) at the batch-of-256 shapes and 128 x 14336 x 4096 with the
# switch off and on, in turn, twice; gemm_fp8_test, then gemm_device_test whole, then memcheck / racecheck / synccheck on
# the read-ahead and tile tests while time is left.  Everything in $OUT/a1.tar.xz.  Pass TESSERA_GIT_COMMIT.  ~500 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, results_build, sanitize)
results_build a1  # (R, B)
for r in $(seq 1 "${ROUNDS:-3}"); do
  timeout 40 $B bench gemm --shapes decode --repeats 10 --json $R/dec_$r.json > $R/dec_$r.log 2>&1 || echo "dec $r failed"
  python3 scripts/device/gemm_ratios.py $R/dec_$r.json | grep -E "^bare|^bias_silu"
done
echo "decode done at $(el) s"
S=256x4096x4096,256x4096x14336,256x8192x8192,128x14336x4096
for r in 1 2; do
  timeout 60 $B bench gemm --plans --shapes $S --repeats 10 --json $R/pl_off_$r.json > $R/pl_off_$r.log 2>&1
  grep -E "^M=" $R/pl_off_$r.log | cut -c1-130
  TESSERA_EXP_PAIRS_ANY=1 timeout 60 $B bench gemm --plans --shapes $S --repeats 10 --json $R/pl_on_$r.json > $R/pl_on_$r.log 2>&1
  grep -E "^M=" $R/pl_on_$r.log | cut -c1-130
done
echo "plans done at $(el) s"
timeout 90 $T/gemm_fp8_test > $R/f8.log 2>&1; echo "fp8 rc=$? $(grep -E '^\[  (PASSED|FAILED)' $R/f8.log | tr '\n' ' ') at $(el) s"
timeout 150 $T/gemm_device_test > $R/dt.log 2>&1
echo "device rc=$? $(grep -E '^\[  (PASSED|FAILED)' $R/dt.log | tr '\n' ' ') at $(el) s"
grep -A8 Failure $R/f8.log $R/dt.log | head -20
sanitize 'GemmDevice.EpilogueReadAhead:GemmDevice.WgmmaTiles' 540 40 $R
cp $O/build.log $O/cfg.log $R/ 2>/dev/null
tar -C $O -cJf $OUT/a1.tar.xz a1
echo "all done at $(el) s"
