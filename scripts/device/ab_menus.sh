#!/usr/bin/env bash
# scripts/device/ab_menus.sh PATCH -- launch times of the seven menus of scripts/device/trace_gemm.cu (bare, bias+GELU,
# bias+SiLU+residual, bias, bias+relu, bias+SiLU, bias+residual; bf16, 4096^3 unless SHAPE="M N K"), the working
# tree's kernels against the same tree with PATCH reversed, both built at once without the probe (NEW_FLAGS: more
# nvcc flags for the working tree's build, e.g. an experiment's -D switches), then run in turn ROUNDS times.  Each
# time is the best of five launches after an L2 eviction (trace_gemm.cu).  Logs to $OUT; the ptxas C75xx lines of the
# working tree's build (wgmma serialised or waited for) are printed first.
set -uo pipefail
cd "$(dirname "$0")/../.."
PATCH=${1:?usage: ab_menus.sh PATCH}
OUT=${OUT:-/tmp/ab-menus}; mkdir -p "$OUT"
rm -rf /tmp/ab-menus-base-src && mkdir -p /tmp/ab-menus-base-src && cp -r . /tmp/ab-menus-base-src/ &&
  (cd /tmp/ab-menus-base-src && git apply -R "$PATCH") || { echo "ab_menus: $PATCH does not reverse-apply"; exit 1; }
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
build() {  # source build-dir flags name
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$NVCC" "-DCMAKE_CUDA_FLAGS=$3" \
    -DTESSERA_BUILD_TESTS=OFF > "$OUT/$4.cfg" 2>&1 && cmake --build "$2" -j 8 --target tessera_kernels > "$OUT/$4.log" 2>&1 &&
    "$NVCC" -std=c++20 -O2 -arch=sm_90a -DTRACE_TIMES_ONLY -I "$1/include" "$1/scripts/device/trace_gemm.cu" "$2/libtessera_kernels.a" \
      -lcublasLt -lcublas -lcuda -o "$2/trace_times" > "$OUT/$4.tool" 2>&1
  echo $? > "$OUT/$4.rc"
}
t0=$(date +%s)
build . /tmp/ab-menus-new "${NEW_FLAGS:-}" new & build /tmp/ab-menus-base-src /tmp/ab-menus-base "" base & wait
echo "builds: $(( $(date +%s) - t0 )) s, rc new $(cat "$OUT/new.rc") base $(cat "$OUT/base.rc")"
grep -h -oE "\(C75[0-9]+\).{0,60}" "$OUT/new.log" | sort | uniq -c | head
for r in $(seq 1 ${ROUNDS:-3}); do
  for v in new base; do
    d=/tmp/ab-menus-new; [ $v = base ] && d=/tmp/ab-menus-base
    echo "== $v, round $r"
    "$d/trace_times" ${SHAPE:-4096 4096 4096} c all 2>&1 | paste - - | sed -E 's/.*best of 5 ([0-9.]+ us), ([0-9]+ TFLOP.s)\)\s+\((.*)\)/\3: \1 \2/'
  done
done
