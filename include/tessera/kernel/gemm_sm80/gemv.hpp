// include/tessera/kernel/gemm_sm80/gemv.hpp -- the GEMV kernels: D = A B for a small batch (B's columns; the registry
// builds a batch of 1) against large weights (A's rows), on CUDA cores, with the GEMM's fused epilogue.  Decode at batch
// 1 is a read of the weights: every byte of A is used for 2 flops, so what bounds it is how many bytes of A each SM keeps
// in flight.  (At a batch of 4 or 8 the FFMAs and B's conversions take about as much issue time as the read, and the
// two do not overlap well: measured on the H200, the tensor cores' decode tiles were faster at every shape of issue
// 11's grid, so those batches are not built; docs/PERF.md, forty-eighth session.)
//
// The problem as the kernels see it (after the decode orientation, src/gemm_plan.cu's normalise): A = the weights, m
// rows, K-major; B = the batch, n <= kBatch columns, K-major; both 16-byte aligned with rows of a multiple of 16 bytes.
// Element (i, j) of D is the dot product of A's row i with B's column j, both contiguous in K.
//
// Work: a group is kRows rows of A (4).  Two kernels: run_one, one block a group (block b, group b); run_dealt, block b
// of a grid of g takes groups b, b + g, b + 2g, ... (the host launches it one block a slot where the groups number at
// least four a slot, over a balanced grid with fewer and long rows: src/gemm_plan.cu), the same work and sums a group,
// described here in its form.  Each warp of a block's kWarps (8) takes a contiguous kWarps-th of K (in chunks of 8
// elements, 16 bytes), lane l chunks l, l + 32, ...  A's chunks reach shared memory by cp.async (L2 only), kStages (4)
// steps in flight per thread, each thread reading back only its own copies (so cp.async.wait_group alone orders them, no barrier), the ring running on from
// one group into the block's next; B's chunks are read through L1 (the batch is read by every block, and stays in L1 /
// L2).  Per step a lane multiplies its chunk of kRows rows with its chunk of the batch's columns into kRows x kBatch
// fp32 sums.  Then: each warp's lanes sum by a butterfly of shuffles, the warps' sums are added in warp order in shared
// memory (two buffers, by the group's parity: one barrier a group), and each of the group's kRows x n outputs gets the
// epilogue (alpha, beta C, bias, activation, residual, D's type), whose inputs its thread read before the group's
// steps, once the block's next group's first step is in flight (or at the block's end).  Every product is exact in
// fp32 (16-bit operands), every sum fp32 in an order fixed by the shapes alone: the same bits run to run, whatever the
// grid.
//
// Rows past m read row m - 1 (their sums are dropped); batch columns past n read column n - 1 (dropped); chunks past K
// are zero-filled (the last partial chunk of a K that is not a multiple of 8 reads only its valid bytes).
#pragma once

#include <cuda_runtime.h>  // __global__, __ldg

#include <cstdint>  // int64_t, uint16_t, uint32_t
#include <cstring>  // memcpy

#include "tessera/arch/ld_st.hpp"                      // ld_global_nc_u32_or_u16
#include "tessera/arch/sm80_cp_async.hpp"               // cp_async_cg_16_zfill, cp_async_commit, cp_async_wait
#include "tessera/kernel/epilogue/staged_epilogue.hpp"  // Elem, load_bias, activate_run
#include "tessera/kernel/gemm_sm80/config.hpp"          // Params
#include "tessera/kernel/numeric.hpp"                   // Numeric

