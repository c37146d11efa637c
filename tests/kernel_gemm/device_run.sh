#!/usr/bin/env bash
# tests/kernel_gemm/device_run.sh BUILD_DIR [steps...] -- the GEMM checks on a GPU machine, in one go.
# Steps (default: tests bench memcheck racecheck): tests | bench | memcheck | racecheck | synccheck | ncu | sass | sweep
# Logs and the benchmark JSON go to $OUT (default /tmp/gemm-out).  Each step has its own time limit.
set -uo pipefail
B=${1:?build dir}; shift
STEPS=${*:-tests bench memcheck racecheck}
OUT=${OUT:-/tmp/gemm-out}
mkdir -p "$OUT"
T=$B/tests/kernel_gemm
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
for s in $STEPS; do
  case $s in
    tests)
      timeout 60 "$T/gemm_host_test" > "$OUT/host_test.log" 2>&1; echo "host tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$OUT/host_test.log" | tr '\n' ' ')"
      timeout 240 "$T/gemm_device_test" > "$OUT/device_test.log" 2>&1; echo "device tests rc=$?"
      grep -E '^\[ +(OK|FAILED|PASSED|SKIPPED) ' "$OUT/device_test.log" | head -30
      grep -A3 -E 'Failure|error' "$OUT/device_test.log" | head -40
      timeout 120 "$T/gemm_fp8_test" > "$OUT/fp8_test.log" 2>&1; echo "FP8 tests rc=$?"
      grep -E '^\[ +(OK|FAILED|PASSED|SKIPPED) |^FP8 ' "$OUT/fp8_test.log" | head -30
      grep -A3 -E 'Failure|error' "$OUT/fp8_test.log" | head -40 ;;
    bench)
      timeout 200 "$B/tools/tessera" bench gemm --json "$OUT/gemm.json" > "$OUT/bench.log" 2>&1; echo "bench rc=$?"
      tail -40 "$OUT/bench.log" ;;
    memcheck|racecheck|synccheck)
      timeout 150 compute-sanitizer --tool "$s" --error-exitcode 3 "$T/gemm_device_test" --gtest_filter='GemmSanitize.*:MmaAtomDevice.*' > "$OUT/san_$s.log" 2>&1
      echo "compute-sanitizer $s rc=$?"; grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' "$OUT/san_$s.log" | head -8
      timeout 150 compute-sanitizer --tool "$s" --error-exitcode 3 "$T/gemm_fp8_test" --gtest_filter='GemmFp8Sanitize.*' > "$OUT/san_fp8_$s.log" 2>&1
      echo "compute-sanitizer $s (FP8) rc=$?"; grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' "$OUT/san_fp8_$s.log" | head -8 ;;
    ncu)
      # The first Tessera kernel of a 4096^3 bf16 GEMM (the bench's verification launch).
      R=smsp__average_warps_issue_stalled
      M="sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active"
      M="$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
      M="$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed.sum,lts__t_bytes.sum.per_second,dram__bytes_read.sum.per_second"
      for r in barrier long_scoreboard short_scoreboard mio_throttle math_pipe_throttle wait not_selected selected dispatch_stall lg_throttle no_instruction branch_resolving; do
        M="$M,${R}_${r}_per_issue_active.ratio"; done
      timeout 200 ncu --clock-control none -k regex:gemm_sm80_kernel -c 1 --section SpeedOfLight --section Occupancy --metrics "$M" \
        "$B/tools/tessera" bench gemm --shapes ${NCU_SHAPE:-4096x4096x4096} --repeats 1 --no-progress > "$OUT/ncu.log" 2>&1; echo "ncu rc=$?"
      sed -n '/gemm_sm80_kernel/,$p' "$OUT/ncu.log" | grep -vE '^ *-+ *$|^ *$' | head -70 ;;
    sass)
      # SASS of the bf16 128x256 (K-major A, K-major B) kernel only; local-memory ops counted over the unit.
      cuobjdump -sass "$B/CMakeFiles/tessera_kernels.dir/src/gemm_sm80_bf16_large.cu.o" > /tmp/sass_all.txt 2>&1
      awk '/Function : .*TileConfigILi128ELi256ELi2ELi4ELi3ELi1EEELNS0_5MajorE0ELS5_0E/{p=1} p&&/Function : /&&!/TileConfigILi128ELi256ELi2ELi4ELi3ELi1EEELNS0_5MajorE0ELS5_0E/{p=0} p' /tmp/sass_all.txt > "$OUT/sass_128x256_kk.txt"
      echo "sass: $(wc -l < "$OUT/sass_128x256_kk.txt") lines; LDL/STL in the bf16 large unit: $(grep -cE 'LDL|STL' /tmp/sass_all.txt)" ;;
    sweep)
      timeout 240 "$B/tests/kernel_gemm/gemm_tile_sweep" 7 > "$OUT/sweep.log" 2>&1; echo "sweep rc=$?"; cat "$OUT/sweep.log" | head -80 ;;
    *) echo "unknown step $s" ;;
  esac
done
