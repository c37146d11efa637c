// src/quantize_f32.cu -- the quantisation kernels for f32 input (src/quantize_launch.hpp lists them).
#include "quantize_launch.hpp"  // launch_quantize (definition)

namespace tessera::fused::detail {
template void launch_quantize<float>(const QuantLaunch&, Dtype, const kernel::QuantizeParams<float>&, cudaStream_t);
}  // namespace tessera::fused::detail
