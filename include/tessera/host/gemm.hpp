// include/tessera/host/gemm.hpp -- the GEMM with a fused epilogue: host API.
//
//   D = act(alpha * (A @ B) + beta * C + bias) [+ residual]
//
//   A is m x k, B is k x n, C, D and the residual are m x n.  Each matrix is row- or column-major with
//   its own leading dimension (ld = elements between the starts of consecutive rows (row-major) or
//   columns (column-major); 0 means packed).  Any m, n, k >= 1.
//
// Types (A and B have the same type, except that two FP8 types may be mixed):
//   A, B          math (GemmMath::automatic picks the first)        accumulation
//   bf16 / f16    tensor cores, mma.sync m16n8k16                    fp32
//   f32           fp32_exact: CUDA-core FFMA, fp32 products and sums  fp32
//   f32           tf32: tensor cores, operands rounded to tf32 (10-bit mantissa, round to nearest)
//   e4m3 / e5m2   tensor cores on Hopper (wgmma k32, compute capability 9.0), any pair of the two; fp32
//                 A row-major and B column-major (both K-major: the      (GemmArgs::fp8_accum)
//                 instruction reads 8-bit operands only that way), 16-byte aligned bases,
//                 lda and ldb multiples of 16; scales (scale_a, scale_b: per tensor, channel, block)
//   s8            tensor cores on Hopper (wgmma, compute capability 9.0)   s32 (exact),
//                 where this build holds that kernel; elsewhere dp4a: CUDA  then fp32
//                 cores (compute capability 8.0+); the 8-bit rules above;
//                 per-tensor or channel scales
//   D: bf16, f16 or f32 (any, whatever A and B are); C and the residual have D's type;
//   bias: f32 or D's type, one value per column (length n), per row (length m), or one scalar.
//   s32 is not taken yet: validation refuses it by name.
// Order of the epilogue, all in fp32 registers: (8-bit operands: scale by *scale_a * *scale_b); scale by alpha; + beta * C (C is not read when
// beta == 0, so C may then be null); + bias; activation; + residual; round to D's type (nearest even);
// one store per element.  The accumulator never leaves registers/shared memory before the epilogue and
// D is written once.
//
// Alignment: pointers need their element's alignment.  16-byte aligned pointers whose leading
// dimension is a multiple of 16 bytes take the vectorised path (cp.async / 16-byte stores); others work
// through element accesses (slower).
//
// Split-K and the workspace: for small m*n with a large k the planner may split K over several blocks
// per output tile.  That needs a device workspace of gemm_workspace_size(args) bytes; pass it in
// args.workspace.  Without a (large enough) workspace the automatic plan does not split.  The workspace
// starts with a region of arrival counters (one or two ints per output tile, 16 KB at least); gemm()
// zero-fills it (cudaMemsetAsync) before each split launch unless args.workspace_zeroed says the counters
// are already zero, which holds after cudaMemset(0) of the first 16 KB and after every completed split-K
// gemm() on that workspace, whatever problem it computed (the kernels leave their counters zero, and the
// partial sums of every plan lie beyond the first 16 KB; a plan with more than 4096 counters, only ever
// a forced split, fills its own).  Partial sums are added in a fixed order, so results
// are deterministic for a given plan.  No memory is allocated by gemm().
//
// Errors: gemm() validates everything before it launches and returns a GemmStatus whose message names
// the argument, its value and what was expected; nothing is launched when the status is not ok.
// A launch failure is reported with the CUDA error string.  The call is asynchronous on `stream`.
// C may alias D when they have the same order and leading dimension (an in-place update).
#pragma once

#include <cuda_bf16.h>     // __nv_bfloat16
#include <cuda_fp16.h>     // __half
#include <cuda_runtime.h>  // cudaStream_t

#include <cstddef>  // size_t
#include <cstdint>  // int64_t
#include <limits>   // std::numeric_limits
#include <string>   // std::string

#include "tessera/kernel/epilogue/types.hpp"  // Dtype, MatrixOrder, Activation, BiasMode
#include "tessera/kernel/gemm/types.hpp"      // GemmMath, GemmTile, GemmStreamK, GemmFp8Accum

namespace tessera {

// A matrix operand (read-only).
struct GemmMatrix {
  const void* data = nullptr;
  Dtype type = Dtype::bf16;
  MatrixOrder order = MatrixOrder::row_major;
  int64_t ld = 0;  // 0 = packed
};

// The output.
struct GemmOutput {
  void* data = nullptr;
  Dtype type = Dtype::bf16;
  MatrixOrder order = MatrixOrder::row_major;
  int64_t ld = 0;  // 0 = packed
};

struct GemmArgs {
  int64_t m = 0, n = 0, k = 0;
  GemmMatrix a, b;
  GemmMatrix c;  // read when beta != 0; type must equal d.type
  GemmOutput d;
  float alpha = 1.f, beta = 0.f;

