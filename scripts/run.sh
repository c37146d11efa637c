#!/usr/bin/env bash
# scripts/run.sh -- the main job: build the `tessera` command and run it.
# With a GPU it runs the benchmark suite; without one it prints the layout tour.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="/usr/local/cuda/bin:${PATH}"
BUILD="${TESSERA_BUILD_DIR:-build}"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$(command -v nvcc)" \
      -DTESSERA_BUILD_TESTS=OFF -DTESSERA_BUILD_TOOLS=ON
cmake --build "$BUILD" -j "${TESSERA_JOBS:-$(nproc)}" --target tessera_cli
exec "$BUILD/tools/tessera" main "$@"
