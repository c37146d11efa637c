// src/gemm_sm90_persistent_e5m2_coop128_kk.cu -- instantiation unit: the persistent Hopper GEMM, cooperative 128x128
// units (kUnitN = 128: the FP8 promoted loop with two K tiles' partial sums in registers), FP8 operands with A e5m2 and
// B e4m3 or e5m2, K-major A and B: the general kernel of each pair (no bare kernel).  Code only for sm_90a.
#include "gemm_sm90_persistent_info.hpp"

namespace tessera::gemm_core {

template KernelInfo persistent_info<gemm_sm90::ElemF8<true, false>, false, false, 128>();
template KernelInfo persistent_info<gemm_sm90::ElemF8<true, true>, false, false, 128>();

}  // namespace tessera::gemm_core
