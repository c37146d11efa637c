// tests/kernel_gemm/gemm_int8_test.cpp -- INT8 GEMMs (s8 x s8, s32 sums, a dequantising epilogue) on the GPU against
// the float64 host reference of the dequantised operands: GemmInt8.* on the Hopper tensor cores (the persistent
// kernel; compute capability 9.0, else skipped) and GemmDp4a.* on CUDA cores (the dp4a kernel: sm_80 code, run on any
// device of compute capability 8.0 or newer, skipped without a GPU).  The harness is gemm_fp8_test.cpp's (the same
// binary): integers in [-127, 127], D poisoned first, every element within gemm_check.hpp's bound, the memory around
// D checked untouched, and the operands' padding past K holding 127, so that a kernel reading it sums wrong values.
#include <cmath>   // std::sqrt
#include <cstdio>  // std::printf

#include "gemm_8bit_common.hpp"  // TESSERA_REQUIRE_SM90_FP8, fp8_case (and gemm_device_common.hpp)

namespace {

using namespace tessera::test::gemm_device;
using tessera::GemmPlan;

constexpr GemmTile kCoop = GemmTile::cooperative128x256;  // the persistent kernel: INT8's only tensor-core tile

// 3f. INT8 operands (s8 x s8, s32 accumulation, exact; the persistent kernel alone): integers in [-127, 127] over residue
// shapes, per-tensor and channel scales (the dequantising epilogue), the fused menu, D bf16 / f16 / f32 in both orders,
// splits (the workspace), the stream-K tail, decode shapes (planned: the weights as A), long K (the s32 sums exact, the
// fp32 conversion rounding above 2^24).  The padding past K holds 127: a kernel that reads it sums wrong values.
TEST(GemmInt8, ShapesScalesMenus) {
  TESSERA_REQUIRE_SM90_FP8();
  struct Case {
    Shape s;
    int split;
    int scales;  // 0 none, 1 per tensor, 2 channel (A rows, B columns), 3 channel A, tensor B
  } cases[] = {{{1, 16, 32}, 1, 0},         {{7, 48, 144}, 1, 1},       {{64, 136, 1000}, 1, 2},   {{130, 264, 528}, 2, 3},
               {{257, 300, 4096}, 3, 2},    {{300, 520, 700}, 0, 1},    {{2100, 1800, 384}, 0, 2}, {{16, 4096, 1024}, 0, 2},
               {{4096, 8, 1024}, 0, 1},     {{128, 128, 16384}, 1, 0}};
  int i = 0;
  for (const Case& c : cases) {
    ++i;
    GemmCase cs = fp8_case(c.s.m, c.s.n, c.s.k, Dtype::s8, Dtype::s8);
    cs.split_k = c.split;
    cs.workspace = c.split != 1;
    if (c.split == 0 && i % 2) cs.stream_k = GemmStreamK::on;
    if (c.scales == 1) { cs.scale_a = 0.37f; cs.scale_b = 1.9f; }
    if (c.scales == 2) { cs.scale_a_rows = true; cs.scale_b_cols = true; }
    if (c.scales == 3) { cs.scale_a_rows = true; cs.scale_b = 1.9f; }
    // The integer sums grow as 5,400 sqrt(K) (products of values uniform in [-127, 127]): alpha brings D to about 1,
    // inside f16's range.
    cs.alpha = static_cast<float>(1.0 / (4096.0 * std::sqrt(static_cast<double>(c.s.k))));
    cs.out = i % 3 == 0 ? Dtype::f32 : i % 3 == 1 ? Dtype::bf16 : Dtype::f16;
    cs.od = i % 4 == 1 ? C : R;
    cs.bias = i % 3 == 1 ? BiasMode::per_column : i % 3 == 2 ? BiasMode::per_row : BiasMode::none;
    cs.act = i % 4 == 0 ? Activation::gelu_tanh : i % 4 == 1 ? Activation::silu : Activation::none;
    cs.residual = i % 5 == 2;
    const GemmPlan plan = run_gemm_case(cs);
    if (::testing::Test::HasFailure()) return;
    EXPECT_EQ(plan.tile, kCoop) << cs.str() << "\n  plan: " << plan.str();
    if (c.split > 0) {
      EXPECT_EQ(plan.split_k, c.split) << cs.str() << "\n  plan: " << plan.str();
    }
    EXPECT_EQ(plan.a_type, Dtype::s8);
  }
}

// 3a'. INT8 on the bare-menus kernel (the host launches it for bf16 D through TMA, no, per-tensor or channel scales,
// beta 0, a bf16 bias, no activation / relu / gelu_tanh / silu, a residual through TMA): each unit's D staged during
// the next unit's main loop.  Shapes of several units per block (132 SMs: 256-1024 units), residues in M and N, both
// orders of D, each of those menus, each kind of scales, and the stream-K tail.
TEST(GemmInt8, BareKernelMenus) {
  TESSERA_REQUIRE_SM90_FP8();
  struct Case {
    Shape s;
    int menu;  // 0 bare, 1 bias along N + relu, 2 bias along M + gelu_tanh, 3 silu + residual, 4 bias along N + silu + residual
    int scales;  // 0 none, 1 per tensor, 2 channel (A rows, B columns), 3 channel A, tensor B
  } cases[] = {{{2048, 4096, 512}, 0, 1},  {{4096, 4096, 256}, 0, 0}, {{1000, 2056, 520}, 1, 2}, {{2304, 3000, 384}, 2, 1},
               {{1999, 4104, 256}, 3, 3},  {{4096, 2048, 640}, 4, 2}, {{3000, 4096, 128}, 0, 1}, {{2056, 4096, 256}, 0, 2}};
  int i = 0;
  for (const Case& c : cases) {
    ++i;
    GemmCase cs = fp8_case(c.s.m, c.s.n, c.s.k, Dtype::s8, Dtype::s8);
    if (c.scales == 1) { cs.scale_a = 0.37f; cs.scale_b = 1.9f; }
    if (c.scales == 2) { cs.scale_a_rows = true; cs.scale_b_cols = true; }
    if (c.scales == 3) { cs.scale_a_rows = true; cs.scale_b = 1.9f; }
    cs.alpha = static_cast<float>(1.0 / (4096.0 * std::sqrt(static_cast<double>(c.s.k))));  // (as ShapesScalesMenus)
    cs.out = Dtype::bf16;
    cs.od = cs.orr = i % 2 ? R : C;  // (a residual in D's order: through TMA)
    if (i == 7) {
      cs.stream_k = GemmStreamK::on;
      cs.workspace = true;
    }
    cs.bias = c.menu == 1 || c.menu == 4 ? BiasMode::per_column : c.menu == 2 ? BiasMode::per_row : BiasMode::none;
    cs.bias_type = Dtype::bf16;  // (D's type: the bare-menus kernel's bias)
    cs.act = c.menu == 1 ? Activation::relu : c.menu == 2 ? Activation::gelu_tanh : c.menu >= 3 ? Activation::silu : Activation::none;
    cs.residual = c.menu >= 3;
    const GemmPlan plan = run_gemm_case(cs);
    if (::testing::Test::HasFailure()) return;
    EXPECT_EQ(plan.tile, kCoop) << cs.str() << "\n  plan: " << plan.str();
    EXPECT_EQ(plan.split_k, 1) << cs.str() << "\n  plan: " << plan.str();
  }
}

// ---- DP4A: INT8 on CUDA cores (GemmMath::dp4a, the dp4a128x128x64 tile; sm_80 code, so any GPU of compute capability
// 8.0 or newer whose code the build holds).  The same harness and reference as GemmInt8: integers in [-127, 127], the
// float64 reference of the dequantised product, D poisoned first, the operands' padding past K holding 127 (a kernel
// that reads it sums wrong values), the memory around D checked untouched; the bound is gemm_check.hpp's dp4a c_acc
// (the s32 sums are exact: only the fp32 conversion, the scales, split-K's fp32 sum and D's rounding err).

// An INT8 case on the dp4a kernel: GemmMath::dp4a with the tile planned, or the tile forced with automatic math.
GemmCase dp4a_case(int64_t m, int64_t n, int64_t k, bool force_tile) {
  GemmCase cs = fp8_case(m, n, k, Dtype::s8, Dtype::s8);
  if (force_tile) cs.tile = GemmTile::dp4a128x128;
  else cs.math = GemmMath::dp4a;
  // The integer sums grow as 5,400 sqrt(K) (products of values uniform in [-127, 127]): alpha brings D to about 1.
  cs.alpha = static_cast<float>(1.0 / (4096.0 * std::sqrt(static_cast<double>(k))));
  return cs;
}

// Runs `cs` through run_gemm_case and expects the dp4a tile and math and, when `split` > 0, that many splits.
GemmPlan run_dp4a(const GemmCase& cs, int split = 0) {
  const GemmPlan plan = run_gemm_case(cs);
  if (::testing::Test::HasFailure()) return plan;
  EXPECT_EQ(plan.tile, GemmTile::dp4a128x128) << cs.str() << "\n  plan: " << plan.str();
  EXPECT_EQ(plan.math, GemmMath::dp4a) << cs.str() << "\n  plan: " << plan.str();
  EXPECT_EQ(plan.a_type, Dtype::s8);
  EXPECT_FALSE(plan.transposed) << cs.str() << "\n  plan: " << plan.str();
  if (split > 0) {
    EXPECT_EQ(plan.split_k, split) << cs.str() << "\n  plan: " << plan.str();
  }
  return plan;
}

// 7a. Residue shapes, scales, D types and orders, splits: M and N below, across and past the 128 x 128 tile, K below one
// word (3), one chunk (16), one K tile (48), across K tiles with every residue -- K % 64, K % 16 and K % 4 non-zero
// (37, 130, 1001), whole tiles (1040 = 16.25 tiles: 1040 % 64 = 16), long (4096, 16384); per-tensor scales, channel
// scales (A rows and B columns, or A rows with B per tensor), none; forced splits 2 and 3 (through the workspace) and
// planned ones (with a workspace: the planner may split small M x N); D bf16 / f16 / f32, row- and column-major.
TEST(GemmDp4a, ShapesScalesMenus) {
  TESSERA_REQUIRE_SM(80);
  struct Case {
    Shape s;
    int split;   // 0: planned (with a workspace), else forced
    int scales;  // 0 none, 1 per tensor, 2 channel (A rows, B columns), 3 channel A, tensor B
  } cases[] = {{{1, 1, 16}, 1, 0},          {{7, 48, 48}, 1, 1},        {{64, 136, 1040}, 1, 2},  {{130, 264, 528}, 2, 3},
               {{257, 300, 4096}, 3, 2},    {{300, 520, 700}, 0, 1},    {{129, 255, 1001}, 1, 2}, {{16, 1000, 1024}, 0, 2},
               {{1000, 8, 1024}, 0, 1},     {{128, 128, 16384}, 1, 0},  {{200, 77, 3}, 1, 1},     {{33, 130, 37}, 1, 3},
               {{256, 384, 130}, 2, 2},     {{1100, 700, 256}, 0, 0},   {{5, 4100, 640}, 3, 1}};
  int i = 0;
  for (const Case& c : cases) {
    ++i;
    GemmCase cs = dp4a_case(c.s.m, c.s.n, c.s.k, i % 3 == 0);
    cs.split_k = c.split;
    cs.workspace = c.split != 1;
    if (c.scales == 1) { cs.scale_a = 0.37f; cs.scale_b = 1.9f; }
    if (c.scales == 2) { cs.scale_a_rows = true; cs.scale_b_cols = true; }
    if (c.scales == 3) { cs.scale_a_rows = true; cs.scale_b = 1.9f; }
    cs.out = i % 3 == 0 ? Dtype::f32 : i % 3 == 1 ? Dtype::bf16 : Dtype::f16;
    cs.od = i % 4 == 1 ? C : R;
    cs.pad_d = i % 5 == 3 ? 3 : 0;
    if (i % 4 == 2 && cs.k % 16 == 0) cs.pad_a = cs.pad_b = 32;  // rows longer than K (their padding holds 127)
    cs.bias = i % 3 == 1 ? BiasMode::per_column : i % 3 == 2 ? BiasMode::per_row : BiasMode::none;
    cs.act = i % 4 == 0 ? Activation::gelu_tanh : i % 4 == 1 ? Activation::silu : Activation::none;
    cs.residual = i % 5 == 2;
    run_dp4a(cs, c.split);
    if (::testing::Test::HasFailure()) return;
  }
}

// 7b. The whole epilogue menu on the dp4a kernel: alpha, beta * C (C in D's order, in the other, and aliasing D), a
// bias per row / per column / scalar in f32 and in D's type (2-byte aligned only, once), every activation, the residual
// in both orders; bf16, f16 and f32 D in both orders; scales per tensor and per channel; edge tiles in M and N.
TEST(GemmDp4a, EpilogueMenus) {
  TESSERA_REQUIRE_SM(80);
  int i = 0;
  for (Dtype out : {Dtype::bf16, Dtype::f16, Dtype::f32})
    for (Activation a : kActs) {
      ++i;
      const bool alt = i % 2;
      GemmCase cs = dp4a_case(alt ? 70 : 136, alt ? 130 : 200, alt ? 520 : 272, i % 3 == 0);
      cs.alpha *= alt ? 0.5f : -1.5f;
      menu_fields(cs, i, a, out);
      cs.off_bias = cs.bias_type != Dtype::f32 && i % 7 == 2 ? 1 : 0;
      if (i % 5 == 4) { cs.scale_a_rows = true; cs.scale_a = 0.f; }
      run_dp4a(cs);
      if (::testing::Test::HasFailure()) return;
    }
}

// 7c. Split K forced (2 to 5 splits through the workspace, uneven K ranges, any split may finish the tile) with channel
// scales (applied after the partial tiles are added) and per-tensor ones (before), the menu, D in both orders, C
// aliasing D, a reused workspace.
TEST(GemmDp4a, SplitK) {
  TESSERA_REQUIRE_SM(80);
  const Shape shapes[] = {{200, 136, 1000}, {64, 264, 4096}, {130, 48, 577}};
  int i = 0;
  for (int split : {2, 3, 5})
    for (const Shape& s : shapes) {
      ++i;
      GemmCase cs = dp4a_case(s.m, s.n, s.k, i % 2 == 0);
      split_fields(cs, i, split);
      if (i % 3 == 0) { cs.scale_a = 0.37f; cs.scale_b = 1.9f; }
      if (i % 3 == 1) { cs.scale_a_rows = true; cs.scale_b_cols = true; }
      if (i % 3 == 2) { cs.scale_b_cols = true; cs.scale_a = 0.37f; }
      run_dp4a(cs, split);
      if (::testing::Test::HasFailure()) return;
    }
}

// 7d. The sums are exact: for K <= 1040 every |S| <= 127^2 x 1040 < 2^24, so float(S) is S, and with alpha 1 and scales
// that are powers of two (or none) an f32 D holds S times them exactly -- also when K is split (each split's partial
// and every fp32 sum of them are integers times the scales below 2^24).  Compared bit for bit with an int64 reference,
// D poisoned first, both D orders, splits 1-3, residues in M, N and K.
TEST(GemmDp4a, ExactSums) {
  TESSERA_REQUIRE_SM(80);
  struct Case {
    Shape s;
    int split;
    float sa, sb;  // per-tensor scales (0: none)
  } cases[] = {{{130, 264, 1040}, 1, 0.f, 0.f}, {{257, 100, 1001}, 2, 0.5f, 0.f}, {{64, 129, 37}, 1, 0.f, 0.25f},
               {{300, 300, 1040}, 3, 0.5f, 0.125f}, {{1, 1, 3}, 1, 0.f, 0.f}};
  int i = 0;
  for (const Case& c : cases) {
    ++i;
    GemmCase cs = dp4a_case(c.s.m, c.s.n, c.s.k, i % 2 == 0);
    cs.alpha = 1.f;
    cs.out = Dtype::f32;
    cs.od = i % 2 ? R : C;
    cs.split_k = c.split;
    cs.scale_a = c.sa;
    cs.scale_b = c.sb;
    Mat A, B, D;
    tessera::test::DeviceBuffers db;
    tessera::GemmArgs g = upload_product(cs, A, B, D, db);
    tessera::test::upload_scales(db, cs, g);
    g.math = cs.math;
    g.tile = cs.tile;
    g.split_k = cs.split_k;
    if (c.split > 1) {
      g.workspace_bytes = tessera::gemm_workspace_size(g);
      g.workspace = db.alloc(g.workspace_bytes);
      ASSERT_NE(g.workspace, nullptr);
    }
    GemmPlan plan;
    tessera::GemmStatus st = tessera::gemm_plan(g, &plan);
    ASSERT_TRUE(st.ok()) << st.message << "\n  case: " << cs.str();
    EXPECT_EQ(plan.tile, GemmTile::dp4a128x128) << plan.str();
    EXPECT_EQ(plan.split_k, c.split) << plan.str();
    st = tessera::gemm(g, nullptr);
    ASSERT_TRUE(st.ok()) << st.message << "\n  case: " << cs.str();
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << cs.str();
    std::vector<unsigned char> out(D.bytes.size());
    ASSERT_EQ(cudaMemcpy(out.data(), D.dev, out.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    const double scale = (c.sa != 0.f ? c.sa : 1.0) * (c.sb != 0.f ? c.sb : 1.0);
    int bad = 0;
    for (int64_t r = 0; r < cs.m && bad < 8; ++r)
      for (int64_t col = 0; col < cs.n && bad < 8; ++col) {
        int64_t sum = 0;
        for (int64_t kk = 0; kk < cs.k; ++kk)
          sum += static_cast<int64_t>(A.at(r, kk)) * static_cast<int64_t>(B.at(kk, col));
        const double want = static_cast<double>(sum) * scale;
        const double got = tessera::test::load_elem(cs.out, out.data(), D.index(r, col));
        if (got != want) {
          ++bad;
          ADD_FAILURE() << "D(" << r << "," << col << ") = " << got << ", exact " << want << " (S = " << sum << ")\n  plan: "
                        << plan.str() << "\n  case: " << cs.str();
        }
      }
    if (bad) return;
  }
}

// 7e. Which math automatic picks for s8 operands, and the tensor cores refused by name where they cannot run: the
// tensor cores where the Hopper s8 kernel runs (a plan with tensor_core forced succeeds), dp4a elsewhere (there
// tensor_core forced fails with `unsupported`, the message naming dp4a).  Then the planned automatic problem runs.
TEST(GemmDp4a, AutomaticMath) {
  TESSERA_REQUIRE_SM(80);
  alignas(16) static const unsigned char dummy[16] = {};
  tessera::GemmArgs g;
  g.m = 512; g.n = 512; g.k = 512;
  g.a = {dummy, Dtype::s8, R, 0};
  g.b = {dummy, Dtype::s8, C, 0};
  g.d = {reinterpret_cast<void*>(uintptr_t(1) << 40), Dtype::bf16, R, 0};  // never touched: only planned
  GemmPlan tc_plan, auto_plan;
  g.math = GemmMath::tensor_core;
  const tessera::GemmStatus tc = tessera::gemm_plan(g, &tc_plan);
  g.math = GemmMath::automatic;
  const tessera::GemmStatus au = tessera::gemm_plan(g, &auto_plan);
  ASSERT_TRUE(au.ok()) << au.message;
  if (tc.ok()) {
    EXPECT_EQ(tessera::test::gpu_sm(), 90) << "the s8 tensor-core kernel planned on sm_" << tessera::test::gpu_sm();
    EXPECT_EQ(auto_plan.math, GemmMath::tensor_core) << auto_plan.str();
    EXPECT_EQ(auto_plan.tile, tc_plan.tile) << auto_plan.str();
  } else {
    EXPECT_EQ(tc.code, tessera::GemmError::unsupported) << tc.message;
    EXPECT_NE(tc.message.find("dp4a"), std::string::npos) << tc.message;
    EXPECT_EQ(auto_plan.math, GemmMath::dp4a) << auto_plan.str();
    EXPECT_EQ(auto_plan.tile, GemmTile::dp4a128x128) << auto_plan.str();
  }
  std::printf("s8 automatic on sm_%d: %s\n", tessera::test::gpu_sm(), auto_plan.str().c_str());
  // The automatic plan end to end (whichever kernel it is).
  GemmCase cs = fp8_case(300, 264, 1001, Dtype::s8, Dtype::s8);
  cs.alpha = static_cast<float>(1.0 / (4096.0 * std::sqrt(1001.0)));
  cs.scale_a_rows = true;
  cs.scale_b = 1.9f;
  cs.bias = BiasMode::per_column;
  cs.act = Activation::silu;
  const GemmPlan plan = run_gemm_case(cs);
  EXPECT_EQ(plan.math, auto_plan.math) << plan.str();
}

// 7f. The same dp4a plan gives the same bits run to run: one split, two and three (the workspace).
TEST(GemmDp4a, Repeatable) {
  TESSERA_REQUIRE_SM(80);
  for (int split : {1, 2, 3}) {
    GemmCase cs = dp4a_case(300, 264, 3001, true);
    cs.out = split == 2 ? Dtype::bf16 : Dtype::f32;
    cs.split_k = split;
    cs.workspace = split > 1;
    cs.scale_a = 0.37f; cs.scale_b = 1.9f;
    EXPECT_TRUE(tessera::test::gemm_repeatable(cs)) << cs.str();
  }
}

}  // namespace
