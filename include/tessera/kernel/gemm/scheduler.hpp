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
//
// Stream-K tail (persistent kernels, splits = 1, sk_tiles > 0): the last sk_tiles tiles of the grouped order are
// not handed out whole.  Their K tiles, S = sk_tiles * k_tiles in (tile, K tile) order, are cut into G ranges of
// (almost) equal length, range r = [r S / G, (r + 1) S / G), which worker G - 1 - r takes after its whole tiles
// (G = `workers`); each range falls into pieces, one per tile it touches.  A range ends with the head of a tile
// (its K tiles from 0), which its worker reaches last, so the piece holding a tile's K tile 0 completes the tile:
// it adds the partial sums of the tile's later pieces -- each the first piece of a following range, done at the
// start of that range by a worker of lower index -- and stores D.  A piece that does not start at K tile 0
// publishes its partial sums in its worker's slot instead.  A tile's head thus waits only on workers of lower
// index, which a GPU shared with other work starts no later.  With sk_tiles = (tiles mod G) + G the last partial
// wave is spread over every worker (the workers' K tiles differ by at most one), and with S >= G no range is
// empty.
#pragma once

#include <climits>  // INT32_MAX
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
// Stream-K pieces: `stores` is false for a piece that does not start at K tile 0 (it publishes its partial sums
// in slot `partial`, its worker's); a piece that does and completes a tile begun by others adds the slots of the
// `peers` workers after its own, in order, before storing D.
struct TileWork {
  int tm = 0, tn = 0;
  int split = 0;
  int k_tile0 = 0, k_tiles = 0;
  bool stores = true;
  int partial = -1;
  int peers = 0;
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

  // ---- a persistent worker's list: its whole units, then its stream-K pieces ----
  int sk_tiles = 0;  // tiles of the stream-K tail (0: none; needs splits = 1 and sk_tiles * k_tiles >= workers)
  int workers = 1;   // G: the persistent grid's workers (blocks, or clusters of a clustered kernel)

  // Worker w's whole units: w, w + G, ... below units() - sk_tiles.
  TESSERA_HD constexpr int whole_items(int w) const {
    const int du = units() - sk_tiles;
    return w < du ? (du - w + workers - 1) / workers : 0;
  }
  // The tail's K tiles, S = sk_tiles * k_tiles, and the start of stream-K range r in (tile, K tile) order,
  // floor(r S / G); worker w takes range workers - 1 - w.  32-bit arithmetic throughout (the device's store warps and
  // producer run on 40 registers, and 64-bit divisions there spilled): the planner takes a tail only where S fits
  // in an int (sk_fits), and r S / G = r q + r e / G for S = q G + e (q G <= S, r e < G^2).
  TESSERA_HD static constexpr bool sk_fits(int64_t sk_tiles, int64_t k_tiles) {
    return sk_tiles >= 0 && k_tiles >= 0 && sk_tiles * k_tiles <= INT32_MAX;
  }
  TESSERA_HD constexpr int sk_start(int r) const {
    const int s = sk_tiles * k_tiles, q = s / workers, e = s - q * workers;
    return r * q + r * e / workers;
  }
  // How many units and pieces worker w runs.
  TESSERA_HD constexpr int items(int w) const {
    const int whole = whole_items(w);
    if (sk_tiles == 0) return whole;
    const int r = workers - 1 - w;
    const int lo = sk_start(r), hi = sk_start(r + 1);
    return whole + (hi > lo ? (hi - 1) / k_tiles - lo / k_tiles + 1 : 0);
  }
  // Worker w's item v (0 <= v < items(w)).
  TESSERA_HD constexpr TileWork item(int w, int v) const {
    const int whole = whole_items(w);
    if (v < whole) return work(w + v * workers);
    const int r = workers - 1 - w;
    const int lo = sk_start(r), hi = sk_start(r + 1);
    const int j = v - whole;
    const int t = lo / k_tiles + j;  // tile of the tail
    const int t0 = t * k_tiles, t1 = t0 + k_tiles;  // (t1 <= S)
    const int a = j == 0 ? lo : t0, b = hi < t1 ? hi : t1;
    TileWork res;
    grouped_tile(units() - sk_tiles + t, tiles_m, tiles_n, group_m, res.tm, res.tn);
    res.k_tile0 = a - t0;
    res.k_tiles = b - a;
    res.stores = a == t0;
    res.partial = res.stores ? -1 : w;
    if (res.stores)  // the following ranges that start inside this tile: workers w - 1, w - 2, ...
      for (int x = r + 1; x < workers && sk_start(x) < t1; ++x) ++res.peers;
    return res;
  }
};

}  // namespace tessera::gemm_core
