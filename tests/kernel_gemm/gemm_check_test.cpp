// tests/kernel_gemm/gemm_check_test.cpp -- host tests (no GPU needed) of the device tests' checker: the float64
// comparison that run_gemm_case applies to every element of D (gemm_check.hpp, reference_misses) finds planted errors,
// in row order and at most 8, on however many threads it runs, and lets an output within the stated tolerance pass.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernel_gemm/gemm_check.hpp"

namespace {

using namespace tessera;
using tessera::test::GemmCase;
using tessera::test::Mat;
using tessera::test::RefMiss;

// A bf16 case with every epilogue input, and D's image holding the exact reference rounded to bf16.
struct Fixture {
  GemmCase cs;
  Mat A, B, C, R, D;
  std::vector<double> bias;
  std::vector<unsigned char> out;
  std::vector<double> ref;  // the reference, row-major m x n
  Fixture() {
    cs.m = 203; cs.n = 57; cs.k = 45;
    cs.in = cs.out = Dtype::bf16;
    cs.ob = MatrixOrder::col_major;
    cs.od = MatrixOrder::col_major;
    cs.alpha = 0.75f;
    cs.beta = 0.5f;
    cs.bias = BiasMode::per_column;
    cs.act = Activation::gelu_tanh;
    cs.residual = true;
    std::mt19937 rng(7);
    using tessera::test::make_mat;
    make_mat(A, cs.m, cs.k, cs.oa, cs.in, 3, 1, rng, true);
    make_mat(B, cs.k, cs.n, cs.ob, cs.in, 0, 0, rng, true);
    make_mat(C, cs.m, cs.n, cs.oc, cs.out, 0, 0, rng, true);
    make_mat(R, cs.m, cs.n, cs.orr, cs.out, 0, 0, rng, true);
    make_mat(D, cs.m, cs.n, cs.od, cs.out, 5, 2, rng, false);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (int64_t j = 0; j < cs.n; ++j) bias.push_back(tessera::test::round_to(Dtype::bf16, u(rng)));
    out = D.bytes;
    for (int64_t i = 0; i < cs.m; ++i)
      for (int64_t j = 0; j < cs.n; ++j) {
        double acc = 0;
        for (int64_t kk = 0; kk < cs.k; ++kk) acc += A.at(i, kk) * B.at(kk, j);
        const double x = cs.alpha * acc + cs.beta * C.at(i, j) + bias[static_cast<size_t>(j)];
        const double v = 0.5 * x * (1 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x))) + R.at(i, j);
        ref.push_back(v);
        tessera::test::store_elem(cs.out, out.data(), D.index(i, j), v);
      }
  }
  std::vector<RefMiss> misses() const { return tessera::test::reference_misses(cs, A, B, C, R, bias, out, D); }
  void set(int64_t i, int64_t j, double v) { tessera::test::store_elem(cs.out, out.data(), D.index(i, j), v); }
  double at(int64_t i, int64_t j) const { return tessera::test::load_elem(cs.out, out.data(), D.index(i, j)); }
};

TEST(GemmCheck, TheRoundedReferencePasses) {
  Fixture f;
  EXPECT_TRUE(f.misses().empty());
}

TEST(GemmCheck, TheOtherNeighbourOfTheReferencePasses) {
  // Each element one bf16 step from its rounded reference, on the reference's other side: within one unit in the last
  // place of the exact value, so inside the tolerance (two units of roundoff).
  Fixture f;
  for (int64_t i = 0; i < f.cs.m; ++i)
    for (int64_t j = 0; j < f.cs.n; ++j) {
      const double v = f.ref[static_cast<size_t>(i * f.cs.n + j)];
      __nv_bfloat16_raw r = __float2bfloat16_rn(static_cast<float>(v));
      const double rv = __bfloat162float(__nv_bfloat16(r));
      if (rv == v) continue;
      // away from zero when the rounding went toward it, and back otherwise
      r.x = static_cast<unsigned short>((std::fabs(rv) < std::fabs(v)) ? r.x + 1 : r.x - 1);
      f.set(i, j, __bfloat162float(__nv_bfloat16(r)));
    }
  EXPECT_TRUE(f.misses().empty());
}

