// include/tessera/kernel/fused/row_norm.hpp -- row-wise L2 / RMS normalisation kernels (one and two passes).
//
//   l2 : y[r,i] = x[r,i] * s,         s = 1 / sqrt(ss + eps)
//   rms: y[r,i] = x[r,i] * s * w[i],  s = 1 / sqrt(ss / cols + eps)       ss = sum_i x[r,i]^2 (fp32)
// Semantics (zero rows, eps, NaN/Inf) are specified in include/tessera/host/fused.hpp.
//
// The row window.  A row of `cols` elements of T starts at an address that need not be 16-byte
// aligned (rows of odd length, padded rows, offset views).  The kernels look at the row through the
// 16-byte vectors of the aligned grid that covers it:
//
//     aligned address at or below row[0]
//     |<- head ->|<------------------ cols ------------------>|
//     [ vec 0    ][ vec 1 ][ vec 2 ] ...              [ vec nvec-1 ]
//
// Vector v holds row elements [v*kVec - head, (v+1)*kVec - head).  Vectors wholly inside the row move
// with one 128-bit access; the (at most two) edge vectors move element by element, and the elements
// that lie outside the row are neither read nor written (they read as 0 into the sum of squares).  y
// (and the RMS weight) use 128-bit accesses where their misalignment equals x's, element accesses
// otherwise.  Thread t of a row takes vectors t, t + T, t + 2T, ... (T threads per row): a warp
// touches 512 contiguous bytes per instruction.
//
// Kernels (the host chooses, see src/fused_norm.cu):
//   row_norm_one_pass_kernel  a row lives in the registers of one warp or one CTA: load all of it
//                             (every load issued before the first use), reduce ss (warp shuffles, then
//                             one barrier across warps), scale, store.  Reads x once.
//   row_norm_partial_kernel   two_pass, pass 1: one CTA per (row, chunk) writes the chunk's ss into
//   row_norm_scale_kernel     a workspace; pass 2: one CTA per (row, chunk) loads its chunk, adds the
//                             row's partial sums (same order in every CTA, so one scale per row) and
//                             scales.  Reads x twice.
#pragma once

#include <cstdint>  // int64_t, uint32_t

#include "tessera/arch/ld_st.hpp"            // ld_global_v4_u32, st_global_v4_u32
#include "tessera/kernel/fused/numeric.hpp"  // Numeric<T>, misalignment_elems

namespace tessera::fused {

enum class NormKind : int { l2, rms };

template <class T>
struct RowNormArgs {
  const T* x;        // (rows, cols) row stride ld_x
  const T* w;        // (cols) rms only
  T* y;              // (rows, cols) row stride ld_y
  int64_t rows;
  int cols;
  int64_t ld_x;
  int64_t ld_y;
  float eps;
  float* partial;    // two_pass: (rows, chunks) row-major
  int chunks;        // two_pass: chunks per row
};

namespace kernel {

inline constexpr int kWarpSize = 32;

// Sum over the 32 lanes of a warp.  The xor butterfly gives every lane the bit-identical result
// (each step adds the same two values, in either order).
__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int m = kWarpSize / 2; m > 0; m /= 2) v += __shfl_xor_sync(0xffffffffu, v, m);
  return v;
}

template <NormKind kKind>
__device__ __forceinline__ float row_scale(float ss, int cols, float eps) {
  if constexpr (kKind == NormKind::l2) {
    return 1.0f / sqrtf(ss + eps);
  } else {
    return 1.0f / sqrtf(ss / static_cast<float>(cols) + eps);
  }
}

// A row of T seen through the 16-byte vectors of the aligned grid that covers it (header comment).
template <class T>
struct RowView {
  using Num = Numeric<T>;
  static constexpr int kVec = Num::kVec;
  static constexpr int kPerWord = kVec / 4;         // elements per 32-bit register
  static constexpr int kBits = 32 / kPerWord;       // bits per element

