// src/gemm_validate.cu -- tessera::gemm_validate: every argument checked before anything touches the
// GPU; each message names the argument and what was expected.
#include <cinttypes>  // PRId64
#include <cmath>      // std::isfinite, std::isnan
#include <cstdarg>    // va_list
#include <cstdio>     // std::vsnprintf
#include <utility>    // std::pair

#include "gemm_internal.hpp"

namespace tessera {
namespace gemm_detail {

std::string fmt(const char* f, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, f);
  std::vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}

GemmMath resolve_math(const GemmArgs& a) {
  if (a.math != GemmMath::automatic) return a.math;
  if (a.a.type == Dtype::f32) return GemmMath::fp32_exact;
  // s8: a forced tile that computes dp4a and not tensor_core (the dp4a tile) says which; otherwise the tensor cores here,
  // and the planner, which knows the device, takes dp4a where the Hopper s8 kernel does not run (gemm_plan.cu).
  if (a.a.type == Dtype::s8 && a.tile != GemmTile::automatic) {
    const GemmKernelEntry* e = gemm_core::find_gemm_kernel(a.tile);
    if (e && e->computes(GemmMath::dp4a) && !e->computes(GemmMath::tensor_core)) return GemmMath::dp4a;
  }
  return GemmMath::tensor_core;
}

bool tile_supports(GemmTile t, GemmMath m) {
  if (t == GemmTile::automatic) return true;
  const GemmKernelEntry* e = gemm_core::find_gemm_kernel(t);
  return e && e->computes(m);
}

const char* math_name(GemmMath m) {
  switch (m) {
    case GemmMath::automatic: return "automatic";
    case GemmMath::tensor_core: return "tensor_core";
    case GemmMath::tf32: return "tf32";
    case GemmMath::fp32_exact: return "fp32_exact";
    case GemmMath::dp4a: return "dp4a";
  }
  return "?";
}

const char* gemm_tile_name(GemmTile t) {
  if (t == GemmTile::automatic) return "automatic";
  const GemmKernelEntry* e = gemm_core::find_gemm_kernel(t);
  return e ? e->name : "?";
}

}  // namespace gemm_detail

namespace {

using namespace gemm_detail;

const char* order_name(MatrixOrder o) { return o == MatrixOrder::row_major ? "row-major" : "column-major"; }
bool valid_order(MatrixOrder o) { return o == MatrixOrder::row_major || o == MatrixOrder::col_major; }

// The types a matrix may have: operands (A, B) the types some registry entry is built for; outputs (D, and
// C and the residual, which have D's type) the types the epilogue stores.
bool operand_type(Dtype t) {
  for (const GemmKernelEntry& e : gemm_core::gemm_kernels())
    for (const gemm_core::GemmKernelType& k : e.types)
      if (k.in == t || k.b_type() == t) return true;
  return false;
}
// "bf16, f16 or f32": the Dtypes `ok` accepts, in Dtype order.
std::string type_list(bool (*ok)(Dtype)) {
  std::string names[kDtypeCount];
  int n = 0;
  for (Dtype t : kDtypes)
    if (ok(t)) names[n++] = dtype_name(t);
  std::string s;
  for (int i = 0; i < n; ++i) s += (i == 0 ? "" : i + 1 == n ? " or " : ", ") + names[i];
  return s;
}

// Checks one matrix: pointer, type, order, ld, alignment.  `name` e.g. "a"; `output`: D, C or the residual.
GemmStatus check_matrix(const char* name, bool output, const void* data, Dtype type, MatrixOrder order, int64_t ld,
                        int64_t rows, int64_t cols) {
  if (!data) return invalid(fmt("argument '%s.data' is null; expected a device pointer to a %" PRId64 " x %" PRId64 " matrix", name, rows, cols));
  bool (*ok)(Dtype) = output ? epilogue::output_type : operand_type;  // epilogue::kOutputTypes for D, C, the residual
  if (!is_dtype(type))
    return invalid(fmt("argument '%s.type' is %d; expected Dtype::%s", name, static_cast<int>(type), type_list(ok).c_str()));
  if (!ok(type))
    return invalid(fmt("argument '%s.type' is %s, which %s; expected %s", name, dtype_name(type),
                       output ? "the epilogue does not store" : "no GEMM kernel is built for", type_list(ok).c_str()));
  if (!valid_order(order)) return invalid(fmt("argument '%s.order' is %d; expected row_major or col_major", name, static_cast<int>(order)));
  if (ld < 0) return invalid(fmt("argument '%s.ld' is %" PRId64 "; expected 0 (packed) or a positive leading dimension", name, ld));
  const int64_t need = is_row_major(order) ? cols : rows;
  const int64_t eff = effective_ld(ld, order, rows, cols);
  if (eff < need)
    return invalid(fmt("argument '%s.ld' is %" PRId64 "; %s is %s %" PRId64 " x %" PRId64 ", so ld must be >= %" PRId64, name, ld,
                       name, order_name(order), rows, cols, need));
  const int64_t outer = is_row_major(order) ? rows : cols;
  if (eff > 0 && outer > 1 && eff > (int64_t(1) << 62) / outer)
    return invalid(fmt("argument '%s.ld' is %" PRId64 "; ld * %" PRId64 " overflows 64-bit indexing", name, eff, outer));
  const int bytes = dtype_bytes(type);
  if (reinterpret_cast<uintptr_t>(data) % bytes != 0)
    return invalid(fmt("argument '%s.data' (%p) is not aligned to its element size (%d bytes for %s)", name, data, bytes,
                       dtype_name(type)));
  return {};
}

// Byte range [first, last) that a matrix's elements can touch.
std::pair<uintptr_t, uintptr_t> byte_range(const void* data, Dtype t, MatrixOrder o, int64_t ld, int64_t rows, int64_t cols) {
  const int64_t outer = is_row_major(o) ? rows : cols, inner = is_row_major(o) ? cols : rows;
  const int64_t eff = effective_ld(ld, o, rows, cols);
  const uintptr_t first = reinterpret_cast<uintptr_t>(data);
  return {first, first + static_cast<uintptr_t>(((outer - 1) * eff + inner) * dtype_bytes(t))};
}
bool ranges_overlap(std::pair<uintptr_t, uintptr_t> a, std::pair<uintptr_t, uintptr_t> b) {
  return a.first < b.second && b.first < a.second;
}

}  // namespace

