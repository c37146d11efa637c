// include/tessera/kernel/gemm/types.hpp -- the GEMM's public choices of arithmetic, block tile and stream-K
// tail (GemmMath, GemmTile, GemmStreamK), shared by the host API (tessera/host/gemm.hpp) and the kernel registry
// (kernel/gemm/registry.hpp).  Plain enums: compiles with any C++20 compiler, no CUDA needed.
#pragma once

namespace tessera {

// Which arithmetic computes A @ B.
enum class GemmMath : int {
  automatic = 0,  // bf16/f16/FP8 -> tensor_core, f32 -> fp32_exact; s8 -> tensor_core where the Hopper s8 kernel
                  // runs (compute capability 9.0, this build holds its sm_90a code), else dp4a (the planner decides)
  tensor_core,    // bf16 / f16 operands, fp32 accumulation (FP8, s8: the Hopper wgmma kernels)
  tf32,           // f32 operands rounded to tf32 on tensor cores
  fp32_exact,     // f32 FFMA on CUDA cores
  dp4a,           // s8 operands on CUDA cores: __dp4a (4 s8 products summed into s32 per instruction), exact s32 sums;
                  // runs on sm_80 and newer (kernel/gemm_sm80/gemm_dp4a.hpp)
};

// Block tile; automatic lets the planner choose (the usual choice).  Forcing one is for tests and
// benchmarks; a tile that does not support the problem's types or layouts is rejected.  Each value other
// than automatic names one entry of the kernel registry (kernel/gemm/registry.hpp), which says what it is
// built for; its name there ("128x256x64", "wgmma128x256x64", ...) is what messages, plans and
// `tessera bench gemm --tile` use.
enum class GemmTile : int {
  automatic = 0,
  t128x256,     // tensor cores, 8 warps
  t128x128,     // tensor cores, 4 warps
  t64x64,       // tensor cores, 4 warps
  t16x128,      // tensor cores, 4 warps, M <= 16 (decode); needs a K-major A (after transposition)
  simt128x128,  // fp32_exact only
  wgmma128x128,  // tensor cores on Hopper (sm_90a, compute capability 9.0): TMA + wgmma, 3 warpgroups;
                 // bf16/f16 in any operand order, 16-byte aligned bases, lda/ldb a multiple of 8 elements
  wgmma128x256,  // the same with a 128 x 256 block tile
  cooperative128x256,  // Hopper, persistent: both consumer warpgroups on one 128 x 256 tile, the producer
                       // loading the next tile during the epilogue; same operand requirements
  wgmma128x64,  // the wgmma128x128 kernel with a 128 x 64 block tile (small problems: twice the blocks)
  wgmma128x16,  // the same kernel with a 128 x 16 block tile and 6 stages: decode on Hopper (the weights as A, the
                // batch of at most 16 as B; m <= 16 problems are planned transposed, D^T = W X^T); K-major A and B
  dp4a128x128,  // GemmMath::dp4a only: s8 x s8 on CUDA cores (dp4a), 256 threads, K tiles of 64 bytes; K-major A and B
  gemv4x1,  // GEMV on CUDA cores (bf16 / f16, tensor_core math's contract: exact products, fp32 sums): the weights as A,
            // 4 rows a block, a batch of 1 as B (decode problems with a batch of 1 are oriented so, D^T = W X^T); K-major
            // A and B, 16-byte aligned bases and rows; no split_k (the block's warps split K)
  wgmma64x16,  // Hopper (sm_90a) decode tile of 64 weight rows a block and a batch of at most 16 (one consumer warpgroup,
               // 12 stages); bf16 / f16, K-major A and B
  wgmma64x64,  // the same, 64 wide (8 stages): a batch of up to 64
};

// The stream-K tail of the persistent kernels that have one (GemmArgs::stream_k).
enum class GemmStreamK : int { automatic = 0, off, on };

// How an FP8 GEMM accumulates (GemmArgs::fp8_accum).  The tensor cores add FP8 products into their accumulator with
// fewer bits than fp32 keeps (docs/GEMM.md, "Reduced precision"), so over a long K the sum drifts.  promoted: each K
// tile of 128 is summed by the tensor cores from zero, and those partial sums are added in fp32 registers (the error
// then grows with K as an fp32 sum's does); fast: the tensor cores' accumulator runs over the whole of K (fewer
// instructions, less accurate for long K).
enum class GemmFp8Accum : int { promoted = 0, fast };

// How an FP8 operand's scale applies (GemmArgs::scale_a_mode / scale_b_mode): one float for the whole operand
// (tensor), one per output channel (channel: a float per row of A, M of them; a float per column of B, N), or one
// per block (block: A in 1 x 128 blocks along K, B in 128 x 128 blocks; the layouts are GemmArgs').
enum class GemmScale : int { tensor = 0, channel, block };

// The K extent of a block scale (GemmScale::block): the FP8 kernels' K tile, so that each K tile's partial sum is
// scaled once as it is promoted to the fp32 accumulator.
inline constexpr int kGemmScaleBlock = 128;

}  // namespace tessera
