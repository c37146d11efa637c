// tests/kernel_gemm/gemm_registry_test.cpp -- host tests (no GPU needed) of the GEMM kernel registry
// (tessera/kernel/gemm/registry.hpp) and of the element types (tessera/dtype.hpp):
//   * every public tile has one entry, names are unique and found again by the look-up `--tile` uses;
//   * what the entries say (names, the maths a forced tile runs, the planner's order, priors and bounds,
//     the Hopper flags) equals the tables the registry replaced, copied here as literal data, so that the
//     planner and every printed string stay as they were;
//   * each entry's getters return kernels whose block tile is the entry's, for exactly the operand orders
//     it lists, and the Hopper kernels carry their TMA boxes;
//   * dtype_bytes / dtype_name for every Dtype.
#include <gtest/gtest.h>

#include <iterator>  // std::size
#include <set>
#include <string>
#include <string_view>

#include "src/gemm_internal.hpp"  // tile_supports, gemm_tile_name (what validation and the planner read)
#include "tessera/dtype.hpp"
#include "tessera/kernel/gemm/registry.hpp"

namespace {

using namespace tessera;
using gemm_core::Combo;
using gemm_core::GemmArch;
using gemm_core::GemmKernelEntry;
using gemm_core::GemmSchedule;

// Every GemmTile other than automatic, in declaration order.
constexpr GemmTile kTiles[] = {GemmTile::t128x256,     GemmTile::t128x128,    GemmTile::t64x64,
                               GemmTile::t16x128,      GemmTile::simt128x128, GemmTile::wgmma128x128,
                               GemmTile::wgmma128x256, GemmTile::cooperative128x256, GemmTile::wgmma128x64,
                               GemmTile::wgmma128x16,  GemmTile::dp4a128x128, GemmTile::gemv4x1,
                               GemmTile::wgmma64x16,   GemmTile::wgmma64x64};
constexpr GemmMath kMaths[] = {GemmMath::automatic, GemmMath::tensor_core, GemmMath::tf32, GemmMath::fp32_exact,
                               GemmMath::dp4a};

// What the hand-written tables before the registry said of each tile (and what the dp4a and GEMV entries, added after
// them, say): its name, the maths a forced tile runs (tile_supports), whether it is a Hopper kernel, the planner's efficiency
// and the decode tile's bound.
struct Expected {
  GemmTile tile;
  const char* name;
  bool tc, tf32, fp32_exact, dp4a;  // tile_supports(tile, math)
  bool sm90;                  // Hopper: sm_90a code, operands by TMA
  double efficiency;
  int max_m, max_n;
};
constexpr Expected kExpected[] = {
    {GemmTile::t128x256, "128x256x64", true, false, false, false, false, 1.0, 0, 0},
    {GemmTile::t128x128, "128x128x64", true, true, false, false, false, 0.9, 0, 0},
    {GemmTile::t64x64, "64x64x64", true, true, false, false, false, 0.65, 0, 0},
    {GemmTile::t16x128, "16x128x64", true, false, false, false, false, 0.5, 16, 0},
    {GemmTile::simt128x128, "simt128x128x8", false, false, true, false, false, 1.0, 0, 0},
    {GemmTile::wgmma128x128, "wgmma128x128x64", true, false, false, false, true, 1.6, 0, 0},
    {GemmTile::wgmma128x256, "wgmma128x256x64", true, false, false, false, true, 1.7, 0, 0},
    {GemmTile::cooperative128x256, "coop128x256x64", true, false, false, false, true, 1.8, 0, 0},
    {GemmTile::wgmma128x64, "wgmma128x64x64", true, false, false, false, true, 1.5, 0, 0},
    {GemmTile::wgmma128x16, "wgmma128x16x64", true, false, false, false, true, 0.5, 0, 16},
    {GemmTile::dp4a128x128, "dp4a128x128x64", false, false, false, true, false, 1.0, 0, 0},
    {GemmTile::gemv4x1, "gemv4x1x256", true, false, false, false, false, 1.0, 0, 1},
    {GemmTile::wgmma64x16, "wgmma64x16x64", true, false, false, false, true, 0.5, 0, 16},
    {GemmTile::wgmma64x64, "wgmma64x64x64", true, false, false, false, true, 1.0, 0, 64},
};
// The planner's candidate order (its `tiles_all` before the registry, with wgmma128x64 after wgmma128x128); ties in
// cost keep the first.
constexpr GemmTile kPlannerOrder[] = {GemmTile::cooperative128x256, GemmTile::wgmma128x256, GemmTile::wgmma128x128,
                                      GemmTile::wgmma128x64,        GemmTile::wgmma128x16,  GemmTile::t128x256,
                                      GemmTile::t128x128,
                                      GemmTile::t64x64,             GemmTile::t16x128,      GemmTile::simt128x128,
                                      GemmTile::dp4a128x128,        GemmTile::gemv4x1,      GemmTile::wgmma64x16,
                                      GemmTile::wgmma64x64};

TEST(GemmRegistry, EveryTileHasOneEntryAndNamesAreUnique) {
  std::set<GemmTile> tiles;
  std::set<std::string> names;
  for (const GemmKernelEntry& e : gemm_core::gemm_kernels()) {
    EXPECT_NE(e.tile, GemmTile::automatic) << e.name;
    EXPECT_TRUE(tiles.insert(e.tile).second) << "two entries for tile " << static_cast<int>(e.tile);
    EXPECT_TRUE(names.insert(e.name).second) << "two entries named " << e.name;
    EXPECT_FALSE(e.types.empty()) << e.name;
    EXPECT_NE(e.combos, 0u) << e.name;
  }
  for (GemmTile t : kTiles) EXPECT_NE(gemm_core::find_gemm_kernel(t), nullptr) << static_cast<int>(t);
  EXPECT_EQ(tiles.size(), std::size(kTiles));
  EXPECT_EQ(gemm_core::find_gemm_kernel(GemmTile::automatic), nullptr);
  EXPECT_EQ(gemm_core::find_gemm_kernel(static_cast<GemmTile>(std::size(kTiles) + 1)), nullptr);
}

// `tessera bench gemm --tile NAME` looks the name up with find_gemm_kernel(std::string_view).
TEST(GemmRegistry, NamesRoundTrip) {
  for (const GemmKernelEntry& e : gemm_core::gemm_kernels()) {
    EXPECT_EQ(gemm_core::find_gemm_kernel(std::string_view(e.name)), &e) << e.name;
    EXPECT_EQ(gemm_core::find_gemm_kernel(e.tile), &e) << e.name;
    EXPECT_STREQ(gemm_detail::gemm_tile_name(e.tile), e.name);
  }
  EXPECT_EQ(gemm_core::find_gemm_kernel(std::string_view("128x256")), nullptr);
  EXPECT_EQ(gemm_core::find_gemm_kernel(std::string_view("")), nullptr);
  EXPECT_STREQ(gemm_detail::gemm_tile_name(GemmTile::automatic), "automatic");
}

TEST(GemmRegistry, EntriesSayWhatTheOldTablesSaid) {
  for (const Expected& x : kExpected) {
    const GemmKernelEntry* e = gemm_core::find_gemm_kernel(x.tile);
    ASSERT_NE(e, nullptr) << x.name;
    EXPECT_STREQ(e->name, x.name);
    EXPECT_EQ(e->arch == GemmArch::sm90, x.sm90) << x.name;
    EXPECT_EQ(e->tma, x.sm90) << x.name;
    EXPECT_EQ(e->efficiency, x.efficiency) << x.name;
    EXPECT_EQ(e->max_m, x.max_m) << x.name;
    EXPECT_EQ(e->max_n, x.max_n) << x.name;
    // Every (tile, math) pair, as gemm_validate.cu's switch had it.
    for (GemmMath m : kMaths) {
      const bool want = m == GemmMath::tensor_core ? x.tc
                        : m == GemmMath::tf32      ? x.tf32
                        : m == GemmMath::dp4a      ? x.dp4a
                                                   : m == GemmMath::fp32_exact && x.fp32_exact;
      EXPECT_EQ(gemm_detail::tile_supports(x.tile, m), want) << x.name << " math " << gemm_detail::math_name(m);
    }
  }
  for (GemmMath m : kMaths) EXPECT_TRUE(gemm_detail::tile_supports(GemmTile::automatic, m));
}

TEST(GemmRegistry, PlannerOrderIsUnchanged) {
  const auto all = gemm_core::gemm_kernels();
  ASSERT_EQ(all.size(), std::size(kPlannerOrder));
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i].tile, kPlannerOrder[i]) << "entry " << i << ": " << all[i].name;
}

