#!/usr/bin/env bash
# scripts/device/experiments/early_udesc_run.sh -- one device call (from the repository root on the GPU machine, the tree
# clean) for two experiments in one build: release_early.patch (TESSERA_EXP_RELEASE=1: the non-persistent bf16 kernels
# built a second time with their consumers releasing a K tile's stage once its group completes) and fp8_udesc.patch
# (TESSERA_EXP_UDESC=1: the FP8 e4m3 x e4m3 (K, K) persistent kernels built a second time with the promoted loop's
# descriptors in uniform registers); the two patches apply in either order.  Builds tessera_cli and the GEMM tests;
# gemm_fp8_test whole with UDESC on, the decode and tile device tests with RELEASE on; the decode set and three small
# GEMMs main / early in turn (ROUNDS_DEC, default 1); FP8 e4m3 per-tensor on L main / udesc in turn (ROUNDS_FP8,
# default 3) and channel scales once each; then, time allowing (GUARD, default 480 s), compute-sanitizer on
# GemmFp8Sanitize.* (UDESC on) and GemmDevice.Wgmma64Decode (RELEASE on).  Everything in $OUT/eu.tar.xz after each
# step.  Pass TESSERA_GIT_COMMIT.  About 520 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, results_build, bare_us)
git apply scripts/device/experiments/release_early.patch || { echo "release_early.patch does not apply"; exit 1; }
git apply scripts/device/experiments/fp8_udesc.patch || { echo "fp8_udesc.patch does not apply"; exit 1; }
results_build eu  # (R, B)
base=$TESSERA_GIT_COMMIT
pack() { tar -C $O -cJf $OUT/eu.tar.xz eu; }
TESSERA_EXP_UDESC=1 timeout 150 $T/gemm_fp8_test > $R/f8.log 2>&1
echo "fp8 (udesc) rc=$? $(grep -E '^\[  (PASSED|FAILED)' $R/f8.log | tr '\n' ' ') at $(el) s"
TESSERA_EXP_RELEASE=1 timeout 120 $T/gemm_device_test --gtest_filter='GemmDevice.*Decode*:GemmDevice.ClusterPair*:GemmDevice.ShortBoxes:GemmDevice.WgmmaTiles' > $R/dt.log 2>&1
echo "device (early) rc=$? $(grep -E '^\[  (PASSED|FAILED)' $R/dt.log | tr '\n' ' ') at $(el) s"
grep -A8 Failure $R/f8.log $R/dt.log | head -30
pack
for r in $(seq 1 "${ROUNDS_DEC:-1}"); do
  for v in main early; do
    env $([ $v = early ] && echo TESSERA_EXP_RELEASE=1) TESSERA_GIT_COMMIT=$base+$v timeout 40 $B bench gemm --shapes decode --repeats 10 \
      --json $R/dec_${v}_$r.json > $R/dec_${v}_$r.log 2>&1 || echo "decode $v $r failed"
  done
  python3 scripts/device/gemm_ratios.py $R/dec_main_$r.json $R/dec_early_$r.json | grep -E "json|^bare|cost_bias_sil"
  bare_us $R/dec_main_$r.json $R/dec_early_$r.json
done
for v in main early; do
  env $([ $v = early ] && echo TESSERA_EXP_RELEASE=1) TESSERA_GIT_COMMIT=$base+$v timeout 30 $B bench gemm \
    --shapes 2048x2048x2048,1024x1024x1024,8000x5000x3000,256x4096x4096 --repeats 10 --json $R/small_$v.json > $R/small_$v.log 2>&1 || echo "small $v failed"
done
bare_us $R/small_main.json $R/small_early.json
echo "decode at $(el) s"; pack
L=4096x4096x4096,8192x8192x8192,8192x4096x4096,8192x14336x4096,8192x4096x14336
for round in $(seq 1 "${ROUNDS_FP8:-3}"); do
  for v in 0 1; do
    lab=$([ $v = 0 ] && echo main || echo udesc)
    TESSERA_EXP_UDESC=$v TESSERA_GIT_COMMIT=$base+$lab timeout 120 $B bench gemm --dtype e4m3 --shapes $L --repeats 10 \
      --json $R/t_${lab}_$round.json > $R/t_${lab}_$round.log 2>&1
    echo "tensor $lab round $round rc=$? at $(el) s"; grep -v '^\[gemm\]' $R/t_${lab}_$round.log | tail -8 | cut -c1-160
  done
done
for v in 0 1; do
  lab=$([ $v = 0 ] && echo main || echo udesc)
  TESSERA_EXP_UDESC=$v TESSERA_GIT_COMMIT=$base+$lab timeout 120 $B bench gemm --dtype e4m3 --fp8-scale channel --shapes $L \
    --repeats 10 --json $R/c_${lab}.json > $R/c_${lab}.log 2>&1
  echo "channel $lab rc=$? at $(el) s"; grep -v '^\[gemm\]' $R/c_${lab}.log | tail -7 | cut -c1-160
done
pack
for tool in memcheck racecheck synccheck; do
  [ $(el) -gt ${GUARD:-480} ] && { echo "$tool skipped (time)"; continue; }
  TESSERA_EXP_UDESC=1 timeout 60 compute-sanitizer --tool $tool --error-exitcode 3 $T/gemm_fp8_test --gtest_filter='GemmFp8Sanitize.*' > $R/san8_$tool.log 2>&1
  echo "fp8 $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/san8_$tool.log | head -1) at $(el) s"
  TESSERA_EXP_RELEASE=1 timeout 60 compute-sanitizer --tool $tool --error-exitcode 3 $T/gemm_device_test --gtest_filter='GemmDevice.Wgmma64Decode' > $R/san_$tool.log 2>&1
  echo "decode $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/san_$tool.log | head -1) at $(el) s"
done
pack
echo "all done at $(el) s"
