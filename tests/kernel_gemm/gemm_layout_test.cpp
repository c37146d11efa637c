// tests/kernel_gemm/gemm_layout_test.cpp -- host checks of the layouts the GEMM is built from:
//   * the MMA atoms' fragment layouts (tessera::Layout data) against the PTX ISA formulas, and that each
//     is a bijection onto its operand tile;
//   * the tiled MMA's accumulator layout against its coordinate function;
//   * the swizzled shared-memory layouts (index functions vs. Swizzle o Layout), bijectivity, and that
//     every ldmatrix / cp.async phase of 8 x 16 bytes touches 8 different 16-byte bank groups;
//   * the kernel's split ldmatrix addresses against the plain layout functions, for every tile config;
//   * the grouped block rasterization is a permutation of the tiles.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tessera/atom/mma_sm80.hpp"
#include "tessera/atom/mma_sm90.hpp"
#include "tessera/atom/smem_sm90.hpp"
#include "tessera/kernel/gemm/registry.hpp"
#include "tessera/kernel/gemm/scheduler.hpp"
#include "tessera/atom/tiled_mma.hpp"
#include "tessera/kernel/gemm_sm80/gemm_kernel.hpp"
#include "tessera/kernel/gemm_sm80/smem_layout.hpp"

namespace {

using namespace tessera;
using atom::FragCoord;

// Checks that layout L over (T32, V) maps (lane, v) to index row + rows * col == coord(lane, v), and that
// the map is a bijection onto [0, rows * cols).
template <class F>
void check_fragment(const Layout& l, int values, int rows, int cols, F coord, const char* what) {
  ASSERT_EQ(size(l), 32 * values) << what;
  std::vector<int> hits(static_cast<size_t>(rows * cols), 0);
  for (int lane = 0; lane < 32; ++lane)
    for (int v = 0; v < values; ++v) {
      const Int idx = l(make_tuple(lane, v));
      const FragCoord c = coord(lane, v);
      ASSERT_EQ(idx, c.row + rows * c.col) << what << " lane " << lane << " value " << v;
      ASSERT_GE(idx, 0);
      ASSERT_LT(idx, rows * cols);
      ++hits[static_cast<size_t>(idx)];
    }
  for (size_t i = 0; i < hits.size(); ++i) ASSERT_EQ(hits[i], 1) << what << ": index " << i << " held " << hits[i] << " times";
}

TEST(GemmLayouts, AtomFragmentsMatchPtxFormulas) {
  using A16 = atom::MmaSm80_16x8x16_F32BF16;
  // A: (T32,V8) -> (M16,K16); the index is m + 16 k, i.e. row + 16 col.
  check_fragment(A16::kALayout, 8, 16, 16, [](int l, int v) { return A16::a_coord(l, v); }, "m16n8k16 A");
  // B: (T32,V4) -> (N8,K16) as n + 8 k; b_coord gives (k, n).
  check_fragment(A16::kBLayout, 4, 8, 16, [](int l, int v) { const FragCoord c = A16::b_coord(l, v); return FragCoord{c.col, c.row}; },
                 "m16n8k16 B");
  check_fragment(A16::kCLayout, 4, 16, 8, [](int l, int v) { return A16::c_coord(l, v); }, "m16n8k16 C");
  using T32 = atom::MmaSm80_16x8x8_F32TF32;
  check_fragment(T32::kALayout, 4, 16, 8, [](int l, int v) { return T32::a_coord(l, v); }, "m16n8k8 A");
  check_fragment(T32::kBLayout, 2, 8, 8, [](int l, int v) { const FragCoord c = T32::b_coord(l, v); return FragCoord{c.col, c.row}; },
                 "m16n8k8 B");
  check_fragment(T32::kCLayout, 4, 16, 8, [](int l, int v) { return T32::c_coord(l, v); }, "m16n8k8 C");
  // Spot values straight from the PTX ISA figures: thread 5 = (groupID 1, threadID_in_group 1).
  EXPECT_EQ(A16::a_coord(5, 0), (FragCoord{1, 2}));
  EXPECT_EQ(A16::a_coord(5, 7), (FragCoord{9, 11}));
  EXPECT_EQ(A16::b_coord(5, 3), (FragCoord{11, 1}));
  EXPECT_EQ(T32::a_coord(5, 3), (FragCoord{9, 5}));
}

template <class Mma>
void check_tiled_mma() {
  const Layout l = Mma::c_layout();
  std::vector<int> hits(static_cast<size_t>(Mma::kTileM * Mma::kTileN), 0);
  for (int t = 0; t < Mma::kThreads; ++t)
    for (int nt = 0; nt < Mma::kAtomsN; ++nt)
      for (int mt = 0; mt < Mma::kAtomsM; ++mt)
        for (int i = 0; i < 4; ++i) {
          const int v = i + 4 * (mt + Mma::kAtomsM * nt);
          const FragCoord c = Mma::c_coord(t, mt, nt, i);
          const Int idx = l(make_tuple(t, v));
          ASSERT_EQ(idx, c.row + Mma::kTileM * c.col) << "thread " << t << " mt " << mt << " nt " << nt << " i " << i;
          ++hits[static_cast<size_t>(idx)];
        }
  for (size_t i = 0; i < hits.size(); ++i) ASSERT_EQ(hits[i], 1) << "tile element " << i;
}

TEST(GemmLayouts, TiledMmaAccumulatorLayout) {
  using Atom = atom::MmaSm80_16x8x16_F32BF16;
  check_tiled_mma<atom::TiledMma<Atom, 2, 4, 64, 64>>();
  check_tiled_mma<atom::TiledMma<Atom, 2, 2, 64, 64>>();
  check_tiled_mma<atom::TiledMma<Atom, 2, 2, 32, 32>>();
  check_tiled_mma<atom::TiledMma<Atom, 1, 4, 16, 32>>();
}

// An 8-lane phase of 16-byte accesses is conflict-free when the 8 units fall in 8 different bank groups
// (16-byte unit index mod 8), or are the same address.
void expect_conflict_free(const std::vector<Int>& byte_offsets, const std::string& what) {
  std::set<Int> groups, addrs;
  for (Int o : byte_offsets) {
    EXPECT_EQ(o % 16, 0) << what;
    groups.insert((o / 16) % 8);
    addrs.insert(o);
  }
  EXPECT_EQ(groups.size(), addrs.size()) << what << ": " << addrs.size() << " units in " << groups.size() << " bank groups";
}

template <int kRows, int kBytes>
void check_k_major() {
  using S = gemm_sm80::SmemKMajor<kRows, kBytes>;
  const SwizzledLayout l = S::layout();
  std::vector<int> hits(S::kElems, 0);
  for (int r = 0; r < kRows; ++r)
    for (int k = 0; k < S::kRowElems; ++k) {
      ASSERT_EQ(S::offset(r, k), l(make_tuple(r, k))) << "K-major r " << r << " k " << k;
      ++hits[static_cast<size_t>(S::offset(r, k))];
    }
  for (int h : hits) ASSERT_EQ(h, 1);
  // ldmatrix phases: 8 consecutive rows at one unit; cp.async phases: 8 consecutive units of one row.
  for (int r0 = 0; r0 < kRows; r0 += 8)
    for (int u = 0; u < 8; ++u) {
      std::vector<Int> rows_phase, row_phase;
      for (int i = 0; i < 8; ++i) {
        rows_phase.push_back(S::unit_offset(r0 + i, u) * kBytes);
        row_phase.push_back(S::unit_offset(r0 + u, i) * kBytes);
      }
      expect_conflict_free(rows_phase, "K-major ldmatrix phase");
      expect_conflict_free(row_phase, "K-major cp.async phase");
    }
}

template <int kX, int kBytes>
void check_mn_major() {
  using S = gemm_sm80::SmemMNMajor<kX, kBytes>;
  const SwizzledLayout l = S::layout();
  std::vector<int> hits(S::kElems, 0);
  for (int k = 0; k < S::kBlockK; ++k)
    for (int x = 0; x < kX; ++x) {
      ASSERT_EQ(S::offset(k, x), l(make_tuple(x, k))) << "MN-major k " << k << " x " << x;
      ++hits[static_cast<size_t>(S::offset(k, x))];
    }
  for (int h : hits) ASSERT_EQ(h, 1);
  for (int k0 = 0; k0 < S::kBlockK; k0 += 8)
    for (int u = 0; u < kX / S::kUnit; ++u) {
      std::vector<Int> phase;  // ldmatrix.trans: 8 consecutive k rows at one unit of X
      for (int i = 0; i < 8; ++i) phase.push_back(S::unit_offset(k0 + i, u) * kBytes);
      expect_conflict_free(phase, "MN-major ldmatrix.trans phase");
    }
}

TEST(GemmLayouts, SwizzledSharedMemory) {
  check_k_major<128, 2>();
  check_k_major<256, 2>();
  check_k_major<16, 2>();
  check_k_major<128, 4>();
  check_mn_major<128, 2>();
  check_mn_major<256, 2>();
  check_mn_major<64, 2>();
  check_mn_major<128, 4>();
  check_mn_major<64, 4>();
}

template <class K>
void check_frag_addresses() {
  for (int w = 0; w < K::kThreads / 32; ++w)
    for (int lane = 0; lane < 32; ++lane) {
      const uint32_t ab = K::frag_a_base(w, lane), bb = K::frag_b_base(w, lane);
      for (int ks = 0; ks < K::kKSteps; ++ks) {
        // (tf32 operands stored M/N-major are read element by element, not through these addresses)
        if (!(K::Elem_is_tf32 && K::kAMajorIsMn)) {
          for (int mt = 0; mt < K::kMT; ++mt) {
            ASSERT_EQ(K::frag_a_offset(ab, mt, ks), K::frag_a_offset_ref(w, lane, mt, ks))
                << "A warp " << w << " lane " << lane << " mt " << mt << " ks " << ks;
          }
        }
        if (!(K::Elem_is_tf32 && K::kBMajorIsMn)) {
          for (int p = 0; p < K::kNT / 2; ++p) {
            ASSERT_EQ(K::frag_b_offset(bb, p, ks), K::frag_b_offset_ref(w, lane, p, ks))
                << "B warp " << w << " lane " << lane << " p " << p << " ks " << ks;
          }
        }
      }
    }
}

// tf32 operands stored M/N-major: the element-wise addresses.
template <class K>
void check_tf32_addresses() {
  for (int w = 0; w < K::kThreads / 32; ++w)
    for (int lane = 0; lane < 32; ++lane)
      for (int ks = 0; ks < K::kKSteps; ++ks)
        for (int hk = 0; hk < 2; ++hk) {
          if (K::kAMajorIsMn) {
            for (int hm = 0; hm < 2; ++hm)
              for (int mt = 0; mt < K::kMT; ++mt) {
                ASSERT_EQ(K::tf32_a_offset(K::tf32_a_base(w, lane, hk, hm), mt, ks), K::tf32_a_offset_ref(w, lane, mt, ks, hk, hm))
                    << "tf32 A warp " << w << " lane " << lane << " mt " << mt << " ks " << ks << " hk " << hk << " hm " << hm;
              }
          }
          if (K::kBMajorIsMn) {
            for (int nt = 0; nt < K::kNT; ++nt) {
              ASSERT_EQ(K::tf32_b_offset(K::tf32_b_base(w, lane, hk), nt, ks), K::tf32_b_offset_ref(w, lane, nt, ks, hk))
                  << "tf32 B warp " << w << " lane " << lane << " nt " << nt << " ks " << ks << " hk " << hk;
            }
          }
        }
}

template <class Elem, class Tile, bool kWithMnA = true>
void check_frag_addresses_all() {
  using gemm_sm80::GemmSm80;
  using gemm_sm80::Major;
  check_frag_addresses<GemmSm80<Elem, Tile, Major::k, Major::k>>();
  check_frag_addresses<GemmSm80<Elem, Tile, Major::k, Major::mn>>();
  if constexpr (kWithMnA) check_frag_addresses<GemmSm80<Elem, Tile, Major::mn, Major::mn>>();
}

TEST(GemmLayouts, SplitLdmatrixAddressesMatchLayouts) {
  using namespace gemm_sm80;
  check_frag_addresses_all<ElemBf16, Tile128x256>();
  check_frag_addresses_all<ElemBf16, Tile128x128>();
  check_frag_addresses_all<ElemBf16, Tile64x64>();
  check_frag_addresses_all<ElemBf16, Tile16x128, false>();
  check_frag_addresses_all<ElemTf32, Tile128x128>();
  check_frag_addresses_all<ElemTf32, Tile64x64>();
  check_tf32_addresses<GemmSm80<ElemTf32, Tile128x128, Major::mn, Major::mn>>();
  check_tf32_addresses<GemmSm80<ElemTf32, Tile64x64, Major::mn, Major::mn>>();
}

TEST(GemmLayouts, GroupedRasterizationIsAPermutation) {
  for (int tm : {1, 3, 8, 13, 64})
    for (int tn : {1, 2, 7, 32})
      for (int g : {1, 4, 8, 16}) {
        std::vector<int> hits(static_cast<size_t>(tm * tn), 0);
        for (int pid = 0; pid < tm * tn; ++pid) {
          int a = -1, b = -1;
          gemm_sm80::grouped_tile(pid, tm, tn, g, a, b);
          ASSERT_TRUE(a >= 0 && a < tm && b >= 0 && b < tn) << pid;
          ++hits[static_cast<size_t>(a * tn + b)];
        }
        for (int h : hits) ASSERT_EQ(h, 1) << tm << "x" << tn << " group " << g;
      }
}

// The scheduler's divisions by a multiply and a shift (gemm_core::FastDiv): n / d and n % d exactly, for divisors
// up to 2^31 - 1 and dividends up to 2^31 - 1, at the edges (around multiples of d, powers of two) and at random.
TEST(GemmLayouts, FastDivIsExact) {
  std::mt19937 rng(7);
  std::vector<int> divisors;
  for (int d = 1; d <= 4100; ++d) divisors.push_back(d);
  for (int e = 12; e <= 30; ++e)
    for (int delta : {-1, 0, 1}) divisors.push_back((1 << e) + delta);
  divisors.push_back(INT32_MAX);
  divisors.push_back(INT32_MAX - 1);
  for (int i = 0; i < 2000; ++i) divisors.push_back(static_cast<int>(rng() % INT32_MAX) + 1);
  for (const int d : divisors) {
    const gemm_core::FastDiv f(d);
    std::vector<int64_t> ns = {0, 1, 2, d - 1, d, d + 1, INT32_MAX, INT32_MAX - 1, INT32_MAX - d};
    for (int64_t q : {int64_t{2}, int64_t{3}, int64_t{1000}, int64_t{INT32_MAX} / d})
      for (int64_t delta : {-1, 0, 1}) ns.push_back(q * d + delta);
    for (int i = 0; i < 40; ++i) ns.push_back(static_cast<int64_t>(rng() % (static_cast<uint32_t>(INT32_MAX) + 1u)));
    for (const int64_t n : ns) {
      if (n < 0 || n > INT32_MAX) continue;
      ASSERT_EQ(f.div(static_cast<int>(n)), n / d) << n << " / " << d;
      ASSERT_EQ(f.mod(static_cast<int>(n)), n % d) << n << " % " << d;
    }
  }
  for (int n = 0; n < 1 << 16; ++n)  // every small dividend by every small divisor
    for (int d = 1; d <= 64; ++d) ASSERT_EQ(gemm_core::FastDiv(d).div(n), n / d) << n << " / " << d;
  static_assert(gemm_core::FastDiv(7).div(700) == 100 && gemm_core::FastDiv(1).div(INT32_MAX) == INT32_MAX);
}

// The scheduler's units in the order of grouped_tile and of the split-K formula (split s of tile u / splits at unit
// u), for every group size, including a last group of fewer rows; and persistent_scheduler's cluster tiles.
TEST(GemmLayouts, SchedulerUnitsFollowTheGroupedOrder) {
  for (int tm : {1, 3, 8, 13, 64, 66})
    for (int tn : {1, 2, 7, 32})
      for (int g : {1, 4, 8, 16})
        for (int splits : {1, 3}) {
          const int kt = 10;
          const gemm_core::TileScheduler s(tm, tn, g < tm ? g : tm, splits, kt);
          for (int u = 0; u < s.units(); ++u) {
            const gemm_core::TileWork w = s.work(u);
            int a = -1, b = -1;
            gemm_core::grouped_tile(u / splits, tm, tn, g < tm ? g : tm, a, b);
            const int sp = u % splits;
            ASSERT_TRUE(w.tm == a && w.tn == b && w.split == sp) << tm << "x" << tn << " group " << g << " unit " << u;
            ASSERT_EQ(w.k_tile0, sp * (kt / splits) + (sp < kt % splits ? sp : kt % splits)) << "unit " << u;
            ASSERT_EQ(w.k_tiles, kt / splits + (sp < kt % splits ? 1 : 0)) << "unit " << u;
          }
        }
  // 33 tile rows in clusters of 2 (17 cluster rows), groups of 16 tile rows (8 cluster rows), 132 blocks (66 workers)
  constexpr gemm_core::TileScheduler p = gemm_core::persistent_scheduler(33, 16, 16, 2, 1, 64, 0, 132);
  static_assert(p.tiles_m == 17 && p.tiles_n == 16 && p.group_m == 8 && p.workers == 66 && p.k_tiles == 64);
  static_assert(p.items(0) == (17 * 16 + 65) / 66 && p.items(65) == (17 * 16 - 65 + 65) / 66);
}

// The stream-K tail (kernel/gemm/scheduler.hpp) as the persistent kernels walk it: every (tile, K tile) of the
// problem is computed by exactly one item; every tile is stored by exactly one item, the one holding its K tile 0,
// which runs last in its worker's list; that item's peers are exactly the workers whose pieces publish partial
// sums for the tile, each of lower index than the tile's head and each piece its worker's first stream-K piece (done
// before anything it waits for); and the workers' K-tile counts differ by at most one.
TEST(GemmLayouts, StreamKTailCoversEveryKTileOnce) {
  struct Case { int tm, tn, kt, workers; };
  for (const Case cs : {Case{16, 16, 64, 66}, Case{32, 32, 128, 66}, Case{32, 16, 64, 66}, Case{32, 56, 64, 66},
                        Case{32, 16, 224, 66}, Case{5, 7, 3, 4}, Case{3, 3, 1, 8}, Case{9, 1, 5, 2}, Case{70, 1, 2, 66},
                        Case{4, 17, 100, 7}}) {
    const int tiles = cs.tm * cs.tn;
    if (tiles <= cs.workers || tiles % cs.workers == 0) continue;
    for (const int group : {4, 8}) {  // cluster rows per group (the planner's for 66 clusters of 128 x 256 tiles: 8)
      const gemm_core::TileScheduler s(cs.tm, cs.tn, group < cs.tm ? group : cs.tm, 1, cs.kt, tiles % cs.workers + cs.workers,
                                       cs.workers);
      const std::string at = std::to_string(cs.tm) + "x" + std::to_string(cs.tn) + " tiles, " + std::to_string(cs.kt) +
                             " K tiles, " + std::to_string(cs.workers) + " workers, groups of " + std::to_string(group);
      std::vector<int> hits(static_cast<size_t>(tiles) * cs.kt, 0), stores(static_cast<size_t>(tiles), 0);
      std::vector<int> publishers(static_cast<size_t>(tiles), 0), peers(static_cast<size_t>(tiles), -1);
      int64_t lo = INT64_MAX, hi = 0;
      for (int w = 0; w < cs.workers; ++w) {
        int64_t mine = 0;
        const int n = s.items(w);
        for (int v = 0; v < n; ++v) {
          const gemm_core::TileWork it = s.item(w, v);
          ASSERT_TRUE(it.tm >= 0 && it.tm < cs.tm && it.tn >= 0 && it.tn < cs.tn) << at;
          ASSERT_TRUE(it.k_tiles >= 1 && it.k_tile0 >= 0 && it.k_tile0 + it.k_tiles <= cs.kt) << at;
          const int t = it.tm * cs.tn + it.tn;
          for (int k = it.k_tile0; k < it.k_tile0 + it.k_tiles; ++k) ++hits[static_cast<size_t>(t) * cs.kt + k];
          mine += it.k_tiles;
          ASSERT_EQ(it.stores, it.k_tile0 == 0) << at;
          if (it.stores) {
            ++stores[static_cast<size_t>(t)];
            peers[static_cast<size_t>(t)] = it.peers;
            if (it.peers > 0) {
              EXPECT_EQ(v, n - 1) << at << ": a tile's head completes it last in its worker's list";
              for (int x = 1; x <= it.peers; ++x) {  // each peer's first stream-K piece publishes into this tile
                ASSERT_GE(w - x, 0) << at;
                const gemm_core::TileWork q = s.item(w - x, s.whole_items(w - x));
                EXPECT_EQ(q.tm * cs.tn + q.tn, t) << at;
                EXPECT_EQ(q.partial, w - x) << at;
              }
            }
          } else {
            EXPECT_EQ(it.partial, w) << at;
            EXPECT_EQ(v, s.whole_items(w)) << at << ": only a worker's first stream-K piece publishes";
            ++publishers[static_cast<size_t>(t)];
          }
        }
        lo = mine < lo ? mine : lo;
        hi = mine > hi ? mine : hi;
      }
      for (int h : hits) ASSERT_EQ(h, 1) << at;
      for (int t = 0; t < tiles; ++t) {
        ASSERT_EQ(stores[static_cast<size_t>(t)], 1) << at << ", tile " << t;
        EXPECT_EQ(peers[static_cast<size_t>(t)], publishers[static_cast<size_t>(t)]) << at << ", tile " << t;
      }
      EXPECT_LE(hi - lo, 1) << at << ": every worker runs the same number of K tiles, give or take one";
    }
  }
}

// The tail's arithmetic is 32-bit on the device (TileScheduler::sk_start / items / item): it equals the 64-bit
// formula r S / G (S = sk_tiles * k_tiles, G workers) item by item wherever the planner takes a tail (sk_fits: S fits
// in an int), up to that bound; one past it is refused.
TEST(GemmLayouts, StreamKTailArithmeticMatches64Bit) {
  struct Case { int tm, tn, workers; int64_t kt; };
  const int64_t most = INT32_MAX / 124;  // 16 x 16 tiles on 66 workers: sk_tiles = 256 % 66 + 66 = 124
  for (const Case cs : {Case{16, 16, 66, 64}, Case{16, 16, 66, most}, Case{16, 16, 66, most - 1}, Case{32, 56, 66, 4099},
                        Case{5, 7, 4, 3}, Case{70, 1, 66, 1 << 20}, Case{4, 17, 7, 123457}, Case{9, 1, 2, INT32_MAX / 3}}) {
    const int tiles = cs.tm * cs.tn;
    const int64_t sk = tiles % cs.workers + cs.workers;
    const std::string at = std::to_string(cs.tm) + "x" + std::to_string(cs.tn) + " tiles, " + std::to_string(cs.kt) +
                           " K tiles, " + std::to_string(cs.workers) + " workers";
    ASSERT_TRUE(gemm_core::TileScheduler::sk_fits(sk, cs.kt)) << at;
    const gemm_core::TileScheduler s(cs.tm, cs.tn, 8 < cs.tm ? 8 : cs.tm, 1, static_cast<int>(cs.kt), static_cast<int>(sk),
                                     cs.workers);
    const int64_t total = sk * cs.kt;
    auto start = [&](int r) { return total * r / cs.workers; };  // the 64-bit formula
    for (int r = 0; r <= cs.workers; ++r) ASSERT_EQ(s.sk_start(r), start(r)) << at << ", range " << r;
    for (int w = 0; w < cs.workers; ++w) {
      const int r = cs.workers - 1 - w;
      const int64_t lo = start(r), hi = start(r + 1);
      const int whole = s.whole_items(w);
      const int64_t pieces = hi > lo ? (hi - 1) / cs.kt - lo / cs.kt + 1 : 0;
      ASSERT_EQ(s.items(w), whole + pieces) << at << ", worker " << w;
      for (int j = 0; j < pieces; ++j) {  // piece j of the range, as the 64-bit walk cuts it
        const int64_t t = lo / cs.kt + j, t0 = t * cs.kt, t1 = t0 + cs.kt;
        const int64_t a = j == 0 ? lo : t0, b = hi < t1 ? hi : t1;
        const gemm_core::TileWork it = s.item(w, whole + j);
        int tm = 0, tn = 0;
        gemm_core::grouped_tile(tiles - static_cast<int>(sk) + static_cast<int>(t), cs.tm, cs.tn, s.group_m, tm, tn);
        EXPECT_TRUE(it.tm == tm && it.tn == tn) << at << ", worker " << w << ", piece " << j;
        EXPECT_EQ(it.k_tile0, a - t0) << at << ", worker " << w << ", piece " << j;
        EXPECT_EQ(it.k_tiles, b - a) << at << ", worker " << w << ", piece " << j;
        EXPECT_EQ(it.stores, a == t0) << at << ", worker " << w << ", piece " << j;
        int peers = 0;
        if (a == t0)
          for (int x = r + 1; x < cs.workers && start(x) < t1; ++x) ++peers;
        EXPECT_EQ(it.peers, peers) << at << ", worker " << w << ", piece " << j;
      }
    }
  }
  EXPECT_FALSE(gemm_core::TileScheduler::sk_fits(124, most + 1));
  EXPECT_TRUE(gemm_core::TileScheduler::sk_fits(124, most));
}

}  // namespace

