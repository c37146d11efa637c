// src/gemm_sm90_persistent_bf16_coop_kk.cu -- instantiation unit: the persistent Hopper GEMM, cooperative 128x256
// tiles, bf16 operands, operand majorness (K, K): A and B K-major: the general kernel and the bare one.  Code only
// for sm_90a.
#include "gemm_sm90_persistent_info.hpp"

namespace tessera::gemm_core {

template KernelInfo persistent_info<gemm_sm80::ElemBf16, false, false>();

}  // namespace tessera::gemm_core

TESSERA_GEMM_TRACE_ACCESS()
