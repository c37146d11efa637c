// src/gemm_sm90_persistent_bf16_coop.cu -- instantiation unit: the persistent Hopper GEMM, cooperative 128x256 tiles,
// bf16 operands, operand majorness (K, K), (K, N), (M, N).  Code only for sm_90a.
#include "gemm_sm90_persistent.hpp"

namespace tessera::gemm_sm80 {

KernelInfo kernel_sm90_persistent_bf16_coop(Combo c) { return persistent_pick<ElemBf16, true>(c); }

}  // namespace tessera::gemm_sm80

#if defined(TESSERA_GEMM_TRACE)
// The timeline probe of this unit's kernels (kernel/gemm_sm90/persistent_kernel.hpp), for scripts/device/trace_gemm.cu.
extern "C" int tessera_gemm_trace_dump(unsigned long long* host, size_t count) {
  return static_cast<int>(cudaMemcpyFromSymbol(host, tessera::gemm_sm90::g_gemm_trace, count * sizeof(unsigned long long)));
}
extern "C" int tessera_gemm_trace_clear() {
  static unsigned long long zero[sizeof(tessera::gemm_sm90::g_gemm_trace) / sizeof(unsigned long long)] = {};
  return static_cast<int>(cudaMemcpyToSymbol(tessera::gemm_sm90::g_gemm_trace, zero, sizeof(zero)));
}
#endif
