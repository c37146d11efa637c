#!/usr/bin/env bash
# scripts/device/experiments/stages6_128_run.sh -- one device call (from the repository root on the GPU machine, the tree
# clean): main built in /tmp/b0 (tessera_cli), then stages6_128.patch applied and built in /tmp/b (tessera_cli,
# gemm_device_test, gemm_fp8_test; TESSERA_STAGES_128, default 6); gemm_device_test and gemm_fp8_test whole and memcheck /
# racecheck / synccheck on `GemmDevice.EpilogueReadAhead:GemmDevice.WgmmaTiles` with the patch; then ROUNDS (default 3)
# rounds of the decode set from main's binary and the patch's in turn (dec_main_r.json, dec_s6_r.json: two processes, each
# with cuBLAS beside it); then main's planner grid and the issue-10 small shapes.  Everything in $OUT/s6.tar.xz.  Pass
# TESSERA_GIT_COMMIT.  About 560 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, tree_build, sanitize)
R=$O/s6; mkdir -p $R
export TESSERA_GIT_COMMIT="${TESSERA_GIT_COMMIT:-$(git rev-parse --short HEAD)}"
cmake -S . -B /tmp/b0 -G Ninja -DCMAKE_BUILD_TYPE=Release -DTESSERA_BUILD_TOOLS=ON -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc \
  > $R/cfg0.log 2>&1 && cmake --build /tmp/b0 -j 16 --target tessera_cli > $R/build0.log 2>&1 || { echo "main build failed"; tail $R/build0.log; }
echo "main built at $(el) s"
git apply scripts/device/experiments/stages6_128.patch || { echo "patch does not apply"; exit 1; }
TESSERA_GIT_COMMIT=$TESSERA_GIT_COMMIT+stages6_128 tree_build tessera_cli gemm_device_test gemm_fp8_test || { tar -C $O -cJf $OUT/s6.tar.xz .; exit 1; }
timeout 150 $T/gemm_device_test > $R/dt.log 2>&1; echo "device rc=$? $(grep -E '^\[  (PASSED|FAILED)' $R/dt.log | tr '\n' ' ') at $(el) s"
timeout 90 $T/gemm_fp8_test > $R/f8.log 2>&1; echo "fp8 rc=$? $(grep -E '^\[  (PASSED|FAILED)' $R/f8.log | tr '\n' ' ') at $(el) s"
grep -A8 Failure $R/dt.log $R/f8.log | head -20
sanitize 'GemmDevice.EpilogueReadAhead:GemmDevice.WgmmaTiles' 450 40 $R
for r in $(seq 1 "${ROUNDS:-3}"); do
  timeout 40 /tmp/b0/tools/tessera bench gemm --shapes decode --repeats 10 --json $R/dec_main_$r.json > $R/dec_main_$r.log 2>&1 || echo "main $r failed"
  timeout 40 /tmp/b/tools/tessera bench gemm --shapes decode --repeats 10 --json $R/dec_s6_$r.json > $R/dec_s6_$r.log 2>&1 || echo "s6 $r failed"
  python3 scripts/device/gemm_ratios.py $R/dec_main_$r.json $R/dec_s6_$r.json | grep -E "json|^bare|^bias_silu"
done
# main's binary: the planner grid (the pairs' rule since dac5178: only where the batch is one tile) and the issue-10
# small shapes (the non-persistent tiles there lost their pairs with it)
timeout 200 /tmp/b0/tools/tessera bench gemm --plans --shapes decode-grid --repeats 10 --json $R/plans.json > $R/plans.log 2>&1
echo "plans rc=$? at $(el) s"; tail -1 $R/plans.log; grep -E "^M=256" $R/plans.log
timeout 60 /tmp/b0/tools/tessera bench gemm --shapes 1024x1024x1024,2048x2048x2048,8000x5000x3000 --repeats 10 \
  --json $R/small.json > $R/small.log 2>&1; echo "small rc=$?"; python3 scripts/device/gemm_ratios.py $R/small.json
cp $O/build.log $O/cfg.log $R/ 2>/dev/null
tar -C $O -cJf $OUT/s6.tar.xz s6
echo "all done at $(el) s"
