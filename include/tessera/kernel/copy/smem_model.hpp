// include/tessera/kernel/copy/smem_model.hpp -- predicted shared-memory wavefronts of a tiled copy's
// warp-level accesses (host only; the same TiledCopy and shared-memory view types the kernels use).
//
// The bank model itself is the analyser's (analysis/smem.hpp: 32 banks of 4 bytes; 1/2/4-byte
// accesses in one phase of 32 lanes, 8-byte in two of 16, 16-byte in four of 8; a phase costs the
// largest number of distinct words in one bank).  This file only walks the kernels' TiledCopy and
// shared-memory views to produce the lane addresses.  docs/COPY.md compares the predictions with
// the profiler's counters.
#pragma once

#include <cstdint>  // uint64_t, int64_t

#include "tessera/analysis/smem.hpp"    // analyze_phases, Instruction, WarpInstruction
#include "tessera/atom/tiled_copy.hpp"  // TiledCopy, ThrCopy

namespace tessera::kernel {

struct WarpCost {
  int wavefronts = 0;
  int ideal = 0;     // phases
  int max_ways = 1;  // largest number of distinct words in one bank of one phase
};

// Byte addresses of the 32 lanes of one warp-level access of `bytes` bytes each.
inline WarpCost warp_cost(const uint64_t (&addr)[32], int bytes) {
  analysis::Instruction inst;
  inst.bytes = bytes;
  inst.phase_lanes = bytes <= 4 ? 32 : 32 * 4 / bytes;
  analysis::WarpInstruction wi;
  for (int l = 0; l < 32; ++l) wi.lanes[static_cast<size_t>(l)] = {true, static_cast<Int>(addr[l]), bytes};
  const analysis::SmemInstructionResult r = analysis::analyze_phases(wi, inst, analysis::BankModel{});
  WarpCost c;
  c.wavefronts = r.wavefronts;
  c.ideal = r.ideal;
  c.max_ways = r.ways > 1 ? r.ways : 1;
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
