// include/tessera/kernel/gemm/kernel_info.hpp -- what the host needs to know of one compiled GEMM kernel to
// plan and launch it (KernelInfo), and the operand-majorness combinations the kernels are instantiated for
// (Combo).  Arch-neutral, host-only: plain C++20, no CUDA needed.  The instantiation units (src/gemm_*.cu) fill
// a KernelInfo from the kernel's compile-time constants; the registry (kernel/gemm/registry.hpp) says which
// unit holds which kernel.
#pragma once

namespace tessera::gemm_core {

// Operand majorness pair after the host's normalisation: (A, B) = (K, K), (K, N), (M, N).  The fourth,
// (M, K), is computed as the transposed problem D^T = B^T A^T, which is (K, N).
enum class Combo : int { kk = 0, k_mn, mn_mn };
inline constexpr Combo kCombos[] = {Combo::kk, Combo::k_mn, Combo::mn_mn};
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
  bool stream_k = false;      // persistent kernels that can run a stream-K tail (TileScheduler::sk_tiles in Params::sched): per worker
                              // (cluster) cluster_m * counters_per_tile flags and as many partial tiles
  // Hopper kernels: the TMA boxes (inner, outer extents in elements) of A and B, as the kernel's
  // shared-memory layouts give them (atom/smem_sm90.hpp); the host builds the tensor maps with these.
  unsigned box_a[2] = {0, 0}, box_b[2] = {0, 0};
  int cluster_m = 1;          // blocks per cluster along M (launched with a cluster dimension when > 1);
                              // each loads block_n / cluster_m rows of B and multicasts them
  // Kernels that can store D with TMA: the box of D's staging tile (inner, outer), 128-byte swizzled, along
  // D's contiguous dimension first.  Every Hopper kernel takes a third CUtensorMap argument, map_d, after map_a
  // and map_b, and every persistent one a fourth, map_r (the residual, the same box); read only when
  // Params::d_tma, Params::r_tma are set (the non-persistent kernels store only the bare GEMM through TMA and
  // never read the residual that way).
  bool tma_store = false;
  unsigned box_d[2] = {0, 0};
  // Persistent Hopper kernels: the same kernel compiled with the bare epilogue alone (D = A B through TMA stores,
  // alpha = 1, beta = 0, nothing else; D of the operands' type), launched in place of fn for that epilogue (and for
  // bare_menus', below): its code is a fraction of fn's, which the instruction cache feels between units.  Null: none.
  const void* fn_bare = nullptr;
  // fn_bare also runs these menus (the cooperative kernels; kernel/gemm_sm90/persistent_epilogue.hpp, pack_deferred):
  // D of the operands' type through TMA, beta = 0, any alpha, a bias of D's type per column or per row with a 4-byte
  // aligned base, or none, no activation, relu, gelu_tanh or silu, and a residual through TMA (Params::r_tma) or none.
  bool bare_menus = false;
  // The GEMV: the kernel that loops over groups of rows, launched in place of fn (one block a group) where the plan's
  // grid is smaller than its tiles (the dealt grid: src/gemm_plan.cu, kernel/gemm_sm80/gemv.hpp).  Null: none.
  const void* fn_dealt = nullptr;
};

}  // namespace tessera::gemm_core
