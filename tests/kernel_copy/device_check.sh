#!/usr/bin/env bash
# tests/kernel_copy/device_check.sh -- on a GPU machine: build the copy tests and the tool, run the
# tests, run them under compute-sanitizer (memcheck, racecheck, synccheck), run the benchmarks and the
# bank-conflict profile.  Logs go to $OUT (or ./copy-check-out).  Steps: build tests sanitize bench ncu
# (default: all), e.g.  tests/kernel_copy/device_check.sh build tests sanitize
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:-$PWD/copy-check-out}"
L=/tmp/copy-check-logs   # logs live here; $OUT gets summary.txt, the JSON files and logs.tgz
mkdir -p "$OUT" "$L"
B="${TESSERA_BUILD_DIR:-/tmp/tessera-copy-build}"
steps="${*:-build tests bench sanitize ncu}"
export PATH=/usr/local/cuda/bin:$PATH
has() { [[ " $steps " == *" $1 "* ]]; }
log() { (cd "$L" && tar czf "$OUT/logs.tgz" . 2>/dev/null); echo "== $* ==" | tee -a "$OUT/summary.txt"; }

if has build; then
  log "build"
  cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTESSERA_CUDA_ARCHITECTURES=90a >"$L/build.log" 2>&1
  cmake --build "$B" -j "$(nproc)" --target tessera_cli test_copy_layouts test_copy_validation test_copy_device \
      test_pipeline_device test_mbarrier_protocol >>"$L/build.log" 2>&1 || { tail -40 "$L/build.log"; exit 1; }
  grep -iE "warning" "$L/build.log" | grep -E "copy|pipeline|tma|atom|arch" | head -20 | tee -a "$OUT/summary.txt"
fi
T="$B/tests/kernel_copy"
if has tests; then
  log "tests"
  for t in test_copy_layouts test_copy_validation test_copy_device test_pipeline_device test_mbarrier_protocol; do
    timeout 300 "$T/$t" >"$L/$t.log" 2>&1
    echo "$t: rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$L/$t.log" | tr '\n' ' ') $(grep -h '\[ info \]' "$L/$t.log" | tr '\n' ' ')" | tee -a "$OUT/summary.txt"
    grep -A4 -E "Failure|exception" "$L/$t.log" | head -30 | tee -a "$OUT/summary.txt"
  done
fi
# Merges the records of JSON file $1 into $OUT/$2 (creating it from $1 the first time).
merge_json() {
  python3 - "$1" "$OUT/$2" <<'PY'
import json, os, sys
src, dst = sys.argv[1], sys.argv[2]
new = json.load(open(src))
if os.path.exists(dst):
    old = json.load(open(dst))
    old["records"] += new["records"]
    old["command"] += " ; " + new["command"]
    new = old
json.dump(new, open(dst, "w"), indent=1)
PY
}
if has bench; then
  log "bench"
  # One invocation per size (a stuck configuration cannot take the others down); records merged.
  for s in ${COPY_SIZES:-256M 1G 4G 4M 16M 64M}; do
    timeout 90 "$B/tools/tessera" bench copy --sizes "$s" --no-transpose --json "$L/copy_$s.json" >"$L/bench_copy_$s.log" 2>&1
    echo "bench copy $s rc=$? $(grep -E 'best straight' "$L/bench_copy_$s.log")" | tee -a "$OUT/summary.txt"
    [ -f "$L/copy_$s.json" ] && merge_json "$L/copy_$s.json" copy.json
  done
  if [ -z "${NO_TRANSPOSE:-}" ]; then
    timeout 90 "$B/tools/tessera" bench copy --transpose-only --json "$L/copy_t.json" >"$L/bench_copy_transpose.log" 2>&1
    echo "bench copy transposing rc=$?" | tee -a "$OUT/summary.txt"
    [ -f "$L/copy_t.json" ] && merge_json "$L/copy_t.json" copy.json
  fi
  timeout 150 "$B/tools/tessera" bench pipeline ${PIPE_BENCH_ARGS-} --json "$OUT/pipeline.json" >"$L/bench_pipeline.log" 2>&1
  echo "bench pipeline rc=$? $(grep -E 'pipelined' "$L/bench_pipeline.log" | tr '\n' ' ')" | tee -a "$OUT/summary.txt"
