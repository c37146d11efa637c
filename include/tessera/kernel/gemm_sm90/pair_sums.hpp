// include/tessera/kernel/gemm_sm90/pair_sums.hpp -- the sums of a cluster pair, the non-persistent Hopper kernel's two
// K splits of a tile (gemm_kernel.hpp), brought together.
//   push_quads / add_quads: a consumer thread's sums sent from registers to the other block and added there -- pushed
//     (split 1's whole tile into split 0) or scattered (each block the other's half).  Quad q of a thread's sums,
//     acc[4q .. 4q + 3], travels to the slot at byte 16 (q 128 + t) of its consumer warpgroup's receiving buffer, t the
//     thread's index in the warpgroup: the peer's thread at the same place of the accumulator fragment reads it back
//     as its own quad q.
//   add_peer_lines: the exchanging pair (the wider tiles' fused menus) -- each block's staged tile plus the peer's,
//     read through distributed shared memory, over the lines it stores.
//   PairSums<K>: kernel K's (GemmSm90's) two kinds of pairs after the main loop built on those -- the pushed pair's
//     split 1 into split 0 (push), the scattered pair's halves (scatter), where the sums land (recv_base_at).
#pragma once

#include <cstdint>  // uint32_t

#include "tessera/arch/config.hpp"              // TESSERA_ARCH_SM90A
#include "tessera/arch/sm90_cluster.hpp"        // st_async_cluster_f32x4, ld_shared_cluster_f32x4, cluster_arrive
#include "tessera/arch/sm90_mbarrier.hpp"       // mbarrier_wait_parity
#include "tessera/kernel/gemm_sm80/config.hpp"  // Params
#include "tessera/kernel/gemm_sm90/trace.hpp"   // TTRACE, TCLK, TGLOBAL (the timeline probe)

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

// Kernel K's cluster pairs after its main loop (K: GemmSm90, whose kAcc, kBN, kStages, kTileBytesA, kRecvInRing and
// kRecvOffset say where a block's sums go).
template <class K>
struct PairSums {
#if defined(TESSERA_ARCH_SM90A)
  // Where consumer warpgroup w's (1 or 2) sums land in a block of the pair that receives them and runs nk_recv K tiles
  // (byte offset from smem; quad q of thread t at + 16 (q 128 + t)): the 128 x 16 tile's buffer, or the A slot of that
  // block's stage of K tile nk_recv - kStages (w 1) or nk_recv - kStages + 1 (w 2).  The pushed pair: split 0, of
  // nk_first K tiles; the scattered pair: both blocks, each in its own ring.
  __device__ __forceinline__ static int recv_base_at(int nk_recv, int w) {
    if constexpr (K::kRecvInRing) return ((nk_recv + (w - 1)) % K::kStages) * K::kTileBytesA;
    else return K::kRecvOffset + (w - 1) * (K::kAcc / 4) * 128 * 16;
  }

  // The pushed pair (kPushPair), after the main loop: split 1 stores its sums into split 0's receiving slots (each
  // consumer thread its quads at its own place) and leaves once split 0 has them (returns true); split 0 adds them
  // (split 0's partial first, as the shared epilogue adds) and goes on as a one-split block (false).
  __device__ __forceinline__ static bool push(float (&acc)[K::kAcc], unsigned char* smem, uint64_t* recv, uint64_t* space,
                                              int split, int wg, int nk_first) {
    const int thread = static_cast<int>(threadIdx.x) % 128;
    const int rbase = wg > 0 ? recv_base_at(nk_first, wg) + 16 * thread : 0;
    if (split == 1) {
      if (wg > 0) {
        if constexpr (K::kRecvInRing) arch::mbarrier_wait_parity(space, 0u);  // split 0 is done with those stages
        push_quads(acc, static_cast<uint32_t>(__cvta_generic_to_shared(smem + rbase)),
                   static_cast<uint32_t>(__cvta_generic_to_shared(recv)), 0u, [](int) { return true; });
      }
      arch::cluster_arrive();  // the pair's second barrier: split 0 arrives once the sums are in
      arch::cluster_wait();
      if (threadIdx.x == 0) {
        TTRACE(0, 7, 5, TGLOBAL());
        TTRACE(0, 7, 4, TCLK());
      }
      return true;
    }
    if (wg > 0) {
      arch::mbarrier_wait_parity(recv, 0u);
      if (thread == 0) TTRACE(wg, 0, 9, TCLK());
      add_quads(acc, smem + rbase, [](int) { return true; });
    }
    arch::cluster_arrive();  // split 1 may leave (its wait); this block's own wait is at its end
    if constexpr (K::kRecvInRing) __syncthreads();  // every slot read before the epilogue writes the ring
    (void)space;
    return false;
  }

  // The scattered pair: whether quad q of a consumer thread's sums (acc[4q .. 4q + 3]: rows r and r + 8, columns 8q + 2
  // (lane % 4) and the next) lies in this block's half of the tile's lines (rows_mine: the thread's rows do, for a
  // row-major D; a column-major D's halves split each thread's quads).
  __device__ __forceinline__ static bool quad_mine(int q, bool rm, bool rows_mine, int split) {
    return rm ? rows_mine : (8 * q < K::kBN / 2) == (split == 0);
  }

  // The scattered pair, after the main loop (a block of nk K tiles): each consumer thread pushes its quads of the
  // peer's half into the peer's slots, once the peer's consumers have released those stages (kRecvInRing), and adds
  // the peer's sums of its quads of this block's half to its own (a + b = b + a: the same sum in either block's order,
  // and in every run); then the pair's second barrier's arrival, waited for at the block's end (a block leaves only
  // once the peer has all its sums).
  __device__ __forceinline__ static void scatter(float (&acc)[K::kAcc], const gemm_sm80::Params& p, unsigned char* smem,
                                                 uint64_t* recv, uint64_t* space, int split, int wg, int nk, bool rm,
                                                 bool rows_mine) {
    auto mine = [&](int q) { return quad_mine(q, rm, rows_mine, split); };
    if (wg > 0) {
      const int thread = static_cast<int>(threadIdx.x) % 128;
      if (!rm || !rows_mine) {
        if constexpr (K::kRecvInRing) arch::mbarrier_wait_parity(space, 0u);
        const int nk_peer = p.sched.k_per + (1 - split < p.sched.k_rem ? 1 : 0);
        push_quads(acc, static_cast<uint32_t>(__cvta_generic_to_shared(smem + recv_base_at(nk_peer, wg) + 16 * thread)),
                   static_cast<uint32_t>(__cvta_generic_to_shared(recv)), static_cast<uint32_t>(1 - split),
                   [&](int q) { return !mine(q); });
      }
      if (!rm || rows_mine) {
        arch::mbarrier_wait_parity(recv, 0u);
        add_quads(acc, smem + recv_base_at(nk, wg) + 16 * thread, mine);
      }
    }
    // (Relaxed: nothing of this block's memory is read by the peer.)
    arch::cluster_arrive_relaxed();
    if constexpr (K::kRecvInRing) __syncthreads();  // every slot read before the staging tile writes the ring
    (void)space;
  }
#endif  // TESSERA_ARCH_SM90A
};
#endif  // __CUDACC__

}  // namespace tessera::gemm_sm90
