// include/tessera/arch/sm90_wgmma.hpp -- warpgroup MMA (wgmma), sm_90a: one instruction issued by the
// 128 threads of a warpgroup multiplies a 64 x 16 tile of A by a 16 x N tile of B, both read from shared
// memory through matrix descriptors, into fp32 accumulators held in the warpgroup's registers.  It runs
// asynchronously: fence before touching the accumulators, commit a group, wait for it.
//
// PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate Instructions":
//   wgmma_fence         wgmma.fence.sync.aligned           order register/shared accesses before wgmma
//   wgmma_commit        wgmma.commit_group.sync.aligned    close the group of issued wgmma
//   wgmma_wait<N>       wgmma.wait_group.sync.aligned N    at most N groups still in flight
//   wgmma_m64n{64,128,256}k16  wgmma.mma_async.sync.aligned.m64nNk16.f32.{bf16,f16}.{bf16,f16}
//                       D (64 x N, fp32) += A (64 x 16) * B (16 x N); each operand K-major or, with
//                       imm-trans-a / imm-trans-b = 1, M- / N-major; scale-d = 0 ignores the old D.
//   wgmma_m64n{16,64,128,256}k32_f8  wgmma.mma_async.sync.aligned.m64nNk32.f32.{e4m3,e5m2}.{e4m3,e5m2}
//                       D += A (64 x 32) * B (32 x N), FP8 operands, both K-major.
// Accumulator fragment (PTX ISA, wgmma "Register Fragments", matrix D): warp w of the warpgroup holds rows
// 16w .. 16w+15; thread `lane`'s registers d[4j .. 4j+3] are the elements
//     (16w + lane/4, 8j + 2*(lane%4) + {0, 1})  and  (16w + lane/4 + 8, 8j + 2*(lane%4) + {0, 1})
// of the 64 x N tile, j = 0 .. N/8-1: the m16n8 accumulator of mma.sync repeated along N.
//
// Matrix descriptor (PTX ISA, wgmma "Matrix Descriptor Format"), 64 bits:
//     bits  0-13  start address >> 4          bits 16-29  leading-dimension byte offset >> 4
//     bits 32-45  stride-dimension byte offset >> 4
//     bits 49-51  base offset (0: the swizzle pattern starts at a 1024-byte aligned address)
//     bits 62-63  swizzle: 0 none, 1 128-byte, 2 64-byte, 3 32-byte
// smem_desc puts the start address into the other fields, which the operand tile's layout decides
// (atom::SmemTileSm90::wgmma_desc_fields: for the 128-byte swizzled tiles TMA writes with
// CU_TENSOR_MAP_SWIZZLE_128B, a stride-dimension offset of 1024 bytes = 8 rows of 128 bytes, the leading offset
// unused for a K-major operand and the distance to the next 64-element box for an MN-major one, swizzle mode 1).
// Advancing along K adds the layout's unswizzled offset to the start address (wgmma_k_offset_bytes): the hardware
// applies the swizzle to the final address.
#pragma once

#include <cstdint>  // uint32_t, uint64_t

#include "tessera/arch/config.hpp"  // TESSERA_ARCH_SM90A, TESSERA_DEVICE_INLINE