  BiasMode bias_mode = BiasMode::none;
  const void* bias = nullptr;
  Dtype bias_type = Dtype::f32;  // f32 or d.type
  int64_t bias_size = 0;         // elements: n (per_column), m (per_row), 1 (scalar)

  Activation activation = Activation::none;
  float leaky_relu_slope = 0.01f;  // leaky_relu: finite
  float clamp_lo = -std::numeric_limits<float>::infinity();  // clamp: lo <= hi, not NaN
  float clamp_hi = std::numeric_limits<float>::infinity();

  GemmMatrix residual;  // added after the activation when data != nullptr; type must equal d.type

  GemmMath math = GemmMath::automatic;
  void* workspace = nullptr;  // split-K only: gemm_workspace_size(args) bytes, 16-byte aligned
  size_t workspace_bytes = 0;
  bool workspace_zeroed = false;  // the workspace's counters are known to be zero (see above)

  GemmTile tile = GemmTile::automatic;
  int split_k = 0;  // 0 = automatic; >= 1 forces that many K splits (> 1 needs the workspace)
  // Stream-K tail of the persistent cooperative kernels: when the output tiles leave the last wave of clusters
  // partly idle, the last wave and one full wave are shared out by K tiles instead of whole tiles (each cluster
  // then does the same work), and the pieces of a tile are summed in a fixed order.  Needs the workspace
  // (gemm_workspace_size: per cluster two flags and one fp32 tile per block).  automatic: where the workspace
  // allows, the problem is larger than one wave and its last wave is at most a quarter full (the tail's pieces
  // share less of A and B in L2 than whole tiles do, so it pays only where the idle part of the last wave is
  // large); on: whenever the last wave is partial, also without a large enough workspace, which then fails with
  // insufficient_workspace; off: never.  Not with split-K.
  GemmStreamK stream_k = GemmStreamK::automatic;

