// tests/kernel_fused/quantize_reference.hpp -- the host reference of tessera::fused::quantize (test_quantize.cpp, the
// device cases, and test_quantize_host.cpp, the host-only checks), written from the specification
// (include/tessera/host/quantize.hpp), not from the kernels: FP8 encoding by formula (exponent, mantissa, round to
// nearest even, saturate to the largest finite value), s8 by rounding and clamping, amax as a NaN-propagating max, the
// scale rule written out again, and the expected q, scales and amax of one tensor.
#pragma once

#include <algorithm>  // std::min, std::max
#include <cfloat>     // FLT_MAX
#include <cmath>      // std::frexp, std::ldexp, std::nearbyint, std::fabs, std::isnan, std::isinf, std::nextafter
#include <cstdint>    // uint8_t, uint32_t, int64_t
#include <cstring>    // std::memcpy
#include <vector>     // std::vector

#include "fused_test_util.hpp"        // to_double
#include "tessera/host/quantize.hpp"  // QuantScale, quantize_scale_shape

namespace tessera::test::quant_ref {

using fused::QuantScale;

inline constexpr QuantScale kModes[] = {QuantScale::tensor, QuantScale::tensor_given, QuantScale::row, QuantScale::block_1x128,
                                 QuantScale::block_128x128};
inline constexpr Dtype kQTypes[] = {Dtype::e4m3, Dtype::e5m2, Dtype::s8};

inline uint32_t bits_of(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// ---- the reference ----

struct Fp8Format {
  int exp_bits, man_bits;
  double max_finite;
};
inline Fp8Format fp8_format(Dtype t) { return t == Dtype::e4m3 ? Fp8Format{4, 3, 448.0} : Fp8Format{5, 2, 57344.0}; }
inline double qmax_of(Dtype t) { return t == Dtype::e4m3 ? 448.0 : t == Dtype::e5m2 ? 57344.0 : 127.0; }

// float -> FP8 byte: round to nearest even on the format's grid, saturate to +-max_finite; NaN -> 0x7F.
inline uint8_t ref_fp8(float v, Dtype t) {
  const Fp8Format f = fp8_format(t);
  if (std::isnan(v)) return 0x7F;
  const uint8_t sign = std::signbit(v) ? 0x80 : 0x00;
  const int bias = (1 << (f.exp_bits - 1)) - 1;
  const int emin = 1 - bias;  // exponent of the smallest normal binade (the subnormals share its quantum)
  double a = std::fabs(static_cast<double>(v));
  if (std::isinf(a)) a = f.max_finite;
  if (a == 0) return sign;
  int e;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  const int binade = std::max(e - 1, emin);
  const double quantum = std::ldexp(1.0, binade - f.man_bits);
  double r = std::nearbyint(a / quantum) * quantum;  // exact division (power of two); nearbyint: ties to even
  if (r > f.max_finite) r = f.max_finite;
  if (r == 0) return sign;
  std::frexp(r, &e);
  const int er = e - 1;
  if (er < emin) return static_cast<uint8_t>(sign | static_cast<int>(r / std::ldexp(1.0, emin - f.man_bits)));
  const int mant = static_cast<int>(r / std::ldexp(1.0, er - f.man_bits)) - (1 << f.man_bits);
  return static_cast<uint8_t>(sign | ((er + bias) << f.man_bits) | mant);
}

inline uint8_t ref_s8(float v) {
  if (std::isnan(v)) return 0;
  const double c = std::min(127.0, std::max(-127.0, static_cast<double>(v)));
  return static_cast<uint8_t>(static_cast<int8_t>(std::nearbyint(c)));
}

inline uint8_t ref_q(float v, Dtype t) { return t == Dtype::s8 ? ref_s8(v) : ref_fp8(v, t); }

inline bool q_is_nan(uint8_t b, Dtype t) {
  if (t == Dtype::e4m3) return (b & 0x7F) == 0x7F;
  if (t == Dtype::e5m2) return (b & 0x7C) == 0x7C && (b & 0x03) != 0;
  return false;
}

// The value of a q byte.
inline double q_value(uint8_t b, Dtype t) {
  if (t == Dtype::s8) return static_cast<int8_t>(b);
  const Fp8Format f = fp8_format(t);
  const int bias = (1 << (f.exp_bits - 1)) - 1;
  const int ef = (b >> f.man_bits) & ((1 << f.exp_bits) - 1), m = b & ((1 << f.man_bits) - 1);
  const double mag = ef == 0 ? std::ldexp(m, 1 - bias - f.man_bits) : std::ldexp((1 << f.man_bits) + m, ef - bias - f.man_bits);
  return (b & 0x80) ? -mag : mag;
}

// The quantum (step) of the grid at |q|.
inline double q_step(uint8_t b, Dtype t) {
  if (t == Dtype::s8) return 1.0;
  const Fp8Format f = fp8_format(t);
  const int bias = (1 << (f.exp_bits - 1)) - 1;
  const int ef = (b >> f.man_bits) & ((1 << f.exp_bits) - 1);
  return std::ldexp(1.0, std::max(ef, 1) - bias - f.man_bits);
}

// The scale rule, written out: amax 0 -> (1, 1); qmax / amax overflowing -> (2^-128, FLT_MAX); else
// (amax / qmax, qmax / amax), each one fp32 division.
struct RefScale {
  float scale, inv;
};
inline RefScale ref_scale(float amax, Dtype t) {
  const float qmax = static_cast<float>(qmax_of(t));
  if (amax == 0.0f) return {1.0f, 1.0f};
  const volatile float inv = qmax / amax;  // volatile: one rounded fp32 division, as written
  if (inv > FLT_MAX) return {std::ldexp(1.0f, -128), FLT_MAX};
  const volatile float scale = amax / qmax;
  return {scale, inv};
}

// NaN-propagating max of |v|.
inline float amax_add(float m, float v) {
  if (std::isnan(m) || std::isnan(v)) return std::numeric_limits<float>::quiet_NaN();
  return std::max(m, std::fabs(v));
}

struct Expected {
  std::vector<uint8_t> q;      // (rows, cols) compact
  std::vector<float> scale;    // the mode's scale shape
  std::vector<float> amax;     // the scale's shape
};

// x: host copy of the x buffer; element (r, c) at x_off + r * ld_x + c.  given: tensor_given's scale.
template <class T>
Expected reference(const std::vector<T>& x, int64_t x_off, int64_t ld_x, int64_t rows, int64_t cols, Dtype qt,
                   QuantScale mode, float given) {
  const fused::ScaleShape sh = fused::quantize_scale_shape(mode, rows, cols);
  const int64_t gr = mode == QuantScale::row || mode == QuantScale::block_1x128 ? 1
                     : mode == QuantScale::block_128x128                        ? 128
                                                                                : rows;
  const int64_t gc = mode == QuantScale::block_1x128 || mode == QuantScale::block_128x128 ? 128 : cols;
  auto xv = [&](int64_t r, int64_t c) { return fused::Numeric<T>::to_float(x[x_off + r * ld_x + c]); };
  Expected e;
  e.q.assign(static_cast<size_t>(rows * cols), 0);
  e.scale.assign(static_cast<size_t>(sh.elems()), 0.0f);
  e.amax.assign(static_cast<size_t>(sh.elems()), 0.0f);
  for (int64_t br = 0; br < sh.rows; ++br) {
    for (int64_t bc = 0; bc < sh.cols; ++bc) {
      const int64_t r0 = br * gr, r1 = std::min(rows, r0 + gr), c0 = bc * gc, c1 = std::min(cols, c0 + gc);
      float amax = 0.0f;
      for (int64_t r = r0; r < r1; ++r)
        for (int64_t c = c0; c < c1; ++c) amax = amax_add(amax, xv(r, c));
      RefScale s = ref_scale(amax, qt);
      if (mode == QuantScale::tensor_given) {
        const volatile float inv = 1.0f / given;
        s = {given, inv};
      }
      e.scale[bc * sh.rows + br] = s.scale;  // (block-column-major: tessera/host/quantize.hpp)
      e.amax[bc * sh.rows + br] = amax;
      for (int64_t r = r0; r < r1; ++r)
        for (int64_t c = c0; c < c1; ++c) {
          const volatile float prod = xv(r, c) * s.inv;
          e.q[r * cols + c] = ref_q(prod, qt);
        }
    }
  }
  return e;
}


}  // namespace tessera::test::quant_ref
