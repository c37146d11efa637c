// scripts/device/experiments/wgmma_split_probe.cu -- a compile-only probe of how ptxas treats a split start (the
// bare cooperative kernel's idea, docs/PERF.md twenty-second section): one half of a 64 x 256 accumulator's wgmma in
// flight while the other half's previous values go through an activation and a pack.  Compiles in seconds, so that
// ptxas's rules can be tried one at a time:
//   nvcc -std=c++20 -O3 -DX=0 [-DPRECOPY] [-DWAITMID] [-DMAIN256] [-DNOMAIN] [-DNOMAINHI] \
//     -gencode=arch=compute_90a,code=sm_90a -I include -Xptxas -v -cubin -o /tmp/p.cubin \
//     scripts/device/experiments/wgmma_split_probe.cu 2>&1 | grep -E 'C75|Used'
//   cuobjdump -sass /tmp/p.cubin | grep -E 'HGMMA|DEPBAR|MUFU'      (serialised: every HGMMA carries gsb0)
// X: the half issued first (0: registers 0-63, 1: 64-127); PRECOPY: the other half times alpha computed before the
// first wgmma (without it ptxas injects a wait before the activation, C7517); WAITMID: wait for the first half's
// wgmma before the second's; MAIN256: the main loop as one m64n256 wgmma per K step instead of two m64n128 (then the
// split's m64n128 on the upper half serialises every wgmma, C7511); NOMAIN / NOMAINHI: no main loop / no upper half
// in it.  Findings (CUDA 13.0): with PRECOPY and two m64n128 per K step the overlap is clean; with MAIN256 it is not
// (the split start patch gives the upper half's wgmma an array of its own and moves it into place afterwards).
#include <cstdint>
#include "tessera/arch/sm90_wgmma.hpp"
using namespace tessera;
__device__ __forceinline__ float tanhx(float x) { float y; asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }
__device__ __forceinline__ uint32_t packbf(float a, float b) {
  uint32_t r; asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(b), "f"(a)); return r; }
// X: the half issued first in the split (0 lo, 1 hi); Y = 1 - X is packed meanwhile.
extern "C" __global__ void __launch_bounds__(384, 1) k(uint64_t da, uint64_t db, int n, uint32_t* out, float alpha) {
  float acc[2][64];
#pragma unroll
  for (int i = 0; i < 64; ++i) acc[0][i] = acc[1][i] = 0.f;
  uint32_t pk[64];
  for (int u = 0; u < n; ++u) {
    int kt0 = 0;
    if (u > 0) {
#ifdef PRECOPY
      float v[64];
#pragma unroll
      for (int i = 0; i < 64; ++i) v[i] = alpha * acc[1-X][i];
      arch::wgmma_fence_operands(v);
#define SRC(i) v[i]
#else
#define SRC(i) alpha * acc[1-X][i]
#endif
      arch::wgmma_fence_operands(acc[X]);
      arch::wgmma_fence();
      for (int ks = 0; ks < 4; ++ks) arch::wgmma_m64n128k16<false>(acc[X], da + ks, db + ks, ks != 0);
      arch::wgmma_commit();
#pragma unroll
      for (int k2 = 0; k2 < 32; ++k2) pk[32 + k2] = packbf(tanhx(SRC(2 * k2)), tanhx(SRC(1 + 2 * k2)));
#ifdef WAITMID
      arch::wgmma_wait<0>();
      arch::wgmma_fence_operands(acc[X]);
#endif
      arch::wgmma_fence_operands(acc[1-X]);
      arch::wgmma_fence();
      for (int ks = 0; ks < 4; ++ks) arch::wgmma_m64n128k16<false>(acc[1-X], da + ks, db + 100 + ks, ks != 0);
      arch::wgmma_commit();
      arch::wgmma_wait<0>();
      arch::wgmma_fence_operands(acc[0]);
      arch::wgmma_fence_operands(acc[1]);
      for (int j = 32; j < 64; ++j) out[j * 128 + threadIdx.x] = pk[j];
      kt0 = 1;
    }
#ifndef NOMAIN
    for (int kt = kt0; kt < n * 64; ++kt) {
      arch::wgmma_fence_operands(acc[0]);
      arch::wgmma_fence_operands(acc[1]);
      arch::wgmma_fence();
#ifdef MAIN256
      for (int ks = 0; ks < 4; ++ks) arch::wgmma_m64n256k16<false>(*reinterpret_cast<float(*)[128]>(&acc[0][0]), da + kt * 8 + ks, db + kt * 8 + ks, (kt | ks) != 0);
      if (0)
#endif
      for (int ks = 0; ks < 4; ++ks) {
        arch::wgmma_m64n128k16<false>(acc[0], da + kt * 8 + ks, db + kt * 8 + ks, (kt | ks) != 0);
#ifndef NOMAINHI
        arch::wgmma_m64n128k16<false>(acc[1], da + kt * 8 + ks, db + 100 + kt * 8 + ks, (kt | ks) != 0);
#endif
      }
      arch::wgmma_commit();
      arch::wgmma_wait<1>();
      arch::wgmma_fence_operands(acc[0]);
      arch::wgmma_fence_operands(acc[1]);
    }
#endif
    arch::wgmma_wait<0>();
    arch::wgmma_fence_operands(acc[0]);
    arch::wgmma_fence_operands(acc[1]);
#pragma unroll
    for (int k2 = 0; k2 < 32; ++k2) pk[k2] = packbf(tanhx(alpha * acc[X][2 * k2]), tanhx(alpha * acc[X][1 + 2 * k2]));
    for (int j = 0; j < 32; ++j) out[j * 128 + threadIdx.x] = pk[j];
  }
}