  // 8-bit operands (e4m3 / e5m2, s8): per-tensor scales, device pointers to one float each (null: 1).  The product is
  // (*scale_a * A) @ (*scale_b * B): the kernel multiplies the fp32 accumulator (s8: the exact s32 sum converted to
  // fp32) by both before the epilogue.  Read on the device when the kernel runs (a scale computed by an earlier kernel
  // on the stream is seen); 4-byte aligned.  Only with 8-bit operands.
  const float* scale_a = nullptr;
  const float* scale_b = nullptr;
  // The scales' shapes (GemmScale): tensor (the default: one float each) or channel -- scale_a then holds M floats,
  // one per row of A, and scale_b N floats, one per column of B (a linear layer's per-token and per-output-channel
  // scales); D(i, j) = scale_a[i] scale_b[j] sum_k A(i, k) B(k, j).  Each independently; a channel scale needs its
  // pointer (4-byte aligned).  Only with 8-bit operands.
  // block (FP8 operands only): A in blocks of 1 row x 128 K, B in blocks of 128 K x 128 columns (kGemmScaleBlock), a float per block;
  // scale_a holds ceil(K / 128) x M floats, block (i, kb) at scale_a[kb * M + i] (M contiguous), scale_b holds
  // ceil(K / 128) x ceil(N / 128), block (kb, jb) at scale_b[kb * ceil(N / 128) + jb];
  // D(i, j) = sum_kb scale_a(i, kb) scale_b(kb, j / 128) sum_{k in kb} A(i, k) B(k, j).  Needs promoted accumulation
  // (each 128-deep K tile's sum is scaled as it joins the fp32 accumulator); either operand alone or both.
  GemmScale scale_a_mode = GemmScale::tensor;
  GemmScale scale_b_mode = GemmScale::tensor;
  // FP8 accumulation (GemmFp8Accum: promoted, the default, or fast).  Only with FP8 operands.
  GemmFp8Accum fp8_accum = GemmFp8Accum::promoted;
};

enum class GemmError : int {
  ok = 0,
  invalid_argument,        // a value out of range, a null pointer, a leading dimension too small ...
  unsupported,             // a valid request this build cannot run (type combination, tile, device)
  insufficient_workspace,  // split_k > 1 forced without a large enough workspace
  cuda_error,              // a CUDA call failed (device query, attribute, launch)
};

struct GemmStatus {
  GemmError code = GemmError::ok;
  std::string message;  // empty when ok
  bool ok() const { return code == GemmError::ok; }
  explicit operator bool() const { return ok(); }
};

// What gemm() launches for these arguments on the current device.
struct GemmPlan {
  GemmTile tile = GemmTile::automatic;
  GemmMath math = GemmMath::automatic;
  Dtype a_type = Dtype::bf16, b_type = Dtype::bf16;  // the operands' types (as the arguments give them)
  int split_k = 1;
  int stream_k_tiles = 0;      // tiles (of clusters) of the stream-K tail; 0: none
  int group_m = 8;             // tile order: groups of group_m tile rows, column by column inside a group
  bool transposed = false;     // computed as D^T = B^T A^T
  int64_t grid_tiles = 0;      // output tiles (blocks per split)
  int64_t grid_blocks = 0;     // blocks launched (a persistent kernel: at most the resident blocks)
  int blocks_per_sm = 0;       // occupancy of the chosen kernel
  int threads = 0, smem_bytes = 0;
  size_t workspace_bytes = 0;  // needed by this plan (0 without split-K)
  bool stream_lines_128 = false;  // the streamed weights (a Hopper decode plan filling the SMs) fetch 128-byte L2 lines
  // Short boxes: the kernel's A (B) -- B^T (A^T) when transposed -- one tile high (wide) and shorter than the tile comes
  // in TMA boxes of this many of its rows (its extent rounded up to 8); 0: the tile's boxes (docs/GEMM.md)
  int a_box_rows = 0, b_box_rows = 0;
  std::string str() const;     // e.g. "tc 128x256x64 split 1, 512 tiles ..." ("tc-e4m3 128x128x128 ..." for FP8)
};

// Checks the arguments without touching the GPU.
GemmStatus gemm_validate(const GemmArgs& args);
// Validates, then fills *plan with what gemm() would launch (queries the current device).
GemmStatus gemm_plan(const GemmArgs& args, GemmPlan* plan);
// Bytes of workspace that enable the split-K the planner would like for these arguments (ignoring
// args.workspace); 0 when it would not split.  With args.split_k > 1: the bytes that split count needs.
size_t gemm_workspace_size(const GemmArgs& args);
// Runs the GEMM on `stream` (asynchronous).
GemmStatus gemm(const GemmArgs& args, cudaStream_t stream = nullptr);

// The same, for callers with a stream-ordered allocator of their own (a framework's caching allocator, e.g.
// the PyTorch ops of python/): when args.workspace is null and the plan (made as if the workspace were
// unlimited) splits K or has a stream-K tail, gemm() calls `alloc(bytes, ctx, &zeroed)` once, before the
// launch, for device memory of at least `bytes` bytes, 16-byte aligned, usable in stream order on
// `stream`.  Only the work this call enqueues on `stream` uses it, so the caller may release it
// (stream-ordered) once gemm() returns.  `zeroed` comes in false; the allocator sets it to true when the
// memory's counters are known to be zero (memory zero-filled on `stream` and since then used only by
// completed split-K or stream-K calls, which leave the counters zero: a per-stream workspace kept by the
// caller), and gemm() then skips the zero fill it otherwise enqueues.  A null return runs the best plan
// without a workspace.  One plan per call, where gemm_workspace_size() followed by gemm() plans twice.  With
// args.workspace set (or alloc null) this is gemm(args, stream).
using GemmWorkspaceAlloc = void* (*)(size_t bytes, void* ctx, bool* zeroed);
GemmStatus gemm(const GemmArgs& args, cudaStream_t stream, GemmWorkspaceAlloc alloc, void* ctx);

// ---- typed convenience overloads: row-major, packed, D = A @ B ----
GemmStatus gemm(int64_t m, int64_t n, int64_t k, const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* d,
                cudaStream_t stream = nullptr);
GemmStatus gemm(int64_t m, int64_t n, int64_t k, const __half* a, const __half* b, __half* d,
                cudaStream_t stream = nullptr);
// fp32, exact (FFMA)
GemmStatus gemm(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* d,
                cudaStream_t stream = nullptr);
// D = act(A @ B + bias), bias per column (length n, same type as D); row-major, packed.
GemmStatus gemm_bias_act(int64_t m, int64_t n, int64_t k, const __nv_bfloat16* a, const __nv_bfloat16* b,
                         const __nv_bfloat16* bias, Activation act, __nv_bfloat16* d, cudaStream_t stream = nullptr);
GemmStatus gemm_bias_act(int64_t m, int64_t n, int64_t k, const __half* a, const __half* b, const __half* bias,
                         Activation act, __half* d, cudaStream_t stream = nullptr);

// ---- the epilogue alone (the unfused way, e.g. after another library's GEMM) ----
// In place on an m x n matrix X of type x_type:  X = act(X + bias) [+ residual], fp32 math, one pass,
// same formulas and validation as gemm()'s epilogue (args.alpha = 1, beta = 0; the bias, activation and
// residual fields of `args` are used, and args.d describes X).
GemmStatus gemm_epilogue_inplace(const GemmArgs& args, cudaStream_t stream = nullptr);

}  // namespace tessera
