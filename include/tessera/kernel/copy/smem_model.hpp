// include/tessera/kernel/copy/smem_model.hpp -- predicted shared-memory wavefronts of a tiled copy's
// warp-level accesses (host only; the same TiledCopy and shared-memory view types the kernels use).
//
// Model (Hopper/Ampere: 32 banks of 4 bytes, one 128-byte wavefront per cycle):
//   * accesses of 1, 2 or 4 bytes: the 32 lanes form one phase;
//     8-byte accesses: two phases of 16 lanes; 16-byte accesses: four phases of 8 lanes;
//   * in one phase, each bank serves one distinct 4-byte word per wavefront (lanes reading the same
//     word share it), so the phase costs max over banks of the distinct words in that bank;
//   * an instruction costs the sum over its phases; without conflicts that is its number of phases.
// docs/COPY.md compares these predictions with the profiler's counters.
#pragma once

#include <cstdint>  // uint64_t, int64_t
#include <set>      // std::set

#include "tessera/atom/tiled_copy.hpp"  // TiledCopy, ThrCopy

namespace tessera::kernel {

struct WarpCost {
  int wavefronts = 0;
  int ideal = 0;     // phases
  int max_ways = 1;  // largest number of distinct words in one bank of one phase
};

// Byte addresses of the 32 lanes of one warp-level access of `bytes` bytes each.
inline WarpCost warp_cost(const uint64_t (&addr)[32], int bytes) {
  const int lanes_per_phase = bytes <= 4 ? 32 : 32 * 4 / bytes;
  WarpCost c;
  for (int p0 = 0; p0 < 32; p0 += lanes_per_phase) {
    std::set<uint64_t> words[32];
    for (int l = p0; l < p0 + lanes_per_phase; ++l) {
      const int nwords = bytes <= 4 ? 1 : bytes / 4;
      for (int w = 0; w < nwords; ++w) {
        const uint64_t word = addr[l] / 4 + w;
        words[word % 32].insert(word);
      }
    }
    int worst = 1;
    for (auto& s : words) worst = static_cast<int>(s.size()) > worst ? static_cast<int>(s.size()) : worst;
    c.wavefronts += worst;
    c.ideal += 1;
    c.max_ways = worst > c.max_ways ? worst : c.max_ways;
  }
  return c;
}

struct TileCost {
  int64_t instructions = 0;  // warp-level instructions per tile
  int64_t wavefronts = 0;
  int64_t ideal = 0;
  int max_ways = 1;
};

// The cost, per tile, of every warp instruction that the tiled copy TC issues on the shared-memory
// view of type View (kRepM x kRepN repetitions), for a CTA of TC::kThreads threads.
template <class TC, int kRepM, int kRepN, class View>
TileCost tile_cost(const View& view) {
  using T = typename TC::ValueType;
  constexpr int kAV = TC::Atom::kValues;
  constexpr int kBytes = TC::Atom::kBytes;
  TileCost total;
  for (int warp = 0; warp < TC::kThreads / 32; ++warp)
    for (int rm = 0; rm < kRepM; ++rm)
      for (int rn = 0; rn < kRepN; ++rn)
        for (int a = 0; a < TC::kAtoms; ++a) {
          uint64_t addr[32];
          for (int l = 0; l < 32; ++l) {
            const ThrCopy thr = TC::get_slice(warp * 32 + l);
            const int v0 = a * kAV;
            const int m = thr.m + TC::kOffsets.m[v0] + rm * TC::kTileM;
            const int n = thr.n + TC::kOffsets.n[v0] + rn * TC::kTileN;
            addr[l] = static_cast<uint64_t>(view.at(m, n) - view.ptr) * sizeof(T);
          }
          const WarpCost c = warp_cost(addr, kBytes);
          total.instructions += 1;
          total.wavefronts += c.wavefronts;
          total.ideal += c.ideal;
          total.max_ways = c.max_ways > total.max_ways ? c.max_ways : total.max_ways;
        }
  return total;
}

}  // namespace tessera::kernel