using namespace gemm_detail;

GemmStatus gemm_validate(const GemmArgs& g) {
  const char* dims[] = {"m", "n", "k"};
  const int64_t vals[] = {g.m, g.n, g.k};
  for (int i = 0; i < 3; ++i) {
    if (vals[i] < 1) return invalid(fmt("argument '%s' is %" PRId64 "; expected %s >= 1", dims[i], vals[i], dims[i]));
    if (vals[i] > kIntMax)
      return invalid(fmt("argument '%s' is %" PRId64 "; expected %s <= 2147483647", dims[i], vals[i], dims[i]));
  }
  GemmStatus st = check_matrix("a", false, g.a.data, g.a.type, g.a.order, g.a.ld, g.m, g.k);
  if (!st) return st;
  st = check_matrix("b", false, g.b.data, g.b.type, g.b.order, g.b.ld, g.k, g.n);
  if (!st) return st;
  st = check_matrix("d", true, g.d.data, g.d.type, g.d.order, g.d.ld, g.m, g.n);
  if (!st) return st;
  const bool f8a = is_fp8(g.a.type), f8b = is_fp8(g.b.type);
  if (f8a != f8b || (!f8a && g.a.type != g.b.type))
    return invalid(fmt("arguments 'a.type' (%s) and 'b.type' (%s) differ; A and B must have the same type (two FP8 types, "
                       "e4m3 and e5m2, may be mixed)",
                       dtype_name(g.a.type), dtype_name(g.b.type)));
  if (static_cast<int>(g.fp8_accum) < 0 || static_cast<int>(g.fp8_accum) > static_cast<int>(GemmFp8Accum::fast))
    return invalid(fmt("argument 'fp8_accum' is %d; expected GemmFp8Accum::promoted (0) or fast (1)", static_cast<int>(g.fp8_accum)));
  if (is_8bit_operand(g.a.type)) {
    // wgmma reads 8-bit operands (FP8, s8) K-major only, and the 8-bit kernels load them by TMA (16-byte bases and rows).
    if (g.a.order != MatrixOrder::row_major)
      return invalid(fmt("argument 'a.order' is column-major with %s operands; 8-bit operands (FP8, s8) must be K-major: "
                         "A row-major (m x k), B column-major (k x n)", dtype_name(g.a.type)));
    if (g.b.order != MatrixOrder::col_major)
      return invalid(fmt("argument 'b.order' is row-major with %s operands; 8-bit operands (FP8, s8) must be K-major: B "
                         "column-major (k x n, i.e. the n x k weights row-major), A row-major", dtype_name(g.b.type)));
    const struct {
      const char* name;
      const GemmMatrix& x;
      int64_t rows, cols;
    } ops[] = {{"a", g.a, g.m, g.k}, {"b", g.b, g.k, g.n}};
    for (const auto& o : ops) {
      if (reinterpret_cast<uintptr_t>(o.x.data) % 16 != 0)
        return invalid(fmt("argument '%s.data' (%p) is not 16-byte aligned; 8-bit operands are loaded by TMA, which needs "
                           "16-byte aligned bases", o.name, o.x.data));
      const int64_t ld = effective_ld(o.x.ld, o.x.order, o.rows, o.cols);
      if (ld % 16 != 0)
        return invalid(fmt("argument '%s.ld' is %" PRId64 " (in effect %" PRId64 "); 8-bit operands need a leading dimension "
                           "that is a multiple of 16 elements (16 bytes, for TMA): pad the rows",
                           o.name, o.x.ld, ld));
    }
    const struct {
      const char* name;
      const float* p;
    } scales[] = {{"scale_a", g.scale_a}, {"scale_b", g.scale_b}};
    for (const auto& sc : scales)
      if (reinterpret_cast<uintptr_t>(sc.p) % 4 != 0)
        return invalid(fmt("argument '%s' (%p) is not aligned to 4 bytes; expected a device pointer to floats (or null)",
                           sc.name, static_cast<const void*>(sc.p)));
    const struct {
      const char* name;
      GemmScale mode;
      const float* p;
      const char* count;
      const char* blocks;
    } modes[] = {{"scale_a_mode", g.scale_a_mode, g.scale_a, "M floats, one per row of A",
                  "ceil(K / 128) x M floats, one per row of A and 128-deep block of K"},
                 {"scale_b_mode", g.scale_b_mode, g.scale_b, "N floats, one per column of B",
                  "ceil(K / 128) x ceil(N / 128) floats, one per 128 x 128 block of B"}};
    for (const auto& md : modes) {
      if (md.mode != GemmScale::tensor && md.mode != GemmScale::channel && md.mode != GemmScale::block)
        return invalid(fmt("argument '%s' is %d; expected GemmScale::tensor (0), GemmScale::channel (1) or "
                           "GemmScale::block (2)", md.name, static_cast<int>(md.mode)));
      if (md.mode == GemmScale::channel && md.p == nullptr)
        return invalid(fmt("argument '%s' is channel but its scale pointer is null; expected %s", md.name, md.count));
      if (md.mode == GemmScale::block && md.p == nullptr)
        return invalid(fmt("argument '%s' is block but its scale pointer is null; expected %s", md.name, md.blocks));
      if (md.mode == GemmScale::block && !f8a)
        return invalid(fmt("argument '%s' is block with %s operands; block scales are for FP8 operands (e4m3, e5m2)",
                           md.name, dtype_name(g.a.type)));
      if (md.mode == GemmScale::block && g.fp8_accum == GemmFp8Accum::fast)
        return invalid(fmt("argument '%s' is block with fp8_accum fast; block scales need fp8_accum promoted (each "
                           "128-deep K tile's sum is scaled as it joins the fp32 accumulator)", md.name));
    }
    if (!f8a && g.fp8_accum != GemmFp8Accum::promoted)
      return invalid(fmt("argument 'fp8_accum' is fast with %s operands; it applies to FP8 operands (e4m3, e5m2) only "
                         "(s8 sums are exact in s32)", dtype_name(g.a.type)));
  } else {
    if (g.scale_a || g.scale_b)
      return invalid(fmt("argument '%s' is set with %s operands; the scales are for 8-bit operands (e4m3, e5m2, s8) only",
                         g.scale_a ? "scale_a" : "scale_b", dtype_name(g.a.type)));
    if (g.scale_a_mode != GemmScale::tensor || g.scale_b_mode != GemmScale::tensor)
      return invalid(fmt("argument '%s' is not tensor with %s operands; the scales are for 8-bit operands (e4m3, e5m2, s8) only",
                         g.scale_a_mode != GemmScale::tensor ? "scale_a_mode" : "scale_b_mode", dtype_name(g.a.type)));
    if (g.fp8_accum != GemmFp8Accum::promoted)
      return invalid(fmt("argument 'fp8_accum' is fast with %s operands; it applies to FP8 operands (e4m3, e5m2) only",
                         dtype_name(g.a.type)));
  }
  switch (g.math) {
    case GemmMath::automatic: break;
    case GemmMath::tensor_core:
      if (g.a.type == Dtype::f32)
        return invalid("argument 'math' is tensor_core with f32 operands; tensor_core takes bf16, f16, FP8 or s8 operands, use "
                       "GemmMath::tf32 or fp32_exact for f32");
      break;
    case GemmMath::tf32:
    case GemmMath::fp32_exact:
      if (g.a.type != Dtype::f32)
        return invalid(fmt("argument 'math' is %s with %s operands; %s takes f32 operands (use tensor_core for bf16, f16 "
                           "or FP8, tensor_core or dp4a for s8)",
                           math_name(g.math), dtype_name(g.a.type), math_name(g.math)));
      break;
    case GemmMath::dp4a:
      if (g.a.type != Dtype::s8)
        return invalid(fmt("argument 'math' is dp4a with %s operands; dp4a takes s8 operands (A and B s8, K-major), use "
                           "tensor_core for bf16, f16 or FP8 and tf32 or fp32_exact for f32",
                           dtype_name(g.a.type)));
      break;
    default: return invalid(fmt("argument 'math' is %d; expected a GemmMath value", static_cast<int>(g.math)));
  }
  if (!std::isfinite(g.alpha)) return invalid(fmt("argument 'alpha' is %g; expected a finite value", g.alpha));
  if (!std::isfinite(g.beta)) return invalid(fmt("argument 'beta' is %g; expected a finite value", g.beta));
  if (g.beta != 0.f) {
    st = check_matrix("c", true, g.c.data, g.c.type, g.c.order, g.c.ld, g.m, g.n);
    if (!st) {
      st.message += " (C is read because beta != 0)";
      return st;
    }
    if (g.c.type != g.d.type)
      return invalid(fmt("argument 'c.type' is %s; C must have D's type (%s)", dtype_name(g.c.type), dtype_name(g.d.type)));
  }
  if (g.residual.data) {
    st = check_matrix("residual", true, g.residual.data, g.residual.type, g.residual.order, g.residual.ld, g.m, g.n);
    if (!st) return st;
    if (g.residual.type != g.d.type)
      return invalid(fmt("argument 'residual.type' is %s; the residual must have D's type (%s)", dtype_name(g.residual.type),
                         dtype_name(g.d.type)));
  }
  switch (g.bias_mode) {
    case BiasMode::none: break;
    case BiasMode::per_column:
    case BiasMode::per_row:
    case BiasMode::scalar: {
      const int64_t need = g.bias_mode == BiasMode::per_column ? g.n : g.bias_mode == BiasMode::per_row ? g.m : 1;
      if (!g.bias)
        return invalid(fmt("argument 'bias' is null with bias_mode %s; expected a device pointer to %" PRId64 " values",
                           bias_mode_name(g.bias_mode), need));
      if (!is_dtype(g.bias_type))
        return invalid(fmt("argument 'bias_type' is %d; expected f32 or D's type (%s)", static_cast<int>(g.bias_type),
                           dtype_name(g.d.type)));
      if (g.bias_type != Dtype::f32 && g.bias_type != g.d.type)
        return invalid(fmt("argument 'bias_type' is %s; expected f32 or D's type (%s)", dtype_name(g.bias_type),
                           dtype_name(g.d.type)));
      if (g.bias_size != need)
        return invalid(fmt("argument 'bias_size' is %" PRId64 "; a %s bias of this %" PRId64 " x %" PRId64
                           " problem has %" PRId64 " values (%s)",
                           g.bias_size, bias_mode_name(g.bias_mode), g.m, g.n, need,
                           g.bias_mode == BiasMode::per_column ? "n" : g.bias_mode == BiasMode::per_row ? "m" : "one"));
      if (reinterpret_cast<uintptr_t>(g.bias) % dtype_bytes(g.bias_type) != 0)
        return invalid(fmt("argument 'bias' (%p) is not aligned to its element size (%d bytes)", g.bias, dtype_bytes(g.bias_type)));
      break;
    }
    default: return invalid(fmt("argument 'bias_mode' is %d; expected a BiasMode value", static_cast<int>(g.bias_mode)));
  }
  switch (g.activation) {
    case Activation::none:
    case Activation::relu:
    case Activation::gelu_tanh:
    case Activation::gelu_erf:
    case Activation::silu: break;
    case Activation::leaky_relu:
      if (!std::isfinite(g.leaky_relu_slope))
        return invalid(fmt("argument 'leaky_relu_slope' is %g; expected a finite value", g.leaky_relu_slope));
      break;
    case Activation::clamp:
      if (std::isnan(g.clamp_lo) || std::isnan(g.clamp_hi) || !(g.clamp_lo <= g.clamp_hi))
        return invalid(fmt("arguments 'clamp_lo' (%g) and 'clamp_hi' (%g) must satisfy clamp_lo <= clamp_hi (no NaN)",
                           g.clamp_lo, g.clamp_hi));
      break;
    default: return invalid(fmt("argument 'activation' is %d; expected an Activation value", static_cast<int>(g.activation)));
  }
  // D must not overlap the inputs (C may be D itself, with the same order and ld).
  const auto rd = byte_range(g.d.data, g.d.type, g.d.order, g.d.ld, g.m, g.n);
  if (ranges_overlap(rd, byte_range(g.a.data, g.a.type, g.a.order, g.a.ld, g.m, g.k)))
    return invalid("arguments 'd' and 'a' overlap; D must not share memory with A");
  if (ranges_overlap(rd, byte_range(g.b.data, g.b.type, g.b.order, g.b.ld, g.k, g.n)))
    return invalid("arguments 'd' and 'b' overlap; D must not share memory with B");
  if (g.beta != 0.f && ranges_overlap(rd, byte_range(g.c.data, g.c.type, g.c.order, g.c.ld, g.m, g.n))) {
    const bool same = g.c.data == g.d.data && g.c.order == g.d.order &&
                      effective_ld(g.c.ld, g.c.order, g.m, g.n) == effective_ld(g.d.ld, g.d.order, g.m, g.n);
    if (!same)
      return invalid("arguments 'c' and 'd' overlap without being the same matrix; C may alias D only with the same "
                     "data pointer, order and ld");
  }
  if (g.residual.data &&
      ranges_overlap(rd, byte_range(g.residual.data, g.residual.type, g.residual.order, g.residual.ld, g.m, g.n)))
    return invalid("arguments 'residual' and 'd' overlap; the residual must not share memory with D");

  const GemmMath math = resolve_math(g);
  if (g.tile != GemmTile::automatic && !gemm_core::find_gemm_kernel(g.tile))
    return invalid(fmt("argument 'tile' is %d; expected a GemmTile value", static_cast<int>(g.tile)));
  if (!tile_supports(g.tile, math))
    return invalid(fmt("argument 'tile' is %s, which does not run math %s", gemm_tile_name(g.tile), math_name(math)));
  if (g.split_k < 0 || g.split_k > 65535)
    return invalid(fmt("argument 'split_k' is %d; expected 0 (automatic) or 1..65535", g.split_k));
  if (static_cast<int>(g.stream_k) < 0 || static_cast<int>(g.stream_k) > static_cast<int>(GemmStreamK::on))
    return invalid(fmt("argument 'stream_k' is %d; expected GemmStreamK::automatic (0), off (1) or on (2)", static_cast<int>(g.stream_k)));
  if (g.stream_k == GemmStreamK::on && g.split_k > 1)
    return invalid(fmt("arguments 'stream_k' (on) and 'split_k' (%d) exclude each other", g.split_k));
  if (g.workspace && reinterpret_cast<uintptr_t>(g.workspace) % 16 != 0)
    return invalid(fmt("argument 'workspace' (%p) must be 16-byte aligned", g.workspace));
  if (!g.workspace && g.workspace_bytes != 0)
    return invalid(fmt("argument 'workspace' is null but workspace_bytes is %zu", g.workspace_bytes));
  return {};
}


}  // namespace tessera
