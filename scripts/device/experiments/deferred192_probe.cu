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
// Found (CUDA 13.0, 2026-11-28): kernel k, both forms: 220 registers, 0 bytes of spills, no C75xx, the K tile's HGMMA
// pipelined (one gsb0 of four; WARPGROUP.DEPBAR twice: the loop's wait for one group and the drain's).  Kernel kr (the
// persistent frame below): 0 spills, no C75xx, no LDL / STL, the same HGMMA pattern, and at most 216 registers live
// in the consumers' code (`nvdisasm -plr -lrm count`), 16 under their 232: what the real kernel's scheduler, bias
// staging and residual protocol may add.
#include <cstdint>
#include <type_traits>  // std::integral_constant

#include "tessera/arch/sm90_mbarrier.hpp"
#include "tessera/arch/sm90_stmatrix.hpp"
#include "tessera/arch/sm90_warpgroup.hpp"
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
// f(std::integral_constant<int, g>) for a run-time g in 0 .. 11 (the group's registers are compile-time indices).
template <class F>
__device__ __forceinline__ void at_group(int g, F&& f) {
  switch (g) {
    case 0: f(std::integral_constant<int, 0>{}); break;
    case 1: f(std::integral_constant<int, 1>{}); break;
    case 2: f(std::integral_constant<int, 2>{}); break;
    case 3: f(std::integral_constant<int, 3>{}); break;
    case 4: f(std::integral_constant<int, 4>{}); break;
    case 5: f(std::integral_constant<int, 5>{}); break;
    case 6: f(std::integral_constant<int, 6>{}); break;
    case 7: f(std::integral_constant<int, 7>{}); break;
    case 8: f(std::integral_constant<int, 8>{}); break;
    case 9: f(std::integral_constant<int, 9>{}); break;
    case 10: f(std::integral_constant<int, 10>{}); break;
    default: f(std::integral_constant<int, 11>{}); break;
  }
}
__device__ __forceinline__ void step_at(int g, float (&x)[96], uint32_t* out, int unit) {
  at_group(g, [&](auto gc) { step<decltype(gc)::value>(x, out, unit); });
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

// The same form inside the persistent kernel's frame (kernel `kr`): 384 threads, setmaxnreg 40 / 232, a ring of four
// 40 KB stages with full and empty mbarriers (the producer only arrives: no TMA, compile-only), the wgmma descriptors
// from the ring's shared address, the bias read from shared memory after the drain, and a slot staged with stmatrix into
// its own 8 KB buffer, a proxy fence and a named-barrier handoff (free / staged) as the store warps would see it.
namespace {
constexpr int kStages = 4, kStageBytes = (128 + 192) * 64 * 2;
struct Shared {
  alignas(1024) unsigned char ring[kStages][kStageBytes];
  alignas(1024) unsigned char buf[2][3][8192];  // consumer c, slot j
  uint16_t bias[2][192];
  uint64_t full[kStages], empty[kStages];
};
template <int kG>
__device__ __forceinline__ void step_real(float (&x)[96], Shared& sh, int c, int thread) {
#pragma unroll
  for (int i = 8 * kG; i < 8 * kG + 8; ++i) x[i] = ew::op::GeluTanhHw::apply(x[i]);
  if constexpr (kG % 4 == 3) {
    constexpr int kSlot = kG / 4;
    arch::named_barrier_sync(2 + 3 * c + kSlot, 160);  // free: the store warp has read the previous unit's slot
    unsigned char* row = sh.buf[c][kSlot] + (thread % 64) * 128;
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const uint32_t r[4] = {pack_bf16(x[32 * kSlot + 8 * q], x[32 * kSlot + 8 * q + 1]),
                             pack_bf16(x[32 * kSlot + 8 * q + 2], x[32 * kSlot + 8 * q + 3]),
                             pack_bf16(x[32 * kSlot + 8 * q + 4], x[32 * kSlot + 8 * q + 5]),
                             pack_bf16(x[32 * kSlot + 8 * q + 6], x[32 * kSlot + 8 * q + 7])};
      arch::stmatrix_x4(row + ((q * 16 + 16 * (thread / 64)) ^ ((thread % 8) * 16)), r);
    }
    arch::fence_proxy_async_shared_cta();
    arch::named_barrier_arrive(8 + 3 * c + kSlot, 160);  // staged
  }
}
__device__ __forceinline__ void step_real_at(int g, float (&x)[96], Shared& sh, int c, int thread) {
  at_group(g, [&](auto gc) { step_real<decltype(gc)::value>(x, sh, c, thread); });
}
}  // namespace

