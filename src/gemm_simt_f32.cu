// src/gemm_simt_f32.cu -- instantiation unit: the exact fp32 FFMA GEMM (one kernel, run-time layouts).
#include "tessera/kernel/gemm_sm80/dispatch.hpp"    // KernelInfo
#include "tessera/kernel/gemm_sm80/gemm_simt.hpp"   // GemmSimt, gemm_simt_f32_kernel

namespace tessera::gemm_sm80 {

KernelInfo kernel_simt_f32() {
  KernelInfo info;
  info.fn = reinterpret_cast<const void*>(&gemm_simt_f32_kernel);
  info.threads = GemmSimt::kThreads;
  info.smem_bytes = GemmSimt::kSmemBytes;
  info.block_m = GemmSimt::kBM;
  info.block_n = GemmSimt::kBN;
  info.block_k = GemmSimt::kBK;
  info.stages = 2;
  info.min_blocks = 1;
  return info;
}

}  // namespace tessera::gemm_sm80
