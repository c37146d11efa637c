// include/tessera/kernel/gemm_sm90/pair_sums.hpp -- the sums of a cluster pair, the non-persistent Hopper kernel's two
// K splits of a tile (gemm_kernel.hpp), brought together.
//   push_quads / add_quads: a consumer thread's sums sent from registers to the other block and added there -- pushed
//     (split 1's whole tile into split 0) or scattered (each block the other's half).  Quad q of a thread's sums,
//     acc[4q .. 4q + 3], travels to the slot at byte 16 (q 128 + t) of its consumer warpgroup's receiving buffer, t the
//     thread's index in the warpgroup: the peer's thread at the same place of the accumulator fragment reads it back
//     as its own quad q.
//   add_peer_lines: the exchanging pair (the wider tiles' fused menus) -- each block's staged tile plus the peer's,
//     read through distributed shared memory, over the lines it stores.
#pragma once

#include <cstdint>  // uint32_t

#include "tessera/arch/sm90_cluster.hpp"  // st_async_cluster_f32x4, ld_shared_cluster_f32x4

namespace tessera::gemm_sm90 {

#if defined(__CUDACC__)
// st.async of the quads q with sent(q) into block `rank`'s buffer, `buf` being this thread's first slot there (a
// shared::cta address of this block, mapped to the peer's), each completed on the peer's mbarrier at `bar`.
template <int kAcc, class Sent>
__device__ __forceinline__ void push_quads(const float (&acc)[kAcc], uint32_t buf, uint32_t bar, uint32_t rank, Sent sent) {
#pragma unroll
  for (int q = 0; q < kAcc / 4; ++q)
    if (sent(q))
      arch::st_async_cluster_f32x4(buf + 16u * 128u * static_cast<uint32_t>(q), bar, rank,
                                   make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]));
}

// acc += the quads q with received(q) from this block's buffer, `buf` being this thread's first slot (their bytes
// complete on the receiving mbarrier, which the caller has waited for).
template <int kAcc, class Received>
__device__ __forceinline__ void add_quads(float (&acc)[kAcc], const unsigned char* buf, Received received) {
#pragma unroll
  for (int q = 0; q < kAcc / 4; ++q)
    if (received(q)) {
      const float4 v = *reinterpret_cast<const float4*>(buf + 16 * 128 * q);
      acc[4 * q] += v.x;
      acc[4 * q + 1] += v.y;
      acc[4 * q + 2] += v.z;
      acc[4 * q + 3] += v.w;
    }
}

// The staged tile's lines [line0, line1) (rows of a row-major D, columns of a column-major one) plus the peer block's
// same lines, read through distributed shared memory after a cluster barrier (split 0's partial first: the same sum in
// both blocks, and in every run); Epi: the kernel's StagedEpilogue.  One quad's peer load at a time: the exchange is
// bound by distributed shared memory's rate (about 14 bytes a cycle for the pair, H200), and more loads in flight made
// it slower -- 1,360 cycles for a 128 x 64 tile's half one at a time, 1,560 / 1,600 / 1,770 with 2 / 4 / 8 of a
// thread's quads' loads issued together (scripts/device/dsmem_reduce_probe.cu; docs/PERF.md, fifty-second section).
template <class Epi, int kThreads>
__device__ __forceinline__ void add_peer_lines(float* stage, bool rm, int split, int line0, int line1) {
  const int quads = (rm ? Epi::kTileN : Epi::kTileM) / 4;
  const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(stage));
  const int stride = rm ? Epi::kRowStride : Epi::kColStride;
  for (int q = line0 * quads + static_cast<int>(threadIdx.x); q < line1 * quads; q += kThreads) {
    const int off = (q / quads) * stride + 4 * (q % quads);
    float4* own = reinterpret_cast<float4*>(stage + off);
    const float4 mine = *own;
    const float4 peer = arch::ld_shared_cluster_f32x4(base + 4u * static_cast<uint32_t>(off), static_cast<uint32_t>(1 - split));
    const float4 a = split == 0 ? mine : peer, b = split == 0 ? peer : mine;
    *own = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
  }
}
#endif  // __CUDACC__

}  // namespace tessera::gemm_sm90
