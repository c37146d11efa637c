// src/gemm_sm90.cu -- instantiation unit: the Hopper (sm_90a) tensor-core GEMM, bf16 and f16, operand
// majorness (K, K), (K, N) and (M, N), tiles 128x128 and 128x256 (12 kernels).  Built for every target architecture; the
// kernels have code only for sm_90a.
#include "tessera/kernel/gemm_sm80/instantiate.hpp"  // KernelInfo, kernel_info_of
#include "tessera/kernel/gemm_sm90/gemm_kernel.hpp"    // GemmSm90, gemm_sm90_kernel

namespace tessera::gemm_sm80 {

namespace {
template <class Elem, int kBN, bool kBNMajor, bool kAMMajor>
KernelInfo sm90_info() {
  return kernel_info_of<gemm_sm90::GemmSm90<Elem, kBN, kBNMajor, kAMMajor>>(
      reinterpret_cast<const void*>(&gemm_sm90::gemm_sm90_kernel<Elem, kBN, kBNMajor, kAMMajor>), 1);
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

KernelInfo kernel_sm90(TileId tile, bool f16, Combo combo) {
  switch (tile) {
    case TileId::wgmma128x128: return sm90_pick<128>(f16, combo);
    case TileId::wgmma128x256: return sm90_pick<256>(f16, combo);
    default: return {};
  }
}

}  // namespace tessera::gemm_sm80
