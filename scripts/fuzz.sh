#!/usr/bin/env bash
# scripts/fuzz.sh [seconds] -- coverage-guided fuzzing of the layout parser and calculator with
# libFuzzer under AddressSanitizer and UndefinedBehaviorSanitizer (clang from Debian's packages).
# The corpus is seeded with the public layout cases.  Findings go to build/fuzz/crash-*.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TO_RUN="${1:-300}"
if ! command -v clang++-14 >/dev/null 2>&1 && ! command -v clang++ >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq clang libclang-rt-dev
fi
CXX=$(command -v clang++-14 || command -v clang++)
mkdir -p build/fuzz/corpus
"$CXX" -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -Iinclude -Itools tests/fuzz/fuzz_layout.cpp tools/layout_ops.cpp -o build/fuzz/fuzz_layout
CASES="${TESSERA_LAYOUT_CASES:-../shared/layout-cases/cases.tsv}"
if [ -f "$CASES" ] && [ -z "$(ls -A build/fuzz/corpus)" ]; then
  i=0
  while IFS= read -r line; do
    printf '%s' "${line%$'\t'*}" > "build/fuzz/corpus/case$i"; i=$((i + 1))
  done < "$CASES"
fi
cd build/fuzz
./fuzz_layout -max_total_time="$SECONDS_TO_RUN" -max_len=256 -timeout=5 -rss_limit_mb=4096 \
  corpus 2>&1 | tail -n 15
