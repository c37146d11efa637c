// src/gemm_internal.hpp -- what the units of tessera::gemm share (not installed, not a user header).
//
//   gemm_validate.cu  1. validate   every argument, before anything touches the GPU
//   gemm_plan.cu      2. normalise  to the problem the kernels compute (operand majorness; some shapes
//                                   are computed transposed, D^T = B^T A^T)
//                     3. plan       tile and split-K from a cost model over the kernels built for it
//   gemm.cu           4. launch     cudaLaunchKernel of the chosen instantiation
// Every step learns what kernels exist from the registry (tessera/kernel/gemm/registry.hpp).
#pragma once

#include <cstdint>  // int64_t, uintptr_t
#include <string>   // std::string

#include "tessera/host/gemm.hpp"                // the API
#include "tessera/kernel/gemm/registry.hpp"     // GemmKernelEntry, KernelInfo, Combo
#include "tessera/kernel/gemm_sm80/config.hpp"  // Params, epilogue::Params

namespace tessera::gemm_detail {

using gemm_core::Combo;
using gemm_core::GemmKernelEntry;
using gemm_core::KernelInfo;

constexpr int64_t kIntMax = 2147483647;

// printf-style formatting into a std::string (messages are short).
std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));

inline GemmStatus fail(GemmError code, const std::string& msg) { return GemmStatus{code, "tessera::gemm: " + msg}; }
inline GemmStatus invalid(const std::string& msg) { return fail(GemmError::invalid_argument, msg); }

inline bool is_row_major(MatrixOrder o) { return o == MatrixOrder::row_major; }
// Leading dimension in effect (0 = packed) for a rows x cols matrix.
inline int64_t effective_ld(int64_t ld, MatrixOrder o, int64_t rows, int64_t cols) {
  return ld != 0 ? ld : (is_row_major(o) ? cols : rows);
}
inline bool vec16(const void* p, int64_t ld, int bytes) {
  return reinterpret_cast<uintptr_t>(p) % 16 == 0 && (ld * bytes) % 16 == 0;
}

GemmMath resolve_math(const GemmArgs& a);
// Whether a forced tile computes math m (automatic: every math); from the registry.
bool tile_supports(GemmTile t, GemmMath m);
const char* math_name(GemmMath m);
// The registry's name of t ("128x256x64", ...); "automatic", or "?" for a value that is no GemmTile.
const char* gemm_tile_name(GemmTile t);

// The normalised problem.
struct Operand {
  const void* data = nullptr;
  int64_t ld = 0;
  bool k_major = true;
};

struct Problem {
  GemmMath math = GemmMath::tensor_core;
  Dtype in = Dtype::bf16;    // A's type
  Dtype in_b = Dtype::bf16;  // B's type (differs from A's only for two FP8 types)
  const float* scale_a = nullptr;  // FP8: the per-tensor scales (their product scales A B; a transposition swaps them)
  const float* scale_b = nullptr;
  bool scale_a_rows = false, scale_b_cols = false;  // channel scales (GemmScale::channel; a transposition swaps them)
  bool scale_a_blocks = false, scale_b_blocks = false;  // block scales (GemmScale::block; never transposed)
  bool fp8_fast_accum = false;
  int64_t m = 0, n = 0, k = 0;
  Operand a, b;
  bool transposed = false;
  epilogue::Params ep;
};

