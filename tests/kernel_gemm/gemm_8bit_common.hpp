// tests/kernel_gemm/gemm_8bit_common.hpp -- what the 8-bit GEMM tests share (gemm_fp8_test.cpp: FP8 operands;
// gemm_int8_test.cpp: INT8 on the tensor cores and DP4A; one binary): the skip for devices other than sm_90, the case
// builder with K-major operands padded to 16-byte rows, the epilogue-menu and split-K tests' fields by case number, and a product's operands made and uploaded.  Not a test by
// itself.
#pragma once

#include <cstdint>  // int64_t
#include <random>   // std::mt19937

#include "gemm_device_common.hpp"

// Put first in every FP8 and tensor-core INT8 test: skipped without a GPU or on a device other than sm_90 (the 8-bit
// tensor-core kernels' wgmma and TMA code exists for sm_90a only).
#define TESSERA_REQUIRE_SM90_FP8()                                                                   \
  do {                                                                                              \
    TESSERA_REQUIRE_GPU();                                                                          \
    if (::tessera::test::gpu_sm() != 90)                                                            \
      GTEST_SKIP() << "the FP8 GEMM kernels need compute capability 9.0 (sm_90a), device is sm_"    \
                   << ::tessera::test::gpu_sm();                                                    \
  } while (0)

namespace tessera::test::gemm_device {

using tessera::test::DeviceBuffers;
using tessera::test::Mat;
using tessera::test::make_mat;
using tessera::test::product_args;
using tessera::test::upload;

// An 8-bit case: A row-major and B column-major (both K-major, as FP8 and INT8 need), rows padded to a multiple of 16
// bytes where k is not one (the padding poisoned), bf16 D row-major, a fresh seed.
inline GemmCase fp8_case(int64_t m, int64_t n, int64_t k, Dtype ta, Dtype tb) {
  GemmCase cs;
  cs.m = m; cs.n = n; cs.k = k;
  cs.in = ta;
  if (tb != ta) cs.in_b = tb;
  cs.out = Dtype::bf16;
  cs.oa = R; cs.ob = C;
  cs.pad_a = cs.pad_b = (16 - k % 16) % 16;
  cs.seed = ++g_seed;
  return cs;
}

// The other order.
inline MatrixOrder other(MatrixOrder o) { return o == R ? C : R; }

// The epilogue-menu tests' case `i` with activation `a` and D of type `out` (GemmFp8.EpilogueMenus and
// GemmDp4a.EpilogueMenus): D's order, beta * C (in D's order, the other, or aliasing D) and C's padding, the bias's
// placement and type, the activation's parameters, the residual's order, and per-tensor scales on or off.
inline void menu_fields(GemmCase& cs, int i, Activation a, Dtype out) {
  cs.out = out;
  cs.od = i % 3 == 0 ? C : R;
  cs.beta = i % 3 == 1 ? 0.75f : 0.f;
  cs.c_is_d = cs.beta != 0.f && i % 2 == 0;
  cs.oc = i % 5 < 3 ? cs.od : other(cs.od);
  cs.pad_c = i % 3;
  cs.bias = kBiases[i % 4];
  cs.bias_type = i % 2 ? Dtype::f32 : out;
  cs.act = a;
  if (a == Activation::leaky_relu) cs.p0 = 0.1f;
  if (a == Activation::clamp) { cs.p0 = -0.5f; cs.p1 = 0.75f; }
  cs.residual = i % 3 != 1;
  cs.orr = i % 4 < 2 ? cs.od : other(cs.od);
  if (i % 2) cs.scale_a = 0.37f;
  if (i % 3) cs.scale_b = 1.9f;
}

// The split-K tests' case `i` with `split` K splits (GemmFp8.SplitK and GemmDp4a.SplitK): through the workspace
// (reused every fourth case), D f32 or bf16 in either order, beta * C in D's order (or aliasing D), a bias per row,
// per column or none, relu or gelu_tanh, a residual every third case.
inline void split_fields(GemmCase& cs, int i, int split) {
  cs.split_k = split;
  cs.workspace = true;
  cs.reuse_workspace = i % 4 == 0;
  cs.out = i % 3 == 0 ? Dtype::f32 : Dtype::bf16;
  cs.od = i % 2 ? R : C;
  cs.beta = i % 3 == 1 ? 0.5f : 0.f;
  cs.c_is_d = cs.beta != 0.f && i % 2 == 0;
  cs.oc = cs.od;
  cs.bias = i % 3 == 2 ? BiasMode::none : i % 2 ? BiasMode::per_column : BiasMode::per_row;
  cs.act = i % 2 ? Activation::gelu_tanh : Activation::relu;
  cs.residual = i % 3 == 0;
}

// A and B of `cs` (random, their padding poisoned) and D (poisoned) made as run_gemm_case makes them and uploaded to
// `db`; returns the product's arguments (GemmCase's epilogue left out: the caller adds what its test needs).
inline tessera::GemmArgs upload_product(const GemmCase& cs, Mat& A, Mat& B, Mat& D, DeviceBuffers& db) {
  std::mt19937 rng(cs.seed);
  make_mat(A, cs.m, cs.k, cs.oa, cs.in, cs.pad_a, 0, rng, true);
  make_mat(B, cs.k, cs.n, cs.ob, cs.type_b(), cs.pad_b, 0, rng, true);
  make_mat(D, cs.m, cs.n, cs.od, cs.out, 0, 0, rng, false);
  upload(db, A);
  upload(db, B);
  upload(db, D);
  return product_args(cs, A, B, D);
}

}  // namespace tessera::test::gemm_device
