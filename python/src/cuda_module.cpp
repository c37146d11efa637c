// python/src/cuda_module.cpp -- tessera._cuda, the GPU half of the Python package: the entry points
// of the PyTorch ops (python/tessera/ops.py) over the host API of the kernels library
// (include/tessera/host/gemm.hpp, include/tessera/host/fused.hpp, include/tessera/host/quantize.hpp).
//
// Built only where the kernels are (a CUDA build, or a prebuilt libtessera_kernels.a; see
// python/CMakeLists.txt).  It knows nothing of PyTorch: tensors arrive as raw device pointers
// (Python ints), element-type codes (Dtype, tessera/dtype.hpp: 0 bf16, 1 f16, 2 f32, 3 e4m3, 4 e5m2, 5 s8, 6 s32),
// orders (MatrixOrder: 0 row-major, 1 column-major), leading dimensions, the device ordinal and the raw
// cudaStream_t (an int, e.g. torch.cuda.current_stream().cuda_stream).  Which codes each argument takes:
//   GEMM operands A and B          0-5 (the 8-bit codes 3-5 with the host API's rules: K-major, scales)
//   D (so C and the residual), bias, the row norms' x, quantize's x     0-2
//   quantize's q                   3-5
// Any other code is refused with its name (s32: no entry point takes it yet).  The GEMM's scale modes
// (GemmScale), FP8 accumulation (GemmFp8Accum), math (GemmMath) and quantize's scale mode (QuantScale) arrive
// as their enumerators' values.  The Python side checks the tensors and names the arguments in its own terms;
// the host API checks everything again before anything is launched.
//
// Memory: no entry point allocates.  Where a plan needs scratch memory (split-K partial sums, a stream-K
// tail's flags and partial tiles, the two-pass row norm, the per-tensor quantisation's max and counter), the
// entry point calls `alloc(bytes)`, a Python
// callable returning a pair (object with data_ptr(), zeroed): a torch uint8 tensor from the caching
// allocator, allocated on the current stream, and whether its counters are known to be zero
// (python/tessera/ops.py keeps one zero-filled workspace per stream for the GEMM, which every completed
// split-K or stream-K call leaves zeroed, so a decode-shaped call enqueues no fill; and one for quantize,
// which every call leaves zeroed).  The entry point keeps
// the object alive until the work is enqueued.  Stream-ordered reuse by the caller's allocator is then
// safe, and CUDA graph capture sees only stream work.
//
// Errors: a rejected argument raises ValueError with the host API's message; a valid request this
// build or device cannot run, or a CUDA failure, raises RuntimeError.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>  // std::string <-> str
#include <nanobind/stl/vector.h>  // std::vector <-> list

#include <cuda_runtime.h>  // cudaGetDevice, cudaSetDevice, cudaMemsetAsync

#include <cstdint>    // uintptr_t, int64_t
#include <stdexcept>  // std::invalid_argument, std::runtime_error
#include <string>     // std::string
#include <vector>     // std::vector

#include "tessera/host/fused.hpp"  // fused::l2_norm, fused::rms_norm, plan_row_norm
#include "tessera/host/gemm.hpp"   // gemm, GemmArgs, Activation, BiasMode, GemmScale, GemmFp8Accum, GemmMath
#include "tessera/host/quantize.hpp"  // fused::quantize, QuantizeArgs, QuantScale, quantize_workspace_bytes

namespace nb = nanobind;

