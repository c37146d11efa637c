// src/gemm_sm90.cu -- instantiation unit: the Hopper (sm_90a) tensor-core GEMM, bf16 and f16, operand
// majorness (K, K), (K, N) and (M, N), tiles 128x64, 128x128 and 128x256 (18 kernels).  Built for every target architecture; the
// kernels have code only for sm_90a.
#include "gemm_kernels.hpp"                          // the getters this unit defines
#include "gemm_sm90_info.hpp"                         // sm90_info
#include "tessera/kernel/gemm_sm90/trace.hpp"        // TESSERA_GEMM_TRACE_ACCESS

namespace tessera::gemm_core {

namespace {
template <class Elem, int kBN>
KernelInfo sm90_pick(Combo c) {
  switch (c) {
    case Combo::kk: return sm90_info<Elem, kBN, false, false>();
    case Combo::k_mn: return sm90_info<Elem, kBN, true, false>();
    case Combo::mn_mn: return sm90_info<Elem, kBN, true, true>();
  }
  return {};
}

// The decode tile: K-major A and B only.
template <class Elem, int kBN>
KernelInfo sm90_pick_kk(Combo c) {
  return c == Combo::kk ? sm90_info<Elem, kBN, false, false>() : KernelInfo{};
}
}  // namespace

KernelInfo sm90_bf16_wgmma128x16(Combo c) { return sm90_pick_kk<gemm_sm80::ElemBf16, 16>(c); }
KernelInfo sm90_f16_wgmma128x16(Combo c) { return sm90_pick_kk<gemm_sm80::ElemF16, 16>(c); }

KernelInfo sm90_bf16_wgmma128x64(Combo c) { return sm90_pick<gemm_sm80::ElemBf16, 64>(c); }
KernelInfo sm90_f16_wgmma128x64(Combo c) { return sm90_pick<gemm_sm80::ElemF16, 64>(c); }
KernelInfo sm90_bf16_wgmma128x128(Combo c) { return sm90_pick<gemm_sm80::ElemBf16, 128>(c); }
KernelInfo sm90_f16_wgmma128x128(Combo c) { return sm90_pick<gemm_sm80::ElemF16, 128>(c); }
KernelInfo sm90_bf16_wgmma128x256(Combo c) { return sm90_pick<gemm_sm80::ElemBf16, 256>(c); }
KernelInfo sm90_f16_wgmma128x256(Combo c) { return sm90_pick<gemm_sm80::ElemF16, 256>(c); }

}  // namespace tessera::gemm_core

TESSERA_GEMM_TRACE_ACCESS(_np)
