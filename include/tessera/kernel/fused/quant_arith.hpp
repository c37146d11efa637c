// include/tessera/kernel/fused/quant_arith.hpp -- the scalar arithmetic of quantisation, shared by the kernels
// (kernel/fused/quantize.hpp) and the host reference: the scale rule, the IEEE operations, the s8 conversion and the
// packing of four quantised values.
//
// The arithmetic (host and device run exactly these operations, so a host reference can agree bit for bit):
//
//   amax  = max |x| over the scale's group, on the bit patterns (kernel/fused/quantize.hpp): exact, order-free,
//           NaN-propagating
//   qmax  = 448 (e4m3), 57344 (e5m2), 127 (s8)                               quant_max()
//   (scale, inv) = quant_scale(amax, qmax):                                  one IEEE fp32 division each
//       amax == 0                    -> scale = 1,       inv = 1
//       qmax / amax overflows (> FLT_MAX: amax < qmax / FLT_MAX, about 1.3e-36 for e4m3)
//                                    -> scale = 2^-128, inv = FLT_MAX    (q * scale still recovers x)
//       otherwise                    -> scale = amax / qmax, inv = qmax / amax
//   tensor_given:  inv = 1 / scale (the scale read from device memory when the kernel runs)
//   q     = convert(x * inv)                                                 one IEEE fp32 multiplication
//       e4m3 / e5m2: round to nearest even, saturating to the largest finite value (cvt.rn.satfinite,
//                    __nv_cvt_float2_to_fp8x2); NaN -> NaN (the hardware's NaN encoding, 0x7F)
//       s8:          round to nearest even, saturate to [-127, 127]; NaN -> 0 (quant_s8_bits: clamp, then one fp32
//                    addition that rounds; for a group whose amax * inv < 127.5 the addition alone, quant_s8_in_range)
//   dequantised value = q * scale
//
// NaN and infinity (specified, tested in tests/kernel_fused/test_quantize.cpp): a NaN in a group makes its amax
// and scale NaN, and every q of the group NaN (s8: 0).  An infinity (no NaN) makes amax = scale = +inf and
// inv = 0: the group's finite elements quantise to (signed) zeros and its infinities to NaN (s8: 0).
#pragma once

#include <cfloat>   // FLT_MAX
#include <cmath>    // fminf, fmaxf (host side of quant_s8_bits)
#include <cstdint>  // uint32_t, uint8_t
#include <cstring>  // std::memcpy (host side of quant_s8_bits)

#include "tessera/dtype.hpp"          // Dtype
#include "tessera/layout/config.hpp"  // TESSERA_HD_INLINE

#if defined(__CUDACC__)
#include <cuda_fp8.h>  // __nv_cvt_float2_to_fp8x2
#endif