TEST(GemmCheck, PlantedErrorsAreFoundInRowOrderAtMostEight) {
  Fixture f;
  // Planted from the last row back, so that the report's order is the checker's, not the planting's.
  const int64_t rows[] = {202, 190, 151, 150, 120, 77, 64, 40, 39, 7, 3, 0};
  for (int64_t i : rows) f.set(i, (i * 13) % f.cs.n, f.at(i, (i * 13) % f.cs.n) + 0.25 + std::fabs(f.at(i, (i * 13) % f.cs.n)));
  f.set(3, 50, NAN);  // a NaN never passes
  const std::vector<RefMiss> m = f.misses();
  ASSERT_EQ(m.size(), 8u);
  const int64_t want_i[] = {0, 3, 3, 7, 39, 40, 64, 77};
  const int64_t want_j[] = {0, 39, 50, 91 % 57, (39 * 13) % 57, (40 * 13) % 57, (64 * 13) % 57, (77 * 13) % 57};
  for (size_t x = 0; x < 8; ++x) {
    EXPECT_EQ(m[x].i, want_i[x]) << x;
    EXPECT_EQ(m[x].j, want_j[x]) << x;
    EXPECT_FALSE(m[x].err <= m[x].tol) << x;
  }
  EXPECT_TRUE(std::isnan(m[2].got));
}

TEST(GemmCheck, AnInfiniteReferenceMustBeExact) {
  // +inf in the bias: the column's references are +inf (GELU's limit), which only +inf matches.
  Fixture f;
  f.bias[9] = HUGE_VAL;
  for (int64_t i = 0; i < f.cs.m; ++i) f.set(i, 9, HUGE_VAL);
  EXPECT_TRUE(f.misses().empty());
  f.set(100, 9, 3.0e38);  // finite, however large
  const std::vector<RefMiss> m = f.misses();
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].i, 100);
  EXPECT_EQ(m[0].j, 9);
}

// The FP8 conversions (cuda_fp8.h's host ones): round to nearest even, saturating at the largest finite value; the
// device image's bytes; the poison byte reads as NaN.
TEST(GemmCheck, Fp8Conversions) {
  using tessera::test::load_elem;
  using tessera::test::round_to;
  using tessera::test::store_elem;
  EXPECT_EQ(round_to(Dtype::e4m3, 0.34), 0.34375);  // 1.36 x 2^-2: e4m3's 3 mantissa bits give 1.375
  EXPECT_EQ(round_to(Dtype::e5m2, 0.34), 0.3125);   // e5m2's 2 give 1.25
  EXPECT_EQ(round_to(Dtype::e4m3, 1.0625), 1.0);    // ties to even: 1.0 (mantissa 000), not 1.125 (001)
  EXPECT_EQ(round_to(Dtype::e4m3, 1.1875), 1.25);   // 1.25 (010), not 1.125 (001)
  EXPECT_EQ(round_to(Dtype::e4m3, 1000.0), 448.0);  // saturated
  EXPECT_EQ(round_to(Dtype::e4m3, -1000.0), -448.0);
  EXPECT_EQ(round_to(Dtype::e5m2, 1e6), 57344.0);
  EXPECT_EQ(round_to(Dtype::e4m3, 0x1p-9), 0x1p-9);  // the smallest subnormals
  EXPECT_EQ(round_to(Dtype::e5m2, 0x1p-16), 0x1p-16);
  EXPECT_EQ(round_to(Dtype::e4m3, 0x1p-11), 0.0);
  unsigned char buf[4] = {0xFF, 0xFF, 0xFF, 0xFF};
  store_elem(Dtype::e4m3, buf, 0, 1.0);
  store_elem(Dtype::e5m2, buf, 1, 1.0);
  store_elem(Dtype::e4m3, buf, 2, -2.0);
  EXPECT_EQ(buf[0], 0x38);  // 0.0111.000: exponent bias 7
  EXPECT_EQ(buf[1], 0x3C);  // 0.01111.00: exponent bias 15
  EXPECT_EQ(buf[2], 0xC0);  // 1.1000.000
  EXPECT_EQ(load_elem(Dtype::e4m3, buf, 2), -2.0);
  EXPECT_TRUE(std::isnan(load_elem(Dtype::e4m3, buf, 3)));
  EXPECT_TRUE(std::isnan(load_elem(Dtype::e5m2, buf, 3)));
}

