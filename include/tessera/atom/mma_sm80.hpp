// include/tessera/atom/mma_sm80.hpp -- the Ampere warp MMA atoms: mma.sync m16n8k16 (bf16, f16) and
// m16n8k8 (tf32), each described by the layouts of its A, B and C fragments.
//
// An atom is an instruction plus the (thread, value) -> (row, column) maps of its operands.  The maps are
// written twice, as data and as the PTX ISA's formulas, and tests/kernel_gemm/atom_test.cpp checks that
// both agree on every (thread, value) and, on a GPU, that the instruction computes what they say:
//
//   kALayout : (T32, V) -> (M16, K)   index m + 16 k          (A is M x K, "row" in PTX terms)
//   kBLayout : (T32, V) -> (N8,  K)   index n +  8 k          (B is K x N, "col" in PTX terms)
//   kCLayout : (T32, V4) -> (M16, N8) index m + 16 n          (accumulator, fp32)
//
// The thread mode has shape (4,8): lane = t + 4 g with t = lane % 4 ("threadID_in_group") and
// g = lane / 4 ("groupID") in the PTX ISA's words.  The value mode enumerates a thread's values in the
// order of its registers, the lower 16-bit half of a register first.
//
//  m16n8k16 (bf16 / f16), PTX ISA "Matrix Fragments for mma.m16n8k16 with floating point type":
//    A value i (8 per thread): row g + 8*((i>>1)&1), col 2t + (i&1) + 8*(i>>2)
//        ((4,8),(2,2,2)) : ((32,1),(16,8,128))
//    B value i (4 per thread): row(k) 2t + (i&1) + 8*(i>>1), col(n) g
//        ((4,8),(2,2))   : ((16,1),(8,64))
//    C value i (4 per thread): row g + 8*(i>>1), col 2t + (i&1)
//        ((4,8),(2,2))   : ((32,1),(16,8))
//
//  m16n8k8 (tf32), PTX ISA "Matrix Fragments for mma.m16n8k8":
//    A value i (4 per thread): row g + 8*(i&1), col t + 4*(i>>1)
//        ((4,8),(2,2))   : ((16,1),(8,64))
//    B value i (2 per thread): row(k) t + 4 i, col(n) g
//        ((4,8),2)       : ((8,1),32)
//    C as above.
//
// Atoms contain no PTX: `fma` forwards to the wrapper in tessera/arch/sm80_mma.hpp.
#pragma once

#include <cstdint>  // uint32_t

#include "tessera/layout/layout.hpp"  // Layout, make_layout, make_tuple

#if defined(__CUDACC__)
#include "tessera/arch/sm80_mma.hpp"  // mma_m16n8k16_f32_bf16, mma_m16n8k16_f32_f16, mma_m16n8k8_f32_tf32
#endif

namespace tessera::atom {

// (row, column) of one fragment value inside the atom's operand tile.
struct FragCoord {
  int row = 0;
  int col = 0;
  TESSERA_HD friend constexpr bool operator==(const FragCoord& a, const FragCoord& b) { return a.row == b.row && a.col == b.col; }
};

// The fp32 accumulator fragment shared by all sm80 16x8 atoms.
struct Sm80Accum16x8 {
  static constexpr int kValuesC = 4;
  // (T32,V4) -> (M16,N8), index m + 16 n
  static constexpr Layout kCLayout =
      make_layout(make_tuple(make_tuple(4, 8), make_tuple(2, 2)), make_tuple(make_tuple(32, 1), make_tuple(16, 8)));
  // PTX ISA formula: c_i at (g + 8*(i>>1), 2t + (i&1)).
  TESSERA_HD static constexpr FragCoord c_coord(int lane, int i) {
    return FragCoord{lane / 4 + 8 * (i >> 1), 2 * (lane % 4) + (i & 1)};
  }
};

// m16n8k16 with 16-bit inputs (bf16 or f16): the fragment maps common to both.
struct Sm80Frag16x8x16 : Sm80Accum16x8 {
  static constexpr int kM = 16, kN = 8, kK = 16;
  static constexpr int kThreads = 32;
  static constexpr int kValuesA = 8, kValuesB = 4;
  static constexpr int kRegsA = 4, kRegsB = 2;  // 32-bit registers per thread
  // (T32,V8) -> (M16,K16), index m + 16 k
  static constexpr Layout kALayout = make_layout(make_tuple(make_tuple(4, 8), make_tuple(2, 2, 2)),
                                                 make_tuple(make_tuple(32, 1), make_tuple(16, 8, 128)));
  // (T32,V4) -> (N8,K16), index n + 8 k
  static constexpr Layout kBLayout =
      make_layout(make_tuple(make_tuple(4, 8), make_tuple(2, 2)), make_tuple(make_tuple(16, 1), make_tuple(8, 64)));
  // PTX ISA formulas (row, col) of A (M x K) and B (K x N).
  TESSERA_HD static constexpr FragCoord a_coord(int lane, int i) {
    return FragCoord{lane / 4 + 8 * ((i >> 1) & 1), 2 * (lane % 4) + (i & 1) + 8 * (i >> 2)};
  }
  TESSERA_HD static constexpr FragCoord b_coord(int lane, int i) {
    return FragCoord{2 * (lane % 4) + (i & 1) + 8 * (i >> 1), lane / 4};
  }
};

struct MmaSm80_16x8x16_F32BF16 : Sm80Frag16x8x16 {
  static constexpr const char* kName = "SM80_16x8x16_F32BF16BF16F32";
  static constexpr int kElementBytes = 2;
#if defined(__CUDACC__)
  __device__ __forceinline__ static void fma(float (&acc)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    arch::mma_m16n8k16_f32_bf16(acc, a, b);
  }
#endif
};

struct MmaSm80_16x8x16_F32F16 : Sm80Frag16x8x16 {
  static constexpr const char* kName = "SM80_16x8x16_F32F16F16F32";
  static constexpr int kElementBytes = 2;
#if defined(__CUDACC__)
  __device__ __forceinline__ static void fma(float (&acc)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    arch::mma_m16n8k16_f32_f16(acc, a, b);
  }
#endif
};

struct MmaSm80_16x8x8_F32TF32 : Sm80Accum16x8 {
  static constexpr const char* kName = "SM80_16x8x8_F32TF32TF32F32";
  static constexpr int kElementBytes = 4;
  static constexpr int kM = 16, kN = 8, kK = 8;
  static constexpr int kThreads = 32;
  static constexpr int kValuesA = 4, kValuesB = 2;
  static constexpr int kRegsA = 4, kRegsB = 2;
  // (T32,V4) -> (M16,K8), index m + 16 k
  static constexpr Layout kALayout =
      make_layout(make_tuple(make_tuple(4, 8), make_tuple(2, 2)), make_tuple(make_tuple(16, 1), make_tuple(8, 64)));
  // (T32,V2) -> (N8,K8), index n + 8 k
  static constexpr Layout kBLayout = make_layout(make_tuple(make_tuple(4, 8), 2), make_tuple(make_tuple(8, 1), 32));
  TESSERA_HD static constexpr FragCoord a_coord(int lane, int i) {
    return FragCoord{lane / 4 + 8 * (i & 1), lane % 4 + 4 * (i >> 1)};
  }
  TESSERA_HD static constexpr FragCoord b_coord(int lane, int i) { return FragCoord{lane % 4 + 4 * i, lane / 4}; }
#if defined(__CUDACC__)
  __device__ __forceinline__ static void fma(float (&acc)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    arch::mma_m16n8k8_f32_tf32(acc, a, b);
  }
#endif
};

}  // namespace tessera::atom
