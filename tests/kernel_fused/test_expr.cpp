// tests/kernel_fused/test_expr.cpp -- the elementwise expression algebra on the host (no GPU needed).
#include <gtest/gtest.h>

#include <algorithm>    // std::max
#include <cmath>        // std::sin, std::sqrt, std::erfc
#include <cstdint>      // uint32_t, uint64_t
#include <cstdio>       // std::printf
#include <cstring>      // std::memcpy
#include <limits>       // std::numeric_limits
#include <tuple>        // std::tuple_size_v, std::get
#include <type_traits>  // std::is_same_v

#include "tessera/host/fused.hpp"          // chains
#include "tessera/kernel/fused/expr.hpp"   // ew

namespace {

using namespace tessera::ew;

double gelu_ref(double v) { return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))); }
double gelu_ref_erfc(double v) { return 0.5 * v * std::erfc(-v / std::sqrt(2.0)); }  // (accurate for v << 0 too)

TEST(FusedExpr, EvaluatesTheFormula) {
  const auto f = sqrt(sin(x));
  for (double v : {0.1, 0.7, 1.5, 3.0}) EXPECT_DOUBLE_EQ(f(v), std::sqrt(std::sin(v)));
  EXPECT_FLOAT_EQ(f(0.5f), std::sqrt(std::sin(0.5f)));
  const auto g = gelu(x * 1.702f + 0.25f);
  for (double v : {-6.0, -3.0, -0.5, 0.0, 0.3, 2.0}) {
    const double a = v * double(1.702f) + 0.25;
    EXPECT_NEAR(g(v), gelu_ref(a), 1e-15 * (1 + std::fabs(gelu_ref(a)))) << v;
  }
  // the erfc form keeps fp32 accurate where 1 + erf(v) cancels (v = -5: gelu ~ -1.4e-6)
  const float gf = gelu(x)(-5.0f);
  EXPECT_NEAR(gf, gelu_ref(-5.0), 1e-5 * std::fabs(gelu_ref(-5.0)));
  const auto h = 1.5f - relu(x) * 2.0f;
  EXPECT_DOUBLE_EQ(h(-3.0), 1.5);
  EXPECT_DOUBLE_EQ(h(0.25), 1.0);
  const auto k = x * sin(x) + silu(x) / 4.0f;
  EXPECT_NEAR(k(0.8), 0.8 * std::sin(0.8) + 0.8 / (1 + std::exp(-0.8)) / 4, 1e-15);
  EXPECT_DOUBLE_EQ((-x)(2.0), -2.0);
  EXPECT_DOUBLE_EQ((x / 4.0f - 1.0f)(2.0), -0.5);
}

TEST(FusedExpr, SpecialValuesFollowIeee) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isnan(sqrt(sin(x))(inf)));
  EXPECT_TRUE(std::isnan(sqrt(x)(-1.0)));
  EXPECT_EQ(gelu(x)(inf), inf);
  EXPECT_TRUE(std::isnan(gelu(x)(-inf)));  // -inf * erfc(inf) = -inf * 0
  EXPECT_TRUE(std::isnan(relu(x)(nan)));   // relu keeps NaN
  EXPECT_TRUE(std::signbit(relu(x)(-0.0)));
}

