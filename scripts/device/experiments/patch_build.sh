#!/usr/bin/env bash
# scripts/device/experiments/patch_build.sh PATCH TARGET... -- for the one-call run scripts beside it (sourced, from the
# repository root on the GPU machine, the tree clean): applies scripts/device/experiments/PATCH, sets TESSERA_GIT_COMMIT
# to HEAD+PATCH's name, configures /tmp/b and builds TARGETs (-j 16), logs in $O; says ptxas's C75xx notes.  Sourcing it
# also sets O (/tmp/o, the results' folder), T (the GEMM tests' folder in the build) and el (seconds since the source).
O=/tmp/o
T=/tmp/b/tests/kernel_gemm
mkdir -p "$O"
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
patch_build() {
  local patch=$1; shift
  git apply "scripts/device/experiments/$patch" || { echo "$patch does not apply"; return 1; }
  export TESSERA_GIT_COMMIT="$(git rev-parse --short HEAD)+${patch%.patch}"
  cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DTESSERA_BUILD_TESTS=ON -DTESSERA_BUILD_TOOLS=ON \
    -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc > "$O/cfg.log" 2>&1 || { tail "$O/cfg.log"; return 1; }
  cmake --build /tmp/b -j 16 --target "$@" > "$O/build.log" 2>&1 || { grep -A5 error "$O/build.log" | head -30; return 1; }
  echo "built at $(el) s"
  grep -E "C75[0-9]+" "$O/build.log" | head -3
  return 0
}
