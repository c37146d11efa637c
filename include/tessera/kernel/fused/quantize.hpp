// include/tessera/kernel/fused/quantize.hpp -- quantisation kernels: bf16 / fp16 / fp32 -> e4m3 / e5m2 / s8 with
// scales computed in the same pass (per tensor, per row, per 1x128 or 128x128 block).
//
// The arithmetic -- the scale rule, the IEEE operations, the conversions, NaN and infinity -- is
// kernel/fused/quant_arith.hpp's (host and device run exactly those operations, so a host reference agrees bit
// for bit).
//
// Why bit patterns for amax: with the sign bit cleared, the unsigned integer order of IEEE bit patterns is the
// order of the magnitudes, with every NaN above +inf.  So |x| is one AND, the running max one integer max (two
// 16-bit lanes at once for bf16 / fp16: __vmaxu2), the warp's max one redux.sync, and a tensor's max one
// atomicMax on an unsigned int, and the result is exact in any order.
//
// Kernels (the host chooses, src/quantize.cu; the row window and its edge handling are row_norm.hpp's RowView):
//   quantize_rows_kernel     segments of a row in registers: one warp per row (8 rows per CTA) or one CTA of
//                            128 / 512 / 1024 threads per segment, every load issued before the first use.
//                            Passes: row (scale per row, the row is one segment), block_1x128 (16 lanes, or 32
//                            for fp32, hold one 128-element block in each of their vectors, reduce the blocks
//                            together and compute one block's scale per lane; rows 16-byte aligned), given
//                            (inverse scale known; optionally the tensor's amax by atomicMax + a last-CTA
//                            ticket) and amax (tensor pass 1: the tensor's amax and scale, nothing stored but
//                            those).  The given
//                            and amax passes run as many CTAs as fit on the GPU, each striding over segments
//                            with the next one's loads in flight while it works on the current one, and adding
//                            its amax once at the end; the others one CTA per segment.
//   quantize_row_loop_kernel per-row scales of rows too long for registers: one CTA per row reads it twice
//                            (the second read mostly from L2).
//   quantize_block128_kernel 128 x 128 blocks: one CTA per block holds its 128 rows x 128 columns in registers
//                            (8 vectors per thread), reduces, quantises from registers.  Rows 16-byte aligned.
//   quantize_blocks_scalar_kernel  block modes on rows that are not 16-byte aligned: one CTA per block,
//                            element accesses, the block read twice.  Correct for any alignment, not fast.
#pragma once

#include <cstdint>      // int64_t, uint32_t, uint8_t, uintptr_t
#include <type_traits>  // std::is_same_v

#include "tessera/dtype.hpp"                     // Dtype
#include "tessera/kernel/fused/numeric.hpp"      // Numeric<T>, misalignment_elems, kVectorBytes
#include "tessera/kernel/fused/quant_arith.hpp"  // quant_max, quant_scale, quant_mul, QuantOut, the s8 conversion
#include "tessera/layout/config.hpp"             // TESSERA_HD_INLINE

#if defined(__CUDACC__)
#include "tessera/arch/ld_st.hpp"             // st_global_u32, st_global_u64
#include "tessera/kernel/fused/row_norm.hpp"  // RowView, kWarpSize
#endif

namespace tessera::fused {

// How the scales are laid out (QuantizeArgs::mode, include/tessera/host/quantize.hpp).
enum class QuantScale : int { tensor = 0, tensor_given = 1, row = 2, block_1x128 = 3, block_128x128 = 4 };

#if defined(__CUDACC__)

namespace kernel {

// Running max of |x| over raw 16-byte vectors of T, on bit patterns (header comment).
template <class T>
struct AbsMax {
  uint32_t m = 0;  // 16-bit types: two lanes (low and high half), each the max of its half's |x| bits
  __device__ __forceinline__ void add(const uint32_t (&r)[4]) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      if constexpr (sizeof(T) == 4) m = max(m, r[i] & 0x7fffffffu);
      else m = __vmaxu2(m, r[i] & 0x7fff7fffu);
    }
  }
  __device__ __forceinline__ void merge(const AbsMax& o) {
    if constexpr (sizeof(T) == 4) m = max(m, o.m);
    else m = __vmaxu2(m, o.m);
  }
  // 16-bit types: the max as a 16-bit pattern of T (the two lanes folded).
  __device__ __forceinline__ uint32_t half_bits() const { return max(m & 0xffffu, m >> 16); }
  // A 16-bit pattern of T (sign clear) as the bit pattern of the same value in fp32.
  __device__ __forceinline__ static uint32_t float_bits_of_half(uint32_t h) {
    if constexpr (std::is_same_v<T, __nv_bfloat16>) return h << 16;
    else return __float_as_uint(__half2float(__ushort_as_half(static_cast<unsigned short>(h))));
  }
  // The max as the bit pattern of an fp32 value (NaN stays NaN, so the order is kept).
  __device__ __forceinline__ uint32_t float_bits() const {
    if constexpr (sizeof(T) == 4) return m;
    else return float_bits_of_half(half_bits());
  }
};

