// include/tessera/kernel/gemm_sm80/config.hpp -- compile-time configuration of the sm80 GEMM: element
// traits, block tiles, operand majorness, and the run-time parameter block shared with the host.
//
// Block tiles (BLK_K is always 128 bytes: 64 bf16/f16 or 32 tf32 elements, one swizzled smem row):
//   name      BLK_M x BLK_N   warps (M x N)   warp tile   stages   blocks/SM   for
//   128x256   128 x 256       2 x 4           64 x 64     3        1           large problems
//   128x128   128 x 128       2 x 2           64 x 64     3        2           medium problems
//   64x64     64  x 64        2 x 2           32 x 32     4        3           small problems, split-K
//   16x128    16  x 128       1 x 4           16 x 32     6        2           M <= 16 (decode): streams B
#pragma once

#include <cstdint>  // int64_t

#include "tessera/atom/mma_sm80.hpp"          // the MMA atoms
#include "tessera/kernel/epilogue/types.hpp"  // epilogue::Params
#include "tessera/kernel/gemm/scheduler.hpp"    // grouped_tile

namespace tessera::gemm_sm80 {

// Which index of an operand is contiguous in global memory: K (A row-major, B column-major) or M / N
// (A column-major, B row-major).
enum class Major : int { k = 0, mn = 1 };

// Element traits: storage type, the atom, and whether operands are rounded to tf32.
struct ElemBf16 {
  using Storage = unsigned short;
  using Atom = atom::MmaSm80_16x8x16_F32BF16;
  static constexpr int kBytes = 2;
  static constexpr bool kTf32 = false;
  static constexpr const char* kName = "bf16";
};
struct ElemF16 {
  using Storage = unsigned short;
  using Atom = atom::MmaSm80_16x8x16_F32F16;
  static constexpr int kBytes = 2;
  static constexpr bool kTf32 = false;
  static constexpr const char* kName = "f16";
};
struct ElemTf32 {
  using Storage = unsigned int;  // fp32 bits, rounded to tf32 when loaded into fragments
  using Atom = atom::MmaSm80_16x8x8_F32TF32;
  static constexpr int kBytes = 4;
  static constexpr bool kTf32 = true;
  static constexpr const char* kName = "tf32";
};

template <int kBM_, int kBN_, int kWarpsM_, int kWarpsN_, int kStages_, int kMinBlocks_>
struct TileConfig {
  static constexpr int kBM = kBM_, kBN = kBN_;
  static constexpr int kWarpsM = kWarpsM_, kWarpsN = kWarpsN_;
  static constexpr int kStages = kStages_;
  static constexpr int kMinBlocks = kMinBlocks_;  // __launch_bounds__ minimum resident blocks per SM
  static constexpr int kThreads = 32 * kWarpsM * kWarpsN;
};

using Tile128x256 = TileConfig<128, 256, 2, 4, 3, 1>;
using Tile128x128 = TileConfig<128, 128, 2, 2, 3, 2>;
using Tile64x64 = TileConfig<64, 64, 2, 2, 4, 3>;
using Tile16x128 = TileConfig<16, 128, 1, 4, 6, 2>;

// Run-time parameters of one launch (passed by value).  Coordinates are those of the problem the kernel
// computes, D (m x n) = A (m x k) * B (k x n), after the host's optional transposition.
//   A element (i, kk) at a[i * lda + kk] when A is K-major, a[kk * lda + i] when M-major; B likewise
//   ((kk, j) at b[j * ldb + kk] when K-major, b[kk * ldb + j] when N-major).
//   a_vec / b_vec: 16-byte cp.async is legal (base 16-byte aligned, ld * element size % 16 == 0).
struct Params {
  int m = 0, n = 0, k = 0;
  const void* a = nullptr;
  int64_t lda = 0;
  const void* b = nullptr;
  int64_t ldb = 0;
  bool a_vec = false, b_vec = false;
  bool a_kmajor = true, b_kmajor = true;  // read by the SIMT kernel only (the tensor-core kernels take
                                          // the majorness as template arguments)