// The bare GEMM's epilogue: D = A B scaled by nothing (alpha 1), with no bias, activation or residual.
inline bool bare_epilogue(const epilogue::Params& e) {
  return e.alpha == 1.f && e.bias_along == epilogue::kBiasNone && e.act == Activation::none && e.residual == nullptr;
}
// Alpha alone: no C (beta 0), bias, activation or residual -- the non-persistent Hopper kernels' plain_menu.
inline bool alpha_alone(const epilogue::Params& e) {
  return e.beta == 0.f && e.bias_along == epilogue::kBiasNone && e.act == Activation::none && e.residual == nullptr;
}
// The menus of the persistent kernels' bare-menus kernel (KernelInfo::fn_bare, bare_menus) as far as the problem tells:
// D of the operands' type (16-bit operands; bf16 for 8-bit ones), beta = 0, a bias of D's type along N or M or none, no
// activation, relu, gelu_tanh or silu, any alpha, a residual or none.  FP8 operands without gelu_tanh, silu and the
// residual: the menus whose store warps finish each slot (PersistentEpilogue::finishes), which pass one slot at a time
// through one buffer -- the FP8 kernel stages a unit's four slots within the next unit's first K tile (its promoted
// loop needs the packed words' registers from its second K tile on), where each would wait for the slot before it.
// The launch also needs D through TMA, a 4-byte aligned bias, a residual through TMA and (8-bit) per-tensor or channel
// scales (gemm.cu); the planner weighs the fused ones (gemm_plan.cu).
inline bool bare_kernel_menu(const epilogue::Params& e, Dtype in) {
  const bool fp8 = is_fp8(in);
  if (is_8bit_operand(in)) in = Dtype::bf16;
  const bool bias_ok = e.bias_along == epilogue::kBiasNone ||
                       ((e.bias_along == epilogue::kBiasAlongN || e.bias_along == epilogue::kBiasAlongM) && !e.bias_f32);
  const bool act_ok = e.act == Activation::none || e.act == Activation::relu ||
                      (!fp8 && (e.act == Activation::gelu_tanh || e.act == Activation::silu));
  return e.d_type == in && e.beta == 0.f && bias_ok && act_ok && (!fp8 || e.residual == nullptr);
}

// The scales the bare-menus kernel takes: none, per-tensor ones (applied after the drain, INT8's after the conversion
// of its s32 sums) or, with 8-bit operands, channel ones (applied before the pack); not FP8's block scales, which the
// promoted loop applies to each K tile's sum (the bare kernel has no copy of that loop).
inline bool bare_kernel_scales(const Problem& p) {
  return !p.scale_a_blocks && !p.scale_b_blocks && (is_8bit_operand(p.in) || (!p.scale_a_rows && !p.scale_b_cols));
}

// The plan: kernel, tile, split-K and the grid it implies.
struct Choice {
  KernelInfo kernel;
  const GemmKernelEntry* entry = nullptr;  // the registry's entry of the kernel's family
  int splits = 1;
  int64_t tiles = 0;
  int64_t ctas = 0;  // blocks along x: tiles, or for a persistent kernel min(units, resident blocks), or for the GEMV's
                     // dealt grid (KernelInfo::fn_dealt) the slots or a balanced grid (choose)
  int tiles_m = 0, tiles_n = 0;
  int occupancy = 0;
  double cost = 0;
  size_t workspace = 0;
  int sk_tiles = 0;  // persistent kernels: tiles (of clusters) of the stream-K tail (TileScheduler::sk_tiles in Params::sched)
  int group_m = 8;   // tile rows per group of the grouped tile order, at most tiles_m (Params::group_m; choose)
  // A streamed A (the weights of a decode plan on Hopper) whose blocks fill the SMs: its TMA map fetches 128-byte L2
  // lines instead of 256-byte ones (choose says why).
  bool stream_lines_128 = false;
  // Short boxes (short_box_rows): A's (B's) TMA box in this many of its rows where the operand is one tile high (wide)
  // and shorter than the tile; 0: the tile's box (Params::a_box_rows, b_box_rows).
  int a_box_rows = 0, b_box_rows = 0;
};

// Workspace layout: [counters (int), at least kFixedCounters of them, padded to 256 bytes][tiles * splits
// partial tiles (fp32)].  Every plan with up to kFixedCounters counters (every automatic split: it splits
// only below a wave of blocks) keeps them in the same first 16 KB, and its partial sums after them, so the
// kernels, which leave their counters zero, keep a shared workspace's counter region zero whatever
// problems use it in turn (workspace_zeroed).  A plan with more counters zero-fills them itself.
constexpr int64_t kFixedCounters = 4096;
inline size_t counters_bytes(int64_t counters) {
  return counters <= kFixedCounters ? static_cast<size_t>(kFixedCounters * 4) : static_cast<size_t>((counters * 4 + 255) / 256 * 256);
}

// The planner's split of a streamed A (the non-persistent Hopper kernels with n <= 64; gemm_plan.cu says why): for
// `tiles` output tiles of `k_tiles` K tiles on `slots` resident blocks, the fewest splits that leave each block at most
// `cap` K tiles (kStreamedCap; kDecodeTileCap for the 16-wide decode tile) and give at least 45% of the slots a block,
// within one wave; 1 where none does.
constexpr int64_t kStreamedCap = 112, kDecodeTileCap = 64;
int streamed_split(int64_t tiles, int64_t k_tiles, int64_t slots, int64_t cap = kStreamedCap);

