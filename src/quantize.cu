// src/quantize.cu -- host side of tessera::fused::quantize: argument checks, the plan, the workspace, the launches.
// The kernels are instantiated in src/quantize_{bf16,f16,f32}.cu (src/quantize_launch.hpp).
//
// The plan, by mode (rows "aligned": x and every row start 16-byte aligned; "fits": the smallest row configuration
// of quantize_launch.hpp that holds a whole row):
//   row            fits: rows kernel, pass row (one segment per row)      else: row loop kernel (one CTA per row)
//   block_1x128    aligned: rows kernel, pass block_1x128 (segments: the fitting configuration -- 256 x 8 in place of
//                  512 x 4 -- else chunks of 512 x 4 vectors)              else: blocks scalar kernel (1 x 128)
//   block_128x128  aligned: block128 kernel                               else: blocks scalar kernel (128 x 128)
//   tensor_given   rows kernel, pass given (segments as for block_1x128)
//   tensor         rows kernel, pass amax, then pass given with the factor from the workspace, segments reversed
#include <cuda_bf16.h>     // __nv_bfloat16
#include <cuda_fp16.h>     // __half
#include <cuda_runtime.h>  // cudaMallocAsync, cudaMemsetAsync, cudaGetLastError

#include <algorithm>  // std::max
#include <climits>    // INT_MAX
#include <cstdint>    // int64_t, uintptr_t
#include <string>     // std::string, std::to_string

#include "quantize_launch.hpp"                // QuantLaunch, kQuantRowConfigs, launch_quantize
#include "tessera/host/fused.hpp"             // detail::throw_arg, check_cuda, check_aligned, overlaps
#include "tessera/host/quantize.hpp"          // API
#include "tessera/kernel/fused/quantize.hpp"  // QuantizeParams, RowPass, kBlock

