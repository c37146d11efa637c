// include/tessera/kernel/gemm_sm90/persistent_store_warps.hpp -- the store warps of the persistent Hopper GEMM
// (kernel/gemm_sm90/persistent_kernel.hpp, D through TMA): warp c of the producer
// warpgroup hands consumer c's staged D tiles to the TMA unit and, in the bare kernel with the residual through TMA, loads the
// residual into the staging tiles ahead of the consumer.  K is the GemmSm90Persistent instantiation: its shared
// storage, barriers, ring helpers and staging slots are the ones described there.
#pragma once

#include <cuda.h>  // CUtensorMap

#include <cstdint>  // uint32_t, uint64_t

#include "tessera/arch/config.hpp"              // TESSERA_ARCH_SM90A
#include "tessera/arch/sm90_cluster.hpp"        // cluster_ctarank
#include "tessera/arch/sm90_mbarrier.hpp"       // mbarrier_arrive_expect_tx, mbarrier_wait_parity
#include "tessera/arch/sm90_tma.hpp"            // tma_load_2d, tma_store_2d, bulk groups
#include "tessera/arch/sm90_warpgroup.hpp"      // named_barrier_sync / arrive, lane_id_now
#include "tessera/kernel/gemm/scheduler.hpp"    // TileScheduler
#include "tessera/kernel/gemm_sm80/config.hpp"  // Params

namespace tessera::gemm_sm90 {

template <class K>
struct PersistentStoreWarps {
#if defined(__CUDACC__) && defined(TESSERA_ARCH_SM90A)
  using Params = gemm_sm80::Params;
  using SharedStorage = typename K::SharedStorage;
  using Stage = typename K::Stage;
  using Atom = typename K::Atom;
  using Epilogue = typename K::Epilogue;
  static constexpr int kClusterM = K::kClusterBlocks, kBN = K::kBN, kStages = K::kStages;
  static constexpr int kRingSlot = K::kRingSlot, kRingSlot3 = K::kRingSlot3;
  static constexpr uint32_t kHandoffThreads = K::kHandoffThreads;

  // Once the consumer says (`bar`) that the staging tile holds D's 64 x 64 piece at (m, n), the warp's leader stores it
  // (one bulk group per tile; `row_major`: D's order).
  __device__ __forceinline__ static void store_staged(bool row_major, const CUtensorMap* map_d, const void* tile, uint32_t bar,
                                                      int m, int n, bool leader) {
    arch::named_barrier_sync(bar, kHandoffThreads);
    if (leader) {
      if (row_major) arch::tma_store_2d(map_d, tile, n, m);
      else arch::tma_store_2d(map_d, tile, m, n);
      arch::bulk_commit();
    }
  }
  // Hands buffer barrier `bar` back to the consumer, after a bulk_wait_read of the warp's leader.
  __device__ __forceinline__ static void then_free(uint32_t bar) {
    __syncwarp();
    arch::named_barrier_arrive(bar, kHandoffThreads);
  }
  // The bare cooperative kernel's deferred staging: the four slots of a unit at (m0, n0) from consumer c's two
  // buffers, slot j in buffer j % 2, in the order the consumer stages them (K::stage_deferred).  Each buffer goes back
  // to the consumer once its store has read it, except after the unit's last two slots when !free_last (the block's
  // last unit, or store_tiles_deferred_residual, which loads the next unit's residual into them instead).
  __device__ __forceinline__ static void store_deferred_unit(SharedStorage& sh, bool row_major, const CUtensorMap* map_d, int c, int m0,
                                                             int n0, bool free_last, bool leader) {
#pragma unroll
    for (int j = 0; j < K::kSlots; j += 2) {  // slots j (buffer 0) and j + 1 (buffer 1)
      store_staged(row_major, map_d, sh.d.tile[c][0], K::staged_bar(c, 0), m0, n0 + K::slot_col(j), leader);
      store_staged(row_major, map_d, sh.d.tile[c][1], K::staged_bar(c, 1), m0, n0 + K::slot_col(j + 1), leader);
      const bool free = free_last || j + 2 < K::kSlots;  // a later slot takes the buffer again
      if (leader) arch::bulk_wait_read<1>();  // slot j read
      if (free) then_free(K::free_bar(c, 0));
      if (leader) arch::bulk_wait_read<0>();  // slot j + 1 read
      if (free) then_free(K::free_bar(c, 1));
    }
  }

