// include/tessera/kernel/gemm_sm80/gemm_dp4a.hpp -- the INT8 GEMM on CUDA cores: s8 x s8 -> s32 with the dp4a
// instruction, then dequantised to fp32 and handed to the same fused epilogue and split-K as every other GEMM kernel.
//
// Why it exists: the tensor-core INT8 path (the persistent Hopper kernel, ElemS8) is sm_90a code; this kernel is the
// portable INT8 GEMM (any compute capability >= 8.0 the build compiles for) and the baseline the tensor-core path is
// measured against.  GemmMath::dp4a forces it; GemmMath::automatic takes it for s8 operands wherever the Hopper s8
// kernel does not run (src/gemm_plan.cu).
//
// What it computes (the INT8 tensor-core path's semantics, op for op):
//   S(i, j)  = sum_k A(i, k) B(k, j)                         exact, in s32 (__dp4a, PTX `dp4a.s32.s32`: four s8 x s8
//                                                            products and the accumulator summed into s32 per instruction)
//   acc      = float(S) * (scale_a * scale_b)                per-tensor scales (null: 1), before split-K partials are added
//   acc      = acc * (scale_a[i] * scale_b[j])               channel scales (GemmScale::channel), after the split-K sum
//   D        = epilogue(acc): alpha, beta C, bias, activation, residual, D's type and order (StagedEpilogue)
// float(S) is exact while |S| <= 2^24 (always for K <= 1040: 127 x 127 x 1040 < 2^24), rounded to nearest above.  S itself
// is exact while it fits s32, which holds for any K <= 131,072 (each product at most 2^14 in magnitude); beyond that
// the s32 sum wraps, as the tensor cores' s32 accumulator does.
//
// Block tile 128 x 128, K tile kBK = 64 bytes (64 s8 = 16 k-groups of 4 bytes), 256 threads.  Each thread owns an 8 x 8
// micro-tile of s32 accumulators made of 2 x 2 blocks of 4 x 4, as the fp32 FFMA kernel (gemm_simt.hpp) does:
//   rows ty*4 + [0,4) and 64 + ty*4 + [0,4), columns tx*4 + [0,4) and 64 + tx*4 + [0,4)   (tx = t % 16, ty = t / 16)
// Shared tiles hold packed k-groups, K-group outer: sA[g][m] is the 32-bit word A(m, 4g .. 4g+3), sB[g][n] likewise, so
// that one 16-byte load gives a thread the same k-group of 4 consecutive rows.  Per k-group a thread reads 2 int4 of A
// and 2 of B (a warp: two broadcast addresses of A, 16 distinct int4 of B = 256 contiguous bytes, the minimum two
// shared-memory wavefronts) and issues 64 __dp4a: 16 dp4a per 16-byte shared load.
//
// Global -> shared: cp.async of 4-byte words, which transpose the K-major rows into k-groups on the way in (no
// registers hold a K tile in flight), in a ring of kStages = 3 K tiles with one barrier per K tile.  Load slots: warp w,
// lane l takes row w*16 + l%16 and the 16-byte chunks c = 2i + l/16 (i = 0, 1) of that row's 64 bytes, each chunk as
// four word copies: a warp instruction reads one word of each of 32 lanes -- within 32 contiguous bytes of 16 rows,
// which the next three instructions read on (cp.async.ca: through L1) -- and writes sX[4c + j][row], banks
// (16c + 4j + row) mod 32 with the row pitch kLd = 132 words: 32 distinct banks.
// (A first version loaded 16-byte vectors into registers before the multiplications and stored them after, as the fp32
// kernel does: 16 more live registers, and ptxas spilled 48 bytes at the 128 registers of two blocks per SM.)
// Residues: a K tile inside the matrix takes plain word copies.  At the edges each copy reads only the bytes of its
// word that lie inside K and zero-fills the rest (cp.async's src-size), and a row past M (N) reads nothing and fills
// zeros: nothing outside A and B is read (not even a row's padding past K), and the zero k-groups add 0 to the sums.
// (Validation requires 16-byte aligned bases and leading dimensions for 8-bit operands, so every word is aligned.)
//
// Split-K: supported as in the fp32 kernel -- gridDim.z splits the K tiles, each split's fp32 partial (its s32 sum
// converted and scaled by the per-tensor scales) goes through the workspace, and the last block adds them in split
// order (deterministic).  Partial sums are then no longer integers summed exactly: each split's float(S) is exact below
// 2^24, and their fp32 sum rounds like any fp32 sum of `splits` terms.
#pragma once

