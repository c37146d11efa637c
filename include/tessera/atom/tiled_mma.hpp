// include/tessera/atom/tiled_mma.hpp -- a tiled MMA: one warp MMA atom repeated over a warp tile, and
// warps arranged over the block tile.
//
//   block tile (BLK_M, BLK_N) = (kWarpsM * kWarpTileM, kWarpsN * kWarpTileN)
//   warp w covers rows  [warp_m(w) * kWarpTileM, +kWarpTileM)  with warp_m(w) = w % kWarpsM
//                 cols  [warp_n(w) * kWarpTileN, +kWarpTileN)  with warp_n(w) = w / kWarpsM
//   inside a warp tile, atom (mt, nt) covers rows mt * Atom::kM + [0,16), cols nt * Atom::kN + [0,8)
//
// Each thread holds kAtomsM x kAtomsN accumulator fragments of 4 fp32 values; value i of fragment
// (mt, nt) of thread `thread` sits at c_coord(thread, mt, nt, i).  As a layout (thread, value) ->
// m + BLK_M * n, with value = (i, mt, nt):
//   (((4,8),WM,WN), ((2,2),AM,AN)) : (((2*BLK_M,1),WTM,WTN*BLK_M), ((BLK_M,8),16,8*BLK_M))
// (c_layout() below builds it; tests/kernel_gemm/atom_test.cpp checks it against c_coord).
#pragma once

#include "tessera/atom/mma_sm80.hpp"  // FragCoord, the atoms
#include "tessera/layout/layout.hpp"  // Layout, make_layout, make_tuple

namespace tessera::atom {

template <class Atom, int kWarpsM_, int kWarpsN_, int kWarpTileM_, int kWarpTileN_>
struct TiledMma {
  using AtomType = Atom;
  static constexpr int kWarpsM = kWarpsM_, kWarpsN = kWarpsN_;
  static constexpr int kWarps = kWarpsM * kWarpsN;
  static constexpr int kThreads = 32 * kWarps;
  static constexpr int kWarpTileM = kWarpTileM_, kWarpTileN = kWarpTileN_;
  static constexpr int kTileM = kWarpsM * kWarpTileM, kTileN = kWarpsN * kWarpTileN;
  static constexpr int kAtomsM = kWarpTileM / Atom::kM;  // atoms per warp along M
  static constexpr int kAtomsN = kWarpTileN / Atom::kN;  // atoms per warp along N

  static_assert(kWarpTileM % Atom::kM == 0, "TiledMma: the warp tile's M extent must be a multiple of the atom's M (16)");
  static_assert(kWarpTileN % (2 * Atom::kN) == 0,
                "TiledMma: the warp tile's N extent must be a multiple of 2 atoms (16): B fragments load in pairs");

  TESSERA_HD static constexpr int warp_m(int warp) { return warp % kWarpsM; }
  TESSERA_HD static constexpr int warp_n(int warp) { return warp / kWarpsM; }

  // (row, col) inside the block tile of accumulator value i of fragment (mt, nt) of `thread`.
  TESSERA_HD static constexpr FragCoord c_coord(int thread, int mt, int nt, int i) {
    const int warp = thread / 32, lane = thread % 32;
    const FragCoord a = Atom::c_coord(lane, i);
    return FragCoord{warp_m(warp) * kWarpTileM + mt * Atom::kM + a.row, warp_n(warp) * kWarpTileN + nt * Atom::kN + a.col};
  }

  // (thread, value) -> m + kTileM * n, value = i + 4 * (mt + kAtomsM * nt).
  static constexpr Layout c_layout() {
    return make_layout(
        make_tuple(make_tuple(make_tuple(4, 8), kWarpsM, kWarpsN), make_tuple(make_tuple(2, 2), kAtomsM, kAtomsN)),
        make_tuple(make_tuple(make_tuple(2 * kTileM, 1), kWarpTileM, kWarpTileN * kTileM),
                   make_tuple(make_tuple(kTileM, 8), 16, 8 * kTileM)));
  }
};

}  // namespace tessera::atom
