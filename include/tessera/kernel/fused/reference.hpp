// include/tessera/kernel/fused/reference.hpp -- float64 host references of the fused kernels.
//
// Used by the benchmarks and the roofline command to verify a kernel's output before timing it (the
// unit tests in tests/kernel_fused/ carry their own, independent references).  Host only.
#pragma once

#include <cmath>    // std::sqrt, std::isnan, std::isinf, std::fabs
#include <cstdint>      // int64_t
#include <type_traits>  // std::is_same_v
#include <vector>       // std::vector

#include "tessera/kernel/fused/expr.hpp"     // ew expressions (evaluate in double)
#include "tessera/kernel/fused/numeric.hpp"  // Numeric<T>

namespace tessera::fused::reference {

template <class T>
double to_double(T v) { return static_cast<double>(Numeric<T>::to_float(v)); }

// One row of l2_norm (weight == nullptr) or rms_norm, in float64:
//   y[i] = x[i] / sqrt(ss + eps)            (l2)
//   y[i] = x[i] / sqrt(ss / cols + eps) * w[i] (rms)
template <class T>
std::vector<double> row_norm(const T* x, const T* weight, int64_t cols, double eps) {
  double ss = 0;
  for (int64_t i = 0; i < cols; ++i) ss += to_double(x[i]) * to_double(x[i]);
  const double denom = std::sqrt(weight ? ss / double(cols) + eps : ss + eps);
  std::vector<double> y(static_cast<size_t>(cols));
  for (int64_t i = 0; i < cols; ++i) y[i] = to_double(x[i]) / denom * (weight ? to_double(weight[i]) : 1.0);
  return y;
}

// Largest |y - ref| / (|ref| + mag) over the elements (NaN/inf must match in kind: a mismatch returns
// +inf).  mag keeps values near zero from dominating a relative measure.
template <class T>
double max_rel_error(const T* y, const std::vector<double>& ref, double mag = 0.0) {
  double worst = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    const double v = to_double(y[i]), r = ref[i];
    if (std::isnan(r) || std::isinf(r)) {
      if (!(std::isnan(r) ? std::isnan(v) : v == r)) return INFINITY;
      continue;
    }
    if (std::isnan(v) || std::isinf(v)) return INFINITY;
    const double d = std::fabs(v - r) / (std::fabs(r) + mag);
    if (d > worst || std::isnan(d)) worst = std::isnan(d) ? INFINITY : d;
  }
  return worst;
}

// Magnitude below which errors count as absolute (the `mag` of max_rel_error): fp16's smallest normal
// 2^-14, since fp16 outputs below it are subnormal with a fixed spacing of 2^-24; 0 for fp32 and bf16.
template <class T>
constexpr double magnitude_floor() {
  return std::is_same_v<T, __half> ? 1.0 / 16384 : 0.0;
}

// Tolerance for one rounding to T plus fp32 arithmetic (fp32: 1e-5; bf16: 2^-8; fp16: 2^-10).
template <class T>
constexpr double tolerance() {
  if constexpr (std::is_same_v<T, float>) return 1e-5;
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return 1.0 / 256;
  else return 1.0 / 1024;
}

}  // namespace tessera::fused::reference
