// include/tessera/host/quantize.hpp -- host API of the quantisation helpers: bf16 / fp16 / fp32 -> e4m3 / e5m2 / s8
// with the scales computed in the same pass.
//
//   QuantizeArgs a;
//   a.x = x;  a.x_type = Dtype::bf16;  a.rows = m;  a.cols = k;
//   a.q = q;  a.q_type = Dtype::e4m3;  a.mode = QuantScale::row;  a.scale = scales;   // scales: m floats
//   tessera::fused::quantize(a);
//
// Conventions (those of the FP8 GEMM, docs/GEMM.md): dequantised value = q * scale, scale fp32.  The arithmetic,
// exactly (include/tessera/kernel/fused/quant_arith.hpp): amax = max |x| over the group; scale = amax / qmax and
// q = convert(x * (qmax / amax)) with qmax = 448 (e4m3), 57344 (e5m2), 127 (s8); amax == 0 gives scale 1 (and
// q = 0); amax below qmax / FLT_MAX gives scale 2^-128 and the factor FLT_MAX.  FP8 conversions round to nearest
// even and saturate to the largest finite value; s8 rounds to nearest even and saturates to [-127, 127].
//
// Scale modes (QuantizeArgs::mode) and the scale tensor each writes (fp32; the block modes' block-column-major, as
// the FP8 GEMM's GemmScale::block reads them: block (br, bc) at scale[bc * scale_rows + br]):
//   tensor         one scale, computed: [1].  Needs the tensor's amax before any q: two kernels, an amax pass
//                  then a quantise pass that walks the tensor backwards (so it starts with what L2 still holds);
//                  it reads x twice: 2 x-reads + 1 q-write where one read would be the minimum.
//   tensor_given   one scale, given (read from device memory when the kernel runs): q = convert(x * (1 / scale)).
//                  One pass.  `amax` (optional) receives max |x| (delayed scaling: the next step's scale).
//   row            one scale per row: [rows].  One pass: a row lives in the registers of a warp or a CTA (up to
//                  65536 16-bit or 32768 fp32 elements); longer rows are read twice by one CTA each.
//   block_1x128    one scale per 128 consecutive elements of a row (GEMM operand A, M x K): rows x ceil(cols/128),
//                  a K block's rows contiguous (GemmArgs::scale_a with GemmScale::block).
//   block_128x128  one scale per 128 x 128 block (GEMM weights W, N x K): ceil(rows/128) x ceil(cols/128), a K
//                  block's N blocks contiguous (GemmArgs::scale_b with GemmScale::block, B = W^T).
// `amax`, when not null, receives the amax of every group in the scale's shape.
//
// Semantics, specified and tested (tests/kernel_fused/test_quantize.cpp):
//   * NaN anywhere in a group makes its amax and scale NaN and its q NaN (s8: 0).  An infinity (no NaN) makes
//     amax = scale = +inf: the group's finite elements become (signed) zeros, its infinities NaN (s8: 0).
//   * rows == 0 or cols == 0 launches nothing and writes nothing (no scale either).  Rows may be padded
//     (ld_x, ld_q >= cols; padding untouched).  x may have any alignment of its element type and q any address:
//     16-byte vector accesses where the addresses allow, element accesses at the edges.  Block modes on rows
//     that are not 16-byte aligned (x or ld_x * sizeof(x) not a multiple of 16) take a correct but slow
//     element-wise kernel.
//   * x, q, scale and amax must not overlap.  Bad arguments throw tessera::fused::ArgumentError naming the
//     argument, its value and what was expected; a failed launch throws std::runtime_error.  Work runs
//     asynchronously on `stream`.
//
// Workspace (tensor, and tensor_given with amax): quantize_workspace_bytes(args) bytes that hold a max and a
// counter.  Zero-fill it once (cudaMemset) before its first use; every call leaves it ready for the next one.
// Calls that may run concurrently need separate workspaces.  Without one (workspace == nullptr) each call takes
// it with cudaMallocAsync + cudaMemsetAsync on `stream` and releases it with cudaFreeAsync.
#pragma once

#include <cuda_runtime.h>  // cudaStream_t

#include <cstddef>  // size_t
#include <cstdint>  // int64_t
#include <string>   // std::string

#include "tessera/dtype.hpp"                  // Dtype
#include "tessera/host/fused.hpp"             // ArgumentError
#include "tessera/kernel/fused/quantize.hpp"  // QuantScale; quant_max, quant_scale (quant_arith.hpp)

namespace tessera::fused {

struct QuantizeArgs {
  const void* x = nullptr;           // (rows, cols) row stride ld_x elements
  Dtype x_type = Dtype::bf16;        // bf16, f16 or f32
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t ld_x = 0;                  // 0 = cols
  void* q = nullptr;                 // (rows, cols) row stride ld_q bytes
  Dtype q_type = Dtype::e4m3;        // e4m3, e5m2 or s8
  int64_t ld_q = 0;                  // 0 = cols
  QuantScale mode = QuantScale::tensor;
  float* scale = nullptr;            // out (tensor_given: in), the mode's scale shape, 4-byte aligned
  float* amax = nullptr;             // optional out, the scale's shape
  int64_t scale_elems = 0;           // floats available at scale (and amax); 0 = not stated (unchecked)
  void* workspace = nullptr;         // see the header comment; nullptr: allocated per call
  size_t workspace_bytes = 0;
  cudaStream_t stream = nullptr;
};

// Rows and columns of the scale tensor `mode` writes for an x of rows x cols (compact; block modes block-column-major:
// (br, bc) at bc * rows + br).
struct ScaleShape {
  int64_t rows = 0, cols = 0;
  int64_t elems() const { return rows * cols; }
};
ScaleShape quantize_scale_shape(QuantScale mode, int64_t rows, int64_t cols);

// Workspace bytes these arguments need (0: none).
size_t quantize_workspace_bytes(const QuantizeArgs& args);

// What quantize() will launch (for benchmarks and logs); checks the arguments like quantize().
struct QuantizePlan {
  std::string kernel;         // "rows 128x4", "rows 512x4 x 2 chunks", "row loop", "block 128x128", "blocks scalar"
  int kernels = 1;            // kernels launched (tensor: 2)
  double x_reads = 1;         // times x is read from memory (tensor: 2; row loop: 2, the second mostly from L2)
  std::string str() const;    // e.g. "amax + quantize, rows 128x4"
};
QuantizePlan plan_quantize(const QuantizeArgs& args);

void quantize(const QuantizeArgs& args);

// "tensor", "tensor_given", "row", "block_1x128", "block_128x128"; "?" for a value that is none of them.
const char* quant_scale_name(QuantScale mode);

}  // namespace tessera::fused
