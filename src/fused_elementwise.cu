// src/fused_elementwise.cu -- the elementwise chains the library ships compiled (fused and unfused).
//
// For T in {float, __nv_bfloat16, __half}: chains::Identity (a copy), chains::SqrtSin, chains::GeluAffine
// (see include/tessera/host/fused.hpp).  Any other expression: include
// include/tessera/kernel/fused/elementwise.hpp from a .cu file and call the same templates.
#include <cuda_bf16.h>  // __nv_bfloat16
#include <cuda_fp16.h>  // __half

#include "tessera/host/fused.hpp"                // chains
#include "tessera/kernel/fused/elementwise.hpp"  // elementwise, elementwise_unfused (definitions)

namespace tessera::fused {

#define TESSERA_INSTANTIATE_CHAIN(T, F)                                                          \
  template void elementwise<T, F>(const F&, const T*, T*, int64_t, cudaStream_t);                \
  template void elementwise_unfused<T, F>(const F&, const T*, T*, int64_t, cudaStream_t);

#define TESSERA_INSTANTIATE_CHAINS(T)                    \
  TESSERA_INSTANTIATE_CHAIN(T, chains::Identity)         \
  TESSERA_INSTANTIATE_CHAIN(T, chains::SqrtSin)          \
  TESSERA_INSTANTIATE_CHAIN(T, chains::GeluAffine)

TESSERA_INSTANTIATE_CHAINS(float)
TESSERA_INSTANTIATE_CHAINS(__nv_bfloat16)
TESSERA_INSTANTIATE_CHAINS(__half)

#undef TESSERA_INSTANTIATE_CHAINS
#undef TESSERA_INSTANTIATE_CHAIN

}  // namespace tessera::fused
