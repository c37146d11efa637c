// include/tessera/arch/sm90_stmatrix.hpp -- stmatrix (registers -> shared, 8x8 b16 matrices), sm_90+.
//
// PTX ISA 9.7.14.5.16 "stmatrix": stmatrix.sync.aligned.m8n8{.x1,.x2,.x4}{.trans}.shared.b16.
// The inverse of ldmatrix (sm75_ldmatrix.hpp): warp-collective; threads 8*i .. 8*i+7 supply the 8 row
// addresses (16 bytes each, 16-byte aligned) of matrix i; register j of thread t holds, for matrix j,
// the elements (row t/4, columns 2*(t%4), 2*(t%4)+1), or with .trans their transposed positions.
// Shared memory written this way and then read by the async proxy (TMA store, wgmma) needs
// fence_proxy_async_shared_cta() (sm90_mbarrier.hpp) in each writing thread before the barrier.
#pragma once

#include <cstdint>  // uint32_t

#include "tessera/arch/config.hpp"  // TESSERA_ARCH_SM90, TESSERA_DEVICE_INLINE

namespace tessera::arch {

#if defined(__CUDACC__)

namespace detail {
TESSERA_DEVICE_INLINE uint32_t stmatrix_smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
}  // namespace detail

TESSERA_DEVICE_INLINE void stmatrix_x1(void* smem_row_ptr, const uint32_t (&r)[1]) {
#if defined(TESSERA_ARCH_SM90)
  asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};\n" ::"r"(detail::stmatrix_smem_u32(smem_row_ptr)),
               "r"(r[0])
               : "memory");
#else
  (void)smem_row_ptr; (void)r;
  tessera_error_stmatrix_requires_sm_90();
#endif
}

TESSERA_DEVICE_INLINE void stmatrix_x2(void* smem_row_ptr, const uint32_t (&r)[2]) {
#if defined(TESSERA_ARCH_SM90)
  asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};\n" ::"r"(
                   detail::stmatrix_smem_u32(smem_row_ptr)),
               "r"(r[0]), "r"(r[1])
               : "memory");
#else
  (void)smem_row_ptr; (void)r;
  tessera_error_stmatrix_requires_sm_90();
#endif
}

TESSERA_DEVICE_INLINE void stmatrix_x4(void* smem_row_ptr, const uint32_t (&r)[4]) {
#if defined(TESSERA_ARCH_SM90)
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(
                   detail::stmatrix_smem_u32(smem_row_ptr)),
               "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])
               : "memory");
#else
  (void)smem_row_ptr; (void)r;
  tessera_error_stmatrix_requires_sm_90();
#endif
}

TESSERA_DEVICE_INLINE void stmatrix_x1_trans(void* smem_row_ptr, const uint32_t (&r)[1]) {
#if defined(TESSERA_ARCH_SM90)
  asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};\n" ::"r"(
                   detail::stmatrix_smem_u32(smem_row_ptr)),
               "r"(r[0])
               : "memory");
#else
  (void)smem_row_ptr; (void)r;
  tessera_error_stmatrix_requires_sm_90();
#endif
}

TESSERA_DEVICE_INLINE void stmatrix_x2_trans(void* smem_row_ptr, const uint32_t (&r)[2]) {
#if defined(TESSERA_ARCH_SM90)
  asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};\n" ::"r"(
                   detail::stmatrix_smem_u32(smem_row_ptr)),
               "r"(r[0]), "r"(r[1])
               : "memory");
#else
  (void)smem_row_ptr; (void)r;
  tessera_error_stmatrix_requires_sm_90();
#endif
}

TESSERA_DEVICE_INLINE void stmatrix_x4_trans(void* smem_row_ptr, const uint32_t (&r)[4]) {
#if defined(TESSERA_ARCH_SM90)
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(
                   detail::stmatrix_smem_u32(smem_row_ptr)),
               "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])
               : "memory");
#else
  (void)smem_row_ptr; (void)r;
  tessera_error_stmatrix_requires_sm_90();
#endif
}

#endif  // __CUDACC__

}  // namespace tessera::arch
