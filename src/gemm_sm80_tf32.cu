// src/gemm_sm80_tf32.cu -- instantiation unit: tf32 tensor-core GEMM (fp32 operands rounded to tf32),
// tiles 128x128 and 64x64, all three operand majorness combinations (6 kernels).
#include "gemm_kernels.hpp"                          // the getters this unit defines
#include "tessera/kernel/gemm_sm80/instantiate.hpp"  // make_kernel_info

namespace tessera::gemm_core {

KernelInfo sm80_tf32_128x128(Combo c) { return gemm_sm80::make_kernel_info<gemm_sm80::ElemTf32, gemm_sm80::Tile128x128>(c); }
KernelInfo sm80_tf32_64x64(Combo c) { return gemm_sm80::make_kernel_info<gemm_sm80::ElemTf32, gemm_sm80::Tile64x64>(c); }

}  // namespace tessera::gemm_core
