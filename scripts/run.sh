#!/usr/bin/env bash
# scripts/run.sh -- the main job: build the `tessera` command and run `tessera main "$@"`.
# With a GPU it prints the benchmark scorecard (one line per kernel family against cudaMemcpy /
# cuBLAS / cuBLASLt measured in the same run, and the target) and writes bench/results/latest/
# (scorecard.json, report.md with plots, log.txt); `scripts/run.sh --full` runs the full sweeps
# instead (`tessera main --help`).  Without a GPU it prints the layout tour.  Without a CUDA
# toolkit it builds the host-only `tessera` (TESSERA_WITH_CUDA=OFF) and prints the tour.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="/usr/local/cuda/bin:${PATH}"
BUILD="${TESSERA_BUILD_DIR:-build}"
# the report's plots and `tessera roofline` draw with matplotlib; install it where a GPU is present
if command -v nvidia-smi >/dev/null 2>&1 && ! python3 -c 'import matplotlib' 2>/dev/null; then
  python3 -m pip install -q matplotlib || echo "run: matplotlib missing; the report is written without its plots" >&2
fi
# TESSERA_CUDA_ARCHITECTURES (e.g. 80 for Ampere, "90a;80" for both) picks the GPU targets.
CUDA_ARGS=()
TARGETS=(tessera_cli)
if command -v nvcc >/dev/null 2>&1; then
  CUDA_ARGS+=(-DTESSERA_WITH_CUDA=ON -DCMAKE_CUDA_COMPILER="$(command -v nvcc)")
  [ -n "${TESSERA_CUDA_ARCHITECTURES:-}" ] && CUDA_ARGS+=(-DTESSERA_CUDA_ARCHITECTURES="${TESSERA_CUDA_ARCHITECTURES}")
  TARGETS+=(tessera_gpu)  # bench, roofline and the scorecard: `tessera main` runs it where a GPU is present
else
  CUDA_ARGS+=(-DTESSERA_WITH_CUDA=OFF)
fi
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release "${CUDA_ARGS[@]}" \
      -DTESSERA_BUILD_TESTS=OFF -DTESSERA_BUILD_TOOLS=ON
cmake --build "$BUILD" -j "${TESSERA_JOBS:-$(nproc)}" --target "${TARGETS[@]}"
exec "$BUILD/tools/tessera" main "$@"
