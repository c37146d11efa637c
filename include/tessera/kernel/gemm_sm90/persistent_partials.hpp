// include/tessera/kernel/gemm_sm90/persistent_partials.hpp -- partial sums between the units of one tile in the
// persistent Hopper GEMM (kernel/gemm_sm90/persistent_kernel.hpp): split-K (every split publishes, the last to arrive
// adds them all) and the stream-K tail (kernel/gemm/scheduler.hpp: pieces after K tile 0 publish, the tile's head
// adds them).  K is the GemmSm90Persistent instantiation: its atom, consumer slices, cluster and named barriers.
//
// A partial tile in the workspace (Params::partials) is one consumer warpgroup's accumulators, kQuads float4 per
// thread, thread-fastest (every store and load coalesced).  Sums are added in a fixed order (split order; the peers in
// worker order), so the result's bits do not depend on which unit finishes first.
#pragma once

#include <cstdint>  // int64_t, uint32_t

#include "tessera/arch/config.hpp"              // TESSERA_ARCH_SM90A
#include "tessera/arch/sm90_cluster.hpp"        // cluster_ctarank
#include "tessera/arch/sm90_warpgroup.hpp"      // named_barrier_sync
#include "tessera/kernel/gemm/scheduler.hpp"    // TileWork
#include "tessera/kernel/gemm_sm80/config.hpp"  // Params

namespace tessera::gemm_sm90 {

template <class K>
struct PersistentPartials {
#if defined(__CUDACC__) && defined(TESSERA_ARCH_SM90A)
  using Params = gemm_sm80::Params;
  using Atom = typename K::Atom;
  using Acc = float[K::kHalves][Atom::kValuesC];
  static constexpr int kQuads = K::kHalves * Atom::kValuesC / 4;  // float4 per thread

  __device__ __forceinline__ static uint32_t consumer_bar(int c) {
    return static_cast<uint32_t>(c == 0 ? K::Barrier::consumer0 : K::Barrier::consumer1);
  }
  // This thread's accumulators into a partial tile (`dst`: the tile's float4 of this thread).
  __device__ __forceinline__ static void put(const Acc& acc, float4* dst) {
#pragma unroll
    for (int q = 0; q < kQuads; ++q) {
      const int h = q / (Atom::kValuesC / 4), i = 4 * (q % (Atom::kValuesC / 4));
      __stcg(dst + q * 128, make_float4(acc[h][i], acc[h][i + 1], acc[h][i + 2], acc[h][i + 3]));
    }
  }

  // ---- split-K ----
  // Publishes this unit's partial tile; returns true in the unit that completes the tile, whose acc then holds the
  // sum over all splits (every split's partial, its own included, read back and added in split order).
  // Cooperative: each consumer reduces its own rows, with its own counter (tile * 2 + c).
  template <class Shared>
  __device__ __forceinline__ static bool reduce_split_k(Acc& acc, const Params& p, const gemm_core::TileWork& w, Shared& sh,
                                                        int c, int thread) {
    const int tile = (w.tm * p.tiles_n + w.tn) * K::kSlices + (K::kSlices > 1 ? c : 0);
    const uint32_t bar = consumer_bar(c);
    float4* parts = reinterpret_cast<float4*>(p.partials);
    put(acc, parts + (static_cast<int64_t>(tile) * p.splits + w.split) * kQuads * 128 + thread);
    __threadfence();  // this thread's partial is visible device-wide before the count says so
    arch::named_barrier_sync(bar, 128);
    if (thread == 0) sh.last[c] = atomicAdd(p.counters + tile, 1) == p.splits - 1;
    arch::named_barrier_sync(bar, 128);
    if (!sh.last[c]) return false;
    __threadfence();  // order the partial reads after observing the final count
    const float4* first = parts + static_cast<int64_t>(tile) * p.splits * kQuads * 128 + thread;
#pragma unroll
    for (int q = 0; q < kQuads; ++q) {
      const int h = q / (Atom::kValuesC / 4), i = 4 * (q % (Atom::kValuesC / 4));
      float4 sum = __ldcg(first + q * 128);
      for (int k = 1; k < p.splits; ++k) {
        const float4 v = __ldcg(first + (static_cast<int64_t>(k) * kQuads + q) * 128);
        sum.x += v.x; sum.y += v.y; sum.z += v.z; sum.w += v.w;
      }
      acc[h][i] = sum.x; acc[h][i + 1] = sum.y; acc[h][i + 2] = sum.z; acc[h][i + 3] = sum.w;
    }
    if (thread == 0) p.counters[tile] = 0;  // ready for the next call on this workspace
    return true;
  }

  // ---- stream-K: a piece's partial sums in its worker's slot ----
  // Slot (worker, block rank, consumer) in p.partials; its flag p.counters[slot] is 1 while the slot holds this
  // launch's sums and is set back to 0 by the reader (every launch leaves the counters zero).
  __device__ __forceinline__ static int slot(int worker, int c) {
    const int rank = K::kClusterBlocks > 1 ? static_cast<int>(arch::cluster_ctarank()) : 0;
    return (worker * K::kClusterBlocks + rank) * K::kSlices + (K::kSlices > 1 ? c : 0);
  }
  __device__ __forceinline__ static void publish(const Acc& acc, const Params& p, const gemm_core::TileWork& w, int c,
                                                 int thread) {
    const int s = slot(w.partial, c);
    put(acc, reinterpret_cast<float4*>(p.partials) + static_cast<int64_t>(s) * kQuads * 128 + thread);
    __threadfence();  // this thread's sums are visible device-wide before the flag says so
    arch::named_barrier_sync(consumer_bar(c), 128);
    if (thread == 0) atomicExch(p.counters + s, 1);
  }
  // The head piece of a tile: adds the slots of the `peers` workers before its own (w - 1, w - 2, ...: the following
  // ranges), in that order, once each is published.  Those pieces ran at the start of their workers' ranges, while
  // this one ran at the end of its worker's: the flags are normally set already.
  __device__ __forceinline__ static void add_peers(Acc& acc, const Params& p, const gemm_core::TileWork& w, int worker, int c,
                                                   int thread) {
#pragma unroll 1
    for (int x = 1; x <= w.peers; ++x) {
      const int s = slot(worker - x, c);
      if (thread == 0) {
        while (atomicAdd(p.counters + s, 0) == 0) __nanosleep(64);
        p.counters[s] = 0;  // ready for the next launch on this workspace
      }
      __syncwarp();  // the barrier below is warp-aligned
      arch::named_barrier_sync(consumer_bar(c), 128);
      __threadfence();  // the reads below come after the observed flag
      const float4* src = reinterpret_cast<const float4*>(p.partials) + static_cast<int64_t>(s) * kQuads * 128 + thread;
#pragma unroll
      for (int q = 0; q < kQuads; ++q) {
        const int h = q / (Atom::kValuesC / 4), i = 4 * (q % (Atom::kValuesC / 4));
        const float4 v = __ldcg(src + q * 128);
        acc[h][i] += v.x; acc[h][i + 1] += v.y; acc[h][i + 2] += v.z; acc[h][i + 3] += v.w;
      }
    }
  }
#endif  // __CUDACC__ && TESSERA_ARCH_SM90A
};

}  // namespace tessera::gemm_sm90
