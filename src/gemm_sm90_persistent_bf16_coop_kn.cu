// src/gemm_sm90_persistent_bf16_coop_kn.cu -- instantiation unit: the persistent Hopper GEMM, cooperative 128x256
// tiles, bf16 operands, operand majorness (K, N): A K-major, B N-major: the general kernel and the bare one.  Code
// only for sm_90a.
#include "gemm_sm90_persistent_info.hpp"

namespace tessera::gemm_core {

template KernelInfo persistent_info<gemm_sm80::ElemBf16, true, false>();

}  // namespace tessera::gemm_core
