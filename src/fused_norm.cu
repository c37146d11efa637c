// src/fused_norm.cu -- host side of l2_norm / rms_norm: argument checks, plan, launch; the instantiations.
//
// Instantiated: T in {float, __nv_bfloat16, __half} x kind in {l2, rms} x
//   one_pass configs (threads per row, rows per CTA, elements per thread = 16-byte vectors x kVec):
//     {32, 8, 16}    warp per row, 8 rows per CTA:  rows up to   512 elements (window, see row_norm.hpp)
//     {128, 1, 32}   CTA per row                :  rows up to  4096 elements
//     {512, 1, 32}                               :  rows up to 16384 elements
//     {1024, 1, 32}                              :  rows up to 32768 elements
//   two_pass: partial + scale kernels, chunks of 256 threads x 32 elements (8192 elements).
// The smallest one_pass config that holds the row is used; longer rows take two_pass.
#include <cuda_bf16.h>     // __nv_bfloat16
#include <cuda_fp16.h>     // __half
#include <cuda_runtime.h>  // launches, cudaMallocAsync

#include <climits>  // INT_MAX
#include <cmath>    // std::isfinite
#include <string>   // std::string, std::to_string

#include "tessera/host/fused.hpp"             // API, ArgumentError, detail checks
#include "tessera/kernel/fused/numeric.hpp"   // Numeric<T>
#include "tessera/kernel/fused/row_norm.hpp"  // kernels

