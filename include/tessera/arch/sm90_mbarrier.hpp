// include/tessera/arch/sm90_mbarrier.hpp -- mbarrier (shared-memory transaction barriers) and the
// proxy fences that go with the asynchronous copy engine.
//
// PTX ISA 9.7.13.15 "mbarrier".  An mbarrier is a 64-bit object in shared memory with a phase bit, a
// pending-arrival count and (sm_90) a pending transaction-byte count.  A phase completes when both
// counts reach zero; the barrier then flips its phase and re-arms with the init count.
//   mbarrier_init                 9.7.13.15.9   (sm_80) expected arrivals per phase
//   mbarrier_arrive               9.7.13.15.13  (sm_80) arrive, returns the phase token
//   mbarrier_arrive_expect_tx     9.7.13.15.13  (sm_90) expect `bytes` more tx-bytes, then arrive
//   mbarrier_expect_tx            9.7.13.15.11  (sm_90) expect `bytes` more tx-bytes (no arrival)
//   mbarrier_test_wait_parity     9.7.13.15.16  (sm_80) non-blocking: has phase `parity` completed?
//   mbarrier_try_wait_parity      9.7.13.15.16  (sm_90) potentially blocking for a system-defined
//                                               time: has phase `parity` completed?
//   mbarrier_wait_parity          loops on try_wait (sm_90) or test_wait (sm_80)
// Phase parity: the first phase after init has parity 0; waiting on parity p returns once the
// phase with parity p has completed.
// Fences (9.7.13.4 "membar/fence"):
//   fence_mbarrier_init           fence.mbarrier_init.release.cluster: makes an mbarrier.init visible
//                                 to the async proxy (the copy engine) and other threads (sm_90)
//   fence_proxy_async_shared_cta  orders this thread's generic-proxy shared-memory accesses with later
//                                 async-proxy accesses (TMA store / wgmma reading what we wrote) (sm_90)
#pragma once

#include <cstdint>  // uint32_t, uint64_t

#include "tessera/arch/config.hpp"  // TESSERA_ARCH_SM80, TESSERA_ARCH_SM90, TESSERA_DEVICE_INLINE

namespace tessera::arch {

#if defined(__CUDACC__)

namespace detail {
TESSERA_DEVICE_INLINE uint32_t mbar_u32(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
}  // namespace detail

TESSERA_DEVICE_INLINE void mbarrier_init(uint64_t* bar, uint32_t arrival_count) {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(detail::mbar_u32(bar)), "r"(arrival_count) : "memory");
#else
  (void)bar; (void)arrival_count;
  tessera_error_mbarrier_requires_sm_80();
#endif
}

TESSERA_DEVICE_INLINE void mbarrier_inval(uint64_t* bar) {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("mbarrier.inval.shared::cta.b64 [%0];\n" ::"r"(detail::mbar_u32(bar)) : "memory");
#else
  (void)bar;
  tessera_error_mbarrier_requires_sm_80();
#endif
}

// (bar_u32: the barrier's shared::cta address.)
TESSERA_DEVICE_INLINE uint64_t mbarrier_arrive(uint32_t bar_u32) {
#if defined(TESSERA_ARCH_SM80)
  uint64_t state;
  asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];\n" : "=l"(state) : "r"(bar_u32) : "memory");
  return state;
#else
  (void)bar_u32;
  tessera_error_mbarrier_requires_sm_80();
  return 0;
#endif
}
TESSERA_DEVICE_INLINE uint64_t mbarrier_arrive(uint64_t* bar) { return mbarrier_arrive(detail::mbar_u32(bar)); }

TESSERA_DEVICE_INLINE void mbarrier_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
#if defined(TESSERA_ARCH_SM90)
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(detail::mbar_u32(bar)), "r"(bytes)
               : "memory");
#else
  (void)bar; (void)bytes;
  tessera_error_mbarrier_tx_requires_sm_90();
#endif
}

TESSERA_DEVICE_INLINE void mbarrier_expect_tx(uint64_t* bar, uint32_t bytes) {
#if defined(TESSERA_ARCH_SM90)
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;\n" ::"r"(detail::mbar_u32(bar)), "r"(bytes)
               : "memory");
#else
  (void)bar; (void)bytes;
  tessera_error_mbarrier_tx_requires_sm_90();
#endif
}

TESSERA_DEVICE_INLINE bool mbarrier_test_wait_parity(uint64_t* bar, uint32_t parity) {
#if defined(TESSERA_ARCH_SM80)
  uint32_t done;
  asm volatile(
      "{\n"
      "  .reg .pred p;\n"
      "  mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      "  selp.u32 %0, 1, 0, p;\n"
      "}\n"
      : "=r"(done)
      : "r"(detail::mbar_u32(bar)), "r"(parity)
      : "memory");
  return done != 0;
#else
  (void)bar; (void)parity;
  tessera_error_mbarrier_requires_sm_80();
  return true;
#endif
}

// (bar_u32: the barrier's shared::cta address, e.g. one worked out once before a loop instead of converting a generic
// pointer at every wait.)
TESSERA_DEVICE_INLINE bool mbarrier_try_wait_parity(uint32_t bar_u32, uint32_t parity) {
#if defined(TESSERA_ARCH_SM90)
  uint32_t done;
  asm volatile(
      "{\n"
      "  .reg .pred p;\n"
      "  mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      "  selp.u32 %0, 1, 0, p;\n"
      "}\n"
      : "=r"(done)
      : "r"(bar_u32), "r"(parity)
      : "memory");
  return done != 0;
#else
  (void)bar_u32; (void)parity;
  tessera_error_mbarrier_tx_requires_sm_90();
  return true;
#endif
}
TESSERA_DEVICE_INLINE bool mbarrier_try_wait_parity(uint64_t* bar, uint32_t parity) {
  return mbarrier_try_wait_parity(detail::mbar_u32(bar), parity);
}

// Blocks until the phase with the given parity has completed.
#if defined(TESSERA_ARCH_SM90)
TESSERA_DEVICE_INLINE void mbarrier_wait_parity(uint32_t bar_u32, uint32_t parity) {
  while (!mbarrier_try_wait_parity(bar_u32, parity)) {
  }
}
#endif
TESSERA_DEVICE_INLINE void mbarrier_wait_parity(uint64_t* bar, uint32_t parity) {
#if defined(TESSERA_ARCH_SM90)
  mbarrier_wait_parity(detail::mbar_u32(bar), parity);
#elif defined(TESSERA_ARCH_SM80)
  while (!mbarrier_test_wait_parity(bar, parity)) {
  }
#else
  (void)bar; (void)parity;
  tessera_error_mbarrier_requires_sm_80();
#endif
}

TESSERA_DEVICE_INLINE void fence_mbarrier_init() {
#if defined(TESSERA_ARCH_SM90)
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#else
  tessera_error_mbarrier_tx_requires_sm_90();
#endif
}

TESSERA_DEVICE_INLINE void fence_proxy_async_shared_cta() {
#if defined(TESSERA_ARCH_SM90)
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#else
  tessera_error_mbarrier_tx_requires_sm_90();
#endif
}

#endif  // __CUDACC__

}  // namespace tessera::arch