// Max over the warp (redux.sync: every lane gets it).
__device__ __forceinline__ uint32_t warp_max(uint32_t v) { return __reduce_max_sync(0xffffffffu, v); }

// Max over aligned groups of kLanes lanes (a power of two <= 32): xor shuffles stay inside the group.
template <int kLanes>
__device__ __forceinline__ uint32_t lane_group_max(uint32_t v) {
  static_assert(kLanes >= 1 && kLanes <= 32 && (kLanes & (kLanes - 1)) == 0, "lane_group_max: a power of two <= 32");
  if constexpr (kLanes == 32) {
    return warp_max(v);
  } else {
#pragma unroll
    for (int m = kLanes / 2; m > 0; m /= 2) v = max(v, __shfl_xor_sync(0xffffffffu, v, m));
    return v;
  }
}

// The same on two 16-bit lanes at once (two groups' values in one word: __vmaxu2).
template <int kLanes>
__device__ __forceinline__ uint32_t lane_group_max_u16x2(uint32_t v) {
  static_assert(kLanes >= 1 && kLanes <= 32 && (kLanes & (kLanes - 1)) == 0,
                "lane_group_max_u16x2: a power of two <= 32");
#pragma unroll
  for (int m = kLanes / 2; m > 0; m /= 2) v = __vmaxu2(v, __shfl_xor_sync(0xffffffffu, v, m));
  return v;
}

// Max over the CTA's warps: every thread gets it.  One barrier before reading the shared slots; `s_slot` must
// not be reused by the caller without another barrier.
template <int kWarps>
__device__ __forceinline__ uint32_t cta_max(uint32_t warp_value, uint32_t (&s_slot)[kWarps]) {
  if constexpr (kWarps == 1) {
    return warp_value;
  } else {
    if (threadIdx.x % kWarpSize == 0) s_slot[threadIdx.x / kWarpSize] = warp_value;
    __syncthreads();
    uint32_t m = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) m = max(m, s_slot[w]);
    return m;
  }
}

// Quantises window vector v of a row (held in rX) with factor inv and stores its kVec bytes into q_row.
// q_vec_ok: q_row + first_elem(v) is kVec-byte aligned for every v (one 8- or 4-byte store per vector).
// in_range (s8 only; FP8 ignores it): the vector's group passed quant_s8_group_in_range, so the conversion is the
// rounding addition alone.  The branch is uniform over a group (a row, a block) or per thread (given pass).
// kWhole: the caller knows the vector lies inside the row and q_vec_ok holds (the rows kernel's whole segments): one
// store, no tests.
template <class T, Dtype Q, bool kWhole = false>
__device__ __forceinline__ void quantize_store(const RowView<T>& gX, int v, const uint32_t (&rX)[4], float inv,
                                               uint8_t* q_row, bool q_vec_ok, bool in_range = false) {
  using Num = Numeric<T>;
  constexpr int kVec = Num::kVec;
  float f[kVec];
  Num::unpack(rX, f);
#pragma unroll
  for (int e = 0; e < kVec; ++e) f[e] = quant_mul(f[e], inv);
  uint32_t w[kVec / 4];  // (kVec bytes)
  if (Q == Dtype::s8 && in_range) {
#pragma unroll
    for (int i = 0; i < kVec / 4; ++i)
      w[i] = QuantOut<Q>::template pack4<true>(f[4 * i], f[4 * i + 1], f[4 * i + 2], f[4 * i + 3]);
  } else {
#pragma unroll
    for (int i = 0; i < kVec / 4; ++i) w[i] = QuantOut<Q>::pack4(f[4 * i], f[4 * i + 1], f[4 * i + 2], f[4 * i + 3]);
  }
  const int e0 = gX.first_elem(v);
  if (kWhole || (gX.full(v) && q_vec_ok)) {
    if constexpr (kVec == 8) arch::st_global_u64(q_row + e0, uint64_t(w[0]) | (uint64_t(w[1]) << 32));
    else arch::st_global_u32(q_row + e0, w[0]);
  } else {
#pragma unroll
    for (int e = 0; e < kVec; ++e) {
      const int i = e0 + e;
      if (i >= 0 && i < gX.cols) q_row[i] = static_cast<uint8_t>(w[e / 4] >> (8 * (e % 4)));
    }
  }
}

