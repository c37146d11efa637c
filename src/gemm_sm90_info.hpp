// src/gemm_sm90_info.hpp -- the KernelInfo of one non-persistent Hopper GEMM kernel (GemmSm90) from its compile-time
// constants, for the instantiation units that define its getters (src/gemm_sm90.cu: bf16; src/gemm_sm90_f16.cu: f16;
// src/gemm_sm90_fp8.cu: FP8), and the pick of a tile's kernel by operand order.  Not installed.
#pragma once

#include "gemm_kernels.hpp"                          // KernelInfo, Combo
#include "tessera/kernel/gemm_sm80/instantiate.hpp"  // kernel_info_of
#include "tessera/kernel/gemm_sm90/gemm_kernel.hpp"  // GemmSm90, gemm_sm90_kernel

namespace tessera::gemm_core {

template <class Elem, int kBN, bool kBNMajor, bool kAMMajor, int kBM = 128>
KernelInfo sm90_info() {
  using K = gemm_sm90::GemmSm90<Elem, kBN, kBNMajor, kAMMajor, kBM>;
  KernelInfo info =
      gemm_sm80::kernel_info_of<K>(reinterpret_cast<const void*>(&gemm_sm90::gemm_sm90_kernel<Elem, kBN, kBNMajor, kAMMajor, kBM>), 1);
  // The boxes of the kernel's stage tiles (GemmSm90::kTileA / kTileB, 128-byte swizzle).
  info.box_a[0] = K::kBoxA.inner;
  info.box_a[1] = K::kBoxA.outer;
  info.box_b[0] = K::kBoxB.inner;
  info.box_b[1] = K::kBoxB.outer;
  info.tma_store = kBN >= 64;  // the bare GEMM's D (GemmSm90::store_bare: 64-column tiles)
  info.box_d[0] = K::kBoxD.inner;
  info.box_d[1] = K::kBoxD.outer;
  return info;
}

// A 16-bit tile's kernel for each operand order it is built for: (K, K), (K, N) and (M, N).
template <class Elem, int kBN>
KernelInfo sm90_pick(Combo c) {
  switch (c) {
    case Combo::kk: return sm90_info<Elem, kBN, false, false>();
    case Combo::k_mn: return sm90_info<Elem, kBN, true, false>();
    case Combo::mn_mn: return sm90_info<Elem, kBN, true, true>();
  }
  return {};
}

// K-major A and B only: the decode tiles (kBM 64: the 64-row weight tile), and every FP8 tile.
template <class Elem, int kBN, int kBM = 128>
KernelInfo sm90_pick_kk(Combo c) {
  return c == Combo::kk ? sm90_info<Elem, kBN, false, false, kBM>() : KernelInfo{};
}

}  // namespace tessera::gemm_core
