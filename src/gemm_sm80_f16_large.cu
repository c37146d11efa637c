// src/gemm_sm80_f16_large.cu -- instantiation unit: f16 tensor-core GEMM, tiles 128x256 and 128x128,
// all three operand majorness combinations (6 kernels).
#include "tessera/kernel/gemm_sm80/instantiate.hpp"  // make_kernel_info

namespace tessera::gemm_sm80 {

KernelInfo kernel_f16_large(TileId tile, Combo combo) {
  switch (tile) {
    case TileId::t128x256: return make_kernel_info<ElemF16, Tile128x256>(combo);
    case TileId::t128x128: return make_kernel_info<ElemF16, Tile128x128>(combo);
    default: return {};
  }
}

}  // namespace tessera::gemm_sm80
