#!/usr/bin/env bash
# tests/kernel_fused/device_check.sh -- on a GPU machine: build the fused-kernel tests (row norms, chains,
# quantisation) and the tool, run the tests, run them under compute-sanitizer (memcheck, racecheck,
# synccheck), run `tessera bench fused`, `tessera bench quantize` and `tessera roofline`, and profile the
# fused kernels with Nsight Compute.  Results go to $OUT (or ./fused-check-out): summary.txt, fused.json,
# quantize.json, roofline.json, roofline.png/.svg, logs.tgz.
# Steps (default: all but ncu_chains): build tests sanitize bench bench_quantize roofline ncu ncu_chains, e.g.
#   tests/kernel_fused/device_check.sh build tests sanitize
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:-$PWD/fused-check-out}"
L=/tmp/fused-check-logs
mkdir -p "$OUT" "$L"
B="${TESSERA_BUILD_DIR:-/tmp/tessera-fused-build}"
steps="${*:-build tests sanitize bench bench_quantize roofline ncu}"
export PATH=/usr/local/cuda/bin:$PATH
has() { [[ " $steps " == *" $1 "* ]]; }
log() { (cd "$L" && tar czf "$OUT/logs.tgz" . 2>/dev/null); echo "== $* ($(date +%T)) ==" | tee -a "$OUT/summary.txt"; }
T="$B/tests/kernel_fused"

if has build; then
  log "build"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader | tee -a "$OUT/summary.txt"
  cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTESSERA_CUDA_ARCHITECTURES=90a >"$L/build.log" 2>&1
  cmake --build "$B" -j "$(nproc)" --target tessera_cli test_fused_kernels test_fused_expr test_quantize >>"$L/build.log" 2>&1 \
    || { tail -40 "$L/build.log" | tee -a "$OUT/summary.txt"; log "build failed"; exit 1; }
  grep -iE "warning" "$L/build.log" | grep -iE "fused|quantize|roofline" | head -20 | tee -a "$OUT/summary.txt"
fi
if has tests; then
  log "tests"
  for t in test_fused_expr test_fused_kernels test_quantize; do
    timeout 300 "$T/$t" >"$L/$t.log" 2>&1
    echo "$t: rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$L/$t.log" | tr '\n' ' ')" | tee -a "$OUT/summary.txt"
    grep -E '^\[       OK|^\[  FAILED' "$L/$t.log" | sed 's/^/  /' | tee -a "$OUT/summary.txt"
    grep -B2 -A6 -E "Failure|exception" "$L/$t.log" | head -60 | tee -a "$OUT/summary.txt"
  done
fi
if has sanitize; then
  log "compute-sanitizer"
  for tool in memcheck racecheck synccheck; do
    filter='*'
    [ "$tool" != memcheck ] && filter='FusedRowNorm.SweepFp32:FusedRowNorm.SweepBf16:FusedRowNorm.ForcedOnePassAtCapacity:FusedRowNorm.NanInfFp32:FusedElementwise.ChainsFp32:FusedElementwise.UserExpressions'
    TESSERA_TEST_QUICK=1 timeout 150 compute-sanitizer --tool "$tool" --error-exitcode 9 "$T/test_fused_kernels" \
      --gtest_filter="$filter" >"$L/san_$tool.log" 2>&1
    echo "$tool: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED) ' "$L/san_$tool.log" | tr '\n' ' ')" | tee -a "$OUT/summary.txt"
    filter='*'
    [ "$tool" != memcheck ] && filter='Quantize.SweepBf16:Quantize.NanInfF32:Quantize.WorkspaceReused:QuantizeArgs.*'
    TESSERA_TEST_QUICK=1 timeout 150 compute-sanitizer --tool "$tool" --error-exitcode 9 "$T/test_quantize" \
      --gtest_filter="$filter" >"$L/san_quantize_$tool.log" 2>&1
    echo "$tool (test_quantize): rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED) ' "$L/san_quantize_$tool.log" | tr '\n' ' ')" | tee -a "$OUT/summary.txt"
  done
