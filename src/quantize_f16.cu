// src/quantize_f16.cu -- the quantisation kernels for f16 input (src/quantize_launch.hpp lists them).
#include <cuda_fp16.h>  // __half

#include "quantize_launch.hpp"  // launch_quantize (definition)

namespace tessera::fused::detail {
template void launch_quantize<__half>(const QuantLaunch&, Dtype, const kernel::QuantizeParams<__half>&, cudaStream_t);
}  // namespace tessera::fused::detail
