// tests/kernel_gemm/activation_bound_test.cu -- the epilogue's approximate activations against fp64 over the whole fp32
// range.
//
// ew::op::GeluTanh and ew::op::SiluApprox (ex2.approx and a Newton reciprocal in fp32 on the device;
// gemm_epilogue_inplace's): every 4096th fp32 bit pattern of either sign (about 2 million values from the smallest
// subnormal to the largest finite float), plus +-0, +-inf and the points around the formulas' edges.  Bound (stated in
// kernel/fused/expr.hpp): |device - exact| <= 5e-5 |exact| + 1e-30, exact = fp64 formula at the same fp32 input; inf
// in, the exact limit out (gelu_tanh(-inf) and silu(-inf) are -0 or NaN-free).
//
// ew::op::GeluTanhHw and ew::op::SiluHw (the hardware tanh; the GEMM kernels' fragment and staged epilogues') and
// ew::op::GeluHw (gelu_erf without branches; the fragment epilogue's): every fp32 bit pattern, 2^32 inputs, checked on
// the GPU against the fp64 formula evaluated there.  Bounds (kernel/fused/expr.hpp): |device - exact| <= 8e-6 |x| + 1e-30 (tanh forms), 5e-5 |exact| + 1e-30
// (GeluHw), for finite x; +inf -> +inf, -inf -> 0, NaN -> NaN.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "common/gpu.hpp"
#include "tessera/kernel/fused/expr.hpp"

namespace {

using namespace tessera;

template <class Op>
__global__ void eval_op(const float* x, float* y, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) y[i] = Op::apply(x[i]);
}

std::vector<float> sweep_inputs() {
  std::vector<float> xs;
  for (uint64_t bits = 1; bits < 0x7F800000u; bits += 4096) {
    float f;
    const uint32_t b = static_cast<uint32_t>(bits);
    std::memcpy(&f, &b, 4);
    xs.push_back(f);
    xs.push_back(-f);
  }
  for (float f : {0.f, -0.f, 1e-30f, -1e-30f, 10.f, -10.f, 40.f, -40.f, 43.5f, -43.5f, 88.f, -88.f, 100.f, -100.f})
    xs.push_back(f);
  return xs;
}