// The block tile an entry's name spells ("coop128x256x64": M x N x the K extent of its 16-bit types, or of its one
// type where it has no 16-bit one).
struct NamedTile { int m = 0, n = 0, k = 0; };
NamedTile named_tile(std::string_view name) {
  NamedTile t;
  const size_t x2 = name.rfind('x'), x1 = x2 == std::string_view::npos ? x2 : name.rfind('x', x2 - 1);
  if (x1 == std::string_view::npos) return t;
  size_t b = x1;
  while (b > 0 && name[b - 1] >= '0' && name[b - 1] <= '9') --b;
  t.m = std::stoi(std::string(name.substr(b, x1 - b)));
  t.n = std::stoi(std::string(name.substr(x1 + 1, x2 - x1 - 1)));
  t.k = std::stoi(std::string(name.substr(x2 + 1)));
  return t;
}

// The getters: a kernel for each listed (type, order), none for an order the entry does not list, the block tile
// the entry's name spells (the registry does not repeat it: the kernel's constants are the one source), and the
// schedule's launch facts.
TEST(GemmRegistry, GettersMatchTheirEntries) {
  for (const GemmKernelEntry& e : gemm_core::gemm_kernels())
    for (const gemm_core::GemmKernelType& t : e.types) {
      const NamedTile named = named_tile(e.name);
      ASSERT_GT(named.m * named.n * named.k, 0) << e.name << ": the name spells no M x N x K tile";
      EXPECT_EQ(e.type(t.math, t.in, t.b_type()), &t) << e.name;
      EXPECT_TRUE(e.computes(t.math)) << e.name;
      for (Combo c : gemm_core::kCombos) {
        const std::string what =
            std::string(e.name) + " " + dtype_name(t.in) + "x" + dtype_name(t.b_type()) + " " + gemm_core::combo_name(c);
        const gemm_core::KernelInfo k = e.kernel(t.math, t.in, t.b_type(), c);
        if (!e.has(t, c)) {
          EXPECT_EQ(k.fn, nullptr) << what;
          EXPECT_EQ(t.get(c).fn, nullptr) << what << ": the unit builds an order the entry does not list";
          continue;
        }
        ASSERT_NE(k.fn, nullptr) << what;
        EXPECT_EQ(k.block_m, named.m) << what;
        EXPECT_EQ(k.block_n, named.n) << what;
        const bool cuda_cores = t.math == GemmMath::fp32_exact || t.math == GemmMath::dp4a || e.schedule == GemmSchedule::gemv;
        if (cuda_cores || dtype_bytes(t.in) == 2) {
          EXPECT_EQ(k.block_k, named.k) << what;
        }
        if (!cuda_cores) {  // every tensor-core K tile is 128 bytes deep (one 128-byte swizzle row)
          EXPECT_EQ(k.block_k * dtype_bytes(t.in), 128) << what;
        }
        EXPECT_GT(k.threads, 0) << what;
        EXPECT_GT(k.smem_bytes, 0) << what;
        const bool persistent = e.schedule == GemmSchedule::cooperative;
        EXPECT_EQ(k.persistent, persistent) << what;
        // D through TMA: every Hopper kernel (the non-persistent ones for the bare GEMM only) whose tile has 64-column
        // pieces of D (not the 16-wide decode tile).
        EXPECT_EQ(k.tma_store, e.tma && k.block_n >= 64) << what;
        if (!e.tma) {
          EXPECT_EQ(k.box_a[0], 0u) << what;
          EXPECT_EQ(k.cluster_m, 1) << what;
        }
      }
      // One kernel with run-time layouts for every order.
      if (e.any_order) {
        EXPECT_EQ(t.get(Combo::kk).fn, t.get(Combo::mn_mn).fn) << e.name;
      }
    }
  // Looking up a type an entry is not built for gives no kernel.
  const GemmKernelEntry* e = gemm_core::find_gemm_kernel(GemmTile::t128x256);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->kernel(GemmMath::tf32, Dtype::f32, Combo::kk).fn, nullptr);
  EXPECT_EQ(e->kernel(GemmMath::tensor_core, Dtype::e4m3, Combo::kk).fn, nullptr);
}

