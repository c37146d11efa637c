// include/tessera/kernel/fused/elementwise.hpp -- one kernel that applies an elementwise expression.
//
// out[i] = f(in[i]) for i in [0, n), f any tessera::ew expression (expr.hpp), computed in fp32 for
// every element type (fp32, bf16, fp16) and rounded once to the output type.
//
// Data flow (one CTA, kThreads threads, kUnroll vectors per thread):
//   in  = head | body of 16-byte vectors                          | tail
//         <kVec  (nvec vectors, aligned, kVec elements each)        <kVec
//   * the body: each thread loads kUnroll vectors (128-bit ld.global.v4), then converts, applies f
//     and stores each (128-bit st.global.v4).  All kUnroll loads are issued before the first use, so
//     each thread keeps kUnroll*16 bytes in flight.  Consecutive threads touch consecutive vectors
//     (a warp reads 512 contiguous bytes per instruction).
//   * head and tail (fewer than kVec elements each) are done by CTA 0 with scalar accesses.
//   * when `in` and `out` are not equally misaligned (their addresses differ by a multiple of 16
//     bytes) no common vector grid exists; the kernel then runs a scalar grid-stride loop instead.
//
// This header needs nvcc.  It defines the host templates declared in include/tessera/host/fused.hpp;
// include it from a .cu file to run an expression that src/fused_elementwise.cu does not instantiate.
#pragma once

#include <cuda_runtime.h>  // cudaStream_t, launch

#include <algorithm>  // std::min
#include <climits>    // INT_MAX
#include <cstdint>    // int64_t, uint32_t
#include <tuple>      // std::apply

#include "tessera/arch/ld_st.hpp"             // ld_global_v4_u32, st_global_v4_u32
#include "tessera/host/fused.hpp"             // declarations, argument checks
#include "tessera/kernel/fused/expr.hpp"      // ew::Expression, ew::stages
#include "tessera/kernel/fused/numeric.hpp"   // Numeric<T>

namespace tessera::fused {

namespace kernel {

inline constexpr int kElementwiseThreads = 256;
inline constexpr int kElementwiseUnroll = 4;  // vectors per thread per tile: 64 bytes in flight

template <class T, ew::Expression F>
__global__ void __launch_bounds__(kElementwiseThreads)
    elementwise_kernel(const T* in, T* out, int64_t n, int head, int64_t nvec, bool vector_ok, F f) {
  using Num = Numeric<T>;
  constexpr int kVec = Num::kVec;
  constexpr int kThreads = kElementwiseThreads;
  constexpr int kUnroll = kElementwiseUnroll;
  static_assert(kThreads >= kVec, "elementwise_kernel: CTA 0 must have a thread for every head/tail element");

  auto apply_scalar = [&](int64_t i) { out[i] = Num::from_float(f(Num::to_float(in[i]))); };

  if (!vector_ok) {  // no common 16-byte grid for in and out: scalar grid-stride loop
    for (int64_t i = blockIdx.x * int64_t(kThreads) + threadIdx.x; i < n; i += int64_t(gridDim.x) * kThreads)
      apply_scalar(i);
    return;
  }

  // Head and tail: fewer than kVec elements each, done by CTA 0.
  if (blockIdx.x == 0) {
    const int t = threadIdx.x;
    if (t < head) apply_scalar(t);
    const int64_t tail_begin = head + nvec * kVec;
    if (t < kVec && tail_begin + t < n) apply_scalar(tail_begin + t);
  }

  // Body: 16-byte vectors, kUnroll per thread per tile.
  const T* gIn = in + head;  // (nvec*kVec) 16-byte aligned
  T* gOut = out + head;      // (nvec*kVec) 16-byte aligned
  const int64_t tile_vecs = int64_t(kThreads) * kUnroll;
  const int64_t ntiles = (nvec + tile_vecs - 1) / tile_vecs;
  for (int64_t tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
    const int64_t v0 = tile * tile_vecs + threadIdx.x;
    uint32_t rIn[kUnroll][4];  // (UNROLL, 4 words) raw 16-byte vectors
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int64_t v = v0 + int64_t(u) * kThreads;
      if (v < nvec) arch::ld_global_v4_u32(rIn[u], gIn + v * kVec);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int64_t v = v0 + int64_t(u) * kThreads;
      if (v < nvec) {
        float vals[kVec];
        Num::unpack(rIn[u], vals);
#pragma unroll
        for (int e = 0; e < kVec; ++e) vals[e] = f(vals[e]);
        uint32_t rOut[4];
        Num::pack(vals, rOut);
        arch::st_global_v4_u32(gOut + v * kVec, rOut);
      }
    }
  }
}

}  // namespace kernel

