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

// n / d for 0 <= n < 2^31 and 1 <= d < 2^31 by a multiply and a shift, d's constants worked out once where the
// scheduler is built (on the host: kernel parameters), so that a kernel's scheduler does not run the division
// sequence of the device (about 20 dependent instructions per division, and as many of cold code at a block's start).
// The round-up method: with l = ceil(log2 d) and M = floor(2^(32 + l) / d) + 1, M d lies in (2^(32 + l),
// 2^(32 + l) + 2^l], so floor(M n / 2^(32 + l)) = floor(n / d) for every n < 2^32.  M is in (2^32, 2^33): the
// scheduler holds m = M - 2^32 and forms floor(M n / 2^32) as umulhi(m, n) + n, which fits in 32 bits for n < 2^31.
struct FastDiv {
  uint32_t d = 1, m = 1, l = 0;  // (d = 1: m = 1, l = 0, and n / 1 = (umulhi(1, n) + n) >> 0 = n)
  constexpr FastDiv() = default;
  TESSERA_HD constexpr explicit FastDiv(int divisor) : d(static_cast<uint32_t>(divisor < 1 ? 1 : divisor)) {
    while ((uint64_t{1} << l) < d) ++l;
    m = static_cast<uint32_t>((uint64_t{1} << (32 + l)) / d + 1 - (uint64_t{1} << 32));
  }
  TESSERA_HD constexpr int div(int n) const {
    const uint32_t u = static_cast<uint32_t>(n);
    return static_cast<int>((static_cast<uint32_t>((static_cast<uint64_t>(m) * u) >> 32) + u) >> l);
  }
  TESSERA_HD constexpr int mod(int n) const { return n - div(n) * static_cast<int>(d); }
};

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

// The scheduler is built where the launch is planned (the host: Params::sched), with every divisor's FastDiv; the
// kernels only read it.  Its fields are set by the constructor alone (the divisors' constants follow them).
struct TileScheduler {
  int tiles_m = 1, tiles_n = 1, group_m = 1;
  int splits = 1;
  int k_tiles = 1;  // K tiles of the whole problem
  // Split s takes k_per + (s < k_rem) K tiles starting at s * k_per + min(s, k_rem): lengths differ by
  // at most one, and no product of the problem's extents is formed (32-bit arithmetic on the device).
  int k_per = 1, k_rem = 0;
  // ---- a persistent worker's list: its whole units, then its stream-K pieces ----
  int sk_tiles = 0;  // tiles of the stream-K tail (0: none; needs splits = 1 and sk_tiles * k_tiles >= workers)
  int workers = 1;   // G: the persistent grid's workers (blocks, or clusters of a clustered kernel)
  // The tail's K tiles S = sk_tiles * k_tiles = sk_q G + sk_e (sk_start).
  int sk_q = 0, sk_e = 0;
  // The divisors: splits; a group's tiles (group_m * tiles_n); the rows of a whole group and of the last one
  // (tiles_m - its first row, which may be fewer); the workers; the K tiles.
  FastDiv div_splits, div_group, div_rows, div_last_rows, div_workers, div_k_tiles;
  int last_group_m0 = 0;  // the last group's first tile row

  constexpr TileScheduler() = default;
  TESSERA_HD constexpr TileScheduler(int tm, int tn, int gm, int s, int kt, int sk = 0, int g = 1)
      : tiles_m(tm), tiles_n(tn), group_m(gm), splits(s), k_tiles(kt), k_per(kt / s), k_rem(kt % s), sk_tiles(sk),
        workers(g), div_splits(s), div_group(gm * tn), div_rows(gm), div_workers(g), div_k_tiles(kt) {
    last_group_m0 = (tm - 1) / gm * gm;
    div_last_rows = FastDiv(tm - last_group_m0);
    const int total = sk * kt;  // (sk_fits: in an int)
    sk_q = total / g;
    sk_e = total - sk_q * g;
  }

  // Tile (tm, tn) of linear tile index `pid`: grouped_tile's order.
  TESSERA_HD constexpr void tile(int pid, int& tm, int& tn) const {
    const int group = div_group.div(pid);
    const int first_m = group * group_m;
    const int in_group = pid - group * (group_m * tiles_n);
    const FastDiv& rows = first_m == last_group_m0 ? div_last_rows : div_rows;
    const int col = rows.div(in_group);
    tm = first_m + in_group - col * static_cast<int>(rows.d);
    tn = col;
  }

