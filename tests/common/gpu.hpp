// tests/common/gpu.hpp -- device-test helpers: skip without a GPU, check CUDA calls.
#pragma once

#include <cuda_runtime.h>  // cudaGetDeviceCount, cudaError_t
#include <gtest/gtest.h>   // GTEST_SKIP

namespace tessera::test {

// True when at least one CUDA device is usable.
inline bool gpu_available() {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) { (void)cudaGetLastError(); return false; }
  return n > 0;
}

// Compute capability as major*10+minor of device 0 (0 when none).
inline int gpu_sm() {
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return 0;
  return p.major * 10 + p.minor;
}

}  // namespace tessera::test

// Put first in every device test: reports the test as skipped (never passed) without a GPU.
#define TESSERA_REQUIRE_GPU()                                                  \
  do {                                                                         \
    if (!::tessera::test::gpu_available()) GTEST_SKIP() << "no CUDA GPU present"; \
  } while (0)

#define TESSERA_REQUIRE_SM(min_sm)                                             \
  do {                                                                         \
    TESSERA_REQUIRE_GPU();                                                     \
    if (::tessera::test::gpu_sm() < (min_sm))                                  \
      GTEST_SKIP() << "needs sm_" << (min_sm) << ", device is sm_" << ::tessera::test::gpu_sm(); \
  } while (0)

#define CUDA_OK(expr)                                                          \
  do {                                                                         \
    cudaError_t e_ = (expr);                                                   \
    ASSERT_EQ(e_, cudaSuccess) << #expr << ": " << cudaGetErrorString(e_);     \
  } while (0)
