// include/tessera/kernel/epilogue/activation.hpp -- the epilogue's activations, in fp32 (host and device).
//
// Each is the textbook formula evaluated with the CUDA math library's accurate functions (tanhf, erff,
// expf: a few ulp), not the approximate intrinsics, so that the result is within a few fp32 ulp of the
// exact function before the final cast.
#pragma once

#include <cmath>  // tanhf, erff, expf, fmaxf, fminf

#include "tessera/kernel/epilogue/types.hpp"  // Activation

#if defined(__CUDACC__)
#define TESSERA_EPI_HD __host__ __device__ __forceinline__
#else
#define TESSERA_EPI_HD inline
#endif

namespace tessera::epilogue {

// sqrt(2 / pi) and 1 / sqrt(2), rounded to fp32.
inline constexpr float kSqrt2OverPi = 0.7978845608028654f;
inline constexpr float kRsqrt2 = 0.7071067811865476f;

TESSERA_EPI_HD float activate(Activation act, float x, float p0, float p1) {
  switch (act) {
    case Activation::none: return x;
    case Activation::relu: return x > 0.f ? x : 0.f;
    case Activation::gelu_tanh: return 0.5f * x * (1.f + tanhf(kSqrt2OverPi * (x + 0.044715f * x * x * x)));
    case Activation::gelu_erf: return 0.5f * x * (1.f + erff(x * kRsqrt2));
    case Activation::silu: return x / (1.f + expf(-x));
    case Activation::leaky_relu: return x >= 0.f ? x : p0 * x;
    case Activation::clamp: return fminf(fmaxf(x, p0), p1);
  }
  return x;
}

}  // namespace tessera::epilogue
