// src/gemm_sm90.cu -- instantiation unit: the Hopper (sm_90a) tensor-core GEMM, bf16 and f16, operand
// majorness (K, K), (K, N) and (M, N), tiles 128x128 and 128x256 (12 kernels).  Built for every target architecture; the
// kernels have code only for sm_90a.
#include "tessera/atom/smem_sm90.hpp"                // sw128_tile (the TMA boxes)
#include "tessera/kernel/gemm_sm80/instantiate.hpp"  // KernelInfo, kernel_info_of
#include "tessera/kernel/gemm_sm90/gemm_kernel.hpp"    // GemmSm90, gemm_sm90_kernel

namespace tessera::gemm_sm80 {

namespace {
template <class Elem, int kBN, bool kBNMajor, bool kAMMajor>
KernelInfo sm90_info() {
  using K = gemm_sm90::GemmSm90<Elem, kBN, kBNMajor, kAMMajor>;
  KernelInfo info = kernel_info_of<K>(reinterpret_cast<const void*>(&gemm_sm90::gemm_sm90_kernel<Elem, kBN, kBNMajor, kAMMajor>), 1);
  // The stage tiles (128-byte swizzle): K-major operands one box of BLK rows, MN-major ones 64-row boxes.
  constexpr atom::SmemTileSm90 kA = atom::sw128_tile(kAMMajor ? K::kBK : K::kBM, 2);
  constexpr atom::SmemTileSm90 kB = atom::sw128_tile(kBNMajor ? K::kBK : K::kBN, 2);
  static_assert(kA.matches_hw_sw128() && kB.matches_hw_sw128(), "gemm_sm90: stage layouts must match the 128-byte swizzle");
  info.box_a[0] = kA.tma_box().inner;
  info.box_a[1] = kA.tma_box().outer;
  info.box_b[0] = kB.tma_box().inner;
  info.box_b[1] = kB.tma_box().outer;
  return info;
}
}  // namespace

template <int kBN>
KernelInfo sm90_pick(bool f16, Combo c) {
  switch (c) {
    case Combo::kk: return f16 ? sm90_info<ElemF16, kBN, false, false>() : sm90_info<ElemBf16, kBN, false, false>();
    case Combo::k_mn: return f16 ? sm90_info<ElemF16, kBN, true, false>() : sm90_info<ElemBf16, kBN, true, false>();
    case Combo::mn_mn: return f16 ? sm90_info<ElemF16, kBN, true, true>() : sm90_info<ElemBf16, kBN, true, true>();
  }
  return {};
}

// The persistent kernels, one instantiation unit per element type and schedule (src/gemm_sm90_persistent_*.cu).
KernelInfo kernel_sm90_persistent(TileId tile, bool f16, Combo c) {
  if (tile == TileId::pp64x256) return f16 ? kernel_sm90_persistent_f16_pp(c) : kernel_sm90_persistent_bf16_pp(c);
  if (tile == TileId::coop128x256) return f16 ? kernel_sm90_persistent_f16_coop(c) : kernel_sm90_persistent_bf16_coop(c);
  return {};
}

KernelInfo kernel_sm90(TileId tile, bool f16, Combo combo) {
  switch (tile) {
    case TileId::wgmma128x128: return sm90_pick<128>(f16, combo);
    case TileId::wgmma128x256: return sm90_pick<256>(f16, combo);
    default: return {};
  }
}

}  // namespace tessera::gemm_sm80
