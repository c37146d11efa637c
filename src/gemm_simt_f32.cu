// src/gemm_simt_f32.cu -- instantiation unit: the exact fp32 FFMA GEMM (one kernel, run-time layouts).
#include "gemm_kernels.hpp"                        // the getter this unit defines
#include "tessera/kernel/gemm_sm80/gemm_simt.hpp"  // GemmSimt, gemm_simt_f32_kernel

namespace tessera::gemm_core {

// Every operand order runs on the one kernel: the Combo is not looked at.
KernelInfo sm80_f32_simt128x128(Combo) {
  using gemm_sm80::GemmSimt;
  KernelInfo info;
  info.fn = reinterpret_cast<const void*>(&gemm_sm80::gemm_simt_f32_kernel);
  info.threads = GemmSimt::kThreads;
  info.smem_bytes = GemmSimt::kSmemBytes;
  info.block_m = GemmSimt::kBM;
  info.block_n = GemmSimt::kBN;
  info.block_k = GemmSimt::kBK;
  info.stages = 2;
  info.min_blocks = 1;
  return info;
}

}  // namespace tessera::gemm_core
