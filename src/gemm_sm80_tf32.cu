// src/gemm_sm80_tf32.cu -- instantiation unit: tf32 tensor-core GEMM (fp32 operands rounded to tf32),
// tiles 128x128 and 64x64, all three operand majorness combinations (6 kernels).
#include "tessera/kernel/gemm_sm80/instantiate.hpp"  // make_kernel_info

namespace tessera::gemm_sm80 {

KernelInfo kernel_tf32(TileId tile, Combo combo) {
  switch (tile) {
    case TileId::t128x128: return make_kernel_info<ElemTf32, Tile128x128>(combo);
    case TileId::t64x64: return make_kernel_info<ElemTf32, Tile64x64>(combo);
    default: return {};
  }
}

}  // namespace tessera::gemm_sm80
