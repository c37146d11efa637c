#!/usr/bin/env bash
# scripts/device/experiments/store_pairs_run.sh -- one device call (from the repository root on the GPU machine, the tree
# clean): the tree built (/tmp/b: tessera_cli, gemm_device_test, gemm_host_test) and tested (gemm_host_test,
# gemm_device_test whole, compute-sanitizer memcheck / racecheck / synccheck on GemmSanitize.*), two rounds of the
# decode set, the small square shapes and 8000 x 5000 x 3000 once, then (time allowing) the non-persistent kernels'
# timeline (a -DTESSERA_GEMM_TRACE build of tessera_kernels, scripts/device/trace_gemm.cu) at 128 x 14336 x 4096
# (128 x 128 tile) and 128 x 4096^2 (128 x 64 tile, two splits): the staged pass with two vectors a step.
# Pass TESSERA_GIT_COMMIT.  Results under $OUT (store_pairs.tar.xz), a summary on stdout.  About 500 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, tree_build, gemm_tests)
tree_build tessera_cli gemm_device_test gemm_host_test || exit 1
B=/tmp/b/tools/tessera
gemm_tests 'GemmSanitize.*' 330
for r in 1 2; do
  timeout 40 $B bench gemm --shapes decode --repeats 10 --json $O/dec_$r.json > $O/dec_$r.log 2>&1 || echo "decode round $r failed"
done
python3 scripts/device/gemm_ratios.py $O/dec_*.json | grep -E "json|^bare|cost_bias_sil"
timeout 40 $B bench gemm --shapes 2048x2048x2048,1024x1024x1024,8000x5000x3000 --repeats 10 --json $O/small.json > $O/small.log 2>&1
echo "small rc=$? at $(el) s"; grep -E "^M=" $O/small.log | cut -c1-200
(cd $O && tar cf - *.json *.log | xz -1 > $OUT/store_pairs.tar.xz)  # (kept should the trace step run out of time)
if [ $(el) -lt 330 ]; then
  TB=/tmp/tb
  cmake -S . -B $TB -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc \
    "-DCMAKE_CUDA_FLAGS=-DTESSERA_GEMM_TRACE" > $O/trace_cfg.log 2>&1 && \
  cmake --build $TB -j 16 --target tessera_kernels > $O/trace_build.log 2>&1 && \
  nvcc -std=c++20 -O2 -arch=sm_90a -I include scripts/device/trace_gemm.cu $TB/libtessera_kernels.a -lcublasLt -lcublas -lcuda \
    -o $TB/trace_gemm > $O/trace_tool.log 2>&1 || { echo "trace build failed"; tail -5 $O/trace_build.log $O/trace_tool.log; }
  echo "trace built at $(el) s"
  [ -x $TB/trace_gemm ] && { timeout 40 $TB/trace_gemm 128 14336 4096 m > $O/trace_m.log 2>&1; echo "trace m rc=$?"; grep -E "^(bare|bias)|epilogue \(" $O/trace_m.log;
    TRACE_SPLIT=2 timeout 40 $TB/trace_gemm 128 4096 4096 w > $O/trace_w.log 2>&1; echo "trace w rc=$?"; grep -E "^(bare|bias)|epilogue \(|staged epilogue" $O/trace_w.log; }
fi
cd $O && tar cf - *.json *.log | xz -1 > $OUT/store_pairs.tar.xz
echo "all done at $(el) s"
