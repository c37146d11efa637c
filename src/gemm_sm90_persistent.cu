// src/gemm_sm90_persistent.cu -- the getters of the persistent Hopper GEMM (src/gemm_kernels.hpp): one per element
// type and schedule, the three operand-majorness combinations each (their units:
// src/gemm_sm90_persistent_<type>_<schedule>_<order>.cu).  No device code.
#include "gemm_sm90_persistent.hpp"

namespace tessera::gemm_core {
namespace {

template <class Elem, bool kCooperative>
KernelInfo persistent_pick(Combo c) {
  switch (c) {
    case Combo::kk: return persistent_info<Elem, kCooperative, false, false>();
    case Combo::k_mn: return persistent_info<Elem, kCooperative, true, false>();
    case Combo::mn_mn: return persistent_info<Elem, kCooperative, true, true>();
  }
  return {};
}

}  // namespace

KernelInfo sm90_bf16_coop128x256(Combo c) { return persistent_pick<gemm_sm80::ElemBf16, true>(c); }
KernelInfo sm90_f16_coop128x256(Combo c) { return persistent_pick<gemm_sm80::ElemF16, true>(c); }
KernelInfo sm90_bf16_pp128x128(Combo c) { return persistent_pick<gemm_sm80::ElemBf16, false>(c); }
KernelInfo sm90_f16_pp128x128(Combo c) { return persistent_pick<gemm_sm80::ElemF16, false>(c); }

}  // namespace tessera::gemm_core