// The Hopper shared-memory tiles as layouts (atom/smem_sm90.hpp): the 128-byte swizzle the hardware applies,
// and the TMA boxes every Hopper kernel publishes, pinned to the values its tests ran with on an H100.
namespace sm90_tiles {

using namespace tessera;

TEST(GemmLayouts, Sm90SwizzledTileMatchesTheHardware) {
  for (int eb : {1, 2, 4}) {
    const atom::SmemTileSm90 t = atom::sw128_tile(128, eb);
    EXPECT_TRUE(t.matches_hw_sw128()) << eb << "-byte elements";
    EXPECT_EQ(t.tma_swizzle_bytes(), 128);
    EXPECT_EQ(t.wgmma_sbo_bytes(), 1024);
    EXPECT_EQ(t.tma_box().inner, static_cast<unsigned>(128 / eb));
    EXPECT_EQ(t.tma_box().outer, 128u);
  }
  // A swizzle on the wrong unit (32-byte units for 2-byte elements) is not the hardware's.
  atom::SmemTileSm90 wrong = atom::sw128_tile(64, 2);
  wrong.tile.swizzle = Swizzle{3, 4, 3};
  EXPECT_FALSE(wrong.matches_hw_sw128());
  // Nor is an unswizzled tile, nor one whose rows are not 128 bytes.
  atom::SmemTileSm90 plain = atom::sw128_tile(64, 2);
  plain.tile.swizzle = Swizzle{0, 0, 0};
  EXPECT_FALSE(plain.matches_hw_sw128());
  EXPECT_FALSE((atom::SmemTileSm90{composition(Swizzle{3, 3, 3}, make_layout(make_tuple(64, 32), make_tuple(32, 1))), 2}
                    .matches_hw_sw128()));
}

// offset_bytes(r, c) is the hardware's 128-byte swizzle of the row-major byte address: row r's 16-byte units XORed with
// r % 8 (the non-persistent Hopper kernel takes a consumer's first row of A from it).
TEST(GemmLayouts, Sm90TileOffsetsAreTheHardwareSwizzle) {
  for (int eb : {1, 2, 4}) {
    const atom::SmemTileSm90 t = atom::sw128_tile(128, eb);
    const Int per_row = 128 / eb;
    for (Int r = 0; r < 128; r += 5)
      for (Int c = 0; c < per_row; c += 3) {
        const Int a = (r * per_row + c) * eb;
        EXPECT_EQ(t.offset_bytes(r, c), a ^ (((a >> 7) & 7) << 4)) << eb << "-byte elements, (" << r << ", " << c << ")";
      }
    EXPECT_EQ(t.offset_bytes(64, 0), 64 * 128) << eb << "-byte elements: a multiple of 8 rows stays in place";
  }
}

// The wgmma descriptor's fields and K steps come from the same layouts (the kernels' descriptors are
// arch::smem_desc(tile + ks * k step, fields)); pinned to the bit patterns the kernels ran with on an H100
// (PTX ISA "Matrix Descriptor Format": leading offset / 16 at bit 16, stride offset / 16 at bit 32, swizzle mode
// 1 = 128 bytes at bit 62).
TEST(GemmLayouts, Sm90DescriptorFieldsComeFromTheTile) {
  const atom::SmemTileSm90 k_major = atom::sw128_tile(128, 2);  // 128 rows of 64 K-elements
  EXPECT_EQ(k_major.wgmma_desc_fields(true), (uint64_t{1} << 16) | (uint64_t{64} << 32) | (uint64_t{1} << 62));
  EXPECT_EQ(k_major.wgmma_k_offset_bytes(true, 16), 32);
  EXPECT_EQ(k_major.wgmma_k_offset_bytes(true, 48), 96);
  const atom::SmemTileSm90 mn_box = atom::sw128_tile(64, 2);  // 64 K rows of 64 M (N) elements, boxes 8 KB apart
  EXPECT_EQ(mn_box.wgmma_desc_fields(false, 8192), (uint64_t{512} << 16) | (uint64_t{64} << 32) | (uint64_t{1} << 62));
  EXPECT_EQ(mn_box.wgmma_k_offset_bytes(false, 16), 2048);
  EXPECT_EQ(mn_box.wgmma_k_offset_bytes(false, 48), 6144);
  // What the kernels take: both, for a stage of 64 K elements.
  EXPECT_EQ(k_major.wgmma_operand(true, 0, 64).desc, k_major.wgmma_desc_fields(true));
  EXPECT_EQ(k_major.wgmma_operand(true, 0, 64).k_step, 32);
  EXPECT_EQ(mn_box.wgmma_operand(false, 8192, 64).desc, mn_box.wgmma_desc_fields(false, 8192));
  EXPECT_EQ(mn_box.wgmma_operand(false, 8192, 64).k_step, 2048);
  // A tile of another swizzle (32-byte: 2 16-byte units a row) gets no descriptor (0), not the 128-byte one's.
  const atom::SmemTileSm90 sw32{composition(Swizzle{1, 3, 3}, make_layout(make_tuple(64, 16), make_tuple(16, 1))), 2};
  EXPECT_EQ(sw32.wgmma_desc_fields(true), 0u);
  EXPECT_EQ(sw32.wgmma_operand(true, 0, 16).desc, 0u);
  // Nor does a tile whose K steps are not evenly spaced: K along (32, 2):(1, 1000) steps 16, 984, 16 elements.
  const atom::SmemTileSm90 uneven{
      composition(Swizzle{3, 3, 3}, make_layout(make_tuple(64, make_tuple(32, 2)), make_tuple(64, make_tuple(1, 1000)))), 2};
  EXPECT_EQ(uneven.wgmma_operand(true, 0, 64).desc, 0u);
}

void expect_box(const gemm_core::KernelInfo& k, unsigned a_inner, unsigned a_outer, unsigned b_inner, unsigned b_outer,
                const char* what) {
  ASSERT_NE(k.fn, nullptr) << what;
  EXPECT_EQ(k.box_a[0], a_inner) << what;
  EXPECT_EQ(k.box_a[1], a_outer) << what;
  EXPECT_EQ(k.box_b[0], b_inner) << what;
  EXPECT_EQ(k.box_b[1], b_outer) << what;
}

TEST(GemmLayouts, Sm90KernelBoxesComeFromTheirLayouts) {
  using gemm_core::Combo;
  using gemm_core::find_gemm_kernel;
  const GemmMath tc = GemmMath::tensor_core;
  for (Dtype in : {Dtype::bf16, Dtype::f16}) {
    for (GemmTile t : {GemmTile::wgmma128x64, GemmTile::wgmma128x128, GemmTile::wgmma128x256}) {
      const gemm_core::GemmKernelEntry* e = find_gemm_kernel(t);
      ASSERT_NE(e, nullptr);
      const unsigned bn = t == GemmTile::wgmma128x64 ? 64u : t == GemmTile::wgmma128x128 ? 128u : 256u;
      expect_box(e->kernel(tc, in, Combo::kk), 64, 128, 64, bn, "wgmma KK");
      expect_box(e->kernel(tc, in, Combo::k_mn), 64, 128, 64, 64, "wgmma KN");
      expect_box(e->kernel(tc, in, Combo::mn_mn), 64, 64, 64, 64, "wgmma MN");
      // The bare GEMM's D leaves through TMA stores of 64 x 64 tiles (FragmentEpilogue::kStageTile).
      for (Combo c : gemm_core::kCombos) {
        const gemm_core::KernelInfo k = e->kernel(tc, in, c);
        EXPECT_TRUE(k.tma_store);
        EXPECT_EQ(k.box_d[0], 64u);
        EXPECT_EQ(k.box_d[1], 64u);
      }
    }
    for (GemmTile t : {GemmTile::cooperative128x256}) {
      const gemm_core::GemmKernelEntry* e = find_gemm_kernel(t);
      ASSERT_NE(e, nullptr);
      const gemm_core::KernelInfo kk = e->kernel(tc, in, Combo::kk);
      ASSERT_GT(kk.cluster_m, 0);
      expect_box(kk, 64, static_cast<unsigned>(kk.block_m), 64, static_cast<unsigned>(kk.block_n / kk.cluster_m),
                 "persistent KK");
      expect_box(e->kernel(tc, in, Combo::k_mn), 64, static_cast<unsigned>(kk.block_m), 64, 64, "persistent KN");
      expect_box(e->kernel(tc, in, Combo::mn_mn), 64, 64, 64, 64, "persistent MN");
      // D leaves through TMA stores, in 64 x 64 boxes of its staging tile.
      for (Combo c : gemm_core::kCombos) {
        const gemm_core::KernelInfo k = e->kernel(tc, in, c);
        EXPECT_TRUE(k.tma_store);
        EXPECT_EQ(k.box_d[0], 64u);
        EXPECT_EQ(k.box_d[1], 64u);
      }
    }
  }
  // FP8 (the 128 x 128 tile, K-major A and B only): the same 128-byte rows, 128 one-byte elements each.
  const gemm_core::GemmKernelEntry* e8 = find_gemm_kernel(GemmTile::wgmma128x128);
  ASSERT_NE(e8, nullptr);
  for (Dtype a : {Dtype::e4m3, Dtype::e5m2})
    for (Dtype b : {Dtype::e4m3, Dtype::e5m2}) {
      const gemm_core::KernelInfo k = e8->kernel(tc, a, b, Combo::kk);
      expect_box(k, 128, 128, 128, 128, "wgmma FP8 KK");
      EXPECT_EQ(k.block_k, 128);
      EXPECT_EQ(e8->kernel(tc, a, b, Combo::k_mn).fn, nullptr) << "FP8 operands are K-major only";
      EXPECT_EQ(e8->kernel(tc, a, b, Combo::mn_mn).fn, nullptr);
      // The 128 x 64 tile.
      const gemm_core::KernelInfo k64 = find_gemm_kernel(GemmTile::wgmma128x64)->kernel(tc, a, b, Combo::kk);
      expect_box(k64, 128, 128, 128, 64, "wgmma FP8 128x64 KK");
      // The decode tile: 16 rows of B a stage.
      const gemm_core::KernelInfo kd = find_gemm_kernel(GemmTile::wgmma128x16)->kernel(tc, a, b, Combo::kk);
      expect_box(kd, 128, 128, 128, 16, "wgmma FP8 decode KK");
      EXPECT_EQ(kd.block_k, 128);
    }
}

// The staging tile of D (FragmentEpilogue::kStageTile) is the hardware's 128-byte swizzle on 64 rows of 64
// 16-bit elements, so the box the host builds map_d with and the stmatrix addresses agree.
// The wgmma atom's accumulator layout (atom/mma_sm90.hpp) against the PTX ISA's register-fragment formula, for every
// N the kernels use: the fragment epilogue reads (m, n) of each register from the layout.
template <int kN>
void expect_wgmma_c_layout() {
  using A = atom::WgmmaAccum64xN<kN>;
  for (int t = 0; t < A::kThreads; ++t)
    for (int i = 0; i < A::kValuesC; ++i) {
      const atom::FragCoord got = A::split(A::kThreadMode(t) + A::kValueMode(i));
      const atom::FragCoord want = A::c_coord(t, i);
      ASSERT_EQ(got.row, want.row) << "N " << kN << " thread " << t << " value " << i;
      ASSERT_EQ(got.col, want.col) << "N " << kN << " thread " << t << " value " << i;
      ASSERT_EQ(A::c_thread(t).row + A::split(A::kValueMode(i)).row, want.row);
    }
}

TEST(GemmLayouts, Sm90WgmmaAccumulatorLayout) {
  expect_wgmma_c_layout<64>();
  expect_wgmma_c_layout<128>();
  expect_wgmma_c_layout<256>();
}

TEST(GemmLayouts, Sm90StagingTileOfD) {
  const atom::SmemTileSm90 t = atom::sw128_tile(64, 2);
  EXPECT_TRUE(t.matches_hw_sw128());
  EXPECT_EQ(t.bytes(), 8192);
  EXPECT_EQ(t.tma_box().inner, 64u);
  EXPECT_EQ(t.tma_box().outer, 64u);
  // Row r's 16-byte unit u lies at unit u ^ (r % 8) of that row: eight rows of one unit column fill all 32 banks.
  for (Int r = 0; r < 8; ++r) {
    bool banks[8] = {};
    for (Int rr = 0; rr < 8; ++rr) banks[(t.tile.swizzle(t.tile.layout(make_tuple(rr, 8 * r))) % 64) / 8] = true;
    for (bool b : banks) EXPECT_TRUE(b) << "unit column " << r;
  }
}

}  // namespace sm90_tiles