fi
if has sanitize; then
  log "compute-sanitizer"
  for tool in memcheck racecheck synccheck; do
    level=1; [ "$tool" != memcheck ] && level=2
    for t in test_copy_device test_pipeline_device test_mbarrier_protocol; do
      filter="*"; [ "$tool" != memcheck ] && filter="-CopyTunings.*"
      # synccheck reports libcu++'s cp.async.mbarrier.arrive + arrive idiom (legal PTX) as "Missing wait"
      # and then aborts the kernel: those tests are run on their own below and the finding is expected.
      [ "$tool" = synccheck ] && filter="-CopyTunings.*:*CudaPipeline*:MbarrierCpAsyncInc.*"
      TESSERA_TEST_QUICK=$level timeout 80 compute-sanitizer --tool "$tool" --error-exitcode 9 "$T/$t" --gtest_filter="$filter" \
          >"$L/san_${tool}_$t.log" 2>&1
      echo "$tool $t: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED)' "$L/san_${tool}_$t.log" | tr '\n' ' ')" | tee -a "$OUT/summary.txt"
    done
  done
  for run in "test_pipeline_device *CudaPipeline*" "test_mbarrier_protocol MbarrierCpAsyncInc.*"; do
    set -- $run
    TESSERA_TEST_QUICK=2 timeout 80 compute-sanitizer --tool synccheck --print-limit 4 "$T/$1" --gtest_filter="$2" \
        >"$L/san_synccheck_expected_$1.log" 2>&1
    found=$(grep -c "Missing wait" "$L/san_synccheck_expected_$1.log")
    echo "synccheck $1 $2 (expected finding): 'Missing wait' reports: $found, at: $(grep -m1 -E '^=========     at ' "$L/san_synccheck_expected_$1.log" | sed 's/^=* *//')" | tee -a "$OUT/summary.txt"
  done
fi
if has ncudram; then
  log "ncu DRAM traffic of the straight copies (8192 x 8192 fp32 = 256 MiB)"
  for v in vector cp_async tma; do
    echo "--- variant=$v" >>"$L/ncu_dram.log"
    timeout 60 ncu --clock-control none --kernel-name regex:"copy_(vector|smem|tma)_kernel" --launch-count 1 --csv \
      --metrics dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum \
      "$B/tools/tessera" bench copy --profile "$v" --elem 4 --rows 8192 --cols 8192 >>"$L/ncu_dram.log" 2>&1
  done
  grep -E "^---|dram__|gpu__time|lts__" "$L/ncu_dram.log" | sed 's/.*Command line profiler metrics",//' | tee -a "$OUT/summary.txt"
fi
if has ncu; then
  log "ncu bank conflicts (transposing copy 4096x4096)"
  "$B/tools/tessera" bench copy --bank-report >"$L/ncu_banks.log" 2>&1
  for e in 4 2 8 1; do
    for v in cp_async swizzled; do
      echo "--- elem=$e variant=$v" >>"$L/ncu_banks.log"
      timeout 120 ncu --kernel-name regex:copy_smem_kernel --launch-count 1 --csv \
        --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,gpu__time_duration.sum,regex:^smsp__inst_executed_op_ldgsts.sum$ \
        "$B/tools/tessera" bench copy --profile "$v" --elem "$e" --rows 4096 --cols 4096 --transpose >>"$L/ncu_banks.log" 2>&1
    done
  done
  grep -E "^\"|---|profiled" "$L/ncu_banks.log" | grep -vE "^\"ID\"" | tail -60 > "$L/ncu_banks_short.log"
fi
log "done"
cat "$OUT/summary.txt"