  const T* row;
  int head;  // elements between the aligned grid and row[0]
  int cols;

  __device__ __forceinline__ RowView(const T* r, int c) : row(r), head(misalignment_elems<T>(r)), cols(c) {}
  __device__ __forceinline__ int nvec() const { return (head + cols + kVec - 1) / kVec; }
  __device__ __forceinline__ int first_elem(int v) const { return v * kVec - head; }
  __device__ __forceinline__ bool full(int v) const {
    const int e0 = first_elem(v);
    return e0 >= 0 && e0 + kVec <= cols;
  }

  // Vector v (v < nvec) as raw registers; elements outside the row read as +0.
  __device__ __forceinline__ void load(int v, uint32_t (&r)[4]) const {
    const int e0 = first_elem(v);
    if (e0 >= 0 && e0 + kVec <= cols) {
      arch::ld_global_v4_u32(r, row + e0);
      return;
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) r[i] = 0u;
#pragma unroll
    for (int e = 0; e < kVec; ++e) {
      const int i = e0 + e;
      if (i >= 0 && i < cols) r[e / kPerWord] |= Num::bits(row[i]) << ((e % kPerWord) * kBits);
    }
  }
};

// Scales window vector v of a row (held in rX) by s (and the weight) and stores it to y_row.
// y_vec_ok / w_vec_ok: y_row / w share x's misalignment, so whole vectors can move in 128 bits.
template <class T, NormKind kKind>
__device__ __forceinline__ void scale_store(const RowView<T>& gX, int v, const uint32_t (&rX)[4], float s,
                                            const T* w, bool w_vec_ok, T* y_row, bool y_vec_ok) {
  using Num = Numeric<T>;
  constexpr int kVec = Num::kVec;
  const int e0 = gX.first_elem(v);
  const bool full = gX.full(v);
  float f[kVec];
  Num::unpack(rX, f);
#pragma unroll
  for (int e = 0; e < kVec; ++e) f[e] *= s;
  if constexpr (kKind == NormKind::rms) {
    float fw[kVec];
    if (full && w_vec_ok) {
      uint32_t rW[4];
      arch::ld_global_v4_u32(rW, w + e0);
      Num::unpack(rW, fw);
    } else {
#pragma unroll
      for (int e = 0; e < kVec; ++e) {
        const int i = e0 + e;
        fw[e] = (i >= 0 && i < gX.cols) ? Num::to_float(w[i]) : 0.0f;
      }
    }
#pragma unroll
    for (int e = 0; e < kVec; ++e) f[e] *= fw[e];
  }
  if (full && y_vec_ok) {
    uint32_t rY[4];
    Num::pack(f, rY);
    arch::st_global_v4_u32(y_row + e0, rY);
  } else {
#pragma unroll
    for (int e = 0; e < kVec; ++e) {
      const int i = e0 + e;
      if (i >= 0 && i < gX.cols) y_row[i] = Num::from_float(f[e]);
    }
  }
}

// Sum of squares of a raw vector, added to ss.
template <class T>
__device__ __forceinline__ float add_squares(const uint32_t (&r)[4], float ss) {
  float f[Numeric<T>::kVec];
  Numeric<T>::unpack(r, f);
#pragma unroll
  for (int e = 0; e < Numeric<T>::kVec; ++e) ss = fmaf(f[e], f[e], ss);
  return ss;
}

