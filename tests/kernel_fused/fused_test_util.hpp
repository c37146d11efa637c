// tests/kernel_fused/fused_test_util.hpp -- buffers, random data, poisoning and comparison for the fused tests.
#pragma once

#include <cuda_bf16.h>     // __nv_bfloat16
#include <cuda_fp16.h>     // __half
#include <cuda_runtime.h>  // cudaMalloc, cudaMemcpy
#include <gtest/gtest.h>

#include <cmath>    // std::isnan, std::isinf, std::fabs
#include <cstdint>  // uint8_t
#include <cstdlib>  // std::getenv
#include <cstring>  // std::memcmp, std::memset
#include <random>   // std::mt19937_64
#include <sstream>  // std::ostringstream
#include <string>   // std::string
#include <vector>   // std::vector

#include "common/gpu.hpp"                    // TESSERA_REQUIRE_GPU, CUDA_OK
#include "tessera/kernel/fused/numeric.hpp"  // Numeric<T>

namespace tessera::test {

template <class T>
double to_double(T v) { return static_cast<double>(fused::Numeric<T>::to_float(v)); }

// double -> T with round to nearest (through float: for fp32 exact; for the 16-bit types the double
// rounding can differ from a direct rounding by at most one unit in the last place, within tolerance).
template <class T>
T from_double(double v) { return fused::Numeric<T>::from_float(static_cast<float>(v)); }

// Poison byte: 0xFF makes every element a NaN in fp32, bf16 and fp16.
inline constexpr uint8_t kPoison = 0xFF;

// A device allocation with `guard` poisoned elements before and after the `n` usable ones.
template <class T>
class DeviceArray {
 public:
  static constexpr size_t kGuard = 64;  // elements
  explicit DeviceArray(size_t n) : n_(n) {
    EXPECT_EQ(cudaMalloc(&base_, (n_ + 2 * kGuard) * sizeof(T) + 16), cudaSuccess);
  }
  ~DeviceArray() { cudaFree(base_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  T* data() { return reinterpret_cast<T*>(base_) + kGuard; }
  size_t size() const { return n_; }
  void poison() { EXPECT_EQ(cudaMemset(base_, kPoison, (n_ + 2 * kGuard) * sizeof(T)), cudaSuccess); }
  void upload(const std::vector<T>& h) {
    EXPECT_EQ(cudaMemcpy(data(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  }
  std::vector<T> download() {
    std::vector<T> h(n_);
    EXPECT_EQ(cudaMemcpy(h.data(), data(), n_ * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
  }
  // True when both guard regions still hold the poison pattern.
  bool guards_intact() {
    std::vector<uint8_t> g(kGuard * sizeof(T));
    const std::vector<uint8_t> poison(kGuard * sizeof(T), kPoison);
    EXPECT_EQ(cudaMemcpy(g.data(), base_, g.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    if (g != poison) return false;
    EXPECT_EQ(cudaMemcpy(g.data(), data() + n_, g.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    return g == poison;
  }

 private:
  size_t n_;
  void* base_ = nullptr;
};

template <class T>
bool is_poison(T v) {
  uint8_t b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  for (uint8_t x : b)
    if (x != kPoison) return false;
  return true;
}

// Checks y against ref element by element:
//   ref NaN      -> y NaN
//   ref +-inf    -> y the same infinity
//   otherwise    -> |y - ref| <= rtol * (|ref| + mag) + atol      (mag: a magnitude for near-zero values)
// Records at most a few failures with their index; returns the number of failures.
struct Tolerance {
  double rtol, atol, mag;
};
template <class T>
int compare(const std::vector<T>& y, const std::vector<double>& ref, const Tolerance& tol, const std::string& what,
            int max_report = 5) {
  int bad = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    const double v = to_double(y[i]), r = ref[i];
    bool ok;
    if (std::isnan(r)) ok = std::isnan(v);
    else if (std::isinf(r)) ok = v == r;
    else ok = !std::isnan(v) && std::fabs(v - r) <= tol.rtol * (std::fabs(r) + tol.mag) + tol.atol;
    if (!ok && bad++ < max_report)
      ADD_FAILURE() << what << ": element " << i << " is " << v << ", expected " << r << " (rtol " << tol.rtol
                    << ", atol " << tol.atol << ", mag " << tol.mag << ")";
  }
  if (bad > max_report) ADD_FAILURE() << what << ": " << bad << " elements wrong in total";
  return bad;
}

template <class T>
const char* type_name() { return fused::Numeric<T>::kName; }

// TESSERA_TEST_QUICK=1 (used under compute-sanitizer, which slows every launch): sweeps keep every
// residue and every kernel boundary but fewer lengths.
inline bool quick_sweep() {
  const char* q = std::getenv("TESSERA_TEST_QUICK");
  return q && *q && std::string(q) != "0";
}

}  // namespace tessera::test
