// tests/kernel_gemm/sweep/variant_f.cu -- sweep variant: BLK 256x128, warps 4x2, 4 stages.
#include "sweep.hpp"
#include "tessera/kernel/gemm_sm80/instantiate.hpp"

namespace {
using namespace tessera::gemm_sm80;
using T = TileConfig<256, 128, 4, 2, 4, 1>;
const tessera::sweep::Register reg{tessera::sweep::Variant{
    "256x128 w4x2 s4", make_kernel_info<ElemBf16, T, Major::k, Major::k>(),
    make_kernel_info<ElemBf16, T, Major::k, Major::mn>()}};
}  // namespace