fi
if has bench; then
  log "bench fused"
  timeout 300 "$B/tools/tessera" bench fused ${FUSED_BENCH_ARGS:-} --no-progress --json "$OUT/fused.json" >"$L/bench_fused.log" 2>&1
  echo "bench fused rc=$?" | tee -a "$OUT/summary.txt"
  cat "$L/bench_fused.log" | tee -a "$OUT/summary.txt"
fi
if has bench_quantize; then
  log "bench quantize"
  timeout 300 "$B/tools/tessera" bench quantize ${QUANTIZE_BENCH_ARGS:-} --no-progress --json "$OUT/quantize.json" >"$L/bench_quantize.log" 2>&1
  echo "bench quantize rc=$?" | tee -a "$OUT/summary.txt"
  cat "$L/bench_quantize.log" | tee -a "$OUT/summary.txt"
fi
if has roofline; then
  log "roofline"
  timeout 300 "$B/tools/tessera" roofline ${ROOFLINE_ARGS:-} --json "$OUT/roofline.json" --plot "$OUT/roofline" >"$L/roofline.log" 2>&1
  echo "roofline rc=$?" | tee -a "$OUT/summary.txt"
  grep -v '^\[roofline\]' "$L/roofline.log" | tee -a "$OUT/summary.txt"
fi
if has ncu; then
  log "ncu (one launch of each fused kernel, fp32, 256 MiB; replays flush the caches)"
  m=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,launch__waves_per_multiprocessor,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_barrier.ratio
  prof() {  # case-substring kernel-regex launch-count
    timeout 120 ncu --csv --metrics "$m" --kernel-name regex:"$2" --launch-skip 1 --launch-count "$3" \
      "$B/tools/tessera" bench fused --quick --repeats 1 --no-progress --case "$1" >>"$L/ncu.log" 2>&1
    echo "ncu '$1' rc=$?" | tee -a "$OUT/summary.txt"
  }
  : >"$L/ncu.log"
  prof "l2_norm fp32" row_norm_one_pass 6
  prof "chain sqrt" elementwise_kernel 7
  prof "chain x fp32" elementwise_kernel 1
  grep -E '^"' "$L/ncu.log" | grep -v '"ID","Process ID"' | python3 -c '
import csv, sys
cur = None
for r in csv.reader(sys.stdin):
    key = (r[0], r[4])
    if key != cur:
        cur = key; print("--", r[0], r[4][:120])
    print("    %-75s %s %s" % (r[-3], r[-2], r[-1]))
' | tee -a "$OUT/summary.txt"
fi
if has ncu_chains; then
  log "ncu (elementwise chains fp32 vs bf16: memory or instruction bound?)"
  m=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active
  : >"$L/ncu_chains.log"
  for c in "sqrt(sin(x)) fp32" "sqrt(sin(x)) bf16" "gelu(x*1.702-0.25) fp32" "gelu(x*1.702-0.25) bf16"; do
    timeout 120 ncu --csv --metrics "$m" --kernel-name regex:elementwise_kernel --launch-skip 1 --launch-count 1 \
      "$B/tools/tessera" bench fused --repeats 1 --no-progress --case "chain $c" >>"$L/ncu_chains.log" 2>&1
    echo "ncu 'chain $c' rc=$?" | tee -a "$OUT/summary.txt"
  done
  grep -E '^"' "$L/ncu_chains.log" | grep -v '"ID","Process ID"' | python3 -c '
import csv, sys
cur = None
for r in csv.reader(sys.stdin):
    key = (r[0], r[4])
    if key != cur:
        cur = key; print("--", r[4][:120])
    print("    %-70s %s %s" % (r[-3], r[-2], r[-1]))
' | tee -a "$OUT/summary.txt"
fi
log "done"
