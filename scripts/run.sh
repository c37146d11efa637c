#!/usr/bin/env bash
# scripts/run.sh -- the main job: build the `tessera` command and run it.
# With a GPU it runs the benchmark suite; without one it prints the layout tour.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="/usr/local/cuda/bin:${PATH}"
BUILD="${TESSERA_BUILD_DIR:-build}"
# the roofline plot (`tessera roofline`) draws with matplotlib; install it where a GPU is present
if command -v nvidia-smi >/dev/null 2>&1 && ! python3 -c 'import matplotlib' 2>/dev/null; then
  python3 -m pip install -q matplotlib || echo "run: matplotlib missing; tessera roofline cannot draw its plot" >&2
fi
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$(command -v nvcc)" \
      -DTESSERA_BUILD_TESTS=OFF -DTESSERA_BUILD_TOOLS=ON
cmake --build "$BUILD" -j "${TESSERA_JOBS:-$(nproc)}" --target tessera_cli
exec "$BUILD/tools/tessera" main "$@"
