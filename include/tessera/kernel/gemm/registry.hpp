// include/tessera/kernel/gemm/registry.hpp -- the compiled GEMM kernels as data: one table
// (src/gemm_registry.cpp) in which each kernel family is described once.  Validation, the planner,
// gemm_plan / GemmPlan::str(), the launch and `tessera bench gemm` read it; none of them names a tile.
// Host-only: plain C++20, no CUDA needed (the table's getters live in the CUDA instantiation units).
//
// An entry is one public tile (GemmTile) and everything that depends on it:
//
//   field       example (the cooperative Hopper kernel)      read by
//   tile        GemmTile::cooperative128x256                 validation, planner, GemmPlan
//   name        "coop128x256x64"                             messages, GemmPlan::str(), bench --tile
//   arch        sm90 (sm_90a code: compute capability 9.0)   planner (device check)
//   schedule    cooperative                                  bench's kernel listing
//   types       {tensor_core, bf16, getter},                 validation (operand types, tile_supports),
//               {tensor_core, f16, getter}                   planner, bench
//               (FP8: {tensor_core, e4m3, getter, e5m2}: A's type, then B's where it differs)
//   combos      (K, K), (K, N), (M, N)                       planner, bench
//   tma         operands by TMA: launched with tensor maps   planner (16-byte rule), launch
//   efficiency  1.8 (prior: fraction of the mma.sync rate)   planner's cost model
//   max_m       0 (no bound; 16 for the decode tile)         planner (automatic plans)
//   max_n       0 (no bound; 16 for the Hopper decode tile)  planner (automatic plans)
//
// A getter returns the KernelInfo (function, block tile, threads, shared memory, TMA boxes, cluster, ...) of one
// instantiation for one operand order, from the kernel's own compile-time constants; the KernelInfo is what the
// planner, its occupancy queries and the launch use.  (The block tile is not repeated here: the name spells it, and
// the host test checks the name against every getter's KernelInfo.)
//
// Adding a kernel: one instantiation unit (src/gemm_*.cu) defining its getter, the getter's declaration
// in src/gemm_kernels.hpp, and one entry here (plus a GemmTile value when it is a new public tile; a new
// operand type of an existing tile is one more line in that entry's `types`).
#pragma once

#include <span>         // std::span
#include <string_view>  // std::string_view

#include "tessera/dtype.hpp"                    // Dtype
#include "tessera/kernel/gemm/kernel_info.hpp"  // KernelInfo, Combo
#include "tessera/kernel/gemm/types.hpp"        // GemmMath, GemmTile

