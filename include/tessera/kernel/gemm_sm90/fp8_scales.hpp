// include/tessera/kernel/gemm_sm90/fp8_scales.hpp -- the FP8 scales on a consumer's accumulator fragment (both Hopper
// kernels): the per-tensor product, read before the main loop and applied after it, and a scale per row of the
// kernel's A (Params::scale_a_rows) and per column of its B (Params::scale_b_cols) where those are set, each element
// at the (row, column) the wgmma atom's C layout gives it (the non-persistent kernel after the main loop, the
// persistent one per epilogue chunk), and block scales (Params::scale_a_blocks / scale_b_blocks) on each K tile's
// promoted sum (both kernels' promoted loops).
#pragma once

#include "tessera/kernel/epilogue/fragment_epilogue.hpp"  // frag_detail::static_for
#include "tessera/kernel/gemm/types.hpp"                  // kGemmScaleBlock
#include "tessera/kernel/gemm_sm80/config.hpp"            // Params

namespace tessera::gemm_sm90 {

// The per-tensor part of the scales (the channel ones count 1 here): read before the main loop, so that the loads'
// latency hides behind it.
__device__ __forceinline__ float fp8_tensor_scale(const gemm_sm80::Params& p) {
  return (p.scale_a && !p.scale_a_rows && !p.scale_a_blocks ? __ldg(p.scale_a) : 1.f) *
         (p.scale_b && !p.scale_b_cols && !p.scale_b_blocks ? __ldg(p.scale_b) : 1.f);
}

// Block scales (GemmScale::block): the scale of row `row` of the kernel's A in K block kb (1 for an A without block
// scales; 0 past the problem's rows, which are never stored), and of the 128 x 128 block (kb, jb) of its B.
__device__ __forceinline__ float fp8_block_scale_a(const gemm_sm80::Params& p, int kb, int row) {
  if (!p.scale_a_blocks) return 1.f;
  return row < p.m ? __ldg(p.scale_a + static_cast<size_t>(kb) * static_cast<size_t>(p.m) + static_cast<size_t>(row)) : 0.f;
}
__device__ __forceinline__ float fp8_block_scale_b(const gemm_sm80::Params& p, int kb, int jb) {
  if (!p.scale_b_blocks) return 1.f;
  const int nb = (p.n + 127) / 128;
  return jb < nb ? __ldg(p.scale_b + static_cast<size_t>(kb) * static_cast<size_t>(nb) + static_cast<size_t>(jb)) : 0.f;
}

// A K tile's promoted sum `part` (an Atom fragment) into acc[kFirst ..]: acc += part x f, f the factor of the value's
// row -- f_lo for the thread's first row, f_hi for the row 8 below it (the atom's C layout: a thread's values lie on
// two rows) -- a fused multiply-add, which with f = 1 (no block scales) gives acc + part exactly.
template <class Atom, int kFirst = 0, int kAcc>
__device__ __forceinline__ void fp8_promote(float (&acc)[kAcc], const float (&part)[Atom::kValuesC], float f_lo, float f_hi) {
  epilogue::frag_detail::static_for<Atom::kValuesC>([&](auto ii) {
    constexpr int i = decltype(ii)::value;
    constexpr auto cv = Atom::template c_value<i>();
    static_assert(cv.row == 0 || cv.row == 8, "fp8_promote: a thread's values lie on its row and the row 8 below");
    acc[kFirst + i] = fmaf(part[i], cv.row == 0 ? f_lo : f_hi, acc[kFirst + i]);
  });
}

// The channel scales (Params::scale_a_rows, scale_b_cols; nothing without them) on values kFirst .. kFirst + kCount - 1
// of `thread`'s Atom fragment (0..127 of its warpgroup) for the kernel's rows m0.. and columns n0..: each value times
// its row's and its column's scale.  Rows and columns past the problem's m, n take 0 (they are never stored).  The
// persistent kernel calls it per epilogue chunk of 64 values (on the whole fragment after the main loop, its consumers
// spilled 2,340 bytes).
// A thread's values of a chunk lie on two rows (its row and the row 8 below) and kCount / 2 columns, value i on column
// slot (i / 4) * 2 + i % 2 (the atom's C layout, checked below): the two row scales and the column scales are all
// loaded first, into registers, and only then multiplied in.  (Loaded where each value used them, the loads ran one
// after the other, each waiting for L2: INT8 with channel scales at 0.53-0.84x cuBLASLt's INT8, against 0.92-1.07 with
// per-tensor ones, H200, 58db4a2.)
template <class Atom, int kFirst = 0, int kCount = Atom::kValuesC>
__device__ __forceinline__ void fp8_channel_scale(float (&acc)[Atom::kValuesC], const gemm_sm80::Params& p, int m0, int n0,
                                                  int thread) {
  if (!p.scale_a_rows && !p.scale_b_cols) return;
  static_assert(kFirst % 4 == 0 && kCount % 4 == 0, "fp8_channel_scale: whole groups of four values (two columns, two rows)");
  const auto ct = Atom::c_thread(thread);
  const int r0 = m0 + ct.row, c0 = n0 + ct.col;
  float fa[2] = {1.f, 1.f};
  float fb[kCount / 2];
  if (p.scale_a_rows) {
    fa[0] = r0 < p.m ? __ldg(p.scale_a + r0) : 0.f;
    fa[1] = r0 + 8 < p.m ? __ldg(p.scale_a + r0 + 8) : 0.f;
  }
  epilogue::frag_detail::static_for<kCount / 2>([&](auto jj) {
    constexpr int j = decltype(jj)::value;
    constexpr auto cv = Atom::template c_value<kFirst + (j / 2) * 4 + j % 2>();
    const int c = c0 + cv.col;
    fb[j] = !p.scale_b_cols ? 1.f : c < p.n ? __ldg(p.scale_b + c) : 0.f;
  });
  epilogue::frag_detail::static_for<kCount>([&](auto ii) {
    constexpr int i = kFirst + decltype(ii)::value;
    constexpr int k = decltype(ii)::value;
    constexpr auto cv = Atom::template c_value<i>();
    constexpr auto cj = Atom::template c_value<kFirst + (k / 4) * 4 + k % 2>();
    static_assert((cv.row == 0 || cv.row == 8) && cv.col == cj.col,
                  "fp8_channel_scale: value i lies on row 0 or 8 and on the column of slot (i / 4) * 2 + i % 2");
    acc[i] *= fa[cv.row == 8 ? 1 : 0] * fb[(k / 4) * 2 + k % 2];
  });
}

}  // namespace tessera::gemm_sm90
