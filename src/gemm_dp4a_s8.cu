// src/gemm_dp4a_s8.cu -- instantiation unit: the INT8 CUDA-core GEMM (dp4a, s32 accumulation; one kernel, K-major A and B).
#include "gemm_kernels.hpp"                        // the getter this unit defines
#include "tessera/kernel/gemm_sm80/gemm_dp4a.hpp"  // GemmDp4a, gemm_dp4a_s8_kernel

namespace tessera::gemm_core {

// s8 operands are K-major (validation: A row-major, B column-major), so only Combo::kk has a kernel.
KernelInfo sm80_s8_dp4a128x128(Combo c) {
  using gemm_sm80::GemmDp4a;
  if (c != Combo::kk) return {};
  KernelInfo info;
  info.fn = reinterpret_cast<const void*>(&gemm_sm80::gemm_dp4a_s8_kernel);
  info.threads = GemmDp4a::kThreads;
  info.smem_bytes = GemmDp4a::kSmemBytes;
  info.block_m = GemmDp4a::kBM;
  info.block_n = GemmDp4a::kBN;
  info.block_k = GemmDp4a::kBK;  // s8 elements (bytes) of K per K tile
  info.stages = 2;
  info.min_blocks = 2;
  return info;
}

}  // namespace tessera::gemm_core