namespace tessera::gemm_core {

// The code a kernel needs: sm80 runs on compute capability 8.0 and newer; sm90 is sm_90a code (wgmma,
// TMA, clusters), which runs on compute capability 9.0 only.
enum class GemmArch : int { sm80 = 0, sm90 };
constexpr const char* arch_name(GemmArch a) { return a == GemmArch::sm80 ? "sm80" : "sm90"; }

// How a block computes its tile: on CUDA cores (FFMA, or dp4a for s8); mma.sync warps; wgmma warpgroups (one producer, two
// consumers on one tile); persistent cooperative (both consumers on one tile, D by TMA stores); GEMV (CUDA cores, a few
// rows of the weights against a batch of 1, K split among the block's warps: no split_k; 16-byte aligned bases and rows
// of A and B).
enum class GemmSchedule : int { simt = 0, mma_sync, wgmma, cooperative, gemv };
constexpr const char* schedule_name(GemmSchedule s) {
  switch (s) {
    case GemmSchedule::simt: return "simt";
    case GemmSchedule::mma_sync: return "mma.sync";
    case GemmSchedule::wgmma: return "wgmma";
    case GemmSchedule::cooperative: return "cooperative";
    case GemmSchedule::gemv: return "gemv";
  }
  return "?";
}

// One bit per Combo (GemmKernelEntry::combos).
constexpr unsigned combo_bit(Combo c) { return 1u << static_cast<int>(c); }
inline constexpr unsigned kEveryCombo = combo_bit(Combo::kk) | combo_bit(Combo::k_mn) | combo_bit(Combo::mn_mn);
inline constexpr unsigned kKMajorACombos = combo_bit(Combo::kk) | combo_bit(Combo::k_mn);  // no M-major A

// One operand type a family is built for: the math it computes on it and the getter into the instantiation unit
// (KernelInfo of one operand order, the block tile's K extent in elements of that type among its facts).
struct GemmKernelType {
  GemmMath math = GemmMath::tensor_core;
  Dtype in = Dtype::bf16;  // A (and B, unless in_b says otherwise)
  KernelInfo (*get)(Combo) = nullptr;
  int in_b = -1;  // B's Dtype where it differs from A's (the FP8 pairs); -1: B has A's type
  unsigned combos = 0;  // the operand orders built for this type (combo_bit), where fewer than the entry's; 0: the entry's
  constexpr Dtype b_type() const { return in_b < 0 ? in : static_cast<Dtype>(in_b); }
};

// One kernel family (see the table at the top).
struct GemmKernelEntry {
  GemmTile tile = GemmTile::automatic;
  const char* name = "";
  GemmArch arch = GemmArch::sm80;
  GemmSchedule schedule = GemmSchedule::mma_sync;
  std::span<const GemmKernelType> types;
  unsigned combos = kEveryCombo;  // the operand orders instantiated (combo_bit)
  bool any_order = false;  // one kernel with run-time layouts serves every order (the getter ignores the Combo)
  // Operands by TMA: the kernel needs 16-byte aligned bases and row pitches of A and B, and takes
  // (Params, map_a, map_b[, map_d, map_r]); the launch builds the tensor maps from KernelInfo's boxes.
  bool tma = false;
  // The planner's prior: the fraction of the 16-bit mma.sync rate a full wave of this kernel reaches
  // (measured; docs/PERF.md).
  double efficiency = 1.0;
  // Automatic plans use this family only for m <= max_m and n <= max_n, and then in preference to every family
  // without a bound (0: no bound).  The decode tile: max_m 16 (the batch is A); the Hopper decode tile: max_n 16 (the
  // batch is B: on Hopper a decode problem is planned with the weights as A, gemm_plan.cu's normalise).
  int max_m = 0;
  int max_n = 0;

  // The type entry for (math, A's type, B's type); null when the family is not built for it.
  constexpr const GemmKernelType* type(GemmMath m, Dtype in, Dtype in_b) const {
    for (const GemmKernelType& t : types)
      if (t.math == m && t.in == in && t.b_type() == in_b) return &t;
    return nullptr;
  }
  constexpr const GemmKernelType* type(GemmMath m, Dtype in) const { return type(m, in, in); }
  // Whether some type of the family computes `m` (what a forced tile is validated against).
  constexpr bool computes(GemmMath m) const {
    for (const GemmKernelType& t : types)
      if (t.math == m) return true;
    return false;
  }
  constexpr bool has(Combo c) const { return (combos & combo_bit(c)) != 0; }
  // Whether the order is built for type t (its own combos where it lists them).
  constexpr bool has(const GemmKernelType& t, Combo c) const { return ((t.combos ? t.combos : combos) & combo_bit(c)) != 0; }
  // The kernel for (math, A's type, B's type, operand order); fn == nullptr where none is built.
  KernelInfo kernel(GemmMath m, Dtype in, Dtype in_b, Combo c) const {
    const GemmKernelType* t = type(m, in, in_b);
    return t && has(*t, c) ? t->get(c) : KernelInfo{};
  }
  KernelInfo kernel(GemmMath m, Dtype in, Combo c) const { return kernel(m, in, in, c); }
};

// Every family, in the planner's order of preference: a tie in cost goes to the earlier entry.
std::span<const GemmKernelEntry> gemm_kernels();
// Look-ups: null when no entry matches (GemmTile::automatic, an unknown name).
const GemmKernelEntry* find_gemm_kernel(GemmTile t);
const GemmKernelEntry* find_gemm_kernel(std::string_view name);

}  // namespace tessera::gemm_core