extern "C" __global__ void __launch_bounds__(384, 1) kr(int units, int k_tiles, float alpha) {
  extern __shared__ __align__(1024) unsigned char raw[];
  Shared& sh = *reinterpret_cast<Shared*>(raw);
  const int wg = static_cast<int>(threadIdx.x) / 128;
  if (threadIdx.x == 0)
    for (int s = 0; s < kStages; ++s) {
      arch::mbarrier_init(&sh.full[s], 1);
      arch::mbarrier_init(&sh.empty[s], 2);
    }
  __syncthreads();
  if (wg == 0) {
    arch::setmaxnreg_dec<40>();
    if (threadIdx.x == 0) {  // the producer: a stage is "full" once free (no TMA here)
      int s = 0;
      uint32_t ph = 0;
      for (int t = 0; t < units * k_tiles; ++t) {
        arch::mbarrier_wait_parity(&sh.empty[s], ph ^ 1u);
        (void)arch::mbarrier_arrive(&sh.full[s]);
        if (++s == kStages) { s = 0; ph ^= 1u; }
      }
    }
    return;
  }
  arch::setmaxnreg_inc<232>();
  const int c = wg - 1, thread = static_cast<int>(threadIdx.x) % 128;
  const uint32_t ring16 = (static_cast<uint32_t>(__cvta_generic_to_shared(sh.ring)) / 16) & 0x3FFFu;
  float acc[96];
#pragma unroll
  for (int i = 0; i < 96; ++i) acc[i] = 0.f;
  float x[96];
  bool pending = false;
  int s = 0;
  uint32_t phase = 0;
  for (int u = 0; u < units; ++u) {
    for (int kt = 0; kt < k_tiles; ++kt) {
      arch::mbarrier_wait_parity(&sh.full[s], phase);
      const uint32_t st16 = ring16 + static_cast<uint32_t>(s) * (kStageBytes / 16);
      arch::wgmma_fence_operands(acc);
      arch::wgmma_fence();
#pragma unroll
      for (int ks = 0; ks < 4; ++ks) {
        const uint64_t da = (1ull << 62) | (64ull << 32) | (1ull << 16) | (st16 + static_cast<uint32_t>(c * 512 + ks * 2));
        const uint64_t db = (1ull << 62) | (64ull << 32) | (1ull << 16) | (st16 + 1024u + static_cast<uint32_t>(ks * 2));
        arch::wgmma_m64n192k16<false>(acc, da, db, (kt | ks) != 0);
      }
      arch::wgmma_commit();
      if (pending && kt < 12) step_real_at(kt, x, sh, c, thread);
      arch::wgmma_wait<1>();
      arch::wgmma_fence_operands(acc);
      if (kt > 0 && thread % 32 == 0 && thread / 32 == 0) (void)arch::mbarrier_arrive(&sh.empty[(s + kStages - 1) % kStages]);
      if (++s == kStages) { s = 0; phase ^= 1u; }
    }
    if (pending)
      for (int g = k_tiles; g < 12; ++g) step_real_at(g, x, sh, c, thread);
    arch::wgmma_wait<0>();
    arch::wgmma_fence_operands(acc);
    if (thread == 0) (void)arch::mbarrier_arrive(&sh.empty[(s + kStages - 1) % kStages]);
    const int col = 2 * (thread % 4);
#pragma unroll
    for (int j = 0; j < 24; ++j) {  // the bias of columns 8 j + col, + 1 (the atom's quad layout)
      const uint32_t w = *reinterpret_cast<const uint32_t*>(&sh.bias[c][8 * j + col]);
      const float b0 = __uint_as_float(w << 16), b1 = __uint_as_float(w & 0xffff0000u);
      x[4 * j] = fmaf(acc[4 * j], alpha, b0);
      x[4 * j + 1] = fmaf(acc[4 * j + 1], alpha, b1);
      x[4 * j + 2] = fmaf(acc[4 * j + 2], alpha, b0);
      x[4 * j + 3] = fmaf(acc[4 * j + 3], alpha, b1);
    }
    pending = true;
  }
  for (int g = 0; g < 12; ++g) step_real_at(g, x, sh, c, thread);
}
