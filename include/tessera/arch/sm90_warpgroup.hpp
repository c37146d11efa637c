// include/tessera/arch/sm90_warpgroup.hpp -- warp-specialisation primitives: per-warpgroup register
// budgets (setmaxnreg, sm_90a) and named barriers (bar.sync / bar.arrive with an id and a thread count).
//
// PTX ISA:
//   setmaxnreg_inc<N> / setmaxnreg_dec<N>   9.7.19.7 "setmaxnreg": setmaxnreg.{inc,dec}.sync.aligned.u32 N.
//       Every warp of a warpgroup executes the same instruction; N in [24, 256], a multiple of 8.  Takes
//       effect only in a kernel with a register cap at entry (__launch_bounds__(threads, 1) or
//       -maxrregcount); registers given back by one warpgroup (dec) become available to another (inc).
//   named_barrier_sync(id, n)      9.7.13.1 "bar.sync": waits until n threads (a multiple of 32) have
//       arrived at barrier `id` (0 is __syncthreads' barrier: use 1..15).
//   lane_id_now()                  %laneid, read where it is used.
//   fresh(v)                       v through an opaque move (a loop-local copy that stays in a register).
//   named_barrier_arrive(id, n)    "bar.arrive": counts this thread towards barrier `id` without waiting.
#pragma once

#include <cstdint>  // uint32_t

#include "tessera/arch/config.hpp"  // TESSERA_ARCH_SM90A, TESSERA_DEVICE_INLINE

namespace tessera::arch {

#if defined(__CUDACC__)

extern "C" __device__ void tessera_error_setmaxnreg_requires_sm_90a();

template <int kRegs>
TESSERA_DEVICE_INLINE void setmaxnreg_inc() {
  static_assert(kRegs >= 24 && kRegs <= 256 && kRegs % 8 == 0, "setmaxnreg: the count is a multiple of 8 in [24, 256]");
#if defined(TESSERA_ARCH_SM90A)
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs));
#else
  tessera_error_setmaxnreg_requires_sm_90a();
#endif
}

template <int kRegs>
TESSERA_DEVICE_INLINE void setmaxnreg_dec() {
  static_assert(kRegs >= 24 && kRegs <= 256 && kRegs % 8 == 0, "setmaxnreg: the count is a multiple of 8 in [24, 256]");
#if defined(TESSERA_ARCH_SM90A)
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs));
#else
  tessera_error_setmaxnreg_requires_sm_90a();
#endif
}

TESSERA_DEVICE_INLINE void named_barrier_sync(uint32_t id, uint32_t threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

TESSERA_DEVICE_INLINE void named_barrier_arrive(uint32_t id, uint32_t threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// The lane index read from %laneid where it is used (volatile: not kept live in a register across a
// loop, which under register pressure would cost a spill and a local load per iteration).
// threadIdx.x the same way (%tid.x): values derived from it are recomputed after the read instead of being
// kept live across a main loop.
TESSERA_DEVICE_INLINE uint32_t tid_x_now() {
  uint32_t t;
  asm volatile("mov.u32 %0, %%tid.x;\n" : "=r"(t));
  return t;
}

TESSERA_DEVICE_INLINE uint32_t lane_id_now() {
  uint32_t l;
  asm volatile("mov.u32 %0, %%laneid;\n" : "=r"(l));
  return l;
}

// A copy of v through an opaque move: a loop that works on the copy keeps it in a register even where v itself
// lives in a stack slot across register-hungry code elsewhere (without it, the spilled value is loaded, and
// stored, at every use inside the loop).
TESSERA_DEVICE_INLINE int fresh(int v) {
  int r;
  asm volatile("mov.b32 %0, %1;\n" : "=r"(r) : "r"(v));
  return r;
}

#endif  // __CUDACC__

}  // namespace tessera::arch
