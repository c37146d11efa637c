#!/usr/bin/env bash
# scripts/device/ab_flags.sh FLAGS0 FLAGS1 ... -- tessera_cli built once per set of extra CUDA flags (e.g. a macro that
# picks an experimental variant: "-DTESSERA_TILE_ORDER=0" "-DTESSERA_TILE_ORDER=2"), the builds side by side, then
# `tessera bench gemm` on SHAPES for the variants in turn, forwards and backwards (ROUNDS passes of 0 1 .. n-1 n-1 .. 0,
# so that drift of clocks and temperature weighs on every variant alike).  Logs and JSON (gemm_v<i>_<pass>.json) to $OUT.
#   TESSERA_GIT_COMMIT names the builds in the JSON (suffixed -v<i>).
#   NCU_SHARE=1: first, per shape and variant, ncu's cycles and tensor-pipe share (% of the kernel's cycles) of one
#   launch of the persistent kernel (NCU_SKIP: 0 the bare GEMM, 1 bias+GELU, 2 bias+SiLU+residual), under ncu's locked
#   clocks: the steadier measure for a change of a percent or two.  ROUNDS=0 skips the benches.
set -uo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 2 ] || { echo "usage: ab_flags.sh FLAGS0 FLAGS1 [FLAGS2 ...]"; exit 2; }
OUT=${OUT:-/tmp/ab-out}
SHAPES=${SHAPES:-4096x4096x4096,8192x8192x8192,8192x4096x4096,8192x14336x4096,8192x4096x14336}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
n=$#
jobs=$(( ( $(nproc) + n - 1 ) / n ))
t0=$(date +%s)
i=0
for f in "$@"; do
  (cmake -S . -B /tmp/abf-$i -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)" \
     -DTESSERA_BUILD_TESTS=OFF -DTESSERA_BUILD_TOOLS=ON "-DCMAKE_CUDA_FLAGS=$f" "-DCMAKE_CXX_FLAGS=$f" > "$OUT/configure_v$i.log" 2>&1 &&
   cmake --build /tmp/abf-$i -j "$jobs" --target tessera_cli > "$OUT/build_v$i.log" 2>&1; echo $? > "$OUT/build_v$i.rc") &
  i=$((i + 1))
done
wait
echo "builds: $(( $(date +%s) - t0 )) s"
for ((i = 0; i < n; ++i)); do
  [ "$(cat "$OUT/build_v$i.rc" 2>/dev/null)" = 0 ] || { echo "variant $i failed to build"; grep -B2 -A8 -E 'error' "$OUT/build_v$i.log" | head -40; exit 1; }
done
if [ -n "${NCU_SHARE:-}" ]; then
  IFS=',' read -ra shapes <<< "$SHAPES"
  for s in "${shapes[@]}"; do
    for ((i = 0; i < n; ++i)); do
      r=$(timeout 120 ncu --metrics sm__cycles_elapsed.max,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active \
            -k regex:persistent --launch-skip "${NCU_SKIP:-0}" -c 1 --csv /tmp/abf-$i/tools/tessera bench gemm --shapes "$s" \
            --repeats 1 --no-progress 2>/dev/null | grep '^"' | tail -2 |
          awk -F'","' '{v = $NF; gsub(/"/, "", v); n = $(NF - 2); sub(/\..*/, "", n); printf "%s %s  ", n, v}')
      echo "ncu $s variant $i: $r"
    done
  done
fi
order=()
for ((r = 0; r < ${ROUNDS:-1}; ++r)); do
  for ((i = 0; i < n; ++i)); do order+=("$i"); done
  for ((i = n - 1; i >= 0; --i)); do order+=("$i"); done
done
pass=0
for i in "${order[@]}"; do
  pass=$((pass + 1))
  TESSERA_GIT_COMMIT=${TESSERA_GIT_COMMIT:-unknown}-v$i timeout 300 /tmp/abf-$i/tools/tessera bench gemm --shapes "$SHAPES" \
    --repeats ${REPEATS:-10} --json "$OUT/gemm_v${i}_$pass.json" > "$OUT/bench_v${i}_$pass.log" 2>&1
  echo "== variant $i (pass $pass) rc=$? at $(( $(date +%s) - t0 )) s"
done
