#!/usr/bin/env bash
# scripts/test.sh -- build and run every test (host tests everywhere; GPU tests skip without a GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="/usr/local/cuda/bin:${PATH}"
BUILD="${TESSERA_BUILD_DIR:-build}"
JOBS="${TESSERA_JOBS:-$(nproc)}"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$(command -v nvcc)" \
      -DTESSERA_BUILD_TESTS=ON -DTESSERA_BUILD_TOOLS=ON
start=$(date +%s)
cmake --build "$BUILD" -j "$JOBS"
echo "build time: $(( $(date +%s) - start )) s"
ctest --test-dir "$BUILD" --output-on-failure -j "$JOBS" --timeout 1500
