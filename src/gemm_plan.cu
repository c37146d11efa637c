// src/gemm_plan.cu -- tessera::gemm planning: the problem the kernels compute (normalise) and the
// tile + split-K choice from a cost model over the kernels built for it:
//   normalise  operand majorness (A: K- or M-major, B: K- or N-major); the (M-major A, K-major B) case
//              and decode-shaped problems are computed transposed, D^T = B^T A^T (rows <-> columns of C,
//              D, residual and bias): on Hopper so that the weights are A (the large extent in m), elsewhere
//              so that the batch is (the 16 x 128 tile's small m)
//   choose     waves of blocks at the kernel's occupancy vs. bytes over memory bandwidth, with the ratio
//              of tensor-core rate to bandwidth derived from the device's clocks, SM count and bus
// The device queries it rests on (facts, occupancy, resident blocks, code present) are src/gemm_device.cpp's; what
// gemm_plan reports of the choice (GemmPlan, its description), src/gemm_plan_report.cpp's.
#include <cuda_runtime.h>  // cudaGetDevice

#include <algorithm>  // std::max, std::min
#include <cinttypes>  // PRId64
#include <cmath>      // std::ceil, std::sqrt, std::llround
#include <compare>    // operator<=>
#include <map>        // std::map
#include <mutex>      // std::mutex
#include <utility>    // std::pair, std::swap

#include "gemm_device.hpp"  // DeviceFacts, device_facts, occupancy, has_code, resident_blocks
#include "gemm_internal.hpp"
#include "tessera/kernel/gemm/scheduler.hpp"  // TileScheduler::sk_fits

