// src/gemm_sm90.cu -- instantiation unit: the Hopper (sm_90a) tensor-core GEMM, bf16 and f16, K-major A
// and K- or N-major B, tiles 128x128 and 128x256 (8 kernels).  Built for every target architecture; the
// kernels have code only for sm_90a.
#include "tessera/kernel/gemm_sm80/instantiate.hpp"  // KernelInfo, kernel_info_of
#include "tessera/kernel/gemm_sm90/gemm_kernel.hpp"    // GemmSm90, gemm_sm90_kernel

namespace tessera::gemm_sm80 {

namespace {
template <class Elem, int kBN, bool kBNMajor>
KernelInfo sm90_info() {
  return kernel_info_of<gemm_sm90::GemmSm90<Elem, kBN, kBNMajor>>(
      reinterpret_cast<const void*>(&gemm_sm90::gemm_sm90_kernel<Elem, kBN, kBNMajor>), 1);
}
}  // namespace

template <int kBN, bool kBNMajor>
KernelInfo sm90_pick(bool f16) {
  return f16 ? sm90_info<ElemF16, kBN, kBNMajor>() : sm90_info<ElemBf16, kBN, kBNMajor>();
}

KernelInfo kernel_sm90(TileId tile, bool f16, bool b_n_major) {
  switch (tile) {
    case TileId::wgmma128x128: return b_n_major ? sm90_pick<128, true>(f16) : sm90_pick<128, false>(f16);
    case TileId::wgmma128x256: return b_n_major ? sm90_pick<256, true>(f16) : sm90_pick<256, false>(f16);
    default: return {};
  }
}

}  // namespace tessera::gemm_sm80