namespace tessera::fused {

// The largest magnitude q may take: 448 (e4m3), 57344 (e5m2), 127 (s8); 0 for any other type.
constexpr float quant_max(Dtype q) {
  return q == Dtype::e4m3 ? 448.0f : q == Dtype::e5m2 ? 57344.0f : q == Dtype::s8 ? 127.0f : 0.0f;
}

// The scale stored and the factor applied, from a group's amax (header comment).
struct ScaleInv {
  float scale, inv;
};

// IEEE fp32 division and multiplication, rounded to nearest even, on both sides (the device forms say so
// explicitly: no contraction, no approximate division whatever the flags).
TESSERA_HD_INLINE float quant_div(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}
TESSERA_HD_INLINE float quant_mul(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}

inline constexpr float kTinyAmaxScale = 0x1p-128f;  // 1 / FLT_MAX rounded: the scale that goes with inv = FLT_MAX

TESSERA_HD_INLINE ScaleInv quant_scale(float amax, float qmax) {
  if (amax == 0.0f) return {1.0f, 1.0f};
  const float inv = quant_div(qmax, amax);  // NaN for a NaN amax, 0 for +inf
  if (inv > FLT_MAX) return {kTinyAmaxScale, FLT_MAX};
  return {quant_div(amax, qmax), inv};
}

// s8 conversion: q = round to nearest even of v clamped to [-127, 127]; NaN -> 0.  The result's low byte is q's
// two's-complement byte (the other bytes are not part of the result).  Only full-rate fp32 operations: for
// |c| <= 2^22, c + 1.5 * 2^23 lies in [2^23, 2^24), where the fp32 spacing is 1, so the IEEE addition rounds c to the
// nearest integer, ties to even (1.5 * 2^23 is even), and the sum's low mantissa bits hold that integer offset by
// 2^22 (whose low byte is 0).  A float-to-int conversion (cvt.rni.s32.f32, F2I) would do it in one instruction but
// issues at a fraction of the fp32 rate, and was most of s8's cost in the kernels.  fminf / fmaxf turn a NaN into
// a bound, hence the select.  Host and device run the same operations (test_quantize_host.cpp checks it against the
// reference on every bf16 value, on ties and on a sweep of fp32 bit patterns).
inline constexpr float kS8RoundBias = 12582912.0f;  // 1.5 * 2^23

TESSERA_HD_INLINE float quant_add(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}

TESSERA_HD_INLINE uint32_t quant_s8_bits(float v) {
  const float c = fminf(fmaxf(v, -127.0f), 127.0f);
  const float r = quant_add(c, kS8RoundBias);
#if defined(__CUDA_ARCH__)
  const uint32_t bits = __float_as_uint(r);
#else
  uint32_t bits;
  std::memcpy(&bits, &r, sizeof bits);
#endif
  return v == v ? bits : 0u;
}

// The same conversion for a value known to satisfy |v| < 127.5 (not NaN): the rounding addition alone.  There the
// clamp cannot change the result (127 < |v| < 127.5 rounds to +-127 either way) and the NaN select has nothing to
// select, so quant_s8_in_range(v) == quant_s8_bits(v) in the low byte.  The kernels take this path for a group whose
// largest product amax * inv, rounded as the elements' products are, is below 127.5 (quant_s8_group_in_range): the
// product is monotone in |x|, so no element's |x * inv| exceeds it.  Halves s8's per-element arithmetic.
TESSERA_HD_INLINE uint32_t quant_s8_in_range(float v) {
  const float r = quant_add(v, kS8RoundBias);
#if defined(__CUDA_ARCH__)
  return __float_as_uint(r);
#else
  uint32_t bits;
  std::memcpy(&bits, &r, sizeof bits);
  return bits;
#endif
}

// Whether every x of a group with max |x| = amax quantises through quant_s8_in_range with
// factor inv: amax * inv < 127.5.  False for a NaN or infinite product (a NaN or infinite amax, or inv NaN / inf).
TESSERA_HD_INLINE bool quant_s8_group_in_range(float amax, float inv) { return quant_mul(amax, inv) < 127.5f; }

#if defined(__CUDACC__)

// The quantised type of a Dtype (e4m3, e5m2, s8): 4 values -> 4 bytes (value 0 in the lowest byte).
template <Dtype Q>
struct QuantOut {
  static_assert(Q == Dtype::e4m3 || Q == Dtype::e5m2 || Q == Dtype::s8, "QuantOut: q must be e4m3, e5m2 or s8");
  static constexpr float kMax = quant_max(Q);

  // kInRange (s8 only): every value satisfies |v| < 127.5 and none is NaN (quant_s8_in_range).
  template <bool kInRange = false>
  __device__ __forceinline__ static uint32_t pack4(float a, float b, float c, float d) {
    if constexpr (Q == Dtype::s8 && kInRange) {
      const uint32_t ab = __byte_perm(quant_s8_in_range(a), quant_s8_in_range(b), 0x0040);  // (a, b, -, -)
      const uint32_t cd = __byte_perm(quant_s8_in_range(c), quant_s8_in_range(d), 0x0040);  // (c, d, -, -)
      return __byte_perm(ab, cd, 0x5410);                                                    // (a, b, c, d)
    } else if constexpr (Q == Dtype::s8) {
      // quant_s8_bits: full-rate operations only (header of quant_s8_bits); PRMT gathers the four low bytes.
      const uint32_t ab = __byte_perm(quant_s8_bits(a), quant_s8_bits(b), 0x0040);  // (a, b, -, -)
      const uint32_t cd = __byte_perm(quant_s8_bits(c), quant_s8_bits(d), 0x0040);  // (c, d, -, -)
      return __byte_perm(ab, cd, 0x5410);                                            // (a, b, c, d)
    } else {
      constexpr __nv_fp8_interpretation_t kFormat = Q == Dtype::e4m3 ? __NV_E4M3 : __NV_E5M2;
      const uint32_t lo = __nv_cvt_float2_to_fp8x2(make_float2(a, b), __NV_SATFINITE, kFormat);
      const uint32_t hi = __nv_cvt_float2_to_fp8x2(make_float2(c, d), __NV_SATFINITE, kFormat);
      return lo | (hi << 16);
    }
  }
  __device__ __forceinline__ static uint8_t one(float v) { return static_cast<uint8_t>(pack4(v, 0.f, 0.f, 0.f) & 0xffu); }
};

#endif  // __CUDACC__

}  // namespace tessera::fused