// ---------------------------------------------------------------------------------------------
// One pass: the row in registers.
// ---------------------------------------------------------------------------------------------
// NOTES: __launch_bounds__ asks for 1024 / threads CTAs per SM, that is at most 64 registers per thread:
// enough for the 32 data registers, and it steers ptxas away from a spill it otherwise makes for one
// 16-bit variant.
template <class T, NormKind kKind, int kThreadsPerRow, int kRowsPerCta, int kVecs>
__global__ void __launch_bounds__(kThreadsPerRow * kRowsPerCta, 1024 / (kThreadsPerRow * kRowsPerCta))
    row_norm_one_pass_kernel(const RowNormArgs<T> p) {
  // Preconditions.
  static_assert(kThreadsPerRow % kWarpSize == 0, "row_norm_one_pass_kernel: a row is shared by whole warps");
  static_assert(kRowsPerCta == 1 || kThreadsPerRow == kWarpSize,
                "row_norm_one_pass_kernel: several rows per CTA only with one warp per row (no barrier then)");
  static_assert(kThreadsPerRow * kRowsPerCta <= 1024, "row_norm_one_pass_kernel: at most 1024 threads per CTA");
  constexpr int kWarpsPerRow = kThreadsPerRow / kWarpSize;

  const int t = threadIdx.x % kThreadsPerRow;  // thread within the row
  const int64_t row = int64_t(blockIdx.x) * kRowsPerCta + threadIdx.x / kThreadsPerRow;
  // Only the warp-per-row kernel can have rows past the end; it has no barrier, so whole warps leave.
  if (row >= p.rows) return;

  const RowView<T> gX(p.x + row * p.ld_x, p.cols);  // (cols)
  T* gY = p.y + row * p.ld_y;                       // (cols)
  const int nvec = gX.nvec();                       // <= kThreadsPerRow * kVecs (host checks)

  // 1. Load the whole row: every load is issued before the first use.
  uint32_t rX[kVecs][4];  // (VECS, 4 words) this thread's vectors t + j*kThreadsPerRow
#pragma unroll
  for (int j = 0; j < kVecs; ++j) {
    const int v = t + j * kThreadsPerRow;
    if (v < nvec) {
      gX.load(v, rX[j]);
    } else {
#pragma unroll
      for (int i = 0; i < 4; ++i) rX[j][i] = 0u;
    }
  }

  // 2. Sum of squares: per thread, per warp (shuffles), per row (shared memory, one barrier).
  float ss = 0.0f;
#pragma unroll
  for (int j = 0; j < kVecs; ++j) ss = add_squares<T>(rX[j], ss);
  ss = warp_sum(ss);
  if constexpr (kWarpsPerRow > 1) {
    __shared__ float s_warp_ss[kWarpsPerRow];  // (WARPS)
    const int warp = t / kWarpSize;
    if (t % kWarpSize == 0) s_warp_ss[warp] = ss;
    __syncthreads();
    // NOTES: every thread adds the partial sums in the same order, so all get the same ss; no
    // second barrier is needed because each CTA handles one row and never reuses s_warp_ss.
    ss = 0.0f;
#pragma unroll
    for (int w = 0; w < kWarpsPerRow; ++w) ss += s_warp_ss[w];
  }

  // 3. Scale and store.
  const float s = row_scale<kKind>(ss, p.cols, p.eps);
  const bool y_vec_ok = misalignment_elems<T>(gY) == gX.head;
  const bool w_vec_ok = kKind == NormKind::rms && misalignment_elems<T>(p.w) == gX.head;
#pragma unroll
  for (int j = 0; j < kVecs; ++j) {
    const int v = t + j * kThreadsPerRow;
    if (v < nvec) scale_store<T, kKind>(gX, v, rX[j], s, p.w, w_vec_ok, gY, y_vec_ok);
  }
}

// ---------------------------------------------------------------------------------------------
// Two passes: rows split into chunks of kThreads * kVecs vectors; grid = rows * chunks CTAs.
// ---------------------------------------------------------------------------------------------
inline constexpr int kChunkThreads = 256;
// Vectors per thread in a chunk: 8 for fp32, 4 for 16-bit types, so a chunk is 8192 elements of any T
// and a thread's registers hold 32 elements (no spills at the 16-bit types).
template <class T>
inline constexpr int kChunkVecs = 32 / Numeric<T>::kVec;