// The Hopper kernels are launched with tensor maps built from their boxes: every one of them non-zero wherever
// the kernel is compiled into this build.
TEST(GemmRegistry, Sm90BoxesAreSet) {
  int checked = 0;
  for (const GemmKernelEntry& e : gemm_core::gemm_kernels()) {
    if (e.arch != GemmArch::sm90) continue;
    for (const gemm_core::GemmKernelType& t : e.types)
      for (Combo c : gemm_core::kCombos) {
        if (!e.has(t, c)) continue;
        const gemm_core::KernelInfo k = e.kernel(t.math, t.in, t.b_type(), c);
        if (!k.fn) continue;  // not compiled into this build
        const std::string what =
            std::string(e.name) + " " + dtype_name(t.in) + "x" + dtype_name(t.b_type()) + " " + gemm_core::combo_name(c);
        for (unsigned v : {k.box_a[0], k.box_a[1], k.box_b[0], k.box_b[1]}) EXPECT_GT(v, 0u) << what;
        if (k.tma_store) {
          EXPECT_GT(k.box_d[0], 0u) << what;
          EXPECT_GT(k.box_d[1], 0u) << what;
        }
        EXPECT_GE(k.cluster_m, 1) << what;
        ++checked;
      }
  }
  if (checked == 0) GTEST_SKIP() << "no Hopper kernel is compiled into this build";
}