namespace tessera {
namespace {

using namespace gemm_detail;

// Steps 2: the problem the kernels compute, with `math` (planned_math below).  `weights_as_a`: decode-shaped problems are
// oriented for the Hopper kernels, the large extent (the weights' rows) in m and the batch in n (hopper_decode below),
// and a 16-bit batch of 65-128 the other way round, in m.
Problem normalise(const GemmArgs& g, GemmMath math, bool weights_as_a) {
  Problem p;
  p.math = math;
  p.in = g.a.type;
  p.in_b = g.b.type;
  p.scale_a = g.scale_a;
  p.scale_b = g.scale_b;
  p.scale_a_rows = g.scale_a_mode == GemmScale::channel;
  p.scale_b_cols = g.scale_b_mode == GemmScale::channel;
  p.scale_a_blocks = g.scale_a_mode == GemmScale::block;
  p.scale_b_blocks = g.scale_b_mode == GemmScale::block;
  p.fp8_fast_accum = g.fp8_accum == GemmFp8Accum::fast;
  p.m = g.m;
  p.n = g.n;
  p.k = g.k;
  // A (m x k) is K-major when row-major; B (k x n) is K-major when column-major.
  p.a = Operand{g.a.data, effective_ld(g.a.ld, g.a.order, g.m, g.k), is_row_major(g.a.order)};
  p.b = Operand{g.b.data, effective_ld(g.b.ld, g.b.order, g.k, g.n), !is_row_major(g.b.order)};

  epilogue::Params& e = p.ep;
  e.alpha = g.alpha;
  e.beta = g.beta;
  e.d = g.d.data;
  e.d_type = g.d.type;
  e.ldd = effective_ld(g.d.ld, g.d.order, g.m, g.n);
  e.d_row_major = is_row_major(g.d.order);
  if (g.beta != 0.f) {
    e.c = g.c.data;
    e.ldc = effective_ld(g.c.ld, g.c.order, g.m, g.n);
    e.c_row_major = is_row_major(g.c.order);
  }
  if (g.residual.data) {
    e.residual = g.residual.data;
    e.ldr = effective_ld(g.residual.ld, g.residual.order, g.m, g.n);
    e.r_row_major = is_row_major(g.residual.order);
  }
  e.bias = g.bias_mode == BiasMode::none ? nullptr : g.bias;
  e.bias_along = g.bias_mode == BiasMode::none         ? epilogue::kBiasNone
                 : g.bias_mode == BiasMode::per_row    ? epilogue::kBiasAlongM
                 : g.bias_mode == BiasMode::per_column ? epilogue::kBiasAlongN
                                                       : epilogue::kBiasScalar;
  e.bias_f32 = g.bias_type == Dtype::f32;
  e.act = g.activation;
  e.act_p0 = g.activation == Activation::leaky_relu ? g.leaky_relu_slope : g.clamp_lo;
  e.act_p1 = g.clamp_hi;

  if (p.math != GemmMath::fp32_exact) {
    // (M-major A, K-major B) has no kernel of its own: transpose.  Decode-shaped problems: on Hopper the weights
    // become A, the batch B -- m <= 64 below n, both operands K-major, is transposed (the 128-row side of the wgmma
    // tiles then streams the weights: at 64 x 8192^2 0.57 -> 0.88x cuBLAS with the 128 x 64 tile; the batch as the
    // 128-row side leaves half of each A box empty and a third of each stage for the weights; docs/PERF.md,
    // thirty-eighth session); elsewhere the small extent becomes m (the 16 x 128 tile wants a K-major A).
    // (Only where the Hopper tiles can take the operands: TMA's 16-byte bases and rows.)
    const bool mk = !p.a.k_major && p.b.k_major;
    const int eb = dtype_bytes(p.in);
    const bool hopper = weights_as_a && vec16(p.a.data, p.a.ld, eb) && vec16(p.b.data, p.b.ld, eb);
    // (Block scales stay as given: A's 1 x 128 and B's 128 x 128 blocks do not trade places.)
    // A 16-bit batch of 65-128 as B against weights of at least 1024 rows, planned automatically, becomes m too: the
    // batch as A of the 128-row tiles, in boxes of its own rows (short boxes: choose), ran 96 x 8192^2 in 39.1 us
    // where the batch as B took 51.6 (the planner's plan) and 40.5 (the best forced one; H200, docs/PERF.md,
    // sixty-first section).
    const bool batch_b = hopper && eb == 2 && g.tile == GemmTile::automatic && g.n > 64 && g.n <= 128 && g.m >= 1024;
    const bool decode_t = p.math == GemmMath::tensor_core && p.b.k_major && !p.scale_a_blocks && !p.scale_b_blocks &&
                          (hopper ? ((g.m <= 64 && g.n > g.m) || batch_b) && p.a.k_major : g.n <= 16 && g.m > 16);
    if (mk || decode_t) {
      p.transposed = true;
      std::swap(p.m, p.n);
      std::swap(p.a, p.b);  // A' = B^T keeps B's majorness: K stays K, N becomes M'
      std::swap(p.in, p.in_b);
      std::swap(p.scale_a, p.scale_b);
      std::swap(p.scale_a_rows, p.scale_b_cols);  // B's columns are the rows of B^T, A's rows the columns of A^T
      e.d_row_major = !e.d_row_major;
      e.c_row_major = !e.c_row_major;
      e.r_row_major = !e.r_row_major;
      if (e.bias_along == epilogue::kBiasAlongM) e.bias_along = epilogue::kBiasAlongN;
      else if (e.bias_along == epilogue::kBiasAlongN) e.bias_along = epilogue::kBiasAlongM;
    }
  }
  e.m = static_cast<int>(p.m);
  e.n = static_cast<int>(p.n);
  const int ob = dtype_bytes(e.d_type);
  e.d_vec = vec16(e.d, e.ldd, ob);
  e.c_vec = e.c && vec16(e.c, e.ldc, ob);
  e.r_vec = e.residual && vec16(e.residual, e.ldr, ob);
  return p;
}

Combo combo_of(const Problem& p) {
  if (p.a.k_major && p.b.k_major) return Combo::kk;
  if (p.a.k_major) return Combo::k_mn;
  return Combo::mn_mn;  // (M-major, K-major) was transposed away
}

// The kernel of family `e` for the problem's math, operand type and majorness; fn == nullptr when there is
// none, or when its operands come by TMA (or it is a GEMV, which reads them 16 bytes at a time) and A or B is not
// 16-byte aligned (base and row pitch).
KernelInfo kernel_for(const Problem& p, const GemmKernelEntry& e) {
  if (e.tma || e.schedule == gemm_core::GemmSchedule::gemv) {
    const int eb = dtype_bytes(p.in);
    if (!vec16(p.a.data, p.a.ld, eb) || !vec16(p.b.data, p.b.ld, eb)) return {};
  }
  return e.kernel(p.math, p.in, p.in_b, combo_of(p));
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

size_t workspace_for(int64_t tiles, int splits, const KernelInfo& k) {
  if (splits <= 1) return 0;
  return counters_bytes(tiles * k.counters_per_tile) + static_cast<size_t>(tiles) * splits * k.block_m * k.block_n * sizeof(float);
}

// A streamed A: a non-persistent Hopper kernel with a batch of at most 64 as B (decode, the weights as A; choose).
bool streamed_a(const Problem& p, const GemmKernelEntry& e, const KernelInfo& k) {
  return e.arch == gemm_core::GemmArch::sm90 && !k.persistent && p.n <= 64;
}

// A fused menu (not the bare GEMM) of the kind the persistent kernels run in their bare-menus kernel.
bool persistent_fused_menu(const Problem& p) { return !bare_epilogue(p.ep) && bare_kernel_menu(p.ep, p.in) && bare_kernel_scales(p); }
// Of those, a menu whose store warps finish each slot (PersistentEpilogue::finishes: a residual, gelu_tanh or silu):
// the automatic stream-K tail's rule (stream_k_pays).
bool store_warps_finish(const Problem& p) {
  return persistent_fused_menu(p) &&
         (p.ep.residual != nullptr || p.ep.act == Activation::gelu_tanh || p.ep.act == Activation::silu);
}

// Cost (in MAC-time units of one SM) of running kernel k with `splits` K splits.  `streamed`: the split is the
// streamed-A rule's (choose), whose blocks saturate DRAM though they leave slots empty.
double plan_cost(const Problem& p, const DeviceFacts& f, const KernelInfo& k, const GemmKernelEntry& e, int occ,
                 int64_t tiles, int splits, int per_split, bool streamed) {
  // The bytes of A, B and D.
  const double bytes = static_cast<double>(p.m * p.k + p.k * p.n) * dtype_bytes(p.in) +
                       static_cast<double>(p.m) * p.n * dtype_bytes(p.ep.d_type);
  if (e.schedule == gemm_core::GemmSchedule::gemv) {
    // A GEMV reads A, B and D once at DRAM speed with every SM busy, or takes its FFMAs at the CUDA cores' rate (a
    // sixteenth of the 16-bit mma.sync rate, as fp32_exact below), whichever is longer: at its batch of 1 the read.
    // (GEMVs for batches of 4 and 8, measured on the H200, added about a tenth of a nanosecond a multiply-add to the
    // read -- the FFMAs and B's conversions, in issue slots the read did not hide -- and lost to the decode tiles.)
    const double t_ffma = static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k) * 16.0 / f.sms;
    return std::max(bytes * f.mac_per_byte / f.sms, t_ffma);
  }
  const double slots = static_cast<double>(f.sms) * occ;
  const double blocks = static_cast<double>(tiles) * splits;
  const double waves = std::ceil(blocks / slots);
  const double block_macs = static_cast<double>(k.block_m) * k.block_n * per_split * k.block_k;
  // tf32 runs at half the 16-bit tensor-core rate; FFMA at about a sixteenth; FP8 at twice; dp4a (4 s8 MACs per lane,
  // issued at the 64 lanes per SM and clock of the integer multiply-add pipe -- an assumption: the CUDA guides list no
  // dp4a rate; docs/GEMM.md, "DP4A") at a quarter
  const double rate_scale = p.math == GemmMath::tf32         ? 2.0
                            : p.math == GemmMath::fp32_exact ? 16.0
                            : p.math == GemmMath::dp4a       ? 4.0
                            : is_8bit_operand(p.in)          ? 0.5
                                                             : 1.0;
  const double t_compute = waves * block_macs * occ / e.efficiency * rate_scale;
  // Bandwidth is only saturated while every slot holds a block: `busy` is the used share of slot-time.
  const double busy = blocks / (waves * slots);
  const double t_mem = bytes * f.mac_per_byte / f.sms / (streamed ? 1.0 : busy);
  // Split-K: the partial tiles are written and read after the main loop (not overlapped with it), and
  // the counter reset plus the fix-up's serial tail cost about 2 us.
  const double partial_bytes = splits > 1 ? blocks * k.block_m * k.block_n * 4.0 * 2.0 : 0.0;
  const double t_fix = partial_bytes * f.mac_per_byte / f.sms / busy + (splits > 1 ? 2.0 * f.sm_macs_per_us : 0.0);
  // (+ 1% of the compute time: where the bytes bound every candidate alike, the tile that computes least of what
  // it throws away wins -- 64 x 14336 x 4096 on Hopper, the batch as a 64-wide B: the 128 x 64 tile 0.96x cuBLAS,
  // the 128 x 128 tile, which costs the same bytes, 0.74; docs/PERF.md, thirty-eighth session.)
  return std::max(t_compute, t_mem) + t_fix + 0.01 * t_compute;
}

// A fused menu (not alpha alone) of a batch of 2-16 against weights whose 128-row tiles number at least 80% of the SMs,
// on a device with the Hopper decode tile, 16-bit operands, both K-major, tile and split planned: the weights as A of the
// 128 x 64 wgmma tile, unsplit, the batch in a short box of B (choose: short_box_rows), in place of the decode tiles.
// Measured with that menu (bias per column, SiLU, residual; H200, bf16, `tessera bench gemm --plans --menu
// bias_silu_residual`, second pass, us; docs/PERF.md, sixty-second section), the 128 x 64 tile unsplit / the Ampere 16 x
// 128 tile unsplit (the batch as m: this rule's tile before) / the decode tile's best, in two calls: at (28672, 8192)
// and a batch of 2 / 4 / 8 / 16, 118.3 / 121.5 / 123.1, 121.1 / 122.5 / 124.1, 117.9 / 123.2 / 124.5, 122.6 / 124.4 /
// 120.6, then 116.7 / 122.6 / 122.5, 118.3 / 122.3 / 122.5, 116.7 / 122.8 / 123.4, 117.6 / 123.5 / 122.3 (cuBLAS's
// GEMM + gemm_epilogue_inplace 118.0-119.3); at (14336, 4096) 36.5 / 37.5 / 37.1, 36.0 / 37.7 / 37.0, 36.4 / 37.7 /
// 37.0, 35.7 / 38.6 / 36.0, then 35.9 / 35.6 / 36.9, 36.7 / 35.9 / 36.6, 36.6 / 37.3 / 36.7, 36.3 / 38.5 / 35.5 --
// within the calls' spread of one another there.  The bare GEMM of those batches stays on the decode tile, unsplit: its
// D leaves the registers straight to global memory (docs/GEMM.md), which the fused menus' staged epilogue does not.
// (The rule reads the normalised problem: both operands K-major, the weights as A (p.m rows), the batch as B (p.n).)
int64_t gemv_max_batch();  // (below)
GemmTile fused_wide_plan(const GemmArgs& g, const Problem& p, const DeviceFacts& f, int dev) {
  const bool wide = (p.m + 127) / 128 * 5 >= static_cast<int64_t>(f.sms) * 4;
  if (alpha_alone(p.ep) || !f.decode_tile || f.cc != 90 || g.tile != GemmTile::automatic || g.split_k != 0 ||
      (p.in != Dtype::bf16 && p.in != Dtype::f16) || p.in_b != p.in || !p.a.k_major || !p.b.k_major ||
      p.n <= gemv_max_batch() || p.n > 16 || !wide)
    return GemmTile::automatic;
  const GemmKernelEntry* e = gemm_core::find_gemm_kernel(GemmTile::wgmma128x64);
  const KernelInfo k = e ? kernel_for(p, *e) : KernelInfo{};
  return k.fn && streamed_a(p, *e, k) && has_code(dev, k.fn) ? e->tile : GemmTile::automatic;
}

bool weight_rows64(GemmTile t) { return t == GemmTile::wgmma64x16 || t == GemmTile::wgmma64x64; }

// The 64-row weight tiles (wgmma64x16 for a batch of at most 16, wgmma64x64 for a larger one up to 64; one consumer
// warpgroup a block) in place of the 128-row decode tiles (wgmma128x16, wgmma128x64), in automatic plans of a streamed A
// whose 64-row tiles, unsplit or in cluster pairs (two splits, no round trip through the workspace), give at least 90%
// of the slots a block within one wave: weights of 4096 rows in pairs, of 8192 unsplit on 132 SMs.  Twice the blocks
// stream the weights where the 128-row tile needs twice the splits for as many.  Measured (bf16, H200, us, the 64-row
// tile's first pass / the plan's second; `tessera bench gemm --plans --shapes decode-grid`, docs/PERF.md, fifty-ninth
// section): a batch of 2-16 at (4096, 4096) 13.9-14.1 / 15.8-16.0, (4096, 14336) 32.5-33.3 / 35.8-37.5, (8192, 8192)
// 36.6-37.2 / 37.9-38.8; a batch of 64 at (4096, 4096) 14.8 / 16.4, (4096, 14336) 34.2 / 37.9, (8192, 8192) 38.7 /
// 39.2.  Where they need more (14336 or 28672 rows: 224 or 448 tiles) the 128-row tile, unsplit, was 3-8% faster.
// The 64-wide tile with part of its batch empty, against the plan before (`--versus`): in pairs at (4096, 4096) a batch
// of 24 alike (0.98-1.01 of its speed), 28 and 32 5-9% faster, 40-56 1-12% faster, at (4096, 14336) 24 alike, 28 1-3%
// and 32 2-4% faster, 48 10-11% faster (five rounds at 24-32: docs/PERF.md, sixtieth section); unsplit at (8192, 8192)
// a batch of 40 6-7% slower, 48 alike, 56 2-6% faster.  So a batch of 17-24, and of 25-48 unsplit, keeps the other
// tiles.  A batch of 1 takes the GEMV as before (the cost model).  Returns the tile (automatic: none) and its split.
GemmTile rows64_plan(const GemmArgs& g, const Problem& p, const DeviceFacts& f, int dev, size_t workspace_limit, int* split) {
  if (g.tile != GemmTile::automatic || g.split_k != 0 || f.cc != 90 || p.n < 1 || p.n > 64) return GemmTile::automatic;
  const GemmKernelEntry* e = gemm_core::find_gemm_kernel(p.n <= 16 ? GemmTile::wgmma64x16 : GemmTile::wgmma64x64);
  const KernelInfo k = e ? kernel_for(p, *e) : KernelInfo{};
  if (!k.fn || !streamed_a(p, *e, k) || !has_code(dev, k.fn)) return GemmTile::automatic;
  int occ = 0;
  if (!occupancy(dev, f, k, &occ) || occ == 0) return GemmTile::automatic;
  const int64_t tiles = ceil_div(p.m, k.block_m) * ceil_div(p.n, k.block_n);
  const int s = rows64_split(tiles, ceil_div(p.k, k.block_k), static_cast<int64_t>(f.sms) * occ, p.n);
  if (s == 0 || (s > 1 && workspace_for(tiles, s, k) > workspace_limit)) return GemmTile::automatic;
  *split = s;
  return e->tile;
}

// Step 3.  `workspace_limit`: bytes available for split-K (SIZE_MAX: unlimited, for the size query).
GemmStatus choose(const GemmArgs& g, const Problem& p, size_t workspace_limit, Choice* out) {
  DeviceFacts f;
  int dev = 0;
  GemmStatus st = device_facts(&f, &dev);
  if (!st) return st;
  if (f.cc < 80)
    return fail(GemmError::unsupported, fmt("the GEMM kernels need a GPU of compute capability 8.0 or newer; device %d is %d.%d",
                                            dev, f.cc / 10, f.cc % 10));
  // Families bounded in m or n (the decode tiles and the GEMV: max_m 16, max_n 1-64) are planned automatically only within
  // their bounds, and then exclusively when one of them has a kernel for the problem that this device runs.
  const auto bounded = [](const GemmKernelEntry& e) { return e.max_m > 0 || e.max_n > 0; };
  const auto within = [&](const GemmKernelEntry& e) {
    return (e.max_m == 0 || p.m <= e.max_m) && (e.max_n == 0 || p.n <= e.max_n);
  };
  // The 64-row weight tiles, planned automatically by their own rule (rows64_plan) and then in place of the 128-row ones.
  int split64 = 1;
  const GemmTile rows64 = rows64_plan(g, p, f, dev, workspace_limit, &split64);
  // A fused menu of a small batch against wide weights: the 128 x 64 tile, unsplit, and no other (fused_wide_plan).
  const GemmTile wide = rows64 == GemmTile::automatic ? fused_wide_plan(g, p, f, dev) : GemmTile::automatic;
  const auto passed_over = [&](const GemmKernelEntry& e) {
    if (g.tile != GemmTile::automatic) return false;
    if (wide != GemmTile::automatic) return e.tile != wide;
    if (weight_rows64(e.tile)) return e.tile != rows64;
    return rows64 != GemmTile::automatic && (e.tile == GemmTile::wgmma128x16 || e.tile == GemmTile::wgmma128x64);
  };
  bool bounded_fits = false;
  if (g.tile == GemmTile::automatic)
    for (const GemmKernelEntry& e : gemm_core::gemm_kernels()) {
      if (!bounded(e) || !within(e) || passed_over(e)) continue;
      const KernelInfo k = kernel_for(p, e);
      if (k.fn && (e.arch != gemm_core::GemmArch::sm90 || (f.cc == 90 && has_code(dev, k.fn)))) bounded_fits = true;
    }
  // Whether a non-persistent kernel takes the problem (s8 operands have the persistent kernel alone: the wave rule below
  // then does not apply).
  bool other_tiles = false;
  for (const GemmKernelEntry& e : gemm_core::gemm_kernels()) {
    const KernelInfo k = kernel_for(p, e);
    if (k.fn && !k.persistent) other_tiles = true;
  }
  bool have = false;
  Choice best;
  std::string too_many_splits, gemv_refusal;
  for (const GemmKernelEntry& e : gemm_core::gemm_kernels()) {  // the registry's order: a tie keeps the first
    if (g.tile != GemmTile::automatic && g.tile != e.tile) continue;
    if (passed_over(e)) continue;
    const KernelInfo k = kernel_for(p, e);
    if (!k.fn) continue;
    // (Before the device queries below: a decode-shaped call, whose host time matters most, makes none.)
    if (g.tile == GemmTile::automatic) {
      if (bounded(e) && !within(e)) continue;
      if (!bounded(e) && bounded_fits) continue;
    }
    // sm_90a code runs on compute capability 9.0 only, and only if this build compiled it.
    if (e.arch == gemm_core::GemmArch::sm90 && (f.cc != 90 || !has_code(dev, k.fn))) continue;
    int occ = 0;
    st = occupancy(dev, f, k, &occ);
    if (!st) return st;
    if (occ == 0) continue;
    int64_t resident = 0;
    st = resident_blocks(dev, f, k, occ, &resident);
    if (!st) return st;
    if (resident < k.cluster_m) continue;
    // A persistent kernel is planned only when its units fill every resident block at least once: below a
    // wave it keeps SMs idle where a smaller non-persistent tile spreads (2048^3: 32 cluster units for 66
    // clusters ran at 0.75x cuBLAS, the non-persistent 128 x 256 tile at 0.86x; forcing a split K costs more in
    // partial-sum traffic than it gains: 0.36x; docs/PERF.md, 2026-11-24).  With a fused menu that the persistent
    // kernel runs after the drain and stages during the next main loop (persistent_fused_menu) 90% of a wave is
    // enough: the non-persistent kernels' epilogue then costs more than the idle blocks (2048^3, 128 of 132
    // blocks: bias+GELU and bias+SiLU+residual 14-18% faster on the cooperative kernel than on the 128 x 256
    // tile; docs/PERF.md, twenty-seventh session).
    if (k.persistent && other_tiles && g.tile == GemmTile::automatic && g.split_k == 0) {
      const int64_t cluster_units = ceil_div(ceil_div(p.m, k.block_m), k.cluster_m) * ceil_div(p.n, k.block_n);
      const double fill = persistent_fused_menu(p) ? 0.9 : 1.0;
      if (static_cast<double>(cluster_units * k.cluster_m) < fill * static_cast<double>(resident)) continue;
    }
    const int64_t tm = ceil_div(p.m, k.block_m), tn = ceil_div(p.n, k.block_n), tiles = tm * tn;
    // The blocks a clustered kernel occupies: whole clusters of cluster_m tile rows, also past M (128 x 28672 x 8192:
    // one tile row, so half of each cooperative cluster idles -- 0.71x cuBLAS where the model, counting tiles,
    // saw one full wave; docs/PERF.md, thirty-eighth session).
    const int64_t cost_tiles = ceil_div(tm, k.cluster_m) * k.cluster_m * tn;
    if (tiles > kIntMax) continue;  // blockIdx.x enumerates the tiles
    const int64_t k_tiles = ceil_div(p.k, k.block_k);
    int s_lo = 1, s_hi = 1;
    const int64_t slots = static_cast<int64_t>(f.sms) * occ;
    const bool streamed = streamed_a(p, e, k);
    if (e.schedule == gemm_core::GemmSchedule::gemv) {
      // The GEMV's batch is its block_n at most, and its block's warps split K: no split_k.
      if (p.n > k.block_n) {
        if (g.tile != GemmTile::automatic)
          gemv_refusal = fmt("argument 'tile' is %s, a GEMV for a batch of at most %d; this problem's batch (n%s) is %" PRId64,
                             e.name, k.block_n, p.transposed ? " after transposition: the caller's m" : "", p.n);
        continue;
      }
      if (g.split_k > 1) {
        gemv_refusal = fmt("argument 'split_k' is %d; the GEMV tile %s splits K among its block's warps and takes no "
                           "split_k (0 or 1)", g.split_k, e.name);
        continue;
      }
    } else if (g.split_k > 0) {
      s_lo = s_hi = g.split_k;
    } else if (e.tile == rows64) {
      s_lo = s_hi = split64;  // (rows64_plan above)
    } else if (e.tile == wide) {
      s_lo = s_hi = 1;  // (fused_wide_plan above)
    } else if (streamed) {
      // A streamed (a batch of at most 64 as B: decode on Hopper, the weights as A): the fewest splits that leave each
      // block at most 112 K tiles and give at least 45% of the slots a block, within one wave and the workspace (else
      // none).  Measured (bf16, H200, 1 / 16 / 64 rows of batch; docs/PERF.md, thirty-eighth session): (4096, 4096) 2
      // splits 0.92 / 0.96 / 0.85x cuBLAS, 1 split 0.88 / 0.95 / 0.83, 4 splits 0.85 / 0.88 / 0.72; (4096, 14336) 4
      // splits 0.93 / 0.93 / 0.94, 2 splits 0.88 / 0.87 / 0.93, 1 split 0.78 / 0.84 / 0.77 -- and, once the cluster
      // pair's two splits stored from registers (fiftieth section), 2 splits 36.1 / 37.3 us against 4 splits' 36.9 /
      // 40.0 at 16 / 64 rows (fifty-first section: the cap of K tiles a block went from 64 to 112); (8192, 8192) 2 splits;
      // (14336, 4096) and (28672, 8192) 1 split.  DRAM, not the SMs, bounds these blocks (32 blocks of the decode
      // tile read 1 MB each at 110 GB/s an SM, 3.5 TB/s together), and a block streaming many K tiles ends late
      // among the others (the tail the timeline probe shows); the cost model saw neither, and costs these plans
      // as DRAM-bound (`streamed`: else the Ampere 64 x 64 tile, split 6 to fill the slots, won 64 x 4096^2 at 0.64x
      // where the 128 x 64 tile split 2 runs 0.85).
      // The decode tile (a batch of at most 16) caps a block at 64 K tiles: at (4096, 14336) 4 splits, 128 blocks
      // through the workspace, with the weights' 128-byte L2 lines (stream_lines_128 below) ran 0.958-0.968 of cuBLAS
      // where 2 splits in cluster pairs ran 0.935-0.942 (H200, batch of 16; docs/PERF.md, fifty-seventh section).
      // (Where the workspace given cannot hold the decode tile's splits, the rule's fewer splits under the cap of 112:
      // at (4096, 14336) two, in cluster pairs, rather than none.)
      int s = streamed_split(tiles, k_tiles, slots, k.block_n == 16 ? kDecodeTileCap : kStreamedCap);
      if (s > 1 && workspace_for(tiles, s, k) > workspace_limit) s = streamed_split(tiles, k_tiles, slots);
      if (s == 1 || workspace_for(tiles, s, k) <= workspace_limit) s_lo = s_hi = s;
    } else if (tiles < slots) {
      // Split only when the tiles alone leave slots empty; at least 2 K tiles per split.
      s_hi = static_cast<int>(std::min<int64_t>({k_tiles / 2, 32, 65535}));
      if (s_hi < 1) s_hi = 1;
    }
    if (s_lo > k_tiles) {  // a forced split needs at least one K tile per split
      too_many_splits = fmt("argument 'split_k' is %d; K = %" PRId64 " has only %" PRId64 " K tiles of %d for the %s tile, "
                            "so at most %" PRId64 " splits",
                            g.split_k, g.k, k_tiles, k.block_k, e.name, k_tiles);
      continue;
    }
    for (int s = s_lo; s <= s_hi; ++s) {
      const int per = static_cast<int>(ceil_div(k_tiles, s));  // longest K range
      const int s_eff = s;
      const size_t ws = workspace_for(tiles, s_eff, k);
      if (s_eff > 1 && ws > workspace_limit && g.split_k == 0) continue;
      const double cost = plan_cost(p, f, k, e, occ, cost_tiles, s_eff, per, streamed && g.split_k == 0);
      if (!have || cost < best.cost) {
        have = true;
        best.kernel = k;
        best.entry = &e;
        best.splits = s_eff;
        best.tiles = tiles;
        best.tiles_m = static_cast<int>(tm);
        best.tiles_n = static_cast<int>(tn);
        best.occupancy = occ;
        best.cost = cost;
        best.workspace = ws;
        // A clustered persistent kernel: units are cluster tiles (cluster_m tile rows), one per cluster at a time.
        const int64_t units = ceil_div(tm, k.cluster_m) * tn * s_eff;
        best.ctas = k.persistent ? std::min(units, resident / k.cluster_m) * k.cluster_m : tiles;
        // The GEMV: one block a slot, each taking every slots-th group of rows (KernelInfo::fn_dealt,
        // kernel/gemm_sm80/gemv.hpp), where the groups number at least four a slot; else one block a group.  Measured
        // (H200, bf16, batch of 1, us, dealt / one a group; docs/PERF.md, sixty-fourth section): `tessera bench gemm`
        // in one process, (8192, 8192), 5.2 groups a slot, 35.58-36.13 / 37.50-38.08, (14336, 4096), 9.1, 31.84-32.42
        // / 32.85-33.28; the probe (scripts/device/gemv_probe.cu), (28672, 8192), 18.1, 107.68 / 107.97, and at 2.6
        // groups a slot, where some slots take a group more than others, (4096, 14336) 33.25 / 33.12 and (4096, 4096)
        // 15.36 / 13.73.  Between one and four groups a slot with rows of at least 8192 elements, the dealt kernel
        // over a balanced grid instead, every block the same number of groups (ceil(groups / slots), the last block
        // fewer): (4096, 14336), 2.6 groups a slot, 342 blocks of 3 groups, bare 32.64-33.46 / 33.95-34.32 us,
        // bias+SiLU+residual 33.10-33.60 / 34.02-34.29 (sixty-fifth section).  At K = 4096 a group is too short for
        // the ring to run on into the next one with profit (the probe's (4096, 4096) above).
        if (e.schedule == gemm_core::GemmSchedule::gemv && k.fn_dealt) {
          if (tiles >= 4 * slots) {
            best.ctas = slots;
          } else if (tiles > slots && p.k >= 8192) {
            const int64_t per = ceil_div(tiles, slots);
            best.ctas = ceil_div(tiles, per);
          }
        }
      }
    }
  }
  // The stream-K tail (kernel/gemm/scheduler.hpp) of a persistent kernel whose cluster units leave the last wave
  // partly idle: that wave and one full wave are shared out by K tiles.  Workspace: per worker (cluster) and block
  // counters_per_tile flags and one fp32 tile.  Automatically only where stream_k_pays (gemm_internal.hpp): the tail's
  // pieces of one tile run at different K offsets at the same time, so the tiles sharing rows of A or columns of B no
  // longer meet in L2, and the tail ran 1.3-1.6 times slower per K tile than whole tiles (bf16 on the H100, fourteenth
  // session: 8192x14336x4096, last wave 10 of 66 clusters, 0.98 -> 1.02x cuBLAS; 8192^3, 34 of 66, 1.02 -> 0.99; 4096^3,
  // 58 of 66, 0.96 -> 0.83).  Today's 16-bit kernel on the H200 (docs/PERF.md, seventieth section; three rounds, each
  // plan its own process, ratios to cuBLAS in it): 8192^3 (34 of 66) bare 1.029-1.032 -> 1.051-1.053 with the tail,
  // bias+SiLU+residual over cuBLAS + epilogue 1.124-1.132 -> 1.132-1.137; 4096^3 bare 0.988-0.991 -> 0.941-0.942 -- so
  // the 16-bit tail is taken up to a last wave 55% full.  A menu the store warps finish pays for short pieces:
  // 8192x14336x4096 (K = 4096, each worker's share of the tail 74 K tiles) bias+SiLU+residual 1.164-1.170 with the tail
  // against 1.196-1.199 without, each plan its own process (the fused GEMM's own time 0-2% shorter without: part of
  // the ratios' gap is the reference's drift from process to process).
  if (have && best.kernel.persistent && best.kernel.stream_k && best.splits == 1 && g.stream_k != GemmStreamK::off) {
    const KernelInfo& k = best.kernel;
    const int64_t units = ceil_div(best.tiles_m, k.cluster_m) * best.tiles_n;
    const int64_t workers = best.ctas / k.cluster_m;
    const int64_t k_tiles = ceil_div(p.k, k.block_k);
    const int64_t tail = stream_k_tail_units(units, workers);
    const bool pays = stream_k_pays(units, workers, k_tiles, dtype_bytes(p.in), store_warps_finish(p));
    // (The kernels count the tail's K tiles in 32 bits: TileScheduler::sk_fits.)
    if (tail > 0 && gemm_core::TileScheduler::sk_fits(tail, k_tiles) && (pays || g.stream_k == GemmStreamK::on)) {
      const int64_t slots = workers * k.cluster_m;
      const size_t ws = counters_bytes(slots * k.counters_per_tile) + static_cast<size_t>(slots) * k.block_m * k.block_n * sizeof(float);
      if (g.stream_k == GemmStreamK::on || ws <= workspace_limit) {
        best.sk_tiles = static_cast<int>(tail);
        best.workspace = ws;
      }
    }
  }
  // A streamed A whose blocks fill the SMs (at least 90% of them) fetches 128-byte L2 lines.  Measured with one block an SM
  // streaming 128-row bands through a TMA ring and nothing else (scripts/device/stream_probe.cu, H200): 128 blocks read
  // the weights at 3.8-3.9 TB/s with 128-byte lines against 3.6-3.7 with 256-byte ones (16 x 8192^2: 34.4-35.3 against
  // 36.5-37.0 us), as fast as cuBLAS's GEMM; with 64 blocks, which each need twice the rate, 256-byte lines (one request
  // bringing the next K tile's half too) kept the decode GEMM 3-5% faster (16 x 4096^2, 16 x 4096 x 14336), so those
  // keep them (docs/PERF.md, fifty-seventh section).
  if (have && streamed_a(p, *best.entry, best.kernel) && static_cast<double>(best.tiles * best.splits) >= 0.9 * static_cast<double>(f.sms))
    best.stream_lines_128 = true;
  // Short boxes (short_box_rows): a 16-bit K-major operand one tile high (wide) and shorter than the tile, on a
  // non-persistent kernel, comes in boxes of its own rows, not the tile's.  With the tile's, the rows past the matrix
  // arrive as zeros, and the fill cost time by the row: a batch of 72, 96, 112, 120 and 128 as A of the 128 x 64 tile
  // against 8192^2 weights ran 62.8, 54.5, 44.6, 41.6 and 41.5 us, in short boxes 38.4, 39.1, 41.4 and 41.8 for the
  // first four (H200; docs/PERF.md, sixtieth and sixty-first sections).  The stage's rows past the box are never
  // written; they meet only rows (columns) of the sum that no store reads (each element of A B takes one row of A and
  // one column of B).
  if (have) {
    const KernelInfo& k = best.kernel;
    const bool eligible = best.entry->tma && !k.persistent && dtype_bytes(p.in) == 2 && dtype_bytes(p.in_b) == 2;
    best.a_box_rows = short_box_rows(eligible, p.a.k_major, best.tiles_m, p.m, k.box_a[1]);
    best.b_box_rows = short_box_rows(eligible, p.b.k_major, best.tiles_n, p.n, k.box_b[1]);
  }
  // The grouped tile order (kernel/gemm/scheduler.hpp) of a persistent kernel: its resident clusters take consecutive
  // units, so a wave of W cluster units covers g cluster rows x W / g tile columns, whose A rows (g x cluster_m x
  // block_m of them) and B columns (W / g x block_n) it reads from L2 and, once per wave, from DRAM.  Their sum is
  // least at g = sqrt(W x block_n / (cluster_m x block_m)): a square wave for square cluster tiles (bf16 on the H100,
  // 128 x 256 tiles in clusters of 2, 66 clusters: 8 cluster rows = 16 tile rows instead of 8 took DRAM reads at
  // 4096^3 from 187 to 149 MB and the bare GEMM from 0.962-0.967 to 0.974-0.976x cuBLAS there; docs/PERF.md,
  // twenty-fourth session).  The non-persistent kernels keep groups of 8 tile rows (measured no different at 2048^3).
  // Either way at most the tile rows: the group the launch passes (Params::group_m) and the plan reports.
  if (have) {
    const KernelInfo& k = best.kernel;
    int64_t rows = 8;
    if (k.persistent) {
      const double w = static_cast<double>(best.ctas / k.cluster_m);
      rows = std::max<int64_t>(1, std::llround(std::sqrt(w * k.block_n / (static_cast<double>(k.cluster_m) * k.block_m)))) * k.cluster_m;
    }
    best.group_m = static_cast<int>(std::min<int64_t>(rows, std::max(best.tiles_m, 1)));
  }
  if (!have) {
    if (!too_many_splits.empty()) return invalid(too_many_splits);
    if (!gemv_refusal.empty()) return invalid(gemv_refusal);
    const std::string types = p.in == p.in_b ? dtype_name(p.in) : fmt("%s x %s", dtype_name(p.in), dtype_name(p.in_b));
    if (g.tile != GemmTile::automatic)
      return fail(GemmError::unsupported,
                  fmt("tile %s is not built for this problem (math %s, %s operands, A %s-major, B %s-major after "
                      "normalisation%s) or cannot run on this device",
                      gemm_tile_name(g.tile), math_name(p.math), types.c_str(), p.a.k_major ? "K" : "M",
                      p.b.k_major ? "K" : "N", p.transposed ? ", transposed" : ""));
    if (p.in == Dtype::s8 && p.math == GemmMath::tensor_core)
      return fail(GemmError::unsupported,
                  fmt("no GEMM kernel can run this problem on this device: math tensor_core with s8 operands runs on the "
                      "Hopper s8 kernel (compute capability 9.0, sm_90a code in this build); device %d is %d.%d -- "
                      "GemmMath::dp4a (or automatic) runs s8 on CUDA cores",
                      dev, f.cc / 10, f.cc % 10));
    return fail(GemmError::unsupported, "no GEMM kernel can run this problem on this device");
  }
  *out = best;
  return {};
}

// ---------------------------------------------------------------------------------------------------
// plans made before: the choice depends on the device and on these fields of the normalised problem and
// the arguments only (not on the data pointers beyond their alignment, nor on the epilogue beyond D's type, whether
// it is alpha alone, whether it is a fused menu of the persistent kernels' bare-menus kernel and whether that kernel's
// store warps finish it), so a call that
// repeats a problem (a model's layers, decode steps) skips the search.  Bounded: cleared when full.
// ---------------------------------------------------------------------------------------------------
struct PlanKey {
  int dev;
  int math, in, in_b, d_type, tile, split_k, stream_k;
  bool a_kmajor, b_kmajor, a_vec, b_vec;
  bool fused;  // persistent_fused_menu: the persistent kernel's fill rule
  bool finished;  // store_warps_finish: the stream-K tail's rule
  bool plain;  // alpha_alone (fused_wide_plan)
  int64_t m, n, k;
  size_t ws_limit;
  auto operator<=>(const PlanKey&) const = default;
};
constexpr size_t kPlanCacheEntries = 4096;
std::mutex g_plans_mutex;
std::map<PlanKey, Choice> g_plans;  // guarded by g_plans_mutex

GemmStatus choose_cached(const GemmArgs& g, const Problem& p, size_t ws_limit, Choice* out) {
  int dev = 0;
  const cudaError_t e = cudaGetDevice(&dev);
  if (e != cudaSuccess) return fail(GemmError::cuda_error, fmt("cudaGetDevice failed: %s", cudaGetErrorString(e)));
  const int eb = dtype_bytes(p.in);
  const PlanKey key{dev,
                    static_cast<int>(p.math),
                    static_cast<int>(p.in),
                    static_cast<int>(p.in_b),
                    static_cast<int>(p.ep.d_type),
                    static_cast<int>(g.tile),
                    g.split_k,
                    static_cast<int>(g.stream_k),
                    p.a.k_major,
                    p.b.k_major,
                    vec16(p.a.data, p.a.ld, eb),
                    vec16(p.b.data, p.b.ld, eb),
                    persistent_fused_menu(p),
                    store_warps_finish(p),
                    alpha_alone(p.ep),
                    p.m,
                    p.n,
                    p.k,
                    ws_limit};
  {
    std::lock_guard<std::mutex> lock(g_plans_mutex);
    auto it = g_plans.find(key);
    if (it != g_plans.end()) {
      *out = it->second;
      return {};
    }
  }
  const GemmStatus st = choose(g, p, ws_limit, out);
  if (!st) return st;  // errors are not kept: they are reported again, in full, on the next call
  std::lock_guard<std::mutex> lock(g_plans_mutex);
  if (g_plans.size() >= kPlanCacheEntries) g_plans.clear();
  g_plans.emplace(key, *out);
  return {};
}

// The largest batch a GEMV takes (the max_n of the GEMV entries), worked out once: every decode-shaped call asks.
int64_t gemv_max_batch() {
  static const int64_t batch = [] {
    int64_t b = 0;
    for (const GemmKernelEntry& e : gemm_core::gemm_kernels())
      if (e.schedule == gemm_core::GemmSchedule::gemv) b = std::max<int64_t>(b, e.max_n);
    return b;
  }();
  return batch;
}

// Whether decode-shaped problems are oriented with the weights as A (normalise's weights_as_a): a forced GEMV tile (on
// any device); automatic plans and forced Hopper tiles on a device of compute capability 9.0 for which this build holds
// the Hopper decode tile (DeviceFacts::decode_tile, worked out with the device's other facts the first time); and
// automatic plans of 16-bit operands with a batch (the smaller of m and n) that a GEMV takes, on any device.
bool hopper_decode(const GemmArgs& g) {
  if (g.tile != GemmTile::automatic) {
    const GemmKernelEntry* e = gemm_core::find_gemm_kernel(g.tile);
    if (e && e->schedule == gemm_core::GemmSchedule::gemv) return true;
    if (!e || e->arch != gemm_core::GemmArch::sm90) return false;
  }
  DeviceFacts f;
  int dev = 0;
  if (!device_facts(&f, &dev)) return false;  // (a failed query is reported again by choose)
  const bool gemv_batch = g.tile == GemmTile::automatic && std::min(g.m, g.n) <= gemv_max_batch() &&
                          (g.a.type == Dtype::bf16 || g.a.type == Dtype::f16) && g.b.type == g.a.type;
  return f.decode_tile || gemv_batch;
}

// The math the kernels compute: resolve_math's (validation: the argument, else the operands' default), except that
// automatic math for s8 operands with no tile forced takes the tensor cores only where the Hopper s8 kernel runs
// (compute capability 9.0 and this build holds its sm_90a code: DeviceFacts::s8_tensor_cores), and dp4a elsewhere.  (A
// failed device query leaves dp4a; choose reports the failure again.)
GemmMath planned_math(const GemmArgs& g) {
  const GemmMath m = resolve_math(g);
  if (g.math != GemmMath::automatic || g.a.type != Dtype::s8 || g.tile != GemmTile::automatic) return m;
  DeviceFacts f;
  int dev = 0;
  return device_facts(&f, &dev) && f.s8_tensor_cores ? GemmMath::tensor_core : GemmMath::dp4a;
}

}  // namespace

int gemm_detail::rows64_split(int64_t tiles, int64_t k_tiles, int64_t slots, int64_t batch) {
  const auto fills = [&](int64_t blocks) { return blocks <= slots && blocks * 10 >= slots * 9; };
  const int s = fills(tiles) ? 1 : fills(2 * tiles) && k_tiles >= 2 ? 2 : 0;
  if (batch > 16 && (batch <= 24 || (batch <= 48 && s == 1))) return 0;
  return s;
}

int gemm_detail::streamed_split(int64_t tiles, int64_t k_tiles, int64_t slots, int64_t cap) {
  for (int s = 1; s <= 64 && static_cast<int64_t>(s) <= k_tiles && tiles * s <= slots; ++s)
    if ((k_tiles + s - 1) / s <= cap && static_cast<double>(tiles * s) >= 0.45 * static_cast<double>(slots)) return s;
  return 1;
}

GemmStatus gemm_detail::plan_impl(const GemmArgs& g, size_t ws_limit, Problem* prob, Choice* choice) {
  GemmStatus st = gemm_validate(g);
  if (!st) return st;
  *prob = normalise(g, planned_math(g), hopper_decode(g));
  return choose_cached(g, *prob, ws_limit, choice);
}

}  // namespace tessera
