// src/gemm_registry.cpp -- the registry of the compiled GEMM kernels (kernel/gemm/registry.hpp): one entry per
// kernel family, in the planner's order of preference.  Host code only; the getters are defined in the
// instantiation units (src/gemm_kernels.hpp lists them).
#include "tessera/kernel/gemm/registry.hpp"

#include "gemm_kernels.hpp"  // sm80_*, sm90_*

namespace tessera::gemm_core {
namespace {

constexpr GemmMath kTc = GemmMath::tensor_core;

// The operand types of each family: (math, A/B type, getter[, B's type]).  Every tensor-core K tile is 128 bytes deep
// (one 128-byte swizzle row): 64 16-bit, 32 tf32 or 128 FP8 elements (the getters' KernelInfo::block_k).
constexpr GemmKernelType kWgmma128x256[] = {{kTc, Dtype::bf16, sm90_bf16_wgmma128x256},
                                            {kTc, Dtype::f16, sm90_f16_wgmma128x256}};
// The 128 x 128, 128 x 64 and decode tiles also for FP8 (K tiles of 128 one-byte elements; every pair of e4m3 and e5m2;
// K-major A and B, the getters return no kernel for the other orders).
constexpr int kE4m3 = static_cast<int>(Dtype::e4m3), kE5m2 = static_cast<int>(Dtype::e5m2);
constexpr unsigned kKK = combo_bit(Combo::kk);
// The persistent cooperative kernels: 16-bit in every order, FP8 (every pair) and INT8 (s8 x s8) K-major.
constexpr GemmKernelType kCoop128x256[] = {{kTc, Dtype::bf16, sm90_bf16_coop128x256},
                                           {kTc, Dtype::f16, sm90_f16_coop128x256},
                                           {kTc, Dtype::e4m3, sm90_e4m3_e4m3_coop128x256, kE4m3, kKK},
                                           {kTc, Dtype::e4m3, sm90_e4m3_e5m2_coop128x256, kE5m2, kKK},
                                           {kTc, Dtype::e5m2, sm90_e5m2_e4m3_coop128x256, kE4m3, kKK},
                                           {kTc, Dtype::e5m2, sm90_e5m2_e5m2_coop128x256, kE5m2, kKK},
                                           {kTc, Dtype::s8, sm90_s8_s8_coop128x256, static_cast<int>(Dtype::s8), kKK}};
constexpr GemmKernelType kWgmma128x128[] = {{kTc, Dtype::bf16, sm90_bf16_wgmma128x128},
                                            {kTc, Dtype::f16, sm90_f16_wgmma128x128},
                                            {kTc, Dtype::e4m3, sm90_e4m3_e4m3_wgmma128x128, kE4m3, kKK},
                                            {kTc, Dtype::e4m3, sm90_e4m3_e5m2_wgmma128x128, kE5m2, kKK},
                                            {kTc, Dtype::e5m2, sm90_e5m2_e4m3_wgmma128x128, kE4m3, kKK},
                                            {kTc, Dtype::e5m2, sm90_e5m2_e5m2_wgmma128x128, kE5m2, kKK}};
constexpr GemmKernelType kWgmma128x64[] = {{kTc, Dtype::bf16, sm90_bf16_wgmma128x64},
                                           {kTc, Dtype::f16, sm90_f16_wgmma128x64},
                                           {kTc, Dtype::e4m3, sm90_e4m3_e4m3_wgmma128x64, kE4m3, kKK},
                                           {kTc, Dtype::e4m3, sm90_e4m3_e5m2_wgmma128x64, kE5m2, kKK},
                                           {kTc, Dtype::e5m2, sm90_e5m2_e4m3_wgmma128x64, kE4m3, kKK},
                                           {kTc, Dtype::e5m2, sm90_e5m2_e5m2_wgmma128x64, kE5m2, kKK}};
constexpr GemmKernelType kWgmma128x16[] = {{kTc, Dtype::bf16, sm90_bf16_wgmma128x16},
                                           {kTc, Dtype::f16, sm90_f16_wgmma128x16},
                                           {kTc, Dtype::e4m3, sm90_e4m3_e4m3_wgmma128x16, kE4m3},
                                           {kTc, Dtype::e4m3, sm90_e4m3_e5m2_wgmma128x16, kE5m2},
                                           {kTc, Dtype::e5m2, sm90_e5m2_e4m3_wgmma128x16, kE4m3},
                                           {kTc, Dtype::e5m2, sm90_e5m2_e5m2_wgmma128x16, kE5m2}};
constexpr GemmKernelType kWgmma64x16[] = {{kTc, Dtype::bf16, sm90_bf16_wgmma64x16}, {kTc, Dtype::f16, sm90_f16_wgmma64x16}};
constexpr GemmKernelType kWgmma64x64[] = {{kTc, Dtype::bf16, sm90_bf16_wgmma64x64}, {kTc, Dtype::f16, sm90_f16_wgmma64x64}};
constexpr GemmKernelType k128x256[] = {{kTc, Dtype::bf16, sm80_bf16_128x256}, {kTc, Dtype::f16, sm80_f16_128x256}};
constexpr GemmKernelType k128x128[] = {{kTc, Dtype::bf16, sm80_bf16_128x128},
                                       {kTc, Dtype::f16, sm80_f16_128x128},
                                       {GemmMath::tf32, Dtype::f32, sm80_tf32_128x128}};
constexpr GemmKernelType k64x64[] = {{kTc, Dtype::bf16, sm80_bf16_64x64},
                                     {kTc, Dtype::f16, sm80_f16_64x64},
                                     {GemmMath::tf32, Dtype::f32, sm80_tf32_64x64}};
constexpr GemmKernelType k16x128[] = {{kTc, Dtype::bf16, sm80_bf16_16x128}, {kTc, Dtype::f16, sm80_f16_16x128}};
constexpr GemmKernelType kSimt128x128[] = {{GemmMath::fp32_exact, Dtype::f32, sm80_f32_simt128x128}};
// INT8 on CUDA cores (dp4a): s8 x s8, K-major A and B (the 8-bit operands' only orders); K tiles of 64 bytes.
constexpr GemmKernelType kDp4a128x128[] = {{GemmMath::dp4a, Dtype::s8, sm80_s8_dp4a128x128}};
// GEMV on CUDA cores: bf16 / f16, K-major A (the weights) and B (the batch).
constexpr GemmKernelType kGemv4x1[] = {{kTc, Dtype::bf16, sm80_bf16_gemv4x1}, {kTc, Dtype::f16, sm80_f16_gemv4x1}};

// The planner tries the entries in this order and keeps the first of equal costs.  Efficiencies: the
// fraction of the 16-bit mma.sync rate a full wave reaches (docs/PERF.md has the measurements).
constexpr GemmKernelEntry kEntries[] = {
    // Persistent cooperative, clusters of 2 with B multicast: 0.95-0.98x cuBLAS on large bf16 problems.
    {.tile = GemmTile::cooperative128x256, .name = "coop128x256x64", .arch = GemmArch::sm90,
     .schedule = GemmSchedule::cooperative, .types = kCoop128x256, .tma = true,
     .efficiency = 1.8},
    // wgmma: measured 1.4-1.6x the 128x256 mma.sync kernel.
    {.tile = GemmTile::wgmma128x256, .name = "wgmma128x256x64", .arch = GemmArch::sm90, .schedule = GemmSchedule::wgmma,
     .types = kWgmma128x256, .tma = true, .efficiency = 1.7},
    {.tile = GemmTile::wgmma128x128, .name = "wgmma128x128x64", .arch = GemmArch::sm90, .schedule = GemmSchedule::wgmma,
     .types = kWgmma128x128, .tma = true, .efficiency = 1.6},
    // The same kernel with a 128 x 64 tile, eight stages: problems whose 128 x 128 tiles fill less than half the SMs
    // (1024^3: 64 such tiles for 132 SMs); below 1.6 so that it wins only where its own tiles fit one wave.
    {.tile = GemmTile::wgmma128x64, .name = "wgmma128x64x64", .arch = GemmArch::sm90, .schedule = GemmSchedule::wgmma,
     .types = kWgmma128x64, .tma = true, .efficiency = 1.5},
    // The Hopper decode tile: the weights as A (128 rows a block), the batch as B (n <= 16), K-major both (its split:
    // the planner's rule for streamed A, gemm_plan.cu).
    {.tile = GemmTile::wgmma128x16, .name = "wgmma128x16x64", .arch = GemmArch::sm90, .schedule = GemmSchedule::wgmma,
     .types = kWgmma128x16, .combos = combo_bit(Combo::kk), .tma = true, .efficiency = 0.5, .max_n = 16},
    {.tile = GemmTile::t128x256, .name = "128x256x64", .arch = GemmArch::sm80, .schedule = GemmSchedule::mma_sync,
     .types = k128x256, .efficiency = 1.0},
    {.tile = GemmTile::t128x128, .name = "128x128x64", .arch = GemmArch::sm80, .schedule = GemmSchedule::mma_sync,
     .types = k128x128, .efficiency = 0.9},
    {.tile = GemmTile::t64x64, .name = "64x64x64", .arch = GemmArch::sm80, .schedule = GemmSchedule::mma_sync,
     .types = k64x64, .efficiency = 0.65},
    // The decode tile: streams B for m <= 16 (split-K fills the GPU); no M-major A.
    {.tile = GemmTile::t16x128, .name = "16x128x64", .arch = GemmArch::sm80, .schedule = GemmSchedule::mma_sync,
     .types = k16x128, .combos = kKMajorACombos, .efficiency = 0.5, .max_m = 16},
    {.tile = GemmTile::simt128x128, .name = "simt128x128x8", .arch = GemmArch::sm80, .schedule = GemmSchedule::simt,
     .types = kSimt128x128, .any_order = true, .efficiency = 1.0},
    // The portable INT8 path and baseline: dp4a on CUDA cores (sm_80 and newer); GemmMath::dp4a only, so it never
    // competes with another family for a problem (the planner's rate for dp4a: gemm_plan.cu's plan_cost).
    {.tile = GemmTile::dp4a128x128, .name = "dp4a128x128x64", .arch = GemmArch::sm80, .schedule = GemmSchedule::simt,
     .types = kDp4a128x128, .combos = kKK, .efficiency = 1.0},
    // GEMV: decode with a batch of 1 (the batch as B, max_n), in preference to the decode tiles (the planner costs it as
    // a read of the weights: gemm_plan.cu's plan_cost): 0.99-1.07x cuBLAS where the Hopper decode tile runs 0.92-0.98
    // (H200, docs/PERF.md, forty-eighth session).  GEMVs for batches of 4 and 8, measured, lost everywhere to the
    // decode tiles (their FFMAs and B's conversions cost about as much issue time as the weights' read) and are not built.
    {.tile = GemmTile::gemv4x1, .name = "gemv4x1x256", .arch = GemmArch::sm80, .schedule = GemmSchedule::gemv,
     .types = kGemv4x1, .combos = kKK, .efficiency = 1.0, .max_n = 1},
    // The 64-row weight tiles (one consumer warpgroup a block): the planner takes them, in place of the 128-row decode
    // tiles, by its own rule (gemm_plan.cu's rows64_plan), where their blocks unsplit or in cluster pairs fill the SMs.
    {.tile = GemmTile::wgmma64x16, .name = "wgmma64x16x64", .arch = GemmArch::sm90, .schedule = GemmSchedule::wgmma,
     .types = kWgmma64x16, .combos = combo_bit(Combo::kk), .tma = true, .efficiency = 0.5, .max_n = 16},
    {.tile = GemmTile::wgmma64x64, .name = "wgmma64x64x64", .arch = GemmArch::sm90, .schedule = GemmSchedule::wgmma,
     .types = kWgmma64x64, .combos = combo_bit(Combo::kk), .tma = true, .efficiency = 1.0, .max_n = 64},
};

}  // namespace

std::span<const GemmKernelEntry> gemm_kernels() { return kEntries; }

const GemmKernelEntry* find_gemm_kernel(GemmTile t) {
  for (const GemmKernelEntry& e : kEntries)
    if (e.tile == t) return &e;
  return nullptr;
}

const GemmKernelEntry* find_gemm_kernel(std::string_view name) {
  for (const GemmKernelEntry& e : kEntries)
    if (name == e.name) return &e;
  return nullptr;
}

}  // namespace tessera::gemm_core
