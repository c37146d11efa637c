// tests/kernel_gemm/sweep/variant_d.cu -- sweep variant: BLK 128x128, warps 2x2, 4 stages.
#include "sweep.hpp"
#include "tessera/kernel/gemm_sm80/instantiate.hpp"

namespace {
using namespace tessera::gemm_sm80;
using T = TileConfig<128, 128, 2, 2, 4, 1>;
const tessera::sweep::Register reg{tessera::sweep::Variant{
    "128x128 w2x2 s4", make_kernel_info<ElemBf16, T, Major::k, Major::k>(),
    make_kernel_info<ElemBf16, T, Major::k, Major::mn>()}};
}  // namespace