namespace tessera::fused {

namespace {

constexpr const char* kWho = "tessera::fused::quantize";
// Three unsigned ints (quantize.hpp, QuantizeParams::ws), rounded up to 16 bytes.
constexpr size_t kWorkspaceBytes = 16;

bool valid_mode(QuantScale m) {
  return m == QuantScale::tensor || m == QuantScale::tensor_given || m == QuantScale::row ||
         m == QuantScale::block_1x128 || m == QuantScale::block_128x128;
}
bool needs_workspace(const QuantizeArgs& a) {
  return a.mode == QuantScale::tensor || (a.mode == QuantScale::tensor_given && a.amax != nullptr);
}

std::string type_text(Dtype t) {
  return is_dtype(t) ? std::string(dtype_name(t)) : "the invalid value " + std::to_string(static_cast<int>(t));
}

// The checks quantize() and plan_quantize() share.  Returns false when there is nothing to do (empty tensor).
bool check_args(const QuantizeArgs& a) {
  using detail::throw_arg;
  if (a.x_type != Dtype::bf16 && a.x_type != Dtype::f16 && a.x_type != Dtype::f32)
    throw_arg(kWho, "argument 'x_type' is " + type_text(a.x_type) + "; expected bf16, f16 or f32");
  if (a.q_type != Dtype::e4m3 && a.q_type != Dtype::e5m2 && a.q_type != Dtype::s8)
    throw_arg(kWho, "argument 'q_type' is " + type_text(a.q_type) + "; expected e4m3, e5m2 or s8");
  if (!valid_mode(a.mode))
    throw_arg(kWho, "argument 'mode' has the invalid value " + std::to_string(static_cast<int>(a.mode)) +
                        "; expected tensor, tensor_given, row, block_1x128 or block_128x128");
  if (a.rows < 0) throw_arg(kWho, "argument 'rows' is " + std::to_string(a.rows) + "; expected rows >= 0");
  if (a.cols < 0) throw_arg(kWho, "argument 'cols' is " + std::to_string(a.cols) + "; expected cols >= 0");
  if (a.cols > INT_MAX)
    throw_arg(kWho, "argument 'cols' is " + std::to_string(a.cols) + "; expected cols <= " + std::to_string(INT_MAX));
  if (a.ld_x < 0 || (a.ld_x != 0 && a.ld_x < a.cols))
    throw_arg(kWho, "argument 'ld_x' is " + std::to_string(a.ld_x) + "; expected 0 (= cols) or >= cols = " +
                        std::to_string(a.cols));
  if (a.ld_q < 0 || (a.ld_q != 0 && a.ld_q < a.cols))
    throw_arg(kWho, "argument 'ld_q' is " + std::to_string(a.ld_q) + "; expected 0 (= cols) or >= cols = " +
                        std::to_string(a.cols));
  if (a.scale_elems < 0)
    throw_arg(kWho, "argument 'scale_elems' is " + std::to_string(a.scale_elems) + "; expected >= 0 (0: not stated)");
  if (a.rows == 0 || a.cols == 0) return false;

  if (!a.x) throw_arg(kWho, "argument 'x' is null");
  if (!a.q) throw_arg(kWho, "argument 'q' is null");
  if (!a.scale)
    throw_arg(kWho, std::string("argument 'scale' is null; mode ") + quant_scale_name(a.mode) +
                        (a.mode == QuantScale::tensor_given ? " reads it" : " writes it"));
  const size_t xb = static_cast<size_t>(dtype_bytes(a.x_type));
  detail::check_aligned(a.x, xb, kWho, "x");
  detail::check_aligned(a.scale, sizeof(float), kWho, "scale");
  if (a.amax) detail::check_aligned(a.amax, sizeof(float), kWho, "amax");

  const ScaleShape s = quantize_scale_shape(a.mode, a.rows, a.cols);
  if (a.scale_elems != 0 && a.scale_elems < s.elems())
    throw_arg(kWho, "argument 'scale_elems' is " + std::to_string(a.scale_elems) + "; mode " +
                        quant_scale_name(a.mode) + " of a " + std::to_string(a.rows) + " x " + std::to_string(a.cols) +
                        " x needs " + std::to_string(s.rows) + " x " + std::to_string(s.cols) + " = " +
                        std::to_string(s.elems()) + " scales");

  const int64_t ld_x = a.ld_x ? a.ld_x : a.cols, ld_q = a.ld_q ? a.ld_q : a.cols;
  const size_t x_bytes = (static_cast<size_t>(a.rows - 1) * ld_x + a.cols) * xb;
  const size_t q_bytes = static_cast<size_t>(a.rows - 1) * ld_q + a.cols;
  const size_t s_bytes = static_cast<size_t>(s.elems()) * sizeof(float);
  if (detail::overlaps(a.x, x_bytes, a.q, q_bytes)) throw_arg(kWho, "arguments 'x' and 'q' overlap; use separate buffers");
  if (detail::overlaps(a.scale, s_bytes, a.x, x_bytes)) throw_arg(kWho, "arguments 'scale' and 'x' overlap");
  if (detail::overlaps(a.scale, s_bytes, a.q, q_bytes)) throw_arg(kWho, "arguments 'scale' and 'q' overlap");
  if (a.amax) {
    if (detail::overlaps(a.amax, s_bytes, a.x, x_bytes)) throw_arg(kWho, "arguments 'amax' and 'x' overlap");
    if (detail::overlaps(a.amax, s_bytes, a.q, q_bytes)) throw_arg(kWho, "arguments 'amax' and 'q' overlap");
    if (detail::overlaps(a.amax, s_bytes, a.scale, s_bytes)) throw_arg(kWho, "arguments 'amax' and 'scale' overlap");
  }
  if (a.workspace && needs_workspace(a)) {
    if (a.workspace_bytes < kWorkspaceBytes)
      throw_arg(kWho, "argument 'workspace_bytes' is " + std::to_string(a.workspace_bytes) + "; mode " +
                          quant_scale_name(a.mode) + " needs " + std::to_string(kWorkspaceBytes) +
                          " (quantize_workspace_bytes)");
    detail::check_aligned(a.workspace, sizeof(uint32_t), kWho, "workspace");
  }
  return true;
}

// Rows whose every start is 16-byte aligned (then head == 0 in every row window).
bool rows_aligned(const QuantizeArgs& a) {
  const int64_t ld_x = a.ld_x ? a.ld_x : a.cols;
  const int64_t xb = dtype_bytes(a.x_type);
  return reinterpret_cast<uintptr_t>(a.x) % kVectorBytes == 0 && (a.rows == 1 || (ld_x * xb) % kVectorBytes == 0);
}

// The launches for valid, non-empty arguments (rows kernel segments per the header comment).
struct Plan {
  detail::QuantLaunch first, second;  // second: tensor's quantise pass (kernels == 2)
  int kernels = 1;
  int chunks = 1;
  std::string name;
  double x_reads = 1;
};

std::string rows_name(int config, int chunks) {
  const detail::QuantRowConfig& c = detail::kQuantRowConfigs[config];
  return "rows " + std::to_string(c.threads_per_row) + "x" + std::to_string(c.vecs) +
         (c.rows_per_cta > 1 ? " (" + std::to_string(c.rows_per_cta) + " rows/CTA)" : "") +
         (chunks > 1 ? " x " + std::to_string(chunks) + " chunks" : "");
}

void check_grid(int64_t grid, const char* what) {
  if (grid > INT_MAX)
    detail::throw_arg(kWho, std::string("arguments 'rows' x 'cols' need ") + std::to_string(grid) + " CTAs for " + what +
                                "; at most " + std::to_string(INT_MAX));
}

Plan make_plan(const QuantizeArgs& a) {
  using detail::QuantKernel;
  using kernel::RowPass;
  const int vec = kVectorBytes / dtype_bytes(a.x_type);
  const bool aligned = rows_aligned(a);
  const int64_t head = aligned ? 0 : vec - 1;  // worst case over the rows
  const int64_t need = (head + a.cols + vec - 1) / vec;

  int fit = -1;
  for (int i = 0; i < detail::kQuantFitConfigs; ++i)
    if (detail::kQuantRowConfigs[i].capacity_vecs() >= need) {
      fit = i;
      break;
    }
  // Segments of the rows kernel: the fitting configuration, or chunks of the chunk configuration.
  auto rows_launch = [&](RowPass pass, Plan& plan) {
    detail::QuantLaunch l;
    l.kernel = QuantKernel::rows;
    l.pass = pass;
    l.config = fit >= 0 ? fit : detail::kQuantChunkConfig;
    const detail::QuantRowConfig& c = detail::kQuantRowConfigs[l.config];
    plan.chunks = fit >= 0 ? 1 : static_cast<int>((need + c.capacity_vecs() - 1) / c.capacity_vecs());
    l.grid = c.rows_per_cta > 1 ? (a.rows + c.rows_per_cta - 1) / c.rows_per_cta : a.rows * plan.chunks;
    check_grid(l.grid, "the rows kernel");
    plan.name = rows_name(l.config, plan.chunks);
    return l;
  };

  Plan plan;
  const int64_t nbc = (a.cols + kernel::kBlock - 1) / kernel::kBlock;
  switch (a.mode) {
    case QuantScale::row:
      if (fit >= 0) {
        plan.first = rows_launch(RowPass::row, plan);
      } else {
        plan.first.kernel = QuantKernel::row_loop;
        plan.first.grid = a.rows;
        check_grid(a.rows, "the row loop kernel");
        plan.name = "row loop " + std::to_string(kernel::kRowLoopThreads);
        plan.x_reads = 2;
      }
      break;
    case QuantScale::block_1x128:
    case QuantScale::block_128x128: {
      const bool b128 = a.mode == QuantScale::block_128x128;
      if (aligned && !b128) {
        if (fit == 2) fit = detail::kQuantBlockWideConfig;  // (the same segments in 256 x 8)
        plan.first = rows_launch(RowPass::block_1x128, plan);
      } else {
        const int block_rows = b128 ? kernel::kBlock : 1;
        plan.first.kernel = aligned ? QuantKernel::block128 : QuantKernel::blocks_scalar;
        plan.first.block_rows = block_rows;
        plan.first.grid = (a.rows + block_rows - 1) / block_rows * nbc;
        check_grid(plan.first.grid, aligned ? "the block128 kernel" : "the blocks scalar kernel");
        plan.name = aligned ? "block 128x128" : std::string("blocks scalar ") + (b128 ? "128x128" : "1x128");
        plan.x_reads = aligned ? 1 : 2;
      }
      break;
    }
    case QuantScale::tensor_given:
      plan.first = rows_launch(RowPass::given, plan);
      break;
    case QuantScale::tensor:
      plan.first = rows_launch(RowPass::amax, plan);
      plan.second = plan.first;
      plan.second.pass = RowPass::given;
      plan.kernels = 2;
      plan.x_reads = 2;
      plan.name = "amax + quantize, " + plan.name;
      break;
  }
  return plan;
}

template <class T>
void launch_typed(const QuantizeArgs& a, const Plan& plan, uint32_t* ws) {
  kernel::QuantizeParams<T> p{};
  p.x = static_cast<const T*>(a.x);
  p.q = static_cast<uint8_t*>(a.q);
  p.rows = a.rows;
  p.cols = static_cast<int>(a.cols);
  p.ld_x = a.ld_x ? a.ld_x : a.cols;
  p.ld_q = a.ld_q ? a.ld_q : a.cols;
  p.chunks = plan.chunks;
  p.segments = plan.first.grid;
  p.reverse = false;
  p.scale = a.scale;
  p.amax = a.amax;
  p.ld_scale = quantize_scale_shape(a.mode, a.rows, a.cols).rows;  // (block-column-major)
  p.ws = ws;
  p.inv_from_ws = false;
  detail::launch_quantize<T>(plan.first, a.q_type, p, a.stream);
  const cudaError_t e1 = cudaGetLastError();
  detail::check_cuda(e1, kWho, "kernel launch");
  if (plan.kernels == 2) {
    // Tensor pass 2: the factor from pass 1's amax; the segments from the last, so that the first reads find
    // what pass 1 read last still in L2.
    p.inv_from_ws = true;
    p.reverse = true;
    detail::launch_quantize<T>(plan.second, a.q_type, p, a.stream);
    detail::check_cuda(cudaGetLastError(), kWho, "second kernel launch");
  }
}

}  // namespace

const char* quant_scale_name(QuantScale mode) {
  switch (mode) {
    case QuantScale::tensor: return "tensor";
    case QuantScale::tensor_given: return "tensor_given";
    case QuantScale::row: return "row";
    case QuantScale::block_1x128: return "block_1x128";
    case QuantScale::block_128x128: return "block_128x128";
  }
  return "?";
}

ScaleShape quantize_scale_shape(QuantScale mode, int64_t rows, int64_t cols) {
  const int64_t kb = (std::max<int64_t>(cols, 0) + kernel::kBlock - 1) / kernel::kBlock;
  switch (mode) {
    case QuantScale::row: return {rows, 1};
    case QuantScale::block_1x128: return {rows, kb};
    case QuantScale::block_128x128: return {(std::max<int64_t>(rows, 0) + kernel::kBlock - 1) / kernel::kBlock, kb};
    default: return {1, 1};
  }
}

size_t quantize_workspace_bytes(const QuantizeArgs& args) { return needs_workspace(args) ? kWorkspaceBytes : 0; }

std::string QuantizePlan::str() const { return kernel; }

QuantizePlan plan_quantize(const QuantizeArgs& args) {
  QuantizePlan out;
  if (!check_args(args)) {
    out.kernel = "none (empty)";
    out.kernels = 0;
    out.x_reads = 0;
    return out;
  }
  const Plan p = make_plan(args);
  out.kernel = p.name;
  out.kernels = p.kernels;
  out.x_reads = p.x_reads;
  return out;
}

void quantize(const QuantizeArgs& a) {
  if (!check_args(a)) return;
  const Plan plan = make_plan(a);

  void* ws = nullptr;
  bool owned = false;
  if (needs_workspace(a)) {
    ws = a.workspace;
    if (!ws) {
      detail::check_cuda(cudaMallocAsync(&ws, kWorkspaceBytes, a.stream), kWho, "cudaMallocAsync(workspace)");
      owned = true;
      const cudaError_t e = cudaMemsetAsync(ws, 0, kWorkspaceBytes, a.stream);
      if (e != cudaSuccess) {
        (void)cudaFreeAsync(ws, a.stream);
        detail::check_cuda(e, kWho, "cudaMemsetAsync(workspace)");
      }
    }
  }
  auto* ws32 = static_cast<uint32_t*>(ws);
  try {
    switch (a.x_type) {
      case Dtype::bf16: launch_typed<__nv_bfloat16>(a, plan, ws32); break;
      case Dtype::f16: launch_typed<__half>(a, plan, ws32); break;
      default: launch_typed<float>(a, plan, ws32); break;  // check_args admits bf16, f16, f32 only
    }
  } catch (...) {
    if (owned) (void)cudaFreeAsync(ws, a.stream);
    throw;
  }
  if (owned) detail::check_cuda(cudaFreeAsync(ws, a.stream), kWho, "cudaFreeAsync(workspace)");
}

}  // namespace tessera::fused
