// tests/kernel_gemm/gemm_persistent_test.cpp -- the persistent Hopper kernels' own cases (kernel/gemm_sm90/
// persistent_kernel.hpp), part of gemm_device_test: the cooperative kernel over the epilogue menu and across units,
// its common menus, its bare kernel's deferred staging, its fused menus over hard values, and the stream-K tail.  As
// everywhere in gemm_device_test: random inputs, D poisoned, a float64 reference with gemm_check.hpp's tolerance;
// skipped below sm_90.
#include "gemm_device_common.hpp"

namespace {

using namespace tessera::test::gemm_device;

// The persistent kernel: the whole epilogue menu on full and edge tiles, blocks that take many units (the ring continues
// across units of different K lengths), split-K, and the same bits run to run.
TEST(GemmDevice, PersistentMenus) {
  TESSERA_REQUIRE_SM(90);
  int i = 0;
  for (Dtype out : {Dtype::bf16, Dtype::f16, Dtype::f32})
    for (BiasMode b : kBiases)
      for (Activation a : kActs)
        for (MatrixOrder od : {R, C}) {
          ++i;
          GemmCase cs;
          const bool full = i % 3 == 0;  // whole tiles (the 2-element fast path) or edges
          cs.oa = (i % 4 == 3) ? C : R;
          cs.ob = (i % 4 == 3) ? R : ((i % 5 < 3) ? R : C);
          // TMA row pitches are multiples of 16 bytes: an extent that is a leading dimension is a multiple of 8.
          cs.m = full ? 256 : (cs.oa == C ? 200 + 8 * (i % 8) : 200 + i % 64);
          cs.n = full ? 512 : (cs.ob == R ? 136 + 8 * (i % 16) : 137 + 2 * (i % 50));
          cs.k = 64 + 8 * (i % 40);
          cs.in = i % 2 ? Dtype::f16 : Dtype::bf16;
          cs.out = out;
          cs.tile = GemmTile::cooperative128x256;
          cs.od = od;
          cs.oc = i % 7 < 4 ? od : (od == R ? C : R);
          cs.orr = i % 11 < 6 ? od : (od == R ? C : R);
          cs.alpha = i % 2 ? 1.f : -0.75f;
          cs.beta = i % 3 == 1 ? 0.5f : 0.f;
          cs.bias = b;
          cs.bias_type = i % 2 ? Dtype::f32 : out;
          cs.act = a;
          if (a == Activation::leaky_relu) cs.p0 = 0.1f;
          if (a == Activation::clamp) { cs.p0 = -0.5f; cs.p1 = 0.75f; }
          cs.residual = i % 3 != 1;
          cs.seed = ++g_seed;
          run_gemm_case(cs);
          if (::testing::Test::HasFailure()) return;
        }
  // Many units per block: 17 x 15 tiles, and x 3 splits of uneven K length (1, 1, 2 K tiles; 3, 3, 4).
  const GemmTile tile = GemmTile::cooperative128x256;
  for (int split : {1, 3})
    for (int64_t k : {200, 640}) {
      GemmCase cs;
      cs.m = 2100; cs.n = 1800; cs.k = k;
      cs.ob = C;
      cs.bias = BiasMode::per_column; cs.act = Activation::gelu_tanh; cs.residual = true;
      cs.tile = tile;
      cs.split_k = split;
      cs.workspace = split > 1;
      cs.reuse_workspace = split > 1;
      cs.seed = ++g_seed;
      const tessera::GemmPlan plan = run_gemm_case(cs);
      EXPECT_EQ(plan.tile, tile) << cs.str();
      EXPECT_EQ(plan.split_k, split) << cs.str();
      if (::testing::Test::HasFailure()) return;
    }
  // The same plan gives the same bits run to run (split-K adds the partials in a fixed order).
  for (int split : {1, 4}) {
    GemmCase cs;
    cs.m = 700; cs.n = 520; cs.k = 3000; cs.ob = C; cs.out = Dtype::f32;
    cs.tile = GemmTile::cooperative128x256; cs.split_k = split; cs.workspace = split > 1; cs.seed = ++g_seed;
    EXPECT_TRUE(tessera::test::gemm_repeatable(cs)) << cs.str();
  }
  {  // bf16 D from the cooperative kernel with split K (registers: the TMA store is for unsplit plans)
    GemmCase cs;
    cs.m = 700; cs.n = 520; cs.k = 3000; cs.ob = C; cs.out = Dtype::bf16;
    cs.tile = GemmTile::cooperative128x256; cs.split_k = 4; cs.workspace = true; cs.seed = ++g_seed;
    EXPECT_TRUE(tessera::test::gemm_repeatable(cs)) << cs.str();
  }
}

// The cooperative kernel's common menus (D of the operands' type, beta = 0), which the kernel compiled for the bare
// menus runs (KernelInfo::bare_menus): the bare store, and a bias per column of D's type with each of the four
// activations, with and without a residual, alpha 1 and not 1; edge tiles and two units per block.  A residual of the
// other order than D's runs the general kernel (its body reads the residual from global memory).
TEST(GemmDevice, CooperativeCommonMenus) {
  TESSERA_REQUIRE_SM(90);
  // Orders (A, B, D, residual): (R, C, R, R) the common one; (R, C, C, C) D column-major (transposed staging, the
  // residual's TMA box in the same transposed layout); (R, C, C, R) a residual of the other order (general epilogue);
  // (C, C, R, R) the host computes D^T, so the bias of D's columns runs along the kernel's M and D and
  // the residual are column-major in the kernel's view.
  struct Orders { MatrixOrder a, b, d, r; };
  for (Orders o : {Orders{R, C, R, R}, Orders{R, C, C, C}, Orders{R, C, C, R}, Orders{C, C, R, R}})
    for (Dtype t : {Dtype::bf16, Dtype::f16})
      for (bool bias : {false, true})
        for (Activation a : {Activation::none, Activation::relu, Activation::gelu_tanh, Activation::silu})
          for (bool residual : {false, true})
            for (float alpha : {1.f, -0.5f}) {
              GemmCase cs;
              cs.m = 128 * 5 + 64; cs.n = 256 * 3 + 8; cs.k = 64 * 5 + 16;
              if (o.r != o.d && !residual) continue;  // (R, C, C, R) differs from (R, C, C, C) only in the residual
              cs.oa = o.a; cs.ob = o.b; cs.od = o.d; cs.orr = o.r;
              cs.in = cs.out = t;
              cs.alpha = alpha;
              cs.bias = bias ? BiasMode::per_column : BiasMode::none;
              cs.bias_type = t;
              cs.act = a;
              cs.residual = residual;
              cs.tile = GemmTile::cooperative128x256;
              cs.seed = ++g_seed;
              const tessera::GemmPlan plan = run_gemm_case(cs);
              EXPECT_EQ(plan.tile, GemmTile::cooperative128x256) << cs.str();
              if (::testing::Test::HasFailure()) return;
            }
}

// Case `cs` on the cooperative kernel forced, without a stream-K tail, with a fresh seed.
void run_cooperative(GemmCase cs) {
  cs.tile = GemmTile::cooperative128x256;
  cs.stream_k = GemmStreamK::off;
  cs.seed = ++g_seed;
  const tessera::GemmPlan plan = run_gemm_case(cs);
  EXPECT_EQ(plan.tile, GemmTile::cooperative128x256) << cs.str();
}

// The cooperative kernel compiled for the bare GEMM stages a unit's D during the block's next main loop (slot j at its
// K tile 2 j) and the rest after that loop: blocks of one to four units, loops of 1, 3, 8 and 9 K tiles (slots staged
// after the loop, some in it, all in it), D in both orders, edge tiles, a spare cluster row and a consumer whose rows lie
// past M (M = 3,100: tile row 24 holds rows 3,072-3,199).
TEST(GemmDevice, CooperativeBareAcrossUnits) {
  TESSERA_REQUIRE_SM(90);
  struct Bare { int64_t m, n, k; Dtype t; MatrixOrder a, b, d; };
  const Bare cases[] = {
      {3100, 4000, 64, Dtype::bf16, R, C, R},   // 13 x 16 cluster units: three or four per block; 1 K tile
      {3104, 4000, 136, Dtype::f16, R, C, C},   // 3 K tiles, D column-major (its columns 16-byte aligned)
      {2600, 2104, 520, Dtype::bf16, R, R, R},  // 11 x 9 units, a spare cluster row; 9 K tiles
      {2104, 2600, 512, Dtype::f16, C, C, C},   // A column-major (the host computes D^T); 8 K tiles
  };
  for (const Bare& b : cases) {
    GemmCase cs;
    cs.m = b.m; cs.n = b.n; cs.k = b.k;
    cs.in = cs.out = b.t;
    cs.oa = b.a; cs.ob = b.b; cs.od = b.d;
    run_cooperative(cs);
    if (::testing::Test::HasFailure()) return;
  }
}

// The cooperative kernel's fused menus across units and values: blocks of one to four units; loops of 1, 3, 5 and 9 K
// tiles; D in both orders; A column-major (bias along the kernel's M); every bias kind and type, alpha, the four
// activations of the bare kernel's menus, with and without the residual; edge tiles, a spare cluster row and a consumer
// whose rows lie past M; and values that a reduced-precision intermediate would lose: rows spanning more than 2^28 in
// magnitude within 64 columns, exact zeros, and +-inf sums (the activations' limits: gelu and silu of -inf are 0); and a
// 16-bit bias aligned to 2 bytes only (either kind), which the bodies' staged copy (4-byte words) leaves to the general
// epilogue.
TEST(GemmDevice, CooperativeFusedValues) {
  TESSERA_REQUIRE_SM(90);
  using A = Activation;
  using V = tessera::test::GemmValues;
  struct Fused {
    int64_t m, n, k;
    MatrixOrder a, b, d;
    BiasMode bias;
    Dtype bias_type;
    Activation act;
    bool residual;
    float alpha;
    tessera::test::GemmValues values;
    int off_bias = 0;  // 1: a 16-bit bias aligned to 2 bytes only (the general epilogue; the bodies copy 4-byte words)
  };
  const BiasMode col = BiasMode::per_column, row = BiasMode::per_row, scal = BiasMode::scalar, none = BiasMode::none;
  const Fused cases[] = {
      {3100, 4000, 64, R, C, R, col, Dtype::bf16, A::gelu_tanh, false, 1.f, V::uniform},   // 1 K tile
      {3100, 4000, 64, R, C, R, col, Dtype::bf16, A::silu, true, 1.f, V::uniform},         // the residual through TMA
      {3104, 4000, 136, R, C, C, scal, Dtype::f32, A::silu, false, 2.f, V::uniform},      // 3 K tiles, D column-major
      {2600, 2104, 328, R, C, R, none, Dtype::bf16, A::none, false, 0.75f, V::uniform},   // alpha alone; 5 K tiles
      {2600, 2104, 520, R, R, R, row, Dtype::f32, A::relu, true, -0.5f, V::uniform},      // 9 K tiles, B row-major
      {2104, 2600, 520, C, C, C, col, Dtype::bf16, A::gelu_tanh, true, 1.f, V::uniform},  // A column-major
      {2104, 2600, 520, R, C, C, row, Dtype::bf16, A::relu, false, 1.f, V::uniform},
      {2600, 2104, 512, R, C, R, col, Dtype::bf16, A::gelu_tanh, true, 1.f, V::wide_columns},
      {2600, 2104, 512, R, C, C, col, Dtype::f32, A::silu, false, -1.f, V::wide_columns},
      {2600, 2104, 512, R, C, R, none, Dtype::bf16, A::gelu_tanh, false, 1.f, V::zero_rows},
      {2600, 2104, 512, R, C, R, col, Dtype::bf16, A::silu, true, 1.f, V::inf_rows},
      {2600, 2104, 256, R, C, R, col, Dtype::f32, A::gelu_tanh, false, -1.f, V::inf_rows},
      {2600, 2104, 256, R, C, R, row, Dtype::bf16, A::gelu_tanh, false, 1.f, V::uniform, 1},
      {2600, 2104, 256, R, C, R, col, Dtype::bf16, A::silu, true, 1.f, V::uniform, 1},
      {2600, 2104, 256, R, C, R, row, Dtype::bf16, A::silu, false, -0.5f, V::uniform},  // a per-row body (case 12)
      {2600, 2104, 256, R, C, R, col, Dtype::bf16, A::gelu_tanh, false, 1.f, V::inf_bias},  // +-inf in the bias
      {2600, 2104, 256, R, C, R, row, Dtype::bf16, A::none, true, 1.f, V::inf_bias},
  };
  for (const Fused& f : cases) {
    GemmCase cs;
    cs.m = f.m; cs.n = f.n; cs.k = f.k;
    cs.in = cs.out = Dtype::bf16;
    cs.oa = f.a; cs.ob = f.b; cs.od = f.d; cs.orr = f.d;
    cs.bias = f.bias;
    cs.bias_type = f.bias_type;
    cs.off_bias = f.off_bias;
    cs.act = f.act;
    cs.residual = f.residual;
    cs.alpha = f.alpha;
    cs.values = f.values;
    run_cooperative(cs);
    if (::testing::Test::HasFailure()) return;
  }
}

// The stream-K tail of the cooperative kernel (kernel/gemm/scheduler.hpp): more cluster units than clusters, the last
// wave partial, so the last wave and one full wave are shared out by K tiles; pieces of a tile publish partial sums
// that the tile's head adds before the epilogue.  Edges in M, N and K, every path of D (TMA stores in either order,
// the residual through TMA, fp32 D from registers), a spare cluster row, and a reused workspace (the flags left zero).
TEST(GemmDevice, StreamKTail) {
  TESSERA_REQUIRE_SM(90);
  struct Sk { int64_t m, n, k; Dtype out; MatrixOrder od; BiasMode bias; Activation act; bool residual; float beta; };
  const Sk cases[] = {
      {2100, 1800, 200, Dtype::bf16, R, BiasMode::none, Activation::none, false, 0.f},   // 72 cluster units, 4 K tiles
      {2100, 1800, 640, Dtype::bf16, C, BiasMode::none, Activation::none, false, 0.f},
      {4100, 2000, 264, Dtype::bf16, R, BiasMode::per_column, Activation::gelu_tanh, false, 0.f},  // 136 units
      {4100, 2000, 264, Dtype::f16, R, BiasMode::per_column, Activation::silu, true, 0.f},  // residual through TMA
      {2600, 2100, 520, Dtype::bf16, C, BiasMode::per_row, Activation::relu, true, 0.f},     // spare cluster row
      {2100, 1800, 456, Dtype::f32, R, BiasMode::per_column, Activation::gelu_erf, true, 0.5f},  // D from registers
      {3300, 2800, 136, Dtype::bf16, R, BiasMode::none, Activation::none, false, 0.f},  // 143 units: 11 + 66 in the tail
      {2100, 1800, 64, Dtype::bf16, R, BiasMode::per_column, Activation::none, false, 0.5f},  // 1 K tile: whole tiles only
  };
  int i = 0;
  for (const Sk& sk : cases) {
    ++i;
    GemmCase cs;
    cs.m = sk.m; cs.n = sk.n; cs.k = sk.k;
    cs.in = sk.out == Dtype::f16 ? Dtype::f16 : Dtype::bf16;
    cs.out = sk.out;
    cs.ob = C;
    cs.od = sk.od; cs.oc = sk.od; cs.orr = sk.od;
    cs.alpha = i % 2 ? 1.f : -0.75f;
    cs.beta = sk.beta;
    cs.bias = sk.bias;
    cs.bias_type = sk.out;  // f32 or D's type
    cs.act = sk.act;
    cs.residual = sk.residual;
    cs.tile = GemmTile::cooperative128x256;
    cs.stream_k = GemmStreamK::on;
    cs.workspace = true;
    cs.reuse_workspace = i % 3 == 0;
    cs.seed = ++g_seed;
    const tessera::GemmPlan plan = run_gemm_case(cs);
    EXPECT_GT(plan.stream_k_tiles, 0) << "the plan should have a stream-K tail: " << cs.str() << "\n  plan: " << plan.str();
    if (::testing::Test::HasFailure()) return;
  }
  // The workspace from the caller's allocator (gemm(args, stream, alloc, ctx), the Python ops' path): the tail takes
  // its workspace from it (the planner picks a tail automatically where gemm_detail::stream_k_pays says, e.g. the bare
  // GEMM at 8192x14336x4096 on 132 SMs; forced here, so that the case has a tail on any SM count).
  {
    GemmCase cs;
    cs.m = 2100; cs.n = 1800; cs.k = 328; cs.ob = C;
    cs.bias = BiasMode::per_column; cs.bias_type = Dtype::bf16; cs.act = Activation::gelu_tanh;
    cs.tile = GemmTile::cooperative128x256;
    cs.stream_k = GemmStreamK::on;
    cs.alloc_callback = true;
    cs.seed = ++g_seed;
    const tessera::GemmPlan plan = run_gemm_case(cs);
    EXPECT_GT(plan.stream_k_tiles, 0) << "the plan should have a stream-K tail: " << cs.str() << "\n  plan: " << plan.str();
    if (::testing::Test::HasFailure()) return;
  }
  // Off: the same problem without the tail.
  GemmCase off;
  off.m = 2100; off.n = 1800; off.k = 200; off.ob = C; off.tile = GemmTile::cooperative128x256;
  off.stream_k = GemmStreamK::off; off.workspace = true; off.seed = ++g_seed;
  EXPECT_EQ(run_gemm_case(off).stream_k_tiles, 0);
}

// The planner's fill rule for the persistent kernel (gemm_plan.cu, persistent_fused_menu): below one wave it takes the
// cooperative kernel only for the fused menus of its bare-menus kernel, from 90% of a wave.  2048 x 2048: 64 cluster
// units of 2 blocks, 128 blocks.  On an H100 or H200 (132 SMs, 132 resident blocks) the bare GEMM plans a
// non-persistent tile and bias+GELU, bias+SiLU+residual and bias alone the cooperative kernel; a beta != 0 menu (the
// general kernel) stays off it.  Elsewhere the cases only check values.
TEST(GemmDevice, PersistentFusedBelowAWave) {
  TESSERA_REQUIRE_SM(90);
  cudaDeviceProp prop{};
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  const bool h100_like = prop.multiProcessorCount >= 130 && prop.multiProcessorCount <= 142;
  struct Menu { BiasMode bias; Activation act; bool residual; float beta; bool coop; };
  const Menu menus[] = {{BiasMode::none, Activation::none, false, 0.f, false},
                        {BiasMode::per_column, Activation::gelu_tanh, false, 0.f, true},
                        {BiasMode::per_column, Activation::silu, true, 0.f, true},
                        {BiasMode::per_column, Activation::none, false, 0.f, true},
                        {BiasMode::per_column, Activation::gelu_tanh, false, 0.5f, false}};
  for (const Menu& mn : menus) {
    GemmCase cs;
    cs.m = 2048; cs.n = 2048; cs.k = 192; cs.ob = C;
    cs.bias = mn.bias; cs.bias_type = Dtype::bf16; cs.act = mn.act; cs.residual = mn.residual; cs.beta = mn.beta;
    cs.seed = ++g_seed;
    const tessera::GemmPlan plan = run_gemm_case(cs);
    if (h100_like) {
      EXPECT_EQ(plan.tile == GemmTile::cooperative128x256, mn.coop) << cs.str() << "\n  plan: " << plan.str();
    }
    if (::testing::Test::HasFailure()) return;
  }
}

}  // namespace
