// Host tests of the copy kernels' compile-time structure: thread-value layouts of the tiled copies,
// the swizzled shared layouts (cp.async chunks stay contiguous), and the shared-memory bank model with
// its predictions for the plain and swizzled transposing copy.  No GPU needed.
#include <gtest/gtest.h>

#include <cstdint>  // uint64_t
#include <vector>   // std::vector

#include "tessera/kernel/copy/copy_2d.hpp"     // VectorCopyConfig, SmemCopyConfig
#include "tessera/kernel/copy/smem_model.hpp"  // warp_cost, tile_cost
#include "tessera/tensor/tv_layout.hpp"        // make_tv_copy (the tensor layer's construction)

namespace {

using namespace tessera;
using namespace tessera::kernel;

// ---- the bank model on textbook patterns ----
TEST(SmemModel, TextbookPatterns) {
  uint64_t addr[32];
  for (int l = 0; l < 32; ++l) addr[l] = 4 * l;  // consecutive floats
  EXPECT_EQ(warp_cost(addr, 4).wavefronts, 1);
  for (int l = 0; l < 32; ++l) addr[l] = 128 * l;  // a column of a 32-float-wide row-major tile
  EXPECT_EQ(warp_cost(addr, 4).wavefronts, 32);
  EXPECT_EQ(warp_cost(addr, 4).max_ways, 32);
  for (int l = 0; l < 32; ++l) addr[l] = 132 * l;  // the same with one float of padding per row
  EXPECT_EQ(warp_cost(addr, 4).wavefronts, 1);
  for (int l = 0; l < 32; ++l) addr[l] = 16 * l;  // 128-bit vectors, consecutive: 4 phases, no conflict
  EXPECT_EQ(warp_cost(addr, 16).wavefronts, 4);
  EXPECT_EQ(warp_cost(addr, 16).ideal, 4);
  for (int l = 0; l < 32; ++l) addr[l] = 0;  // broadcast
  EXPECT_EQ(warp_cost(addr, 4).wavefronts, 1);
  for (int l = 0; l < 32; ++l) addr[l] = 2 * l;  // 16-bit halves of 16 words
  EXPECT_EQ(warp_cost(addr, 2).wavefronts, 1);
}

// ---- thread-value layouts ----
TEST(TiledCopyLayouts, VectorCopyOwnsConsecutiveVectors) {
  using Cfg = VectorCopyConfig<16, 4, false, true>;  // (8,32) threads x 16 bytes, 4 repetitions along m
  using TC = Cfg::G2R;
  static_assert(TC::kTileM == 8 && TC::kTileN == 512, "(8,32) threads x (1,16) bytes is an 8x512 tile");
  static_assert(TC::kAtoms == 1 && TC::kAtomAlongN, "one 16-byte atom per thread, along n");
  for (int t = 0; t < TC::kThreads; ++t) {
    const ThrCopy s = TC::get_slice(t);
    EXPECT_EQ(s.m, t / 32) << "thread " << t;
    EXPECT_EQ(s.n, 16 * (t % 32)) << "thread " << t;
  }
  // The TV layout is the tensor layer's: thread t's value v is byte 16*(t%32) + v of row t/32.
  for (int t = 0; t < TC::kThreads; ++t)
    for (int v = 0; v < TC::kValues; ++v)
      EXPECT_EQ(TC::kLayoutTV(make_tuple(Int(t), Int(v))), Int(t / 32) + TC::kTileM * Int(16 * (t % 32) + v));
  static_assert(Cfg::kTileM == 32 && Cfg::kTileN == 512, "4 repetitions along m");
}

TEST(TiledCopyLayouts, TransposeReadOutLanes) {
  // 4-byte elements: lanes (4 along m) x (8 along n), warps stacked along m.
  using Cfg = SmemCopyConfig<uint32_t, true, 16, false>;
  static_assert(Cfg::kTileM == 32 && Cfg::kTileN == 64, "128-byte columns of floats, 64 columns");
  using S2R = Cfg::S2R;
  for (int l = 0; l < 32; ++l) {
    const ThrCopy s = S2R::get_slice(l);
    EXPECT_EQ(s.m, l % 4);
    EXPECT_EQ(s.n, l / 4);
  }
  EXPECT_EQ(S2R::get_slice(32).m, 4);  // warp 1 starts 4 rows down
  // The global -> shared copy reads 16-byte vectors down each source column.
  using G2S = Cfg::G2S;
  static_assert(G2S::kAtomAlongM && G2S::Atom::kValues == 4, "cp.async 16B = 4 floats along m");
  EXPECT_EQ(G2S::get_slice(1).m, 4);
  EXPECT_EQ(G2S::get_slice(8).n, 1);
}

// Every cp.async destination must be kVec contiguous bytes also in the swizzled layout.
template <class Cfg, class T>
void expect_atoms_contiguous() {
  using G2S = typename Cfg::G2S;
  std::vector<T> buf(Cfg::kTileBytes / sizeof(T));
  const auto view = make_smem_view<Cfg, T, true>(buf.data());
  std::vector<bool> seen(buf.size(), false);
  for (int t = 0; t < G2S::kThreads; ++t)
    for (int rm = 0; rm < Cfg::kRepM; ++rm)
      for (int rn = 0; rn < Cfg::kRepN; ++rn)
        for (int v = 0; v < G2S::kValues; ++v) {
          const ThrCopy s = G2S::get_slice(t);
          const int m = s.m + G2S::kOffsets.m[v] + rm * G2S::kTileM, n = s.n + G2S::kOffsets.n[v] + rn * G2S::kTileN;
          const int v0 = v / G2S::Atom::kValues * G2S::Atom::kValues, j = v - v0;
          const int m0 = s.m + G2S::kOffsets.m[v0] + rm * G2S::kTileM, n0 = s.n + G2S::kOffsets.n[v0] + rn * G2S::kTileN;
          const auto off = view.at(m, n) - buf.data();
          ASSERT_EQ(off, view.at(m0, n0) - buf.data() + j) << "atom split by the swizzle at thread " << t;
          ASSERT_EQ((view.at(m0, n0) - buf.data()) % G2S::Atom::kValues, 0) << "atom misaligned";
          ASSERT_FALSE(seen[off]) << "two values map to one shared element";
          seen[off] = true;
        }
}

TEST(TiledCopyLayouts, SwizzleKeepsCpAsyncChunks) {
  expect_atoms_contiguous<SmemCopyConfig<uint8_t, false, 16, false>, uint8_t>();
  expect_atoms_contiguous<SmemCopyConfig<uint8_t, false, 16, true>, uint8_t>();
  expect_atoms_contiguous<SmemCopyConfig<uint8_t, true, 16, false>, uint8_t>();
  expect_atoms_contiguous<SmemCopyConfig<uint16_t, true, 16, false>, uint16_t>();
  expect_atoms_contiguous<SmemCopyConfig<uint32_t, true, 16, false>, uint32_t>();
  expect_atoms_contiguous<SmemCopyConfig<uint32_t, true, 4, false>, uint32_t>();
  expect_atoms_contiguous<SmemCopyConfig<uint64_t, true, 16, false>, uint64_t>();
  expect_atoms_contiguous<SmemCopyConfig<uint64_t, true, 8, false>, uint64_t>();
}

// ---- predicted bank conflicts of the transposing copy ----
template <class T>
void expect_transpose_prediction(int plain_ways) {
  using Cfg = SmemCopyConfig<T, true, 16, false>;
  std::vector<T> buf(Cfg::kTileM * Cfg::kTileN);
  const auto plain = make_smem_view<Cfg, T, false>(buf.data());
  const auto swz = make_smem_view<Cfg, T, true>(buf.data());
  const TileCost read_plain = tile_cost<typename Cfg::S2R, Cfg::kReadRepM, Cfg::kReadRepN>(plain);
  const TileCost read_swz = tile_cost<typename Cfg::S2R, Cfg::kReadRepM, Cfg::kReadRepN>(swz);
  const TileCost write_plain = tile_cost<typename Cfg::G2S, Cfg::kRepM, Cfg::kRepN>(plain);
  const TileCost write_swz = tile_cost<typename Cfg::G2S, Cfg::kRepM, Cfg::kRepN>(swz);
  EXPECT_EQ(read_plain.max_ways, plain_ways) << sizeof(T) << "-byte elements, plain layout";
  EXPECT_GT(read_plain.wavefronts, read_plain.ideal);
  EXPECT_EQ(read_swz.wavefronts, read_swz.ideal) << sizeof(T) << "-byte elements: the swizzle removes every conflict";
  EXPECT_EQ(write_plain.wavefronts, write_plain.ideal) << "cp.async writes whole 128-byte columns";
  EXPECT_EQ(write_swz.wavefronts, write_swz.ideal);
}

TEST(SmemModel, TransposePlainConflictsSwizzledDoesNot) {
  expect_transpose_prediction<uint8_t>(2);
  expect_transpose_prediction<uint16_t>(4);
  expect_transpose_prediction<uint32_t>(8);
  expect_transpose_prediction<uint64_t>(8);
}

TEST(SmemModel, StraightCopyIsConflictFree) {
  using Cfg = SmemCopyConfig<uint8_t, false, 16, false>;
  std::vector<uint8_t> buf(Cfg::kTileBytes);
  for (bool swizzled : {false, true}) {
    const TileCost c = swizzled ? tile_cost<Cfg::S2R, Cfg::kReadRepM, Cfg::kReadRepN>(make_smem_view<Cfg, uint8_t, true>(buf.data()))
                                : tile_cost<Cfg::S2R, Cfg::kReadRepM, Cfg::kReadRepN>(make_smem_view<Cfg, uint8_t, false>(buf.data()));
    EXPECT_EQ(c.wavefronts, c.ideal) << (swizzled ? "swizzled" : "plain");
  }
}

}  // namespace