// What the kernels read and write (src/quantize.cu fills it).  The tensor workspace `ws` holds three unsigned
// ints: [0] the running amax bits (atomicMax), [1] the CTA ticket, [2] the amax bits that pass 1 found for pass 2.
// [0] and [1] are zero before a kernel that uses them and zero again after it (the last CTA resets them).
template <class T>
struct QuantizeParams {
  const T* x;        // (rows, cols) row stride ld_x
  uint8_t* q;        // (rows, cols) row stride ld_q, bytes of the quantised type
  int64_t rows;
  int cols;
  int64_t ld_x;
  int64_t ld_q;
  int chunks;        // rows kernel: segments per row
  int64_t segments;  // rows kernel: segments in all (warp per row: CTAs' worth of rows); CTAs stride over them
  bool reverse;      // rows kernel: walk the segments from the last (tensor pass 2: L2 still holds the end)
  float* scale;      // row / block modes: out, one per group; tensor: out [0]; tensor_given: in [0]
  float* amax;       // optional out, the scale's shape (nullptr: none)
  int64_t ld_scale;  // floats between block columns of the scale (block modes: (br, bc) at bc * ld_scale + br)
  uint32_t* ws;      // tensor modes (see above)
  bool inv_from_ws;  // given pass: the factor comes from ws[2]'s amax (tensor pass 2), not from 1 / scale[0]
};

enum class RowPass : int { row, block_1x128, given, amax };

// The tensor's amax: every CTA adds its max (atomicMax), the last one to take a ticket reads the total, resets the
// counters and writes the outputs.  Called by every thread of the CTA with the CTA's max (cta_max).
template <Dtype Q, bool kAmaxPass, class T>
__device__ __forceinline__ void tensor_amax_epilogue(const QuantizeParams<T>& p, uint32_t cta_bits) {
  if (threadIdx.x != 0) return;
  atomicMax(&p.ws[0], cta_bits);
  __threadfence();  // the max is visible before the ticket that counts it
  const unsigned ticket = atomicAdd(&p.ws[1], 1u);
  if (ticket != gridDim.x - 1) return;
  __threadfence();
  const uint32_t total = atomicExch(&p.ws[0], 0u);
  atomicExch(&p.ws[1], 0u);
  const float amax = __uint_as_float(total);
  if constexpr (kAmaxPass) {
    p.ws[2] = total;
    p.scale[0] = quant_scale(amax, QuantOut<Q>::kMax).scale;
  }
  if (p.amax) p.amax[0] = amax;
}

// ---------------------------------------------------------------------------------------------
// Rows in registers: one segment of a row per warp (kRowsPerCta rows per CTA) or per CTA.
// ---------------------------------------------------------------------------------------------
//
// NOTES: occupancy is what keeps bytes in flight.  A CTA's loads are all issued at once, and then it reduces,
// quantises and stores with nothing in flight; the SM stays busy through the CTAs resident beside it.  Bandwidth x
// latency is about 4.2 TB/s x 0.7-1.4 us / 132 SMs = 22-45 KB per SM.  The launch bound asks for 1536 threads per
// SM, which caps registers at 40 for the 128-, 256- and 512-thread CTAs (no spills; 2 / 4 vectors of data, the rest
// addresses and conversions): 12 CTAs of a 4096-wide bf16 row (96 KB) or 3 of a 14336-wide one (84 KB) per SM, where
// the 64 registers of a bound of 1024 threads gave 8 (64 KB) or 2 (56 KB, the 14336-wide row mode at 0.82 of copy).
inline constexpr int kRowsKernelThreadsPerSm = 1536;

