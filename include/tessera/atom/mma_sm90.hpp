// include/tessera/atom/mma_sm90.hpp -- the Hopper warpgroup MMA atoms: wgmma.mma_async m64nNk16 with
// 16-bit operands (bf16 or f16), and m64nNk32 with FP8 operands (e4m3, e5m2), from shared memory and fp32
// accumulators in registers.
//
// The accumulator fragment (PTX ISA, wgmma "Register Fragments", matrix D), as a layout:
//
//   kCLayout : (T128, V) -> (M64, N)   index m + 64 n
//       ((4,8,4),(2,2,N/8)) : ((128,1,16),(64,8,512))
//
//   thread  = t + 4 g + 32 w      t = lane % 4, g = lane / 4, w = warp of the warpgroup
//   value i = e + 2 h + 4 j       e = i & 1, h = (i >> 1) & 1, j = i >> 2      (register d[i])
//   (m, n)  = (16 w + g + 8 h,  8 j + 2 t + e)
//
// The thread part and the value part of an index never carry into each other (m < 64 in both sums,
// checked below), so a kernel evaluates the layout once per thread, c_thread(thread), and adds the
// compile-time offset of each value, c_value<i>(): the algebra's map at the cost of two adds.
//
// Atoms contain no PTX: `fma` forwards to tessera/arch/sm90_wgmma.hpp.
#pragma once

#include <cstdint>  // uint32_t, uint64_t

#include "tessera/atom/mma_sm80.hpp"  // FragCoord
#include "tessera/layout/algebra.hpp"        // Layout, make_layout, make_tuple, mode, size
#include "tessera/layout/static_layout.hpp"  // static_layout (unrolled evaluation in device code)

#if defined(__CUDACC__)
#include "tessera/arch/sm90_wgmma.hpp"  // wgmma_m64n{64,128,256}k16
#endif

namespace tessera::atom {

template <int kN_>
struct WgmmaAccum64xN {
  static constexpr int kM = 64, kN = kN_, kK = 16;
  static_assert(kN == 16 || kN == 64 || kN == 128 || kN == 256,
                "wgmma atom: N is 16, 64, 128 or 256 (the instructions Tessera wraps)");
  static constexpr int kThreads = 128;
  static constexpr int kValuesC = kN / 2;  // fp32 accumulators per thread
  // (T128,V) -> (M64,N), index m + 64 n
  static constexpr Layout kCLayout = make_layout(make_tuple(make_tuple(4, 8, 4), make_tuple(2, 2, kN / 8)),
                                                 make_tuple(make_tuple(128, 1, 16), make_tuple(64, 8, 512)));
  static constexpr Layout kThreadMode = mode(kCLayout, 0);
  static constexpr Layout kValueMode = mode(kCLayout, 1);
  static_assert(size(kThreadMode) == kThreads && size(kValueMode) == kValuesC, "wgmma atom: fragment size");

  // (m, n) of index m + 64 n.
  TESSERA_HD static constexpr FragCoord split(int64_t index) {
    return FragCoord{static_cast<int>(index % kM), static_cast<int>(index / kM)};
  }
  // No carry between the parts: the largest row of each part sums to less than 64.
  static constexpr int max_row(const Layout& l) {
    int r = 0;
    for (int64_t i = 0; i < size(l); ++i) r = split(l(i)).row > r ? split(l(i)).row : r;
    return r;
  }
  static_assert(max_row(kThreadMode) + max_row(kValueMode) < kM,
                "wgmma atom: thread and value rows must not carry into the column (evaluate them apart)");