// GemmPlan::str() names the tile as before the registry (a tf32 plan with its 32-element K tile).
TEST(GemmRegistry, PlanStringsAreUnchanged) {
  GemmPlan p;
  p.tile = GemmTile::t128x128;
  p.math = GemmMath::tf32;
  p.split_k = 2;
  p.grid_tiles = 64;
  p.grid_blocks = 128;
  p.blocks_per_sm = 2;
  p.threads = 128;
  p.smem_bytes = 98304;
  p.workspace_bytes = 4096;
  EXPECT_EQ(p.str(), "tc-tf32 128x128x32 split 2, 64 tiles in groups of 8 rows, 128 blocks, 2 blocks/SM, 128 threads, 98304 B smem, workspace 4096 B");
  p.tile = GemmTile::t64x64;
  EXPECT_EQ(p.str().substr(0, 21), "tc-tf32 64x64x32 spli");
  p.math = GemmMath::tensor_core;
  p.tile = GemmTile::cooperative128x256;
  p.transposed = true;
  p.blocks_per_sm = 1;
  p.group_m = 16;
  EXPECT_EQ(p.str(), "tc coop128x256x64 split 2 (transposed), 64 tiles in groups of 16 rows, 128 blocks, 1 block/SM, 128 threads, 98304 B smem, "
                     "workspace 4096 B");
  // A Hopper decode plan whose streamed weights come in 128-byte L2 lines says so at the end.
  p.stream_lines_128 = true;
  EXPECT_EQ(p.str().substr(p.str().size() - 46), "workspace 4096 B, weights in 128-byte L2 lines");
  p.stream_lines_128 = false;
  // Short boxes, after everything else: A's, then B's.
  auto tail = [&](const std::string& want) {
    const std::string s = p.str();
    return s.size() < want.size() ? s : s.substr(s.size() - want.size());
  };
  p.a_box_rows = 72;
  EXPECT_EQ(tail("workspace 4096 B, A in boxes of 72 rows"), "workspace 4096 B, A in boxes of 72 rows");
  p.b_box_rows = 8;
  EXPECT_EQ(tail("workspace 4096 B, A in boxes of 72 rows, B in boxes of 8 rows"),
            "workspace 4096 B, A in boxes of 72 rows, B in boxes of 8 rows");
  p.a_box_rows = 0;
  EXPECT_EQ(tail("workspace 4096 B, B in boxes of 8 rows"), "workspace 4096 B, B in boxes of 8 rows");
  EXPECT_EQ(p.str().find("A in boxes"), std::string::npos);
  p.b_box_rows = 0;
  p.math = GemmMath::fp32_exact;
  p.tile = GemmTile::simt128x128;
  EXPECT_EQ(p.str().substr(0, 19), "simt simt128x128x8 ");
  // INT8: the dp4a tile's plan names its math (the tile's name spells its 64-byte K tile); the Hopper s8 kernel's names
  // the operand type and its 128-element K tile.
  p.math = GemmMath::dp4a;
  p.tile = GemmTile::dp4a128x128;
  p.a_type = p.b_type = Dtype::s8;
  p.transposed = false;
  EXPECT_EQ(p.str().substr(0, 29), "dp4a dp4a128x128x64 split 2, ");
  p.math = GemmMath::tensor_core;
  p.tile = GemmTile::cooperative128x256;
  EXPECT_EQ(p.str().substr(0, 24), "tc-s8 128x256x128 split ");
  p.a_type = p.b_type = Dtype::bf16;
  for (const Expected& x : kExpected) {
    p.math = x.tc ? GemmMath::tensor_core : x.dp4a ? GemmMath::dp4a : GemmMath::fp32_exact;
    p.tile = x.tile;
    EXPECT_NE(p.str().find(std::string(" ") + x.name + " split"), std::string::npos) << p.str();
  }
}