  int tiles_m = 0, tiles_n = 0;  // blockIdx.x enumerates tiles_m * tiles_n tiles ...
  int group_m = 1;               // ... in groups of group_m tile rows (L2 reuse), column by column
  int splits = 1;                // gridDim.z: the K tiles are cut into `splits` ranges of (almost) equal length,
                                 // split z taking [z * k_tiles / splits, (z + 1) * k_tiles / splits) (the Hopper
                                 // kernels: TileScheduler's ranges, k_tiles / splits plus one for the first
                                 // k_tiles % splits)
  float* partials = nullptr;     // splits > 1: tiles * splits * BLK_M * BLK_N floats; stream-K: one tile per worker
  int* counters = nullptr;       // splits > 1: tiles ints (stream-K: one per worker slot), zero on entry, left zero on exit
  bool cluster_splits = false;   // the non-persistent Hopper kernels split in two: the launch makes the K splits of a
                                 // tile one cluster (along z), whose blocks add each other's staged half-tile through
                                 // distributed shared memory and store that half (no workspace round trip; src/gemm.cu
                                 // says when)
  int a_box_rows = 0, b_box_rows = 0;  // the non-persistent Hopper kernels: a K-major A (B) one tile high (wide) and
                                 // shorter than it comes in boxes of this many rows (0: the tile's), the rest of
                                 // the stage tile left unwritten (src/gemm_plan.cu's choose says why)
  bool issue_pairs = false;      // the non-persistent Hopper kernels: the producer waits for two free stages and issues
                                 // K tiles 2j and 2j + 1 back to back (src/gemm.cu says when)
  bool d_tma = false;            // Hopper kernels with KernelInfo::tma_store: D leaves through the
                                 // tensor map argument map_d (16-bit D, 16-byte aligned base and ld)
  bool r_tma = false;            // with d_tma, a residual of D's order (16-byte aligned base and ld): it arrives
                                 // through the tensor map argument map_r into the staging tiles (the persistent
                                 // kernels compiled for the bare menus, KernelInfo::fn_bare, alone)
  // FP8 operands (the Hopper kernels built for them): per-tensor scales (device pointers to one float; null: 1), by
  // which the accumulators are multiplied before the epilogue, and the accumulation (GemmFp8Accum::fast: the tensor
  // cores' accumulator over all of K; else each 128-deep K tile's sum added in fp32 registers).
  const float* scale_a = nullptr;
  const float* scale_b = nullptr;
  bool scale_a_rows = false;  // scale_a holds m floats, one per row of the kernel's A (GemmScale::channel)
  bool scale_b_cols = false;  // scale_b holds n floats, one per column of the kernel's B
  // Block scales (GemmScale::block): scale_a holds k_tiles x m floats (a row's 128-deep K block at [kb * m + row]),
  // scale_b k_tiles x ceil(n / 128) ([kb * ceil(n / 128) + col / 128]); applied to each K tile's promoted sum.
  bool scale_a_blocks = false, scale_b_blocks = false;
  bool fp8_fast_accum = false;
  gemm_core::TileScheduler sched;  // the Hopper kernels' units (a persistent kernel's: cluster tiles of the fields
                                   // above, the stream-K tail, the grid's workers), built by the launch with its
                                   // divisors' constants; the other kernels place their blocks from the fields above

  epilogue::Params ep;
};

// Grouped tile order (see tessera/kernel/gemm/scheduler.hpp).
using gemm_core::grouped_tile;

#if defined(__CUDACC__)
// The end of every GEMM block (Ampere, SIMT and Hopper kernels): the staged fp32 tile (tile (tm, tn),
// written to `stage` and synchronised) is reduced over the K splits when the launch splits K -- only
// the block that arrives last goes on -- and then stored by the fused epilogue.  Epi: StagedEpilogue; `ahead`: the
// tile's epilogue inputs read before the main loop (Epi::fetch_ahead's buffer), or null.
template <class Epi>
__device__ __forceinline__ void finish_tile(float* stage, const Params& p, int tm, int tn, int split,
                                            const unsigned char* ahead = nullptr) {
  const int m0 = tm * Epi::kTileM, n0 = tn * Epi::kTileN;
  if (p.splits > 1 &&
      !Epi::reduce_split_k(stage, p.ep.d_row_major, p.partials, p.counters, tm * p.tiles_n + tn, split, p.splits,
                           p.m - m0 < Epi::kTileM ? p.m - m0 : Epi::kTileM, p.n - n0 < Epi::kTileN ? p.n - n0 : Epi::kTileN))
    return;
  Epi::store(stage, p.ep, m0, n0, ahead);
}
#endif

}  // namespace tessera::gemm_sm80