// The fp32 formula of op::GeluHw (the Hopper GEMM epilogue's gelu_erf) on the host, where its reciprocal and 2^x are
// 1 / d and exp2f instead of MUFU.RCP and MUFU.EX2 (the device sweeps every input: ActivationBound.GeluHw): every
// 256th fp32 bit pattern of either sign against fp64, |error| <= 5e-5 |exact| + 1e-30; the special values.
TEST(FusedExpr, GeluHwFormulaHoldsItsBound) {
  double worst = 0;
  int bad = 0;
  for (uint64_t bits = 0; bits < 0x7F800000u; bits += 256) {
    const uint32_t b = static_cast<uint32_t>(bits);
    float f;
    std::memcpy(&f, &b, 4);
    for (float v : {f, -f}) {
      const double e = gelu_ref_erfc(v);
      const double got = op::GeluHw::apply(v);
      const double err = std::fabs(got - e);
      if (!(err <= 5e-5 * std::fabs(e) + 1e-30) && ++bad <= 5) ADD_FAILURE() << "gelu_hw(" << v << ") = " << got << ", exact " << e;
      if (std::fabs(e) > 1e-30) worst = std::max(worst, err / std::fabs(e));
    }
  }
  EXPECT_EQ(bad, 0);
  std::printf("gelu_hw (host formula): worst relative error %.3g (bound 5e-5)\n", worst);
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(op::GeluHw::apply(inf), inf);
  EXPECT_EQ(op::GeluHw::apply(-inf), 0.f);
  EXPECT_TRUE(std::isnan(op::GeluHw::apply(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_EQ(op::GeluHw::apply(0.f), 0.f);
  EXPECT_NEAR(op::GeluHw::apply(1.0), gelu_ref(1.0), 1e-15);  // fp64: the gelu formula
}

TEST(FusedExpr, PrintsInBuildSyntax) {
  EXPECT_EQ(to_string(x), "x");
  EXPECT_EQ(to_string(sqrt(sin(x))), "sqrt(sin(x))");
  EXPECT_EQ(to_string(gelu(x * 1.702f + 0.25f)), "gelu(x*1.702+0.25)");
  EXPECT_EQ(to_string((x + 1) * 2), "(x+1)*2");
  EXPECT_EQ(to_string(x - (x - 1)), "x-(x-1)");
  EXPECT_EQ(to_string(x / (x * 2)), "x/(x*2)");
  EXPECT_EQ(to_string(x * 2 / 3), "x*2/3");
  EXPECT_EQ(to_string(-sin(x)), "-sin(x)");
  EXPECT_EQ(to_string(-(x + 1)), "-(x+1)");
  EXPECT_EQ(to_string(1.5f - relu(x) * 2.0f), "1.5-relu(x)*2");
}

TEST(FusedExpr, CountsOperations) {
  EXPECT_EQ(flops(x), 0);
  EXPECT_EQ(flops(sqrt(sin(x))), 2);
  EXPECT_EQ(flops(gelu(x * 2 + 1)), 6);
  EXPECT_EQ(flops(silu(x)), 4);
  EXPECT_EQ(decltype(x * sin(x))::kXCount, 2);
}

TEST(FusedExpr, SplitsChainsIntoStages) {
  const auto g = gelu(x * 3.0f + 0.5f);
  const auto st = stages(g);
  static_assert(std::tuple_size_v<decltype(st)> == 3, "gelu(x*a+b) has three stages");
  static_assert(std::is_same_v<std::tuple_element_t<2, decltype(stages(g))>, Unary<op::Gelu, X>>, "gelu last");
  EXPECT_EQ(to_string(std::get<0>(st)), "x*3");
  EXPECT_EQ(to_string(std::get<1>(st)), "x+0.5");
  EXPECT_EQ(to_string(std::get<2>(st)), "gelu(x)");
  const auto c = 1.5f - relu(x) * 2.0f;
  const auto sc = stages(c);
  EXPECT_EQ(to_string(std::get<0>(sc)), "relu(x)");
  EXPECT_EQ(to_string(std::get<1>(sc)), "x*2");
  EXPECT_EQ(to_string(std::get<2>(sc)), "1.5-x");
  // applying the stages in order is the expression
  double v = 0.7, r = v;
  std::apply([&](const auto&... s) { ((r = s(r)), ...); }, st);
  EXPECT_DOUBLE_EQ(r, g(v));
  static_assert(std::tuple_size_v<decltype(stages(x))> == 0, "x alone has no stages");
}

TEST(FusedExpr, LibraryChainsHaveTheDocumentedTypes) {
  namespace chains = tessera::fused::chains;
  static_assert(std::is_same_v<decltype(chains::gelu_affine(2.0f, 1.0f)), chains::GeluAffine>, "GeluAffine");
  EXPECT_EQ(to_string(chains::gelu_affine(2.0f, -1.0f)), "gelu(x*2-1)");
  EXPECT_EQ(to_string(chains::sqrt_sin()), "sqrt(sin(x))");
}

}  // namespace
