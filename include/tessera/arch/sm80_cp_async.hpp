// include/tessera/arch/sm80_cp_async.hpp -- cp.async (global -> shared, asynchronous), sm_80+.
//
// PTX ISA 9.7.9.25.3 "cp.async": copies cp-size bytes from global to shared memory without going
// through registers.  The optional src-size operand says how many bytes are read from global memory;
// the remaining (cp-size - src-size) bytes of the destination are filled with zeros.  We use it for
// predication: pred == false -> src-size 0 -> the destination is zero-filled and the source address is
// never dereferenced (it must still be a valid-looking generic address; pass any in-bounds pointer).
//   .ca  caches in L1 and L2 (cp-size 4, 8 or 16)
//   .cg  caches in L2 only, bypassing L1 (cp-size 16 only)
// Ordering: 9.7.9.25.4 cp.async.commit_group / cp.async.wait_group / cp.async.wait_all.
//   commit_group closes the batch of cp.async issued so far by this thread;
//   wait_group N blocks until at most N of the newest committed groups are still pending.
// The copies are only visible to *other* threads after wait + a barrier (__syncthreads()).
//
// Requires: smem_dst is a shared-memory address, gmem_src a global-memory address, both aligned to the
// copy size.
#pragma once

#include <cstdint>  // uint32_t

#include "tessera/arch/config.hpp"  // TESSERA_ARCH_SM80, TESSERA_DEVICE_INLINE

namespace tessera::arch {

#if defined(__CUDACC__)

namespace detail {
TESSERA_DEVICE_INLINE uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
}  // namespace detail

// 16 bytes, L2 only.  Zero-fills the 16 destination bytes when !pred.
TESSERA_DEVICE_INLINE void cp_async_cg_16(void* smem_dst, const void* gmem_src, bool pred = true) {
#if defined(TESSERA_ARCH_SM80)
  const uint32_t src_size = pred ? 16u : 0u;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(detail::smem_u32(smem_dst)),
               "l"(gmem_src), "r"(src_size)
               : "memory");
#else
  (void)smem_dst; (void)gmem_src; (void)pred;
  tessera_error_cp_async_requires_sm_80();
#endif
}

// 4 / 8 / 16 bytes, cached in L1 and L2.  Zero-fills the destination bytes when !pred.
TESSERA_DEVICE_INLINE void cp_async_ca_4(void* smem_dst, const void* gmem_src, bool pred = true) {
#if defined(TESSERA_ARCH_SM80)
  const uint32_t src_size = pred ? 4u : 0u;
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(detail::smem_u32(smem_dst)),
               "l"(gmem_src), "r"(src_size)
               : "memory");
#else
  (void)smem_dst; (void)gmem_src; (void)pred;
  tessera_error_cp_async_requires_sm_80();
#endif
}

TESSERA_DEVICE_INLINE void cp_async_ca_8(void* smem_dst, const void* gmem_src, bool pred = true) {
#if defined(TESSERA_ARCH_SM80)
  const uint32_t src_size = pred ? 8u : 0u;
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(detail::smem_u32(smem_dst)),
               "l"(gmem_src), "r"(src_size)
               : "memory");
#else
  (void)smem_dst; (void)gmem_src; (void)pred;
  tessera_error_cp_async_requires_sm_80();
#endif
}

TESSERA_DEVICE_INLINE void cp_async_ca_16(void* smem_dst, const void* gmem_src, bool pred = true) {
#if defined(TESSERA_ARCH_SM80)
  const uint32_t src_size = pred ? 16u : 0u;
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;\n" ::"r"(detail::smem_u32(smem_dst)),
               "l"(gmem_src), "r"(src_size)
               : "memory");
#else
  (void)smem_dst; (void)gmem_src; (void)pred;
  tessera_error_cp_async_requires_sm_80();
#endif
}

// Partial forms: read only the first `src_bytes` (0 <= src_bytes <= cp-size) bytes of the source and
// zero-fill the rest of the destination.  Used for the last, partly out-of-bounds vector of a row.
TESSERA_DEVICE_INLINE void cp_async_cg_16_zfill(void* smem_dst, const void* gmem_src, uint32_t src_bytes) {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(detail::smem_u32(smem_dst)), "l"(gmem_src),
               "r"(src_bytes)
               : "memory");
#else
  (void)smem_dst; (void)gmem_src; (void)src_bytes;
  tessera_error_cp_async_requires_sm_80();
#endif
}

template <int kBytes>
TESSERA_DEVICE_INLINE void cp_async_ca_zfill(void* smem_dst, const void* gmem_src, uint32_t src_bytes) {
  static_assert(kBytes == 4 || kBytes == 8 || kBytes == 16, "cp.async.ca copies 4, 8 or 16 bytes");
#if defined(TESSERA_ARCH_SM80)
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(detail::smem_u32(smem_dst)), "l"(gmem_src),
               "n"(kBytes), "r"(src_bytes)
               : "memory");
#else
  (void)smem_dst; (void)gmem_src; (void)src_bytes;
  tessera_error_cp_async_requires_sm_80();
#endif
}

// Closes the current group of this thread's cp.async operations.
TESSERA_DEVICE_INLINE void cp_async_commit() {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#else
  tessera_error_cp_async_requires_sm_80();
#endif
}

// Waits until at most kPending of this thread's most recent committed groups are incomplete.
template <int kPending>
TESSERA_DEVICE_INLINE void cp_async_wait() {
  static_assert(kPending >= 0 && kPending <= 7, "cp_async_wait<N>: N must be in [0, 7] (an immediate group count)");
#if defined(TESSERA_ARCH_SM80)
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
#else
  tessera_error_cp_async_requires_sm_80();
#endif
}

// Waits for all of this thread's cp.async operations (committed or not).
TESSERA_DEVICE_INLINE void cp_async_wait_all() {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#else
  tessera_error_cp_async_requires_sm_80();
#endif
}

// Completion through an mbarrier instead of commit/wait groups (PTX ISA, mbarrier instructions,
// "cp.async.mbarrier.arrive"): the barrier receives one arrive-on from this thread once all of this
// thread's earlier cp.async operations have landed in shared memory.
//   cp_async_mbarrier_arrive_noinc  that asynchronous arrival *is* this thread's arrival for the phase:
//                                   init the barrier with the number of arriving threads and do not
//                                   arrive again.
//   cp_async_mbarrier_arrive        the pending count is first raised by one, so the asynchronous
//                                   arrival only holds the phase open until the copies land; the thread
//                                   still arrives itself (mbarrier_arrive).  This is the form libcu++'s
//                                   cuda::pipeline<thread_scope_block> and cuda::barrier use.  Legal,
//                                   but compute-sanitizer synccheck 2025.3 reports the thread's own
//                                   arrive as "Missing wait" (docs/COPY.md, test_mbarrier_protocol);
//                                   prefer the .noinc form.
TESSERA_DEVICE_INLINE void cp_async_mbarrier_arrive_noinc(uint64_t* bar) {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(detail::smem_u32(bar)) : "memory");
#else
  (void)bar;
  tessera_error_cp_async_requires_sm_80();
#endif
}

TESSERA_DEVICE_INLINE void cp_async_mbarrier_arrive(uint64_t* bar) {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("cp.async.mbarrier.arrive.shared::cta.b64 [%0];\n" ::"r"(detail::smem_u32(bar)) : "memory");
#else
  (void)bar;
  tessera_error_cp_async_requires_sm_80();
#endif
}

#endif  // __CUDACC__

}  // namespace tessera::arch