namespace tessera::arch {

#if defined(__CUDACC__)

// A wgmma shared-memory matrix descriptor: `fields` (the offsets and swizzle mode that the operand tile's layout
// gives, atom::SmemTileSm90::wgmma_desc_fields) with the start address of the matrix at smem_ptr (bits 0-13, in
// 16-byte units).  Requires: smem_ptr 16-byte aligned; the tile's 8-row groups 1024-byte aligned.
TESSERA_DEVICE_INLINE uint64_t smem_desc(const void* smem_ptr, uint64_t fields) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(smem_ptr));
  return fields | static_cast<uint64_t>((addr >> 4) & 0x3FFFu);
}
// The same from the start field itself, start16 = (shared::cta address / 16) mod 2^14 (the address's offset in the
// block's shared memory, below 227 KB, in 16-byte units; a caller masks a base once, since a shared::cta address
// carries the block's rank in its cluster from bit 24 up): a loop that works out start16 as a base plus offsets pays
// one add per descriptor instead of the generic-to-shared conversion, the shift and the mask.  The two words are
// built apart (the start field has no carry into the high word), so that constant offsets fold into the low word's
// add.
TESSERA_DEVICE_INLINE uint64_t smem_desc16(uint32_t start16, uint64_t fields) {
  const uint32_t lo = static_cast<uint32_t>(fields) + start16, hi = static_cast<uint32_t>(fields >> 32);
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

TESSERA_DEVICE_INLINE void wgmma_fence() {
#if defined(TESSERA_ARCH_SM90A)
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#else
  tessera_error_wgmma_requires_sm_90a();
#endif
}

TESSERA_DEVICE_INLINE void wgmma_commit() {
#if defined(TESSERA_ARCH_SM90A)
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#else
  tessera_error_wgmma_requires_sm_90a();
#endif
}

template <int kPending>
TESSERA_DEVICE_INLINE void wgmma_wait() {
  static_assert(kPending >= 0 && kPending <= 7, "wgmma_wait: N must be 0..7");
#if defined(TESSERA_ARCH_SM90A)
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
#else
  tessera_error_wgmma_requires_sm_90a();
#endif
}

// Makes the compiler treat the accumulators as read and written here, so that it does not move their
// uses across a wgmma_wait.
template <int kN>
TESSERA_DEVICE_INLINE void wgmma_fence_operands(float (&d)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
// The same for integer accumulators (the s8 wgmma's s32).
template <int kN>
TESSERA_DEVICE_INLINE void wgmma_fence_operands(uint32_t (&d)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) asm volatile("" : "+r"(d[i])::"memory");
}

// D (64 x N fp32, the fragment above) = A * B + (scale_d ? D : 0); kF16: f16 operands, else bf16.
// A is K-major (kTransA = 0) or M-major (kTransA = 1, "imm-trans-a"); B is K-major (kTransB = 0) or
// N-major (kTransB = 1, "imm-trans-b").  Transposed operands are 16-bit types only.
// The accumulator operands are spelled out once per N in the macros below (nvcc does not expand
// parameter packs in asm operand lists); they are #undef'd at the end of this file.
#define TESSERA_WGMMA_D8_REGS "{%0, %1, %2, %3, %4, %5, %6, %7}"
#define TESSERA_WGMMA_D8_OPERANDS "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
#define TESSERA_WGMMA_D32_REGS "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}"
#define TESSERA_WGMMA_D32_OPERANDS \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
#define TESSERA_WGMMA_D64_REGS "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}"
#define TESSERA_WGMMA_D64_OPERANDS \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
#define TESSERA_WGMMA_D128_REGS "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}"
#define TESSERA_WGMMA_D128_OPERANDS \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
  "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
  "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
  "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
  "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])

// wgmma_m64n{N}k16: D (64 x N, N / 2 fp32 registers per thread, j = 0 .. N/8 - 1 in the fragment above) += A * B.
// One definition per N from the macro below; the operand numbers after the N / 2 accumulators are spelled as text
// (desc_a, desc_b, scale-d, imm-trans-a, imm-trans-b), since asm templates take no arithmetic.
#if defined(TESSERA_ARCH_SM90A)
#define TESSERA_WGMMA_ASM(SHAPE, TYPE, REGS, DA_DB, SCALE, TRANS, ...)                                       \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " SCALE ", 0;\n"                                         \
               "wgmma.mma_async.sync.aligned." SHAPE ".f32." TYPE "." TYPE " " REGS ", " DA_DB ", p, 1, 1, " \
               TRANS ";\n}\n"                                                                               \
               : __VA_ARGS__                                                                                 \
               : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(kTransA), "n"(kTransB))
