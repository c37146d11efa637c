// include/tessera/arch/sm90_tma.hpp -- the bulk copy engine (TMA), sm_90+: tensor copies described by
// a tensor map (CUtensorMap, made on the host by sm90_tma_desc.hpp) and plain contiguous bulk copies.
//
// PTX ISA 9.7.9.25.5 "Bulk and tensor asynchronous copies":
//   tma_load_2d     cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
//                   (9.7.9.25.5.2) global box at coordinates (c0 = innermost, c1) -> shared memory;
//                   completion is signalled on `bar` as transaction bytes (the box size, including the
//                   zero-filled out-of-bounds part), so the consumer first calls mbarrier_arrive_expect_tx.
//   tma_store_2d    cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group: shared -> global box;
//                   elements outside the tensor are not written (the engine clips the box).
//   bulk_load       cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes (9.7.9.25.5.1):
//                   `bytes` contiguous bytes (multiple of 16, both addresses 16-byte aligned).
//   bulk_store      cp.async.bulk.global.shared::cta.bulk_group.
//   bulk_commit     cp.async.bulk.commit_group: closes this thread's group of stores.
//   bulk_wait_read<N>  cp.async.bulk.wait_group.read N: at most N groups still *reading* shared memory
//                   (the source buffers of older groups may be reused).
//   bulk_wait<N>    cp.async.bulk.wait_group N: at most N groups incomplete (writes done).
//   tma_prefetch_desc  prefetch.tensormap: pull the descriptor into the cache before first use.
// The tensor map must live in parameter/constant/global memory (pass it as a `const __grid_constant__
// CUtensorMap` kernel parameter).  Shared destinations need 128-byte alignment.
#pragma once

#include <cuda.h>   // CUtensorMap
#include <cstdint>  // uint32_t, uint64_t

#include "tessera/arch/config.hpp"  // TESSERA_ARCH_SM90, TESSERA_DEVICE_INLINE

namespace tessera::arch {

#if defined(__CUDACC__)

namespace detail {
TESSERA_DEVICE_INLINE uint32_t tma_smem_u32(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
}  // namespace detail

TESSERA_DEVICE_INLINE void tma_prefetch_desc(const CUtensorMap* map) {
#if defined(TESSERA_ARCH_SM90)
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
#else
  (void)map;
  tessera_error_tma_requires_sm_90();
#endif
}

TESSERA_DEVICE_INLINE void tma_load_2d(void* smem_dst, const CUtensorMap* map, uint64_t* bar, int32_t c0, int32_t c1) {
#if defined(TESSERA_ARCH_SM90)
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n" ::"r"(
          detail::tma_smem_u32(smem_dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(detail::tma_smem_u32(bar)), "r"(c0), "r"(c1)
      : "memory");
#else
  (void)smem_dst; (void)map; (void)bar; (void)c0; (void)c1;
  tessera_error_tma_requires_sm_90();
#endif
}

TESSERA_DEVICE_INLINE void tma_store_2d(const CUtensorMap* map, const void* smem_src, int32_t c0, int32_t c1) {
#if defined(TESSERA_ARCH_SM90)
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(detail::tma_smem_u32(smem_src)), "r"(c0), "r"(c1)
               : "memory");
#else
  (void)map; (void)smem_src; (void)c0; (void)c1;
  tessera_error_tma_requires_sm_90();
#endif
}

TESSERA_DEVICE_INLINE void bulk_load(void* smem_dst, const void* gmem_src, uint32_t bytes, uint64_t* bar) {
#if defined(TESSERA_ARCH_SM90)
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                   detail::tma_smem_u32(smem_dst)),
               "l"(gmem_src), "r"(bytes), "r"(detail::tma_smem_u32(bar))
               : "memory");
#else
  (void)smem_dst; (void)gmem_src; (void)bytes; (void)bar;
  tessera_error_tma_requires_sm_90();
#endif
}

TESSERA_DEVICE_INLINE void bulk_store(void* gmem_dst, const void* smem_src, uint32_t bytes) {
#if defined(TESSERA_ARCH_SM90)
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n" ::"l"(gmem_dst),
               "r"(detail::tma_smem_u32(smem_src)), "r"(bytes)
               : "memory");
#else
  (void)gmem_dst; (void)smem_src; (void)bytes;
  tessera_error_tma_requires_sm_90();
#endif
}

TESSERA_DEVICE_INLINE void bulk_commit() {
#if defined(TESSERA_ARCH_SM90)
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
#else
  tessera_error_tma_requires_sm_90();
#endif
}

template <int kPending>
TESSERA_DEVICE_INLINE void bulk_wait_read() {
  static_assert(kPending >= 0 && kPending <= 7, "bulk_wait_read<N>: N must be in [0, 7]");
#if defined(TESSERA_ARCH_SM90)
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(kPending) : "memory");
#else
  tessera_error_tma_requires_sm_90();
#endif
}

template <int kPending>
TESSERA_DEVICE_INLINE void bulk_wait() {
  static_assert(kPending >= 0 && kPending <= 7, "bulk_wait<N>: N must be in [0, 7]");
#if defined(TESSERA_ARCH_SM90)
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(kPending) : "memory");
#else
  tessera_error_tma_requires_sm_90();
#endif
}

#endif  // __CUDACC__

}  // namespace tessera::arch
