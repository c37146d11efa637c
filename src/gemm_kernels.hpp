// src/gemm_kernels.hpp -- the getters of the GEMM instantiation units: each returns the KernelInfo of one
// (operand type, tile) family for one operand order (fn == nullptr for an order that is not instantiated).
// The registry (src/gemm_registry.cpp) names them in its entries; nothing else calls them.  Not installed.
#pragma once

#include "tessera/kernel/gemm/kernel_info.hpp"  // KernelInfo, Combo

namespace tessera::gemm_core {

// Ampere (mma.sync, cp.async; runs on sm_80 and newer).  The decode tile 16x128 has no M-major A.
KernelInfo sm80_bf16_128x256(Combo c);  // src/gemm_sm80_bf16_large.cu
KernelInfo sm80_bf16_128x128(Combo c);  // src/gemm_sm80_bf16_large.cu
KernelInfo sm80_bf16_64x64(Combo c);    // src/gemm_sm80_bf16_small.cu
KernelInfo sm80_bf16_16x128(Combo c);   // src/gemm_sm80_bf16_small.cu
KernelInfo sm80_f16_128x256(Combo c);   // src/gemm_sm80_f16_large.cu
KernelInfo sm80_f16_128x128(Combo c);   // src/gemm_sm80_f16_large.cu
KernelInfo sm80_f16_64x64(Combo c);     // src/gemm_sm80_f16_small.cu
KernelInfo sm80_f16_16x128(Combo c);    // src/gemm_sm80_f16_small.cu
KernelInfo sm80_tf32_128x128(Combo c);  // src/gemm_sm80_tf32.cu
KernelInfo sm80_tf32_64x64(Combo c);    // src/gemm_sm80_tf32.cu
// The exact fp32 FFMA kernel: run-time layouts, one kernel for every order (the Combo is ignored).
KernelInfo sm80_f32_simt128x128(Combo c);  // src/gemm_simt_f32.cu
// The INT8 CUDA-core kernel (dp4a, s32 accumulation): K-major A and B only (Combo::kk; no kernel for the other orders).
KernelInfo sm80_s8_dp4a128x128(Combo c);  // src/gemm_dp4a_s8.cu
// The GEMV kernels (CUDA cores, a batch of 1 as B): K-major A and B only.  src/gemm_gemv.cu.
KernelInfo sm80_bf16_gemv4x1(Combo c);
KernelInfo sm80_f16_gemv4x1(Combo c);

// Hopper (sm_90a: TMA, mbarriers, wgmma).  fn is set whenever the unit is compiled; the code exists only for
// sm_90a (the planner checks the device and cudaFuncGetAttributes).
KernelInfo sm90_bf16_wgmma128x16(Combo c);  // src/gemm_sm90.cu (K-major A and B only)
KernelInfo sm90_f16_wgmma128x16(Combo c);   // src/gemm_sm90_f16.cu
KernelInfo sm90_bf16_wgmma64x16(Combo c);  // src/gemm_sm90.cu (the 64-row weight tiles: K-major A and B only)
KernelInfo sm90_f16_wgmma64x16(Combo c);   // src/gemm_sm90_f16.cu
KernelInfo sm90_bf16_wgmma64x64(Combo c);  // src/gemm_sm90.cu
KernelInfo sm90_f16_wgmma64x64(Combo c);   // src/gemm_sm90_f16.cu
KernelInfo sm90_bf16_wgmma128x64(Combo c);   // src/gemm_sm90.cu
KernelInfo sm90_f16_wgmma128x64(Combo c);    // src/gemm_sm90_f16.cu
KernelInfo sm90_bf16_wgmma128x128(Combo c);  // src/gemm_sm90.cu
KernelInfo sm90_f16_wgmma128x128(Combo c);   // src/gemm_sm90_f16.cu
KernelInfo sm90_bf16_wgmma128x256(Combo c);  // src/gemm_sm90.cu
KernelInfo sm90_f16_wgmma128x256(Combo c);   // src/gemm_sm90_f16.cu
// FP8 (A, B types in the name; K-major A and B only): src/gemm_sm90_fp8.cu.
KernelInfo sm90_e4m3_e4m3_wgmma128x128(Combo c);
KernelInfo sm90_e4m3_e5m2_wgmma128x128(Combo c);
KernelInfo sm90_e5m2_e4m3_wgmma128x128(Combo c);
KernelInfo sm90_e5m2_e5m2_wgmma128x128(Combo c);
KernelInfo sm90_e4m3_e4m3_wgmma128x64(Combo c);
KernelInfo sm90_e4m3_e5m2_wgmma128x64(Combo c);
KernelInfo sm90_e5m2_e4m3_wgmma128x64(Combo c);
KernelInfo sm90_e5m2_e5m2_wgmma128x64(Combo c);
KernelInfo sm90_e4m3_e4m3_wgmma128x16(Combo c);
KernelInfo sm90_e4m3_e5m2_wgmma128x16(Combo c);
KernelInfo sm90_e5m2_e4m3_wgmma128x16(Combo c);
KernelInfo sm90_e5m2_e5m2_wgmma128x16(Combo c);
// The persistent kernels (kernel/gemm_sm90/persistent_kernel.hpp): src/gemm_sm90_persistent.cu, over one unit per
// type and operand order (src/gemm_sm90_persistent.hpp).
KernelInfo sm90_bf16_coop128x256(Combo c);   // src/gemm_sm90_persistent.cu
KernelInfo sm90_f16_coop128x256(Combo c);    // src/gemm_sm90_persistent.cu
// FP8 (K-major A and B only): src/gemm_sm90_persistent.cu, units src/gemm_sm90_persistent_{e4m3,e5m2}_{e4m3,e5m2}_coop_kk.cu.
KernelInfo sm90_e4m3_e4m3_coop128x256(Combo c);
KernelInfo sm90_e4m3_e5m2_coop128x256(Combo c);
KernelInfo sm90_e5m2_e4m3_coop128x256(Combo c);
KernelInfo sm90_e5m2_e5m2_coop128x256(Combo c);
// INT8 (s8 x s8, K-major A and B only): src/gemm_sm90_persistent.cu, unit src/gemm_sm90_persistent_s8_coop_kk.cu.
KernelInfo sm90_s8_s8_coop128x256(Combo c);

}  // namespace tessera::gemm_core
