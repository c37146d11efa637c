// include/tessera/host/fused.hpp -- host API of the fused memory-bound kernels.
//
// Row normalisation (one kernel, fp32 accumulation, T = float, __nv_bfloat16 or __half):
//   l2_norm (x, y, rows, cols, eps)          y[r,i] = x[r,i] / sqrt(sum_j x[r,j]^2 + eps)
//   rms_norm(x, w, y, rows, cols, eps)       y[r,i] = x[r,i] / sqrt(sum_j x[r,j]^2 / cols + eps) * w[i]
// Elementwise chains (any tessera::ew expression, see include/tessera/kernel/fused/expr.hpp):
//   elementwise(f, in, out, n)               out[i] = f(in[i]), one kernel, 128-bit accesses
//   elementwise_unfused(f, in, out, n)       the same chain as one kernel per operation (a baseline)
//
// Semantics, specified and tested (tests/kernel_fused/):
//   * The formulas are evaluated as written, in fp32: the sum of squares accumulates in fp32, then
//     s = 1 / sqrt(ss + eps) (IEEE sqrt and division), then y = x * s (* w).  Outputs of bf16/fp16 are
//     rounded to nearest even once, at the end.
//   * eps must be finite and >= 0.  A row of zeros gives zeros when eps > 0 (0 * 1/sqrt(eps)), and NaN
//     when eps == 0 (0 * 1/sqrt(0) = 0 * inf), as IEEE arithmetic says.
//   * NaN anywhere in a row makes the whole row NaN.  An infinity makes ss = inf, s = 0: the finite
//     elements become (signed) zeros and the infinite ones NaN (inf * 0).  The same holds in fp64.
//   * The sum of squares is fp32: rows whose sum of squares exceeds FLT_MAX (|x| around 1.8e19 and up)
//     behave like a row holding an infinity.
//   * rows == 0 or cols == 0 (n == 0) launches nothing.  Rows may be padded: ld_x / ld_y (elements
//     between row starts, >= cols) leave the padding untouched.  y may equal x (in place); other overlaps
//     are rejected.  Pointers need the alignment of T; any other alignment and any row length work
//     (16-byte vector accesses where the addresses allow, scalar accesses at the edges).
//   * Bad arguments throw tessera::fused::ArgumentError naming the argument, its value and what was
//     expected; a failed launch throws std::runtime_error.  Work runs asynchronously on `stream`.
//
// Algorithms (chosen by plan_row_norm; force one with NormOptions::algo):
//   one_pass  each row is held in registers by one warp (rows up to 512 elements) or one CTA of 128 /
//             512 / 1024 threads (up to 4096 / 16384 / 32768 elements; 3 (fp32) or 7 (16-bit) fewer when
//             row starts are not all 16-byte aligned); x is read once, y written once.
//   two_pass  rows too long for registers: pass 1 reduces chunks of 8192 elements in parallel into a
//             float workspace (rows x chunks), pass 2 re-reads each chunk and scales it.  The workspace
//             is NormOptions::workspace if given (>= plan.workspace_bytes), else it is taken with
//             cudaMallocAsync on `stream` and released with cudaFreeAsync.
#pragma once

#include <cuda_bf16.h>     // __nv_bfloat16
#include <cuda_fp16.h>     // __half
#include <cuda_runtime.h>  // cudaStream_t, cudaError_t

#include <cstddef>    // size_t
#include <cstdint>    // int64_t, uintptr_t
#include <stdexcept>  // std::invalid_argument, std::runtime_error
#include <string>     // std::string

#include "tessera/kernel/fused/expr.hpp"  // ew expressions (host-compilable), chains below