#define TESSERA_WGMMA_BODY(SHAPE, REGS, DA_DB, SCALE, TRANS, ...)                       \
  if constexpr (kF16) TESSERA_WGMMA_ASM(SHAPE, "f16", REGS, DA_DB, SCALE, TRANS, __VA_ARGS__); \
  else TESSERA_WGMMA_ASM(SHAPE, "bf16", REGS, DA_DB, SCALE, TRANS, __VA_ARGS__);
#else
#define TESSERA_WGMMA_BODY(SHAPE, REGS, DA_DB, SCALE, TRANS, ...)      \
  (void)d; (void)desc_a; (void)desc_b; (void)scale_d;                  \
  tessera_error_wgmma_requires_sm_90a();
#endif
#define TESSERA_WGMMA_DEFINE(NAME, NREGS, SHAPE, REGS, DA_DB, SCALE, TRANS, ...)                                  \
  template <bool kF16, int kTransB = 0, int kTransA = 0>                                                          \
  TESSERA_DEVICE_INLINE void NAME(float (&d)[NREGS], uint64_t desc_a, uint64_t desc_b, uint32_t scale_d) {        \
    static_assert(kTransB == 0 || kTransB == 1, "wgmma: kTransB is 0 (K-major B) or 1 (N-major B)");              \
    static_assert(kTransA == 0 || kTransA == 1, "wgmma: kTransA is 0 (K-major A) or 1 (M-major A)");              \
    TESSERA_WGMMA_BODY(SHAPE, REGS, DA_DB, SCALE, TRANS, __VA_ARGS__)                                             \
  }

TESSERA_WGMMA_DEFINE(wgmma_m64n16k16, 8, "m64n16k16", TESSERA_WGMMA_D8_REGS, "%8, %9", "%10", "%11, %12",
                     TESSERA_WGMMA_D8_OPERANDS)
TESSERA_WGMMA_DEFINE(wgmma_m64n64k16, 32, "m64n64k16", TESSERA_WGMMA_D32_REGS, "%32, %33", "%34", "%35, %36",
                     TESSERA_WGMMA_D32_OPERANDS)
TESSERA_WGMMA_DEFINE(wgmma_m64n128k16, 64, "m64n128k16", TESSERA_WGMMA_D64_REGS, "%64, %65", "%66", "%67, %68",
                     TESSERA_WGMMA_D64_OPERANDS)
TESSERA_WGMMA_DEFINE(wgmma_m64n256k16, 128, "m64n256k16", TESSERA_WGMMA_D128_REGS, "%128, %129", "%130", "%131, %132",
                     TESSERA_WGMMA_D128_OPERANDS)

// FP8: wgmma_m64n{N}k32_f8<kAE5M2, kBE5M2>: D (64 x N fp32) += A (64 x 32) * B (32 x N), A and B e4m3 (false) or
// e5m2 (true), both K-major (8-bit operands have no imm-trans-a / imm-trans-b: the instruction reads them K-major only).
// The products of two FP8 values are exact in fp32; the tensor cores sum them into D with fewer bits than fp32 keeps
// (GemmFp8Accum says what the kernels do about it).
#if defined(TESSERA_ARCH_SM90A)
#define TESSERA_WGMMA_F8_ASM(SHAPE, TA, TB, REGS, DA_DB, SCALE, ...)                                 \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " SCALE ", 0;\n"                                 \
               "wgmma.mma_async.sync.aligned." SHAPE ".f32." TA "." TB " " REGS ", " DA_DB ", p, 1, 1;\n}\n" \
               : __VA_ARGS__                                                                         \
               : "l"(desc_a), "l"(desc_b), "r"(scale_d))