// FP8 operands (an e4m3 A, an e5m2 B) with scales, f32 D: the exact dequantised product passes; the product without
// the scales does not; an error just inside promoted accumulation's bound passes and one just outside does not (c_acc
// = 1.1e-3 of mag = 1.2 sum_k |a b|, the activations' slope factor applied with any activation: 1.32e-3 of the sum); fast
// accumulation's bound at K = 300 (10 chunks of 2^-12, times 1.2: 2.93e-3) is the looser.
TEST(GemmCheck, Fp8ScaledReferenceAndItsBounds) {
  GemmCase cs;
  cs.m = 37; cs.n = 29; cs.k = 300;
  cs.in = Dtype::e4m3; cs.in_b = Dtype::e5m2; cs.out = Dtype::f32;
  cs.ob = MatrixOrder::col_major;
  cs.scale_a = 0.37f; cs.scale_b = 1.9f;
  std::mt19937 rng(11);
  Mat A, B, C, R, D;
  using tessera::test::make_mat;
  make_mat(A, cs.m, cs.k, cs.oa, cs.in, 4, 0, rng, true);
  make_mat(B, cs.k, cs.n, cs.ob, cs.type_b(), 4, 0, rng, true);
  make_mat(D, cs.m, cs.n, cs.od, cs.out, 0, 0, rng, false);
  const double s_ab = static_cast<double>(0.37f) * static_cast<double>(1.9f);
  std::vector<double> ref, mag;  // row-major m x n: the exact dequantised product, and sum_k |a b| of the same
  for (int64_t i = 0; i < cs.m; ++i)
    for (int64_t j = 0; j < cs.n; ++j) {
      double acc = 0, sum_abs = 0;
      for (int64_t kk = 0; kk < cs.k; ++kk) {
        acc += A.at(i, kk) * B.at(kk, j);
        sum_abs += std::fabs(A.at(i, kk) * B.at(kk, j));
      }
      ref.push_back(s_ab * acc);
      mag.push_back(s_ab * sum_abs);
    }
  auto image = [&](double rel_of_mag, double scale) {  // D's image: scale * ref + rel_of_mag * mag
    std::vector<unsigned char> out = D.bytes;
    for (int64_t i = 0; i < cs.m; ++i)
      for (int64_t j = 0; j < cs.n; ++j) {
        const size_t x = static_cast<size_t>(i * cs.n + j);
        tessera::test::store_elem(cs.out, out.data(), D.index(i, j), scale * ref[x] + rel_of_mag * mag[x]);
      }
    return out;
  };
  auto misses = [&](const std::vector<unsigned char>& out) { return tessera::test::reference_misses(cs, A, B, C, R, {}, out, D); };
  EXPECT_TRUE(misses(image(0.0, 1.0)).empty());
  EXPECT_EQ(misses(image(0.0, 1.0 / s_ab)).size(), 8u);  // the scales left out
  EXPECT_TRUE(misses(image(1.30e-3, 1.0)).empty());
  EXPECT_EQ(misses(image(1.34e-3, 1.0)).size(), 8u);
  cs.fp8_accum = GemmFp8Accum::fast;
  EXPECT_DOUBLE_EQ(tessera::test::fp8_c_acc(cs.fp8_accum, cs.k), 10 * 0x1p-12);
  EXPECT_TRUE(misses(image(2.85e-3, 1.0)).empty());
  EXPECT_EQ(misses(image(3.0e-3, 1.0)).size(), 8u);
}

}  // namespace
