#!/usr/bin/env bash
# scripts/device/gemm_h100.sh [steps...] -- build the GEMM targets on a GPU machine and run the chosen steps
# in one go (configure + build + check + time), writing logs and JSON to $OUT (default /tmp/gemm-out).
# Steps: build all tests sanitize bench plans plans_confirm fp8 bench_f16 bench_rowmajor bench_orders bench_tiles sass ncu ncu_vs ncu_stalls trace
#        python
#   bench_orders the two orders with a column-major A (B column- and row-major), JSON to $OUT/gemm_a_col_major*.json
#   bench        tessera bench gemm on the issue's shapes (planner's choice), JSON to $OUT/gemm.json
#   plans        tessera bench gemm --plans: the planner against every forced plan on PLAN_SHAPES (default
#                decode-grid), JSON to $OUT/gemm_plans.json
#   plans_confirm  the plans step's shapes where another plan beat the planner's by more than 5%, each timed again in
#                the full benchmark beside the planner's (--versus), JSON to $OUT/gemm_plans_confirm.json
#   fp8          the FP8 GEMM's tests and sanitizer subset, then tessera bench gemm --dtype e4m3 against cuBLASLt
#                FP8 (JSON to $OUT/gemm_fp8.json)
#   bench_f16    the same in f16 (--dtype f16) on L (SHAPES_L), JSON to $OUT/gemm_f16.json
#   bench_tiles  the same shapes with each Hopper tile forced (one JSON per tile)
#   ncu_vs       Tessera's and cuBLAS's kernels of one bench run (NCU_SHAPE; NCU_REGEX picks kernels, NCU_COUNT
#                how many) side by side: time, clock, tensor-pipe activity, L2 hit rate, DRAM bytes, launch shape
#   ncu_stalls   warp-stall sampling of one Tessera launch (NCU_SKIP: 0 bare, 1 bias+GELU, 2 bias+SiLU+residual;
#                NCU_INTERVAL: ncu's --warp-sampling-interval, e.g. 4 = every 512 cycles, about 75k samples at 4096^3)
#                summarised by scripts/device/ncu_summary.py; the source page to $OUT/src.csv.gz (its `region` and
#                `diff` modes compare a row range, or two menus' pages of one kernel)
#   trace        the timeline probe: the kernels built with -DTESSERA_GEMM_TRACE in their own folder, then
#                scripts/device/trace_gemm.cu run on each of TRACE_RUNS ("M N K tile; ...", tile as trace_gemm.cu takes it);
#                TRACE_FLAGS: more nvcc flags for that build (e.g. an experiment's -D switches)
#   python       pip install of the package over this build's kernels, the Python tests, and
#                python/bench/bench_ops.py (BENCH_OPS_ARGS, default --no-compile) to $OUT/bench_ops.json
# The bench records name the commit from `git describe --dirty` unless TESSERA_GIT_COMMIT is set: where the GPU
# machine's copy of the tree carries older history than the tree itself (a copied working tree), pass the commit
# that was copied, e.g. `TESSERA_GIT_COMMIT=<local HEAD> scripts/device/gemm_h100.sh ...`.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gemm-out}
B=${TESSERA_BUILD_DIR:-/tmp/tessera-build}
STEPS=${*:-build tests bench}
# L, the issue's large shapes (SHAPES_L), and the default shapes: L and the small ones.
SHAPES_L=${SHAPES_L:-4096x4096x4096,8192x8192x8192,8192x4096x4096,8192x14336x4096,8192x4096x14336}
SHAPES=${SHAPES:-$SHAPES_L,2048x2048x2048,1024x1024x1024,8000x5000x3000}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
for s in $STEPS; do
  case $s in
    build)
      t0=$(date +%s)
      cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)" \
        -DTESSERA_BUILD_TESTS=ON -DTESSERA_BUILD_TOOLS=ON > "$OUT/configure.log" 2>&1 || { tail -20 "$OUT/configure.log"; exit 1; }
      cmake --build "$B" -j 16 --target tessera_cli gemm_device_test gemm_host_test gemm_fp8_test > "$OUT/build.log" 2>&1 || { grep -B2 -A8 -E 'error|Error' "$OUT/build.log" | head -60; exit 1; }
      echo "build: $(( $(date +%s) - t0 )) s" ;;
    all)
      # the whole project and every test (ctest; layout_cases needs ../shared, which the device does not have)
      t0=$(date +%s)
      cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)" \
        -DTESSERA_BUILD_TESTS=ON -DTESSERA_BUILD_TOOLS=ON > "$OUT/configure.log" 2>&1 || { tail -20 "$OUT/configure.log"; exit 1; }
      cmake --build "$B" -j 16 > "$OUT/build_all.log" 2>&1 || { grep -B2 -A8 -E 'error|Error' "$OUT/build_all.log" | head -60; exit 1; }
      echo "build (all): $(( $(date +%s) - t0 )) s"
      timeout 400 ctest --test-dir "$B" -j 4 --timeout 300 -E layout_cases > "$OUT/ctest.log" 2>&1; echo "ctest rc=$?"
      grep -E 'tests passed|tests failed|\*\*\*Failed|Not Run|Skipped|Timeout' "$OUT/ctest.log" | head -20 ;;
    tests)
      T=$B/tests/kernel_gemm
      timeout 60 env -u GTEST_FILTER "$T/gemm_host_test" > "$OUT/host_test.log" 2>&1; echo "host tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$OUT/host_test.log" | tr '\n' ' ')"
      timeout 400 "$T/gemm_device_test" ${GTEST_FILTER:+--gtest_filter=$GTEST_FILTER} > "$OUT/device_test.log" 2>&1; echo "device tests rc=$?"
      grep -E '^\[ +(OK|FAILED|PASSED|SKIPPED) |worst relative' "$OUT/device_test.log" | head -40
      grep -A3 -E 'Failure|error' "$OUT/device_test.log" | head -40 ;;
    sanitize)
      T=$B/tests/kernel_gemm
      for tool in memcheck racecheck synccheck; do
        timeout 200 compute-sanitizer --tool $tool --error-exitcode 3 "$T/gemm_device_test" --gtest_filter='GemmSanitize.*' > "$OUT/san_$tool.log" 2>&1
        echo "compute-sanitizer $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED)' "$OUT/san_$tool.log" | head -3 | tr '\n' ' ')"
        grep -A4 'Failure' "$OUT/san_$tool.log" | head -8
      done ;;
    bench)
      timeout 300 "$B/tools/tessera" bench gemm --shapes "$SHAPES" --repeats ${REPEATS:-15} --json "$OUT/gemm.json" > "$OUT/bench.log" 2>&1
      echo "bench rc=$?"; sed -n '/^bf16 GEMM/,$p' "$OUT/bench.log" ;;
    plans)
      # the planner against every forced plan (bare GEMM) over the decode grid (issue 11's planner table)
      timeout 400 "$B/tools/tessera" bench gemm --plans --shapes "${PLAN_SHAPES:-decode-grid}" --repeats ${REPEATS:-10} \
        --json "$OUT/gemm_plans.json" > "$OUT/plans.log" 2>&1
      echo "plans rc=$?"; sed -n '/the planner.s plan against/,$p' "$OUT/plans.log"; grep -B2 -A3 'differs\|error' "$OUT/plans.log" | head -20 ;;
    plans_confirm)
      # the shapes of $OUT/gemm_plans.json (the plans step) where another plan beat the planner's by more than 5%: each
      # run again in the full benchmark's round-robin (cuBLAS, the epilogue variants, cuBLASLt, the read floor) with that
      # plan beside the planner's (--versus), records "plan_vs_forced" merged into $OUT/gemm_plans_confirm.json
      python3 - "$OUT/gemm_plans.json" > "$OUT/confirm.list" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["records"]:
    if r["case"] == "plan_choice" and r["ratio"] < 0.95:
        t = r["reference"].split(": ", 1)[1].split(",")[0].split()  # "tc TILE split S [(transposed)]"
        print(r["shape"], t[1] + ":" + t[3])
