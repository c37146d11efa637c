// include/tessera/kernel/gemm_sm90/register_store.hpp -- the non-persistent Hopper kernel's D from its consumers'
// registers (gemm_kernel.hpp): each 64-column chunk of a consumer warpgroup's sums cast into a 128-byte swizzled tile
// (stmatrix) and stored through TMA, and, before that, a cluster pair's two K splits added through distributed shared
// memory (the exchange buffer in the drained ring).  RegisterStore<K> reads kernel K's (GemmSm90's) constants: kAcc,
// kConsumers, kDTiles, kDTileBytes, kXchgOffset and FragEpi.
#pragma once

#include <cuda.h>  // CUtensorMap

#include <cstdint>  // uint32_t

#include "tessera/arch/config.hpp"                        // TESSERA_ARCH_SM90A
#include "tessera/arch/sm90_cluster.hpp"                  // cluster_sync, cluster_arrive_relaxed, ld_shared_cluster_f32x4
#include "tessera/arch/sm90_mbarrier.hpp"                 // fence_proxy_async_shared_cta
#include "tessera/arch/sm90_tma.hpp"                      // tma_store_2d, bulk_commit, bulk_wait_read
#include "tessera/arch/sm90_warpgroup.hpp"                // named_barrier_sync
#include "tessera/kernel/epilogue/fragment_epilogue.hpp"  // frag_detail::static_for
#include "tessera/kernel/gemm_sm80/config.hpp"            // Params
#include "tessera/kernel/gemm_sm90/trace.hpp"             // TTRACE, TCLK, TGLOBAL (the timeline probe)

namespace tessera::gemm_sm90 {

#if defined(__CUDACC__)
template <class K>
struct RegisterStore {
  using Params = gemm_sm80::Params;
#if defined(TESSERA_ARCH_SM90A)
  // The epilogue from registers.  With the K splits in a cluster (p.cluster_splits, p.splits == 2, rank = split),
  // block z finishes rows 64 z .. 64 z + 63 of the tile, its consumer warpgroup z + 1's: the other consumer warpgroup
  // writes its sums into the exchange buffer, and the keeping one adds the peer block's through distributed shared
  // memory (a + b: the same bits whichever block adds).  Then store_frag.
  // (pair: the cluster's two splits share the epilogue so; false for a one-split tile or a pushed pair's split 0.)
  __device__ __forceinline__ static void finish(float (&acc)[K::kAcc], const Params& p, unsigned char* smem, int split,
                                                int m0, int n0, const CUtensorMap* map_d, int wg, bool pair) {
    const int thread = static_cast<int>(threadIdx.x) % 128;
    if (K::kConsumers == 2 && pair) {
      const bool keep = wg == split + 1;
      float4* xbuf = reinterpret_cast<float4*>(smem + K::kXchgOffset);
      if (wg > 0 && !keep) {
#pragma unroll
        for (int i = 0; i < K::kAcc / 4; ++i) xbuf[i * 128 + thread] = make_float4(acc[4 * i], acc[4 * i + 1], acc[4 * i + 2], acc[4 * i + 3]);
      }
      arch::cluster_sync();
      if (keep) {
        const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(xbuf)) + 16u * static_cast<uint32_t>(thread);
        const uint32_t peer = static_cast<uint32_t>(1 - split);
        // eight 16-byte loads in flight at a time (32 registers)
        constexpr int kBatch = K::kAcc / 4 < 8 ? K::kAcc / 4 : 8;
#pragma unroll
        for (int i0 = 0; i0 < K::kAcc / 4; i0 += kBatch) {
          float4 v[kBatch];
#pragma unroll
          for (int i = 0; i < kBatch; ++i) v[i] = arch::ld_shared_cluster_f32x4(base + 16u * 128u * static_cast<uint32_t>(i0 + i), peer);
#pragma unroll
          for (int i = 0; i < kBatch; ++i) {
            acc[4 * (i0 + i)] += v[i].x;
            acc[4 * (i0 + i) + 1] += v[i].y;
            acc[4 * (i0 + i) + 2] += v[i].z;
            acc[4 * (i0 + i) + 3] += v[i].w;
          }
        }
      }
      // The peer has read this block's buffer: both may leave.  (The relaxed arrival: it stands only for those reads,
      // whose values are in the keeping threads' sums already; the release form adds a MEMBAR.ALL.GPU.)
      arch::cluster_arrive_relaxed();
      arch::cluster_wait();
      if (!keep) return;
    } else if (wg == 0) {
      return;
    }
    store_frag(acc, p, smem + (wg - 1) * K::kDTiles * K::kDTileBytes, m0 + (wg - 1) * 64, n0, map_d, wg);
  }

  // Consumer warpgroup wg's 64 rows at (m, n0): each 64-column chunk cast into its tile (stmatrix, 128-byte swizzle),
  // then one thread stores it; the chunks' stores overlap the next chunk's staging.  The block ends only once the
  // stores have read shared memory.
  __device__ __forceinline__ static void store_frag(float (&acc)[K::kAcc], const Params& p, unsigned char* tiles, int m, int n0,
                                                    const CUtensorMap* map_d, int wg) {
    const int thread = static_cast<int>(threadIdx.x) % 128;
    if (thread == 0) TTRACE(wg, 0, 6, TCLK());
    if (p.ep.alpha != 1.f) {
#pragma unroll
      for (int i = 0; i < K::kAcc; ++i) acc[i] *= p.ep.alpha;
    }
    const Dtype dt = p.ep.d_type;  // (read once: the barriers between the chunks would reload it)
    const bool rm = p.ep.d_row_major;
    const uint32_t bar = static_cast<uint32_t>(wg);  // named barriers 1 and 2: one per consumer warpgroup
    epilogue::frag_detail::static_for<K::kDTiles>([&](auto jc) {
      constexpr int j = decltype(jc)::value;
      unsigned char* tile = tiles + j * K::kDTileBytes;
      K::FragEpi::template stage_sw128_as<32 * j>(acc, dt, rm, tile, thread);
      arch::fence_proxy_async_shared_cta();  // the stmatrix writes are visible to the TMA unit
      arch::named_barrier_sync(bar, 128);
      if (thread == 0) {
        const int n = n0 + j * K::FragEpi::kStageCols;
        if (rm) arch::tma_store_2d(map_d, tile, n, m);
        else arch::tma_store_2d(map_d, tile, m, n);
        arch::bulk_commit();
      }
    });
    if (thread == 0) {
      arch::bulk_wait_read<0>();
      // probe: this warpgroup's epilogue done; the block's end, written by each consumer warpgroup as it finishes
      // (the later write stays)
      TTRACE(wg, 0, 5, TCLK());
      TTRACE(0, 7, 5, TGLOBAL());
      TTRACE(0, 7, 4, TCLK());
    }
  }
#endif
};
#endif  // __CUDACC__

}  // namespace tessera::gemm_sm90
