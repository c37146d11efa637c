// include/tessera/kernel/gemm_sm80/gemm_simt.hpp -- the exact fp32 GEMM on CUDA cores (FFMA), with the
// same fused epilogue and split-K as the tensor-core kernels.
//
// Every product a(m,k) * b(k,n) is an fp32 fused multiply-add into an fp32 accumulator, k in increasing
// order within a split: the result is what a sequential fp32 dot product with FMA gives (the split-K
// partial sums are then added in split order).
//
// Block tile 128 x 128 x 8, 256 threads, each thread an 8 x 8 micro-tile made of 2 x 2 blocks of 4 x 4
// (rows ty*4 + [0,4) and 64 + ty*4 + [0,4), columns tx*4 + [0,4) and 64 + tx*4 + [0,4)), so that a warp's
// shared-memory reads are two broadcast float4 of A and 16 distinct float4 of B per k.
// Global -> shared goes through registers with element loads (any layout, any alignment, predicated),
// double-buffered: the next K tile is loaded into registers while the current one is multiplied.
// Shared tiles are stored K-outer: sA[k][m], sB[k][n] (+4 floats of padding per row).
#pragma once

#include <cuda_runtime.h>  // __global__

#include <cstdint>  // int64_t

#include "tessera/kernel/epilogue/staged_epilogue.hpp"  // StagedEpilogue
#include "tessera/kernel/gemm_sm80/config.hpp"          // Params, grouped_tile

namespace tessera::gemm_sm80 {

struct GemmSimt {
  static constexpr int kBM = 128, kBN = 128, kBK = 8, kThreads = 256;
  static constexpr int kLdA = kBM + 4, kLdB = kBN + 4;  // floats per shared row of sA[k][:], sB[k][:]
  static constexpr int kPipeFloats = 2 * kBK * (kLdA + kLdB);
  using Epi = epilogue::StagedEpilogue<kBM, kBN, kThreads>;
  static constexpr int kSmemBytes = kPipeFloats * 4 > Epi::kSmemBytes ? kPipeFloats * 4 : Epi::kSmemBytes;
  static constexpr int kLoads = kBM * kBK / kThreads;  // elements of A (and of B) per thread per K tile

  static_assert(kBM == kBN && kBM * kBK == 4 * kThreads, "the load mapping below assumes a 128x128x8 tile on 256 threads");

#if defined(__CUDACC__)
  // Element (r, kk) of an operand's tile for load slot i of this thread.  K-major operands: 8
  // consecutive threads read 8 consecutive k of one row; MN-major: consecutive threads, consecutive r.
  __device__ __forceinline__ static void slot(bool kmajor, int i, int& r, int& kk) {
    const int t = static_cast<int>(threadIdx.x);
    if (kmajor) { r = t / kBK + (kThreads / kBK) * i; kk = t % kBK; }
    else        { r = t % kBM; kk = t / kBM + (kThreads / kBM) * i; }
  }

  __device__ static void run(const Params& p) {
    extern __shared__ __align__(128) unsigned char smem_raw[];
    float* sA = reinterpret_cast<float*>(smem_raw);  // (2,BLK_K,BLK_M+4)
    float* sB = sA + 2 * kBK * kLdA;                 // (2,BLK_K,BLK_N+4)

    int tm, tn;
    grouped_tile(static_cast<int>(blockIdx.x), p.tiles_m, p.tiles_n, p.group_m, tm, tn);
    const int m0 = tm * kBM, n0 = tn * kBN;
    const int split = static_cast<int>(blockIdx.z);
    const int k_tiles = (p.k + kBK - 1) / kBK;
    const int kt0 = static_cast<int>(static_cast<int64_t>(split) * k_tiles / p.splits);
    const int nk = static_cast<int>(static_cast<int64_t>(split + 1) * k_tiles / p.splits) - kt0;
    const float* gA = static_cast<const float*>(p.a);
    const float* gB = static_cast<const float*>(p.b);
    const int tx = static_cast<int>(threadIdx.x) % 16, ty = static_cast<int>(threadIdx.x) / 16;

    float ra[kLoads], rb[kLoads];  // the next K tile, in flight through registers
    auto load_regs = [&](int kt) {
#pragma unroll
      for (int i = 0; i < kLoads; ++i) {
        int r, kk;
        slot(p.a_kmajor, i, r, kk);
        const int gm = m0 + r, gk = kt * kBK + kk;
        ra[i] = gm < p.m && gk < p.k ? gA[p.a_kmajor ? static_cast<int64_t>(gm) * p.lda + gk : static_cast<int64_t>(gk) * p.lda + gm] : 0.f;
        slot(p.b_kmajor, i, r, kk);
        const int gn = n0 + r, gk2 = kt * kBK + kk;
        rb[i] = gn < p.n && gk2 < p.k ? gB[p.b_kmajor ? static_cast<int64_t>(gn) * p.ldb + gk2 : static_cast<int64_t>(gk2) * p.ldb + gn] : 0.f;
      }
    };
    auto store_regs = [&](int buf) {
#pragma unroll
      for (int i = 0; i < kLoads; ++i) {
        int r, kk;
        slot(p.a_kmajor, i, r, kk);
        sA[(buf * kBK + kk) * kLdA + r] = ra[i];
        slot(p.b_kmajor, i, r, kk);
        sB[(buf * kBK + kk) * kLdB + r] = rb[i];
      }
    };

    float acc[8][8];  // rows (ty*4 + [0,4), 64 + ty*4 + [0,4)) x cols (tx*4 + [0,4), 64 + tx*4 + [0,4))
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
      for (int j = 0; j < 8; ++j) acc[i][j] = 0.f;

    load_regs(kt0);
    store_regs(0);
    __syncthreads();
    for (int kt = 0; kt < nk; ++kt) {
      const int buf = kt & 1;
      if (kt + 1 < nk) load_regs(kt0 + kt + 1);
#pragma unroll
      for (int kk = 0; kk < kBK; ++kk) {
        const float* a_row = sA + (buf * kBK + kk) * kLdA;
        const float* b_row = sB + (buf * kBK + kk) * kLdB;
        const float4 a0 = *reinterpret_cast<const float4*>(a_row + ty * 4);
        const float4 a1 = *reinterpret_cast<const float4*>(a_row + 64 + ty * 4);
        const float4 b0 = *reinterpret_cast<const float4*>(b_row + tx * 4);
        const float4 b1 = *reinterpret_cast<const float4*>(b_row + 64 + tx * 4);
        const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
        const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
          for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
      }
      // The other buffer was last read in K tile kt-1, before the barrier that ended it.
      if (kt + 1 < nk) store_regs(buf ^ 1);
      __syncthreads();
    }

    // ---- epilogue ----
    float* stage = reinterpret_cast<float*>(smem_raw);
    const bool rm = p.ep.d_row_major;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int r = (i < 4 ? 0 : 64) + ty * 4 + (i & 3);
#pragma unroll
      for (int j = 0; j < 8; j += 2) {
        const int c = (j < 4 ? 0 : 64) + tx * 4 + (j & 3);
        Epi::stage_pair(stage, rm, r, c, acc[i][j], acc[i][j + 1]);
      }
    }
    __syncthreads();
    gemm_sm80::finish_tile<Epi>(stage, p, tm, tn, split);
  }
#endif  // __CUDACC__
};

#if defined(__CUDACC__)
__global__ void __launch_bounds__(GemmSimt::kThreads, 1) gemm_simt_f32_kernel(const Params p) { GemmSimt::run(p); }
#endif

}  // namespace tessera::gemm_sm80
