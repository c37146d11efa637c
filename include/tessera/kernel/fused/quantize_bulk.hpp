// include/tessera/kernel/fused/quantize_bulk.hpp -- the quantisation rows kernel with its rows staged in shared memory
// by bulk copies (sm_90): the row, block_1x128, given and amax passes of quantize.hpp, same arithmetic, same bytes.
//
// Why: the register-resident rows kernel (quantize_rows_kernel) issues a segment's loads, then reduces, converts and
// stores with nothing of its own in flight; the SM's bytes in flight are those of the CTAs resident beside it, so any
// arithmetic between a CTA's last load and its stores (block_1x128's shuffles and divisions, s8's conversion) lowers
// the bandwidth (0.85-0.90 of the copy where the row mode reaches 0.92-0.98).  Here a CTA holds a ring of row slots
// in shared memory: one thread keeps every slot but the one being worked on filled by `cp.async.bulk` (one bulk copy
// per row, completing on the slot's mbarrier), so (slots - 1) rows per CTA stay in flight through the arithmetic.
//
// quantize_bulk_kernel<T, Q, kPass>  kBulkThreads threads; CTAs stride over the rows (p.segments == rows; p.reverse
//   walks them from the last).  Dynamic shared memory: the slots' mbarriers (kBulkBarrierBytes), then p.bulk_slots
//   slots of p.bulk_slot_stride bytes.  Requires (the host checks, src/quantize.cu): sm_90; every row start 16-byte
//   aligned and cols * sizeof(T) a multiple of 16 (so a row is whole vectors, head == 0, one bulk copy of
//   cols * sizeof(T) bytes).  Thread t works on the row's vectors t, t + kBulkThreads, ...:
//     row          amax over the row (warps, then the CTA), one scale, quantise
//     block_1x128  vector v lies in block v / (128 / kVec): 16 lanes (fp32: 32) of a warp hold one block's vectors
//                  in each iteration, reduce with shuffles and compute its scale (every lane the same division)
//     given        the factor known; this thread's amax per row for s8's in-range test and, when asked for, the
//                  tensor's amax (tensor_amax_epilogue)
//     amax         tensor pass 1: the tensor's amax and scale, nothing else stored
#pragma once

#include <cstdint>  // int64_t, uint32_t, uint64_t

#include "tessera/kernel/fused/quantize.hpp"  // QuantizeParams, RowPass, AbsMax, quantize_store, quant_scale, ...

namespace tessera::fused::kernel {
inline constexpr int kBulkThreads = 512;
inline constexpr int kBulkMaxSlots = 16;
inline constexpr int kBulkBarrierBytes = kBulkMaxSlots * 8;  // the slots' mbarriers, ahead of the slots (128-aligned)
}  // namespace tessera::fused::kernel

#if defined(__CUDACC__)
#include "tessera/arch/config.hpp"        // TESSERA_ARCH_SM90
#include "tessera/arch/sm90_mbarrier.hpp"  // mbarrier_init, mbarrier_arrive_expect_tx, mbarrier_wait_parity
#include "tessera/arch/sm90_tma.hpp"       // bulk_load

