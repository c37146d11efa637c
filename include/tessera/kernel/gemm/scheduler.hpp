// include/tessera/kernel/gemm/scheduler.hpp -- which output tile (and which range of K) a thread block
// works on: the arch-neutral tile scheduler of the GEMM kernels.
//
// Work units: the tiles_m x tiles_n output tiles, each cut into `splits` ranges of K tiles (split-K;
// splits = 1: whole tiles).  Unit u is split u % splits of tile u / splits, so the splits of one tile
// are neighbours.  Tiles are visited in groups of group_m tile rows, column by column inside a group
// (grouped_tile): blocks that run at the same time share rows of A and columns of B in L2.
//
// A persistent kernel launches min(units, resident blocks) blocks; block b takes units b, b + G, b + 2G,
// ... (G = gridDim.x).  A non-persistent kernel takes unit blockIdx.x + tiles * blockIdx.z.
#pragma once

#include <cstdint>  // int64_t

#include "tessera/layout/config.hpp"  // TESSERA_HD

namespace tessera::gemm_core {

// Tile (tm, tn) of linear tile index `pid`: groups of group_m tile rows, column by column inside a group.
TESSERA_HD constexpr void grouped_tile(int pid, int tiles_m, int tiles_n, int group_m, int& tm, int& tn) {
  const int per_group = group_m * tiles_n;
  const int group = pid / per_group;
  const int first_m = group * group_m;
  const int rows = tiles_m - first_m < group_m ? tiles_m - first_m : group_m;
  const int in_group = pid - group * per_group;
  tm = first_m + in_group % rows;
  tn = in_group / rows;
}

// One unit of work: output tile (tm, tn), split `split`, K tiles [k_tile0, k_tile0 + k_tiles).
struct TileWork {
  int tm = 0, tn = 0;
  int split = 0;
  int k_tile0 = 0, k_tiles = 0;
};

struct TileScheduler {
  int tiles_m = 1, tiles_n = 1, group_m = 1;
  int splits = 1;
  int k_tiles = 1;  // K tiles of the whole problem
  // Split s takes k_per + (s < k_rem) K tiles starting at s * k_per + min(s, k_rem): lengths differ by
  // at most one, and no product of the problem's extents is formed (32-bit arithmetic on the device).
  int k_per = 1, k_rem = 0;

  constexpr TileScheduler() = default;
  TESSERA_HD constexpr TileScheduler(int tm, int tn, int gm, int s, int kt)
      : tiles_m(tm), tiles_n(tn), group_m(gm), splits(s), k_tiles(kt), k_per(kt / s), k_rem(kt % s) {}

  TESSERA_HD constexpr int units() const { return tiles_m * tiles_n * splits; }
  TESSERA_HD constexpr TileWork work(int unit) const {
    TileWork w;
    const int tile = unit / splits;
    w.split = unit - tile * splits;
    grouped_tile(tile, tiles_m, tiles_n, group_m, w.tm, w.tn);
    w.k_tile0 = w.split * k_per + (w.split < k_rem ? w.split : k_rem);
    w.k_tiles = k_per + (w.split < k_rem ? 1 : 0);
    return w;
  }
  // Only the K-tile count of a unit (the consumers skip the units of the other warpgroup with it).
  TESSERA_HD constexpr int k_tiles_of(int unit) const { return k_per + (unit % splits < k_rem ? 1 : 0); }
};

}  // namespace tessera::gemm_core