namespace tessera::python {

namespace {

// ------------------------------------------------------------------ decoding the codes
// The name of a code that is a Dtype ("e4m3"), for the refusals below.
std::string code_text(int code) {
  const Dtype t = static_cast<Dtype>(code);
  return std::to_string(code) + (is_dtype(t) ? std::string(" (") + dtype_name(t) + ")" : std::string());
}

// A 16- or 32-bit floating type: D, C, the residual, the bias, the row norms' and quantize's x.
Dtype to_dtype(int code, const char* what) {
  const Dtype t = static_cast<Dtype>(code);
  if (t == Dtype::bf16 || t == Dtype::f16 || t == Dtype::f32) return t;
  throw std::invalid_argument(std::string(what) + ": dtype code " + code_text(code) +
                              (is_dtype(t) ? " is not supported" : "") + "; expected 0 (bf16), 1 (f16) or 2 (f32)");
}
// An 8-bit type: quantize's q.
Dtype to_8bit_dtype(int code, const char* what) {
  const Dtype t = static_cast<Dtype>(code);
  if (t == Dtype::e4m3 || t == Dtype::e5m2 || t == Dtype::s8) return t;
  throw std::invalid_argument(std::string(what) + ": dtype code " + code_text(code) +
                              (is_dtype(t) ? " is not supported" : "") + "; expected 3 (e4m3), 4 (e5m2) or 5 (s8)");
}
// A GEMM operand (A, B): either of the above; which pairs go together the host API checks.
Dtype to_operand_dtype(int code, const char* what) {
  const Dtype t = static_cast<Dtype>(code);
  if (t == Dtype::bf16 || t == Dtype::f16 || t == Dtype::f32 || t == Dtype::e4m3 || t == Dtype::e5m2 || t == Dtype::s8)
    return t;
  throw std::invalid_argument(std::string(what) + ": dtype code " + code_text(code) +
                              (is_dtype(t) ? " is not supported" : "") +
                              "; expected 0 (bf16), 1 (f16), 2 (f32), 3 (e4m3), 4 (e5m2) or 5 (s8)");
}
// An enumerator of an enum class whose values are 0 .. last, by its value.
template <class E>
E to_enum(int code, E last, const char* what, const char* expected) {
  if (code < 0 || code > static_cast<int>(last))
    throw std::invalid_argument(std::string(what) + ": code " + std::to_string(code) + "; expected " + expected);
  return static_cast<E>(code);
}
MatrixOrder to_order(int code, const char* what) {
  if (code != 0 && code != 1)
    throw std::invalid_argument(std::string(what) + ": order code " + std::to_string(code) +
                                "; expected 0 (row-major) or 1 (column-major)");
  return static_cast<MatrixOrder>(code);
}
const void* to_ptr(uintptr_t p) { return reinterpret_cast<const void*>(p); }

// The current device is `device` for the lifetime of this object (the host API plans and launches
// on the current device), then the previous one again.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    if (cudaGetDevice(&previous_) != cudaSuccess) {
      (void)cudaGetLastError();
      throw std::runtime_error("tessera._cuda: cudaGetDevice failed (no usable CUDA device?)");
    }
    if (previous_ != device) {
      const cudaError_t e = cudaSetDevice(device);
      if (e != cudaSuccess) {
        (void)cudaGetLastError();
        throw std::runtime_error("tessera._cuda: cudaSetDevice(" + std::to_string(device) +
                                 ") failed: " + cudaGetErrorString(e));
      }
      switched_ = true;
    }
  }
  ~DeviceGuard() {
    if (switched_) (void)cudaSetDevice(previous_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
  bool switched_ = false;
};

// Scratch memory from a Python callable: alloc(bytes) -> (object with data_ptr(), zeroed).  The object
// lives as long as this holder, i.e. until the work using it has been enqueued.
struct PyWorkspace {
  nb::handle alloc;
  nb::object keep;
  void* take(size_t bytes, bool* zeroed) {
    nb::object got = nb::borrow<nb::object>(alloc)(bytes);
    if (!nb::isinstance<nb::tuple>(got) || nb::len(got) != 2)
      throw std::invalid_argument("alloc: expected alloc(bytes) to return (tensor, zeroed)");
    keep = got[0];
    if (zeroed) *zeroed = nb::cast<bool>(got[1]);
    return reinterpret_cast<void*>(nb::cast<uintptr_t>(keep.attr("data_ptr")()));
  }
};
void* py_workspace(size_t bytes, void* ctx, bool* zeroed) { return static_cast<PyWorkspace*>(ctx)->take(bytes, zeroed); }

void raise_status(const GemmStatus& st) {
  if (st.code == GemmError::invalid_argument) throw std::invalid_argument(st.message);
  throw std::runtime_error(st.message);
}

// ------------------------------------------------------------------ GEMM
// D = act(alpha * (scale_a A) @ (scale_b B) + beta * C + bias) [+ residual]: the fields of GemmArgs, flat.
// b_type < 0: B has A's type.  The scales (device pointers, 0 = none) and their modes, fp8_accum and math only
// with 8-bit operands (the host API says so otherwise).
void gemm_entry(int64_t m, int64_t n, int64_t k,                                 //
                uintptr_t a, int in_type, int a_order, int64_t lda,              //
                uintptr_t b, int b_order, int64_t ldb,                           //
                uintptr_t d, int d_type, int d_order, int64_t ldd,               //
                float alpha, float beta, uintptr_t c, int c_order, int64_t ldc,  //
                uintptr_t bias, int bias_mode, int bias_type, int64_t bias_size,  //
                int activation, float leaky_relu_slope, float clamp_lo, float clamp_hi,  //
                uintptr_t residual, int r_order, int64_t ldr,                    //
                int device, uintptr_t stream, nb::handle alloc,                  //
                int b_type, uintptr_t scale_a, int scale_a_mode, uintptr_t scale_b, int scale_b_mode,  //
                int fp8_accum, int math) {
  GemmArgs g;
  g.m = m;
  g.n = n;
  g.k = k;
  const Dtype a_t = to_operand_dtype(in_type, "a");
  const Dtype b_t = b_type < 0 ? a_t : to_operand_dtype(b_type, "b");
  const Dtype out = to_dtype(d_type, "d");
  g.a = GemmMatrix{to_ptr(a), a_t, to_order(a_order, "a"), lda};
  g.b = GemmMatrix{to_ptr(b), b_t, to_order(b_order, "b"), ldb};
  g.d = GemmOutput{reinterpret_cast<void*>(d), out, to_order(d_order, "d"), ldd};
  g.alpha = alpha;
  g.beta = beta;
  if (c) g.c = GemmMatrix{to_ptr(c), out, to_order(c_order, "c"), ldc};
  if (bias_mode < 0 || bias_mode > 3)
    throw std::invalid_argument("bias_mode: code " + std::to_string(bias_mode) +
                                "; expected 0 (none), 1 (per column), 2 (per row) or 3 (scalar)");
  g.bias_mode = static_cast<BiasMode>(bias_mode);
  g.bias = to_ptr(bias);
  g.bias_type = to_dtype(bias_type, "bias");
  g.bias_size = bias_size;
  if (activation < 0 || activation > static_cast<int>(Activation::clamp))
    throw std::invalid_argument("activation: code " + std::to_string(activation) + " is not an Activation");
  g.activation = static_cast<Activation>(activation);
  g.leaky_relu_slope = leaky_relu_slope;
  g.clamp_lo = clamp_lo;
  g.clamp_hi = clamp_hi;
  if (residual) g.residual = GemmMatrix{to_ptr(residual), out, to_order(r_order, "residual"), ldr};
  g.scale_a = reinterpret_cast<const float*>(scale_a);
  g.scale_b = reinterpret_cast<const float*>(scale_b);
  constexpr const char* kScales = "0 (tensor), 1 (channel) or 2 (block)";
  g.scale_a_mode = to_enum(scale_a_mode, GemmScale::block, "scale_a_mode", kScales);
  g.scale_b_mode = to_enum(scale_b_mode, GemmScale::block, "scale_b_mode", kScales);
  g.fp8_accum = to_enum(fp8_accum, GemmFp8Accum::fast, "fp8_accum", "0 (promoted) or 1 (fast)");
  g.math = to_enum(math, GemmMath::dp4a, "math",
                   "0 (automatic), 1 (tensor_core), 2 (tf32), 3 (fp32_exact) or 4 (dp4a)");

  DeviceGuard guard(device);
  PyWorkspace ws{alloc, {}};
  const GemmStatus st = alloc.is_none() ? gemm(g, reinterpret_cast<cudaStream_t>(stream))
                                        : gemm(g, reinterpret_cast<cudaStream_t>(stream), &py_workspace, &ws);
  if (!st) raise_status(st);
}

// ------------------------------------------------------------------ quantisation
// q = convert(x / scale) with the scales of `mode` (QuantScale) written to `scale` (tensor_given: read from it)
// and, when amax != 0, the groups' amax to `amax`: fused::quantize on `stream`.  x: rows x cols, row stride ld_x
// elements; q: row stride ld_q bytes; scale_elems: the floats at scale (and amax).  The workspace of the
// per-tensor modes comes from alloc(bytes) (zero-filled here on `stream` unless alloc says it is zeroed; every
// call leaves it zeroed); alloc None: the library allocates one per call.
void quantize_entry(uintptr_t x, int x_type, int64_t rows, int64_t cols, int64_t ld_x,  //
                    uintptr_t q, int q_type, int64_t ld_q, int mode,                   //
                    uintptr_t scale, uintptr_t amax, int64_t scale_elems,              //
                    int device, uintptr_t stream, nb::handle alloc) {
  fused::QuantizeArgs a;
  a.x = to_ptr(x);
  a.x_type = to_dtype(x_type, "x");
  a.rows = rows;
  a.cols = cols;
  a.ld_x = ld_x;
  a.q = reinterpret_cast<void*>(q);
  a.q_type = to_8bit_dtype(q_type, "q");
  a.ld_q = ld_q;
  a.mode = to_enum(mode, fused::QuantScale::block_128x128, "mode",
                   "0 (tensor), 1 (tensor_given), 2 (row), 3 (block_1x128) or 4 (block_128x128)");
  a.scale = reinterpret_cast<float*>(scale);
  a.amax = reinterpret_cast<float*>(amax);
  a.scale_elems = scale_elems;
  a.stream = reinterpret_cast<cudaStream_t>(stream);

  DeviceGuard guard(device);
  PyWorkspace ws{alloc, {}};
  const size_t bytes = fused::quantize_workspace_bytes(a);
  if (bytes > 0 && rows > 0 && cols > 0 && !alloc.is_none()) {
    bool zeroed = false;
    a.workspace = ws.take(bytes, &zeroed);
    a.workspace_bytes = bytes;
    if (!zeroed) {
      const cudaError_t e = cudaMemsetAsync(a.workspace, 0, bytes, a.stream);
      if (e != cudaSuccess) {
        (void)cudaGetLastError();
        throw std::runtime_error(std::string("tessera._cuda.quantize: cudaMemsetAsync of the workspace failed: ") +
                                 cudaGetErrorString(e));
      }
    }
  }
  fused::quantize(a);
}

// ------------------------------------------------------------------ row norms
template <class T>
void row_norm_typed(int kind, uintptr_t x, int64_t ld_x, uintptr_t w, uintptr_t y, int64_t ld_y, int64_t rows,
                    int64_t cols, float eps, cudaStream_t stream, nb::handle alloc) {
  const T* xp = reinterpret_cast<const T*>(x);
  fused::NormOptions opt;
  opt.ld_x = ld_x;
  opt.ld_y = ld_y;
  opt.stream = stream;
  PyWorkspace ws{alloc, {}};
  // Rows longer than one_pass holds (less up to 7 elements of misalignment) take two_pass and its
  // workspace; plan_row_norm checks x as if in place (y = x), so its options say ld_y = ld_x.
  if (rows > 0 && cols > fused::max_one_pass_cols<T>() - 8 && !alloc.is_none()) {
    fused::NormOptions plan_opt = opt;
    plan_opt.ld_y = opt.ld_x;
    const fused::NormPlan plan = fused::plan_row_norm<T>(xp, rows, cols, plan_opt);
    if (plan.workspace_bytes > 0) {
      opt.workspace = ws.take(plan.workspace_bytes, nullptr);
      opt.workspace_bytes = plan.workspace_bytes;
    }
  }
  if (kind == 0)
    fused::l2_norm<T>(xp, reinterpret_cast<T*>(y), rows, cols, eps, opt);
  else
    fused::rms_norm<T>(xp, reinterpret_cast<const T*>(w), reinterpret_cast<T*>(y), rows, cols, eps, opt);
}

// kind 0: y = x / sqrt(sum x^2 + eps); kind 1: y = x / sqrt(mean x^2 + eps) * w (rows of `cols`).
void row_norm_entry(int kind, int dtype, uintptr_t x, int64_t ld_x, uintptr_t w, uintptr_t y, int64_t ld_y,
                    int64_t rows, int64_t cols, float eps, int device, uintptr_t stream, nb::handle alloc) {
  if (kind != 0 && kind != 1)
    throw std::invalid_argument("kind: " + std::to_string(kind) + "; expected 0 (l2_norm) or 1 (rms_norm)");
  const Dtype t = to_dtype(dtype, "x");
  DeviceGuard guard(device);
  const auto s = reinterpret_cast<cudaStream_t>(stream);
  switch (t) {
    case Dtype::bf16: return row_norm_typed<__nv_bfloat16>(kind, x, ld_x, w, y, ld_y, rows, cols, eps, s, alloc);
    case Dtype::f16: return row_norm_typed<__half>(kind, x, ld_x, w, y, ld_y, rows, cols, eps, s, alloc);
    case Dtype::f32: return row_norm_typed<float>(kind, x, ld_x, w, y, ld_y, rows, cols, eps, s, alloc);
    default: break;  // to_dtype let through bf16, f16 and f32 only
  }
  throw std::invalid_argument(std::string("x: dtype ") + dtype_name(t) + " is not supported; expected bf16, f16 or f32");
}

// The epilogue's activations in the order of their codes (the Python side checks its copy of the menu
// against this list).
std::vector<std::string> activation_names() {
  std::vector<std::string> names;
  for (int a = 0; a <= static_cast<int>(Activation::clamp); ++a) names.push_back(activation_name(static_cast<Activation>(a)));
  return names;
}

}  // namespace

}  // namespace tessera::python

