// include/tessera/kernel/gemm_sm90/trace.hpp -- the Hopper GEMM kernels' timeline probe: off (every macro a
// no-op) unless built with -DTESSERA_GEMM_TRACE; scripts/device/trace_gemm.cu reads it.  One buffer per
// instantiation unit (a static __device__ array): the unit's TESSERA_GEMM_TRACE_ACCESS (src/gemm_sm90*.cu) copies
// it out.  Slots: (block, warpgroup, unit, event).
//
// The persistent kernel (persistent_kernel.hpp): SM clock stamps per block, warpgroup and unit (the first 8
// units).  Consumers: 0 unit start, 1 first stage full, 2 cycles waiting on later full stages, 3 last wgmma
// issued, 4 last wgmma complete, 5 epilogue done, 7 the bare kernel's epilogue start (the packing of D, which 5
// ends: that kernel stages D during the next main loop), 8 the bare kernel's deferred staging's cycles in the main
// loop (+ 1), 14 of those, the cycles waiting for the store warp to free a buffer (+ 1), 15 the general kernel's
// epilogue_unit entered (the bookkeeping after the drain done).  The bare
// kernel's last unit (in unit slot 7, whatever its index): 9 both consumers drained (Barrier::drained_both), 10 its
// activation applied in registers, 11 the residual boxes in (rfull; the residual menus), 12 D finished and staged in
// the ring.  Producer (warpgroup 0):
// 0 unit start, 1 cycles waiting on empty stages, 2 last load issued, 3 first load issued; (unit 7, 7) the block's
// start; (unit 7, 6) and (unit 7, 5) the global timer (ns) at the block's start and end, (unit 7, 4) the SM clock
// at its end; the persistent kernel's start-up, (unit 7, 8) barriers initialised, 9 the cluster barrier passed, 10
// the producer's registers released (setmaxnreg.dec), 11 its first unit's place worked out, 12 the consumers'
// registers granted (setmaxnreg.inc, consumer 0's first thread), 13 the first unit's early stages issued (before the
// cluster barrier); (unit 6, 8 + 3 c) store warp c issued the last
// unit's residual loads, (unit 6, 9 + 3 c) it found the last unit staged, (unit 6, 10 + 3 c) its last store read.
// The non-persistent kernel (gemm_kernel.hpp) uses unit 0: consumers 0 start (after the barriers' set-up), 1 first
// stage full, 2 cycles waiting on later full stages, 3 last wgmma issued, 4 last wgmma complete, 6 staging tile
// written, 5 epilogue done, and with the K splits in a cluster 9 the first cluster barrier passed, 10 the peer's half
// added, 11 the block's barrier passed and its arrival on the second cluster barrier made (the wait follows the stores,
// before 5); the producer 0 start, 1 cycles waiting on empty stages, 2 last load issued, and (unit 7)
// as above.  The bare GEMM through TMA stores (GemmSm90::store_bare) writes no 6, and each consumer warpgroup stamps
// the block's end (unit 7, 5 and 4) once its stores have read shared memory.
#pragma once

namespace tessera::gemm_sm90 {

// The buffer's shape (scripts/device/trace_gemm.cu reads it with the same constants).
inline constexpr int kTraceBlocks = 160, kTraceUnits = 8, kTraceEvents = 16;

#if defined(TESSERA_GEMM_TRACE) && defined(__CUDACC__)
static __device__ unsigned long long g_gemm_trace[kTraceBlocks * 3 * kTraceUnits * kTraceEvents];
__device__ __forceinline__ unsigned long long trace_clock() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}
__device__ __forceinline__ unsigned long long trace_globaltimer() {  // ns, comparable across SMs
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
  return t;
}
__device__ __forceinline__ void trace_put(int wg, int unit, int ev, unsigned long long v) {
  // (the block's linear index over x and z: the non-persistent kernel's K splits are blockIdx.z)
  const unsigned b = blockIdx.x + gridDim.x * blockIdx.z;
  if (unit < kTraceUnits && b < kTraceBlocks) g_gemm_trace[((b * 3 + wg) * kTraceUnits + unit) * kTraceEvents + ev] = v;
}
#define TTRACE(wg, unit, ev, v) trace_put(wg, unit, ev, v)
#define TCLK() trace_clock()
#define TGLOBAL() trace_globaltimer()
#else
#define TTRACE(wg, unit, ev, v) ((void)0)
#define TCLK() 0ull
#define TGLOBAL() 0ull
#endif

}  // namespace tessera::gemm_sm90

// TESSERA_GEMM_TRACE_ACCESS(suffix), once in an instantiation unit, defines the unit's
// tessera_gemm_trace_dump<suffix> and tessera_gemm_trace_clear<suffix>, which scripts/device/trace_gemm.cu calls.
#if defined(TESSERA_GEMM_TRACE)
#define TESSERA_GEMM_TRACE_ACCESS(suffix)                                                                          \
  extern "C" int tessera_gemm_trace_dump##suffix(unsigned long long* host, size_t count) {                         \
    return static_cast<int>(cudaMemcpyFromSymbol(host, tessera::gemm_sm90::g_gemm_trace, count * sizeof(unsigned long long))); \
  }                                                                                                                \
  extern "C" int tessera_gemm_trace_clear##suffix() {                                                              \
    namespace g = tessera::gemm_sm90; /* the size spelled out: the host pass cannot take sizeof of the symbol */   \
    static unsigned long long zero[g::kTraceBlocks * 3 * g::kTraceUnits * g::kTraceEvents] = {};                    \
    return static_cast<int>(cudaMemcpyToSymbol(tessera::gemm_sm90::g_gemm_trace, zero, sizeof(zero)));             \
  }
#else
#define TESSERA_GEMM_TRACE_ACCESS(suffix)
#endif
