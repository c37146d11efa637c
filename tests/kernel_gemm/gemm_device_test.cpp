// tests/kernel_gemm/gemm_device_test.cpp -- tessera::gemm on the GPU against a float64 host reference.
// Every case: random inputs in [-1, 1] (never zeros), D poisoned with NaN first, every element compared
// with the tolerance stated in gemm_check.hpp, and the memory around D checked untouched.
// GemmSanitize.* is the subset run under compute-sanitizer (memcheck, racecheck, synccheck).  The persistent Hopper
// kernels' own cases are in gemm_persistent_test.cpp, the decode tiles' and the GEMV's in gemm_decode_test.cpp.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "gemm_device_common.hpp"

namespace {

using namespace tessera::test::gemm_device;

TEST(GemmDevice, ShapesTilesLayouts16Bit) {
  TESSERA_REQUIRE_SM(80);
  const GemmTile tiles[] = {GemmTile::automatic, GemmTile::t128x256, GemmTile::t128x128, GemmTile::t64x64, GemmTile::t16x128};
  for (Dtype t : {Dtype::bf16, Dtype::f16})
    for (auto [oa, ob] : kOrders)
      for (GemmTile tile : tiles)
        for (const Shape& s : kShapes) {
          GemmCase cs;
          cs.m = s.m; cs.n = s.n; cs.k = s.k;
          cs.in = cs.out = t;
          cs.oa = oa; cs.ob = ob;
          cs.alpha = 1.25f;
          cs.tile = tile;
          cs.seed = ++g_seed;
          // The decode tile needs a K-major A after normalisation: (col-major A, row-major B) has none.
          if (tile == GemmTile::t16x128 && oa == C && ob == R) {
            expect_unsupported(cs);
            continue;
          }
          run_gemm_case(cs);
          if (::testing::Test::HasFailure()) return;
        }
}

// The Hopper tiles that read the epilogue's inputs ahead (wgmma128x16, wgmma128x64, wgmma128x128:
// StagedEpilogue::fetch_ahead, during the main loop): every input that can be read ahead (C, the bias per row / per column / scalar in fp32 or D's type, the
// residual) beside every one that cannot (C or the residual in the other order or with rows that are not 16-byte
// multiples, a bias that is 2-byte aligned only, C aliasing D), edge tiles, D in both orders, one split, two (a
// cluster) and three (the workspace: any split may finish the tile).
TEST(GemmDevice, EpilogueReadAhead) {
  TESSERA_REQUIRE_SM(90);
  struct Case {
    GemmTile tile;
    Shape s;
  };
  const Case shapes[] = {{GemmTile::wgmma128x16, {5, 300, 1000}},   {GemmTile::wgmma128x16, {16, 520, 1504}},
                         {GemmTile::wgmma128x16, {300, 13, 712}},   {GemmTile::wgmma128x64, {40, 1000, 1000}},
                         {GemmTile::wgmma128x64, {304, 136, 600}},  {GemmTile::wgmma128x64, {130, 70, 264}},
                         {GemmTile::wgmma128x128, {300, 264, 600}}, {GemmTile::wgmma128x128, {136, 130, 200}}};
  int i = 0;
  for (const Case& sc : shapes)
    for (BiasMode b : kBiases)
      for (int variant = 0; variant < 4; ++variant) {
        ++i;
        GemmCase cs;
        cs.m = sc.s.m; cs.n = sc.s.n; cs.k = sc.s.k;
        cs.oa = R; cs.ob = C;
        cs.tile = sc.tile;
        cs.in = i % 3 ? Dtype::bf16 : Dtype::f16;
        cs.out = i % 13 == 0 ? Dtype::f32 : cs.in;
        cs.od = i % 2 ? R : C;
        cs.alpha = 0.75f;
        cs.bias = b;
        cs.bias_type = i % 4 < 2 ? Dtype::f32 : cs.out;
        cs.off_bias = variant == 3 && cs.bias_type != Dtype::f32 ? 1 : 0;
        cs.act = kActs[i % 7];
        if (cs.act == Activation::leaky_relu) cs.p0 = 0.1f;
        if (cs.act == Activation::clamp) { cs.p0 = -0.5f; cs.p1 = 0.75f; }
        cs.beta = variant % 2 ? 0.5f : 0.f;
        cs.oc = variant == 3 ? (cs.od == R ? C : R) : cs.od;
        cs.c_is_d = variant == 1 && i % 3 == 0;
        cs.residual = variant != 1 || i % 2 == 0;
        cs.orr = variant == 2 && i % 3 == 0 ? (cs.od == R ? C : R) : cs.od;
        cs.pad_r = variant == 2 && i % 3 == 1 ? 1 : 0;  // rows of the residual no longer 16-byte multiples
        cs.split_k = i % 3 + 1;
        cs.workspace = cs.split_k > 1;
        cs.seed = ++g_seed;
        const tessera::GemmPlan plan = run_gemm_case(cs);
        EXPECT_EQ(plan.tile, sc.tile) << cs.str();
        EXPECT_EQ(plan.split_k, cs.split_k) << cs.str();
        if (::testing::Test::HasFailure()) return;
      }
}

TEST(GemmDevice, EpilogueSweep) {
  TESSERA_REQUIRE_SM(80);
  int i = 0;
  for (Dtype out : {Dtype::bf16, Dtype::f16, Dtype::f32})
    for (BiasMode b : kBiases)
      for (int bias_f32 = 0; bias_f32 < 2; ++bias_f32)
        for (Activation a : kActs)
          for (float beta : {0.f, 0.75f})
            for (int res = 0; res < 2; ++res)
              for (MatrixOrder od : {R, C}) {
                if (b == BiasMode::none && bias_f32 == 0) continue;
                ++i;
                GemmCase cs;
                const bool alt = i % 2;
                cs.m = alt ? 67 : 33; cs.n = alt ? 45 : 70; cs.k = alt ? 33 : 129;
                cs.in = (i % 3 == 0) ? Dtype::f16 : Dtype::bf16;
                cs.out = out;
                cs.oa = (i % 4 < 2) ? R : C;
                cs.ob = (i % 5 < 3) ? R : C;
                cs.od = od;
                cs.oc = (i % 7 < 3) ? od : (od == R ? C : R);   // C in D's order and in the other one
                cs.orr = (i % 11 < 5) ? od : (od == R ? C : R);
                cs.alpha = alt ? 0.5f : -1.5f;
                cs.beta = beta;
                cs.bias = b;
                cs.bias_type = bias_f32 ? Dtype::f32 : out;
                cs.act = a;
                if (a == Activation::leaky_relu) cs.p0 = 0.1f;
                if (a == Activation::clamp) { cs.p0 = -0.5f; cs.p1 = 0.75f; }
                cs.residual = res;
                cs.pad_c = (i % 3);
                cs.pad_r = (i % 2) * 8;
                cs.seed = ++g_seed;
                run_gemm_case(cs);
                if (::testing::Test::HasFailure()) return;
              }
}

TEST(GemmDevice, UnalignedAndPadded) {
  TESSERA_REQUIRE_SM(80);
  int i = 0;
  for (Dtype t : {Dtype::bf16, Dtype::f16, Dtype::f32})
    for (GemmMath math : {GemmMath::automatic, GemmMath::tf32})
      for (auto [oa, ob] : kOrders)
        for (const Shape& s : {Shape{37, 45, 83}, Shape{130, 70, 200}, Shape{5, 300, 150}}) {
          if (math == GemmMath::tf32 && t != Dtype::f32) continue;
          ++i;
          GemmCase cs;
          cs.m = s.m; cs.n = s.n; cs.k = s.k;
          cs.in = t;
          cs.out = (i % 2) ? t : Dtype::f32;
          cs.math = math;
          cs.oa = oa; cs.ob = ob;
          cs.od = (i % 3) ? R : C;
          cs.off_a = 1 + i % 7; cs.off_b = i % 3; cs.off_d = 1 + i % 5;
          cs.pad_a = 3; cs.pad_b = 8 * (i % 2) + 1; cs.pad_d = i % 4;
          cs.beta = 0.5f; cs.oc = R; cs.off_c = 3; cs.pad_c = 5;
          cs.residual = true; cs.off_r = 1; cs.pad_r = 2; cs.orr = C;
          cs.bias = BiasMode::per_row;
          cs.act = Activation::silu;
          cs.seed = ++g_seed;
          run_gemm_case(cs);
          if (::testing::Test::HasFailure()) return;
        }
}

// The Hopper kernels (TMA + wgmma), forced.  They take every operand order, with every leading
// dimension a multiple of 8 elements (a TMA row pitch is a multiple of 16 bytes); else they are refused.
bool wgmma_eligible(MatrixOrder oa, MatrixOrder ob, const Shape& s) {
  const int64_t lda = oa == R ? s.k : s.m, ldb = ob == R ? s.n : s.k;  // packed leading dimensions
  return lda % 8 == 0 && ldb % 8 == 0;
}

// The bare GEMM split in two on the non-persistent Hopper tiles: the two splits are one cluster, and where D may leave
// through TMA (16-bit, rows or columns 16-byte multiples) block z stores rows 64 z.. from registers after adding the
// peer block's sums of them through distributed shared memory (RegisterStore::finish, register_store.hpp); elsewhere (f32 D, an
// unaligned inner extent) the staged reduction.  Every operand order the tiles take, D in both orders, edge tiles.
TEST(GemmDevice, ClusterPairBare) {
  TESSERA_REQUIRE_SM(90);
  int i = 0;
  for (GemmTile wt : {GemmTile::wgmma128x64, GemmTile::wgmma128x128, GemmTile::wgmma128x256})
    for (auto [oa, ob] : {std::pair{R, C}, std::pair{R, R}, std::pair{C, R}})
      // (K tiles 16, 9, 5 and 3: the pushed 128 x 64 pair's split 1 gives split 0 a lead of 4, 3, 1 and 0 of them.)
      for (const Shape& s : {Shape{304, 264, 1000}, Shape{136, 200, 520}, Shape{130, 70, 264}, Shape{200, 136, 192}})
        for (MatrixOrder od : {R, C}) {
          GemmCase cs;
          cs.m = s.m; cs.n = s.n; cs.k = s.k;
          cs.oa = oa; cs.ob = ob; cs.od = od;
          cs.in = i % 2 ? Dtype::f16 : Dtype::bf16;
          cs.out = i % 5 == 4 ? Dtype::f32 : cs.in;
          cs.alpha = i % 3 ? 1.25f : 1.f;
          cs.tile = wt;
          cs.split_k = 2;
          cs.workspace = true;
          cs.seed = ++g_seed;
          ++i;
          if (!wgmma_eligible(oa, ob, s)) {
            expect_unsupported(cs);
            continue;
          }
          const tessera::GemmPlan plan = run_gemm_case(cs);
          EXPECT_EQ(plan.tile, wt) << cs.str();
          EXPECT_EQ(plan.split_k, 2) << cs.str();
          if (::testing::Test::HasFailure()) return;
        }
}

TEST(GemmDevice, WgmmaTiles) {
  TESSERA_REQUIRE_SM(90);
  for (GemmTile wt : {GemmTile::wgmma128x64, GemmTile::wgmma128x128, GemmTile::wgmma128x256, GemmTile::cooperative128x256})
    for (Dtype t : {Dtype::bf16, Dtype::f16})
      for (auto [oa, ob] : kOrders)
        for (const Shape& s : kShapes) {
          GemmCase cs;
          cs.m = s.m; cs.n = s.n; cs.k = s.k;
          cs.in = cs.out = t;
          cs.oa = oa; cs.ob = ob;
          cs.alpha = 1.25f;
          cs.tile = wt;
          cs.seed = ++g_seed;
          // D in both orders: the bare GEMM leaves through TMA stores where D's rows (columns) are 16-byte aligned.
          cs.od = cs.seed % 2 ? C : R;
          if (!wgmma_eligible(oa, ob, s)) {
            expect_unsupported(cs);
            continue;
          }
          const tessera::GemmPlan plan = run_gemm_case(cs);
          EXPECT_EQ(plan.tile, wt) << cs.str();
          if (::testing::Test::HasFailure()) return;
        }
  // The fused epilogue, D orders and types, split-K, several K tiles, every operand majorness; M of 304 (three 128-row
  // tiles) and 200 (two: the non-persistent kernels' K tiles in pairs, gemm_detail::issue_pairs).
  int i = 0;
  for (GemmTile wt : {GemmTile::wgmma128x64, GemmTile::wgmma128x128, GemmTile::wgmma128x256, GemmTile::cooperative128x256})
    for (auto [oa, ob] : {std::pair{R, C}, std::pair{R, R}, std::pair{C, R}})
      for (Dtype out : {Dtype::bf16, Dtype::f32})
        for (MatrixOrder od : {R, C})
          for (int split : {1, 3}) {
            GemmCase cs;
            cs.m = (i / 2) % 2 ? 200 : 304; cs.n = 264 + 8 * i; cs.k = 1000 + 8 * i;
            cs.oa = oa; cs.ob = ob; cs.od = od;
            cs.in = i % 3 ? Dtype::bf16 : Dtype::f16; cs.out = out;
            cs.tile = wt;
            cs.beta = 0.5f;
            cs.bias = i % 2 ? BiasMode::per_row : BiasMode::per_column;
            cs.act = i % 2 ? Activation::silu : Activation::gelu_tanh;
            cs.residual = true;
            cs.split_k = split;
            cs.workspace = split > 1;
            cs.seed = ++g_seed;
            ++i;
            const tessera::GemmPlan plan = run_gemm_case(cs);
            EXPECT_EQ(plan.tile, wt) << cs.str();
            EXPECT_EQ(plan.split_k, split) << cs.str();
            if (::testing::Test::HasFailure()) return;
          }
  // Planned automatically on large problems, a Hopper kernel is chosen for every operand order.
  for (auto [oa, ob] : kOrders) {
    GemmCase big;
    big.m = 1024; big.n = 1024; big.k = 512; big.oa = oa; big.ob = ob; big.seed = ++g_seed;
    const GemmTile chosen = run_gemm_case(big).tile;
    EXPECT_TRUE(chosen == GemmTile::wgmma128x64 || chosen == GemmTile::wgmma128x128 || chosen == GemmTile::wgmma128x256 ||
                chosen == GemmTile::cooperative128x256)
        << big.str();
  }
}

// D with a padded leading dimension whose rows (columns) are not a whole number of 16-byte units: TMA stores write whole
// 16-byte units, so D must not leave through them there (the padding, or a sliced D's neighbours, would be written).
// The bare GEMM and a menu of the persistent kernels' bare-menus kernel, on every Hopper tile with a TMA store, both D
// orders, a contiguous extent of 70 (140 bytes) in a pitch of 72.
TEST(GemmDevice, TmaStoreKeepsThePadding) {
  TESSERA_REQUIRE_SM(90);
  for (GemmTile wt : {GemmTile::wgmma128x64, GemmTile::wgmma128x128, GemmTile::wgmma128x256, GemmTile::cooperative128x256})
    for (MatrixOrder od : {R, C})
      for (bool menu : {false, true}) {
        GemmCase cs;
        cs.m = od == R ? 300 : 70; cs.n = od == R ? 70 : 300; cs.k = 192;
        cs.ob = C;
        cs.od = od;
        cs.pad_d = 2;
        cs.tile = wt;
        if (menu) {
          cs.bias = BiasMode::per_column; cs.bias_type = Dtype::bf16; cs.act = Activation::silu;
        }
        cs.seed = ++g_seed;
        const tessera::GemmPlan plan = run_gemm_case(cs);
        EXPECT_EQ(plan.tile, wt) << cs.str();
        if (::testing::Test::HasFailure()) return;
      }
}

// A split-K case with a workspace: column-major B, bias per column, SiLU, a fresh seed.
GemmCase split_case(const Shape& s) {
  GemmCase cs;
  cs.m = s.m; cs.n = s.n; cs.k = s.k;
  cs.ob = C;
  cs.workspace = true;
  cs.bias = BiasMode::per_column;
  cs.act = Activation::silu;
  cs.seed = ++g_seed;
  return cs;
}

TEST(GemmDevice, SplitK) {
  TESSERA_REQUIRE_SM(80);
  // Forced splits on every tile, including uneven K ranges.
  for (GemmTile tile : {GemmTile::t64x64, GemmTile::t128x128, GemmTile::t16x128, GemmTile::t128x256})
    for (int split : {2, 3, 7})
      for (auto [oa, ob] : {std::pair{R, C}, std::pair{R, R}}) {
        GemmCase cs;
        cs.m = 40; cs.n = 200; cs.k = 1500;
        cs.oa = oa; cs.ob = ob;
        cs.od = split == 3 ? C : R;
        cs.tile = tile;
        cs.split_k = split;
        cs.workspace = true;
        cs.beta = 1.0f;
        cs.bias = BiasMode::per_column;
        cs.act = Activation::gelu_tanh;
        cs.seed = ++g_seed;
        const tessera::GemmPlan plan = run_gemm_case(cs);
        EXPECT_EQ(plan.split_k, split) << cs.str();
        if (::testing::Test::HasFailure()) return;
      }
  // Partial tiles whose valid extents are not multiples of 4 (only the valid part travels through the workspace).
  for (const Shape& sh : {Shape{6, 131, 700}, Shape{3, 67, 900}})
    for (MatrixOrder od : {R, C})
      for (GemmTile tile : {GemmTile::t16x128, GemmTile::t64x64}) {
        GemmCase cs;
        cs.m = sh.m; cs.n = sh.n; cs.k = sh.k;
        cs.od = od; cs.ob = C; cs.tile = tile; cs.split_k = 3; cs.workspace = true;
        cs.residual = true; cs.orr = od == R ? C : R;
        cs.seed = ++g_seed;
        run_gemm_case(cs);
        if (::testing::Test::HasFailure()) return;
      }
  // The planner's own split for decode shapes (needs the workspace), and a reused workspace.
  for (Dtype t : {Dtype::bf16, Dtype::f16})
    for (const Shape& s : {Shape{12, 1024, 2048}, Shape{9, 512, 4096}, Shape{16, 2048, 1024}}) {  // (a batch of 8 or less: a GEMV)
      GemmCase cs = split_case(s);
      cs.in = cs.out = t;
      cs.reuse_workspace = true;
      const tessera::GemmPlan plan = run_gemm_case(cs);
      EXPECT_GT(plan.split_k, 1) << "the planner should split K for " << cs.str() << "\n  plan: " << plan.str();
      if (::testing::Test::HasFailure()) return;
    }
  // fp32 exact and tf32 with split-K.
  for (GemmMath math : {GemmMath::fp32_exact, GemmMath::tf32}) {
    GemmCase cs;
    cs.m = 70; cs.n = 90; cs.k = 900;
    cs.in = cs.out = Dtype::f32;
    cs.math = math;
    cs.split_k = 3;
    cs.workspace = true;
    cs.seed = ++g_seed;
    run_gemm_case(cs);
  }
}

TEST(GemmDevice, SplitKSharedWorkspace) {
  TESSERA_REQUIRE_SM(80);
  // One workspace, zero-filled once, used in turn by problems of different tile counts, tiles and splits with
  // workspace_zeroed = true: each call's partial sums must not land where another call's counters lie.
  void* ws = nullptr;
  const size_t ws_bytes = size_t(32) << 20;
  ASSERT_EQ(cudaMalloc(&ws, ws_bytes), cudaSuccess);
  ASSERT_EQ(cudaMemset(ws, 0, ws_bytes), cudaSuccess);
  struct Step {
    Shape s;
    GemmTile tile;
    int split;
  };
  std::vector<Step> steps = {{{9, 4096, 4096}, GemmTile::automatic, 0}, {{12, 1024, 8192}, GemmTile::automatic, 0},
                             {{9, 4096, 4096}, GemmTile::automatic, 0}, {{100, 900, 1200}, GemmTile::t64x64, 3},
                             {{16, 2048, 1024}, GemmTile::automatic, 0}, {{10, 512, 14336}, GemmTile::automatic, 0},
                             {{100, 900, 1200}, GemmTile::t64x64, 3}, {{9, 4096, 4096}, GemmTile::automatic, 0}};
  if (tessera::test::gpu_sm() == 90) {  // the persistent kernel's split-K (two counters per tile)
    steps.push_back({{300, 1100, 2048}, GemmTile::cooperative128x256, 3});
    steps.push_back({{12, 1024, 8192}, GemmTile::automatic, 0});
    steps.push_back({{300, 1100, 2048}, GemmTile::cooperative128x256, 2});
  }
  for (const Step& st : steps) {
    GemmCase cs = split_case(st.s);
    cs.tile = st.tile;
    cs.split_k = st.split;
    cs.shared_workspace = ws;
    cs.shared_workspace_bytes = ws_bytes;
    const tessera::GemmPlan plan = run_gemm_case(cs);
    EXPECT_GT(plan.split_k, 1) << "every step should split K: " << cs.str() << "\n  plan: " << plan.str();
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_EQ(cudaFree(ws), cudaSuccess);
}

TEST(GemmDevice, Tf32AndExactFp32) {
  TESSERA_REQUIRE_SM(80);
  for (GemmMath math : {GemmMath::tf32, GemmMath::fp32_exact})
    for (auto [oa, ob] : kOrders)
      for (GemmTile tile : {GemmTile::automatic, GemmTile::t128x128, GemmTile::t64x64, GemmTile::simt128x128})
        for (const Shape& s : kShapes) {
          if ((math == GemmMath::fp32_exact) != (tile == GemmTile::simt128x128) && tile != GemmTile::automatic) continue;
          GemmCase cs;
          cs.m = s.m; cs.n = s.n; cs.k = s.k;
          cs.in = Dtype::f32;
          cs.out = Dtype::f32;
          cs.math = math;
          cs.oa = oa; cs.ob = ob;
          cs.tile = tile;
          cs.alpha = -0.75f;
          cs.seed = ++g_seed;
          run_gemm_case(cs);
          if (::testing::Test::HasFailure()) return;
        }
}

TEST(GemmDevice, LongKAndInPlace) {
  TESSERA_REQUIRE_SM(80);
  GemmCase a;
  a.m = 64; a.n = 64; a.k = 4096; a.seed = ++g_seed;
  run_gemm_case(a);
  GemmCase b;
  b.m = 32; b.n = 48; b.k = 8192; b.in = Dtype::f16; b.out = Dtype::f32; b.ob = C; b.seed = ++g_seed;
  run_gemm_case(b);
  for (MatrixOrder od : {R, C}) {
    GemmCase c;  // D = A B + 1.0 * D (C aliases D)
    c.m = 100; c.n = 77; c.k = 96; c.od = od; c.beta = 1.0f; c.c_is_d = true; c.seed = ++g_seed;
    run_gemm_case(c);
  }
  GemmCase d;  // a full-size decode problem
  d.m = 1; d.n = 4096; d.k = 4096; d.ob = C; d.workspace = true; d.bias = BiasMode::per_column;
  d.act = Activation::gelu_tanh; d.seed = ++g_seed;
  run_gemm_case(d);
  GemmCase e;  // a few full 128x256 tiles, no residue
  e.m = 512; e.n = 512; e.k = 512; e.ob = C; e.seed = ++g_seed;
  run_gemm_case(e);
}

// gemm_epilogue_inplace, the epilogue on its own (D = act(D + bias) + residual in place): every output type, bias
// placement and activation, both D orders, with and without a residual, on a shape whose rows are not whole 16-byte
// vectors (the element path) and one whose rows are (the 16-byte path).  Reference: float64 of the same inputs.
TEST(GemmDevice, EpilogueInplace) {
  TESSERA_REQUIRE_SM(80);
  using tessera::test::Mat;
  std::mt19937 rng(4242);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  int runs = 0;
  for (const Shape& s : {Shape{67, 131, 0}, Shape{64, 128, 0}})
    for (Dtype t : {Dtype::bf16, Dtype::f16, Dtype::f32})
      for (MatrixOrder od : {R, C})
        for (BiasMode b : kBiases)
          for (Activation a : kActs) {
            const bool res = (runs++ % 2) == 0;
            const Dtype bt = runs % 3 ? t : Dtype::f32;
            Mat D, Rm;
            tessera::test::make_mat(D, s.m, s.n, od, t, 0, 0, rng, true);
            for (double& v : D.val) v = tessera::test::round_to(t, 3.0 * v);  // pre-activations in [-3, 3]
            for (int64_t i = 0; i < s.m; ++i)
              for (int64_t j = 0; j < s.n; ++j) tessera::test::store_elem(t, D.bytes.data(), D.index(i, j), D.at(i, j));
            // the residual in D's order (its 16-byte path) or the other one, turn about
            if (res) tessera::test::make_mat(Rm, s.m, s.n, runs % 4 == 1 ? od : (od == R ? C : R), t, 0, 0, rng, true);
            const int64_t nb = b == BiasMode::per_column ? s.n : b == BiasMode::per_row ? s.m : b == BiasMode::scalar ? 1 : 0;
            std::vector<double> bias(static_cast<size_t>(nb));
            std::vector<unsigned char> bias_bytes(static_cast<size_t>(nb) * tessera::dtype_bytes(bt));
            for (int64_t i = 0; i < nb; ++i) {
              bias[static_cast<size_t>(i)] = tessera::test::round_to(bt, u(rng) / 3.0);
              tessera::test::store_elem(bt, bias_bytes.data(), i, bias[static_cast<size_t>(i)]);
            }
            tessera::test::DeviceBuffers db;
            tessera::test::upload(db, D);
            if (res) tessera::test::upload(db, Rm);
            void* dbias = nb ? db.alloc(bias_bytes.size()) : nullptr;
            if (nb) {
              ASSERT_EQ(cudaMemcpy(dbias, bias_bytes.data(), bias_bytes.size(), cudaMemcpyHostToDevice), cudaSuccess);
            }
            tessera::GemmArgs g;
            g.m = s.m; g.n = s.n; g.k = 1;
            g.d = {D.data(), t, od, D.ld};
            g.bias_mode = b; g.bias = dbias; g.bias_type = bt; g.bias_size = nb;
            g.activation = a; g.leaky_relu_slope = 0.1f; g.clamp_lo = -0.5f; g.clamp_hi = 0.75f;
            if (res) g.residual = {Rm.data(), t, Rm.order, Rm.ld};
            const tessera::GemmStatus st = tessera::gemm_epilogue_inplace(g, nullptr);
            ASSERT_TRUE(st.ok()) << st.message;
            ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
            std::vector<unsigned char> out(D.bytes.size());
            ASSERT_EQ(cudaMemcpy(out.data(), D.data(), out.size(), cudaMemcpyDeviceToHost), cudaSuccess);
            const double r_out = t == Dtype::bf16 ? 1.0 / 128 : t == Dtype::f16 ? 1.0 / 1024 : 1e-6;
            for (int64_t i = 0; i < s.m; ++i)
              for (int64_t j = 0; j < s.n; ++j) {
                const double bv = nb == 0 ? 0.0 : bias[static_cast<size_t>(b == BiasMode::per_column ? j : b == BiasMode::per_row ? i : 0)];
                const double x = D.at(i, j) + bv;
                const double act = tessera::test::ref_act(a, x, a == Activation::clamp ? -0.5 : 0.1, 0.75);
                const double y = act + (res ? Rm.at(i, j) : 0.0);
                const double got = tessera::test::load_elem(t, out.data(), D.index(i, j));
                // the activations' own error (ActivationBound: 5e-5 relative) plus the rounding of D
                const double tol = 1e-6 + 5e-5 * std::fabs(act) + r_out * std::fabs(y);
                ASSERT_LE(std::fabs(got - y), tol) << "D(" << i << "," << j << ") = " << got << ", reference " << y << "; "
                                                   << s.m << "x" << s.n << " " << tessera::dtype_name(t) << " D "
                                                   << (od == R ? "row" : "column") << "-major, bias " << static_cast<int>(b)
                                                   << " (" << tessera::dtype_name(bt) << "), act " << static_cast<int>(a)
                                                   << (res ? ", residual" : "");
              }
          }
}

// The representative subset for compute-sanitizer: every kernel family and tile, split-K, element-wise
// (unaligned) loads, column-major D, C aliasing D, the full epilogue.
TEST(GemmSanitize, Subset) {
  TESSERA_REQUIRE_SM(80);
  std::vector<GemmCase> cases;
  auto add = [&](GemmCase c) { c.seed = ++g_seed; cases.push_back(c); };
  for (GemmTile tile : {GemmTile::t128x256, GemmTile::t128x128, GemmTile::t64x64, GemmTile::t16x128}) {
    GemmCase c; c.m = 150; c.n = 270; c.k = 140; c.tile = tile; c.ob = C; add(c);
    c.oa = C; c.ob = C; c.od = C; c.in = c.out = Dtype::f16; add(c);
  }
  { GemmCase c; c.m = 150; c.n = 130; c.k = 70; c.oa = C; c.ob = R; add(c); }
  { GemmCase c; c.m = 40; c.n = 200; c.k = 1500; c.tile = GemmTile::t64x64; c.split_k = 4; c.workspace = true;
    c.beta = 0.5f; c.bias = BiasMode::per_row; c.act = Activation::gelu_erf; c.residual = true; add(c); }
  { GemmCase c; c.m = 8; c.n = 512; c.k = 2048; c.ob = C; c.workspace = true; c.reuse_workspace = true; add(c); }
  // The GEMV: a last K chunk read in part, rows that do not fill a block, the batch as m and as n, the epilogue.
  { GemmCase c; c.m = 1; c.n = 259; c.k = 1003; c.pad_a = 5; c.pad_b = 5; c.ob = C; c.tile = GemmTile::gemv4x1; c.beta = 0.5f;
    c.bias = BiasMode::per_column; c.act = Activation::silu; c.residual = true; add(c); }
  { GemmCase c; c.m = 130; c.n = 1; c.k = 520; c.ob = C; c.od = C; c.tile = GemmTile::gemv4x1; add(c); }
  { GemmCase c; c.m = 1; c.n = 70; c.k = 301; c.pad_a = 3; c.pad_b = 3; c.ob = C; c.tile = GemmTile::gemv4x1; c.out = Dtype::f32;
    c.bias = BiasMode::per_row; c.act = Activation::gelu_tanh; add(c); }
  { GemmCase c; c.m = 37; c.n = 45; c.k = 83; c.off_a = 1; c.off_b = 3; c.off_d = 1; c.pad_a = 3; c.pad_b = 1;
    c.od = C; c.act = Activation::clamp; c.p0 = -0.2f; c.p1 = 0.3f; add(c); }
  { GemmCase c; c.m = 100; c.n = 77; c.k = 96; c.beta = 1.0f; c.c_is_d = true; c.out = Dtype::f32; add(c); }
  { GemmCase c; c.m = 70; c.n = 90; c.k = 100; c.in = c.out = Dtype::f32; c.math = GemmMath::tf32; c.oa = C; add(c); }
  { GemmCase c; c.m = 70; c.n = 90; c.k = 100; c.in = c.out = Dtype::f32; c.math = GemmMath::tf32; c.ob = C; add(c); }
  { GemmCase c; c.m = 130; c.n = 129; c.k = 33; c.in = c.out = Dtype::f32; c.oa = C; c.split_k = 2; c.workspace = true; add(c); }
  if (tessera::test::gpu_sm() == 90) {  // the Hopper kernel: full and partial tiles, split-K, the epilogue
    { GemmCase c; c.m = 150; c.n = 270; c.k = 136; c.tile = GemmTile::wgmma128x128; c.ob = C; add(c); }
    { GemmCase c; c.m = 152; c.n = 104; c.k = 600; c.tile = GemmTile::wgmma128x64; c.oa = C; c.ob = R; c.beta = 0.5f;
      c.bias = BiasMode::per_column; c.act = Activation::gelu_tanh; c.residual = true; add(c); }
    { GemmCase c; c.m = 150; c.n = 300; c.k = 136; c.tile = GemmTile::wgmma128x256; c.ob = C; add(c); }
    { GemmCase c; c.m = 150; c.n = 272; c.k = 136; c.tile = GemmTile::wgmma128x256; c.ob = R; add(c); }
    // The bare GEMM through TMA stores (stmatrix tiles in the stage buffers): a column-major D with edges, alpha, f16.
    { GemmCase c; c.m = 152; c.n = 200; c.k = 136; c.tile = GemmTile::wgmma128x256; c.od = C; c.alpha = 0.75f; add(c); }
    { GemmCase c; c.m = 150; c.n = 136; c.k = 200; c.tile = GemmTile::wgmma128x64; c.in = c.out = Dtype::f16; add(c); }
    // The Hopper decode tile (transposed: the weights as A): a partial 16-wide batch, split K with the epilogue menu.
    { GemmCase c; c.m = 5; c.n = 300; c.k = 1000; c.tile = GemmTile::wgmma128x16; c.ob = C; add(c); }
    { GemmCase c; c.m = 16; c.n = 200; c.k = 1504; c.tile = GemmTile::wgmma128x16; c.ob = C; c.split_k = 3; c.workspace = true;
      c.beta = 0.5f; c.bias = BiasMode::per_column; c.act = Activation::gelu_tanh; c.residual = true; add(c); }
    // Two splits: one cluster, the tiles added through distributed shared memory (D row- and column-major).
    { GemmCase c; c.m = 9; c.n = 260; c.k = 1000; c.tile = GemmTile::wgmma128x16; c.ob = C; c.split_k = 2; c.workspace = true;
      c.bias = BiasMode::per_row; c.act = Activation::silu; c.residual = true; add(c); }
    { GemmCase c; c.m = 200; c.n = 136; c.k = 600; c.tile = GemmTile::wgmma128x64; c.ob = C; c.od = C; c.split_k = 2;
      c.workspace = true; c.beta = 0.5f; c.act = Activation::relu; add(c); }
    { GemmCase c; c.m = 200; c.n = 136; c.k = 600; c.tile = GemmTile::wgmma128x64; c.ob = C; c.split_k = 2; c.workspace = true;
      add(c); }  // (the bare GEMM: split 1 pushes its sums into split 0)
    // Short boxes (A one tile high, B one tile wide, shorter than the tile: boxes of their own rows rounded up to 8).
    { GemmCase c; c.m = 100; c.n = 520; c.k = 600; c.tile = GemmTile::wgmma128x64; c.ob = C; c.split_k = 2; c.workspace = true;
      add(c); }
    { GemmCase c; c.m = 1000; c.n = 100; c.k = 600; c.tile = GemmTile::wgmma128x128; c.ob = C; c.bias = BiasMode::per_row;
      c.act = Activation::silu; c.residual = true; add(c); }
    { GemmCase c; c.m = 136; c.n = 100; c.k = 72; c.tile = GemmTile::wgmma128x128; c.oa = C; c.ob = C; add(c); }
    { GemmCase c; c.m = 136; c.n = 104; c.k = 72; c.tile = GemmTile::wgmma128x256; c.oa = C; c.ob = R; add(c); }
    { GemmCase c; c.m = 300; c.n = 270; c.k = 200; c.tile = GemmTile::cooperative128x256; c.ob = C; c.beta = 0.5f;
      c.bias = BiasMode::per_row; c.act = Activation::silu; c.residual = true; add(c); }
    { GemmCase c; c.m = 520; c.n = 400; c.k = 136; c.tile = GemmTile::cooperative128x256; c.oa = C; c.ob = R; c.od = C; add(c); }
    { GemmCase c; c.m = 300; c.n = 520; c.k = 200; c.tile = GemmTile::cooperative128x256; c.ob = C; c.beta = 0.5f;
      c.bias = BiasMode::per_column; c.act = Activation::gelu_erf; c.residual = true; add(c); }
    // The general cooperative kernel (beta != 0) with D through TMA and a residual of D's order, 16-byte aligned: its
    // body reads the residual from global memory and the store warps load none; one and two units per block.
    { GemmCase c; c.m = 2104; c.n = 1800; c.k = 136; c.tile = GemmTile::cooperative128x256; c.ob = C; c.beta = 0.5f;
      c.bias = BiasMode::per_column; c.bias_type = Dtype::f32; c.act = Activation::gelu_erf; c.residual = true; add(c); }
    // The residual through TMA into the staging buffers (the bare kernel's menus): whole tiles, edge tiles and a spare
    // cluster row, a consumer whose rows lie past M, one and two units per block (2,600 x 2,100: 21 x 9 tiles, 99 cluster units
    // on at most 66 clusters).
    { GemmCase c; c.m = 2600; c.n = 2100; c.k = 136; c.tile = GemmTile::cooperative128x256; c.ob = C;
      c.bias = BiasMode::per_column; c.bias_type = Dtype::bf16; c.act = Activation::silu; c.residual = true; add(c); }
    // The same with a column-major A: the host computes D^T, D and the residual are column-major in the kernel's view
    // (stmatrix.trans on the staging tiles, the residual's box in their transposed layout, the bias along the kernel's
    // M); M = 2,104 keeps A's columns 16-byte aligned (the TMA operand rule), N = 2,600 gives edge tiles along the
    // kernel's M.
    { GemmCase c; c.m = 2104; c.n = 2600; c.k = 136; c.tile = GemmTile::cooperative128x256; c.oa = C; c.ob = C;
      c.bias = BiasMode::per_column; c.bias_type = Dtype::bf16; c.act = Activation::gelu_tanh; c.residual = true; add(c); }
    { GemmCase c; c.m = 264; c.n = 304; c.k = 700; c.tile = GemmTile::cooperative128x256; c.oa = C; c.ob = R; c.split_k = 3;
      c.workspace = true; c.out = Dtype::f16; c.in = Dtype::f16; add(c); }
    // The stream-K tail (72 cluster units on 66 clusters, K tiles shared out): partial sums published and added, flags reset.
    { GemmCase c; c.m = 2100; c.n = 1800; c.k = 200; c.tile = GemmTile::cooperative128x256; c.ob = C; c.stream_k = GemmStreamK::on;
      c.workspace = true; c.reuse_workspace = true; c.bias = BiasMode::per_column; c.bias_type = Dtype::bf16;
      c.act = Activation::gelu_tanh; c.residual = true; add(c); }
    // The bare cooperative kernel's fused menus (KernelInfo::bare_menus: the bias staged in shared memory, clipped at
    // D's edge; applied after the drain, staged during the next main loop): several units per block with loops of 7 K
    // tiles, edge tiles, a spare cluster row, D column-major; a per-row bias with alpha and relu, a consumer past M.
    { GemmCase c; c.m = 2104; c.n = 1800; c.k = 392; c.tile = GemmTile::cooperative128x256; c.ob = C; c.od = C;
      c.bias = BiasMode::per_column; c.bias_type = Dtype::bf16; c.act = Activation::gelu_tanh; add(c); }
    { GemmCase c; c.m = 2100; c.n = 1000; c.k = 200; c.tile = GemmTile::cooperative128x256; c.ob = C; c.alpha = 0.75f;
      c.bias = BiasMode::per_row; c.bias_type = Dtype::bf16; c.act = Activation::relu; add(c); }
    // The persistent kernels compiled for the bare GEMM alone (KernelInfo::fn_bare): edge tiles and a spare cluster row,
    // D column-major with f16 operands, and the stream-K tail.
    { GemmCase c; c.m = 300; c.n = 520; c.k = 200; c.tile = GemmTile::cooperative128x256; c.ob = C; add(c); }
    { GemmCase c; c.m = 304; c.n = 272; c.k = 136; c.tile = GemmTile::cooperative128x256; c.od = C; c.in = c.out = Dtype::f16; add(c); }
    { GemmCase c; c.m = 2100; c.n = 1800; c.k = 200; c.tile = GemmTile::cooperative128x256; c.ob = C; c.stream_k = GemmStreamK::on;
      c.workspace = true; add(c); }
    // The bare cooperative kernel with two units on some blocks (72 cluster units): the first unit's D staged in the
    // second's main loop.
    { GemmCase c; c.m = 2104; c.n = 1800; c.k = 392; c.tile = GemmTile::cooperative128x256; c.ob = C; c.od = C;
      c.stream_k = GemmStreamK::off; add(c); }
    { GemmCase c; c.m = 260; c.n = 200; c.k = 704; c.tile = GemmTile::cooperative128x256; c.split_k = 3; c.workspace = true;
      c.bias = BiasMode::per_column; c.act = Activation::gelu_tanh; c.out = Dtype::f32; add(c); }
    { GemmCase c; c.m = 200; c.n = 72; c.k = 520; c.tile = GemmTile::wgmma128x128; c.ob = C; c.od = C; c.split_k = 2;
      c.workspace = true; c.beta = 1.0f; c.bias = BiasMode::per_column; c.act = Activation::gelu_tanh; c.residual = true;
      c.in = c.out = Dtype::f16; add(c); }
  }
  // TESSERA_SANITIZE_CASES="i,j,...": only those cases (racecheck takes minutes over the whole list, most of them in
  // the large persistent cases; each case's index is printed, so a sanitizer's report names its case).
  std::vector<int> only;
  if (const char* env = std::getenv("TESSERA_SANITIZE_CASES")) {
    for (const char* q = env; *q;) {
      char* end = nullptr;
      const long v = std::strtol(q, &end, 10);
      ASSERT_TRUE(end != q && v >= 0 && v < static_cast<long>(cases.size()))
          << "TESSERA_SANITIZE_CASES='" << env << "': expected indexes 0-" << cases.size() - 1 << " separated by commas";
      only.push_back(static_cast<int>(v));
      q = *end == ',' ? end + 1 : end;
      ASSERT_TRUE(*end == ',' || *end == '\0') << "TESSERA_SANITIZE_CASES='" << env << "': expected digits and commas";
    }
  }
  for (size_t i = 0; i < cases.size(); ++i) {
    if (!only.empty() && std::find(only.begin(), only.end(), static_cast<int>(i)) == only.end()) continue;
    std::printf("[sanitize] case %zu: %s\n", i, cases[i].str().c_str());
    std::fflush(stdout);
    run_gemm_case(cases[i]);
    if (::testing::Test::HasFailure()) return;
  }
}

}  // namespace
