// include/tessera/kernel/gemm_sm90/fp8_scales.hpp -- the FP8 scales on a consumer's accumulator fragment (both Hopper
// kernels): the per-tensor product, read before the main loop and applied after it, and a scale per row of the
// kernel's A (Params::scale_a_rows) and per column of its B (Params::scale_b_cols) where those are set, each element
// at the (row, column) the wgmma atom's C layout gives it (the non-persistent kernel after the main loop, the
// persistent one per epilogue chunk).
#pragma once

#include "tessera/kernel/epilogue/fragment_epilogue.hpp"  // frag_detail::static_for
#include "tessera/kernel/gemm_sm80/config.hpp"            // Params

namespace tessera::gemm_sm90 {

// The per-tensor part of the scales (the channel ones count 1 here): read before the main loop, so that the loads'
// latency hides behind it.
__device__ __forceinline__ float fp8_tensor_scale(const gemm_sm80::Params& p) {
  return (p.scale_a && !p.scale_a_rows ? __ldg(p.scale_a) : 1.f) * (p.scale_b && !p.scale_b_cols ? __ldg(p.scale_b) : 1.f);
}

// The channel scales (Params::scale_a_rows, scale_b_cols; nothing without them) on values kFirst .. kFirst + kCount - 1
// of `thread`'s Atom fragment (0..127 of its warpgroup) for the kernel's rows m0.. and columns n0..: each value times
// its row's and its column's scale.  Rows and columns past the problem's m, n take 0 (they are never stored).  The
// persistent kernel calls it per epilogue chunk of 64 values (on the whole fragment after the main loop, its consumers
// spilled 2,340 bytes).
template <class Atom, int kFirst = 0, int kCount = Atom::kValuesC>
__device__ __forceinline__ void fp8_channel_scale(float (&acc)[Atom::kValuesC], const gemm_sm80::Params& p, int m0, int n0,
                                                  int thread) {
  if (!p.scale_a_rows && !p.scale_b_cols) return;
  const auto ct = Atom::c_thread(thread);
  epilogue::frag_detail::static_for<kCount>([&](auto ii) {
    constexpr int i = kFirst + decltype(ii)::value;
    constexpr auto cv = Atom::template c_value<i>();
    const int r = m0 + ct.row + cv.row, c = n0 + ct.col + cv.col;
    float f = 1.f;
    if (p.scale_a_rows) f *= r < p.m ? __ldg(p.scale_a + r) : 0.f;
    if (p.scale_b_cols) f *= c < p.n ? __ldg(p.scale_b + c) : 0.f;
    acc[i] *= f;
  });
}

}  // namespace tessera::gemm_sm90
