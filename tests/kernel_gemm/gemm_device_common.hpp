// tests/kernel_gemm/gemm_device_common.hpp -- what the GEMM device tests share: gemm_device_test.cpp (every kernel
// family through tessera::gemm, split-K, the epilogue alone, the sanitizer subset), gemm_persistent_test.cpp (the
// persistent Hopper kernels' own cases) and the 8-bit binary (gemm_fp8_test.cpp, gemm_int8_test.cpp).  The orders'
// shorthand, the shapes and epilogue menu the sweeps run through, and one seed counter for the binary.  Not a test by
// itself.
#pragma once

#include <cstdint>  // uint32_t, uintptr_t
#include <utility>  // std::pair
#include <vector>

#include "common/gpu.hpp"
#include "gemm_check.hpp"

namespace tessera::test::gemm_device {

using tessera::Activation;
using tessera::BiasMode;
using tessera::Dtype;
using tessera::GemmMath;
using tessera::GemmStreamK;
using tessera::GemmTile;
using tessera::MatrixOrder;
using tessera::test::GemmCase;
using tessera::test::run_gemm_case;

constexpr MatrixOrder R = MatrixOrder::row_major, C = MatrixOrder::col_major;

struct Shape {
  int64_t m, n, k;
};
// 1, primes, non-multiples of every tile extent, K below one K tile, tall-skinny, wide, exact multiples.
inline const std::vector<Shape> kShapes = {{1, 1, 1},     {7, 13, 5},    {33, 65, 70},  {129, 257, 131}, {16, 300, 520},
                                           {255, 64, 1000}, {1000, 3, 64}, {2, 1000, 17}, {61, 67, 71},    {256, 512, 128}};
inline const std::pair<MatrixOrder, MatrixOrder> kOrders[] = {{R, C}, {R, R}, {C, R}, {C, C}};

// One seed counter for the whole test binary: each case takes ++g_seed.
inline uint32_t g_seed = 1000;

// The epilogue menu the sweeps run through.
inline const Activation kActs[] = {Activation::none, Activation::relu,       Activation::gelu_tanh, Activation::gelu_erf,
                                   Activation::silu, Activation::leaky_relu, Activation::clamp};
inline const BiasMode kBiases[] = {BiasMode::none, BiasMode::per_column, BiasMode::per_row, BiasMode::scalar};

// Planning case `cs` (its shape, types, orders and forced tile) fails with `unsupported`; nothing runs.
inline void expect_unsupported(const GemmCase& cs) {
  tessera::GemmArgs g;
  g.m = cs.m; g.n = cs.n; g.k = cs.k;
  static const unsigned char dummy[16] = {};
  g.a = {dummy, cs.in, cs.oa, 0};
  g.b = {dummy, cs.in, cs.ob, 0};
  g.d = {reinterpret_cast<void*>(uintptr_t(1) << 40), cs.out, R, 0};  // never touched: planning fails first
  g.tile = cs.tile;
  tessera::GemmPlan plan;
  const tessera::GemmStatus st = tessera::gemm_plan(g, &plan);
  EXPECT_EQ(st.code, tessera::GemmError::unsupported) << cs.str() << ": " << st.message;
}


}  // namespace tessera::test::gemm_device
