// include/tessera/kernel/gemm_sm80/dispatch.hpp -- the compiled GEMM kernels as data: the host API
// (src/gemm_plan.cu, src/gemm.cu) asks the instantiation units (src/gemm_sm80_*.cu, src/gemm_simt_f32.cu) for a kernel by
// (element, tile, operand majorness) and launches it through cudaLaunchKernel.  Host-only header.
#pragma once

namespace tessera::gemm_sm80 {

enum class TileId : int { t128x256 = 0, t128x128, t64x64, t16x128, simt128x128, wgmma128x128, wgmma128x256, pp64x256, coop128x256 };
inline constexpr int kTileCount = 9;
constexpr const char* tile_name(TileId t) {
  switch (t) {
    case TileId::t128x256: return "128x256x64";
    case TileId::t128x128: return "128x128x64";
    case TileId::t64x64: return "64x64x64";
    case TileId::t16x128: return "16x128x64";
    case TileId::simt128x128: return "simt128x128x8";
    case TileId::wgmma128x128: return "wgmma128x128x64";
    case TileId::wgmma128x256: return "wgmma128x256x64";
    case TileId::pp64x256: return "pp64x256x64";
    case TileId::coop128x256: return "coop128x256x64";
  }
  return "?";
}

// The Hopper (sm_90a) tiles: TMA operands, launched with two CUtensorMap arguments after Params.
constexpr bool is_sm90(TileId t) {
  return t == TileId::wgmma128x128 || t == TileId::wgmma128x256 || t == TileId::pp64x256 || t == TileId::coop128x256;
}

// Operand majorness pair after the host's normalisation: (A, B) = (K, K), (K, N), (M, N).  The fourth,
// (M, K), is computed as the transposed problem D^T = B^T A^T, which is (K, N).
enum class Combo : int { kk = 0, k_mn, mn_mn };
constexpr const char* combo_name(Combo c) { return c == Combo::kk ? "KK" : c == Combo::k_mn ? "KN" : "MN"; }

struct KernelInfo {
  const void* fn = nullptr;  // the __global__ function; null: not built
  int threads = 0;
  int smem_bytes = 0;  // dynamic shared memory per block
  int block_m = 0, block_n = 0, block_k = 0;
  int stages = 0;
  int min_blocks = 0;  // __launch_bounds__ minimum blocks per SM
  bool persistent = false;  // grid = min(work units, resident blocks); the kernel loops over units
  int counters_per_tile = 1;  // split-K arrival counters per output tile
  // Hopper kernels: the TMA boxes (inner, outer extents in elements) of A and B, as the kernel's
  // shared-memory layouts give them (atom/smem_sm90.hpp); the host builds the tensor maps with these.
  unsigned box_a[2] = {0, 0}, box_b[2] = {0, 0};
  int cluster_m = 1;          // blocks per cluster along M (launched with a cluster dimension when > 1);
                              // each loads block_n / cluster_m rows of B and multicasts them
  // Kernels that can store D with TMA: the box of D's staging tile (inner, outer), 128-byte swizzled, along
  // D's contiguous dimension first.  Every persistent Hopper kernel takes a third and a fourth CUtensorMap
  // argument, map_d and map_r (the residual, the same box), after map_a and map_b (read only when Params::d_tma,
  // Params::r_tma are set).
  bool tma_store = false;
  unsigned box_d[2] = {0, 0};
};

// Tensor-core kernels; fn == nullptr for a combination that is not instantiated.
KernelInfo kernel_bf16(TileId tile, Combo combo);  // src/gemm_sm80_bf16_large.cu, src/gemm_sm80_bf16_small.cu
KernelInfo kernel_f16(TileId tile, Combo combo);   // src/gemm_sm80_f16_large.cu, src/gemm_sm80_f16_small.cu
KernelInfo kernel_tf32(TileId tile, Combo combo);  // src/gemm_sm80_tf32.cu
// The exact fp32 FFMA kernel (any majorness, run-time).
KernelInfo kernel_simt_f32();                      // src/gemm_simt_f32.cu
// The Hopper kernels (include/tessera/kernel/gemm_sm90): 16-bit, any of the three combinations, TMA operands; launched
// with two CUtensorMap arguments after Params.  fn is set whenever it is compiled in; it has code only
// for sm_90a (the planner checks the device and cudaFuncGetAttributes).
KernelInfo kernel_sm90(TileId tile, bool f16, Combo combo);  // src/gemm_sm90.cu (wgmma tiles),
// The persistent Hopper kernels (pp64x256, coop128x256): src/gemm_sm90_persistent_*.cu.
KernelInfo kernel_sm90_persistent(TileId tile, bool f16, Combo combo);
KernelInfo kernel_sm90_persistent_bf16_pp(Combo combo);
KernelInfo kernel_sm90_persistent_f16_pp(Combo combo);
KernelInfo kernel_sm90_persistent_bf16_coop(Combo combo);
KernelInfo kernel_sm90_persistent_f16_coop(Combo combo);

// Per-family halves (bf16 and f16 are split in two units so that a 2-core build compiles them in parallel).
KernelInfo kernel_bf16_large(TileId tile, Combo combo);
KernelInfo kernel_bf16_small(TileId tile, Combo combo);
KernelInfo kernel_f16_large(TileId tile, Combo combo);
KernelInfo kernel_f16_small(TileId tile, Combo combo);

}  // namespace tessera::gemm_sm80
