// include/tessera/kernel/gemm_sm90/persistent_store_warps.hpp -- the store warps of the persistent Hopper GEMM
// (kernel/gemm_sm90/persistent_kernel.hpp, D through TMA): warp c of the producer
// warpgroup hands consumer c's staged D tiles to the TMA unit and, in the bare kernel with the residual through TMA, loads the
// residual into the staging tiles ahead of the consumer.  K is the GemmSm90Persistent instantiation: its shared
// storage, barriers, ring helpers and staging slots are the ones described there.
#pragma once

#include <cuda.h>  // CUtensorMap

#include <cstdint>  // uint32_t, uint64_t

#include "tessera/arch/config.hpp"              // TESSERA_ARCH_SM90A
#include "tessera/arch/ld_st.hpp"               // prefetch_global_l1
#include "tessera/arch/sm90_cluster.hpp"        // cluster_ctarank
#include "tessera/arch/sm90_mbarrier.hpp"       // mbarrier_arrive_expect_tx, mbarrier_wait_parity
#include "tessera/arch/sm90_tma.hpp"            // tma_load_2d, tma_store_2d, bulk groups
#include "tessera/arch/sm90_warpgroup.hpp"      // named_barrier_sync / arrive, lane_id_now
#include "tessera/kernel/epilogue/fragment_epilogue.hpp"  // FragmentEpilogue::finish_staged_sw128, ActEw
#include "tessera/kernel/gemm/scheduler.hpp"    // TileScheduler
#include "tessera/kernel/gemm_sm80/config.hpp"  // Params
#include "tessera/kernel/gemm_sm90/trace.hpp"   // TTRACE, TCLK (the timeline probe)

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
    store_now(row_major, map_d, tile, m, n, leader);
  }
  __device__ __forceinline__ static void store_now(bool row_major, const CUtensorMap* map_d, const void* tile, int m, int n, bool leader) {
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
  // The bare kernel's menus that the store warps finish (Epi::finishes): the staged x of consumer c's buffer 0 through
  // the activation [and, with kResidual, the residual box in buffer 1], in place (Epi::finish_slot); then fenced for
  // the TMA unit.
  template <bool kResidual>
  __device__ __forceinline__ static void finish(const Params& p, SharedStorage& sh, int c, int m0, int n) {
    const uint32_t parked = atomicOr(&sh.parked[c], 0u);  // (an atomic read: K::SharedStorage)
    K::Epi::template finish_slot<kResidual>(p, K::shared_u32(sh.d.tile[c][0]), kResidual ? K::shared_u32(sh.d.tile[c][1]) : 0u, parked,
                                            m0, n);
    arch::fence_proxy_async_shared_cta();  // the writes (and the reads of buffer 1) before the TMA unit's next access
    __syncwarp();
  }
  // The 64 bias values of the staging tile at (m0, n) (Epi::store_bias: 128 bytes along the columns or the rows, one or
  // two L1 lines) prefetched into L1 by lanes 0 and 1 (its first and last value inside D), so that finish's loads of
  // them hit L1 rather than wait on L2 at every step.
  __device__ __forceinline__ static void prefetch_bias(const Params& p, int m0, int n) {
    const auto bs = K::Epi::bias_span(p, m0, n);
    const int lane = static_cast<int>(arch::lane_id_now());
    const int e = lane == 0 ? 0 : (bs.lim < Epilogue::kStageCols ? bs.lim : Epilogue::kStageCols) - 1;
    if (lane < 2 && bs.lim > 0) arch::prefetch_global_l1(static_cast<const uint16_t*>(p.ep.bias) + bs.e_base + e);
  }
  // The bare cooperative kernel's deferred staging: the four slots of a unit at (m0, n0) from consumer c's two
  // buffers, slot j in buffer j % 2, in the order the consumer stages them (K::stage_deferred).  Each buffer goes back
  // to the consumer once its store has read it, except after the unit's last two slots when !free_last (the last unit
  // through the buffers).
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

  // The block's last unit at (m0, n0), from its ring stage (Epi::last_slots_stage) once the consumer has staged all four
  // slots there (Epi::stage_last_in_ring).
  __device__ __forceinline__ static void store_last_from_ring(SharedStorage& sh, bool row_major, const CUtensorMap* map_d, int c,
                                                              int m0, int n0, bool leader) {
    const unsigned char* slots = reinterpret_cast<const unsigned char*>(&sh.stage[K::Epi::last_slots_stage(c)]);
    arch::named_barrier_sync(K::staged_bar(c, 0), kHandoffThreads);
    if (leader) TTRACE(0, 6, 9 + 3 * c, TCLK());
    for (int j = 0; j < K::kSlots; ++j)
      store_now(row_major, map_d, slots + j * Epilogue::kStageTile.bytes(), m0, n0 + K::slot_col(j), leader);
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
    // (The worker through arch::fresh: recomputed at each call rather than kept across the finishing loops, where the
    // store warps' 40 registers are short.)
    auto stores = [&](int v, int& m0, int& n0) {  // the consumer's tests (consume, epilogue_unit)
      const gemm_core::TileWork w = sched.item(arch::fresh(K::worker()), v);
      m0 = K::consumer_m0(w.tm * kClusterM + rank, c);
      n0 = w.tn * kBN;
      return w.stores && m0 < p.m;
    };
    const int items = sched.items(K::worker());
    const int lane = static_cast<int>(arch::lane_id_now());
    const bool leader = lane == 0;
    if constexpr (kDeferred) {  // (the general kernel reads a residual from global memory: no loads here)
      // The last item that stores (items past it store nothing): the loops below then keep one bound, not the item and
      // unit counts (the store warps' 40 registers).
      int last_v = -1, before_last_v = -1;
      for (int v = 0; v < items; ++v) {
        int m0, n0;
        if (stores(v, m0, n0)) {
          before_last_v = last_v;
          last_v = v;
        }
      }
      // With the block's last item storing, that unit goes through the ring (Epi::stage_last_in_ring), and the buffers
      // are freed for the units up to the one before it (buf_last_v, the last unit through them).
      const int buf_last_v = last_v == items - 1 ? before_last_v : last_v;
      if (last_v >= 0 && K::Epi::finishes(p)) {
        if (p.r_tma) return store_tiles_finishing<true>(sh, p, c, map_d, map_r, last_v, buf_last_v, stores);
        return store_tiles_finishing<false>(sh, p, c, map_d, map_r, last_v, buf_last_v, stores);
      }
      if (buf_last_v >= 0) {
        arch::named_barrier_arrive(K::free_bar(c, 0), kHandoffThreads);
        arch::named_barrier_arrive(K::free_bar(c, 1), kHandoffThreads);
      }
      // Every slot through the consumer's two buffers (the consumer stages a unit's slots during its next main loop,
      // K::stage_deferred, and releases every ring stage itself), the block's last unit through the ring.
      for (int v = 0; v <= last_v; ++v) {
        int m0, n0;
        if (!stores(v, m0, n0)) continue;
        if (v > buf_last_v) {
          store_last_from_ring(sh, p.ep.d_row_major, map_d, c, m0, n0, leader);
          break;
        }
        store_deferred_unit(sh, p.ep.d_row_major, map_d, c, m0, n0, v < buf_last_v, leader);
      }
      if (leader) arch::bulk_wait_read<0>();
      if (leader) TTRACE(0, 6, 10 + 3 * c, TCLK());
      __syncwarp();
      return;
    }
    int units = 0;
    for (int v = 0; v < items; ++v) {
      int m0, n0;
      units += stores(v, m0, n0) ? 1 : 0;
    }
    if (units > 0) {
      arch::named_barrier_arrive(K::free_bar(c, 0), kHandoffThreads);
      arch::named_barrier_arrive(K::free_bar(c, 1), kHandoffThreads);
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
  // store_tiles<true> (the bare cooperative kernel's deferred staging) for the menus this warp finishes (Epi::finishes;
  // kResidual: the residual through TMA, p.r_tma): every slot passes through consumer c's buffer 0 (Epi::defer_buffer),
  // and with kResidual buffer 1 holds the slot's residual box.  Per slot of each storing unit, in the consumer's order:
  // the box is loaded into buffer 1 (rfull[c], one phase a slot) while the consumer has yet to stage the slot (the
  // unit's first at the unit's turn, the others as soon as the slot before has been finished); once staged, the slot
  // is finished (act(x) [+ R]), stored, and buffer 0 freed when the store has read it (except after its last slot).
  // finish's proxy fence orders the warp's reads of buffer 1 before the next box's load into it.  The block's last unit,
  // when its last item stores (buf_last_v < last_v), comes through the ring (Epi::stage_last_in_ring).
  template <bool kResidual, class Stores>
  __device__ __forceinline__ static void store_tiles_finishing(SharedStorage& sh, const Params& p, int c, const CUtensorMap* map_d,
                                                               const CUtensorMap* map_r, int last_v, int buf_last_v,
                                                               Stores&& stores) {
    constexpr uint32_t kTileBytes = static_cast<uint32_t>(Epilogue::kStageTile.bytes());
    const bool leader = arch::lane_id_now() == 0;
    const bool row_major = p.ep.d_row_major;  // the residual has D's order (r_tma)
    if (buf_last_v >= 0) arch::named_barrier_arrive(K::free_bar(c, 0), kHandoffThreads);
    for (int v = 0; v <= last_v; ++v) {
      int m0, n0;
      if (!stores(v, m0, n0)) continue;
      const bool more = v < buf_last_v;  // a later unit's slots take buffer 0
      // The residual's 64 x 64 boxes at (m0, n0 + slot_col(j)), j < boxes, into dst (consecutive tiles), on rfull[c]
      // (one phase for all of them).
      auto load_boxes = [&](unsigned char* dst, int j0, int boxes) {
        if (!kResidual || !leader) return;
        arch::mbarrier_arrive_expect_tx(&sh.rfull[c], kTileBytes * static_cast<uint32_t>(boxes));
        for (int j = j0; j < j0 + boxes; ++j) {
          unsigned char* tile = dst + (j - j0) * kTileBytes;
          if (row_major) arch::tma_load_2d(tile, map_r, &sh.rfull[c], n0 + K::slot_col(j), m0);
          else arch::tma_load_2d(tile, map_r, &sh.rfull[c], m0, n0 + K::slot_col(j));
        }
      };
      if (v > buf_last_v) {  // the block's last unit, through the ring (Epi::stage_last_in_ring)
        if constexpr (kResidual) {
          arch::named_barrier_sync(K::staged_bar(c, 1), kHandoffThreads);  // the ring is free
          if (leader) TTRACE(0, 6, 8 + 3 * c, TCLK());
          load_boxes(reinterpret_cast<unsigned char*>(&sh.stage[K::Epi::last_boxes_stage(c)]), 0, K::kSlots);
        }
        store_last_from_ring(sh, row_major, map_d, c, m0, n0, leader);  // the four slots staged (and finished)
        break;
      }
      load_boxes(sh.d.tile[c][1], 0, 1);  // slot 0's box into buffer 1
#pragma unroll 1
      for (int j = 0; j < K::kSlots; ++j) {
        const int n = n0 + K::slot_col(j);
        if (K::Epi::store_bias(p)) prefetch_bias(p, m0, n);  // its line(s) in L1 while the slot is staged
        arch::named_barrier_sync(K::staged_bar(c, 0), kHandoffThreads);
        if constexpr (kResidual) arch::mbarrier_wait_parity(&sh.rfull[c], static_cast<uint32_t>(j & 1));  // (four phases a unit)
        finish<kResidual>(p, sh, c, m0, n);
        if (j + 1 < K::kSlots) load_boxes(sh.d.tile[c][1], j + 1, 1);  // the next slot's box, once buffer 1 is read (finish fenced)
        store_now(row_major, map_d, sh.d.tile[c][0], m0, n, leader);
        if (leader) arch::bulk_wait_read<0>();
        if (more || j + 1 < K::kSlots) then_free(K::free_bar(c, 0));
      }
    }
    if (leader) arch::bulk_wait_read<0>();
    if (leader) TTRACE(0, 6, 10 + 3 * c, TCLK());
    __syncwarp();
  }
#endif  // __CUDACC__ && TESSERA_ARCH_SM90A
};

}  // namespace tessera::gemm_sm90