#include <cuda_runtime.h>  // __global__, int4, __dp4a

#include <cstdint>  // int64_t, int8_t

#include "tessera/arch/sm80_cp_async.hpp"                // cp_async_ca_zfill, cp_async_commit, cp_async_wait
#include "tessera/kernel/epilogue/staged_epilogue.hpp"  // StagedEpilogue
#include "tessera/kernel/gemm_sm80/config.hpp"          // Params, grouped_tile, finish_tile's conventions

namespace tessera::gemm_sm80 {

struct GemmDp4a {
  static constexpr int kBM = 128, kBN = 128, kThreads = 256;
  static constexpr int kBK = 64;            // bytes (= s8 elements) of K per K tile
  static constexpr int kGroups = kBK / 4;   // packed 4-byte k-groups per K tile
  static constexpr int kLd = kBM + 4;       // 32-bit words per shared row sX[g][:] (the bank spread above)
  static constexpr int kChunks = kBK / 16;  // 16-byte chunks per row of a K tile
  static constexpr int kStages = 3;         // K tiles in flight (cp.async ring)
  using Epi = epilogue::StagedEpilogue<kBM, kBN, kThreads>;

  // Preconditions of the mappings above.
  static_assert(kBM == kBN, "gemm_dp4a: A and B share one load mapping and one micro-tile shape; the tile must be square");
  static_assert(kBM == 128 && kThreads == 256,
                "gemm_dp4a: the 8 x 8 micro-tile of 2 x 2 blocks of 4 x 4 covers 128 x 128 with 16 x 16 threads");
  static_assert(kChunks == 4 && (kThreads / 32) * 16 == kBM,
                "gemm_dp4a: each warp loads 16 rows x 2 chunk pairs of a 64-byte K tile (2 chunks per thread per operand)");
  static_assert(kLd % 4 == 0 && (4 * kLd) % 32 == 16,
                "gemm_dp4a: the row pitch must keep rows 16-byte aligned and put chunk pairs 16 banks apart");