// The streamed-A split rule (gemm_plan.cu) against what it was measured to pick on 132 SMs, one block each (bf16 on the
// H200, docs/PERF.md thirty-eighth and fifty-first sections): 128-row tiles of the weights, K tiles of 64.
TEST(GemmPlanner, StreamedSplitRule) {
  struct Case {
    int64_t tiles, k_tiles;
    int want;
  };
  const Case cases[] = {
      {32, 64, 2},    // (4096, 4096): 2 splits 0.92-0.96x cuBLAS, 1 split 0.88-0.95, 4 splits 0.85-0.88
      {32, 224, 2},   // (4096, 14336): 2 splits (cluster pairs) 36.1 / 37.3 us at a batch of 16 / 64, 4 splits 36.9 / 40.0
      {64, 128, 2},   // (8192, 8192)
      {112, 64, 1},   // (14336, 4096): 112 blocks unsplit 0.94-0.98, split 8 0.72
      {224, 128, 1},  // (28672, 8192): more tiles than slots
      {8, 128, 8},    // 1024 weight rows of 8192: 16 K tiles a block, 64 blocks
      {1, 1, 1},      // nothing to split
      {40, 200, 2},   // 100 K tiles a block, 80 blocks
      {40, 400, 1},   // 134 K tiles a block at 3 splits, 160 blocks (> 132) at 4: none fits
  };
  for (const Case& c : cases) {
    EXPECT_EQ(gemm_detail::streamed_split(c.tiles, c.k_tiles, 132), c.want) << "tiles " << c.tiles << ", K tiles " << c.k_tiles;
  }
  // Two blocks an SM: twice the slots.
  EXPECT_EQ(gemm_detail::streamed_split(32, 64, 264), 4);
  // The decode tile's cap of 64 K tiles a block (fifty-seventh section): (4096, 14336) 4 splits, 128 blocks, 0.958-0.968x
  // cuBLAS with 128-byte lines against 2 splits' 0.935-0.942; the other weight shapes as with the cap of 112.
  const Case decode_tile[] = {{32, 224, 4}, {32, 64, 2}, {64, 128, 2}, {112, 64, 1}, {224, 128, 1}};
  for (const Case& c : decode_tile)
    EXPECT_EQ(gemm_detail::streamed_split(c.tiles, c.k_tiles, 132, gemm_detail::kDecodeTileCap), c.want) << "tiles " << c.tiles << ", K tiles " << c.k_tiles;
}

// Where the non-persistent Hopper kernels take K tiles in pairs (gemm_internal.hpp's issue_pairs; src/gemm.cu says what
// was measured, docs/PERF.md sixty-fifth to sixty-ninth sections), at the plans it was measured on.
TEST(GemmPlanner, IssuePairsRule) {
  // The plans the pairs were measured on (docs/PERF.md, sixty-ninth section: against the single-stage loop written
  // out apart, the pairs lost or tied on every ring of six or more but the 16-bit 128 x 128 tile's).
  struct Case {
    const char* plan;
    bool persistent;
    int elem_bytes, stages, block_n;
    int64_t tiles_m, tiles_n;
    bool want;
  };
  const Case cases[] = {
      {"128 x 14336 x 4096, 128 x 128, six stages (36.3 -> 35.4-36.2 us)", false, 2, 6, 128, 1, 112, true},
      {"256 x 8192^2, 128 x 128, six stages: two blocks on each band", false, 2, 6, 128, 2, 64, true},
      {"16 x 8192^2, 64 x 16 transposed (12 stages; the same either way)", false, 2, 12, 16, 128, 1, false},
      {"64 x 4096^2, 64 x 64 split 2 transposed (8; 14.4 -> 14.9-15.4 us with pairs)", false, 2, 8, 64, 64, 1, false},
      {"128 x 4096^2, 128 x 64 split 2 (8; 15.7 -> 16.2-16.3 us)", false, 2, 8, 64, 1, 64, false},
      {"128 x 8192^2, 128 x 64 (8; 40.3-40.5 -> 41.7-41.9 us)", false, 2, 8, 64, 1, 128, false},
      {"16 x 14336 x 4096, 128 x 16 transposed (6)", false, 2, 6, 16, 112, 1, false},
      {"FP8 128 x 8192^2, 128 x 64 (8)", false, 1, 8, 64, 1, 128, false},
      {"FP8 16 x 8192^2, 128 x 16 transposed (6)", false, 1, 6, 16, 64, 1, false},
      {"a ring of four (the FP8 128 x 128 tile)", false, 1, 4, 128, 1, 112, false},
      {"128 x 28672 x 8192, 128 x 256 (4)", false, 2, 4, 256, 1, 112, false},
      {"a batch of three tiles on the 128 x 128 tile (not measured)", false, 2, 6, 128, 3, 64, false},
      {"the persistent kernel", true, 2, 6, 256, 1, 112, false},
      {"tf32 (4-byte operands)", false, 4, 8, 128, 1, 64, false},
  };
  for (const Case& c : cases)
    EXPECT_EQ(gemm_detail::issue_pairs(c.persistent, c.elem_bytes, c.stages, c.block_n, c.tiles_m, c.tiles_n), c.want) << c.plan;
}

