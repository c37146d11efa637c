// tests/kernel_gemm/sweep/variant_a.cu -- sweep variant: BLK 128x256, warps 2x4, 3 stages.
#include "sweep.hpp"
#include "tessera/kernel/gemm_sm80/instantiate.hpp"

namespace {
using namespace tessera::gemm_sm80;
using T = TileConfig<128, 256, 2, 4, 3, 1>;
const tessera::sweep::Register reg{tessera::sweep::Variant{
    "128x256 w2x4 s3", make_kernel_info<ElemBf16, T, Major::k, Major::k>(),
    make_kernel_info<ElemBf16, T, Major::k, Major::mn>()}};
}  // namespace
