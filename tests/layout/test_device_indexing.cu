// tests/layout/test_device_indexing.cu -- a kernel indexes shared memory through a
// constexpr swizzled layout; its result equals the hand-indexed kernel's and the host's.
#include <gtest/gtest.h>

#include <random>  // std::mt19937
#include <vector>  // std::vector

#include "common/gpu.hpp"                  // TESSERA_REQUIRE_GPU, CUDA_OK
#include "layout/indexing_kernels.cuh"     // transpose_tile_algebra, transpose_tile_by_hand

TEST(LayoutDevice, SwizzledSharedMemoryTransposeThroughTheAlgebra) {
  TESSERA_REQUIRE_GPU();
  std::vector<float> in(64 * 64), out(64 * 64);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (auto& x : in) x = u(rng);
  float *d_in = nullptr, *d_out = nullptr;
  CUDA_OK(cudaMalloc(&d_in, in.size() * sizeof(float)));
  CUDA_OK(cudaMalloc(&d_out, out.size() * sizeof(float)));
  CUDA_OK(cudaMemcpy(d_in, in.data(), in.size() * sizeof(float), cudaMemcpyHostToDevice));
  for (int variant = 0; variant < 2; ++variant) {
    CUDA_OK(cudaMemset(d_out, 0xff, out.size() * sizeof(float)));  // poison (NaN)
    if (variant == 0)
      tessera::test::transpose_tile_algebra<<<1, dim3(32, 8)>>>(d_in, d_out);
    else
      tessera::test::transpose_tile_by_hand<<<1, dim3(32, 8)>>>(d_in, d_out);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (int r = 0; r < 64; ++r)
      for (int c = 0; c < 64; ++c)
        ASSERT_EQ(out[r * 64 + c], in[c * 64 + r]) << "variant " << variant << " at (" << r << "," << c << ")";
  }
  cudaFree(d_in);
  cudaFree(d_out);
}

TEST(LayoutDevice, SwizzleIsABijectionOnTheTile) {
  // host-side: the swizzled layout is a permutation of [0, 4096) (no two elements share a word)
  std::vector<int> seen(4096, 0);
  for (int r = 0; r < 64; ++r)
    for (int c = 0; c < 64; ++c) seen[tessera::static_swizzled_layout<tessera::test::kSmemTile>(r, c)]++;
  for (int i = 0; i < 4096; ++i) ASSERT_EQ(seen[i], 1) << i;
}
