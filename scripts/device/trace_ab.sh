#!/usr/bin/env bash
# scripts/device/trace_ab.sh PATCH -- the timeline probe (kernel/gemm_sm90/trace.hpp, scripts/device/trace_gemm.cu) of
# the working tree (new) and of the tree with PATCH reversed (base), both built with -DTESSERA_GEMM_TRACE in parallel,
# then trace_gemm on TRACE_RUNS ("M N K tile; ...", default 4096^3 cooperative) three times, the builds in turn: runs 1
# and 3 with TRACE_COLD=1 (one launch after the L2 eviction, as the bench times it), run 2 warm.
set -uo pipefail
cd "$(dirname "$0")/../.."
P=$1
rm -rf /tmp/tsrc-base && mkdir -p /tmp/tsrc-base && cp -r . /tmp/tsrc-base/ && (cd /tmp/tsrc-base && git apply -R "$P") || { echo reverse failed; exit 1; }
bt() {  # src build jobs
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)" \
    "-DCMAKE_CUDA_FLAGS=-DTESSERA_GEMM_TRACE" > "$2.conf.log" 2>&1 &&
  cmake --build "$2" -j "$3" --target tessera_kernels > "$2.build.log" 2>&1 &&
  nvcc -std=c++20 -O2 -arch=sm_90a -I "$1/include" "$1/scripts/device/trace_gemm.cu" "$2/libtessera_kernels.a" -lcublasLt -lcublas -lcuda -o "$2/trace_gemm" > "$2.tool.log" 2>&1
  echo $? > "$2.rc"
}
t0=$(date +%s)
bt . /tmp/tr-new 8 & bt /tmp/tsrc-base /tmp/tr-base 8 & wait
echo "builds $(( $(date +%s) - t0 )) s rc $(cat /tmp/tr-new.rc) $(cat /tmp/tr-base.rc)"
IFS=';' read -ra runs <<< "${TRACE_RUNS:-4096 4096 4096 c}"
for rep in 1 2 3; do
  for b in new base; do
    for r in "${runs[@]}"; do
      echo "== $b rep $rep ($r) cold=$([ $rep != 2 ] && echo 1 || echo 0)"
      TRACE_COLD=$([ $rep != 2 ] && echo 1 || echo 0) timeout 120 /tmp/tr-$b/trace_gemm $r | grep -v "^\s*block [01]:\|start-up\|first K tile\|deferred staging"
    done
  done
done
