#!/usr/bin/env bash
# scripts/device/experiments/fp8_udesc_run.sh -- one device call (from the repository root on the GPU machine, the tree
# clean): fp8_udesc.patch applied (the FP8 e4m3 x e4m3 (K, K) persistent kernels built a second time with kUDesc -- the
# promoted loop's and K tile 0's descriptors from a stage index shuffled from lane 0, which ptxas then builds in uniform
# registers: the SASS issues a group's QGMMA back to back instead of between vector-to-uniform moves -- in their own unit,
# src/gemm_sm90_persistent_e4m3_e4m3_coop_kk_udesc.cu; TESSERA_EXP_UDESC=1 launches them) and built (tessera_cli and the
# GEMM tests); gemm_fp8_test whole with the switch on; compute-sanitizer on GemmFp8Sanitize.* with it (time allowing);
# FP8 e4m3 per-tensor (promoted) on L, main's kernels / the kUDesc ones in turn, ROUNDS times (default 3; records
# +main / +udesc), channel scales once each.  Everything in $OUT/ud.tar.xz.  Pass TESSERA_GIT_COMMIT.  About 420 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, sanitize)
git apply scripts/device/experiments/fp8_udesc.patch || { echo "fp8_udesc.patch does not apply"; exit 1; }
results_build ud  # (R, B)
base=$TESSERA_GIT_COMMIT
L=4096x4096x4096,8192x8192x8192,8192x4096x4096,8192x14336x4096,8192x4096x14336
TESSERA_EXP_UDESC=1 timeout 150 $T/gemm_fp8_test > $R/f8.log 2>&1
echo "fp8 (udesc) rc=$? $(grep -E '^\[  (PASSED|FAILED)' $R/f8.log | tr '\n' ' ') at $(el) s"
grep -A8 Failure $R/f8.log | head -30
for round in $(seq 1 "${ROUNDS:-3}"); do
  for v in 0 1; do
    lab=$([ $v = 0 ] && echo main || echo udesc)
    TESSERA_EXP_UDESC=$v TESSERA_GIT_COMMIT=$base+$lab timeout 120 $B bench gemm --dtype e4m3 --shapes $L --repeats 10 \
      --json $R/t_${lab}_$round.json > $R/t_${lab}_$round.log 2>&1
    echo "tensor $lab round $round rc=$? at $(el) s"; grep -v '^\[gemm\]' $R/t_${lab}_$round.log | tail -8 | cut -c1-160
  done
  tar -C $O -cJf $OUT/ud.tar.xz ud
done
for v in 0 1; do
  lab=$([ $v = 0 ] && echo main || echo udesc)
  TESSERA_EXP_UDESC=$v TESSERA_GIT_COMMIT=$base+$lab timeout 120 $B bench gemm --dtype e4m3 --fp8-scale channel --shapes $L \
    --repeats 10 --json $R/c_${lab}.json > $R/c_${lab}.log 2>&1
  echo "channel $lab rc=$? at $(el) s"; grep -v '^\[gemm\]' $R/c_${lab}.log | tail -7 | cut -c1-160
done
tar -C $O -cJf $OUT/ud.tar.xz ud
if [ $(el) -lt ${SANGUARD:-470} ]; then
  export TESSERA_EXP_UDESC=1
  for tool in memcheck racecheck synccheck; do
    [ $(el) -gt ${SANGUARD:-470} ] && { echo "$tool skipped (time)"; continue; }
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 3 $T/gemm_fp8_test --gtest_filter='GemmFp8Sanitize.*' > $R/san_$tool.log 2>&1
    echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED)' $R/san_$tool.log | head -3 | tr '\n' ' ') at $(el) s"
  done
  tar -C $O -cJf $OUT/ud.tar.xz ud
fi
echo "all done at $(el) s"