PY
      rm -f "$OUT"/versus_*.json
      while read -r shape plan; do
        timeout 120 "$B/tools/tessera" bench gemm --shapes "$shape" --repeats ${REPEATS:-15} --versus "$plan" \
          --json "$OUT/versus_$shape.json" > "$OUT/versus.log" 2>&1 || { echo "$shape $plan: rc=$?"; tail -3 "$OUT/versus.log"; }
        grep -A1 "against the --versus plan" "$OUT/versus.log" | tail -1
      done < "$OUT/confirm.list"
      python3 - "$OUT" <<'PY'
import glob, json, sys
out = sys.argv[1]
files = sorted(glob.glob(out + "/versus_*.json"))
if files:
    doc = json.load(open(files[0]))
    doc["records"] = [r for f in files for r in json.load(open(f))["records"] if r["case"] in ("plan_vs_forced", "decode", "bare")]
    doc["command"] = "tessera bench gemm --shapes S --versus TILE:SPLIT (each shape of gemm_plans.json below 0.95, its best other plan)"
    json.dump(doc, open(out + "/gemm_plans_confirm.json", "w"), indent=1)
    ok = sum(r["ratio"] >= 0.95 for r in doc["records"] if r["case"] == "plan_vs_forced")
    print(f"confirmed in the full benchmark: the planner within 5% of the plan on {ok} of {len(files)} shapes")