  // ---- store warp c: hands consumer c's staged D tiles to the TMA unit ----
  // The host uses the TMA store only without split-K, so which units store D is known here: every unit of
  // the block whose rows for consumer c start inside M, four staging tiles each (slots 0-3 at (m0, n0 +
  // K::slot_col(j)), kRingSlot), in the consumer's order.  Buffer b
  // cycles: free (this warp) -> the consumer writes it -> staged (consumer) -> this warp stores it and waits until
  // the store has read it -> free (for the next unit: buffer b holds slot b).  The warp frees a buffer only for a
  // later tile, so every barrier phase completes.  Slots 2 and 3 lie in the unit's last ring stage, which this warp
  // releases (for consumer c's four warps) once the stores have read both.  (A tile whose rows all lie past M is
  // stored too: the map's bounds drop it.)  kDeferred: the bare cooperative kernel's protocol (its branch below).
  template <bool kDeferred>
  __device__ __forceinline__ static void store_tiles(SharedStorage& sh, const gemm_core::TileScheduler& sched, const Params& p,
                                                     int c, const CUtensorMap* map_d, const CUtensorMap* map_r) {
    static_assert(K::kSlots == 4 && K::kHalves * Atom::kN / Epilogue::kStageCols == K::kSlots,
                  "gemm_sm90 persistent: four staging tiles per unit and consumer");
    const int rank = kClusterM > 1 ? static_cast<int>(arch::cluster_ctarank()) : 0;
    // Item v of this block's worker (its whole units, then its stream-K pieces; local index v).
    auto stores = [&](int v, int& m0, int& n0) {  // the consumer's tests (consume, epilogue_unit)
      const gemm_core::TileWork w = sched.item(K::worker(), v);
      m0 = K::consumer_m0(w.tm * kClusterM + rank, c);
      n0 = w.tn * kBN;
      return w.stores && m0 < p.m;
    };
    const int items = sched.items(K::worker());
    int units = 0;
    for (int v = 0; v < items; ++v) {
      int m0, n0;
      units += stores(v, m0, n0) ? 1 : 0;
    }
    const int lane = static_cast<int>(arch::lane_id_now());
    const bool leader = lane == 0;
    if constexpr (kDeferred) {  // (the general kernel reads a residual from global memory: no loads here)
      if (units > 0 && p.r_tma) return store_tiles_deferred_residual(sh, p, c, map_d, map_r, items, stores);
    }
    if (units > 0) {
      arch::named_barrier_arrive(K::free_bar(c, 0), kHandoffThreads);
      arch::named_barrier_arrive(K::free_bar(c, 1), kHandoffThreads);
    }
    if constexpr (kDeferred) {
      // Every slot through the consumer's two buffers (the consumer stages a unit's slots during its next main loop,
      // K::stage_deferred, and releases every ring stage itself).
      for (int v = 0, i = 0; v < items; ++v) {
        int m0, n0;
        if (!stores(v, m0, n0)) continue;
        const bool more = ++i < units;
        store_deferred_unit(sh, p.ep.d_row_major, map_d, c, m0, n0, more, leader);
      }
      if (leader) arch::bulk_wait_read<0>();
      __syncwarp();
      return;
    }
    int s = 0;  // the ring position after each unit, as the consumers count it
    for (int v = 0, i = 0; v < items; ++v) {
      s = (s + sched.item(K::worker(), v).k_tiles) % kStages;
      int m0, n0;
      if (!stores(v, m0, n0)) continue;
      auto issue = [&](const void* tile, uint32_t bar, int j) {
        store_staged(p.ep.d_row_major, map_d, tile, bar, m0, n0 + K::slot_col(j), leader);
      };
      const int last = K::stage_before(s, 1);  // the unit's last stage: slots 2 and 3
      unsigned char* ring = K::ring_tile(sh, last, c);
      const bool more = ++i < units;
      issue(sh.d.tile[c][0], K::staged_bar(c, 0), 0);
      issue(sh.d.tile[c][1], K::staged_bar(c, 1), 1);
      issue(ring, K::staged_ring_bar(c), 2);
      issue(ring + sizeof(Stage::a), K::staged_ring3_bar(c), 3);
      if (leader) arch::bulk_wait_read<3>();  // slot 0 read
      if (more) then_free(K::free_bar(c, 0));
      if (leader) arch::bulk_wait_read<2>();  // slot 1 read
      if (more) then_free(K::free_bar(c, 1));
      if (leader) arch::bulk_wait_read<0>();  // slots 2 and 3 read: the ring stage is free, for consumer c's warps
      __syncwarp();
      if (lane < 4) K::release(sh, last);
    }
    // The last stores have read the staging tiles before the block ends (their writes to global memory complete
    // before the grid does).
    if (leader) arch::bulk_wait_read<0>();
    __syncwarp();
  }
  // store_tiles<true> (the bare cooperative kernel's deferred staging) with the residual through TMA (p.r_tma): each
  // storing unit's four residual boxes pass through consumer c's two buffers in two rounds (Epi::pack_deferred).  Per
  // unit u, in the order the consumer meets them: slots 0-1's boxes are loaded once the previous unit's last two slots
  // have been read (before the first unit: at once), rfull[c][0..1]; the consumer adds them after the drain and says
  // so on the staged barrier of buffer 0; slots 2-3's boxes are loaded into the same buffers, rfull[c][2..3]; the
  // consumer adds them and says so on buffer 1's staged barrier; both buffers are freed for unit u's slots, which the
  // consumer stages during the next main loop and this warp stores as in store_tiles<true>.
  template <class Stores>
  __device__ __forceinline__ static void store_tiles_deferred_residual(SharedStorage& sh, const Params& p, int c,
                                                                       const CUtensorMap* map_d, const CUtensorMap* map_r,
                                                                       int items, Stores&& stores) {
    constexpr uint32_t kTileBytes = static_cast<uint32_t>(Epilogue::kStageTile.bytes());
    const bool leader = arch::lane_id_now() == 0;
    const bool row_major = p.ep.d_row_major;  // the residual has D's order (r_tma)
    auto load_box = [&](int b, uint64_t* bar, int m, int n) {  // the residual's 64 x 64 box at (m, n) into buffer b
      if (!leader) return;
      arch::mbarrier_arrive_expect_tx(bar, kTileBytes);
      if (row_major) arch::tma_load_2d(sh.d.tile[c][b], map_r, bar, n, m);
      else arch::tma_load_2d(sh.d.tile[c][b], map_r, bar, m, n);
    };
    auto round = [&](int r, int m0, int n0) {  // slots 2 r and 2 r + 1 of the unit at (m0, n0)
      load_box(0, &sh.rfull[c][2 * r], m0, n0 + K::slot_col(2 * r));
      load_box(1, &sh.rfull[c][2 * r + 1], m0, n0 + K::slot_col(2 * r + 1));
    };
    int m0 = 0, n0 = 0, v = 0;
    for (; v < items && !stores(v, m0, n0); ++v) {
    }
    if (v == items) return;
    round(0, m0, n0);  // the first unit's slots 0-1
    while (v < items) {
      // unit v: its first round is loaded (or landing); the consumer reads it, then the second
      arch::named_barrier_sync(K::staged_bar(c, 0), kHandoffThreads);  // slots 0-1's residual read
      round(1, m0, n0);
      arch::named_barrier_sync(K::staged_bar(c, 1), kHandoffThreads);  // slots 2-3's residual read
      arch::named_barrier_arrive(K::free_bar(c, 0), kHandoffThreads);
      arch::named_barrier_arrive(K::free_bar(c, 1), kHandoffThreads);
      // unit v's D, staged in the next main loop (or after the block's last), slot j in buffer j % 2
      int nm0 = 0, nn0 = 0, nv = v + 1;
      for (; nv < items && !stores(nv, nm0, nn0); ++nv) {
      }
      store_deferred_unit(sh, row_major, map_d, c, m0, n0, false, leader);
      __syncwarp();
      if (nv < items) round(0, nm0, nn0);  // the next unit's slots 0-1, into the buffers its slots 2-3 left
      v = nv;
      m0 = nm0;
      n0 = nn0;
    }
    if (leader) arch::bulk_wait_read<0>();
    __syncwarp();
  }
#endif  // __CUDACC__ && TESSERA_ARCH_SM90A
};

}  // namespace tessera::gemm_sm90
