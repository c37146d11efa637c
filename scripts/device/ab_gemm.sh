#!/usr/bin/env bash
# scripts/device/ab_gemm.sh PATCH -- the working tree's GEMM kernels against the same tree with PATCH reversed, on one
# GPU machine: tessera_cli built from both trees at once (the working tree also with gemm_device_test when TESTS is
# set, whose GTEST_FILTER cases then run, for at most TEST_TIMEOUT seconds, default 150: the whole suite takes about
# 50 s on the H200, and a hang should not eat the call), then `tessera bench gemm` on SHAPES, the two builds in turn, ROUNDS times
# (each library timed in turn inside a run, as always; this alternates the builds between runs).  Logs to $OUT.
#   TESSERA_GIT_COMMIT names the working tree's build in the JSON; the base build is named "<it>-base".
set -uo pipefail
cd "$(dirname "$0")/../.."
PATCH=${1:?usage: ab_gemm.sh PATCH (a diff the working tree contains, reversed to make the base)}
OUT=${OUT:-/tmp/ab-out}
NEW=${NEW_BUILD:-/tmp/ab-new}
BASE_SRC=/tmp/ab-base-src
BASE=${BASE_BUILD:-/tmp/ab-base}
SHAPES=${SHAPES:-4096x4096x4096,8192x8192x8192,8192x4096x4096,8192x14336x4096,8192x4096x14336}
mkdir -p "$OUT"
rm -rf "$BASE_SRC" && mkdir -p "$BASE_SRC" && cp -r . "$BASE_SRC"/ && (cd "$BASE_SRC" && git apply -R "$PATCH") ||
  { echo "ab_gemm: $PATCH does not reverse-apply to the working tree"; exit 1; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
configure() {  # source build tests
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)" \
    -DTESSERA_BUILD_TESTS="$3" -DTESSERA_BUILD_TOOLS=ON
}
t0=$(date +%s)
targets=tessera_cli
[ -n "${TESTS:-}" ] && targets="tessera_cli gemm_device_test"
(configure . "$NEW" "$([ -n "${TESTS:-}" ] && echo ON || echo OFF)" > "$OUT/new_configure.log" 2>&1 &&
  cmake --build "$NEW" -j ${NEW_JOBS:-10} --target $targets > "$OUT/new_build.log" 2>&1; echo $? > "$OUT/new_build.rc") &
(configure "$BASE_SRC" "$BASE" OFF > "$OUT/base_configure.log" 2>&1 &&
  cmake --build "$BASE" -j ${BASE_JOBS:-6} --target tessera_cli > "$OUT/base_build.log" 2>&1; echo $? > "$OUT/base_build.rc") &
wait
echo "builds: $(( $(date +%s) - t0 )) s, rc new $(cat "$OUT/new_build.rc" 2>/dev/null) base $(cat "$OUT/base_build.rc" 2>/dev/null)"
for b in new base; do
  [ "$(cat "$OUT/${b}_build.rc" 2>/dev/null)" = 0 ] || { grep -B2 -A8 -E 'error|Error' "$OUT/${b}_build.log" | head -40; exit 1; }
done
if [ -n "${TESTS:-}" ]; then
  timeout ${TEST_TIMEOUT:-150} "$NEW/tests/kernel_gemm/gemm_device_test" ${GTEST_FILTER:+--gtest_filter=$GTEST_FILTER} > "$OUT/device_test.log" 2>&1
  echo "device tests rc=$?"; grep -E '^\[ +(OK|FAILED|PASSED|SKIPPED) ' "$OUT/device_test.log" | head -30
  grep -A3 -E 'Failure|error' "$OUT/device_test.log" | head -30
fi
for r in $(seq 1 ${ROUNDS:-2}); do
  for b in new base; do
    d=$NEW; [ $b = base ] && d=$BASE
    TESSERA_GIT_COMMIT=${TESSERA_GIT_COMMIT:-unknown}$([ $b = base ] && echo -base) timeout 300 "$d/tools/tessera" bench gemm \
      --shapes "$SHAPES" --repeats ${REPEATS:-10} --json "$OUT/gemm_${b}_$r.json" > "$OUT/bench_${b}_$r.log" 2>&1
    echo "== $b round $r rc=$?"; sed -n '/^bf16 GEMM/,$p' "$OUT/bench_${b}_$r.log"
  done
done