namespace tessera::gemm_sm80 {

// kRowsT rows of A a block, kStagesT steps of A in flight a thread, kWarpsT warps a block (the ways K is split): the
// registry's kernels take the defaults; scripts/device/gemv_probe.cu times others.
template <class T, int kBatch, int kRowsT = 4, int kStagesT = 4, int kWarpsT = 8>
struct Gemv {
  static_assert(kBatch == 1 || kBatch == 4 || kBatch == 8, "gemv: built for batches of 1, 4 and 8 columns");
  static constexpr int kWarps = kWarpsT, kThreads = 32 * kWarps;
  static constexpr int kRows = kRowsT;      // rows of A a block computes
  static constexpr int kStages = kStagesT;  // A's steps in flight per thread (cp.async groups)
  static constexpr int kChunk = 8;     // elements of a 16-byte chunk
  static constexpr int kStepK = 32 * kChunk;  // K elements a warp covers in one step
  static constexpr int kRingBytes = kStages * kRows * kThreads * 16;
  static constexpr int kSmemBytes = kRingBytes + 2 * kWarps * kRows * kBatch * 4;  // + the warps' sums, two buffers
  // Blocks an SM holds: as many as 227 KB of shared memory and the registers allow (at most 64, 80 and 128 a thread for
  // the batches of 1, 4 and 8); the defaults: three rings of 64 KB, or two where the batch of 8 needs more registers.
  static constexpr int kRegs = kBatch == 8 ? 128 : kBatch == 4 ? 80 : 64;
  static constexpr int kMinBlocks = (227 * 1024 / kSmemBytes) < (65536 / (kThreads * kRegs)) ? 227 * 1024 / kSmemBytes
                                                                                               : 65536 / (kThreads * kRegs);
  static_assert(kMinBlocks >= 1, "gemv: a block's ring does not fit an SM");
  static_assert(kRows * kBatch <= 32, "gemv: a warp's lanes hold the block's outputs, one each");
  static_assert(epilogue::output_types_are(Dtype::bf16, Dtype::f16, Dtype::f32), "gemv: finish's cases are kOutputTypes");

#if defined(__CUDACC__)
  // The 16 bytes of chunk c of a K-contiguous row (elements [8c, 8c + 8)), zero past k; read through L1.
  __device__ __forceinline__ static uint4 load_chunk(const T* row, int c, int k) {
    const int e = c * kChunk;
    if (e + kChunk <= k) return __ldg(reinterpret_cast<const uint4*>(row + e));
    uint32_t w[4] = {0, 0, 0, 0};
    const uint16_t* h = reinterpret_cast<const uint16_t*>(row);
#pragma unroll
    for (int i = 0; i < kChunk; ++i)
      if (e + i < k) w[i / 2] |= static_cast<uint32_t>(h[e + i]) << (16 * (i % 2));
    return make_uint4(w[0], w[1], w[2], w[3]);
  }

  // The epilogue's inputs of one element of D, read before the main loop and converted after it (a conversion here would
  // wait for the load): the bits of C (when beta != 0), of the bias and of the residual, 4 bytes for fp32, else 2.
  struct Inputs {
    uint32_t c = 0, bias = 0, r = 0;
  };
  __device__ __forceinline__ static Inputs fetch(const epilogue::Params& e, int i, int j) {
    auto at = [i, j](bool row_major, int64_t ld) { return row_major ? i * ld + j : j * ld + i; };
    const bool d4 = e.d_type == Dtype::f32;  // C and the residual have D's type
    const int eb = d4 ? 4 : 2;
    Inputs in;
    if (e.beta != 0.f) arch::ld_global_nc_u32_or_u16(in.c, static_cast<const char*>(e.c) + at(e.c_row_major, e.ldc) * eb, d4);
    if (e.bias_along != epilogue::kBiasNone) {
      const int b = e.bias_along == epilogue::kBiasAlongM ? i : e.bias_along == epilogue::kBiasAlongN ? j : 0;
      arch::ld_global_nc_u32_or_u16(in.bias, static_cast<const char*>(e.bias) + static_cast<int64_t>(b) * (e.bias_f32 ? 4 : eb),
                                    e.bias_f32 || d4);
    }
    if (e.residual) arch::ld_global_nc_u32_or_u16(in.r, static_cast<const char*>(e.residual) + at(e.r_row_major, e.ldr) * eb, d4);
    return in;
  }
  // An input's bits as a float: fp32, or a 16-bit value of type O.
  template <class O>
  __device__ __forceinline__ static float from_bits(uint32_t bits) {
    if constexpr (sizeof(O) == 4) {
      return __uint_as_float(bits);
    } else {
      const uint16_t h = static_cast<uint16_t>(bits);
      O v;
      memcpy(&v, &h, sizeof v);
      return epilogue::Elem<O>::to_float(v);
    }
  }
  // D(i, j) from its dot product and its inputs: the epilogue's order of operations (staged_epilogue.hpp), one element.
  template <class O>
  __device__ __forceinline__ static void finish_as(float acc, const Inputs& in, const epilogue::Params& e, int i, int j) {
    float v = e.alpha * acc;
    if (e.beta != 0.f) v = fmaf(e.beta, from_bits<O>(in.c), v);
    if (e.bias_along != epilogue::kBiasNone) v += e.bias_f32 ? __uint_as_float(in.bias) : from_bits<O>(in.bias);
    float r[1] = {v};
    epilogue::activate_run<1>(r, e);
    v = r[0];
    if (e.residual) v += from_bits<O>(in.r);
    static_cast<O*>(e.d)[e.d_row_major ? i * e.ldd + j : j * e.ldd + i] = epilogue::Elem<O>::from_float(v);
  }
  __device__ __forceinline__ static void finish(float acc, const Inputs& in, const epilogue::Params& e, int i, int j) {
    switch (e.d_type) {
      case Dtype::bf16: finish_as<__nv_bfloat16>(acc, in, e, i, j); break;
      case Dtype::f16: finish_as<__half>(acc, in, e, i, j); break;
      default: finish_as<float>(acc, in, e, i, j); break;
    }
  }