namespace tessera::fused {

namespace {

// `elems` = elements per thread; a thread holds elems / kVec vectors of 16 bytes, so every T gets the
// same row capacity and 16-bit types keep half the registers (the 1024-thread CTA allows 64 per thread).
struct OnePassConfig {
  int threads_per_row, rows_per_cta, elems;
  template <class T>
  constexpr int vecs() const { return elems / Numeric<T>::kVec; }
};
constexpr OnePassConfig kOnePassConfigs[] = {{32, 8, 16}, {128, 1, 32}, {512, 1, 32}, {1024, 1, 32}};
constexpr int kNumOnePass = sizeof(kOnePassConfigs) / sizeof(kOnePassConfigs[0]);

template <class T, NormKind kKind, int kIdx>
void launch_one_pass(const RowNormArgs<T>& a, cudaStream_t stream) {
  constexpr OnePassConfig c = kOnePassConfigs[kIdx];
  const int64_t blocks = (a.rows + c.rows_per_cta - 1) / c.rows_per_cta;
  kernel::row_norm_one_pass_kernel<T, kKind, c.threads_per_row, c.rows_per_cta, c.template vecs<T>()>
      <<<static_cast<unsigned>(blocks), c.threads_per_row * c.rows_per_cta, 0, stream>>>(a);
}

template <class T, NormKind kKind>
void launch_one_pass(int idx, const RowNormArgs<T>& a, cudaStream_t stream) {
  static_assert(kNumOnePass == 4, "launch_one_pass: add a case for each one_pass config");
  switch (idx) {
    case 0: launch_one_pass<T, kKind, 0>(a, stream); break;
    case 1: launch_one_pass<T, kKind, 1>(a, stream); break;
    case 2: launch_one_pass<T, kKind, 2>(a, stream); break;
    default: launch_one_pass<T, kKind, 3>(a, stream); break;
  }
}

// Window vectors a row may need: ceil((head + cols) / kVec), head the worst case over rows.
template <class T>
int64_t window_vecs(const T* x, int64_t cols, int64_t ld_x) {
  constexpr int kVec = Numeric<T>::kVec;
  const bool all_aligned = misalignment_elems<T>(x) == 0 && (ld_x * int64_t(sizeof(T))) % kVectorBytes == 0;
  const int64_t head = all_aligned ? 0 : kVec - 1;
  return (head + cols + kVec - 1) / kVec;
}

std::string algo_name(NormAlgo a) {
  return a == NormAlgo::one_pass ? "one_pass" : a == NormAlgo::two_pass ? "two_pass" : "automatic";
}

template <class T>
NormPlan make_plan(const T* x, int64_t rows, int64_t cols, const NormOptions& opt, const char* who) {
  const int64_t ld_x = opt.ld_x ? opt.ld_x : cols;
  const int64_t need = window_vecs(x, cols, ld_x);
  NormPlan plan;
  if (opt.algo != NormAlgo::two_pass) {
    for (const OnePassConfig& c : kOnePassConfigs) {
      if (int64_t(c.threads_per_row) * c.vecs<T>() >= need) {
        plan.algo = NormAlgo::one_pass;
        plan.threads_per_row = c.threads_per_row;
        plan.rows_per_cta = c.rows_per_cta;
        plan.vecs_per_thread = c.vecs<T>();
        return plan;
      }
    }
    if (opt.algo == NormAlgo::one_pass)
      detail::throw_arg(who, "argument 'cols' is " + std::to_string(cols) + ": algo one_pass holds at most " +
                                 std::to_string(max_one_pass_cols<T>()) + " elements of " + Numeric<T>::kName +
                                 " per row (fewer when rows are not 16-byte aligned); use NormAlgo::two_pass or "
                                 "automatic");
  }
  constexpr int64_t kChunk = int64_t(kernel::kChunkThreads) * kernel::kChunkVecs<T>;
  plan.algo = NormAlgo::two_pass;
  plan.threads_per_row = kernel::kChunkThreads;
  plan.rows_per_cta = 1;
  plan.vecs_per_thread = kernel::kChunkVecs<T>;
  plan.chunks = std::max<int64_t>(1, (need + kChunk - 1) / kChunk);
  plan.workspace_bytes = static_cast<size_t>(rows) * static_cast<size_t>(plan.chunks) * sizeof(float);
  return plan;
}

template <class T>
void check_norm_args(const T* x, const T* w, bool needs_w, const T* y, int64_t rows, int64_t cols, float eps,
                     const NormOptions& opt, const char* who) {
  using detail::throw_arg;
  if (rows < 0) throw_arg(who, "argument 'rows' is " + std::to_string(rows) + "; expected rows >= 0");
  if (cols < 0) throw_arg(who, "argument 'cols' is " + std::to_string(cols) + "; expected cols >= 0");
  if (cols > INT_MAX)
    throw_arg(who, "argument 'cols' is " + std::to_string(cols) + "; expected cols <= " + std::to_string(INT_MAX));
  if (!std::isfinite(eps) || eps < 0.0f)
    throw_arg(who, "argument 'eps' is " + std::to_string(eps) + "; expected a finite eps >= 0");
  if (opt.ld_x < 0 || (opt.ld_x != 0 && opt.ld_x < cols))
    throw_arg(who, "option 'ld_x' is " + std::to_string(opt.ld_x) + "; expected 0 (= cols) or >= cols = " +
                       std::to_string(cols));
  if (opt.ld_y < 0 || (opt.ld_y != 0 && opt.ld_y < cols))
    throw_arg(who, "option 'ld_y' is " + std::to_string(opt.ld_y) + "; expected 0 (= cols) or >= cols = " +
                       std::to_string(cols));
  if (opt.algo != NormAlgo::automatic && opt.algo != NormAlgo::one_pass && opt.algo != NormAlgo::two_pass)
    throw_arg(who, "option 'algo' has the invalid value " + std::to_string(static_cast<int>(opt.algo)));
  if (rows == 0 || cols == 0) return;
  if (!x) throw_arg(who, "argument 'x' is null");
  if (!y) throw_arg(who, "argument 'y' is null");
  if (needs_w && !w) throw_arg(who, "argument 'weight' is null");
  detail::check_aligned(x, sizeof(T), who, "x");
  detail::check_aligned(y, sizeof(T), who, "y");
  if (needs_w) detail::check_aligned(w, sizeof(T), who, "weight");
  const int64_t ld_x = opt.ld_x ? opt.ld_x : cols, ld_y = opt.ld_y ? opt.ld_y : cols;
  const size_t x_bytes = (static_cast<size_t>(rows - 1) * ld_x + cols) * sizeof(T);
  const size_t y_bytes = (static_cast<size_t>(rows - 1) * ld_y + cols) * sizeof(T);
  const bool in_place = static_cast<const void*>(x) == static_cast<const void*>(y) && ld_x == ld_y;
  if (!in_place && detail::overlaps(x, x_bytes, y, y_bytes))
    throw_arg(who, "arguments 'x' and 'y' overlap; use y == x with ld_y == ld_x for in-place, or separate buffers");
  if (needs_w && detail::overlaps(w, static_cast<size_t>(cols) * sizeof(T), y, y_bytes))
    throw_arg(who, "arguments 'weight' and 'y' overlap");
}

template <class T, NormKind kKind>
void row_norm(const T* x, const T* w, T* y, int64_t rows, int64_t cols, float eps, const NormOptions& opt,
              const char* who) {
  check_norm_args(x, w, kKind == NormKind::rms, y, rows, cols, eps, opt, who);
  if (rows == 0 || cols == 0) return;
  const NormPlan plan = make_plan(x, rows, cols, opt, who);

  RowNormArgs<T> a{};
  a.x = x;
  a.w = w;
  a.y = y;
  a.rows = rows;
  a.cols = static_cast<int>(cols);
  a.ld_x = opt.ld_x ? opt.ld_x : cols;
  a.ld_y = opt.ld_y ? opt.ld_y : cols;
  a.eps = eps;
  cudaStream_t stream = opt.stream;

  if (plan.algo == NormAlgo::one_pass) {
    const int64_t blocks = (rows + plan.rows_per_cta - 1) / plan.rows_per_cta;
    if (blocks > INT_MAX)
      detail::throw_arg(who, "argument 'rows' is " + std::to_string(rows) + "; at most " +
                                 std::to_string(int64_t(INT_MAX) * plan.rows_per_cta) + " rows of this length");
    int idx = 0;
    while (kOnePassConfigs[idx].threads_per_row != plan.threads_per_row) ++idx;
    launch_one_pass<T, kKind>(idx, a, stream);
    detail::check_cuda(cudaGetLastError(), who, "one_pass kernel launch");
    return;
  }

  // two_pass
  const int64_t blocks = rows * plan.chunks;
  if (blocks > INT_MAX)
    detail::throw_arg(who, "arguments 'rows' x 'cols' = " + std::to_string(rows) + " x " + std::to_string(cols) +
                               " need " + std::to_string(blocks) + " CTAs for two_pass; at most " +
                               std::to_string(INT_MAX));
  a.chunks = static_cast<int>(plan.chunks);
  void* ws = opt.workspace;
  bool owned = false;
  if (ws) {
    if (opt.workspace_bytes < plan.workspace_bytes)
      detail::throw_arg(who, "option 'workspace_bytes' is " + std::to_string(opt.workspace_bytes) + "; two_pass needs " +
                                 std::to_string(plan.workspace_bytes) + " (see plan_row_norm)");
    detail::check_aligned(ws, sizeof(float), who, "workspace");
  } else {
    detail::check_cuda(cudaMallocAsync(&ws, plan.workspace_bytes, stream), who, "cudaMallocAsync(workspace)");
    owned = true;
  }
  a.partial = static_cast<float*>(ws);
  constexpr int kT = kernel::kChunkThreads, kV = kernel::kChunkVecs<T>;
  kernel::row_norm_partial_kernel<T, kT, kV><<<static_cast<unsigned>(blocks), kT, 0, stream>>>(a);
  const cudaError_t e1 = cudaGetLastError();
  if (e1 == cudaSuccess) kernel::row_norm_scale_kernel<T, kKind, kT, kV><<<static_cast<unsigned>(blocks), kT, 0, stream>>>(a);
  const cudaError_t e2 = cudaGetLastError();
  if (owned) detail::check_cuda(cudaFreeAsync(ws, stream), who, "cudaFreeAsync(workspace)");
  detail::check_cuda(e1, who, "two_pass partial kernel launch");
  detail::check_cuda(e2, who, "two_pass scale kernel launch");
}

}  // namespace

std::string NormPlan::str() const {
  if (algo == NormAlgo::one_pass)
    return "one-pass " + std::to_string(threads_per_row) + "x" + std::to_string(vecs_per_thread) +
           (rows_per_cta > 1 ? " (" + std::to_string(rows_per_cta) + " rows/CTA)" : "");
  if (algo == NormAlgo::two_pass)
    return "two-pass " + std::to_string(chunks) + " chunk" + (chunks == 1 ? "" : "s") + " of " +
           std::to_string(threads_per_row) + "x" + std::to_string(vecs_per_thread);
  return algo_name(algo);
}

template <class T>
int64_t max_one_pass_cols() {
  const OnePassConfig& c = kOnePassConfigs[kNumOnePass - 1];
  return int64_t(c.threads_per_row) * c.elems;
}

template <class T>
NormPlan plan_row_norm(const T* x, int64_t rows, int64_t cols, const NormOptions& opt) {
  constexpr const char* kWho = "tessera::fused::plan_row_norm";
  check_norm_args<T>(x, nullptr, false, x, rows, cols, 1.0f, opt, kWho);
  return make_plan(x, rows, cols, opt, kWho);
}

template <class T>
void l2_norm(const T* x, T* y, int64_t rows, int64_t cols, float eps, const NormOptions& opt) {
  row_norm<T, NormKind::l2>(x, nullptr, y, rows, cols, eps, opt, "tessera::fused::l2_norm");
}

template <class T>
void rms_norm(const T* x, const T* weight, T* y, int64_t rows, int64_t cols, float eps, const NormOptions& opt) {
  row_norm<T, NormKind::rms>(x, weight, y, rows, cols, eps, opt, "tessera::fused::rms_norm");
}

#define TESSERA_INSTANTIATE_NORM(T)                                                                     \
  template int64_t max_one_pass_cols<T>();                                                              \
  template NormPlan plan_row_norm<T>(const T*, int64_t, int64_t, const NormOptions&);                   \
  template void l2_norm<T>(const T*, T*, int64_t, int64_t, float, const NormOptions&);                  \
  template void rms_norm<T>(const T*, const T*, T*, int64_t, int64_t, float, const NormOptions&);

TESSERA_INSTANTIATE_NORM(float)
TESSERA_INSTANTIATE_NORM(__nv_bfloat16)
TESSERA_INSTANTIATE_NORM(__half)
#undef TESSERA_INSTANTIATE_NORM

}  // namespace tessera::fused
