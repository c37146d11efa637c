#!/usr/bin/env bash
# scripts/indexing_cost.sh -- compare the code of a shared-memory transpose indexed through
# compile-time (swizzled) layouts with the same kernel indexed by hand: ptxas resource usage
# and SASS instruction counts.  Needs only nvcc/cuobjdump (no GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:${PATH}"
ARCH="${1:-sm_90a}"
out=$(mktemp -d)
cat > "$out/k.cu" <<'CU'
#include "layout/indexing_kernels.cuh"
CU
nvcc -std=c++20 -O3 -Iinclude -Itests -gencode=arch=compute_${ARCH#sm_},code=$ARCH -cubin -Xptxas -v \
     -o "$out/k.cubin" "$out/k.cu" 2>&1 | grep -E "Compiling entry|registers|stack frame|spill" | sed 's/^ptxas info *: //'
CUOBJDUMP=$(command -v cuobjdump || true)
if [ -z "$CUOBJDUMP" ]; then  # toolkits without it: the disassembler from PyPI, kept under build/
  tools_dir="build/pytools"
  [ -x "$tools_dir/nvidia/cu13/bin/nvdisasm" ] ||
    python3 -m pip install -q --disable-pip-version-check --target "$tools_dir" "nvidia-cuda-cuobjdump==13.2.51" "nvidia-cuda-nvdisasm==13.2.51" >&2
  CUOBJDUMP="$tools_dir/nvidia/cu13/bin/cuobjdump"
  export PATH="$PWD/$tools_dir/nvidia/cu13/bin:$PATH"
fi
"$CUOBJDUMP" -sass "$out/k.cubin" > "$out/k.sass"
nvcc -std=c++20 -O3 -Iinclude -Itests -gencode=arch=compute_${ARCH#sm_},code=$ARCH -ptx -o "$out/k.ptx" "$out/k.cu"
for k in transpose_tile_algebra transpose_tile_by_hand; do
  ptx=$(awk -v k="$k" '/^\.visible \.entry/{p = index($0, k) > 0} p' "$out/k.ptx" |
        grep -cE '^\s+[a-z][a-z0-9_.]*(\s|;)' || true)
  printf "%-24s PTX instructions:  %4d\n" "$k" "$ptx"
done
for k in transpose_tile_algebra transpose_tile_by_hand; do
  body=$(awk -v k="$k" '/Function : /{p = index($0, k) > 0} p' "$out/k.sass")
  total=$(echo "$body" | grep -cE '^\s+/\*[0-9a-f]{4}\*/' || true)
  ldl=$(echo "$body" | grep -cE '\b(LDL|STL)\b' || true)
  lds=$(echo "$body" | grep -cE '\bLDS\b' || true)
  sts=$(echo "$body" | grep -cE '\bSTS\b' || true)
  alu=$(echo "$body" | grep -cE '\b(IMAD|IADD3|LOP3|SHF|LEA|ISETP|SEL|MOV)\b' || true)
  printf "%-24s SASS instructions: %4d  integer/address ops: %3d  LDS: %2d  STS: %2d  LDL/STL: %d\n" \
         "$k" "$total" "$alu" "$lds" "$sts" "$ldl"
done
rm -rf "$out"
