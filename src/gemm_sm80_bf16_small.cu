// src/gemm_sm80_bf16_small.cu -- instantiation unit: bf16 tensor-core GEMM, tile 64x64 (three operand
// majorness combinations) and the decode tile 16x128 (K-major A only): 5 kernels.  Also the family's
// lookup, kernel_bf16, which asks both bf16 units.
#include "tessera/kernel/gemm_sm80/instantiate.hpp"  // make_kernel_info

namespace tessera::gemm_sm80 {

KernelInfo kernel_bf16_small(TileId tile, Combo combo) {
  switch (tile) {
    case TileId::t64x64: return make_kernel_info<ElemBf16, Tile64x64>(combo);
    case TileId::t16x128: return make_kernel_info_k_major_a<ElemBf16, Tile16x128>(combo);
    default: return {};
  }
}

KernelInfo kernel_bf16(TileId tile, Combo combo) {
  KernelInfo k = kernel_bf16_large(tile, combo);
  return k.fn ? k : kernel_bf16_small(tile, combo);
}

}  // namespace tessera::gemm_sm80