  // Shared memory: the ring of operand tiles while the main loop runs, the epilogue's staging tile after it.
  struct SharedStorage {
    union {
      struct {
        int32_t a[kStages][kGroups][kLd];  // (stage, k-group, m): four s8 of A(m, 4g .. 4g+3)
        int32_t b[kStages][kGroups][kLd];  // (stage, k-group, n): four s8 of B(4g .. 4g+3, n)
      } pipe;
      float stage[Epi::kSmemFloats];  // the staged fp32 tile (StagedEpilogue)
    };
  };
  static constexpr int kSmemBytes = static_cast<int>(sizeof(SharedStorage));
  static_assert(sizeof(SharedStorage::pipe) <= sizeof(float) * Epi::kSmemFloats,
                "gemm_dp4a: the stage ring should fit in the epilogue's staging tile (it then costs no shared memory)");

#if defined(__CUDACC__)
  // Copies this thread's share of one operand's K tile kt into `dst` (one stage): row `r` of the block tile (global row
  // `row`, inside the matrix when `in`), chunks c = 2i + lane/16, each chunk as four 4-byte cp.async into k-groups
  // 4c .. 4c+3 (the transposition into packed k-groups happens on the way in).  Each copy reads only the bytes of
  // its word that lie inside K (cp.async's src-size; the rest of the word is zero-filled), and nothing for a row past
  // the matrix: nothing outside A and B is read, not even the row padding past K.
  __device__ __forceinline__ static void load_tile(const int8_t* row, bool in, int32_t (&dst)[kGroups][kLd], int r, int kt,
                                                   int k) {
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const int64_t k0 = static_cast<int64_t>(kt) * kBK;  // (64-bit: K may reach 2^31 - 1)
    if (in && k0 + kBK <= k) {  // the whole K tile inside the matrix: whole words, no arithmetic per copy
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const int c = 2 * i + lane / 16;
#pragma unroll
        for (int j = 0; j < 4; ++j) arch::cp_async_ca_4(&dst[4 * c + j][r], row + k0 + c * 16 + 4 * j);
      }
      return;
    }
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int c = 2 * i + lane / 16;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int64_t w = k0 + c * 16 + 4 * j;  // the word's first byte along K
        const int64_t left = in ? k - w : 0;     // bytes of the word inside the matrix
        const uint32_t bytes = left <= 0 ? 0u : left >= 4 ? 4u : static_cast<uint32_t>(left);
        arch::cp_async_ca_zfill<4>(&dst[4 * c + j][r], bytes ? row + w : row, bytes);
      }
    }
  }

  // The channel-scale factor of element (m, n) of the problem (1 without channel scales), as the Hopper kernels form it
  // (fp8_channel_scale): scale_a[m] * scale_b[n].
  __device__ __forceinline__ static float channel_factor(const Params& p, int m, int n) {
    float f = 1.f;
    if (p.scale_a_rows) f *= __ldg(p.scale_a + m);
    if (p.scale_b_cols) f *= __ldg(p.scale_b + n);
    return f;
  }

  __device__ static void run(const Params& p) {
    extern __shared__ __align__(128) unsigned char smem_raw[];
    SharedStorage& sh = *reinterpret_cast<SharedStorage*>(smem_raw);

    // ---- setup: the block's tile, its K range, this thread's load slots and micro-tile ----
    int tm, tn;
    grouped_tile(static_cast<int>(blockIdx.x), p.tiles_m, p.tiles_n, p.group_m, tm, tn);
    const int m0 = tm * kBM, n0 = tn * kBN;
    const int split = static_cast<int>(blockIdx.z);
    const int k_tiles = static_cast<int>((static_cast<int64_t>(p.k) + kBK - 1) / kBK);  // (64-bit: K may be 2^31 - 1)
    const int kt0 = static_cast<int>(static_cast<int64_t>(split) * k_tiles / p.splits);
    const int nk = static_cast<int>(static_cast<int64_t>(split + 1) * k_tiles / p.splits) - kt0;
    const int t = static_cast<int>(threadIdx.x);
    const int lr = (t / 32) * 16 + t % 16;  // this thread's load row of the tile (A's row m0 + lr, B's column n0 + lr)
    const int tx = t % 16, ty = t / 16;     // micro-tile position

    const bool a_in = m0 + lr < p.m, b_in = n0 + lr < p.n;
    const int8_t* a_row = static_cast<const int8_t*>(p.a) + (a_in ? static_cast<int64_t>(m0 + lr) * p.lda : 0);
    const int8_t* b_row = static_cast<const int8_t*>(p.b) + (b_in ? static_cast<int64_t>(n0 + lr) * p.ldb : 0);
    auto load_stage = [&](int stage, int kt) {
      load_tile(a_row, a_in, sh.pipe.a[stage], lr, kt, p.k);
      load_tile(b_row, b_in, sh.pipe.b[stage], lr, kt, p.k);
    };

    // The per-tensor scales (the channel ones count 1 here), read now: their latency hides behind the main loop.
    const float scale_ab = (p.scale_a && !p.scale_a_rows ? __ldg(p.scale_a) : 1.f) *
                           (p.scale_b && !p.scale_b_cols ? __ldg(p.scale_b) : 1.f);

    int32_t acc[8][8];  // rows (ty*4 + [0,4), 64 + ty*4 + [0,4)) x cols (tx*4 + [0,4), 64 + tx*4 + [0,4))
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
      for (int j = 0; j < 8; ++j) acc[i][j] = 0;

    // ---- main loop: a ring of kStages K tiles in flight (cp.async groups, one per K tile, empty ones past the range) ----
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) {
      if (s < nk) load_stage(s, kt0 + s);
      arch::cp_async_commit();
    }
    int read_stage = 0, write_stage = kStages - 1;
    for (int kt = 0; kt < nk; ++kt) {
      arch::cp_async_wait<kStages - 2>();  // this thread's copies of K tile kt have landed ...
      __syncthreads();                     // ... everyone's; and every thread is done with K tile kt - 1's stage
      // The next K tile into the stage K tile kt - 1 used.
      if (kt + kStages - 1 < nk) load_stage(write_stage, kt0 + kt + kStages - 1);
      arch::cp_async_commit();
#pragma unroll
      for (int g = 0; g < kGroups; ++g) {
        const int4 a0 = *reinterpret_cast<const int4*>(&sh.pipe.a[read_stage][g][ty * 4]);
        const int4 a1 = *reinterpret_cast<const int4*>(&sh.pipe.a[read_stage][g][64 + ty * 4]);
        const int4 b0 = *reinterpret_cast<const int4*>(&sh.pipe.b[read_stage][g][tx * 4]);
        const int4 b1 = *reinterpret_cast<const int4*>(&sh.pipe.b[read_stage][g][64 + tx * 4]);
        const int a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
        const int b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
          for (int j = 0; j < 8; ++j) acc[i][j] = __dp4a(a[i], b[j], acc[i][j]);
      }
      read_stage = read_stage + 1 == kStages ? 0 : read_stage + 1;
      write_stage = write_stage + 1 == kStages ? 0 : write_stage + 1;
    }
    arch::cp_async_wait<0>();  // (only empty groups remain; nothing may land in the staging tile below)
    __syncthreads();           // every thread is done with the stages before the staging tile overwrites them

    // ---- dequantise: s32 -> fp32 (exact below 2^24), the scales; staged in D's order ----
    // Channel scales: here when K is not split (the same products, in the same order, as after a split-K sum); with
    // split-K after the partial tiles are added (below), as the Hopper kernels apply them.
    const bool channel_here = p.splits == 1 && (p.scale_a_rows || p.scale_b_cols);
    float fa[8], fb[8];  // the channel scales of this thread's rows and columns (1 without them, and past M, N: never stored)
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int r = m0 + (i < 4 ? 0 : 64) + ty * 4 + (i & 3), c = n0 + (i < 4 ? 0 : 64) + tx * 4 + (i & 3);
      fa[i] = channel_here && p.scale_a_rows && r < p.m ? __ldg(p.scale_a + r) : 1.f;
      fb[i] = channel_here && p.scale_b_cols && c < p.n ? __ldg(p.scale_b + c) : 1.f;
    }
    const bool rm = p.ep.d_row_major;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int r = (i < 4 ? 0 : 64) + ty * 4 + (i & 3);
