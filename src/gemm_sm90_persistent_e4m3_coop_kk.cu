// src/gemm_sm90_persistent_e4m3_coop_kk.cu -- instantiation unit: the persistent Hopper GEMM, cooperative 128x256
// tiles, FP8 operands with A e4m3 and B e4m3 or e5m2, K-major A and B: the general kernel of each pair (no bare
// kernel: D is never of an FP8 operand's type).  Code only for sm_90a.
#include "gemm_sm90_persistent_info.hpp"

namespace tessera::gemm_core {

template KernelInfo persistent_info<gemm_sm90::ElemF8<false, false>, false, false>();
template KernelInfo persistent_info<gemm_sm90::ElemF8<false, true>, false, false>();

}  // namespace tessera::gemm_core

TESSERA_GEMM_TRACE_ACCESS(_e4m3)