// The automatic stream-K tail of the persistent kernels (gemm_internal.hpp's stream_k_pays; gemm_plan.cu says what was
// measured, docs/PERF.md fourteenth and seventieth sections): the 128 x 256 tile in clusters of two on 132 SMs, 66
// workers; 16-bit K tiles of 64, 8-bit ones of 128.
TEST(GemmPlanner, StreamKRule) {
  struct Case {
    const char* what;
    int64_t units, workers, k_tiles;
    int elem_bytes;
    bool finished, want;
  };
  const Case cases[] = {
      {"bf16 8192x14336x4096 bare (last wave 10 of 66)", 1792, 66, 64, 2, false, true},
      {"bf16 8192x14336x4096 bias+SiLU+residual: 74 K tiles a worker", 1792, 66, 64, 2, true, false},
      {"bf16 8192^3 bare (34 of 66)", 1024, 66, 128, 2, false, true},
      {"bf16 8192^3 bias+SiLU+residual: 194 K tiles a worker", 1024, 66, 128, 2, true, true},
      {"bf16 4096^3 (58 of 66)", 256, 66, 64, 2, false, false},
      {"bf16 8192x4096x4096 (50 of 66)", 512, 66, 64, 2, false, false},
      {"bf16, 36 of 66 (55% at most)", 66 * 7 + 36, 66, 64, 2, false, true},
      {"bf16, 37 of 66", 66 * 7 + 37, 66, 64, 2, false, false},
      {"e4m3 8192x14336x4096 (10 of 66)", 1792, 66, 32, 1, false, true},
      {"e4m3 8192^3 (34 of 66: a quarter at most for 8-bit)", 1024, 66, 64, 1, false, false},
      {"s8, 16 of 66", 66 * 3 + 16, 66, 64, 1, false, true},
      {"s8, 17 of 66", 66 * 3 + 17, 66, 64, 1, false, false},
      {"whole waves", 132, 66, 64, 2, false, false},
      {"under one wave", 40, 66, 64, 2, false, false},
      {"no workers", 40, 0, 64, 2, false, false},
  };
  for (const Case& c : cases)
    EXPECT_EQ(gemm_detail::stream_k_pays(c.units, c.workers, c.k_tiles, c.elem_bytes, c.finished), c.want) << c.what;
}

