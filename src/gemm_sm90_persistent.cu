// src/gemm_sm90_persistent.cu -- the getters of the persistent Hopper GEMM (src/gemm_kernels.hpp): one per element
// type, the three operand-majorness combinations each (their units: src/gemm_sm90_persistent_<type>_coop_<order>.cu),
// and one per FP8 pair, K-major A and B (src/gemm_sm90_persistent_<A's type>_coop_kk.cu).  No device code.
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

// FP8: K-major A and B alone (wgmma reads 8-bit operands only so).
namespace {
template <bool kAE5M2, bool kBE5M2>
KernelInfo persistent_f8(Combo c) {
  return c == Combo::kk ? persistent_info<gemm_sm90::ElemF8<kAE5M2, kBE5M2>, false, false>() : KernelInfo{};
}
}  // namespace

KernelInfo sm90_e4m3_e4m3_coop128x256(Combo c) { return persistent_f8<false, false>(c); }
KernelInfo sm90_e4m3_e5m2_coop128x256(Combo c) { return persistent_f8<false, true>(c); }
KernelInfo sm90_e5m2_e4m3_coop128x256(Combo c) { return persistent_f8<true, false>(c); }
KernelInfo sm90_e5m2_e5m2_coop128x256(Combo c) { return persistent_f8<true, true>(c); }
// INT8 (s8 x s8, K-major A and B): unit src/gemm_sm90_persistent_s8_coop_kk.cu.
KernelInfo sm90_s8_s8_coop128x256(Combo c) {
  return c == Combo::kk ? persistent_info<gemm_sm90::ElemS8, false, false>() : KernelInfo{};
}

}  // namespace tessera::gemm_core
