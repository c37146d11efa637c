// src/gemm_gemv.cu -- instantiation unit: the GEMV kernels (kernel/gemm_sm80/gemv.hpp), bf16 and f16, a batch of 1
// (2 kernels, each with its dealt form; K-major A and B only).
#include "gemm_kernels.hpp"                   // the getters this unit defines
#include "tessera/kernel/gemm_sm80/gemv.hpp"  // Gemv, gemv_kernel

namespace tessera::gemm_core {

namespace {
// The kernel for a batch of kBatch; only Combo::kk (A's rows and B's columns contiguous in K).  block_k: the K
// extent a warp covers in one step.
template <class T, int kBatch>
KernelInfo gemv_info(Combo c) {
  using G = gemm_sm80::Gemv<T, kBatch>;
  if (c != Combo::kk) return {};
  KernelInfo info;
  info.fn = reinterpret_cast<const void*>(&gemm_sm80::gemv_kernel<T, kBatch>);
  info.fn_dealt = reinterpret_cast<const void*>(&gemm_sm80::gemv_kernel<T, kBatch, 4, 4, 8, true>);
  info.threads = G::kThreads;
  info.smem_bytes = G::kSmemBytes;
  info.block_m = G::kRows;
  info.block_n = kBatch;
  info.block_k = G::kStepK;
  info.stages = G::kStages;
  info.min_blocks = G::kMinBlocks;
  return info;
}
}  // namespace

KernelInfo sm80_bf16_gemv4x1(Combo c) { return gemv_info<__nv_bfloat16, 1>(c); }
KernelInfo sm80_f16_gemv4x1(Combo c) { return gemv_info<__half, 1>(c); }

}  // namespace tessera::gemm_core
