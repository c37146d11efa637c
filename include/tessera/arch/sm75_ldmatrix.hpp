// include/tessera/arch/sm75_ldmatrix.hpp -- ldmatrix (shared -> registers, 8x8 b16 matrices), sm_75+.
//
// PTX ISA 9.7.14.5.15 "ldmatrix": ldmatrix.sync.aligned.m8n8{.x1,.x2,.x4}{.trans}.shared.b16.
// Warp-collective.  Each 8x8 matrix of 16-bit elements is given by 8 row addresses (16 bytes per row,
// 16-byte aligned): for .xN, threads 8*i .. 8*i+7 supply the rows of matrix i (threads beyond 8*N are
// ignored but must pass a valid address).  Result: register j of thread t holds, for matrix j, the two
// elements (row t/4, columns 2*(t%4) and 2*(t%4)+1); with .trans, the matrix is transposed first,
// i.e. (column t/4, rows 2*(t%4), 2*(t%4)+1).
#pragma once

#include <cstdint>  // uint32_t

#include "tessera/arch/config.hpp"  // TESSERA_ARCH_SM75, TESSERA_DEVICE_INLINE

namespace tessera::arch {

#if defined(__CUDACC__)

namespace detail {
TESSERA_DEVICE_INLINE uint32_t ldmatrix_smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
}  // namespace detail

TESSERA_DEVICE_INLINE void ldmatrix_x1(uint32_t (&r)[1], const void* smem_row_ptr) {
#if defined(TESSERA_ARCH_SM75)
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n"
               : "=r"(r[0])
               : "r"(detail::ldmatrix_smem_u32(smem_row_ptr)));
#else
  (void)r; (void)smem_row_ptr;
  tessera_error_ldmatrix_requires_sm_75();
#endif
}

TESSERA_DEVICE_INLINE void ldmatrix_x2(uint32_t (&r)[2], const void* smem_row_ptr) {
#if defined(TESSERA_ARCH_SM75)
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(detail::ldmatrix_smem_u32(smem_row_ptr)));
#else
  (void)r; (void)smem_row_ptr;
  tessera_error_ldmatrix_requires_sm_75();
#endif
}

TESSERA_DEVICE_INLINE void ldmatrix_x4(uint32_t (&r)[4], const void* smem_row_ptr) {
#if defined(TESSERA_ARCH_SM75)
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(detail::ldmatrix_smem_u32(smem_row_ptr)));
#else
  (void)r; (void)smem_row_ptr;
  tessera_error_ldmatrix_requires_sm_75();
#endif
}

TESSERA_DEVICE_INLINE void ldmatrix_x1_trans(uint32_t (&r)[1], const void* smem_row_ptr) {
#if defined(TESSERA_ARCH_SM75)
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n"
               : "=r"(r[0])
               : "r"(detail::ldmatrix_smem_u32(smem_row_ptr)));
#else
  (void)r; (void)smem_row_ptr;
  tessera_error_ldmatrix_requires_sm_75();
#endif
}

TESSERA_DEVICE_INLINE void ldmatrix_x2_trans(uint32_t (&r)[2], const void* smem_row_ptr) {
#if defined(TESSERA_ARCH_SM75)
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(detail::ldmatrix_smem_u32(smem_row_ptr)));
#else
  (void)r; (void)smem_row_ptr;
  tessera_error_ldmatrix_requires_sm_75();
#endif
}

TESSERA_DEVICE_INLINE void ldmatrix_x4_trans(uint32_t (&r)[4], const void* smem_row_ptr) {
#if defined(TESSERA_ARCH_SM75)
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(detail::ldmatrix_smem_u32(smem_row_ptr)));
#else
  (void)r; (void)smem_row_ptr;
  tessera_error_ldmatrix_requires_sm_75();
#endif
}

#endif  // __CUDACC__

}  // namespace tessera::arch
