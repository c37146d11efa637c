#!/usr/bin/env bash
# scripts/device/ab_variants.sh PATCH... -- the working tree's `tessera` against the same tree with each PATCH applied
# (one at a time), on one GPU machine and one build folder: the tree is built, its binary kept aside, then each patch
# is applied, tessera_cli rebuilt (only the units that include what the patch touches) and its binary kept aside, and
# the patch reversed.  Then `tessera bench gemm` on SHAPES with every binary in turn, ROUNDS times (default 2; each
# library timed in turn inside a run, as always; this alternates the builds between runs).  Logs and JSON in $OUT
# (gemm_<name>_<round>.json, name "base" or the patch's file name without .patch); the ratios of each run printed by
# gemm_ratios.py.  Cheaper than ab_gemm.sh for several variants of one header: one full build, then incremental ones
# (a change to kernel/gemm_sm90/gemm_kernel.hpp rebuilds three units, 29-50 s each on one core).
#   TESSERA_GIT_COMMIT names the builds in the JSON ("<it>" for base, "<it>+<name>" for a patch).
#   TESTS=1: gemm_device_test is built with each variant and its GTEST_FILTER cases run (TEST_TIMEOUT s, default 150).
set -uo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 1 ] || { echo "usage: ab_variants.sh PATCH... (diffs that apply to the working tree)"; exit 2; }
OUT=${OUT:-/tmp/abv-out}
B=${AB_BUILD:-/tmp/abv-build}
SHAPES=${SHAPES:-4096x4096x4096,8192x8192x8192,8192x4096x4096,8192x14336x4096,8192x4096x14336}
C=${TESSERA_GIT_COMMIT:-unknown}
mkdir -p "$OUT"
for p in "$@"; do git apply --check "$p" || { echo "ab_variants: $p does not apply to the working tree"; exit 1; }; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)" \
  -DTESSERA_BUILD_TESTS="$([ -n "${TESTS:-}" ] && echo ON || echo OFF)" -DTESSERA_BUILD_TOOLS=ON > "$OUT/configure.log" 2>&1 ||
  { tail -20 "$OUT/configure.log"; exit 1; }
targets=tessera_cli
[ -n "${TESTS:-}" ] && targets="tessera_cli gemm_device_test"
build() {  # name
  local t0; t0=$(date +%s)
  cmake --build "$B" -j 16 --target $targets > "$OUT/build_$1.log" 2>&1 || { grep -B2 -A8 -E 'error|Error' "$OUT/build_$1.log" | head -40; return 1; }
  mkdir -p "$B/bins/$1" && cp "$B/tools/tessera" "$B/tools/tessera-gpu" "$B/bins/$1/"  # (`tessera bench` runs the tessera-gpu beside it)
  echo "build $1: $(( $(date +%s) - t0 )) s"
  if [ -n "${TESTS:-}" ]; then
    timeout ${TEST_TIMEOUT:-150} "$B/tests/kernel_gemm/gemm_device_test" ${GTEST_FILTER:+--gtest_filter=$GTEST_FILTER} > "$OUT/device_test_$1.log" 2>&1
    echo "  device tests ($1) rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$OUT/device_test_$1.log" | tr '\n' ' ')"
    grep -A3 -E 'Failure' "$OUT/device_test_$1.log" | head -12
  fi
}
names=(base)
build base || exit 1
for p in "$@"; do
  n=$(basename "$p" .patch)
  git apply "$p" && build "$n"; rc=$?
  git apply -R "$p" || { echo "ab_variants: $p does not reverse"; exit 1; }
  [ $rc = 0 ] || exit 1
  names+=("$n")
done
for r in $(seq 1 ${ROUNDS:-2}); do
  for n in "${names[@]}"; do
    TESSERA_GIT_COMMIT=$C$([ "$n" = base ] || echo "+$n") timeout 300 "$B/bins/$n/tessera" bench gemm \
      --shapes "$SHAPES" --repeats ${REPEATS:-10} --json "$OUT/gemm_${n}_$r.json" > "$OUT/bench_${n}_$r.log" 2>&1
    echo "== $n round $r rc=$?"
  done
done
for n in "${names[@]}"; do ls "$OUT"/gemm_"${n}"_*.json > /dev/null 2>&1 && python3 scripts/device/gemm_ratios.py "$OUT"/gemm_"${n}"_*.json; done