  // One step of a lane: its chunk of each of the kRows rows (w) times its chunk of each of the batch's columns (x), into
  // acc, element pair by element pair.
  __device__ __forceinline__ static void multiply(float (&acc)[kRows][kBatch], const uint4 (&w)[kRows], const uint4 (&x)[kBatch]) {
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      float wf[kRows][2];
#pragma unroll
      for (int r = 0; r < kRows; ++r) Numeric<T>::unpack2((&w[r].x)[q], wf[r][0], wf[r][1]);
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        float x0, x1;
        Numeric<T>::unpack2((&x[j].x)[q], x0, x1);
#pragma unroll
        for (int r = 0; r < kRows; ++r) acc[r][j] = fmaf(wf[r][1], x1, fmaf(wf[r][0], x0, acc[r][j]));
      }
    }
  }

  // One group a block (the grid of one block a group): the kernel as it was before the dealt grid, its code unchanged.
  // (run_dealt repeats its step, sums and finish; written as shared helpers, the two kernels' PTX changed -- the copy
  // size's branches became selects -- so the measured code stays as it is until that form is run on a GPU.)
  __device__ static void run_one(const Params& p) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    uint4* ring = reinterpret_cast<uint4*>(smem_raw);                   // [kStages][kRows][kThreads]
    float* sums = reinterpret_cast<float*>(smem_raw + kRingBytes);      // [kWarps][kRows * kBatch]
    const int t = static_cast<int>(threadIdx.x), warp = t / 32, lane = t % 32;
    const int row0 = static_cast<int>(blockIdx.x) * kRows;
    const int chunks = (p.k + kChunk - 1) / kChunk;
    const int c0 = static_cast<int>(static_cast<int64_t>(warp) * chunks / kWarps);
    const int c1 = static_cast<int>(static_cast<int64_t>(warp + 1) * chunks / kWarps);
    const int steps = (c1 - c0 + 31) / 32;
    const T* a = static_cast<const T*>(p.a);
    const T* b = static_cast<const T*>(p.b);
    const T* arow[kRows];
#pragma unroll
    for (int r = 0; r < kRows; ++r) arow[r] = a + static_cast<int64_t>(min(row0 + r, p.m - 1)) * p.lda;
    const T* bcol[kBatch];
#pragma unroll
    for (int j = 0; j < kBatch; ++j) bcol[j] = b + static_cast<int64_t>(min(j, p.n - 1)) * p.ldb;

    // Step s: this lane's chunk c0 + lane + 32 s of every row into ring stage s % kStages (zeros past the warp's range
    // or K); one commit group per step, issued or not, so that the group count is the step count.
    auto issue = [&](int s) {
      if (s < steps) {
        const int c = c0 + lane + 32 * s;
        const int e = c * kChunk;
        const uint32_t bytes = c >= c1 ? 0u : e + kChunk <= p.k ? 16u : static_cast<uint32_t>(p.k - e) * 2u;
        uint4* slot = ring + (s % kStages) * kRows * kThreads + t;
#pragma unroll
        for (int r = 0; r < kRows; ++r) arch::cp_async_cg_16_zfill(slot + r * kThreads, bytes ? arow[r] + e : arow[r], bytes);
      }
      arch::cp_async_commit();
    };
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) issue(s);
    // Output t of the block (threads 0 .. kRows x kBatch - 1): row row0 + t / kBatch, column t % kBatch; its epilogue
    // inputs read now.
    const int oi = row0 + t / kBatch, oj = t % kBatch;
    const bool owner = t < kRows * kBatch && oi < p.m && oj < p.n;
    Inputs in;
    if (owner) in = fetch(p.ep, oi, oj);

    float acc[kRows][kBatch];
#pragma unroll
    for (int r = 0; r < kRows; ++r)
