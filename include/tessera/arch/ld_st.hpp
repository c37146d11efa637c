// include/tessera/arch/ld_st.hpp -- scalar and vector (32/64/128-bit) global and shared loads/stores.
//
// PTX ISA 9.7.9.8 "ld" and 9.7.9.10 "st".  The vector forms (.v2.u32 = 64 bits, .v4.u32 = 128 bits)
// move the whole vector in one instruction; the address must be aligned to the full vector size.
// Cache operators used (PTX ISA 9.7.9.1 "Cache Operators", 9.7.9.9 "ld.global.nc"):
//   ld_global_*       ld.global        default (.ca): cached in L1 and L2
//   ld_global_nc_*    ld.global.nc.L1::no_allocate   read-only data path, no L1 allocation: for data
//                                      that is read once (streaming copies, an epilogue's inputs); the data must
//                                      not be written by any thread while the kernel runs
//   st_global_*       st.global        default (.wb)
//   st_global_cs_*    st.global.cs     streaming store ("evict first"), for data not read again soon
//   prefetch_global_l1  prefetch.global.L1 (PTX ISA 9.7.9.15): the line holding an address into L1, a hint (no fault,
//                     no result), so that later loads of it hit L1
// Shared-memory forms take generic pointers into shared memory and convert them (cvta) to the 32-bit
// shared window.  Loads return through an array reference (output first, like ldmatrix); stores take the
// address first and the values last.
#pragma once

#include <cstdint>  // uint32_t, uint64_t

#include "tessera/arch/config.hpp"  // TESSERA_ARCH_SM80, TESSERA_DEVICE_INLINE