namespace tessera::fused {

// A bad argument: the message names the function, the argument, its value and what was expected.
class ArgumentError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

enum class NormAlgo { automatic, one_pass, two_pass };

struct NormOptions {
  NormAlgo algo = NormAlgo::automatic;
  int64_t ld_x = 0;               // elements between row starts of x; 0 = cols
  int64_t ld_y = 0;               // elements between row starts of y; 0 = cols
  void* workspace = nullptr;      // two_pass only: >= plan_row_norm(...).workspace_bytes, 4-byte aligned
  size_t workspace_bytes = 0;
  cudaStream_t stream = nullptr;
};

// What l2_norm / rms_norm will launch for these arguments.
struct NormPlan {
  NormAlgo algo = NormAlgo::one_pass;
  int threads_per_row = 0;    // one_pass: threads that share a row; two_pass: threads per chunk CTA
  int rows_per_cta = 0;       // one_pass: rows per CTA (> 1 for the warp-per-row kernel)
  int vecs_per_thread = 0;    // 16-byte vectors each thread holds
  int64_t chunks = 0;         // two_pass: chunks per row
  size_t workspace_bytes = 0; // two_pass: rows * chunks * sizeof(float)
  std::string str() const;    // "one-pass 128x8" / "two-pass 4 chunks of 256x8"
};

// Longest row (elements) one_pass can hold for T with a 16-byte aligned row start.
template <class T>
int64_t max_one_pass_cols();

template <class T>
NormPlan plan_row_norm(const T* x, int64_t rows, int64_t cols, const NormOptions& opt = {});

template <class T>
void l2_norm(const T* x, T* y, int64_t rows, int64_t cols, float eps, const NormOptions& opt = {});

template <class T>
void rms_norm(const T* x, const T* weight, T* y, int64_t rows, int64_t cols, float eps, const NormOptions& opt = {});

// Elementwise chains.  Defined in include/tessera/kernel/fused/elementwise.hpp (needs nvcc); the
// library (src/fused_elementwise.cu) instantiates, for float, __nv_bfloat16 and __half, the chains
// named below, so host code compiled by any C++ compiler can call them.  Other expressions: include
// the kernel header from a .cu file.  n >= 0; in == out (in place) is allowed, other overlaps are not.
template <class T, class F>
void elementwise(const F& f, const T* in, T* out, int64_t n, cudaStream_t stream = nullptr);
template <class T, class F>
void elementwise_unfused(const F& f, const T* in, T* out, int64_t n, cudaStream_t stream = nullptr);

namespace detail {

[[noreturn]] inline void throw_arg(const char* who, const std::string& what) {
  throw ArgumentError(std::string(who) + ": " + what);
}

inline void check_cuda(cudaError_t e, const char* who, const char* call) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string(who) + ": " + call + " failed: " + cudaGetErrorString(e));
}

// Throws unless p is aligned to `align` bytes.
inline void check_aligned(const void* p, size_t align, const char* who, const char* name) {
  if (reinterpret_cast<uintptr_t>(p) % align != 0)
    throw_arg(who, std::string("argument '") + name + "' must be aligned to " + std::to_string(align) +
                       " bytes (the element size); got address " + std::to_string(reinterpret_cast<uintptr_t>(p)));
}

// [a, a+na) and [b, b+nb) share a byte.
inline bool overlaps(const void* a, size_t na, const void* b, size_t nb) {
  const auto pa = reinterpret_cast<uintptr_t>(a), pb = reinterpret_cast<uintptr_t>(b);
  return na > 0 && nb > 0 && pa < pb + nb && pb < pa + na;
}

inline void check_elementwise_args(const void* in, const void* out, int64_t n, size_t elem, const char* who) {
  if (n < 0) throw_arg(who, "argument 'n' is " + std::to_string(n) + "; expected n >= 0");
  if (n == 0) return;
  if (!in) throw_arg(who, "argument 'in' is null with n = " + std::to_string(n));
  if (!out) throw_arg(who, "argument 'out' is null with n = " + std::to_string(n));
  check_aligned(in, elem, who, "in");
  check_aligned(out, elem, who, "out");
  const size_t bytes = static_cast<size_t>(n) * elem;
  if (in != out && overlaps(in, bytes, out, bytes))
    throw_arg(who, "arguments 'in' and 'out' overlap without being equal; use in == out for in-place or "
                   "separate buffers");
}

}  // namespace detail

}  // namespace tessera::fused

// ---- elementwise chains instantiated in the library (fused and unfused, float / bf16 / fp16) ----
// A chain's type holds its structure; the constants (scale, shift) travel in the object.
namespace tessera::fused::chains {
using Identity = ew::X;                                                     // x (a copy)
using SqrtSin = decltype(ew::sqrt(ew::sin(ew::x)));                         // sqrt(sin(x))
using GeluAffine = decltype(ew::gelu(ew::x * 1.0f + 0.0f));                 // gelu(x*scale+shift)
inline constexpr Identity identity() { return ew::x; }
inline constexpr SqrtSin sqrt_sin() { return ew::sqrt(ew::sin(ew::x)); }
inline constexpr GeluAffine gelu_affine(float scale, float shift) { return ew::gelu(ew::x * scale + shift); }
}  // namespace tessera::fused::chains