PY
      rm -f "$OUT"/versus_*.json ;;
    fp8)
      # the FP8 GEMM: its tests (the long-K test prints both accumulations' errors), its sanitizer subset, and the bench
      # against cuBLASLt FP8 (FP8_DTYPE e4m3 or e5m2; FP8_ACCUM promoted or fast; FP8_TILE a forced tile; FP8_SCALE
      # tensor, channel or block) on SHAPES_FP8 (default L and 2048^3)
      T=$B/tests/kernel_gemm
      timeout 300 "$T/gemm_fp8_test" > "$OUT/fp8_test.log" 2>&1; echo "fp8 tests rc=$?"
      grep -E '^\[ +(OK|FAILED|PASSED|SKIPPED) |relative error|accum' "$OUT/fp8_test.log" | head -40
      grep -A6 -E 'Failure' "$OUT/fp8_test.log" | head -50
      for tool in memcheck racecheck synccheck; do
        timeout 200 compute-sanitizer --tool $tool --error-exitcode 3 "$T/gemm_fp8_test" --gtest_filter='*Sanitize*' > "$OUT/san_fp8_$tool.log" 2>&1
        echo "compute-sanitizer $tool (fp8) rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED)' "$OUT/san_fp8_$tool.log" | head -3 | tr '\n' ' ')"
      done
      timeout 300 "$B/tools/tessera" bench gemm --dtype ${FP8_DTYPE:-e4m3} --fp8-accum ${FP8_ACCUM:-promoted} \
        ${FP8_TILE:+--tile $FP8_TILE} ${FP8_SCALE:+--fp8-scale $FP8_SCALE} \
        --shapes "${SHAPES_FP8:-$SHAPES_L,2048x2048x2048}" --repeats ${REPEATS:-10} --json "$OUT/gemm_fp8.json" > "$OUT/bench_fp8.log" 2>&1
      echo "bench (fp8) rc=$?"; cat "$OUT/bench_fp8.log" | grep -v '^\[gemm\]' | tail -40 ;;
    bench_f16)
      timeout 300 "$B/tools/tessera" bench gemm --dtype f16 --shapes "$SHAPES_L" --repeats ${REPEATS:-15} --json "$OUT/gemm_f16.json" > "$OUT/bench_f16.log" 2>&1
      echo "bench (f16) rc=$?"; sed -n '/^f16 GEMM/,$p' "$OUT/bench_f16.log" ;;
    bench_rowmajor)
      timeout 300 "$B/tools/tessera" bench gemm --b-row-major --shapes "$SHAPES" --repeats ${REPEATS:-15} --json "$OUT/gemm_b_row_major.json" > "$OUT/bench_rm.log" 2>&1
      echo "bench (B row-major) rc=$?"; sed -n '/^bf16 GEMM/,$p' "$OUT/bench_rm.log" ;;
    bench_orders)
      timeout 300 "$B/tools/tessera" bench gemm --a-col-major --shapes "$SHAPES" --repeats ${REPEATS:-15} --json "$OUT/gemm_a_col_major.json" > "$OUT/bench_ac.log" 2>&1
      echo "bench (A column-major) rc=$?"; sed -n '/^bf16 GEMM/,$p' "$OUT/bench_ac.log"
      timeout 300 "$B/tools/tessera" bench gemm --a-col-major --b-row-major --shapes "$SHAPES" --repeats ${REPEATS:-15} --json "$OUT/gemm_a_col_major_b_row_major.json" > "$OUT/bench_acbr.log" 2>&1
      echo "bench (A column-major, B row-major) rc=$?"; sed -n '/^bf16 GEMM/,$p' "$OUT/bench_acbr.log" ;;
    bench_tiles)
      for tile in ${TILES:-coop128x256x64 wgmma128x256x64}; do
        timeout 300 "$B/tools/tessera" bench gemm --tile $tile --shapes "$SHAPES" --repeats ${REPEATS:-10} --json "$OUT/gemm_$tile.json" > "$OUT/bench_$tile.log" 2>&1
        echo "== forced $tile rc=$?"; sed -n '/^bf16 GEMM/,$p' "$OUT/bench_$tile.log"
      done ;;
    sass)
      for f in "$B"/CMakeFiles/tessera_kernels.dir/src/gemm_sm90*.o; do
        cuobjdump -sass "$f" > /tmp/sass.txt 2>&1
        echo "$(basename "$f"): HGMMA $(grep -c HGMMA /tmp/sass.txt) QGMMA (FP8) $(grep -c QGMMA /tmp/sass.txt) UTMALDG $(grep -c UTMALDG /tmp/sass.txt) UTMASTG $(grep -c UTMASTG /tmp/sass.txt) LDL $(grep -c 'LDL' /tmp/sass.txt) STL $(grep -c 'STL' /tmp/sass.txt)"
      done
      cuobjdump -res-usage "$B"/CMakeFiles/tessera_kernels.dir/src/gemm_sm90_persistent_bf16_coop_kk.cu.o 2>&1 | grep -E 'Function|REG' | head -12 ;;
    ncu)
      # One Tessera GEMM (the bench's verification launch) under Nsight Compute; NCU_ARGS adds bench options
      # (e.g. --tile coop128x256x64), NCU_SHAPE the shape.
      timeout 300 ncu --clock-control none -k regex:${NCU_KERNEL:-gemm_sm90} -c 1 --section SpeedOfLight --section WarpStateStats \
        --section MemoryWorkloadAnalysis --section SchedulerStats --section LaunchStats \
        "$B/tools/tessera" bench gemm --shapes ${NCU_SHAPE:-4096x4096x4096} --repeats 1 --no-progress ${NCU_ARGS:-} > "$OUT/ncu.log" 2>&1
      echo "ncu rc=$?"
      grep -vE '^ *-+ *$|^ *$' "$OUT/ncu.log" | grep -A120 -m1 -E 'gemm_sm90' | grep -vE '^ +(OPT|INF) ' | head -100 ;;
    ncu_vs)
      M=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,lts__t_bytes.sum,launch__grid_size,launch__block_size,launch__cluster_dim_x,launch__cluster_dim_y,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,smsp__inst_executed.sum
      timeout 300 ncu --clock-control none -k "regex:${NCU_REGEX:-nvjet|xmma|cutlass|gemm_sm90}" -c ${NCU_COUNT:-6} --metrics $M --csv --page raw \
        "$B/tools/tessera" bench gemm --shapes ${NCU_SHAPE:-4096x4096x4096} --repeats 1 --no-progress ${NCU_ARGS:-} > "$OUT/ncu_vs.csv" 2> "$OUT/ncu_vs.err"
      echo "ncu_vs rc=$?"
      python3 scripts/device/ncu_summary.py raw "$OUT/ncu_vs.csv" --metrics $M ;;
    ncu_stalls)
      timeout 300 ncu --clock-control none -k regex:${NCU_KERNEL:-persistent} --launch-skip ${NCU_SKIP:-0} -c 1 \
        ${NCU_INTERVAL:+--warp-sampling-interval $NCU_INTERVAL} \
        --section WarpStateStats --section SourceCounters -o "$OUT/stalls" \
        "$B/tools/tessera" bench gemm --shapes ${NCU_SHAPE:-4096x4096x4096} --repeats 1 --no-progress ${NCU_ARGS:-} > "$OUT/ncu_stalls.log" 2>&1
      echo "ncu_stalls rc=$?"
      ncu --import "$OUT/stalls.ncu-rep" --page source --csv --print-source sass > "$OUT/src.csv" 2>&1 && gzip -f "$OUT/src.csv"
      rm -f "$OUT/stalls.ncu-rep"
      python3 scripts/device/ncu_summary.py source "$OUT/src.csv.gz" ;;
    trace)
      TB=${TESSERA_TRACE_BUILD_DIR:-/tmp/tessera-trace}
      t0=$(date +%s)
      cmake -S . -B "$TB" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)" \
        "-DCMAKE_CUDA_FLAGS=-DTESSERA_GEMM_TRACE ${TRACE_FLAGS:-}" > "$OUT/trace_configure.log" 2>&1 || { tail -20 "$OUT/trace_configure.log"; exit 1; }
      cmake --build "$TB" -j 16 --target tessera_kernels > "$OUT/trace_build.log" 2>&1 || { grep -B2 -A8 -E 'error|Error' "$OUT/trace_build.log" | head -40; exit 1; }
      nvcc -std=c++20 -O2 -arch=sm_90a -I include scripts/device/trace_gemm.cu "$TB/libtessera_kernels.a" -lcublasLt -lcublas -lcuda \
        -o "$TB/trace_gemm" > "$OUT/trace_tool.log" 2>&1 || { head -20 "$OUT/trace_tool.log"; exit 1; }
      echo "trace build: $(( $(date +%s) - t0 )) s"
      IFS=';' read -ra runs <<< "${TRACE_RUNS:-1024 1024 1024 w}"
      for r in "${runs[@]}"; do timeout 120 "$TB/trace_gemm" $r; echo "trace ($r) rc=$?"; done ;;
    python)
      python3 -m pip install --no-build-isolation --no-deps -C cmake.define.TESSERA_WITH_CUDA=OFF \
        -C cmake.define.TESSERA_KERNELS_LIBRARY="$B/libtessera_kernels.a" . > "$OUT/pip.log" 2>&1; echo "pip install rc=$?"
      TESSERA_CLI="$B/tools/tessera" timeout 400 python3 -m pytest -q python/tests > "$OUT/pytest.log" 2>&1
      echo "pytest rc=$? $(tail -1 "$OUT/pytest.log")"; grep -E "^(FAILED|ERROR)" "$OUT/pytest.log" | head -20
      PYTHONUNBUFFERED=1 timeout 400 python3 python/bench/bench_ops.py ${BENCH_OPS_ARGS:---no-compile} --out "$OUT/bench_ops.json" > "$OUT/bench_ops.log" 2>&1
      echo "bench_ops rc=$?"; sed -n '/^host time/,/^$/p;/^transformers/,/^$/p;/^bf16 GEMM/,/^$/p' "$OUT/bench_ops.log" ;;
    *) echo "unknown step $s" ;;
  esac
done