// The split of the 64-row weight tiles (gemm_plan.cu's rows64_plan says why): for `tiles` output tiles of `k_tiles` K
// tiles and a batch of `batch` on `slots` resident blocks, 1 where the tiles alone give 90-100% of the slots a block, 2
// (a cluster pair) where twice as many blocks do and there are two K tiles to split; 0 (the tiles not planned) where
// neither does, for a batch of 17-24 and for a batch of 25-48 unsplit.
int rows64_split(int64_t tiles, int64_t k_tiles, int64_t slots, int64_t batch);

// K tiles issued in pairs (Params::issue_pairs; src/gemm.cu's launch says what was measured): a non-persistent Hopper
// kernel (`persistent` false) of 16-bit operands (`elem_bytes`) whose ring holds six stages or more (`stages`) and whose
// tile is 128 or more wide (`block_n`: the 128 x 128 tile), where the batch spans at most two tiles (`tiles_m` or
// `tiles_n` 1 or 2: one or two blocks on each band of the streamed weights).  The narrower tiles' rings of six to
// twelve and FP8's run one K tile at a time (measured faster or the same).
constexpr bool issue_pairs(bool persistent, int elem_bytes, int stages, int block_n, int64_t tiles_m, int64_t tiles_n) {
  return !persistent && elem_bytes == 2 && stages >= 6 && block_n >= 128 && (tiles_m <= 2 || tiles_n <= 2);
}

// The automatic stream-K tail of a persistent kernel (gemm_plan.cu's choose says what was measured): `units` cluster
// units on `workers` resident clusters, `k_tiles` K tiles each, leave a last wave of units % workers.  It is shared
// out by K tiles with one full wave when that wave is at most 55% full for 16-bit operands (`elem_bytes` 2), a quarter
// for the others; for a menu the store warps finish (`finished`: a residual, gelu_tanh or silu on the bare-menus
// kernel) only where each worker's share of the tail is at least 128 K tiles -- such a unit's four staging slots are
// spread over its next unit's first 56 K tiles, which a shorter stream-K piece does not have.
// stream_k_tail_units: the units a stream-K tail shares out -- the last, partial wave and one full wave before it --
// or 0 where there is no partial wave after a full one (the planner's forced `--stream-k on` takes the same test).
constexpr int64_t stream_k_tail_units(int64_t units, int64_t workers) {
  return workers <= 0 || units <= workers || units % workers == 0 ? 0 : units % workers + workers;
}
constexpr bool stream_k_pays(int64_t units, int64_t workers, int64_t k_tiles, int elem_bytes, bool finished) {
  if (stream_k_tail_units(units, workers) == 0) return false;
  const int64_t last = units % workers;
  const bool fill_ok = elem_bytes == 2 ? last * 20 <= workers * 11 : last * 4 <= workers;
  return fill_ok && (!finished || (last + workers) * k_tiles >= 128 * workers);
}

// Short boxes: a K-major operand (`k_major`) of `extent` rows (m for A, n for B) in one tile (`tiles`) that is shorter
// than the tile's `box_rows`-row TMA box comes in boxes of its own rows rounded up to 8 (whole 1024-byte periods of the
// 128-byte swizzle), where the kernel takes them (`eligible`: the non-persistent Hopper kernels, 16-bit operands;
// choose says why); 0 (the tile's box) otherwise, and where the rounding reaches the tile's box.
constexpr int short_box_rows(bool eligible, bool k_major, int64_t tiles, int64_t extent, int64_t box_rows) {
  const int64_t rows = (extent + 7) / 8 * 8;
  return eligible && k_major && tiles == 1 && extent > 0 && rows < box_rows ? static_cast<int>(rows) : 0;
}

// Steps 1-3: validate, normalise, plan.  `ws_limit`: bytes available for split-K (SIZE_MAX: unlimited).
GemmStatus plan_impl(const GemmArgs& g, size_t ws_limit, Problem* prob, Choice* choice);

}  // namespace tessera::gemm_detail