template <class Op>
void check_bound(double (*exact)(double), const char* name) {
  const std::vector<float> xs = sweep_inputs();
  const int n = static_cast<int>(xs.size());
  float *dx = nullptr, *dy = nullptr;
  ASSERT_EQ(cudaMalloc(&dx, n * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dy, n * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(dx, xs.data(), n * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  eval_op<Op><<<(n + 255) / 256, 256>>>(dx, dy, n);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  std::vector<float> ys(xs.size());
  ASSERT_EQ(cudaMemcpy(ys.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(dx);
  cudaFree(dy);
  double worst_rel = 0;
  int bad = 0;
  for (int i = 0; i < n && bad < 10; ++i) {
    const double e = exact(static_cast<double>(xs[i]));
    const double got = ys[static_cast<size_t>(i)];
    const double err = std::fabs(got - e);
    if (!(err <= 5e-5 * std::fabs(e) + 1e-30)) {
      ++bad;
      ADD_FAILURE() << name << "(" << xs[i] << ") = " << got << ", exact " << e << ", |error| " << err;
    }
    if (std::fabs(e) > 1e-30) worst_rel = std::max(worst_rel, err / std::fabs(e));
  }
  std::printf("%s: %d inputs, worst relative error %.3g (bound 5e-5)\n", name, n, worst_rel);
}

// ---- every fp32 input, on the GPU ----
struct HwResult {
  unsigned long long checked;  // finite inputs compared
  unsigned int worst;          // bits of the largest |error| / |x| (a non-negative float orders as its bits)
  unsigned int bad;            // inputs outside the bound (or with a wrong special value)
  unsigned int first_bad;      // bits of one such input
};

__device__ double gelu_tanh_exact_d(double x) {
  const double u = 0.7978845608028654 * (x + 0.044715 * x * x * x);
  return x / (1.0 + exp(-2.0 * u));
}
__device__ double silu_exact_d(double x) { return x / (1.0 + exp(-x)); }

__device__ double gelu_erf_exact_d(double x) { return 0.5 * x * erfc(-x * 0.70710678118654752440); }

// kFn: 0 gelu_tanh, 1 silu, 2 gelu (erf).  kRelative: the bound is bound |exact| + 1e-30, else bound |x| + 1e-30.
template <class Op, int kFn, bool kRelative>
__global__ void sweep_all(HwResult* r, double bound) {
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  float worst = 0.f;
  unsigned long long checked = 0;
  for (uint64_t i = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x; i < (1ull << 32); i += stride) {
    const uint32_t b = static_cast<uint32_t>(i);
    const float x = __uint_as_float(b);
    const float y = Op::apply(x);
    bool ok;
    if (isnan(x)) {
      ok = isnan(y);
    } else if (isinf(x)) {
      ok = x > 0 ? (isinf(y) && y > 0) : y == 0.f;
    } else {
      const double xd = x;
      const double e = kFn == 0 ? gelu_tanh_exact_d(xd) : kFn == 1 ? silu_exact_d(xd) : gelu_erf_exact_d(xd);
      const double err = fabs(static_cast<double>(y) - e);
      const double scale = kRelative ? fabs(e) : fabs(xd);
      ok = err <= bound * scale + 1e-30;  // NaN y fails
      if (scale >= 1e-20) worst = fmaxf(worst, static_cast<float>(err / scale));  // (below, the 1e-30 term)
      ++checked;
    }
    if (!ok) {
      atomicAdd(&r->bad, 1u);
      atomicExch(&r->first_bad, b);
    }
  }
  atomicAdd(&r->checked, checked);
  atomicMax(&r->worst, __float_as_uint(worst));
}

template <class Op, int kFn, bool kRelative = false>
void check_every_input(const char* name, double kBound = 8e-6) {
  HwResult* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, sizeof(HwResult)), cudaSuccess);
  ASSERT_EQ(cudaMemset(d, 0, sizeof(HwResult)), cudaSuccess);
  sweep_all<Op, kFn, kRelative><<<132 * 8, 256>>>(d, kBound);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  HwResult h{};
  ASSERT_EQ(cudaMemcpy(&h, d, sizeof(HwResult), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(d);
  float worst;
  std::memcpy(&worst, &h.worst, 4);
  float first;
  std::memcpy(&first, &h.first_bad, 4);
  // 2^32 patterns: 2^24 - 2 NaNs and two infinities are not counted
  EXPECT_EQ(h.checked, (1ull << 32) - (1ull << 24));
  const char* scale = kRelative ? "|exact|" : "|x|";
  EXPECT_EQ(h.bad, 0u) << name << ": " << h.bad << " inputs outside |error| <= " << kBound << " " << scale << " + 1e-30, e.g. x = "
                       << first << " (bits 0x" << std::hex << h.first_bad << ")";
  std::printf("%s: every fp32 input (%llu finite), worst |error| / %s for %s >= 1e-20 %.3g (bound %.0e)\n", name, h.checked,
              scale, scale, worst, kBound);
}

// The exact functions in fp64 (written so that they stay accurate at both ends).
double gelu_tanh_exact(double x) {
  const double u = 0.7978845608028654 * (x + 0.044715 * x * x * x);
  return x / (1.0 + std::exp(-2.0 * u));  // = 0.5 x (1 + tanh u)
}
double silu_exact(double x) { return x / (1.0 + std::exp(-x)); }

TEST(ActivationBound, GeluTanh) {
  TESSERA_REQUIRE_GPU();
  check_bound<ew::op::GeluTanh>(gelu_tanh_exact, "gelu_tanh");
}

TEST(ActivationBound, Silu) {
  TESSERA_REQUIRE_GPU();
  check_bound<ew::op::SiluApprox>(silu_exact, "silu");
}

TEST(ActivationBound, GeluTanhHw) {
  TESSERA_REQUIRE_GPU();
  check_every_input<ew::op::GeluTanhHw, 0>("gelu_tanh_hw");
}

TEST(ActivationBound, SiluHw) {
  TESSERA_REQUIRE_GPU();
  check_every_input<ew::op::SiluHw, 1>("silu_hw");
}

TEST(ActivationBound, GeluHw) {
  TESSERA_REQUIRE_GPU();
  check_every_input<ew::op::GeluHw, 2, true>("gelu_hw", 5e-5);
}

}  // namespace
