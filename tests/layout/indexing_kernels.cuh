// tests/layout/indexing_kernels.cuh -- the same shared-memory transpose written twice:
// once indexing through compile-time (swizzled) layouts of the algebra, once with
// hand-written index arithmetic.  Used by the device test and by scripts/indexing_cost.sh,
// which compares their registers and instruction counts (docs/CONSTEXPR_INDEXING.md).
#pragma once

#include "tessera/layout.hpp"

namespace tessera::test {

// A 64x64 tile of floats in shared memory, row-major with a Swizzle<5,0,6> on the word
// offset: bits 6..10 (the row mod 32) are XORed into bits 0..4 (the bank), so both a row
// and a column of 32 words fall into 32 different banks.
constexpr Layout kTile = make_layout_row_major(make_tuple(64, 64));  // (64,64):(64,1)
constexpr SwizzledLayout kSmemTile = composition(Swizzle{5, 0, 6}, kTile);
// The thread block: 32x8 threads, each moving 8 rows of a column (column-major threads).
constexpr Layout kThreads = make_layout(make_tuple(32, 8));  // (32,8):(1,32)

// out = in^T for one 64x64 tile; in and out are row-major 64x64 in global memory.
__global__ void transpose_tile_algebra(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float smem[StaticSwizzledLayout<kSmemTile>::kSize];
  constexpr StaticSwizzledLayout<kSmemTile> sT{};  // (64,64) -> swizzled word offset
  constexpr StaticLayout<kTile> gT{};              // (64,64) -> global offset
  const int tx = threadIdx.x, ty = threadIdx.y;           // (32,8) threads
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    int r = ty + 8 * k;
    smem[sT(r, tx)] = in[gT(r, tx)];
    smem[sT(r, tx + 32)] = in[gT(r, tx + 32)];
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    int r = ty + 8 * k;
    out[gT(r, tx)] = smem[sT(tx, r)];
    out[gT(r, tx + 32)] = smem[sT(tx + 32, r)];
  }
}

__global__ void transpose_tile_by_hand(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float smem[64 * 64];
  const int tx = threadIdx.x, ty = threadIdx.y;
  auto sw = [](int o) { return o ^ ((o >> 6) & 31); };
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    int r = ty + 8 * k;
    smem[sw(r * 64 + tx)] = in[r * 64 + tx];
    smem[sw(r * 64 + tx + 32)] = in[r * 64 + tx + 32];
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    int r = ty + 8 * k;
    out[r * 64 + tx] = smem[sw(tx * 64 + r)];
    out[r * 64 + tx + 32] = smem[sw((tx + 32) * 64 + r)];
  }
}

}  // namespace tessera::test