NB_MODULE(_cuda, m) {
  using namespace tessera::python;
  m.doc() = "Tessera's GPU entry points for the PyTorch ops (tessera.ops): raw pointers, codes, streams";
  m.def("gemm", &gemm_entry, nb::arg("m"), nb::arg("n"), nb::arg("k"), nb::arg("a"), nb::arg("in_type"),
        nb::arg("a_order"), nb::arg("lda"), nb::arg("b"), nb::arg("b_order"), nb::arg("ldb"), nb::arg("d"),
        nb::arg("d_type"), nb::arg("d_order"), nb::arg("ldd"), nb::arg("alpha"), nb::arg("beta"), nb::arg("c"),
        nb::arg("c_order"), nb::arg("ldc"), nb::arg("bias"), nb::arg("bias_mode"), nb::arg("bias_type"),
        nb::arg("bias_size"), nb::arg("activation"), nb::arg("leaky_relu_slope"), nb::arg("clamp_lo"),
        nb::arg("clamp_hi"), nb::arg("residual"), nb::arg("r_order"), nb::arg("ldr"), nb::arg("device"),
        nb::arg("stream"), nb::arg("alloc").none(), nb::arg("b_type") = -1, nb::arg("scale_a") = 0,
        nb::arg("scale_a_mode") = 0, nb::arg("scale_b") = 0, nb::arg("scale_b_mode") = 0, nb::arg("fp8_accum") = 0,
        nb::arg("math") = 0,
        "tessera::gemm on `stream` (asynchronous): D = act(alpha (scale_a A) @ (scale_b B) + beta C + bias) "
        "[+ residual]; pointers are ints (0 = absent), alloc(bytes) -> (object with data_ptr(), counters zeroed) "
        "supplies split-K and stream-K scratch (None: neither); b_type -1: A's type; scales, their modes "
        "(GemmScale), fp8_accum (GemmFp8Accum) and math (GemmMath) as the enumerators' values");
  m.def("quantize", &quantize_entry, nb::arg("x"), nb::arg("x_type"), nb::arg("rows"), nb::arg("cols"),
        nb::arg("ld_x"), nb::arg("q"), nb::arg("q_type"), nb::arg("ld_q"), nb::arg("mode"), nb::arg("scale"),
        nb::arg("amax"), nb::arg("scale_elems"), nb::arg("device"), nb::arg("stream"), nb::arg("alloc").none(),
        "tessera::fused::quantize on `stream` (asynchronous): q = convert(x / scale) with the scales of `mode` "
        "(QuantScale) written to `scale` (tensor_given: read), the groups' amax to `amax` (0: not); "
        "alloc(bytes) -> (object with data_ptr(), zeroed) supplies the per-tensor modes' workspace");
  m.def("row_norm", &row_norm_entry, nb::arg("kind"), nb::arg("dtype"), nb::arg("x"), nb::arg("ld_x"), nb::arg("w"),
        nb::arg("y"), nb::arg("ld_y"), nb::arg("rows"), nb::arg("cols"), nb::arg("eps"), nb::arg("device"),
        nb::arg("stream"), nb::arg("alloc").none(),
        "kind 0: l2_norm, 1: rms_norm of `rows` rows on `stream`; alloc(bytes) -> (object with data_ptr(), _) "
        "supplies two_pass scratch (None: "
        "the kernels take it with cudaMallocAsync)");
  m.def("activations", &activation_names, "the GEMM epilogue's activations, in the order of their codes");
}