#pragma unroll
      for (int j = 0; j < 8; j += 2) {
        const int c = (j < 4 ? 0 : 64) + tx * 4 + (j & 3);
        float v0 = static_cast<float>(acc[i][j]) * scale_ab, v1 = static_cast<float>(acc[i][j + 1]) * scale_ab;
        if (channel_here) {  // times f = scale_a[m] * scale_b[n], as the Hopper kernels form it (fp8_channel_scale)
          v0 *= fa[i] * fb[j];
          v1 *= fa[i] * fb[j + 1];
        }
        Epi::stage_pair(sh.stage, rm, r, c, v0, v1);
      }
    }
    __syncthreads();

    // ---- split-K reduction (the last block of the tile goes on), channel scales after it, the fused epilogue ----
    const int valid_m = p.m - m0 < kBM ? p.m - m0 : kBM, valid_n = p.n - n0 < kBN ? p.n - n0 : kBN;
    if (p.splits > 1) {
      if (!Epi::reduce_split_k(sh.stage, rm, p.partials, p.counters, tm * p.tiles_n + tn, split, p.splits, valid_m, valid_n))
        return;
      if (p.scale_a_rows || p.scale_b_cols) {
        for (int idx = t; idx < kBM * kBN; idx += kThreads) {
          const int o = idx / (rm ? kBN : kBM), in = idx % (rm ? kBN : kBM);
          const int m = rm ? o : in, n = rm ? in : o;
          if (m < valid_m && n < valid_n) sh.stage[Epi::offset(rm, m, n)] *= channel_factor(p, m0 + m, n0 + n);
        }
        __syncthreads();
      }
    }
    Epi::store(sh.stage, p.ep, m0, n0);
  }
#endif  // __CUDACC__
};

#if defined(__CUDACC__)
// Two blocks per SM: 128 registers a thread at most (64 accumulators, 16 operand words, the next k-group's, addresses).
__global__ void __launch_bounds__(GemmDp4a::kThreads, 2) gemm_dp4a_s8_kernel(const Params p) { GemmDp4a::run(p); }
#endif

}  // namespace tessera::gemm_sm80
