// src/gemm_sm90_persistent_bf16_pp.cu -- instantiation unit: the persistent Hopper GEMM, ping-pong 64x256 tiles,
// bf16 operands, operand majorness (K, K), (K, N), (M, N).  Code only for sm_90a.
#include "gemm_sm90_persistent.hpp"

namespace tessera::gemm_core {

KernelInfo sm90_bf16_pp128x128(Combo c) { return persistent_pick<gemm_sm80::ElemBf16, false>(c); }

}  // namespace tessera::gemm_core

TESSERA_GEMM_TRACE_ACCESS(_pp)