#define TESSERA_WGMMA_F8_BODY(SHAPE, REGS, DA_DB, SCALE, ...)                                                   \
  if constexpr (!kAE5M2 && !kBE5M2) TESSERA_WGMMA_F8_ASM(SHAPE, "e4m3", "e4m3", REGS, DA_DB, SCALE, __VA_ARGS__); \
  else if constexpr (!kAE5M2) TESSERA_WGMMA_F8_ASM(SHAPE, "e4m3", "e5m2", REGS, DA_DB, SCALE, __VA_ARGS__);       \
  else if constexpr (!kBE5M2) TESSERA_WGMMA_F8_ASM(SHAPE, "e5m2", "e4m3", REGS, DA_DB, SCALE, __VA_ARGS__);       \
  else TESSERA_WGMMA_F8_ASM(SHAPE, "e5m2", "e5m2", REGS, DA_DB, SCALE, __VA_ARGS__);
#else
#define TESSERA_WGMMA_F8_BODY(SHAPE, REGS, DA_DB, SCALE, ...) \
  (void)d; (void)desc_a; (void)desc_b; (void)scale_d;         \
  tessera_error_wgmma_requires_sm_90a();
#endif
#define TESSERA_WGMMA_F8_DEFINE(NAME, NREGS, SHAPE, REGS, DA_DB, SCALE, ...)                               \
  template <bool kAE5M2, bool kBE5M2>                                                                     \
  TESSERA_DEVICE_INLINE void NAME(float (&d)[NREGS], uint64_t desc_a, uint64_t desc_b, uint32_t scale_d) { \
    TESSERA_WGMMA_F8_BODY(SHAPE, REGS, DA_DB, SCALE, __VA_ARGS__)                                         \
  }

TESSERA_WGMMA_F8_DEFINE(wgmma_m64n16k32_f8, 8, "m64n16k32", TESSERA_WGMMA_D8_REGS, "%8, %9", "%10", TESSERA_WGMMA_D8_OPERANDS)
TESSERA_WGMMA_F8_DEFINE(wgmma_m64n64k32_f8, 32, "m64n64k32", TESSERA_WGMMA_D32_REGS, "%32, %33", "%34", TESSERA_WGMMA_D32_OPERANDS)
TESSERA_WGMMA_F8_DEFINE(wgmma_m64n128k32_f8, 64, "m64n128k32", TESSERA_WGMMA_D64_REGS, "%64, %65", "%66",
                        TESSERA_WGMMA_D64_OPERANDS)
TESSERA_WGMMA_F8_DEFINE(wgmma_m64n256k32_f8, 128, "m64n256k32", TESSERA_WGMMA_D128_REGS, "%128, %129", "%130",
                        TESSERA_WGMMA_D128_OPERANDS)

// INT8: wgmma_m64n{N}k32_s8: D (64 x N, s32) += A (64 x 32, s8) * B (32 x N, s8), both K-major, exact (no rounding:
// the s32 sums overflow only past 2^31, K > 131,072 products of (-128) x (-128)).  The accumulators are
// s32 registers (uint32_t: the bits), which the kernel converts to fp32 once its main loop has drained (the
// accumulators stay integer registers through the loop: moved between float and integer registers around each wgmma,
// ptxas serialised them, C7514).
#if defined(TESSERA_ARCH_SM90A)
#define TESSERA_WGMMA_S8_BODY(SHAPE, REGS, DA_DB, SCALE, ...)                                        \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " SCALE ", 0;\n"                                   \
               "wgmma.mma_async.sync.aligned." SHAPE ".s32.s8.s8 " REGS ", " DA_DB ", p;\n}\n"       \
               : __VA_ARGS__                                                                          \
               : "l"(desc_a), "l"(desc_b), "r"(scale_d));
#else
#define TESSERA_WGMMA_S8_BODY(SHAPE, REGS, DA_DB, SCALE, ...) \
  (void)d; (void)desc_a; (void)desc_b; (void)scale_d;         \
  tessera_error_wgmma_requires_sm_90a();
