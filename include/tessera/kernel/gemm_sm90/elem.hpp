// include/tessera/kernel/gemm_sm90/elem.hpp -- the operand element types of the Hopper GEMM kernels beside the 16-bit
// ones of gemm_sm80/config.hpp (ElemBf16, ElemF16): ElemF8, and the wgmma atom each element type multiplies with
// (WgmmaAtomFor).  Shared by the non-persistent kernel (gemm_kernel.hpp) and the persistent one (persistent_kernel.hpp).
#pragma once

#include <type_traits>  // std::is_same_v

#include "tessera/atom/mma_sm90.hpp"            // WgmmaSm90, WgmmaSm90F8, WgmmaSm90S8
#include "tessera/kernel/gemm_sm80/config.hpp"  // ElemF16

namespace tessera::gemm_sm90 {

// FP8 operands: A e4m3 or e5m2 (kAE5M2), B likewise (kBE5M2).  One byte an element: a K tile of 128 elements is one
// 128-byte swizzle row, as 64 16-bit elements are, so the stages, boxes and descriptors keep their bytes.
template <bool kAE5M2_, bool kBE5M2_>
struct ElemF8 {
  static constexpr int kBytes = 1;
  static constexpr bool kAE5M2 = kAE5M2_, kBE5M2 = kBE5M2_;
  static constexpr bool kInt = false;
};

// INT8 operands (s8 x s8, s32 accumulation: exact, so never promoted), laid out as FP8's: one byte an element, K-major.
struct ElemS8 {
  static constexpr int kBytes = 1;
  static constexpr bool kInt = true;
};

// Whether an element type's wgmma accumulates integers (the kernels then convert the fragment to fp32 after the drain).
template <class Elem>
inline constexpr bool kElemInt = [] {
  if constexpr (requires { Elem::kInt; }) return Elem::kInt;
  else return false;
}();

// The wgmma atom of an element type: m64nNk16 for bf16 / f16 (kTransA / kTransB: MN-major operands), m64nNk32 for FP8.
template <class Elem, int kBN, int kTransA, int kTransB>
struct WgmmaAtomFor {
  using type = atom::WgmmaSm90<kBN, std::is_same_v<Elem, gemm_sm80::ElemF16>, kTransA, kTransB>;
};
template <bool kAE5M2, bool kBE5M2, int kBN, int kTransA, int kTransB>
struct WgmmaAtomFor<ElemF8<kAE5M2, kBE5M2>, kBN, kTransA, kTransB> {
  using type = atom::WgmmaSm90F8<kBN, kAE5M2, kBE5M2>;
};
template <int kBN, int kTransA, int kTransB>
struct WgmmaAtomFor<ElemS8, kBN, kTransA, kTransB> {
  using type = atom::WgmmaSm90S8<kBN>;
};

}  // namespace tessera::gemm_sm90