namespace tessera::arch {

#if defined(__CUDACC__)

namespace detail {
TESSERA_DEVICE_INLINE uint32_t ld_st_smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
}  // namespace detail

// ---- global memory ----

TESSERA_DEVICE_INLINE void prefetch_global_l1(const void* gmem_ptr) {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("prefetch.global.L1 [%0];\n" ::"l"(gmem_ptr));
#else
  (void)gmem_ptr;
  tessera_error_ld_st_requires_sm_80();
#endif
}

TESSERA_DEVICE_INLINE void ld_global_u32(uint32_t& r, const void* gmem_ptr) {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("ld.global.u32 %0, [%1];\n" : "=r"(r) : "l"(gmem_ptr) : "memory");
#else
  r = 0; (void)gmem_ptr;
  tessera_error_ld_st_requires_sm_80();
#endif
}

TESSERA_DEVICE_INLINE void ld_global_u64(uint64_t& r, const void* gmem_ptr) {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("ld.global.u64 %0, [%1];\n" : "=l"(r) : "l"(gmem_ptr) : "memory");
#else
  r = 0; (void)gmem_ptr;
  tessera_error_ld_st_requires_sm_80();
#endif
}

TESSERA_DEVICE_INLINE void ld_global_v2_u32(uint32_t (&r)[2], const void* gmem_ptr) {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("ld.global.v2.u32 {%0, %1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "l"(gmem_ptr) : "memory");
#else
  r[0] = r[1] = 0; (void)gmem_ptr;
  tessera_error_ld_st_requires_sm_80();
#endif
}

TESSERA_DEVICE_INLINE void ld_global_v4_u32(uint32_t (&r)[4], const void* gmem_ptr) {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "l"(gmem_ptr)
               : "memory");
#else
  r[0] = r[1] = r[2] = r[3] = 0; (void)gmem_ptr;
  tessera_error_ld_st_requires_sm_80();
#endif
}

TESSERA_DEVICE_INLINE void ld_global_nc_u32(uint32_t& r, const void* gmem_ptr) {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("ld.global.nc.L1::no_allocate.u32 %0, [%1];\n" : "=r"(r) : "l"(gmem_ptr) : "memory");
#else
  r = 0; (void)gmem_ptr;
  tessera_error_ld_st_requires_sm_80();
#endif
}

// One element of 4 or 2 bytes (`four`, chosen at run time; 2 bytes are zero-extended) into one register: two predicated
// loads with the same destination, so that nothing waits for the result until it is used (a load per width and a
// select after them would wait for the load at the select).
TESSERA_DEVICE_INLINE void ld_global_nc_u32_or_u16(uint32_t& r, const void* gmem_ptr, bool four) {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("{\n.reg .pred p;\nsetp.ne.u32 p, %2, 0;\n@p ld.global.nc.L1::no_allocate.u32 %0, [%1];\n"
               "@!p ld.global.nc.L1::no_allocate.u16 %0, [%1];\n}\n"
               : "=r"(r) : "l"(gmem_ptr), "r"(four ? 1u : 0u) : "memory");
#else
  r = 0; (void)gmem_ptr; (void)four;
  tessera_error_ld_st_requires_sm_80();
#endif
}

TESSERA_DEVICE_INLINE void ld_global_nc_u64(uint64_t& r, const void* gmem_ptr) {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("ld.global.nc.L1::no_allocate.u64 %0, [%1];\n" : "=l"(r) : "l"(gmem_ptr) : "memory");
#else
  r = 0; (void)gmem_ptr;
  tessera_error_ld_st_requires_sm_80();
#endif
}

TESSERA_DEVICE_INLINE void ld_global_nc_v2_u32(uint32_t (&r)[2], const void* gmem_ptr) {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("ld.global.nc.L1::no_allocate.v2.u32 {%0, %1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "l"(gmem_ptr) : "memory");
#else
  r[0] = r[1] = 0; (void)gmem_ptr;
  tessera_error_ld_st_requires_sm_80();
#endif
}

TESSERA_DEVICE_INLINE void ld_global_nc_v4_u32(uint32_t (&r)[4], const void* gmem_ptr) {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "l"(gmem_ptr)
               : "memory");
#else
  r[0] = r[1] = r[2] = r[3] = 0; (void)gmem_ptr;
  tessera_error_ld_st_requires_sm_80();
#endif
}

TESSERA_DEVICE_INLINE void st_global_u32(void* gmem_ptr, uint32_t v) {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("st.global.u32 [%0], %1;\n" ::"l"(gmem_ptr), "r"(v) : "memory");
#else
  (void)gmem_ptr; (void)v;
  tessera_error_ld_st_requires_sm_80();
#endif
}

TESSERA_DEVICE_INLINE void st_global_u64(void* gmem_ptr, uint64_t v) {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("st.global.u64 [%0], %1;\n" ::"l"(gmem_ptr), "l"(v) : "memory");
#else
  (void)gmem_ptr; (void)v;
  tessera_error_ld_st_requires_sm_80();
#endif
}

TESSERA_DEVICE_INLINE void st_global_v2_u32(void* gmem_ptr, const uint32_t (&v)[2]) {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("st.global.v2.u32 [%0], {%1, %2};\n" ::"l"(gmem_ptr), "r"(v[0]), "r"(v[1]) : "memory");
#else
  (void)gmem_ptr; (void)v;
  tessera_error_ld_st_requires_sm_80();
#endif
}

TESSERA_DEVICE_INLINE void st_global_v4_u32(void* gmem_ptr, const uint32_t (&v)[4]) {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};\n" ::"l"(gmem_ptr), "r"(v[0]), "r"(v[1]),
               "r"(v[2]), "r"(v[3])
               : "memory");
#else
  (void)gmem_ptr; (void)v;
  tessera_error_ld_st_requires_sm_80();
#endif
}

TESSERA_DEVICE_INLINE void st_global_cs_u32(void* gmem_ptr, uint32_t v) {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("st.global.cs.u32 [%0], %1;\n" ::"l"(gmem_ptr), "r"(v) : "memory");
#else
  (void)gmem_ptr; (void)v;
  tessera_error_ld_st_requires_sm_80();
#endif
}

TESSERA_DEVICE_INLINE void st_global_cs_u64(void* gmem_ptr, uint64_t v) {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("st.global.cs.u64 [%0], %1;\n" ::"l"(gmem_ptr), "l"(v) : "memory");
#else
  (void)gmem_ptr; (void)v;
  tessera_error_ld_st_requires_sm_80();
#endif
}

TESSERA_DEVICE_INLINE void st_global_cs_v2_u32(void* gmem_ptr, const uint32_t (&v)[2]) {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("st.global.cs.v2.u32 [%0], {%1, %2};\n" ::"l"(gmem_ptr), "r"(v[0]), "r"(v[1]) : "memory");
#else
  (void)gmem_ptr; (void)v;
  tessera_error_ld_st_requires_sm_80();
#endif
}