// The passes whose CTAs stride over the segments (given, amax) hold two segments of up to 4 vectors a thread (the
// next one's loads in flight while this one is worked on) and are bound at 1024 threads per SM: 64 registers, no
// spills.  (8 vectors twice over would not fit: that configuration keeps one segment.)
template <RowPass kPass, int kVecs>
inline constexpr bool kRowsPrefetch = (kPass == RowPass::given || kPass == RowPass::amax) && kVecs <= 4;
// The row pass in CTAs of 512 threads (rows of 4097-16384 16-bit elements, one CTA a row) is bound at 2048 threads
// per SM: four rows in flight instead of three (a 14336-wide bf16 row: 112 KB an SM instead of 84), at 32 registers
// (no spills: the pass computes no segment division), 1-3% faster there; the same bound on the 128-thread row and
// 1 x 128 CTAs spilled and ran 2-25% slower (docs/PERF.md, forty-fifth section).
// The 1 x 128 pass's 256 x 8 configuration (src/quantize_launch.hpp, kQuantBlockWideConfig) is bound at 1024: 64
// registers, four 256-thread CTAs an SM.
template <RowPass kPass, int kThreads, int kVecs>
inline constexpr int kRowsKernelThreadsPerSmFor = kRowsPrefetch<kPass, kVecs>                         ? 1024
                                                  : kPass == RowPass::row && kThreads == 512         ? 2048
                                                  : kPass == RowPass::block_1x128 && kThreads == 256 ? 1024
                                                                                                      : kRowsKernelThreadsPerSm;

