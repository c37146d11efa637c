// scripts/device/experiments/deferred192_probe.cu -- a compile-only probe of the deferred epilogue that a 128 x 192
// persistent unit would allow (docs/PERF.md, twenty-ninth section): each consumer keeps its unit's 96 accumulators and
// the previous unit's 96 pre-activation values (x = alpha acc + bias, set after the drain by arithmetic), and at K tiles
// 0-11 of the next main loop puts 8 of them through gelu_tanh, packing and storing a slot of 32 values at K tiles 3, 7
// and 11, while that K tile's m64n192k16 wgmma are in flight.  What ptxas must accept: no spills, no C75xx (wgmma
// serialised or waited for), every HGMMA but the K tile's last without gsb0.  Needs the m64n192k16 wrapper of
// scripts/device/experiments/n192.patch:
//   git apply scripts/device/experiments/n192.patch
//   nvcc -std=c++20 -O3 -lineinfo -maxrregcount=232 [-DSLOW_COPY] -gencode=arch=compute_90a,code=sm_90a -I include \
//     -Xptxas -v -cubin -o /tmp/d.cubin scripts/device/experiments/deferred192_probe.cu 2>&1 | grep -E 'C75|spill|Used'
//   cuobjdump -sass /tmp/d.cubin | grep -E 'HGMMA|DEPBAR'      (a K tile's four HGMMA, only the last with gsb0)
// (-maxrregcount=232: the consumers' setmaxnreg budget in the persistent kernel; this probe has no producer.)
// SLOW_COPY: x as a plain copy of the accumulators (the twenty-third section's C7514) instead of alpha acc + bias.
// Found (CUDA 13.0, 2026-11-28): both forms 220 registers, 0 bytes of spills, no C75xx, the K tile's HGMMA pipelined
// (one gsb0 of four, WARPGROUP.DEPBAR twice: the loop's wait for one group and the drain's).  The persistent kernel's
// ring, barriers and bias staging come on top of those 220 (the 128 x 256 bare kernel's bookkeeping takes about 40).
#include <cstdint>

#include "tessera/arch/sm90_wgmma.hpp"
#include "tessera/kernel/fused/expr.hpp"

using namespace tessera;

namespace {
__device__ __forceinline__ uint32_t pack_bf16(float a, float b) {
  uint32_t r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(b), "f"(a));
  return r;
}
template <int kG>  // values 8 kG .. 8 kG + 7 through the activation; after every fourth group, slot kG / 4 leaves
__device__ __forceinline__ void step(float (&x)[96], uint32_t* out, int unit) {
#pragma unroll
  for (int i = 8 * kG; i < 8 * kG + 8; ++i) x[i] = ew::op::GeluTanhHw::apply(x[i]);
  if constexpr (kG % 4 == 3) {
    constexpr int kSlot = kG / 4;
    uint32_t* o = out + (static_cast<int64_t>(unit) * 3 + kSlot) * 16 * 384 + threadIdx.x;
#pragma unroll
    for (int w = 0; w < 16; ++w) o[w * 128] = pack_bf16(x[32 * kSlot + 2 * w], x[32 * kSlot + 2 * w + 1]);
  }
}
__device__ __forceinline__ void step_at(int g, float (&x)[96], uint32_t* out, int unit) {
  switch (g) {
    case 0: step<0>(x, out, unit); break;
    case 1: step<1>(x, out, unit); break;
    case 2: step<2>(x, out, unit); break;
    case 3: step<3>(x, out, unit); break;
    case 4: step<4>(x, out, unit); break;
    case 5: step<5>(x, out, unit); break;
    case 6: step<6>(x, out, unit); break;
    case 7: step<7>(x, out, unit); break;
    case 8: step<8>(x, out, unit); break;
    case 9: step<9>(x, out, unit); break;
    case 10: step<10>(x, out, unit); break;
    default: step<11>(x, out, unit); break;
  }
}
}  // namespace

extern "C" __global__ void __launch_bounds__(128, 1) k(uint64_t da, uint64_t db, int units, int k_tiles, const float* bias,
                                                        uint32_t* out, float alpha) {
  float acc[96];
#pragma unroll
  for (int i = 0; i < 96; ++i) acc[i] = 0.f;
  float x[96];
  bool pending = false;
  for (int u = 0; u < units; ++u) {
    for (int kt = 0; kt < k_tiles; ++kt) {
      arch::wgmma_fence_operands(acc);
      arch::wgmma_fence();
#pragma unroll
      for (int ks = 0; ks < 4; ++ks) arch::wgmma_m64n192k16<false>(acc, da + 2 * (kt * 4 + ks), db + 2 * (kt * 4 + ks), (kt | ks) != 0);
      arch::wgmma_commit();
      if (pending && kt < 12) step_at(kt, x, out, u - 1);
      arch::wgmma_wait<1>();
      arch::wgmma_fence_operands(acc);
    }
    if (pending)
      for (int g = k_tiles; g < 12; ++g) step_at(g, x, out, u - 1);
    arch::wgmma_wait<0>();
    arch::wgmma_fence_operands(acc);
#pragma unroll
    for (int i = 0; i < 96; ++i) {
#ifdef SLOW_COPY
      x[i] = acc[i];
#else
      x[i] = fmaf(acc[i], alpha, bias[(i / 4) * 8 + (i % 2)]);
#endif
    }
    pending = true;
  }
  for (int g = 0; g < 12; ++g) step_at(g, x, out, units - 1);
}