TESSERA_DEVICE_INLINE void st_global_cs_v4_u32(void* gmem_ptr, const uint32_t (&v)[4]) {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("st.global.cs.v4.u32 [%0], {%1, %2, %3, %4};\n" ::"l"(gmem_ptr), "r"(v[0]), "r"(v[1]),
               "r"(v[2]), "r"(v[3])
               : "memory");
#else
  (void)gmem_ptr; (void)v;
  tessera_error_ld_st_requires_sm_80();
#endif
}

// ---- shared memory ----

TESSERA_DEVICE_INLINE void ld_shared_u16(uint16_t& r, const void* smem_ptr) {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("ld.shared.u16 %0, [%1];\n" : "=h"(r) : "r"(detail::ld_st_smem_u32(smem_ptr)) : "memory");
#else
  r = 0; (void)smem_ptr;
  tessera_error_ld_st_requires_sm_80();
#endif
}

TESSERA_DEVICE_INLINE void ld_shared_u32(uint32_t& r, const void* smem_ptr) {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(r) : "r"(detail::ld_st_smem_u32(smem_ptr)) : "memory");
#else
  r = 0; (void)smem_ptr;
  tessera_error_ld_st_requires_sm_80();
#endif
}

TESSERA_DEVICE_INLINE void ld_shared_u64(uint64_t& r, const void* smem_ptr) {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("ld.shared.u64 %0, [%1];\n" : "=l"(r) : "r"(detail::ld_st_smem_u32(smem_ptr)) : "memory");
#else
  r = 0; (void)smem_ptr;
  tessera_error_ld_st_requires_sm_80();
#endif
}

TESSERA_DEVICE_INLINE void ld_shared_v2_u32(uint32_t (&r)[2], const void* smem_ptr) {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(detail::ld_st_smem_u32(smem_ptr)) : "memory");
#else
  r[0] = r[1] = 0; (void)smem_ptr;
  tessera_error_ld_st_requires_sm_80();
#endif
}

// At a shared::cta address (32 bits: one register where a generic pointer takes two), or at a generic pointer.
TESSERA_DEVICE_INLINE void ld_shared_v4_u32(uint32_t (&r)[4], uint32_t smem_addr) {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr)
               : "memory");
#else
  r[0] = r[1] = r[2] = r[3] = 0; (void)smem_addr;
  tessera_error_ld_st_requires_sm_80();
#endif
}
TESSERA_DEVICE_INLINE void ld_shared_v4_u32(uint32_t (&r)[4], const void* smem_ptr) {
  ld_shared_v4_u32(r, detail::ld_st_smem_u32(smem_ptr));
}

TESSERA_DEVICE_INLINE void st_shared_u32(void* smem_ptr, uint32_t v) {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(detail::ld_st_smem_u32(smem_ptr)), "r"(v) : "memory");
#else
  (void)smem_ptr; (void)v;
  tessera_error_ld_st_requires_sm_80();
#endif
}

TESSERA_DEVICE_INLINE void st_shared_u64(void* smem_ptr, uint64_t v) {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("st.shared.u64 [%0], %1;\n" ::"r"(detail::ld_st_smem_u32(smem_ptr)), "l"(v) : "memory");
#else
  (void)smem_ptr; (void)v;
  tessera_error_ld_st_requires_sm_80();
#endif
}

TESSERA_DEVICE_INLINE void st_shared_v2_u32(void* smem_ptr, const uint32_t (&v)[2]) {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("st.shared.v2.u32 [%0], {%1, %2};\n" ::"r"(detail::ld_st_smem_u32(smem_ptr)), "r"(v[0]), "r"(v[1]) : "memory");
#else
  (void)smem_ptr; (void)v;
  tessera_error_ld_st_requires_sm_80();
#endif
}

// At a shared::cta address, or at a generic pointer.
TESSERA_DEVICE_INLINE void st_shared_v4_u32(uint32_t smem_addr, const uint32_t (&v)[4]) {
#if defined(TESSERA_ARCH_SM80)
  asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};\n" ::"r"(smem_addr), "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3])
               : "memory");
#else
  (void)smem_addr; (void)v;
  tessera_error_ld_st_requires_sm_80();
#endif
}
TESSERA_DEVICE_INLINE void st_shared_v4_u32(void* smem_ptr, const uint32_t (&v)[4]) {
  st_shared_v4_u32(detail::ld_st_smem_u32(smem_ptr), v);
}

#endif  // __CUDACC__

}  // namespace tessera::arch
