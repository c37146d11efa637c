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

}  // namespace
