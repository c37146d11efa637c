#!/usr/bin/env bash
# scripts/device/experiments/fp8_bare_pair_run.sh -- one device call (from the repository root on the GPU machine): the
# FP8 bare kernel with K tile 0's staging in two pairs of slots (one proxy fence a pair: fp8_bare_pair.patch, applied).
# fp8_bare_run.sh without the sanitizers and channel scales (TESSERA_FP8_BARE=0 / 1, two rounds, gemm_fp8_test whole), then the timeline
# (fp8_bare_trace_run.sh's runs, and bf16's bare kernel at 4096^3 for its deferred staging per slot).  Pass
# TESSERA_GIT_COMMIT.  Results in $OUT/fp8pair.tar.xz and the log.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, results_build, fp8_ab, trace_build)
git apply scripts/device/experiments/fp8_bare_pair.patch || { echo "pair patch does not apply"; exit 1; }
git apply scripts/device/experiments/fp8_bare_switch.patch || { echo "switch patch does not apply"; exit 1; }
results_build fp8pair  # (R, B)
base=$TESSERA_GIT_COMMIT
L=4096x4096x4096,8192x8192x8192,8192x4096x4096,8192x14336x4096,8192x4096x14336
timeout 150 $T/gemm_fp8_test > $R/f8.log 2>&1; echo "fp8 rc=$? $(grep -E '^\[  (PASSED|FAILED)' $R/f8.log | tr '\n' ' ') at $(el) s"
grep -A8 Failure $R/f8.log | head -20
fp8_ab 2 5
tar -C $O -cJf $OUT/fp8pair.tar.xz fp8pair
trace_build || exit 0
for run in "e4m3 4096 4096 4096" "e4m3 8192 8192 8192" "bf16 4096 4096 4096"; do
  set -- $run
  echo "== $run (bare kernel)"
  TESSERA_FP8_BARE=1 TRACE_DTYPE=$1 timeout 60 /tmp/tb/trace_gemm $2 $3 $4 c 2>&1 | grep -E "^bare|deferred staging|^tc" | head -4
done
echo "all done at $(el) s"