#pragma unroll
      for (int j = 0; j < kBatch; ++j) acc[r][j] = 0.f;
    for (int s = 0; s < steps; ++s) {
      issue(s + kStages - 1);
      const int c = c0 + lane + 32 * s;
      uint4 x[kBatch];
#pragma unroll
      for (int j = 0; j < kBatch; ++j) x[j] = c < c1 ? load_chunk(bcol[j], c, p.k) : make_uint4(0, 0, 0, 0);
      arch::cp_async_wait<kStages - 1>();  // step s's group (this thread's own copies) has landed
      const uint4* slot = ring + (s % kStages) * kRows * kThreads + t;
      uint4 w[kRows];
#pragma unroll
      for (int r = 0; r < kRows; ++r) w[r] = slot[r * kThreads];
      multiply(acc, w, x);
    }
    arch::cp_async_wait<0>();  // (the trailing groups are empty; none may be left outstanding at exit)

    // The warp's lanes summed (butterfly: every lane ends with every sum), lane i keeps output i.
    float mine = 0.f;
#pragma unroll
    for (int r = 0; r < kRows; ++r)
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        float v = acc[r][j];
#pragma unroll
        for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
        if (lane == r * kBatch + j) mine = v;
      }
    if (lane < kRows * kBatch) sums[warp * kRows * kBatch + lane] = mine;
    __syncthreads();
    if (owner) {
      float v = 0.f;
#pragma unroll
      for (int w = 0; w < kWarps; ++w) v += sums[w * kRows * kBatch + t];
      finish(v, in, p.ep, oi, oj);
    }
  }
  // Any grid (the dealt one: one block a slot), each block looping over its groups.
  __device__ static void run_dealt(const Params& p) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    uint4* ring = reinterpret_cast<uint4*>(smem_raw);                   // [kStages][kRows][kThreads]
    float* sums = reinterpret_cast<float*>(smem_raw + kRingBytes);      // [2][kWarps][kRows * kBatch]
    const int t = static_cast<int>(threadIdx.x), warp = t / 32, lane = t % 32;
    const int b = static_cast<int>(blockIdx.x), nb = static_cast<int>(gridDim.x);
    const int groups = (p.m + kRows - 1) / kRows;
    const int mine = groups > b ? (groups - b + nb - 1) / nb : 0;  // this block's groups: b, b + nb, ...
    const int chunks = (p.k + kChunk - 1) / kChunk;
    const int c0 = static_cast<int>(static_cast<int64_t>(warp) * chunks / kWarps);
    const int c1 = static_cast<int>(static_cast<int64_t>(warp + 1) * chunks / kWarps);
    const int steps = (c1 - c0 + 31) / 32;
    const int total = mine * steps;  // this thread's steps over all its groups
    const T* a = static_cast<const T*>(p.a);
    const T* bm = static_cast<const T*>(p.b);
    const T* bcol[kBatch];
#pragma unroll
    for (int j = 0; j < kBatch; ++j) bcol[j] = bm + static_cast<int64_t>(min(j, p.n - 1)) * p.ldb;

    // Step q of the block's (its group q / steps, that group's step q % steps): this lane's chunk c0 + lane + 32 (q %
    // steps) of the group's rows into ring stage q % kStages (zeros past the warp's range or K); one commit group per
    // step, issued or not, so that the group count is the step count.  The issuing position (iq; its group ig, step is)
    // and the group's row pointers are kept as it goes.
    int iq = 0, ig = 0, is = 0;
    const T* arow[kRows];
    auto rows_of = [&](int g) {
#pragma unroll
      for (int r = 0; r < kRows; ++r) arow[r] = a + static_cast<int64_t>(min((b + g * nb) * kRows + r, p.m - 1)) * p.lda;
    };
    rows_of(0);
    auto issue = [&]() {
      if (iq < total) {
        const int c = c0 + lane + 32 * is;
        const int e = c * kChunk;
        const uint32_t bytes = c >= c1 ? 0u : e + kChunk <= p.k ? 16u : static_cast<uint32_t>(p.k - e) * 2u;
        uint4* slot = ring + (iq % kStages) * kRows * kThreads + t;
#pragma unroll
        for (int r = 0; r < kRows; ++r) arch::cp_async_cg_16_zfill(slot + r * kThreads, bytes ? arow[r] + e : arow[r], bytes);
        if (++is == steps) {
          is = 0;
          rows_of(++ig);
        }
      }
      ++iq;
      arch::cp_async_commit();
    };
