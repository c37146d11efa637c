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
#   TESTS=1: gemm_device_test is built with each variant and its GTEST_FILTER cases run (TEST_TIMEOUT s, default 150);
#   TEST_TARGETS (default gemm_device_test) lists the tests/kernel_gemm binaries built and kept with each variant.
#   Builds made here, benches there (a device call then spends nothing on building):
#     BUILD_ONLY=1 BINS=/tmp/bins PACK=.devbuild/bins.tar.xz JOBS=2 scripts/device/ab_variants.sh P...   on the machine
#       without a GPU: builds the binaries into /tmp/bins/<name>/ and packs them into one xz stream whose window spans
#       the builds (tessera-gpu is about 117 MB; the variants differ from the base in a few kernels, so each adds
#       little to the pack); runs nothing;
#     PREBUILT=.devbuild/bins.tar.xz scripts/device/ab_variants.sh P...   on the GPU machine, with `carry: [".devbuild"]`
#       (ignored by git; the tree travels in 64 MiB): no configure, no build, the binaries unpacked from it (the
#       patches only name the builds).  PREBUILT may also name a folder of <name>/ folders.
set -uo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 1 ] || [ -n "${BUILD_ONLY:-}${PREBUILT:-}" ] || { echo "usage: ab_variants.sh PATCH... (diffs that apply to the working tree; none with BUILD_ONLY or PREBUILT: the base alone)"; exit 2; }
OUT=${OUT:-/tmp/abv-out}
B=${AB_BUILD:-/tmp/abv-build}
SHAPES=${SHAPES:-4096x4096x4096,8192x8192x8192,8192x4096x4096,8192x14336x4096,8192x4096x14336}
C=${TESSERA_GIT_COMMIT:-unknown}
mkdir -p "$OUT"
[ -n "${PREBUILT:-}" ] ||  # (prebuilt: the patches only name the builds)
  for p in "$@"; do git apply --check "$p" || { echo "ab_variants: $p does not apply to the working tree"; exit 1; }; done
names=(base)
for p in "$@"; do names+=("$(basename "$p" .patch)"); done
if [ -n "${PREBUILT:-}" ] && [ -f "$PREBUILT" ]; then
  mkdir -p /tmp/abv-bins
  if command -v xz > /dev/null; then xz -dc "$PREBUILT"; else
    python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), sys.stdout.buffer)' "$PREBUILT"; fi |
    tar -C /tmp/abv-bins -xf - || { echo "ab_variants: $PREBUILT does not unpack"; exit 1; }
  PREBUILT=/tmp/abv-bins
fi
if [ -n "${PREBUILT:-}" ]; then
  for n in "${names[@]}"; do [ -x "$PREBUILT/$n/tessera" ] && [ -x "$PREBUILT/$n/tessera-gpu" ] ||
    { echo "ab_variants: $PREBUILT/$n/ lacks tessera / tessera-gpu (BUILD_ONLY=1 BINS=$PREBUILT builds them)"; exit 1; }; done
  BIN=$PREBUILT
else
BIN=${BINS:-$B/bins}
[ -n "${BUILD_ONLY:-}" ] || nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)" \
  -DTESSERA_BUILD_TESTS="$([ -n "${TESTS:-}" ] && echo ON || echo OFF)" -DTESSERA_BUILD_TOOLS=ON > "$OUT/configure.log" 2>&1 ||
  { tail -20 "$OUT/configure.log"; exit 1; }
targets=tessera_cli
TEST_TARGETS=${TEST_TARGETS:-gemm_device_test}
[ -n "${TESTS:-}" ] && targets="tessera_cli $TEST_TARGETS"
build() {  # name
  local t0; t0=$(date +%s)
  cmake --build "$B" -j ${JOBS:-16} --target $targets > "$OUT/build_$1.log" 2>&1 || { grep -B2 -A8 -E 'error|Error' "$OUT/build_$1.log" | head -40; return 1; }
  mkdir -p "$BIN/$1" && cp "$B/tools/tessera" "$B/tools/tessera-gpu" "$BIN/$1/"  # (`tessera bench` runs the tessera-gpu beside it)
  if [ -n "${TESTS:-}" ]; then for t in $TEST_TARGETS; do cp "$B/tests/kernel_gemm/$t" "$BIN/$1/"; done; fi
  echo "build $1: $(( $(date +%s) - t0 )) s"
  if [ -n "${TESTS:-}" ] && [ -z "${BUILD_ONLY:-}" ]; then
    timeout ${TEST_TIMEOUT:-150} "$B/tests/kernel_gemm/gemm_device_test" ${GTEST_FILTER:+--gtest_filter=$GTEST_FILTER} > "$OUT/device_test_$1.log" 2>&1
    echo "  device tests ($1) rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$OUT/device_test_$1.log" | tr '\n' ' ')"
    grep -A3 -E 'Failure' "$OUT/device_test_$1.log" | head -12
  fi
}
build base || exit 1
for p in "$@"; do
  n=$(basename "$p" .patch)
  git apply "$p" && build "$n"; rc=$?
  git apply -R "$p" || { echo "ab_variants: $p does not reverse"; exit 1; }
  [ $rc = 0 ] || exit 1
done
if [ -n "${BUILD_ONLY:-}" ]; then
  ls -la "$BIN"/*
  if [ -n "${PACK:-}" ]; then
    mkdir -p "$(dirname "$PACK")"
    tar -C "$BIN" --sort=name -cf - "${names[@]}" | xz -T1 --lzma2=preset=6,dict=512MiB > "$PACK" || exit 1
    echo "packed ${names[*]} into $PACK: $(( $(stat -c %s "$PACK") / 1048576 )) MiB"
  fi
  exit 0
fi
fi
if [ -n "${PREBUILT:-}" ] && [ -n "${TESTS:-}" ]; then
  for n in "${names[@]}"; do
    timeout ${TEST_TIMEOUT:-150} "$BIN/$n/gemm_device_test" ${GTEST_FILTER:+--gtest_filter=$GTEST_FILTER} > "$OUT/device_test_$n.log" 2>&1
    echo "  device tests ($n) rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$OUT/device_test_$n.log" | tr '\n' ' ')"
    grep -A3 -E 'Failure' "$OUT/device_test_$n.log" | head -12
  done
fi
for r in $(seq 1 ${ROUNDS:-2}); do
  for n in "${names[@]}"; do
    TESSERA_GIT_COMMIT=$C$([ "$n" = base ] || echo "+$n") timeout 300 "$BIN/$n/tessera" bench gemm \
      --shapes "$SHAPES" --repeats ${REPEATS:-10} --json "$OUT/gemm_${n}_$r.json" > "$OUT/bench_${n}_$r.log" 2>&1
    echo "== $n round $r rc=$?"
  done
done
for n in "${names[@]}"; do ls "$OUT"/gemm_"${n}"_[0-9]*.json > /dev/null 2>&1 && python3 scripts/device/gemm_ratios.py "$OUT"/gemm_"${n}"_[0-9]*.json; done
