// tests/kernel_gemm/gemm_decode_test.cpp -- decode-shaped problems, part of gemm_device_test: the Hopper decode tile
// forced, the planner's decode plans on Hopper (which batch goes to which tile), and the GEMV for a batch of 1 (forced,
// planned, its refusals).  As everywhere in gemm_device_test: random inputs, D poisoned, a float64 reference with
// gemm_check.hpp's tolerance; skipped without a GPU (the Hopper cases below sm_90).
#include <algorithm>  // std::max
#include <string>

#include "gemm_device_common.hpp"

namespace {

using namespace tessera::test::gemm_device;

// A case on a forced Hopper tile: the weights (or A) row-major and B column-major, both K-major as the decode tiles
// need, with `split` K splits and a workspace.
GemmCase forced_case(const Shape& s, GemmTile tile, int split) {
  GemmCase cs;
  cs.m = s.m; cs.n = s.n; cs.k = s.k;
  cs.oa = R; cs.ob = C;
  cs.tile = tile;
  cs.split_k = split;
  cs.workspace = true;
  return cs;
}

// A fused menu's bias and activation (`on`), else none: the bias per column for odd i, per row for even i; the
// activation kActs[i % 7] with its parameters (a leaky slope, clamp bounds).
void set_bias_act(GemmCase& cs, bool on, int i) {
  cs.bias = !on ? BiasMode::none : i % 2 ? BiasMode::per_column : BiasMode::per_row;
  cs.act = !on ? Activation::none : kActs[i % 7];
  if (cs.act == Activation::leaky_relu) cs.p0 = 0.1f;
  if (cs.act == Activation::clamp) { cs.p0 = -0.5f; cs.p1 = 0.75f; }
}

// The Hopper decode tile (wgmma128x16x64: the weights as A, the batch as a 16-wide B), forced, with the planner's
// split K and forced splits, edges in every dimension and the epilogue menu.
TEST(GemmDevice, Wgmma128x16Decode) {
  TESSERA_REQUIRE_SM(90);
  // (K a multiple of 8: TMA needs 16-byte rows; the tile is K-major only.)  On Hopper m <= 64 problems below n are
  // transposed so that the weights are A.
  // (700 x 7 x 200 and 64 x 3 x 192: 4 and 3 K tiles, so a pushed cluster pair's split 1 keeps 1 of them after giving
  // split 0 its lead of up to 2, and 3 tiles leave it none to give.  The pair pushes the bare GEMM only, which
  // Wgmma128x16Bare below covers; these menus scatter: each block stores half the tile.)
  const Shape shapes[] = {{4096, 1, 512}, {300, 16, 1000}, {129, 5, 72}, {1000, 13, 4104}, {128, 16, 64}, {257, 9, 3000},
                          {1, 4096, 512}, {16, 300, 1000}, {5, 129, 72}, {700, 7, 200}, {64, 3, 192}};
  int i = 0;
  for (Dtype t : {Dtype::bf16, Dtype::f16})
    for (const Shape& s : shapes)
      for (int split : {0, 2, 3}) {  // (two splits: one cluster, the pair scattered)
        ++i;
        GemmCase cs = forced_case(s, GemmTile::wgmma128x16, s.k >= 64 * 3 ? split : 0);
        cs.in = cs.out = t;
        cs.alpha = 0.75f;
        cs.bias = i % 3 == 0 ? BiasMode::per_column : i % 3 == 1 ? BiasMode::per_row : BiasMode::none;
        cs.act = kActs[i % 7];
        if (cs.act == Activation::leaky_relu) cs.p0 = 0.1f;
        if (cs.act == Activation::clamp) { cs.p0 = -0.5f; cs.p1 = 0.75f; }
        cs.residual = i % 2 == 0;
        cs.od = i % 4 < 2 ? R : C;
        cs.seed = ++g_seed;
        const tessera::GemmPlan plan = run_gemm_case(cs);
        EXPECT_EQ(plan.tile, GemmTile::wgmma128x16) << cs.str();
        if (::testing::Test::HasFailure()) return;
      }
}

// The decode tile's bare GEMM (alpha alone), which leaves from the consumers' registers straight to D: one split, two
// (the cluster pair pushed: split 1's sums into split 0, whose lead of up to 2 K tiles the 4- and 3-K-tile shapes cut
// short) and three (the workspace, the staged epilogue, for comparison).  D in every type and order: column-major in
// the kernel's terms (a transposed problem's row-major D, or a column-major D not transposed) in pairs of rows where the
// tile is whole and D's base and ld allow 2-element accesses (16 x 256 x 512, 128 x 16 x 640, 16 x 4096 x 1024),
// element by element at the edges, with an odd ld (pad_d 1) or a base one element off (off_d 1).
TEST(GemmDevice, Wgmma128x16Bare) {
  TESSERA_REQUIRE_SM(90);
  const Shape shapes[] = {{16, 256, 512}, {128, 16, 640}, {16, 4096, 1024}, {8, 300, 1000},
                          {700, 7, 200},  {64, 3, 192},   {1000, 13, 4104}};
  for (const Shape& s : shapes)
    for (int split : {1, 2, 3})
      for (int v = 0; v < 5; ++v) {
        GemmCase cs = forced_case(s, GemmTile::wgmma128x16, split);
        cs.out = v == 1 ? Dtype::f16 : v == 2 ? Dtype::f32 : Dtype::bf16;
        cs.od = v % 2 == 0 ? R : C;
        cs.alpha = v == 1 ? 0.75f : v == 2 ? 0.5f : 1.f;
        if (v == 3) cs.pad_d = 1;
        if (v == 4) cs.off_d = 1;
        cs.seed = ++g_seed;
        const tessera::GemmPlan plan = run_gemm_case(cs);
        EXPECT_EQ(plan.tile, GemmTile::wgmma128x16) << cs.str();
        EXPECT_EQ(plan.split_k, split) << cs.str();
        if (::testing::Test::HasFailure()) return;
      }
}

// The 64-row weight tiles (wgmma64x16x64, wgmma64x64x64: one consumer warpgroup), forced: one split, the cluster pair
// (the bare GEMM pushed, the fused menus scattered), three splits through the workspace; the bare GEMM
// (D from registers: straight to global memory at 16 wide, TMA stores at 64), a fused menu, an f32 D; bf16 and f16
// operands; edges in every dimension, the 3- and 4-K-tile shapes cutting the pushed split 0's lead short.
TEST(GemmDevice, Wgmma64Decode) {
  TESSERA_REQUIRE_SM(90);
  struct Case {
    GemmTile tile;
    Shape s;
  };
  const Case cases[] = {{GemmTile::wgmma64x16, {16, 300, 1000}}, {GemmTile::wgmma64x16, {700, 7, 200}},
                        {GemmTile::wgmma64x16, {64, 3, 192}},    {GemmTile::wgmma64x16, {16, 4096, 1024}},
                        {GemmTile::wgmma64x64, {64, 300, 1000}}, {GemmTile::wgmma64x64, {40, 1000, 1000}},
                        {GemmTile::wgmma64x64, {130, 70, 600}},  {GemmTile::wgmma64x64, {64, 4096, 512}},
                        {GemmTile::wgmma64x64, {33, 129, 192}}};
  int i = 0;
  for (const Case& c : cases)
    for (int split : {1, 2, 3})
      for (int v = 0; v < 3; ++v) {
        ++i;
        GemmCase cs = forced_case(c.s, c.tile, split);
        cs.alpha = v == 0 ? 1.f : 0.75f;
        set_bias_act(cs, v == 1, i);
        cs.residual = v == 1 && i % 3 != 0;
        cs.od = i % 2 ? C : R;
        cs.in = i % 4 == 3 ? Dtype::f16 : Dtype::bf16;
        cs.out = v == 2 ? Dtype::f32 : cs.in;
        cs.seed = ++g_seed;
        const tessera::GemmPlan plan = run_gemm_case(cs);
        EXPECT_EQ(plan.tile, c.tile) << cs.str();
        EXPECT_EQ(plan.split_k, split) << cs.str();
        if (::testing::Test::HasFailure()) return;
      }
}

// The 128 x 64 tile's cluster pair with the epilogue menu.  The bare GEMM (v 0, a bf16 D through TMA stores): split 1
// pushes its sums into the A slots of two of split 0's ring stages (those of the first two K tiles of split 0's last
// window), K tiles 3 (no lead, the slots never used), 10, 16 and 33 (a lead of 4; the slots of stages 1-2, 4-5, 5-6);
// the fused menus (and an f32 D): the scattered pair (each block pushes the peer's half of its sums into the same slots
// and stores its own half; both D orders, so both the row halves -- one consumer warpgroup each -- and the column halves).
TEST(GemmDevice, ClusterPair64Menus) {
  TESSERA_REQUIRE_SM(90);
  const Shape shapes[] = {{200, 136, 192}, {130, 70, 600}, {304, 264, 1000}, {64, 300, 2056}};
  int i = 0;
  for (const Shape& s : shapes)
    for (int v = 0; v < 3; ++v) {
      ++i;
      GemmCase cs = forced_case(s, GemmTile::wgmma128x64, 2);
      cs.alpha = 0.75f;
      cs.beta = v == 1 ? 0.5f : 0.f;
      set_bias_act(cs, v != 0, i);
      cs.residual = v == 2;
      cs.od = i % 2 ? C : R;
      cs.out = i % 4 == 3 ? Dtype::f32 : Dtype::bf16;
      cs.seed = ++g_seed;
      const tessera::GemmPlan plan = run_gemm_case(cs);
      EXPECT_EQ(plan.tile, GemmTile::wgmma128x64) << cs.str();
      EXPECT_EQ(plan.split_k, 2) << cs.str();
      if (::testing::Test::HasFailure()) return;
    }
}

// Short boxes: a K-major operand one tile high (A) or wide (B) and shorter than the tile arrives in boxes of its own
// rows rounded up to 8, the stage's rows past them left unwritten; the plan says which (GemmPlan::a_box_rows,
// b_box_rows).  Batches of 72, 100 and 119 (the last two not multiples of 8, so the box reaches 4 and 1 rows past the
// matrix) as A of the 128 x 64 tile; a B of 100 and 200 columns on the 128 x 128 and 128 x 256 tiles, and one of 100
// beside an A of 127 rows, whose rounded box is the tile's; one split, the cluster pair and three splits; the bare GEMM
// and fused menus with C, in every D order.  An M-major A of a batch's height (not short) beside them; a column-major A
// and B (304 x 72 x 1000) run transposed, the short box then the kernel's A.  (M-major operands' extents along M or N
// multiples of 8: 16-byte row pitches, as TMA needs.)
TEST(GemmDevice, ShortBoxes) {
  TESSERA_REQUIRE_SM(90);
  struct Case {
    GemmTile tile;
    Shape s;
    MatrixOrder oa, ob;
    int a_rows, b_rows;  // the plan's short boxes (the kernel's A and B; 0: the tile's)
  };
  const Case cases[] = {{GemmTile::wgmma128x64, {72, 1000, 1000}, R, C, 72, 0},
                        {GemmTile::wgmma128x64, {100, 520, 600}, R, R, 104, 0},
                        {GemmTile::wgmma128x64, {119, 136, 264}, R, C, 120, 0},
                        {GemmTile::wgmma128x64, {104, 304, 456}, C, R, 0, 0},
                        {GemmTile::wgmma128x128, {1000, 100, 600}, R, C, 0, 104},
                        {GemmTile::wgmma128x128, {304, 72, 1000}, C, C, 72, 0},
                        {GemmTile::wgmma128x256, {500, 200, 512}, R, C, 0, 200},
                        {GemmTile::wgmma128x128, {127, 100, 328}, R, C, 0, 104}};
  int i = 0;
  for (const Case& c : cases)
    for (int split : {1, 2, 3})
      for (int v = 0; v < 3; ++v) {
        ++i;
        GemmCase cs = forced_case(c.s, c.tile, split);
        cs.oa = c.oa;
        cs.ob = c.ob;
        cs.alpha = v == 0 ? 1.f : 0.75f;
        cs.beta = v == 2 ? 0.5f : 0.f;
        set_bias_act(cs, v != 0, i);
        cs.residual = v == 1;
        cs.od = i % 2 ? C : R;
        cs.in = i % 4 == 3 ? Dtype::f16 : Dtype::bf16;
        cs.out = i % 5 == 4 ? Dtype::f32 : cs.in;
        cs.seed = ++g_seed;
        const tessera::GemmPlan plan = run_gemm_case(cs);
        EXPECT_EQ(plan.tile, c.tile) << cs.str();
        EXPECT_EQ(plan.a_box_rows, c.a_rows) << cs.str() << ": " << plan.str();
        EXPECT_EQ(plan.b_box_rows, c.b_rows) << cs.str() << ": " << plan.str();
        if (::testing::Test::HasFailure()) return;
      }
}

// Automatic plans of decode shapes on Hopper: the weights as A (transposed when the batch is m), the GEMV for a batch of
// 1, the decode tile for a batch of 2-16 (but, with a fused menu, the 128 x 64 wgmma tile, unsplit, against weights of
// at least 0.8 x SMs 128-row tiles), the 128 x 64 wgmma tile for a batch of 17-64, the batch as m
// again from 65 on; each computed and checked.  The 64-row tiles replace the 128-row ones (a batch of at most 16, or of
// 25-64) for weights of 4096 rows, whose 64 tiles in cluster pairs (128 blocks) give 90-100% of the SMs a block, and
// (a batch of at most 16, or of 49-64) for weights of 8192 rows, unsplit.  A batch of 65-128 given as n against weights
// of 1024 rows or more is transposed (the batch as m).
TEST(GemmDevice, HopperDecodePlans) {
  TESSERA_REQUIRE_SM(90);
  constexpr GemmTile kOther = GemmTile::automatic;  // neither a decode tile nor a GEMV
  int sms = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  const bool pairs64 = sms >= 128 && 9 * sms <= 1280;  // (132 on the H100 SXM and the H200)
  const GemmTile w16 = pairs64 ? GemmTile::wgmma64x16 : GemmTile::wgmma128x16;
  const GemmTile w64 = pairs64 ? GemmTile::wgmma64x64 : GemmTile::wgmma128x64;
  struct Want {
    int m, n, k;
    bool transposed;
    GemmTile tile;
    bool bare = false;  // alpha alone (else the menu below)
    int split = 0;      // the split the plan must have where the 64-row tiles are planned (pairs64; 0: any)
  };
  const Want wants[] = {{1, 4096, 1024, true, GemmTile::gemv4x1},       {16, 2048, 4096, true, GemmTile::wgmma128x16},
                        {9, 1000, 520, true, GemmTile::wgmma128x16},    {4096, 8, 1024, false, w16, false, 2},
                        {64, 4096, 2048, true, w64, false, 2},          {40, 3000, 1000, true, GemmTile::wgmma128x64},
                        {64, 4096, 4096, true, w64, false, 2},  // (the Ampere 64 x 64 tile once won this in the cost model)
                        {96, 4096, 1024, false, kOther},                {2, 4096, 520, true, w16, true, 2},
                        {1, 700, 4104, true, GemmTile::gemv4x1},        {5, 700, 4104, true, GemmTile::wgmma128x16},
                        // a fused menu against weights of 28,672 or 14,336 rows (224 or 112 tiles of 128 rows): the
                        // 128 x 64 tile, unsplit, the batch in a short box of B
                        {4, 28672, 512, true, GemmTile::wgmma128x64},   {28672, 16, 256, false, GemmTile::wgmma128x64},
                        {14336, 9, 264, false, GemmTile::wgmma128x64},
                        {300, 1, 64, false, GemmTile::gemv4x1},
                        // rows of 3,000 bytes: no TMA and no 16-byte loads, so the batch stays m (the 16 x 128 tile)
                        {16, 2048, 1500, false, kOther},                {4, 2048, 1500, false, kOther},
                        // the bare GEMM against the same weights: the decode tile, unsplit (its D from registers)
                        {8, 28672, 512, true, GemmTile::wgmma128x16, true},
                        // the 64-row tiles unsplit (8192 weight rows) and in pairs; a batch they leave to the other tiles
                        {8, 8192, 1024, true, w16, true, 1},    {56, 8192, 1024, true, w64, false, 1},
                        {40, 4096, 2048, true, w64, true, 2},   {4096, 64, 1024, false, w64, false, 2},
                        {48, 8192, 1024, true, kOther},  // (unsplit, a batch of 17-48: not the 64-row tile)
                        {24, 4096, 1024, true, kOther},  // (a batch of 17-24: not the 64-row tiles)
                        {32, 4096, 1024, true, w64, true, 2},
                        // a batch of 65-128 as B against 1024 or more weight rows: transposed, the batch as m
                        {8192, 96, 1024, true, kOther},         {2048, 128, 520, true, kOther},
                        {1000, 100, 1024, false, kOther},       {4096, 136, 1024, false, kOther}};
  int i = 0;
  for (const Want& w : wants) {
    ++i;
    GemmCase cs;
    cs.m = w.m; cs.n = w.n; cs.k = w.k;
    cs.oa = R; cs.ob = C;
    cs.workspace = true;
    cs.bias = i % 2 && !w.bare ? BiasMode::per_column : BiasMode::none;
    cs.act = i % 3 && !w.bare ? Activation::silu : Activation::none;
    cs.residual = i % 4 == 0 && !w.bare;
    cs.seed = ++g_seed;
    const tessera::GemmPlan plan = run_gemm_case(cs);
    EXPECT_EQ(plan.transposed, w.transposed) << cs.str() << ": " << plan.str();
    if ((w.tile == GemmTile::wgmma128x64 && std::max(w.m, w.n) >= 14336) || (w.tile == GemmTile::wgmma128x16 && w.n == 28672)) {
      EXPECT_EQ(plan.split_k, 1) << cs.str() << ": " << plan.str();
    }
    if (pairs64 && w.split > 0) {
      EXPECT_EQ(plan.split_k, w.split) << cs.str() << ": " << plan.str();
    }
    if (w.tile != kOther) {
      EXPECT_EQ(plan.tile, w.tile) << cs.str() << ": " << plan.str();
    } else {
      for (GemmTile t : {GemmTile::wgmma128x16, GemmTile::wgmma64x16, GemmTile::wgmma64x64, GemmTile::gemv4x1})
        EXPECT_NE(plan.tile, t) << cs.str() << ": " << plan.str();
    }
    if (::testing::Test::HasFailure()) return;
  }
}

// The GEMV (gemv4x1x256: CUDA cores, the weights as A, a batch of 1 as B), forced and planned, beside automatic plans of
// batches of 3-8 (the decode tiles): rows of the weights that do not fill a block, K below a warp's step and
// not a multiple of 8 (the last chunk read in part), the batch as the caller's m (transposed) or n, every epilogue
// input (alpha, beta C in either order, the bias per row / column / scalar in fp32 or D's type, each activation, the
// residual in either order), D in bf16 / f16 / f32 in either order; weights of enough rows (6403, 13001) that the planner
// launches one block a slot, each taking every slots-th group of 4 rows, or of rows long enough (2501 x 8200) for the
// balanced grid (the plan's grid_blocks below the groups either way).  Then the same bits run to run.
TEST(GemmDevice, Gemv) {
  TESSERA_REQUIRE_SM(80);
  struct Weights {
    int rows, k;
    int pad;  // the rows' pitch: k + pad (a multiple of 8 elements: 16-byte rows)
  };
  const Weights weights[] = {{1, 8, 0},        {7, 1003, 5},  {258, 40, 0},   {1001, 4104, 0},
                             {64, 301, 3},      {4099, 2048, 8}, {6403, 2056, 8}, {13001, 75, 5},
                             {2501, 8200, 8}};
  const GemmTile tiles[] = {GemmTile::gemv4x1, GemmTile::automatic};
  int i = 0;
  for (Dtype t : {Dtype::bf16, Dtype::f16})
    for (const Weights& w : weights)
      for (GemmTile tile : tiles)
        for (int batch : {1, 3, 4, 8}) {
          if (tile == GemmTile::gemv4x1 && batch > 1) continue;
          ++i;
          GemmCase cs;
          const bool batch_m = i % 2 == 0;  // the batch as the caller's m (D = X W^T), else as n (D = W X^T)
          cs.m = batch_m ? batch : w.rows;
          cs.n = batch_m ? w.rows : batch;
          cs.k = w.k;
          cs.oa = R; cs.ob = C;  // K-major A and B
          cs.pad_a = batch_m ? (w.k % 8 ? 8 - w.k % 8 : 0) : w.pad;
          cs.pad_b = batch_m ? w.pad : (w.k % 8 ? 8 - w.k % 8 : 0);
          cs.in = t;
          cs.out = i % 3 == 0 ? Dtype::f32 : i % 3 == 1 ? t : (t == Dtype::bf16 ? Dtype::f16 : Dtype::bf16);
          cs.tile = tile;
          cs.alpha = i % 5 == 0 ? 1.f : 0.75f;
          cs.beta = i % 4 == 1 ? 0.5f : 0.f;
          cs.oc = i % 8 < 4 ? R : C;
          cs.bias = i % 4 == 0 ? BiasMode::per_column : i % 4 == 1 ? BiasMode::per_row : i % 4 == 2 ? BiasMode::scalar : BiasMode::none;
          cs.bias_type = i % 3 == 0 ? Dtype::f32 : cs.out;
          cs.act = kActs[i % 7];
          if (cs.act == Activation::leaky_relu) cs.p0 = 0.1f;
          if (cs.act == Activation::clamp) { cs.p0 = -0.5f; cs.p1 = 0.75f; }
          cs.residual = i % 3 != 1;
          cs.orr = i % 6 < 3 ? C : R;
          cs.od = i % 4 < 2 ? R : C;
          cs.seed = ++g_seed;
          const tessera::GemmPlan plan = run_gemm_case(cs);
          if (tile != GemmTile::automatic) {
            EXPECT_EQ(plan.tile, tile) << cs.str();
          }
          // (four groups a slot: 1,584 groups on an H100 or H200; 2501 x 8200, 626 groups, between one and four a slot
          // with rows of 8192 or more: the balanced grid, 313 blocks of two groups)
          if (plan.tile == GemmTile::gemv4x1 && (w.rows > 6000 || w.k >= 8192)) {
            EXPECT_LT(plan.grid_blocks, (w.rows + 3) / 4) << cs.str() << ": " << plan.str();
          }
          if (tile != GemmTile::automatic || batch == 1) {  // (automatic plans give a wider batch to the decode tiles)
            EXPECT_EQ(plan.split_k, 1) << cs.str() << ": " << plan.str();
            // (normalise's decode orientation: a smaller m of at most 64 becomes n, so that the wider side is A)
            EXPECT_EQ(plan.transposed, cs.m <= 64 && cs.n > cs.m) << cs.str() << ": " << plan.str();
          }
          if (::testing::Test::HasFailure()) return;
          if (i % 7 == 0) {
            EXPECT_TRUE(gemm_repeatable(cs)) << "not the same bits run to run: " << cs.str();
          }
        }
  // Automatic plans on any device: the GEMV for a batch of 1 (as m or as n), the decode tiles for more.
  for (int batch : {1, 2, 4, 8})
    for (bool batch_m : {true, false}) {
      GemmCase cs;
      cs.m = batch_m ? batch : 2048; cs.n = batch_m ? 2048 : batch; cs.k = 1024;
      cs.oa = R; cs.ob = C;
      cs.seed = ++g_seed;
      const tessera::GemmPlan plan = run_gemm_case(cs);
      if (batch == 1) {
        EXPECT_EQ(plan.tile, GemmTile::gemv4x1) << cs.str() << ": " << plan.str();
      } else {
        EXPECT_NE(plan.tile, GemmTile::gemv4x1) << cs.str() << ": " << plan.str();
      }
    }
  // Refused, by name: a batch wider than the GEMV's, a split_k, rows it cannot read 16 bytes at a time.
  alignas(16) static const unsigned char dummy[16] = {};
  auto forced = [](int64_t m, int64_t n, int64_t k, int split) {
    tessera::GemmArgs g;
    g.m = m; g.n = n; g.k = k;
    g.a = {dummy, Dtype::bf16, R, k};
    g.b = {dummy, Dtype::bf16, C, k};
    g.d = {reinterpret_cast<void*>(uintptr_t(1) << 40), Dtype::bf16, R, 0};  // never touched: planning fails first
    g.tile = GemmTile::gemv4x1;
    g.split_k = split;
    tessera::GemmPlan plan;
    return tessera::gemm_plan(g, &plan);
  };
  tessera::GemmStatus st = forced(2, 4096, 512, 0);
  EXPECT_EQ(st.code, tessera::GemmError::invalid_argument) << st.message;
  EXPECT_NE(st.message.find("a GEMV for a batch of at most 1"), std::string::npos) << st.message;
  EXPECT_NE(st.message.find("is 2"), std::string::npos) << st.message;
  st = forced(1, 4096, 512, 2);
  EXPECT_EQ(st.code, tessera::GemmError::invalid_argument) << st.message;
  EXPECT_NE(st.message.find("takes no split_k"), std::string::npos) << st.message;
  st = forced(1, 4096, 500, 0);  // rows of 1,000 bytes
  EXPECT_EQ(st.code, tessera::GemmError::unsupported) << st.message;
  EXPECT_NE(st.message.find("gemv4x1x256"), std::string::npos) << st.message;
}

}  // namespace