namespace tessera::fused::kernel {

template <class T, Dtype Q, RowPass kPass>
__global__ void __launch_bounds__(kBulkThreads) quantize_bulk_kernel(const QuantizeParams<T> p) {
#if defined(TESSERA_ARCH_SM90)
  using Num = Numeric<T>;
  constexpr int kVec = Num::kVec;
  constexpr int kWarps = kBulkThreads / kWarpSize;
  constexpr int kBlockLanes = 128 / kVec;  // lanes that hold one 1x128 block (one vector each)
  static_assert(kBulkThreads % kBlockLanes == 0 && kWarpSize % kBlockLanes == 0,
                "quantize_bulk_kernel: a 1x128 block is a power-of-two group of lanes within a warp");
  extern __shared__ __align__(128) unsigned char bulk_smem[];
  uint64_t* full = reinterpret_cast<uint64_t*>(bulk_smem);  // (SLOTS) one mbarrier per slot
  unsigned char* slots = bulk_smem + kBulkBarrierBytes;     // (SLOTS, stride)
  __shared__ uint32_t s_warp_max[kWarps];                   // (WARPS)

  const int nslots = p.bulk_slots;
  const int64_t stride = p.bulk_slot_stride;
  const uint32_t row_bytes = static_cast<uint32_t>(p.cols) * sizeof(T);
  const int nvec = p.cols / kVec;
  auto row_of = [&](int64_t it) { return p.reverse ? p.segments - 1 - it : it; };
  auto fill = [&](int slot, int64_t it) {  // thread 0: row `it` of this CTA's walk into `slot`
    arch::mbarrier_arrive_expect_tx(&full[slot], row_bytes);
    arch::bulk_load(slots + slot * stride, p.x + row_of(it) * p.ld_x, row_bytes, &full[slot]);
  };
  if (threadIdx.x == 0) {
    for (int s = 0; s < nslots; ++s) arch::mbarrier_init(&full[s], 1);
    arch::fence_mbarrier_init();
    for (int s = 0; s < nslots; ++s) {
      const int64_t it = blockIdx.x + int64_t(s) * gridDim.x;
      if (it < p.segments) fill(s, it);
    }
  }
  __syncthreads();

  float given_inv = 1.0f;
  if constexpr (kPass == RowPass::given)
    given_inv = p.inv_from_ws ? quant_scale(__uint_as_float(p.ws[2]), QuantOut<Q>::kMax).inv : quant_div(1.0f, p.scale[0]);
  AbsMax<T> m_all;  // given / amax passes: |x| over every row this thread reads

  int slot = 0;
  uint32_t phase = 0;
  for (int64_t it = blockIdx.x; it < p.segments; it += gridDim.x) {
    const int64_t row = row_of(it);
    arch::mbarrier_wait_parity(&full[slot], phase);
    const uint32_t* sx = reinterpret_cast<const uint32_t*>(slots + slot * stride);  // (nvec, 4 words)
    const RowView<T> gX(p.x + row * p.ld_x, p.cols);  // (head 0: first_elem / full / cols for the stores)
    uint8_t* gQ = p.q + row * p.ld_q;
    const bool q_vec_ok = reinterpret_cast<uintptr_t>(gQ) % kVec == 0;
    auto vec_at = [&](int v, uint32_t (&r)[4]) {
      const uint4 w = reinterpret_cast<const uint4*>(sx)[v];
      r[0] = w.x;
      r[1] = w.y;
      r[2] = w.z;
      r[3] = w.w;
    };

    if constexpr (kPass == RowPass::block_1x128) {
      // Iterations over whole warps' worth of vectors, so that every lane of a block's group takes part in its
      // shuffles (lanes past the row end hold zeros and store nothing).
      for (int v0 = static_cast<int>(threadIdx.x) - static_cast<int>(threadIdx.x) % kWarpSize; v0 < nvec; v0 += kBulkThreads) {
        const int v = v0 + static_cast<int>(threadIdx.x) % kWarpSize;
        uint32_t r[4] = {0u, 0u, 0u, 0u};
        if (v < nvec) vec_at(v, r);
        AbsMax<T> m;
        m.add(r);
        const uint32_t bits = lane_group_max<kBlockLanes>(m.float_bits());
        const float amax = __uint_as_float(bits);
        const ScaleInv si = quant_scale(amax, QuantOut<Q>::kMax);
        if (v < nvec) {
          if (v % kBlockLanes == 0) {
            const int64_t s = int64_t(v / kBlockLanes) * p.ld_scale + row;
            p.scale[s] = si.scale;
            if (p.amax) p.amax[s] = amax;
          }
          quantize_store<T, Q>(gX, v, r, si.inv, gQ, q_vec_ok, quant_s8_group_in_range(amax, si.inv));
        }
      }
    } else {
      // This thread's amax over its vectors of the row.
      AbsMax<T> m;
      for (int v = threadIdx.x; v < nvec; v += kBulkThreads) {
        uint32_t r[4];
        vec_at(v, r);
        m.add(r);
      }
      float inv = given_inv;
      float group_amax = __uint_as_float(m.float_bits());  // (s8's in-range test: this thread's vectors)
      if constexpr (kPass == RowPass::row) {
        const uint32_t bits = cta_max<kWarps>(warp_max(m.float_bits()), s_warp_max);
        group_amax = __uint_as_float(bits);
        const ScaleInv si = quant_scale(group_amax, QuantOut<Q>::kMax);
        inv = si.inv;
        if (threadIdx.x == 0) {
          p.scale[row] = si.scale;
          if (p.amax) p.amax[row] = group_amax;
        }
      } else {
        m_all.merge(m);
      }
      if constexpr (kPass != RowPass::amax) {
        const bool in_range = Q == Dtype::s8 && quant_s8_group_in_range(group_amax, inv);
        for (int v = threadIdx.x; v < nvec; v += kBulkThreads) {
          uint32_t r[4];
          vec_at(v, r);
          quantize_store<T, Q>(gX, v, r, inv, gQ, q_vec_ok, in_range);
        }
      }
    }

    // Every thread is done with the slot (and with s_warp_max): refill it with the row nslots rows further on.
    __syncthreads();
    if (threadIdx.x == 0) {
      const int64_t next = it + int64_t(nslots) * gridDim.x;
      if (next < p.segments) fill(slot, next);
    }
    if (++slot == nslots) {
      slot = 0;
      phase ^= 1u;
    }
  }

  // The tensor's amax (tensor pass 1 always; tensor_given when asked for): once per CTA.
  if constexpr (kPass == RowPass::amax || kPass == RowPass::given) {
    if (kPass == RowPass::amax || (p.amax && !p.inv_from_ws)) {
      const uint32_t cta_bits = cta_max<kWarps>(warp_max(m_all.float_bits()), s_warp_max);
      tensor_amax_epilogue<Q, kPass == RowPass::amax>(p, cta_bits);
    }
  }
#else
  (void)p;
  __trap();  // no sm_90 code in this build: the host does not launch it (bulk_rows_available)
#endif
}

}  // namespace tessera::fused::kernel

#endif  // __CUDACC__