namespace detail {

template <class T, ew::Expression F>
void launch_elementwise_stage(const F& f, const T* in, T* out, int64_t n, cudaStream_t stream, const char* who) {
  if (n == 0) return;
  constexpr int kVec = Numeric<T>::kVec;
  constexpr int kThreads = kernel::kElementwiseThreads;
  const auto a_in = reinterpret_cast<uintptr_t>(in), a_out = reinterpret_cast<uintptr_t>(out);
  const bool vector_ok = (a_in % kVectorBytes) == (a_out % kVectorBytes);
  int head = 0;
  int64_t nvec = 0;
  int64_t blocks = 0;
  if (vector_ok) {
    head = static_cast<int>(std::min<int64_t>(n, (kVec - misalignment_elems<T>(in)) % kVec));
    nvec = (n - head) / kVec;
    const int64_t tile_vecs = int64_t(kThreads) * kernel::kElementwiseUnroll;
    blocks = std::max<int64_t>(1, (nvec + tile_vecs - 1) / tile_vecs);
  } else {
    int dev = 0, sms = 0;
    check_cuda(cudaGetDevice(&dev), who, "cudaGetDevice");
    check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), who, "cudaDeviceGetAttribute");
    blocks = std::min<int64_t>((n + kThreads - 1) / kThreads, int64_t(sms) * 8);
  }
  blocks = std::min<int64_t>(blocks, INT_MAX);
  kernel::elementwise_kernel<T, F><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(in, out, n, head, nvec,
                                                                                            vector_ok, f);
  check_cuda(cudaGetLastError(), who, "kernel launch");
}

}  // namespace detail

template <class T, class F>
void elementwise(const F& f, const T* in, T* out, int64_t n, cudaStream_t stream) {
  static_assert(ew::Expression<F>, "tessera::fused::elementwise: f must be a tessera::ew expression (built from ew::x)");
  detail::check_elementwise_args(in, out, n, sizeof(T), "tessera::fused::elementwise");
  detail::launch_elementwise_stage(f, in, out, n, stream, "tessera::fused::elementwise");
}

template <class T, class F>
void elementwise_unfused(const F& f, const T* in, T* out, int64_t n, cudaStream_t stream) {
  static_assert(ew::Expression<F>, "tessera::fused::elementwise_unfused: f must be a tessera::ew expression");
  constexpr const char* kWho = "tessera::fused::elementwise_unfused";
  detail::check_elementwise_args(in, out, n, sizeof(T), kWho);
  if constexpr (F::kFlops == 0) {
    detail::launch_elementwise_stage(f, in, out, n, stream, kWho);  // nothing to split: one copy
  } else {
    // Stage 0 reads `in`; each later stage reads and writes `out` in place.  Every stage rounds its
    // result to T, exactly like a sequence of separate framework operations.
    bool first = true;
    std::apply(
        [&](const auto&... stage) {
          ((detail::launch_elementwise_stage(stage, first ? in : static_cast<const T*>(out), out, n, stream, kWho),
            first = false),
           ...);
        },
        ew::stages(f));
  }
}

}  // namespace tessera::fused