  TESSERA_HD constexpr int units() const { return tiles_m * tiles_n * splits; }
  TESSERA_HD constexpr TileWork work(int unit) const {
    TileWork w;
    const int tile_index = div_splits.div(unit);
    w.split = unit - tile_index * splits;
    tile(tile_index, w.tm, w.tn);
    w.k_tile0 = w.split * k_per + (w.split < k_rem ? w.split : k_rem);
    w.k_tiles = k_per + (w.split < k_rem ? 1 : 0);
    return w;
  }

  // Worker w's whole units: w, w + G, ... below units() - sk_tiles.
  TESSERA_HD constexpr int whole_items(int w) const {
    const int du = units() - sk_tiles;
    return w < du ? div_workers.div(du - w + workers - 1) : 0;
  }
  // The tail's K tiles, S = sk_tiles * k_tiles, and the start of stream-K range r in (tile, K tile) order,
  // floor(r S / G); worker w takes range workers - 1 - w.  32-bit arithmetic throughout (the device's store warps and
  // producer run on 40 registers, and 64-bit divisions there spilled): the planner takes a tail only where S fits
  // in an int (sk_fits), and r S / G = r q + r e / G for S = q G + e (q G <= S, r e < G^2).
  TESSERA_HD static constexpr bool sk_fits(int64_t sk_tiles, int64_t k_tiles) {
    return sk_tiles >= 0 && k_tiles >= 0 && sk_tiles * k_tiles <= INT32_MAX;
  }
  TESSERA_HD constexpr int sk_start(int r) const { return r * sk_q + div_workers.div(r * sk_e); }
  // How many units and pieces worker w runs.
  TESSERA_HD constexpr int items(int w) const {
    const int whole = whole_items(w);
    if (sk_tiles == 0) return whole;
    const int r = workers - 1 - w;
    const int lo = sk_start(r), hi = sk_start(r + 1);
    return whole + (hi > lo ? div_k_tiles.div(hi - 1) - div_k_tiles.div(lo) + 1 : 0);
  }
  // Worker w's item v (0 <= v < items(w)).
  TESSERA_HD constexpr TileWork item(int w, int v) const {
    const int whole = whole_items(w);
    if (v < whole) return work(w + v * workers);
    const int r = workers - 1 - w;
    const int lo = sk_start(r), hi = sk_start(r + 1);
    const int j = v - whole;
    const int t = div_k_tiles.div(lo) + j;  // tile of the tail
    const int t0 = t * k_tiles, t1 = t0 + k_tiles;  // (t1 <= S)
    const int a = j == 0 ? lo : t0, b = hi < t1 ? hi : t1;
    TileWork res;
    tile(units() - sk_tiles + t, res.tm, res.tn);
    res.k_tile0 = a - t0;
    res.k_tiles = b - a;
    res.stores = a == t0;
    res.partial = res.stores ? -1 : w;
    if (res.stores)  // the following ranges that start inside this tile: workers w - 1, w - 2, ...
      for (int x = r + 1; x < workers && sk_start(x) < t1; ++x) ++res.peers;
    return res;
  }
};

// The scheduler of a persistent launch: tiles_m x tiles_n output tiles whose tile rows go in clusters of cluster_m
// (the units are cluster tiles: block rank r of a cluster takes tile row cluster_m tm + r), groups of group_m tile
// rows, `splits` K ranges of k_tiles K tiles, a stream-K tail of sk_tiles cluster tiles, and ctas blocks (ctas /
// cluster_m workers).
TESSERA_HD constexpr TileScheduler persistent_scheduler(int tiles_m, int tiles_n, int group_m, int cluster_m, int splits,
                                                        int k_tiles, int sk_tiles, int ctas) {
  return TileScheduler((tiles_m + cluster_m - 1) / cluster_m, tiles_n, group_m > cluster_m ? group_m / cluster_m : 1,
                       splits, k_tiles, sk_tiles, ctas / cluster_m);
}

}  // namespace tessera::gemm_core
