// src/gemm_sm80_bf16_small.cu -- instantiation unit: bf16 tensor-core GEMM, tile 64x64 (three operand
// majorness combinations) and the decode tile 16x128 (K-major A only): 5 kernels.
#include "gemm_kernels.hpp"                          // the getters this unit defines
#include "tessera/kernel/gemm_sm80/instantiate.hpp"  // make_kernel_info, make_kernel_info_k_major_a

namespace tessera::gemm_core {

KernelInfo sm80_bf16_64x64(Combo c) { return gemm_sm80::make_kernel_info<gemm_sm80::ElemBf16, gemm_sm80::Tile64x64>(c); }
KernelInfo sm80_bf16_16x128(Combo c) {
  return gemm_sm80::make_kernel_info_k_major_a<gemm_sm80::ElemBf16, gemm_sm80::Tile16x128>(c);
}

}  // namespace tessera::gemm_core
