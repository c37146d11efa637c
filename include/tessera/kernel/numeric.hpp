// include/tessera/kernel/numeric.hpp -- the element types of the kernels (float, bf16, fp16) and their
// 128-bit packing, shared by the fused kernels and the GEMM epilogue.
//
// Those kernels move data in 16-byte vectors (four 32-bit registers, one LDG.E.128 / STG.E.128) and
// compute in fp32.  `Numeric<T>` says how many elements of T fill one vector and converts a
// vector to and from fp32:
//
//   T              kVec   register r[i] holds
//   float          4      element i (bit pattern)
//   __nv_bfloat16  8      elements 2i (low half) and 2i+1 (high half)
//   __half         8      elements 2i (low half) and 2i+1 (high half)
//
// Conversions to the narrow types round to nearest even and keep NaN and infinities (the cvt.rn
// instructions behind __float22bfloat162_rn / __float22half2_rn).  Values that overflow the narrow type
// become infinities, as IEEE 754 rounding says.
#pragma once

#include <cuda_bf16.h>  // __nv_bfloat16, __nv_bfloat162, conversions
#include <cuda_fp16.h>  // __half, __half2, conversions

#include <cstdint>  // uint16_t, uint32_t
#include <cstring>  // std::memcpy

#include "tessera/layout/config.hpp"  // TESSERA_HD_INLINE

namespace tessera {

template <class T>
struct Numeric;  // defined for float, __nv_bfloat16, __half only

template <>
struct Numeric<float> {
  static constexpr int kVec = 4;
  static constexpr const char* kName = "fp32";
  TESSERA_HD_INLINE static float to_float(float v) { return v; }
  TESSERA_HD_INLINE static float from_float(float v) { return v; }
  TESSERA_HD_INLINE static uint32_t bits(float v) {
    uint32_t r;
    std::memcpy(&r, &v, sizeof r);
    return r;
  }
#if defined(__CUDACC__)
  __device__ __forceinline__ static void unpack(const uint32_t (&r)[4], float (&f)[kVec]) {
#pragma unroll
    for (int i = 0; i < 4; ++i) f[i] = __uint_as_float(r[i]);
  }
  __device__ __forceinline__ static void pack(const float (&f)[kVec], uint32_t (&r)[4]) {
#pragma unroll
    for (int i = 0; i < 4; ++i) r[i] = __float_as_uint(f[i]);
  }
#endif
};

namespace numeric_detail {
// Two 16-bit halves of one 32-bit register <-> a packed pair type (bit copy, no conversion).
template <class Pair>
TESSERA_HD_INLINE Pair as_pair(uint32_t r) {
  Pair p;
  static_assert(sizeof(Pair) == sizeof(uint32_t), "a packed pair of 16-bit values must be 32 bits");
  std::memcpy(&p, &r, sizeof p);
  return p;
}
template <class Pair>
TESSERA_HD_INLINE uint32_t as_u32(Pair p) {
  uint32_t r;
  std::memcpy(&r, &p, sizeof r);
  return r;
}
}  // namespace numeric_detail

template <>
struct Numeric<__nv_bfloat16> {
  static constexpr int kVec = 8;
  static constexpr const char* kName = "bf16";
  TESSERA_HD_INLINE static float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
  TESSERA_HD_INLINE static __nv_bfloat16 from_float(float v) { return __float2bfloat16_rn(v); }
  TESSERA_HD_INLINE static uint32_t bits(__nv_bfloat16 v) {  // the 16 bits, zero-extended
    uint16_t r;
    std::memcpy(&r, &v, sizeof r);
    return r;
  }
#if defined(__CUDACC__)
  // One 32-bit register <-> two values (element 0 in the low half).
  __device__ __forceinline__ static void unpack2(uint32_t r, float& a, float& b) {
    const float2 p = __bfloat1622float2(numeric_detail::as_pair<__nv_bfloat162>(r));
    a = p.x;
    b = p.y;
  }
  __device__ __forceinline__ static uint32_t pack2(float a, float b) { return numeric_detail::as_u32(__float22bfloat162_rn(make_float2(a, b))); }
  __device__ __forceinline__ static void unpack(const uint32_t (&r)[4], float (&f)[kVec]) {
#pragma unroll
    for (int i = 0; i < 4; ++i) unpack2(r[i], f[2 * i], f[2 * i + 1]);
  }
  __device__ __forceinline__ static void pack(const float (&f)[kVec], uint32_t (&r)[4]) {
#pragma unroll
    for (int i = 0; i < 4; ++i) r[i] = pack2(f[2 * i], f[2 * i + 1]);
  }
#endif
};

template <>
struct Numeric<__half> {
  static constexpr int kVec = 8;
  static constexpr const char* kName = "fp16";
  TESSERA_HD_INLINE static float to_float(__half v) { return __half2float(v); }
  TESSERA_HD_INLINE static __half from_float(float v) { return __float2half_rn(v); }
  TESSERA_HD_INLINE static uint32_t bits(__half v) {  // the 16 bits, zero-extended
    uint16_t r;
    std::memcpy(&r, &v, sizeof r);
    return r;
  }
#if defined(__CUDACC__)
  // One 32-bit register <-> two values (element 0 in the low half).
  __device__ __forceinline__ static void unpack2(uint32_t r, float& a, float& b) {
    const float2 p = __half22float2(numeric_detail::as_pair<__half2>(r));
    a = p.x;
    b = p.y;
  }
  __device__ __forceinline__ static uint32_t pack2(float a, float b) { return numeric_detail::as_u32(__float22half2_rn(make_float2(a, b))); }
  __device__ __forceinline__ static void unpack(const uint32_t (&r)[4], float (&f)[kVec]) {
#pragma unroll
    for (int i = 0; i < 4; ++i) unpack2(r[i], f[2 * i], f[2 * i + 1]);
  }
  __device__ __forceinline__ static void pack(const float (&f)[kVec], uint32_t (&r)[4]) {
#pragma unroll
    for (int i = 0; i < 4; ++i) r[i] = pack2(f[2 * i], f[2 * i + 1]);
  }
#endif
};

}  // namespace tessera