#pragma unroll
    for (int q = 0; q < kStages - 1; ++q) issue();

    // A group's outputs are finished (the epilogue, D's stores) by their owners just after the next group's first step
    // is issued, while that step's data is in flight (a warp of a memory-bound loop would wait there), or after the
    // block's last group: until then the sum, its inputs and its place are held here.
    bool pending = false;
    float p_v = 0.f;
    Inputs p_in;
    int p_i = 0, p_j = 0;
    auto finish_pending = [&]() {
      if (pending) finish(p_v, p_in, p.ep, p_i, p_j);
      pending = false;
    };
    int q = 0;  // the step being computed
    for (int gi = 0; gi < mine; ++gi) {
      const int row0 = (b + gi * nb) * kRows;
      // Output t of the group (threads 0 .. kRows x kBatch - 1): row row0 + t / kBatch, column t % kBatch; its
      // epilogue inputs read now.
      const int oi = row0 + t / kBatch, oj = t % kBatch;
      const bool owner = t < kRows * kBatch && oi < p.m && oj < p.n;
      Inputs in;
      if (owner) in = fetch(p.ep, oi, oj);

      float acc[kRows][kBatch];
#pragma unroll
      for (int r = 0; r < kRows; ++r)
#pragma unroll
        for (int j = 0; j < kBatch; ++j) acc[r][j] = 0.f;
      for (int s = 0; s < steps; ++s, ++q) {
        issue();
        if (s == 0) finish_pending();
        const int c = c0 + lane + 32 * s;
        uint4 x[kBatch];
#pragma unroll
        for (int j = 0; j < kBatch; ++j) x[j] = c < c1 ? load_chunk(bcol[j], c, p.k) : make_uint4(0, 0, 0, 0);
        arch::cp_async_wait<kStages - 1>();  // step q's group (this thread's own copies) has landed
        const uint4* slot = ring + (q % kStages) * kRows * kThreads + t;
        uint4 w[kRows];
#pragma unroll
        for (int r = 0; r < kRows; ++r) w[r] = slot[r * kThreads];
        multiply(acc, w, x);
      }
      finish_pending();  // (a warp without steps: K under 64)

      // The warp's lanes summed (butterfly: every lane ends with every sum), lane i keeps output i.
      float v_mine = 0.f;
#pragma unroll
      for (int r = 0; r < kRows; ++r)
#pragma unroll
        for (int j = 0; j < kBatch; ++j) {
          float v = acc[r][j];
#pragma unroll
          for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
          if (lane == r * kBatch + j) v_mine = v;
        }
      // (Buffer gi % 2: a warp writes it again only for group gi + 2, after the next group's barrier, which every
      // owner reaches only once it has read this group's sums.)
      float* buf = sums + (gi & 1) * kWarps * kRows * kBatch;
      if (lane < kRows * kBatch) buf[warp * kRows * kBatch + lane] = v_mine;
      __syncthreads();
      if (owner) {
        float v = 0.f;
#pragma unroll
        for (int w = 0; w < kWarps; ++w) v += buf[w * kRows * kBatch + t];
        pending = true;
        p_v = v;
        p_in = in;
        p_i = oi;
        p_j = oj;
      }
    }
    finish_pending();
    arch::cp_async_wait<0>();  // (the trailing groups are empty; none may be left outstanding at exit)
  }
#endif  // __CUDACC__
};

#if defined(__CUDACC__)
// kDealt: run_dealt (any grid: the host's dealt one), else run_one (one block a group).  Two kernels, so that each
// grid runs its own code: the one-group grid on the dealt code ran a batch of 1 against 4096^2 weights 3-5% slower than
// on run_one's (H200, bench against cuBLAS across calls; docs/PERF.md, sixty-fourth section).
template <class T, int kBatch, int kRows = 4, int kStages = 4, int kWarps = 8, bool kDealt = false>
__global__ void __launch_bounds__(Gemv<T, kBatch, kRows, kStages, kWarps>::kThreads,
                                  Gemv<T, kBatch, kRows, kStages, kWarps>::kMinBlocks) gemv_kernel(const Params p) {
  if constexpr (kDealt) {
    Gemv<T, kBatch, kRows, kStages, kWarps>::run_dealt(p);
  } else {
    Gemv<T, kBatch, kRows, kStages, kWarps>::run_one(p);
  }
}
#endif

}  // namespace tessera::gemm_sm80
