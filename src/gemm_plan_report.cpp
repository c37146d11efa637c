// src/gemm_plan_report.cpp -- what tessera::gemm_plan tells the caller about the plan src/gemm_plan.cu chooses: the
// GemmPlan (fill_plan), its one-line description (GemmPlan::str), and gemm_workspace_size.
#include <cinttypes>  // PRId64
#include <cstdio>     // std::snprintf
#include <string>

#include "gemm_internal.hpp"  // Problem, Choice, plan_impl, fmt, invalid

namespace tessera {
namespace {

using namespace gemm_detail;

void fill_plan(const Problem& p, const Choice& c, GemmPlan* plan) {
  plan->tile = c.entry->tile;
  plan->math = p.math;
  plan->a_type = p.transposed ? p.in_b : p.in;  // the caller's A and B
  plan->b_type = p.transposed ? p.in : p.in_b;
  plan->split_k = c.splits;
  plan->stream_k_tiles = c.sk_tiles;
  plan->group_m = c.group_m;
  plan->transposed = p.transposed;
  plan->grid_tiles = c.tiles;
  plan->grid_blocks = c.kernel.persistent ? c.ctas : c.ctas * c.splits;
  plan->blocks_per_sm = c.occupancy;
  plan->threads = c.kernel.threads;
  plan->smem_bytes = c.kernel.smem_bytes;
  plan->workspace_bytes = c.workspace;
  plan->stream_lines_128 = c.stream_lines_128;
  plan->a_box_rows = c.a_box_rows;
  plan->b_box_rows = c.b_box_rows;
}

}  // namespace

std::string GemmPlan::str() const {
  // The tile's registry name, which spells the 16-bit K extent; a tf32 or FP8 plan shows its own (32, 128).  (The dp4a
  // tile has one type: its name spells its K tile of 64 s8.)
  std::string tile_str = gemm_tile_name(tile);
  const GemmKernelEntry* e = gemm_core::find_gemm_kernel(tile);
  const bool f8 = is_8bit_operand(a_type);  // (FP8 or s8: the plan names the types)
  const gemm_core::GemmKernelType* t = !e ? nullptr
                                       : math == GemmMath::tf32 ? e->type(GemmMath::tf32, Dtype::f32)
                                       : f8 ? e->type(GemmMath::tensor_core, a_type, b_type)
                                            : nullptr;
  if (t) {
    const gemm_core::KernelInfo k = t->get(Combo::kk);  // the block tile is the same in every order
    tile_str = fmt("%dx%dx%d", k.block_m, k.block_n, k.block_k);
  }
  const std::string sk = stream_k_tiles > 0 ? fmt(" stream-K %d", stream_k_tiles) : std::string();
  const std::string math_str = math == GemmMath::fp32_exact ? "simt"
                               : math == GemmMath::dp4a     ? "dp4a"
                               : math == GemmMath::tf32     ? "tc-tf32"
                               : !f8                        ? "tc"
                               : a_type == b_type           ? fmt("tc-%s", dtype_name(a_type))
                                                            : fmt("tc-%sx%s", dtype_name(a_type), dtype_name(b_type));
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "%s %s split %d%s%s, %" PRId64 " tiles in groups of %d rows, %" PRId64 " blocks, %d block%s/SM, %d threads, %d B smem, workspace %zu B",
                math_str.c_str(), tile_str.c_str(),
                split_k, sk.c_str(), transposed ? " (transposed)" : "", grid_tiles, group_m, grid_blocks, blocks_per_sm, blocks_per_sm == 1 ? "" : "s",
                threads, smem_bytes, workspace_bytes);
  std::string s(buf);
  if (stream_lines_128) s += ", weights in 128-byte L2 lines";
  if (a_box_rows > 0) s += fmt(", A in boxes of %d rows", a_box_rows);
  if (b_box_rows > 0) s += fmt(", B in boxes of %d rows", b_box_rows);
  return s;
}

GemmStatus gemm_plan(const GemmArgs& g, GemmPlan* plan) {
  if (!plan) return invalid("argument 'plan' is null");
  Problem p;
  Choice c;
  GemmStatus st = plan_impl(g, g.workspace ? g.workspace_bytes : 0, &p, &c);
  if (!st) return st;
  fill_plan(p, c, plan);
  return {};
}

size_t gemm_workspace_size(const GemmArgs& g) {
  Problem p;
  Choice c;
  if (!plan_impl(g, SIZE_MAX, &p, &c)) return 0;
  return c.workspace;
}

}  // namespace tessera
