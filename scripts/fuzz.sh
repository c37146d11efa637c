#!/usr/bin/env bash
# scripts/fuzz.sh [seconds] -- coverage-guided fuzzing of the layout parser and calculator with
# libFuzzer under AddressSanitizer and UndefinedBehaviorSanitizer (clang from Debian's packages).
#
#   - inputs up to FUZZ_MAX_LEN bytes (default 65536: deep nesting and long lines are in reach);
#   - the grammar's dictionary tests/fuzz/layout.dict (punctuation, Sw<, ops, numbers at the limits);
#   - a per-input time limit (FUZZ_TIMEOUT seconds, default 10): a slow input is a finding (timeout-*);
#   - one job, one worker.
# The corpus (build/fuzz/corpus) is seeded with the public layout cases and kept between runs.
# Findings go to build/fuzz/findings/ (crash-*, timeout-*, oom-*); the full log to build/fuzz/fuzz.log.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TO_RUN="${1:-300}"
MAX_LEN="${FUZZ_MAX_LEN:-65536}"
TIMEOUT="${FUZZ_TIMEOUT:-10}"
if ! command -v clang++-14 >/dev/null 2>&1 && ! command -v clang++ >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq clang libclang-rt-dev
fi
CXX=$(command -v clang++-14 || command -v clang++)
mkdir -p build/fuzz/corpus build/fuzz/findings
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
echo "fuzz: $SECONDS_TO_RUN s, max_len $MAX_LEN, timeout $TIMEOUT s per input, commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
start=$(date +%s)
status=0
./fuzz_layout -max_total_time="$SECONDS_TO_RUN" -max_len="$MAX_LEN" -timeout="$TIMEOUT" -rss_limit_mb=4096 \
  -dict=../../tests/fuzz/layout.dict -jobs=1 -workers=1 -artifact_prefix=findings/ -print_final_stats=1 \
  corpus > fuzz.log 2>&1 || status=$?
# -jobs writes the job's own log to fuzz-0.log
[ -f fuzz-0.log ] && cat fuzz-0.log >> fuzz.log
echo "fuzz: ran $(( $(date +%s) - start )) s, exit status $status"
grep -E "stat::number_of_executed_units|stat::peak_rss_mb|Done [0-9]+ runs" fuzz.log | tail -n 3 || true
echo "fuzz: findings: $(ls findings | wc -l) $(ls findings | head -n 5 | tr '\n' ' ')"
tail -n 5 fuzz.log
exit "$status"
