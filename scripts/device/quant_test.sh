#!/usr/bin/env bash
# scripts/device/quant_test.sh [gtest args] -- tests/kernel_fused/test_quantize linked against the quantisation kernels
# alone (the objects scripts/device/quant_ab.sh built in /tmp/q-new, or built here when absent): the tests of the
# working tree's kernels in about a minute, without the whole library.
set -uo pipefail
cd "$(dirname "$0")/../.."
F="-std=c++20 -O3 -DNDEBUG --generate-code=arch=compute_90a,code=[sm_90a]"
if [ ! -f /tmp/q-new/quantize.o ]; then
  mkdir -p /tmp/q-new
  for f in quantize quantize_bf16 quantize_f16 quantize_f32; do nvcc $F -Isrc -Iinclude -c src/$f.cu -o /tmp/q-new/$f.o & done; wait
fi
CU=/usr/local/cuda
g++ -std=c++20 -O3 -DNDEBUG -Itests -Itests/kernel_fused -I. -Iinclude -I$CU/include tests/kernel_fused/test_quantize.cpp \
  tests/kernel_fused/test_quantize_host.cpp /tmp/q-new/quantize.o /tmp/q-new/quantize_bf16.o /tmp/q-new/quantize_f16.o \
  /tmp/q-new/quantize_f32.o -L$CU/lib64 -lgtest -lgtest_main -lcudart -lpthread -o /tmp/q-new/test_quantize || exit 1
/tmp/q-new/test_quantize "$@"
