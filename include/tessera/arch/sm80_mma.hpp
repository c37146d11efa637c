// include/tessera/arch/sm80_mma.hpp -- warp-level tensor-core MMA (mma.sync), sm_80+, and the tf32 rounding.
//
// PTX ISA 9.7.14.5.14 "mma": mma.sync.aligned.<shape>.row.col.f32.<atype>.<btype>.f32 d, a, b, c.
// Warp-collective: the 32 threads of a warp together hold A (M x K, "row"), B (K x N, "col") and the fp32
// accumulator C/D (M x N) in registers; each thread's share (its fragment) is given in
//   "Matrix Fragments for mma.m16n8k16 with floating point type"   (bf16 and f16 inputs)
//   "Matrix Fragments for mma.m16n8k8" (the .tf32 case)              (tf32 inputs)
// (subsections of 9.7.14.5 "Matrix multiply-accumulate operation using mma instruction")
// and is written down as (thread, value) -> (row, column) layouts in tessera/atom/mma_sm80.hpp.
//
// Register contents (per thread):
//   m16n8k16 bf16/f16:  a = 4 x b32 (8 values, two 16-bit values per register, lower half first)
//                       b = 2 x b32 (4 values),  c = d = 4 x f32
//   m16n8k8  tf32:      a = 4 x b32 (4 tf32 values), b = 2 x b32 (2 values), c = d = 4 x f32
// tf32 operands are 32-bit registers whose low 13 mantissa bits are ignored by the tensor core;
// cvt_rna_tf32 (PTX ISA "cvt", .rna = round to nearest, ties away from zero) rounds an fp32 value to tf32
// first, so that the product sees a rounded rather than a truncated operand.
//
// The MMA wrappers are plain (non-volatile) asm: they have no side effects, so the compiler may schedule
// them freely among the shared-memory loads of the next k-step.
#pragma once

#include <cstdint>  // uint32_t

#include "tessera/arch/config.hpp"  // TESSERA_ARCH_SM80, TESSERA_DEVICE_INLINE

#if defined(__CUDACC__)
// Declared, never defined: a call that survives into device code for a target below sm_80 makes ptxas stop
// with "Unresolved extern function 'tessera_error_mma_sync_requires_sm_80'" (see tessera/arch/config.hpp).
extern "C" __device__ void tessera_error_mma_sync_requires_sm_80();
#endif

namespace tessera::arch {

#if defined(__CUDACC__)

// acc += A * B, m16n8k16, bf16 x bf16 -> fp32.
TESSERA_DEVICE_INLINE void mma_m16n8k16_f32_bf16(float (&acc)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
#if defined(TESSERA_ARCH_SM80)
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  (void)acc; (void)a; (void)b;
  tessera_error_mma_sync_requires_sm_80();
#endif
}

// acc += A * B, m16n8k16, f16 x f16 -> fp32.
TESSERA_DEVICE_INLINE void mma_m16n8k16_f32_f16(float (&acc)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
#if defined(TESSERA_ARCH_SM80)
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  (void)acc; (void)a; (void)b;
  tessera_error_mma_sync_requires_sm_80();
#endif
}

// acc += A * B, m16n8k8, tf32 x tf32 -> fp32.
TESSERA_DEVICE_INLINE void mma_m16n8k8_f32_tf32(float (&acc)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
#if defined(TESSERA_ARCH_SM80)
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  (void)acc; (void)a; (void)b;
  tessera_error_mma_sync_requires_sm_80();
#endif
}

// fp32 -> tf32 bit pattern (a 32-bit register), round to nearest, ties away from zero.
TESSERA_DEVICE_INLINE uint32_t cvt_rna_tf32(float x) {
#if defined(TESSERA_ARCH_SM80)
  uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return r;
#else
  (void)x;
  tessera_error_mma_sync_requires_sm_80();
  return 0;
#endif
}

#endif  // __CUDACC__

}  // namespace tessera::arch
