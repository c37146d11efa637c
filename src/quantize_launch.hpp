// src/quantize_launch.hpp -- the quantisation kernels' launch table, shared by src/quantize.cu (which plans) and the
// instantiation units src/quantize_{bf16,f16,f32}.cu (one per input type, so that the 2-core build compiles them in
// parallel).
//
// Instantiated per input type T: q in {e4m3, e5m2, s8} x
//   quantize_rows_kernel     passes {row, block_1x128, given, amax} x the row configurations below
//   quantize_row_loop_kernel, quantize_block128_kernel, quantize_blocks_scalar_kernel
#pragma once

#include <cuda_runtime.h>  // cudaStream_t, launches

#include <algorithm>  // std::min
#include <cstdint>    // int64_t

#include "tessera/dtype.hpp"                  // Dtype
#include "tessera/kernel/fused/quantize.hpp"  // kernels, QuantizeParams, RowPass

namespace tessera::fused::detail {

// A row segment in registers: threads that share it, rows per CTA (> 1: one warp per row), 16-byte vectors per
// thread.  The same vectors for every type, so the registers are the same: 16-bit types hold twice the elements.
//   index  threads x vecs   elements per segment (16-bit / fp32)
//   0      32 x 2 (8 rows)    512 /   256
//   1      128 x 4           4096 /  2048
//   2      512 x 4          16384 /  8192    (also the chunk of rows too long for one segment)
//   3      1024 x 8         65536 / 32768
//   4      256 x 8          16384 /  8192    (the 1 x 128 pass in place of 2 where a row fits: kQuantBlockWideConfig)
// The fitting configuration is the first of 0-3 that holds the row.
struct QuantRowConfig {
  int threads_per_row, rows_per_cta, vecs;
  constexpr int64_t capacity_vecs() const { return int64_t(threads_per_row) * vecs; }
};
inline constexpr QuantRowConfig kQuantRowConfigs[] = {{32, 8, 2}, {128, 1, 4}, {512, 1, 4}, {1024, 1, 8}, {256, 1, 8}};
inline constexpr int kQuantRowConfigCount = sizeof(kQuantRowConfigs) / sizeof(kQuantRowConfigs[0]);
inline constexpr int kQuantFitConfigs = 4;  // configurations 0-3: the fitting one is searched among these
inline constexpr int kQuantChunkConfig = 2;
// The 1 x 128 pass's rows of 4097-16384 16-bit elements: 256 threads x 8 vectors rather than 512 x 4.  Its block
// reductions and scales need registers beside the data: at the 512 x 4 configuration's 40 registers (3 CTAs an SM) it
// held 84 KB of a 14336-wide bf16 row an SM, and bound at 32 registers (4 CTAs) it spilled; 256 x 8 at 64 registers
// holds 4 rows, 112 KB (docs/PERF.md, forty-fifth section).
inline constexpr int kQuantBlockWideConfig = 4;
static_assert(kQuantRowConfigs[kQuantBlockWideConfig].capacity_vecs() == kQuantRowConfigs[2].capacity_vecs(),
              "kQuantBlockWideConfig holds what configuration 2 holds");

enum class QuantKernel { rows, row_loop, block128, blocks_scalar };

// One kernel launch.
struct QuantLaunch {
  QuantKernel kernel = QuantKernel::rows;
  kernel::RowPass pass = kernel::RowPass::row;  // rows kernel
  int config = 0;                               // rows kernel: index into kQuantRowConfigs
  int64_t grid = 0;                             // CTAs
  int block_rows = 1;                           // blocks_scalar: 1 or 128
};

template <class T>
void launch_quantize(const QuantLaunch& l, Dtype q, const kernel::QuantizeParams<T>& p, cudaStream_t stream);

#if defined(__CUDACC__)

// One CTA per segment (row, block_1x128), or, for the passes that add up the tensor's amax (given, amax), as many
// CTAs as are resident at once, striding over the segments: one atomic per CTA instead of one per segment, and no
// second wave.  p.segments == l.grid.
template <class T, Dtype Q, kernel::RowPass P, int C>
void launch_quantize_rows(const QuantLaunch& l, const kernel::QuantizeParams<T>& p, cudaStream_t stream) {
  constexpr QuantRowConfig c = kQuantRowConfigs[C];
  constexpr int kThreads = c.threads_per_row * c.rows_per_cta;
  const auto k = kernel::quantize_rows_kernel<T, Q, P, c.threads_per_row, c.rows_per_cta, c.vecs>;
  int64_t grid = l.grid;
  if constexpr (P == kernel::RowPass::given || P == kernel::RowPass::amax) {
    int dev = 0, sms = 0, per_sm = 0;
    if (cudaGetDevice(&dev) == cudaSuccess && cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess &&
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, kThreads, 0) == cudaSuccess && sms > 0 && per_sm > 0)
      grid = std::min<int64_t>(grid, int64_t(sms) * per_sm);
  }
  k<<<static_cast<unsigned>(grid), kThreads, 0, stream>>>(p);
}