#endif
#define TESSERA_WGMMA_S8_DEFINE(NAME, NREGS, SHAPE, REGS, DA_DB, SCALE, ...)                                \
  TESSERA_DEVICE_INLINE void NAME(uint32_t (&d)[NREGS], uint64_t desc_a, uint64_t desc_b, uint32_t scale_d) { \
    TESSERA_WGMMA_S8_BODY(SHAPE, REGS, DA_DB, SCALE, __VA_ARGS__)                                          \
  }

TESSERA_WGMMA_S8_DEFINE(wgmma_m64n16k32_s8, 8, "m64n16k32", TESSERA_WGMMA_D8_REGS, "%8, %9", "%10",
                        "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]))
TESSERA_WGMMA_S8_DEFINE(wgmma_m64n64k32_s8, 32, "m64n64k32", TESSERA_WGMMA_D32_REGS, "%32, %33", "%34",
                        "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]))
TESSERA_WGMMA_S8_DEFINE(wgmma_m64n128k32_s8, 64, "m64n128k32", TESSERA_WGMMA_D64_REGS, "%64, %65", "%66",
                        "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]), "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]), "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]), "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]), "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63]))
TESSERA_WGMMA_S8_DEFINE(wgmma_m64n256k32_s8, 128, "m64n256k32", TESSERA_WGMMA_D128_REGS, "%128, %129", "%130",
                        "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]), "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]), "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]), "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]), "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63]), "+r"(d[64]), "+r"(d[65]), "+r"(d[66]), "+r"(d[67]), "+r"(d[68]), "+r"(d[69]), "+r"(d[70]), "+r"(d[71]), "+r"(d[72]), "+r"(d[73]), "+r"(d[74]), "+r"(d[75]), "+r"(d[76]), "+r"(d[77]), "+r"(d[78]), "+r"(d[79]), "+r"(d[80]), "+r"(d[81]), "+r"(d[82]), "+r"(d[83]), "+r"(d[84]), "+r"(d[85]), "+r"(d[86]), "+r"(d[87]), "+r"(d[88]), "+r"(d[89]), "+r"(d[90]), "+r"(d[91]), "+r"(d[92]), "+r"(d[93]), "+r"(d[94]), "+r"(d[95]), "+r"(d[96]), "+r"(d[97]), "+r"(d[98]), "+r"(d[99]), "+r"(d[100]), "+r"(d[101]), "+r"(d[102]), "+r"(d[103]), "+r"(d[104]), "+r"(d[105]), "+r"(d[106]), "+r"(d[107]), "+r"(d[108]), "+r"(d[109]), "+r"(d[110]), "+r"(d[111]), "+r"(d[112]), "+r"(d[113]), "+r"(d[114]), "+r"(d[115]), "+r"(d[116]), "+r"(d[117]), "+r"(d[118]), "+r"(d[119]), "+r"(d[120]), "+r"(d[121]), "+r"(d[122]), "+r"(d[123]), "+r"(d[124]), "+r"(d[125]), "+r"(d[126]), "+r"(d[127]))

#undef TESSERA_WGMMA_S8_DEFINE
#undef TESSERA_WGMMA_S8_BODY

#undef TESSERA_WGMMA_F8_DEFINE
#undef TESSERA_WGMMA_F8_BODY
#if defined(TESSERA_ARCH_SM90A)
#undef TESSERA_WGMMA_F8_ASM
#endif
#undef TESSERA_WGMMA_DEFINE
#undef TESSERA_WGMMA_BODY
#if defined(TESSERA_ARCH_SM90A)
#undef TESSERA_WGMMA_ASM
#endif
#undef TESSERA_WGMMA_D8_REGS
#undef TESSERA_WGMMA_D8_OPERANDS
#undef TESSERA_WGMMA_D32_REGS
#undef TESSERA_WGMMA_D32_OPERANDS
#undef TESSERA_WGMMA_D64_REGS
#undef TESSERA_WGMMA_D64_OPERANDS
#undef TESSERA_WGMMA_D128_REGS
#undef TESSERA_WGMMA_D128_OPERANDS

#endif  // __CUDACC__

}  // namespace tessera::arch
