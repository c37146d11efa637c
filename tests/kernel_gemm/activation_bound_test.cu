// tests/kernel_gemm/activation_bound_test.cu -- the epilogue's approximate activations (ew::op::GeluTanh and
// ew::op::SiluApprox: ex2.approx and a Newton reciprocal in fp32 on the device) against fp64 over the whole fp32 range.
//
// Inputs: every 4096th fp32 bit pattern of either sign (about 2 million values from the smallest
// subnormal to the largest finite float), plus +-0, +-inf and the points around the formulas' edges.
// Bound (stated in kernel/fused/expr.hpp): |device - exact| <= 5e-5 |exact| + 1e-30, exact = fp64 formula
// at the same fp32 input; inf in, the exact limit out (gelu_tanh(-inf) and silu(-inf) are -0 or NaN-free).
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

}  // namespace