template <class T, Dtype Q, kernel::RowPass P>
void launch_quantize_rows(const QuantLaunch& l, const kernel::QuantizeParams<T>& p, cudaStream_t stream) {
  static_assert(kQuantRowConfigCount == 5, "launch_quantize_rows: add a case for each row configuration");
  switch (l.config) {
    case 0: launch_quantize_rows<T, Q, P, 0>(l, p, stream); break;
    case 1: launch_quantize_rows<T, Q, P, 1>(l, p, stream); break;
    case 2: launch_quantize_rows<T, Q, P, 2>(l, p, stream); break;
    case 3: launch_quantize_rows<T, Q, P, 3>(l, p, stream); break;
    default:  // kQuantBlockWideConfig: built for the 1 x 128 pass alone; any other pass takes configuration 2, which
              // holds the same segments (the plan gives them no other, but no launch is ever skipped)
      if constexpr (P == kernel::RowPass::block_1x128)
        launch_quantize_rows<T, Q, P, kQuantBlockWideConfig>(l, p, stream);
      else
        launch_quantize_rows<T, Q, P, 2>(l, p, stream);
      break;
  }
}

template <class T, Dtype Q>
void launch_quantize(const QuantLaunch& l, const kernel::QuantizeParams<T>& p, cudaStream_t stream) {
  using kernel::RowPass;
  const unsigned grid = static_cast<unsigned>(l.grid);
  switch (l.kernel) {
    case QuantKernel::rows:
      switch (l.pass) {
        case RowPass::row: launch_quantize_rows<T, Q, RowPass::row>(l, p, stream); break;
        case RowPass::block_1x128: launch_quantize_rows<T, Q, RowPass::block_1x128>(l, p, stream); break;
        case RowPass::given: launch_quantize_rows<T, Q, RowPass::given>(l, p, stream); break;
        case RowPass::amax: launch_quantize_rows<T, Q, RowPass::amax>(l, p, stream); break;
      }
      break;
    case QuantKernel::row_loop:
      kernel::quantize_row_loop_kernel<T, Q><<<grid, kernel::kRowLoopThreads, 0, stream>>>(p);
      break;
    case QuantKernel::block128:
      kernel::quantize_block128_kernel<T, Q><<<grid, kernel::kBlock128Threads<T>, 0, stream>>>(p);
      break;
    case QuantKernel::blocks_scalar:
      kernel::quantize_blocks_scalar_kernel<T, Q><<<grid, kernel::kScalarThreads, 0, stream>>>(p, l.block_rows);
      break;
  }
}

template <class T>
void launch_quantize(const QuantLaunch& l, Dtype q, const kernel::QuantizeParams<T>& p, cudaStream_t stream) {
  switch (q) {
    case Dtype::e4m3: launch_quantize<T, Dtype::e4m3>(l, p, stream); break;
    case Dtype::e5m2: launch_quantize<T, Dtype::e5m2>(l, p, stream); break;
    default: launch_quantize<T, Dtype::s8>(l, p, stream); break;  // the host accepts only e4m3, e5m2, s8
  }
}

#endif  // __CUDACC__

}  // namespace tessera::fused::detail
