#!/usr/bin/env bash
# scripts/device/experiments/patch_build.sh -- for the one-call run scripts beside it (sourced, from the repository root on
# the GPU machine, the tree clean): patch_build PATCH TARGET... applies scripts/device/experiments/PATCH and tree_build
# TARGET... configures /tmp/b and builds TARGETs (-j 16), logs in $O; both say ptxas's C75xx notes; results_build NAME
# builds the CLI and the two GEMM test binaries into a results folder of that name (below); gemm_tests FILTER
# runs the GEMM tests and the sanitizers (below; sanitize alone); trace_build builds the timeline probe, trace_m128 builds
# and runs the non-persistent kernels' timeline (below); ab_decode times the decode set without and with a switch in turn
# (below); fp8_ab times FP8 on the general and the bare-menus kernel in turn (below); bare_us prints the bare GEMM's us per
# shape of bench JSON files (below).  Sourcing it also sets O (/tmp/o, the results' folder), T (the GEMM tests' folder in the build) and el
# (seconds since the source).
O=/tmp/o
T=/tmp/b/tests/kernel_gemm
mkdir -p "$O"
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
# commit_label [SUFFIX]: exports TESSERA_GIT_COMMIT (the records' label) as passed, else the checkout's HEAD with a
# warning -- the device machine's copy of the tree can carry a stale git HEAD -- and SUFFIX appended.
commit_label() {
  [ -z "${TESSERA_GIT_COMMIT:-}" ] && echo "warning: TESSERA_GIT_COMMIT not passed; labelling with the checkout's HEAD" \
    "$(git rev-parse --short HEAD), which may be stale on the device machine"
  export TESSERA_GIT_COMMIT="${TESSERA_GIT_COMMIT:-$(git rev-parse --short HEAD)}${1:-}"
}
# tree_build TARGET...: configures /tmp/b (tests and tools on) from the tree as it is and builds TARGETs.
tree_build() {
  commit_label
  cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DTESSERA_BUILD_TESTS=ON -DTESSERA_BUILD_TOOLS=ON \
    -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc > "$O/cfg.log" 2>&1 || { tail "$O/cfg.log"; return 1; }
  cmake --build /tmp/b -j 16 --target "$@" > "$O/build.log" 2>&1 || { grep -B2 -A8 error "$O/build.log" | head -40; return 1; }
  echo "built at $(el) s"
  grep -E "C75[0-9]+" "$O/build.log" | head -3
  return 0
}
# results_build NAME: R=$O/NAME (made), B=/tmp/b/tools/tessera, and tree_build of tessera_cli, gemm_device_test and
# gemm_fp8_test; where the build fails, $O's logs go to $OUT/NAME.tar.xz and the calling script exits.
results_build() {
  R=$O/$1; B=/tmp/b/tools/tessera
  mkdir -p "$R"
  tree_build tessera_cli gemm_device_test gemm_fp8_test || { tar -C "$O" -cJf "$OUT/$1.tar.xz" .; exit 1; }
}
# patch_results PATCH NAME: applies scripts/device/experiments/PATCH (the calling script exits where it does not apply),
# then results_build NAME (R, B) and base=TESSERA_GIT_COMMIT as passed.
patch_results() {
  git apply "scripts/device/experiments/$1" || { echo "$1 does not apply"; exit 1; }
  results_build "$2"
  base=$TESSERA_GIT_COMMIT
}
# patch_build PATCH TARGET...: applies scripts/device/experiments/PATCH, then tree_build.  The commit label is
# TESSERA_GIT_COMMIT (else HEAD) + PATCH's name: pass TESSERA_GIT_COMMIT where the checkout's HEAD is not the commit.
patch_build() {
  local patch=$1; shift
  git apply "scripts/device/experiments/$patch" || { echo "$patch does not apply"; return 1; }
  commit_label "+${patch%.patch}"
  tree_build "$@"
}
# gemm_tests FILTER [GUARD]: gemm_host_test and gemm_device_test whole (ht.log, dt.log in $O), then compute-sanitizer
# memcheck, racecheck and synccheck on gemm_device_test's FILTER (san_TOOL.log), each skipped past GUARD seconds since
# the source (default 400); a summary line each, and the device tests' failures.
gemm_tests() {
  local filter=$1 guard=${2:-400} tool
  timeout 60 $T/gemm_host_test > $O/ht.log 2>&1; echo "host rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/ht.log | tr '\n' ' ')"
  timeout 150 $T/gemm_device_test > $O/dt.log 2>&1
  echo "device rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/dt.log | tr '\n' ' ') at $(el) s"
  grep -A8 Failure $O/dt.log | head -30
  sanitize "$filter" "$guard"
}
# sanitize FILTER [GUARD] [TIMEOUT] [DIR]: compute-sanitizer memcheck, racecheck and synccheck on gemm_device_test's FILTER
# (DIR/san_TOOL.log; DIR default $O), each skipped past GUARD seconds since the source (default 400), each run within
# TIMEOUT seconds (default 100); a summary line each.
sanitize() {
  local filter=$1 guard=${2:-400} limit=${3:-100} dir=${4:-$O} tool
  for tool in memcheck racecheck synccheck; do
    [ $(el) -gt $guard ] && { echo "$tool skipped (time)"; continue; }
    timeout $limit compute-sanitizer --tool $tool --error-exitcode 3 $T/gemm_device_test --gtest_filter="$filter" > $dir/san_$tool.log 2>&1
    echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED)' $dir/san_$tool.log | head -3 | tr '\n' ' ') at $(el) s"
  done
}
# switch_tests ASSIGN NAME BIN FILTER [LIMIT]: $T/BIN's FILTER with the environment assignment ASSIGN (VAR=VALUE), into
# $R/NAME.log within LIMIT seconds (default 150); a summary line and the first failures.
switch_tests() {
  env "$1" timeout "${5:-150}" "$T/$3" --gtest_filter="$4" > "$R/$2.log" 2>&1
  echo "$2 ($1) rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$R/$2.log" | tr '\n' ' ') at $(el) s"
  grep -A8 Failure "$R/$2.log" | head -20
}
# fp8_ab ROUNDS [LINES]: FP8 e4m3 per-tensor on the shapes $L (tessera bench gemm --dtype e4m3, $B), TESSERA_FP8_BARE=0
# then 1 (the general and the bare-menus kernel: fp8_bare_switch.patch), ROUNDS times, into $R/t_{general,bare}_N.json
# (the records' commit ${base}+general / +bare); the last LINES lines of each table printed (default 8).
fp8_ab() {
  local rounds=$1 lines=${2:-8} round v lab
  for round in $(seq 1 "$rounds"); do
    for v in 0 1; do
      lab=$([ $v = 0 ] && echo general || echo bare)
      TESSERA_FP8_BARE=$v TESSERA_GIT_COMMIT=$base+$lab timeout 120 $B bench gemm --dtype e4m3 --shapes $L --repeats 10 \
        --json $R/t_${lab}_$round.json > $R/t_${lab}_$round.log 2>&1
      echo "tensor $lab round $round rc=$? at $(el) s"; grep -v '^\[gemm\]' $R/t_${lab}_$round.log | tail -$lines | cut -c1-160
    done
  done
}
# trace_build: a -DTESSERA_GEMM_TRACE build of tessera_kernels in /tmp/tb and scripts/device/trace_gemm.cu linked against it
# (/tmp/tb/trace_gemm); logs trace_*.log in $O.
trace_build() {
  local tb=/tmp/tb
  cmake -S . -B $tb -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc \
    "-DCMAKE_CUDA_FLAGS=-DTESSERA_GEMM_TRACE" > $O/trace_cfg.log 2>&1 && \
  cmake --build $tb -j 16 --target tessera_kernels > $O/trace_build.log 2>&1 && \
  nvcc -std=c++20 -O2 -arch=sm_90a -I include scripts/device/trace_gemm.cu $tb/libtessera_kernels.a -lcublasLt -lcublas -lcuda \
    -o $tb/trace_gemm > $O/trace_tool.log 2>&1 || { echo "trace build failed"; tail -5 $O/trace_build.log $O/trace_tool.log; return 1; }
  echo "trace built at $(el) s"
}
# trace_m128 FILTER: a -DTESSERA_GEMM_TRACE build of tessera_kernels in /tmp/tb, scripts/device/trace_gemm.cu linked against
# it, then its timeline at 128 x 14336 x 4096 (the 128 x 128 tile) and 128 x 4096^2 (the 128 x 64 tile, two splits) --
# bare, bias+GELU, bias+SiLU+residual -- into trace_m.log and trace_w.log; prints their lines that match FILTER.
trace_m128() {
  local filter=$1 tb=/tmp/tb
  trace_build || return 1
  timeout 60 $tb/trace_gemm 128 14336 4096 m > $O/trace_m.log 2>&1; echo "trace m rc=$?"; grep -E "$filter" $O/trace_m.log
  TRACE_SPLIT=2 timeout 60 $tb/trace_gemm 128 4096 4096 w > $O/trace_w.log 2>&1; echo "trace w rc=$?"; grep -E "$filter" $O/trace_w.log
}
# ab_decode A B VAR [ROUNDS] [TAR]: ROUNDS (default 2) rounds of `tessera bench gemm --shapes decode` from /tmp/b, without
# VAR (dec_A_r.json) and with VAR=1 (dec_B_r.json) in turn, each round's ratios (bare, the epilogue costs) printed and
# $O's results packed into $OUT/TAR (default ab.tar.xz) after it.
ab_decode() {
  local a=$1 b=$2 var=$3 rounds=${4:-2} tarf=${5:-ab.tar.xz} r bin=/tmp/b/tools/tessera
  for r in $(seq 1 "$rounds"); do
    timeout 40 $bin bench gemm --shapes decode --repeats 10 --json $O/dec_${a}_$r.json > $O/dec_${a}_$r.log 2>&1 || echo "$a round $r failed"
    env "$var=1" timeout 40 $bin bench gemm --shapes decode --repeats 10 --json $O/dec_${b}_$r.json > $O/dec_${b}_$r.log 2>&1 ||
      echo "$b round $r failed"
    python3 scripts/device/gemm_ratios.py $O/dec_${a}_$r.json $O/dec_${b}_$r.json | grep -E "json|^bare|cost_bias_sil|cost_bias_gel"
    (cd $O && tar cf - *.json *.log | xz -1 > "$OUT/$tarf")
  done
}
# bare_us JSON...: per `tessera bench gemm --json` file, the bare GEMM's time per shape (and FP8's fp8_tensor case), us
# Tessera / reference, on one line.
bare_us() {
  python3 - "$@" <<'PY'
import json, sys
for f in sys.argv[1:]:
    d = json.load(open(f)); out = []
    for r in d['records']:
        if r['case'] in ('bare', 'fp8_tensor'):
            m, n, k = (int(x) for x in r['shape'].split('x')); fl = 2.0 * m * n * k
            out.append(f"{r['shape']} {fl / r['figure'] / 1e6:.2f}/{fl / r['reference_figure'] / 1e6:.2f}")
    print(f.split('/')[-1], ' | '.join(out))
PY
}