  // Where thread `thread` (0..127 of the warpgroup) holds its value 0.
  TESSERA_HD_INLINE static constexpr FragCoord c_thread(int thread) {
    return split(static_cast<int64_t>(static_layout<kThreadMode>(thread)));
  }
  // Offset of value i from value 0 (a constant).
  template <int kI>
  TESSERA_HD static constexpr FragCoord c_value() {
    constexpr FragCoord c = split(kValueMode(kI));
    return c;
  }
  // PTX ISA formula, for the tests: d[i] of `thread` at (16 w + g + 8 h, 8 j + 2 t + e).
  TESSERA_HD static constexpr FragCoord c_coord(int thread, int i) {
    const int lane = thread % 32, w = thread / 32;
    return FragCoord{16 * w + lane / 4 + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * (lane % 4) + (i & 1)};
  }
};

// wgmma.mma_async m64nNk16 f32 += {bf16, f16} x {bf16, f16}; A (64 x 16) and B (16 x N) from shared memory
// through descriptors; kTransA / kTransB: M-major A / N-major B.
template <int kN, bool kF16, int kTransA, int kTransB>
struct WgmmaSm90 : WgmmaAccum64xN<kN> {
  static constexpr int kElementBytes = 2;
#if defined(__CUDACC__)
  __device__ __forceinline__ static void fma(float (&acc)[kN / 2], uint64_t desc_a, uint64_t desc_b, uint32_t scale_d) {
    if constexpr (kN == 256) arch::wgmma_m64n256k16<kF16, kTransB, kTransA>(acc, desc_a, desc_b, scale_d);
    else if constexpr (kN == 128) arch::wgmma_m64n128k16<kF16, kTransB, kTransA>(acc, desc_a, desc_b, scale_d);
    else if constexpr (kN == 64) arch::wgmma_m64n64k16<kF16, kTransB, kTransA>(acc, desc_a, desc_b, scale_d);
    else arch::wgmma_m64n16k16<kF16, kTransB, kTransA>(acc, desc_a, desc_b, scale_d);
  }
#endif
};

// wgmma.mma_async m64nNk32 f32 += {e4m3, e5m2} x {e4m3, e5m2} (kAE5M2 / kBE5M2: e5m2, else e4m3); A (64 x 32) and B
// (32 x N) from shared memory through descriptors, both K-major (the instruction has no transposed 8-bit form).  The
// accumulator fragment is the 16-bit atom's: the same C layout, so the epilogues take either.
template <int kN, bool kAE5M2, bool kBE5M2>
struct WgmmaSm90F8 : WgmmaAccum64xN<kN> {
  static constexpr int kK = 32;
  static constexpr int kElementBytes = 1;
#if defined(__CUDACC__)
  __device__ __forceinline__ static void fma(float (&acc)[kN / 2], uint64_t desc_a, uint64_t desc_b, uint32_t scale_d) {
    if constexpr (kN == 256) arch::wgmma_m64n256k32_f8<kAE5M2, kBE5M2>(acc, desc_a, desc_b, scale_d);
    else if constexpr (kN == 128) arch::wgmma_m64n128k32_f8<kAE5M2, kBE5M2>(acc, desc_a, desc_b, scale_d);
    else if constexpr (kN == 64) arch::wgmma_m64n64k32_f8<kAE5M2, kBE5M2>(acc, desc_a, desc_b, scale_d);
    else arch::wgmma_m64n16k32_f8<kAE5M2, kBE5M2>(acc, desc_a, desc_b, scale_d);
  }
#endif
};

// wgmma.mma_async m64nNk32 s32 += s8 x s8 (exact); A (64 x 32) and B (32 x N) K-major.  The accumulator fragment has
// the other atoms' C layout, in s32 registers (uint32_t) that the kernel converts to fp32 after its main loop.
template <int kN>
struct WgmmaSm90S8 : WgmmaAccum64xN<kN> {
  static constexpr int kK = 32;
  static constexpr int kElementBytes = 1;
  static constexpr bool kIntAccum = true;
#if defined(__CUDACC__)
  __device__ __forceinline__ static void fma(uint32_t (&acc)[kN / 2], uint64_t desc_a, uint64_t desc_b, uint32_t scale_d) {
    if constexpr (kN == 256) arch::wgmma_m64n256k32_s8(acc, desc_a, desc_b, scale_d);
    else if constexpr (kN == 128) arch::wgmma_m64n128k32_s8(acc, desc_a, desc_b, scale_d);
    else if constexpr (kN == 64) arch::wgmma_m64n64k32_s8(acc, desc_a, desc_b, scale_d);
    else arch::wgmma_m64n16k32_s8(acc, desc_a, desc_b, scale_d);
  }
#endif
};

}  // namespace tessera::atom