// Loads the chunk's vectors of this thread (zeros past the row end).
template <class T, int kThreads, int kVecs>
__device__ __forceinline__ void load_chunk(const RowView<T>& gX, int chunk, uint32_t (&rX)[kVecs][4]) {
  const int nvec = gX.nvec();
  const int v0 = chunk * kThreads * kVecs + static_cast<int>(threadIdx.x);
#pragma unroll
  for (int j = 0; j < kVecs; ++j) {
    const int v = v0 + j * kThreads;
    if (v < nvec) {
      gX.load(v, rX[j]);
    } else {
#pragma unroll
      for (int i = 0; i < 4; ++i) rX[j][i] = 0u;
    }
  }
}

template <class T, int kThreads, int kVecs>
__global__ void __launch_bounds__(kThreads) row_norm_partial_kernel(const RowNormArgs<T> p) {
  static_assert(kThreads % kWarpSize == 0 && kThreads <= 1024, "row_norm_partial_kernel: whole warps, <= 1024 threads");
  constexpr int kWarps = kThreads / kWarpSize;
  const int64_t row = blockIdx.x / p.chunks;
  const int chunk = static_cast<int>(blockIdx.x % p.chunks);
  const RowView<T> gX(p.x + row * p.ld_x, p.cols);  // (cols)

  uint32_t rX[kVecs][4];  // (VECS, 4 words)
  load_chunk<T, kThreads, kVecs>(gX, chunk, rX);
  float ss = 0.0f;
#pragma unroll
  for (int j = 0; j < kVecs; ++j) ss = add_squares<T>(rX[j], ss);
  ss = warp_sum(ss);

  __shared__ float s_warp_ss[kWarps];  // (WARPS)
  if (threadIdx.x % kWarpSize == 0) s_warp_ss[threadIdx.x / kWarpSize] = ss;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.0f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) total += s_warp_ss[w];
    p.partial[row * p.chunks + chunk] = total;
  }
}

template <class T, NormKind kKind, int kThreads, int kVecs>
__global__ void __launch_bounds__(kThreads) row_norm_scale_kernel(const RowNormArgs<T> p) {
  static_assert(kThreads % kWarpSize == 0 && kThreads <= 1024, "row_norm_scale_kernel: whole warps, <= 1024 threads");
  const int64_t row = blockIdx.x / p.chunks;
  const int chunk = static_cast<int>(blockIdx.x % p.chunks);
  const RowView<T> gX(p.x + row * p.ld_x, p.cols);  // (cols)
  T* gY = p.y + row * p.ld_y;                       // (cols)

  // Issue the chunk's loads first; they are in flight while the partial sums are added.
  uint32_t rX[kVecs][4];  // (VECS, 4 words)
  load_chunk<T, kThreads, kVecs>(gX, chunk, rX);

  // Row total: each warp adds the row's partials lane-strided, then shuffles.  The order is the same
  // in every warp of every CTA of the row, so the whole row gets one scale.
  const float* gPartial = p.partial + row * p.chunks;  // (chunks)
  const int lane = threadIdx.x % kWarpSize;
  float ss = 0.0f;
  #pragma unroll 1
  for (int c = lane; c < p.chunks; c += kWarpSize) ss += gPartial[c];
  ss = warp_sum(ss);

  const float s = row_scale<kKind>(ss, p.cols, p.eps);
  const bool y_vec_ok = misalignment_elems<T>(gY) == gX.head;
  const bool w_vec_ok = kKind == NormKind::rms && misalignment_elems<T>(p.w) == gX.head;
  const int nvec = gX.nvec();
  const int v0 = chunk * kThreads * kVecs + static_cast<int>(threadIdx.x);
#pragma unroll
  for (int j = 0; j < kVecs; ++j) {
    const int v = v0 + j * kThreads;
    if (v < nvec) scale_store<T, kKind>(gX, v, rX[j], s, p.w, w_vec_ok, gY, y_vec_ok);
  }
}

}  // namespace kernel
}  // namespace tessera::fused