template <class T, Dtype Q, RowPass kPass, int kThreadsPerRow, int kRowsPerCta, int kVecs>
__global__ void __launch_bounds__(kThreadsPerRow * kRowsPerCta,
                                  kRowsKernelThreadsPerSmFor<kPass, kThreadsPerRow * kRowsPerCta, kVecs> /
                                      (kThreadsPerRow * kRowsPerCta))
    quantize_rows_kernel(const QuantizeParams<T> p) {
  using Num = Numeric<T>;
  constexpr bool kPrefetch = kRowsPrefetch<kPass, kVecs>;
  constexpr int kVec = Num::kVec;
  constexpr int kThreads = kThreadsPerRow * kRowsPerCta;
  constexpr int kWarpsPerRow = kThreadsPerRow / kWarpSize;
  constexpr int kBlockLanes = 128 / kVec;  // lanes that hold one 1x128 block (one vector each)
  // Preconditions.
  static_assert(kThreadsPerRow % kWarpSize == 0, "quantize_rows_kernel: a row is shared by whole warps");
  static_assert(kRowsPerCta == 1 || kThreadsPerRow == kWarpSize,
                "quantize_rows_kernel: several rows per CTA only with one warp per row");
  static_assert(kThreads <= 1024, "quantize_rows_kernel: at most 1024 threads per CTA");
  static_assert(kBlockLanes <= kWarpSize && kWarpSize % kBlockLanes == 0,
                "quantize_rows_kernel: a 1x128 block is a power-of-two group of lanes within a warp");
  static_assert(kPass != RowPass::block_1x128 || (kVecs <= kBlockLanes && (sizeof(T) == 4 || kVecs % 2 == 0)),
                "quantize_rows_kernel: block_1x128 scales one block per lane of a group (kVecs <= kBlockLanes) and "
                "reduces 16-bit blocks in pairs (kVecs even)");

  constexpr bool kWholeSegments = kVecs <= 4;
  const int t = threadIdx.x % kThreadsPerRow;  // thread within the row
  __shared__ uint32_t s_warp_max[kThreads / kWarpSize];  // (WARPS)
  AbsMax<T> m_all;  // given / amax passes: |x| over every segment this thread loads

  // The factor of the given pass: the same for every segment.
  float given_inv = 1.0f;
  if constexpr (kPass == RowPass::given)
    given_inv = p.inv_from_ws ? quant_scale(__uint_as_float(p.ws[2]), QuantOut<Q>::kMax).inv : quant_div(1.0f, p.scale[0]);

  // Which segment: (row, chunk).  Rows past the end (warp-per-row CTAs only) load nothing, store nothing, and
  // still take part in the CTA's barriers.
  // whole: every vector of the segment lies inside the row, x's rows start on the vector grid and q's vectors are
  // aligned for one store each -- the loads and stores then go without per-vector tests (about a sixth of the
  // instructions a warp issues in the 1 x 128 pass, whose issue slots were 75% busy; docs/PERF.md, forty-fifth
  // section).  The same for every thread of a segment (its last vector is the row's furthest).  Not in the 8-vector
  // configuration, where the second copy of the stores spilled (s8, 1 x 128: 30 bytes).
  struct Segment {
    int64_t row;
    RowView<T> gX;  // (cols)
    uint8_t* gQ;    // (cols)
    int nvec, v0;
    bool active, whole;
  };
  auto segment_at = [&](int64_t it) {
    const int64_t seg = p.reverse ? p.segments - 1 - it : it;
    int64_t row;
    int chunk;
    if constexpr (kRowsPerCta > 1) {
      row = seg * kRowsPerCta + threadIdx.x / kThreadsPerRow;
      chunk = 0;
    } else if (kPass == RowPass::row || p.chunks == 1) {  // (the row pass: always; a 64-bit division costs a warp
                                                          // about 30 instructions)
      row = seg;
      chunk = 0;
    } else {
      row = seg / p.chunks;
      chunk = static_cast<int>(seg % p.chunks);
    }
    const bool active = row < p.rows;
    const RowView<T> gX(p.x + (active ? row : 0) * p.ld_x, p.cols);
    uint8_t* gQ = p.q + (active ? row : 0) * p.ld_q;
    const int end_vec = (chunk + 1) * kThreadsPerRow * kVecs;  // one past the segment's last vector
    const bool whole = kWholeSegments && active && gX.head == 0 && int64_t(end_vec) * kVec <= p.cols &&
                       reinterpret_cast<uintptr_t>(gQ) % kVec == 0;
    return Segment{row, gX, gQ, active ? gX.nvec() : 0, chunk * kThreadsPerRow * kVecs + t, active, whole};
  };
  // Every load of a segment issued before the first use: vectors v0 + j*kThreadsPerRow.
  auto load_segment = [&](const Segment& sg, uint32_t (&r)[kVecs][4]) {
    if (sg.whole) {
#pragma unroll
      for (int j = 0; j < kVecs; ++j) arch::ld_global_v4_u32(r[j], sg.gX.row + (sg.v0 + j * kThreadsPerRow) * kVec);
      return;
    }
#pragma unroll
    for (int j = 0; j < kVecs; ++j) {
      const int v = sg.v0 + j * kThreadsPerRow;
      if (v < sg.nvec) {
        sg.gX.load(v, r[j]);
      } else {
#pragma unroll
        for (int i = 0; i < 4; ++i) r[j][i] = 0u;
      }
    }
  };

  // 1. Load the segment, every load issued before the first use.  The striding passes with kPrefetch load their
  // first segment here and each next one before working on the current, so each CTA keeps a segment in flight while
  // it reduces, converts and stores (header NOTES); the others load each segment at the top of its iteration.
  uint32_t rX[kVecs][4];                   // (VECS, 4 words) this segment
  [[maybe_unused]] uint32_t rN[kVecs][4];  // (VECS, 4 words) the next segment (kPrefetch)
  Segment sg = segment_at(blockIdx.x < p.segments ? blockIdx.x : 0);
  if constexpr (kPrefetch) {
    if (blockIdx.x < p.segments) load_segment(sg, rX);
  }
  for (int64_t it = blockIdx.x; it < p.segments; it += gridDim.x) {
    [[maybe_unused]] Segment next = sg;
    if constexpr (kPrefetch) {
      if (it + gridDim.x < p.segments) {
        next = segment_at(it + gridDim.x);
        load_segment(next, rN);
      }
    } else {
      sg = segment_at(it);
      load_segment(sg, rX);
    }
    const int64_t row = sg.row;
    const bool active = sg.active;
    const RowView<T>& gX = sg.gX;
    uint8_t* gQ = sg.gQ;
    const int nvec = sg.nvec;
    const int v0 = sg.v0;
    const bool q_vec_ok = ((reinterpret_cast<uintptr_t>(gQ) - uintptr_t(gX.head)) % kVec) == 0;

    if constexpr (kPass == RowPass::block_1x128) {
      // 2a. One scale per 1x128 block: vector v belongs to block v / kBlockLanes (rows are 16-byte aligned), so
      // each aligned group of kBlockLanes lanes holds kVecs whole blocks, block j in its vectors j.
      // NOTES: the reductions of the kVecs blocks are independent, so their shuffles overlap (16-bit types reduce
      // two blocks per shuffle, as two 16-bit patterns in one word), and each lane computes one block's scale
      // (two IEEE divisions, each with a branch to a slow path) instead of every block's, then takes the others'
      // factors from the lanes that computed them.  A block's steps were serial before: its shuffles, then its
      // divisions, then its stores, kVecs times over, while the CTA's loads had all returned.
      uint32_t bits[kVecs];  // (VECS) block j's amax as fp32 bits
      if constexpr (sizeof(T) == 2) {
#pragma unroll
        for (int j = 0; j < kVecs; j += 2) {
          AbsMax<T> m0, m1;
          m0.add(rX[j]);
          m1.add(rX[j + 1]);
          const uint32_t pair = lane_group_max_u16x2<kBlockLanes>(m0.half_bits() | (m1.half_bits() << 16));
          bits[j] = AbsMax<T>::float_bits_of_half(pair & 0xffffu);
          bits[j + 1] = AbsMax<T>::float_bits_of_half(pair >> 16);
        }
      } else {
#pragma unroll
        for (int j = 0; j < kVecs; ++j) {
          AbsMax<T> m;
          m.add(rX[j]);
          bits[j] = lane_group_max<kBlockLanes>(m.float_bits());
        }
      }

      // 3a. Lane g of a group computes block g % kVecs's scale, and lane g < kVecs stores it.
      const int g = threadIdx.x % kBlockLanes;  // lane within the group (t % kBlockLanes: rows span whole warps)
      const int jg = g % kVecs;                  // the block this lane scales
      uint32_t jg_bits = bits[0];
#pragma unroll
      for (int j = 1; j < kVecs; ++j) jg_bits = jg == j ? bits[j] : jg_bits;
      const float amax = __uint_as_float(jg_bits);
      const ScaleInv si = quant_scale(amax, QuantOut<Q>::kMax);
      const int vb = v0 - g + jg * kThreadsPerRow;  // block jg's first vector
      if (g < kVecs && vb < nvec) {
        const int64_t s = (vb / kBlockLanes) * p.ld_scale + row;
        p.scale[s] = si.scale;
        if (p.amax) p.amax[s] = amax;
      }

      // 4a. Quantise and store, block j's factor from the group's lane j.
      const int lane0 = threadIdx.x % kWarpSize - g;  // the group's first lane
      if (sg.whole) {
#pragma unroll
        for (int j = 0; j < kVecs; ++j) {
          const float inv = __shfl_sync(0xffffffffu, si.inv, lane0 + j);
          quantize_store<T, Q, true>(gX, v0 + j * kThreadsPerRow, rX[j], inv, gQ, true,
                                     quant_s8_group_in_range(__uint_as_float(bits[j]), inv));
        }
      } else {
#pragma unroll
        for (int j = 0; j < kVecs; ++j) {
          const float inv = __shfl_sync(0xffffffffu, si.inv, lane0 + j);
          const int v = v0 + j * kThreadsPerRow;
          if (v < nvec)
            quantize_store<T, Q>(gX, v, rX[j], inv, gQ, q_vec_ok, quant_s8_group_in_range(__uint_as_float(bits[j]), inv));
        }
      }
    } else {
      // 2b. This thread's max over the segment.
      AbsMax<T> m;
#pragma unroll
      for (int j = 0; j < kVecs; ++j) m.add(rX[j]);

      // 3. The factor.
      float inv = given_inv;
      if constexpr (kPass == RowPass::row) {
        uint32_t bits = warp_max(m.float_bits());
        if constexpr (kWarpsPerRow > 1) {
          bits = cta_max<kWarpsPerRow>(bits, s_warp_max);
          if (it + gridDim.x < p.segments) __syncthreads();  // the slots are written again next segment
        }
        const float amax = __uint_as_float(bits);
        const ScaleInv si = quant_scale(amax, QuantOut<Q>::kMax);
        inv = si.inv;
        if (t == 0 && active) {
          p.scale[row] = si.scale;
          if (p.amax) p.amax[row] = amax;
        }
      } else {
        m_all.merge(m);
      }

      // 4. Quantise and store (s8: in range by this thread's max, which the row's bounds).
      if constexpr (kPass != RowPass::amax) {
        const bool in_range = Q == Dtype::s8 && quant_s8_group_in_range(__uint_as_float(m.float_bits()), inv);
        if (sg.whole) {
#pragma unroll
          for (int j = 0; j < kVecs; ++j)
            quantize_store<T, Q, true>(gX, v0 + j * kThreadsPerRow, rX[j], inv, gQ, true, in_range);
        } else {
#pragma unroll
          for (int j = 0; j < kVecs; ++j) {
            const int v = v0 + j * kThreadsPerRow;
            if (v < nvec) quantize_store<T, Q>(gX, v, rX[j], inv, gQ, q_vec_ok, in_range);
          }
        }
      }
    }
    if constexpr (kPrefetch) {
#pragma unroll
      for (int j = 0; j < kVecs; ++j)
#pragma unroll
        for (int w = 0; w < 4; ++w) rX[j][w] = rN[j][w];
      sg = next;
    }
  }

  // 5. The tensor's amax (tensor pass 1 always; tensor_given when asked for): once per CTA.
  if constexpr (kPass == RowPass::amax || kPass == RowPass::given) {
    if (kPass == RowPass::amax || (p.amax && !p.inv_from_ws)) {
      const uint32_t cta_bits = cta_max<kThreads / kWarpSize>(warp_max(m_all.float_bits()), s_warp_max);
      tensor_amax_epilogue<Q, kPass == RowPass::amax>(p, cta_bits);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Per-row scales of rows longer than the registers hold: one CTA per row, the row read twice.
// ---------------------------------------------------------------------------------------------
inline constexpr int kRowLoopThreads = 1024;
inline constexpr int kRowLoopUnroll = 4;  // vectors per thread in flight

template <class T, Dtype Q>
__global__ void __launch_bounds__(kRowLoopThreads) quantize_row_loop_kernel(const QuantizeParams<T> p) {
  constexpr int kThreads = kRowLoopThreads, kUnroll = kRowLoopUnroll;
  const int64_t row = blockIdx.x;
  const RowView<T> gX(p.x + row * p.ld_x, p.cols);  // (cols)
  uint8_t* gQ = p.q + row * p.ld_q;                 // (cols)
  const int nvec = gX.nvec();

  // Pass 1: amax.
  AbsMax<T> m;
  for (int v0 = threadIdx.x; v0 < nvec; v0 += kThreads * kUnroll) {
    uint32_t rX[kUnroll][4];  // (UNROLL, 4 words)
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int v = v0 + u * kThreads;
      if (v < nvec) {
        gX.load(v, rX[u]);
      } else {
#pragma unroll
        for (int i = 0; i < 4; ++i) rX[u][i] = 0u;
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) m.add(rX[u]);
  }
  __shared__ uint32_t s_warp_max[kThreads / kWarpSize];  // (WARPS)
  const uint32_t bits = cta_max<kThreads / kWarpSize>(warp_max(m.float_bits()), s_warp_max);
  const float amax = __uint_as_float(bits);
  const ScaleInv si = quant_scale(amax, QuantOut<Q>::kMax);
  if (threadIdx.x == 0) {
    p.scale[row] = si.scale;
    if (p.amax) p.amax[row] = amax;
  }

  // Pass 2: quantise (the row was just read: mostly L2 hits).
  const bool in_range = Q == Dtype::s8 && quant_s8_group_in_range(amax, si.inv);
  const bool q_vec_ok = ((reinterpret_cast<uintptr_t>(gQ) - uintptr_t(gX.head)) % Numeric<T>::kVec) == 0;
  for (int v0 = threadIdx.x; v0 < nvec; v0 += kThreads * kUnroll) {
    uint32_t rX[kUnroll][4];  // (UNROLL, 4 words)
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int v = v0 + u * kThreads;
      if (v < nvec) gX.load(v, rX[u]);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int v = v0 + u * kThreads;
      if (v < nvec) quantize_store<T, Q>(gX, v, rX[u], si.inv, gQ, q_vec_ok, in_range);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// 128 x 128 blocks: one CTA per block, the block in registers.  Rows 16-byte aligned (host checks).
// ---------------------------------------------------------------------------------------------
inline constexpr int kBlock = 128;            // block edge (rows and columns)
inline constexpr int kBlock128Vecs = 8;       // vectors per thread
template <class T>
inline constexpr int kBlock128Threads = kBlock * kBlock / (kBlock128Vecs * Numeric<T>::kVec);  // 256 (16-bit), 512 (fp32)

template <class T, Dtype Q>
__global__ void __launch_bounds__(kBlock128Threads<T>) quantize_block128_kernel(const QuantizeParams<T> p) {
  using Num = Numeric<T>;
  constexpr int kVec = Num::kVec, kThreads = kBlock128Threads<T>, kVecs = kBlock128Vecs;
  constexpr int kLanesPerRow = kBlock / kVec;            // threads across one block row (16 or 32)
  constexpr int kRowsPerStep = kThreads / kLanesPerRow;  // block rows covered by one j (16)
  static_assert(kRowsPerStep * kVecs == kBlock, "quantize_block128_kernel: the threads' vectors cover 128 rows");

  // Which block: CTAs walk the blocks row-major.
  const int64_t nbc = (p.cols + kBlock - 1) / kBlock;
  const int64_t br = blockIdx.x / nbc, bc = blockIdx.x % nbc;
  const int c = threadIdx.x % kLanesPerRow;  // vector column in the block
  const int r0 = threadIdx.x / kLanesPerRow;  // first block row of this thread
  const int v = static_cast<int>(bc) * kLanesPerRow + c;  // window vector in each row (head == 0)

  // 1. Load the block: thread holds rows r0 + j*kRowsPerStep, vector column c.
  uint32_t rX[kVecs][4];  // (VECS, 4 words)
#pragma unroll
  for (int j = 0; j < kVecs; ++j) {
    const int64_t row = br * kBlock + r0 + j * kRowsPerStep;
    const RowView<T> gX(p.x + (row < p.rows ? row : 0) * p.ld_x, p.cols);
    if (row < p.rows && v < gX.nvec()) {
      gX.load(v, rX[j]);
    } else {
#pragma unroll
      for (int i = 0; i < 4; ++i) rX[j][i] = 0u;
    }
  }

  // 2. amax over the block.
  AbsMax<T> m;
#pragma unroll
  for (int j = 0; j < kVecs; ++j) m.add(rX[j]);
  __shared__ uint32_t s_warp_max[kThreads / kWarpSize];  // (WARPS)
  const uint32_t bits = cta_max<kThreads / kWarpSize>(warp_max(m.float_bits()), s_warp_max);
  const float amax = __uint_as_float(bits);
  const ScaleInv si = quant_scale(amax, QuantOut<Q>::kMax);
  if (threadIdx.x == 0) {
    p.scale[bc * p.ld_scale + br] = si.scale;
    if (p.amax) p.amax[bc * p.ld_scale + br] = amax;
  }

  // 3. Quantise from registers and store.
  const bool in_range = Q == Dtype::s8 && quant_s8_group_in_range(amax, si.inv);
#pragma unroll
  for (int j = 0; j < kVecs; ++j) {
    const int64_t row = br * kBlock + r0 + j * kRowsPerStep;
    if (row >= p.rows) continue;
    const RowView<T> gX(p.x + row * p.ld_x, p.cols);
    uint8_t* gQ = p.q + row * p.ld_q;
    if (v < gX.nvec())
      quantize_store<T, Q>(gX, v, rX[j], si.inv, gQ, reinterpret_cast<uintptr_t>(gQ) % kVec == 0, in_range);
  }
}

// ---------------------------------------------------------------------------------------------
// Block modes on rows of any alignment: one CTA of 128 threads per (kBlockRows x 128) block; thread t owns
// column t of the block; element accesses; the block is read twice.
// ---------------------------------------------------------------------------------------------
inline constexpr int kScalarThreads = kBlock;

template <class T, Dtype Q>
__global__ void __launch_bounds__(kScalarThreads) quantize_blocks_scalar_kernel(const QuantizeParams<T> p, int block_rows) {
  using Num = Numeric<T>;
  const int64_t nbc = (p.cols + kBlock - 1) / kBlock;
  const int64_t br = blockIdx.x / nbc, bc = blockIdx.x % nbc;
  const int64_t col = bc * kBlock + threadIdx.x;
  const int64_t row0 = br * block_rows;
  const int nrows = static_cast<int>(min(int64_t(block_rows), p.rows - row0));
  const bool in_cols = col < p.cols;

  uint32_t bits = 0;
  if (in_cols) {
#pragma unroll 8
    for (int r = 0; r < nrows; ++r) {
      const float f = Num::to_float(p.x[(row0 + r) * p.ld_x + col]);
      bits = max(bits, __float_as_uint(f) & 0x7fffffffu);
    }
  }
  __shared__ uint32_t s_warp_max[kScalarThreads / kWarpSize];  // (WARPS)
  bits = cta_max<kScalarThreads / kWarpSize>(warp_max(bits), s_warp_max);
  const float amax = __uint_as_float(bits);
  const ScaleInv si = quant_scale(amax, QuantOut<Q>::kMax);
  if (threadIdx.x == 0) {
    p.scale[bc * p.ld_scale + br] = si.scale;
    if (p.amax) p.amax[bc * p.ld_scale + br] = amax;
  }
  if (!in_cols) return;
#pragma unroll 8
  for (int r = 0; r < nrows; ++r) {
    const float f = Num::to_float(p.x[(row0 + r) * p.ld_x + col]);
    p.q[(row0 + r) * p.ld_q + col] = QuantOut<Q>::one(quant_mul(f, si.inv));
  }
}

}  // namespace kernel

#endif  // __CUDACC__

}  // namespace tessera::fused