// Which problems the persistent kernels' bare-menus kernel takes (gemm_internal.hpp's bare_kernel_menu and
// bare_kernel_scales; docs/GEMM.md): D of the operands' type (bf16 for 8-bit operands), beta 0, a bias of D's type or
// none, none / relu / gelu_tanh / silu, a residual -- for FP8 operands not the menus the store warps finish (gelu_tanh,
// silu, a residual: the FP8 bare kernel stages a unit's four slots within one K tile); per-tensor scales, channel ones
// with 8-bit operands, never block scales.
TEST(GemmPlanner, BareKernelRules) {
  static const uint16_t bias_word = 0, residual_word = 0;
  auto menu = [](Dtype d, float beta, bool bias, bool bias_f32, Activation act, bool residual) {
    epilogue::Params e;
    e.d_type = d;
    e.beta = beta;
    e.bias_along = bias ? epilogue::kBiasAlongN : epilogue::kBiasNone;
    e.bias = bias ? &bias_word : nullptr;
    e.bias_f32 = bias_f32;
    e.act = act;
    e.residual = residual ? &residual_word : nullptr;
    return e;
  };
  struct Case {
    const char* what;
    Dtype in;
    epilogue::Params e;
    bool want;
  };
  const Case cases[] = {
      {"bf16 bare", Dtype::bf16, menu(Dtype::bf16, 0.f, false, false, Activation::none, false), true},
      {"bf16, bias + silu + residual", Dtype::bf16, menu(Dtype::bf16, 0.f, true, false, Activation::silu, true), true},
      {"bf16, f16 D", Dtype::bf16, menu(Dtype::f16, 0.f, false, false, Activation::none, false), false},
      {"bf16, beta 0.5", Dtype::bf16, menu(Dtype::bf16, 0.5f, false, false, Activation::none, false), false},
      {"bf16, an f32 bias", Dtype::bf16, menu(Dtype::bf16, 0.f, true, true, Activation::none, false), false},
      {"bf16, gelu_erf", Dtype::bf16, menu(Dtype::bf16, 0.f, false, false, Activation::gelu_erf, false), false},
      {"s8, bf16 D, bias + gelu_tanh + residual", Dtype::s8, menu(Dtype::bf16, 0.f, true, false, Activation::gelu_tanh, true), true},
      {"e4m3 bare, bf16 D", Dtype::e4m3, menu(Dtype::bf16, 0.f, false, false, Activation::none, false), true},
      {"e5m2, bias + relu", Dtype::e5m2, menu(Dtype::bf16, 0.f, true, false, Activation::relu, false), true},
      {"e4m3, f32 D", Dtype::e4m3, menu(Dtype::f32, 0.f, false, false, Activation::none, false), false},
      {"e4m3, gelu_tanh (the store warps finish it)", Dtype::e4m3, menu(Dtype::bf16, 0.f, true, false, Activation::gelu_tanh, false), false},
      {"e4m3, silu", Dtype::e4m3, menu(Dtype::bf16, 0.f, false, false, Activation::silu, false), false},
      {"e4m3, a residual", Dtype::e4m3, menu(Dtype::bf16, 0.f, false, false, Activation::none, true), false},
  };
  for (const Case& c : cases) EXPECT_EQ(gemm_detail::bare_kernel_menu(c.e, c.in), c.want) << c.what;

  auto scales = [](Dtype in, bool rows, bool cols, bool blocks) {
    gemm_detail::Problem p;
    p.in = p.in_b = in;
    p.scale_a_rows = rows;
    p.scale_b_cols = cols;
    p.scale_a_blocks = p.scale_b_blocks = blocks;
    return gemm_detail::bare_kernel_scales(p);
  };
  EXPECT_TRUE(scales(Dtype::bf16, false, false, false));
  EXPECT_FALSE(scales(Dtype::bf16, true, false, false));
  EXPECT_TRUE(scales(Dtype::s8, true, true, false));
  EXPECT_TRUE(scales(Dtype::e4m3, false, false, false));
  EXPECT_TRUE(scales(Dtype::e4m3, true, true, false));
  EXPECT_TRUE(scales(Dtype::e5m2, false, true, false));
  EXPECT_FALSE(scales(Dtype::e4m3, false, false, true));
}

// The 64-row weight tiles' rule (gemm_plan.cu's rows64_plan) on 132 SMs, one block each (bf16 on the H200, docs/PERF.md
// fifty-ninth section): 64-row tiles of the weights times the batch's 16- or 64-wide tiles, K tiles of 64.
TEST(GemmPlanner, Rows64SplitRule) {
  struct Case {
    int64_t tiles, k_tiles, batch;
    int want;
  };
  const Case cases[] = {
      {64, 64, 16, 2},    // (4096, 4096), a batch of 16: 64 tiles in cluster pairs, 128 blocks (13.9-14.1 us, 15.8-16.0 before)
      {64, 224, 8, 2},    // (4096, 14336)
      {128, 128, 16, 1},  // (8192, 8192): 128 tiles unsplit
      {224, 64, 16, 0},   // (14336, 4096): two waves -- the 128-row tile, unsplit, 3-8% faster
      {448, 128, 2, 0},   // (28672, 8192)
      {32, 64, 16, 0},    // (2048, 4096): 64 blocks in pairs, under 90% of the slots
      {60, 64, 16, 2},    // 120 blocks: 90.9% of the slots
      {66, 64, 16, 2},    // 132 blocks: all of them
      {67, 64, 16, 0},    // 134 blocks: over one wave, and 67 under 90% unsplit
      {64, 1, 16, 0},     // one K tile: nothing to split
      {64, 64, 1, 2},     // a batch of 1 (the planner's cost model then prefers the GEMV)
      {64, 64, 17, 0},    // a batch of 17-24: the other tiles (24 x 4096^2: 0.98-1.01 of the 128 x 64 pair's speed)
      {64, 224, 24, 0},
      {64, 64, 25, 2},    // 25-64 in pairs: 28 / 32 x 4096^2 5-9% faster than the 128 x 64 pair, 40-56 1-12%
      {64, 224, 32, 2},   // 32 x 4096 x 14336: 2-4% faster
      {128, 128, 32, 0},  // unsplit, a batch of 25-48: the other tiles
      {64, 224, 48, 2},   // 48 x 4096 x 14336: 10-11% faster
      {128, 128, 40, 0},  // unsplit, a batch of 40: 6-7% slower than the 128 x 64 tile
      {128, 128, 48, 0},  // 48 alike
      {128, 128, 56, 1},  // 56: 2-6% faster
      {128, 128, 64, 1},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(gemm_detail::rows64_split(c.tiles, c.k_tiles, 132, c.batch), c.want)
        << "tiles " << c.tiles << ", K tiles " << c.k_tiles << ", batch " << c.batch;
  }
  // Two blocks an SM (264 slots): 128 tiles in pairs, 256 blocks.
  EXPECT_EQ(gemm_detail::rows64_split(128, 128, 264, 16), 2);
}

