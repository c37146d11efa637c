// src/quantize_bf16.cu -- the quantisation kernels for bf16 input (src/quantize_launch.hpp lists them).
#include <cuda_bf16.h>  // __nv_bfloat16

#include "quantize_launch.hpp"  // launch_quantize (definition)

namespace tessera::fused::detail {
template void launch_quantize<__nv_bfloat16>(const QuantLaunch&, Dtype, const kernel::QuantizeParams<__nv_bfloat16>&, cudaStream_t);
}  // namespace tessera::fused::detail
