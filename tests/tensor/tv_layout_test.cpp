// Thread-value layouts: make_tv_copy against the definition, partition_S/partition_D against
// "thread t moves tile element TV(t, v)", and the MMA fragment layouts against the PTX ISA.
#include <gtest/gtest.h>

#include <map>     // std::map
#include <vector>  // std::vector

#include "tessera/atom/mma_sm80.hpp"  // the m16n8k16 fragment layouts
#include "tessera/layout.hpp"
#include "tessera/tensor/tv_layout.hpp"

namespace {

using namespace tessera;

// thr = (32,8):(8,1) row-major threads, val = (1,8): each thread copies 8 consecutive columns.
constexpr TVCopy kCopy128 =
    make_tv_copy(copy_atom_vector(8), make_layout(make_tuple(32, 8), make_tuple(8, 1)), make_layout(make_tuple(1, 8)));

TEST(TVCopy, VectorCopyLayout) {
  static_assert(tile_shape(kCopy128.tiler) == make_tuple(32, 64), "a (32,64) tile");
  static_assert(tiled_threads(kCopy128) == 256 && tiled_values(kCopy128) == 8, "256 threads x 8 values");
  for (int t = 0; t < 256; ++t)
    for (int v = 0; v < 8; ++v) {
      Int idx = kCopy128.tv(make_tuple(t, v));
      ASSERT_EQ(idx % 32, t / 8) << t << " " << v;
      ASSERT_EQ(idx / 32, 8 * (t % 8) + v) << t << " " << v;
    }
}

TEST(TVCopy, ColumnMajorThreadsRakedValues) {
  // thr (4,8) column-major, val (2,2) column-major: tile (8,16).
  TVCopy c = make_tv_copy(copy_atom_vector(1), make_layout(make_tuple(4, 8)), make_layout(make_tuple(2, 2)));
  EXPECT_EQ(tile_shape(c.tiler), make_tuple(8, 16));
  // raked_product: element (m, n) belongs to thread (m / 2) + 4 (n / 2), value (m % 2) + 2 (n % 2).
  for (int m = 0; m < 8; ++m)
    for (int n = 0; n < 16; ++n) {
      int t = m / 2 + 4 * (n / 2), v = m % 2 + 2 * (n % 2);
      EXPECT_EQ(c.tv(make_tuple(t, v)), m + 8 * n);
    }
}

// Every element of a (64,128) tensor is moved exactly once, by the thread and value the TV
// layout names, in both partition_S and partition_D.
TEST(TVCopy, PartitionCoversTensorOnce) {
  std::vector<int> buf(64 * 128);
  for (size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<int>(i);
  constexpr Layout kL = make_layout_row_major(make_tuple(64, 128));
  auto s = make_tensor<kL>(buf.data());
  std::vector<int> hits(buf.size(), 0);
  for (int t = 0; t < 256; ++t) {
    auto tS = partition_S<kCopy128>(s, t);  // (CPY, CPY_M, CPY_N)
    auto tD = partition_D<kCopy128>(s, t);
    using P = decltype(tS.layout);
    static_assert(rank(P::kProfile) == 3, "(CPY,CPY_M,CPY_N)");
    static_assert(P::kProfile.shape.get(1).value() == 2 && P::kProfile.shape.get(2).value() == 2, "2 x 2 tiles");
    for (int v = 0; v < 8; ++v)
      for (int rm = 0; rm < 2; ++rm)
        for (int rn = 0; rn < 2; ++rn) {
          Int idx = kCopy128.tv(make_tuple(t, v));
          int m = rm * 32 + static_cast<int>(idx % 32), n = rn * 64 + static_cast<int>(idx / 32);
          ASSERT_EQ(tS(v, rm, rn), m * 128 + n) << t << " " << v;
          ASSERT_EQ(tD(v, rm, rn), m * 128 + n);
          hits[m * 128 + n]++;
        }
  }
  for (int h : hits) ASSERT_EQ(h, 1);
}

// The run-time forms agree with the compile-time ones.
TEST(TVCopy, RunTimePartitionMatchesCompileTime) {
  std::vector<int> buf(64 * 128);
  constexpr Layout kL = make_layout_row_major(make_tuple(64, 128));
  auto s = make_tensor<kL>(buf.data());
  auto r = make_tensor(buf.data(), kL);
  for (int t = 0; t < 256; t += 17) {
    auto ct = partition_S<kCopy128>(s, t);
    auto rt = partition_S(kCopy128, r, t);
    EXPECT_EQ(rt.layout, decltype(ct.layout)::kProfile);
    EXPECT_EQ(rt.iter, ct.iter);
    auto rd = partition_D(kCopy128, r, t);
    EXPECT_EQ(rd.iter, ct.iter);
  }
}

// A warp-wide atom whose source differs from its destination (ldmatrix.x1-like: thread t of
// the atom supplies row t%8 of an 8x8 tile, the destination is the m16n8-style fragment).
TEST(TVCopy, AtomWithDistinctSourceAndDestination) {
  // ref = dst: (T32,V2) -> (8,8) index r + 8c : thread (t%4, t/4) holds row t/4, cols 2(t%4), +1
  Layout dst = make_layout(make_tuple(make_tuple(4, 8), 2), make_tuple(make_tuple(16, 1), 8));
  // src: threads 0..7 hold a row of 8 (the row address), threads 8..31 hold nothing new:
  // (T32,V2) -> (8,8): thread t, value v -> row t%8, column 2*(t/8) + v
  Layout src = make_layout(make_tuple(make_tuple(8, 4), 2), make_tuple(make_tuple(1, 16), 8));
  TVCopyAtom atom{make_layout(32, 1), src, dst, dst};
  TVCopy c = tv_copy_from_layout(atom, dst, make_tiler(8, 8));
  std::vector<int> buf(64);
  for (int i = 0; i < 64; ++i) buf[i] = i;
  auto t = make_tensor(buf.data(), make_layout(make_tuple(8, 8), make_tuple(8, 1)));  // row-major 8x8
  Layout fs = tidfrg(t.layout, c, true), fd = tidfrg(t.layout, c, false);
  std::vector<int> src_hits(64, 0), dst_hits(64, 0);
  for (int thr = 0; thr < 32; ++thr)
    for (int v = 0; v < 2; ++v) {
      Int es = fs(make_tuple(thr, v, 0)), ed = fd(make_tuple(thr, v, 0));
      // source: row thr%8, col 2*(thr/8)+v of the row-major tile
      EXPECT_EQ(es, (thr % 8) * 8 + 2 * (thr / 8) + v);
      EXPECT_EQ(ed, (thr / 4) * 8 + 2 * (thr % 4) + v);
      src_hits[es]++;
      dst_hits[ed]++;
    }
  for (int i = 0; i < 64; ++i) EXPECT_EQ(src_hits[i], 1) << i;
  for (int i = 0; i < 64; ++i) EXPECT_EQ(dst_hits[i], 1) << i;
}

TEST(TVCopy, ErrorsNameTheProblem) {
  try {
    make_tv_copy(copy_atom_vector(8), make_layout(make_tuple(32, 8)), make_layout(make_tuple(1, 4)));
    FAIL() << "expected an error";
  } catch (const LayoutError& e) {
    EXPECT_NE(std::string(e.what()).find("not a multiple of the atom's 8"), std::string::npos) << e.what();
  }
  try {
    tidfrg(make_layout(64, 1), kCopy128, true);
    FAIL() << "expected an error";
  } catch (const LayoutError& e) {
    EXPECT_NE(std::string(e.what()).find("rank 2 for a tensor of rank 1"), std::string::npos) << e.what();
  }
}

// The m16n8k16 fragments (atom/mma_sm80.hpp) partition a (16,16) A tile exactly as the PTX ISA
// formulas say, through partition_tv.
TEST(TVCopy, MmaFragmentsThroughPartitionTv) {
  using Frag = atom::Sm80Frag16x8x16;
  std::vector<int> a(16 * 16);
  for (int i = 0; i < 256; ++i) a[i] = i;
  constexpr Layout kRowMajor = make_layout_row_major(make_tuple(16, 16));
  auto sA = make_tensor<kRowMajor>(a.data());
  for (int lane = 0; lane < 32; ++lane) {
    auto tA = partition_tv<Frag::kALayout, make_tiler(16, 16)>(sA, lane);  // (V8, 1, 1)
    for (int v = 0; v < 8; ++v) {
      atom::FragCoord c = Frag::a_coord(lane, v);
      ASSERT_EQ(tA(v, 0, 0), c.row * 16 + c.col) << lane << " " << v;
    }
  }
  std::vector<int> cbuf(16 * 8);
  constexpr Layout kC = make_layout_row_major(make_tuple(16, 8));
  auto sC = make_tensor<kC>(cbuf.data());
  for (int lane = 0; lane < 32; ++lane) {
    auto tC = partition_tv<Frag::kCLayout, make_tiler(16, 8)>(sC, lane);
    for (int v = 0; v < 4; ++v) {
      atom::FragCoord c = Frag::c_coord(lane, v);
      ASSERT_EQ(&tC(v, 0, 0) - cbuf.data(), c.row * 8 + c.col);
    }
  }
}

// A global tile with a run-time leading dimension is partitioned at compile time; the result
// evaluates with the run-time stride.
TEST(TVCopy, PartitionOfRunTimeStrideTile) {
  const int M = 96, K = 200, ld = 208;
  std::vector<int> a(M * ld);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int>(i);
  auto mA = make_tensor(a.data(), make_row_major(M, K, ld));
  auto gA = local_tile<make_tiler(32, 64)>(mA, make_coord(2, _));  // (32,64,k)
  for (int t = 0; t < 256; t += 37) {
    auto tAgA = partition_S<kCopy128>(gA, t);  // (CPY, 1, 1, k)
    for (int k = 0; k < 4; ++k)
      for (int v = 0; v < 8; ++v) {
        Int idx = kCopy128.tv(make_tuple(t, v));
        int m = 64 + static_cast<int>(idx % 32), n = 64 * k + static_cast<int>(idx / 32);
        ASSERT_EQ(tAgA(v, 0, 0, k), m * ld + n);
      }
  }
}

}  // namespace
