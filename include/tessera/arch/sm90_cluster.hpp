// include/tessera/arch/sm90_cluster.hpp -- thread-block clusters (sm_90): the block's rank in its cluster,
// the cluster barrier, mbarrier arrivals on a peer block's barrier, and TMA loads multicast to several
// blocks of the cluster.
//
// PTX ISA:
//   cluster_ctarank()            %cluster_ctarank (10.11 "Special registers"): this block's rank in its cluster
//   cluster_sync()               9.7.13.2 "barrier.cluster": arrive.release + wait.acquire, every thread of
//                                every block of the cluster; orders shared-memory writes (mbarrier.init
//                                included, after fence_mbarrier_init) before the peers' later accesses
//   cluster_arrive() / cluster_wait()  its two halves apart (barrier.cluster.arrive.release /
//                                barrier.cluster.wait.acquire)
//   cluster_arrive_relaxed()     barrier.cluster.arrive.relaxed: an arrival that orders none of the thread's
//                                memory accesses (the release form is MEMBAR.ALL.CTA + MEMBAR.ALL.GPU before the
//                                arrival in the SASS); after fence_mbarrier_init (fence.mbarrier_init.release
//                                .cluster) it still publishes the thread's mbarrier.init to the peers' wait
//   mbarrier_arrive_cluster(bar, rank)  mapa.shared::cluster (9.7.9.20) maps this block's shared address
//                                of `bar` to block `rank`'s copy, then mbarrier.arrive.shared::cluster on
//                                it (9.7.13.15.13; default .release.cta semantics: the arrival only says
//                                that this thread's wgmma reads of the stage are complete)
//   st_async_cluster_f32x4       mapa.shared::cluster of a destination and of an mbarrier in block `rank`, then
//                                st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 (9.7.9.12): four
//                                floats into the peer's shared memory, their 16 bytes completed on its barrier
//   tma_load_2d_multicast        cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx
//                                ::bytes.multicast::cluster (9.7.9.25.5.2): one box written at the same
//                                shared-memory offset of every block in `mask`, each block's mbarrier at
//                                `bar`'s offset receiving the box's bytes
#pragma once

#include <cuda.h>   // CUtensorMap
#include <cstdint>  // uint16_t, uint32_t, uint64_t

#include "tessera/arch/config.hpp"  // TESSERA_ARCH_SM90, TESSERA_DEVICE_INLINE

namespace tessera::arch {

#if defined(__CUDACC__)

extern "C" __device__ void tessera_error_cluster_requires_sm_90();

TESSERA_DEVICE_INLINE uint32_t cluster_ctarank() {
#if defined(TESSERA_ARCH_SM90)
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
#else
  tessera_error_cluster_requires_sm_90();
  return 0;
#endif
}

TESSERA_DEVICE_INLINE void cluster_sync() {
#if defined(TESSERA_ARCH_SM90)
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
#else
  tessera_error_cluster_requires_sm_90();
#endif
}

// The two halves of cluster_sync, apart: work placed between them overlaps the wait for the peers' arrivals.
TESSERA_DEVICE_INLINE void cluster_arrive() {
#if defined(TESSERA_ARCH_SM90)
  asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
#else
  tessera_error_cluster_requires_sm_90();
#endif
}
TESSERA_DEVICE_INLINE void cluster_arrive_relaxed() {
#if defined(TESSERA_ARCH_SM90)
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
#else
  tessera_error_cluster_requires_sm_90();
#endif
}
TESSERA_DEVICE_INLINE void cluster_wait() {
#if defined(TESSERA_ARCH_SM90)
  asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
#else
  tessera_error_cluster_requires_sm_90();
#endif
}

// (local: the barrier's shared::cta address in this block, e.g. worked out once before a loop.)
TESSERA_DEVICE_INLINE void mbarrier_arrive_cluster(uint32_t local, uint32_t cta_rank) {
#if defined(TESSERA_ARCH_SM90)
  asm volatile(
      "{\n"
      "  .reg .b32 remote;\n"
      "  mapa.shared::cluster.u32 remote, %0, %1;\n"
      "  mbarrier.arrive.shared::cluster.b64 _, [remote];\n"
      "}\n" ::"r"(local),
      "r"(cta_rank)
      : "memory");
#else
  (void)local; (void)cta_rank;
  tessera_error_cluster_requires_sm_90();
#endif
}
TESSERA_DEVICE_INLINE void mbarrier_arrive_cluster(uint64_t* bar, uint32_t cta_rank) {
  mbarrier_arrive_cluster(static_cast<uint32_t>(__cvta_generic_to_shared(bar)), cta_rank);
}

// Four floats at this block's shared::cta address `local` (16-byte aligned) in block `cta_rank`'s shared memory
// (mapa.shared::cluster, then ld.shared::cluster.v4.f32; 9.7.9.8): a peer's staged tile, read after a cluster barrier.
TESSERA_DEVICE_INLINE float4 ld_shared_cluster_f32x4(uint32_t local, uint32_t cta_rank) {
  float4 v;
#if defined(TESSERA_ARCH_SM90)
  asm volatile(
      "{\n"
      "  .reg .b32 remote;\n"
      "  mapa.shared::cluster.u32 remote, %4, %5;\n"
      "  ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [remote];\n"
      "}\n"
      : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
      : "r"(local), "r"(cta_rank)
      : "memory");
#else
  (void)local; (void)cta_rank;
  v = make_float4(0.f, 0.f, 0.f, 0.f);
  tessera_error_cluster_requires_sm_90();
#endif
  return v;
}

// (dst, bar: this block's shared::cta addresses of the destination (16-byte aligned) and of the barrier; the peer's
// copies at the same offsets receive the store and its byte count.)
TESSERA_DEVICE_INLINE void st_async_cluster_f32x4(uint32_t dst, uint32_t bar, uint32_t cta_rank, float4 v) {
#if defined(TESSERA_ARCH_SM90)
  asm volatile(
      "{\n"
      "  .reg .b32 rd, rb;\n"
      "  mapa.shared::cluster.u32 rd, %0, %2;\n"
      "  mapa.shared::cluster.u32 rb, %1, %2;\n"
      "  st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [rd], {%3, %4, %5, %6}, [rb];\n"
      "}\n" ::"r"(dst),
      "r"(bar), "r"(cta_rank), "r"(__float_as_uint(v.x)), "r"(__float_as_uint(v.y)), "r"(__float_as_uint(v.z)),
      "r"(__float_as_uint(v.w))
      : "memory");
#else
  (void)dst; (void)bar; (void)cta_rank; (void)v;
  tessera_error_cluster_requires_sm_90();
#endif
}
TESSERA_DEVICE_INLINE void tma_load_2d_multicast(void* smem_dst, const CUtensorMap* map, uint64_t* bar, int32_t c0,
                                                 int32_t c1, uint16_t cta_mask) {
#if defined(TESSERA_ARCH_SM90)
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(static_cast<uint32_t>(__cvta_generic_to_shared(smem_dst))),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(static_cast<uint32_t>(__cvta_generic_to_shared(bar))), "r"(c0), "r"(c1),
      "h"(cta_mask)
      : "memory");
#else
  (void)smem_dst; (void)map; (void)bar; (void)c0; (void)c1; (void)cta_mask;
  tessera_error_cluster_requires_sm_90();
#endif
}

#endif  // __CUDACC__

}  // namespace tessera::arch