// Short boxes (gemm_internal.hpp's short_box_rows): an operand one tile high (wide), K-major, on a kernel that takes
// them, shorter than the tile even after its rows are rounded up to 8.
TEST(GemmPlanner, ShortBoxRows) {
  struct Case {
    bool eligible, k_major;
    int64_t tiles, extent, box_rows;
    int want;
  };
  const Case cases[] = {
      {true, true, 1, 72, 128, 72},    // a batch of 72 as A of a 128-row tile
      {true, true, 1, 100, 128, 104},  // rounded up to 8: 4 rows past the matrix, zero-filled
      {true, true, 1, 119, 128, 120},
      {true, true, 1, 121, 128, 0},    // 128 after rounding: the tile's box
      {true, true, 1, 128, 128, 0},
      {true, true, 1, 1, 16, 8},       // a batch of 1-8 as the 16-wide decode tile's B
      {true, true, 1, 9, 16, 0},
      {true, true, 1, 40, 64, 40},
      {true, true, 2, 100, 128, 0},    // two tiles: the second one's rows are the matrix's
      {true, false, 1, 72, 128, 0},    // M-major (N-major): boxes of 64 along M, not rows
      {false, true, 1, 72, 128, 0},    // a persistent kernel, or 8-bit operands
  };
  for (const Case& c : cases)
    EXPECT_EQ(gemm_detail::short_box_rows(c.eligible, c.k_major, c.tiles, c.extent, c.box_rows), c.want)
        << "eligible " << c.eligible << ", K-major " << c.k_major << ", tiles " << c.tiles << ", extent " << c.extent
        << ", box rows " << c.box_rows;
  static_assert(gemm_detail::short_box_rows(true, true, 1, 96, 128) == 96, "short_box_rows is constexpr");
}

// ---- tessera/dtype.hpp ----

TEST(Dtypes, BytesAndNamesOfEveryType) {
  struct Row {
    Dtype t;
    int value, bytes;
    const char* name;
  };
  const Row rows[] = {{Dtype::bf16, 0, 2, "bf16"}, {Dtype::f16, 1, 2, "f16"}, {Dtype::f32, 2, 4, "f32"}, {Dtype::e4m3, 3, 1, "e4m3"},
                      {Dtype::e5m2, 4, 1, "e5m2"}, {Dtype::s8, 5, 1, "s8"},   {Dtype::s32, 6, 4, "s32"}};
  ASSERT_EQ(std::size(rows), static_cast<size_t>(kDtypeCount));
  for (size_t i = 0; i < std::size(rows); ++i) {
    EXPECT_EQ(kDtypes[i], rows[i].t);
    EXPECT_EQ(static_cast<int>(rows[i].t), rows[i].value) << rows[i].name;
    EXPECT_EQ(dtype_bytes(rows[i].t), rows[i].bytes) << rows[i].name;
    EXPECT_STREQ(dtype_name(rows[i].t), rows[i].name);
    EXPECT_TRUE(is_dtype(rows[i].t));
  }
  for (int v : {-1, 7, 100}) {
    EXPECT_EQ(dtype_bytes(static_cast<Dtype>(v)), 0) << v;
    EXPECT_STREQ(dtype_name(static_cast<Dtype>(v)), "?");
    EXPECT_FALSE(is_dtype(static_cast<Dtype>(v)));
  }
}

}  // namespace
