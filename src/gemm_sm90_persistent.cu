// src/gemm_sm90_persistent.cu -- the getters of the persistent Hopper GEMM (src/gemm_kernels.hpp): one per element
// type, the three operand-majorness combinations each (their units: src/gemm_sm90_persistent_<type>_coop_<order>.cu).
// No device code.
#include "gemm_sm90_persistent.hpp"

namespace tessera::gemm_core {
namespace {

template <class Elem>
KernelInfo persistent_pick(Combo c) {
  switch (c) {
    case Combo::kk: return persistent_info<Elem, false, false>();
    case Combo::k_mn: return persistent_info<Elem, true, false>();
    case Combo::mn_mn: return persistent_info<Elem, true, true>();
  }
  return {};
}

}  // namespace

KernelInfo sm90_bf16_coop128x256(Combo c) { return persistent_pick<gemm_sm80::ElemBf16>(c); }
KernelInfo sm90_f16_coop128x256(Combo c) { return persistent_pick<gemm_sm80::ElemF16>(c); }

}  // namespace tessera::gemm_core
