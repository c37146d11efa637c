// src/gemm_sm80_f16_large.cu -- instantiation unit: f16 tensor-core GEMM, tiles 128x256 and 128x128,
// all three operand majorness combinations (6 kernels).
#include "gemm_kernels.hpp"                          // the getters this unit defines
#include "tessera/kernel/gemm_sm80/instantiate.hpp"  // make_kernel_info

namespace tessera::gemm_core {

KernelInfo sm80_f16_128x256(Combo c) { return gemm_sm80::make_kernel_info<gemm_sm80::ElemF16, gemm_sm80::Tile128x256>(c); }
KernelInfo sm80_f16_128x128(Combo c) { return gemm_sm80::make_kernel_info<gemm_sm80::ElemF16, gemm_sm80::Tile128x128>(c); }

}  // namespace tessera::gemm_core
