// src/gemm_sm90_persistent_s8_coop_kk.cu -- instantiation unit: the persistent Hopper GEMM, cooperative 128x256
// tiles, INT8 operands (s8 x s8, s32 accumulation converted to fp32 after each unit's main loop), K-major A and B: the
// general kernel and the bare one (D bf16, per-tensor scales).  Code only for sm_90a.
#include "gemm_sm90_persistent_info.hpp"

namespace tessera::gemm_core {

template KernelInfo persistent_info<gemm_sm90::ElemS8, false, false>();

}  // namespace tessera::gemm_core

TESSERA_GEMM_TRACE_ACCESS(_s8)
