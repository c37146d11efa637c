#!/usr/bin/env bash
# scripts/test.sh -- build and run every test (host tests everywhere; GPU tests skip without a GPU).
#
# Where a CUDA toolkit is present this runs two configurations:
#   1. ${TESSERA_BUILD_DIR:-build}: everything (kernels, tessera + tessera-gpu, all tests);
#   2. ${TESSERA_BUILD_DIR:-build}/no-cuda: TESSERA_WITH_CUDA=OFF, the layout algebra, tensors,
#      analysis, the host `tessera` command and their tests built with the plain C++ compiler
#      (skip it with TESSERA_TEST_NO_CUDA=0).
# Without a toolkit, only the second one (in ${TESSERA_BUILD_DIR:-build}).
# Then the Python package: a fresh virtual environment (${TESSERA_BUILD_DIR:-build}/python-venv),
# `pip install .` into it, matplotlib (for the main job's report) and the tests of python/tests (skip
# it with TESSERA_TEST_PYTHON=0).  Where
# the first configuration compiled the kernels, the package's GPU module (tessera._cuda) links that
# build's libtessera_kernels.a instead of compiling the kernels again.  PyTorch is not installed by
# default (from PyPI it is the CUDA build, about 3 GB): the tests of tessera.ops / tessera.nn then
# report skipped; TESSERA_TEST_TORCH=1 installs torch and transformers into the environment first.
# TESSERA_CUDA_ARCHITECTURES (e.g. 80 for Ampere, "90a;80" for both) picks the GPU targets.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="/usr/local/cuda/bin:${PATH}"
BUILD="${TESSERA_BUILD_DIR:-build}"
JOBS="${TESSERA_JOBS:-$(nproc)}"
CUDA_ARGS=()
if command -v nvcc >/dev/null 2>&1; then
  CUDA_ARGS+=(-DTESSERA_WITH_CUDA=ON -DCMAKE_CUDA_COMPILER="$(command -v nvcc)")
  [ -n "${TESSERA_CUDA_ARCHITECTURES:-}" ] && CUDA_ARGS+=(-DTESSERA_CUDA_ARCHITECTURES="${TESSERA_CUDA_ARCHITECTURES}")
  HOST_BUILD="$BUILD/no-cuda"
else
  CUDA_ARGS+=(-DTESSERA_WITH_CUDA=OFF)
  HOST_BUILD=""
fi
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release "${CUDA_ARGS[@]}" \
      -DTESSERA_BUILD_TESTS=ON -DTESSERA_BUILD_TOOLS=ON
start=$(date +%s)
cmake --build "$BUILD" -j "$JOBS"
echo "build time: $(( $(date +%s) - start )) s"
ctest --test-dir "$BUILD" --output-on-failure -j "$JOBS" --timeout 1500
if [ -n "$HOST_BUILD" ] && [ "${TESSERA_TEST_NO_CUDA:-1}" != 0 ]; then
  echo "== the same host code and tests without CUDA (TESSERA_WITH_CUDA=OFF, $HOST_BUILD)"
  cmake -S . -B "$HOST_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTESSERA_WITH_CUDA=OFF \
        -DTESSERA_BUILD_TESTS=ON -DTESSERA_BUILD_TOOLS=ON
  start=$(date +%s)
  cmake --build "$HOST_BUILD" -j "$JOBS"
  echo "build time (no CUDA): $(( $(date +%s) - start )) s"
  ctest --test-dir "$HOST_BUILD" --output-on-failure -j "$JOBS" --timeout 1500
fi
if [ "${TESSERA_TEST_PYTHON:-1}" != 0 ]; then
  echo "== the Python package: pip install . into a fresh virtual environment, then pytest"
  VENV="$BUILD/python-venv"
  rm -rf "$VENV"
  start=$(date +%s)
  python3 -m venv "$VENV"
  PIP_ARGS=(--config-settings=cmake.define.TESSERA_WITH_CUDA=OFF)
  if [ -n "$HOST_BUILD" ] && [ -f "$BUILD/libtessera_kernels.a" ]; then
    PIP_ARGS+=("--config-settings=cmake.define.TESSERA_KERNELS_LIBRARY=$(cd "$BUILD" && pwd)/libtessera_kernels.a")
  fi
  if [ "${TESSERA_TEST_TORCH:-0}" != 0 ]; then
    "$VENV/bin/pip" install --quiet --disable-pip-version-check torch transformers
    echo "torch install time: $(( $(date +%s) - start )) s"
    start=$(date +%s)
  fi
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "${PIP_ARGS[@]}" . pytest
  echo "python package build time: $(( $(date +%s) - start )) s"
  # matplotlib draws the main job's report plots (python/tests/test_report.py); without it that test is skipped
  "$VENV/bin/pip" install --quiet --disable-pip-version-check matplotlib ||
    echo "test: matplotlib could not be installed; the report-plot test will be skipped" >&2
  # TESSERA_CLI: the Python errors are compared with the messages of the `tessera` command.
  TESSERA_CLI="$(cd "$BUILD" && pwd)/tools/tessera" "$VENV/bin/python" -m pytest -q -p no:cacheprovider -rs python/tests
fi
