// python/src/cuda_module.cpp -- tessera._cuda, the GPU half of the Python package: the entry points
// of the PyTorch ops (python/tessera/ops.py) over the host API of the kernels library
// (include/tessera/host/gemm.hpp, include/tessera/host/fused.hpp).
//
// Built only where the kernels are (a CUDA build, or a prebuilt libtessera_kernels.a; see
// python/CMakeLists.txt).  It knows nothing of PyTorch: tensors arrive as raw device pointers
// (Python ints), element-type codes (Dtype, tessera/dtype.hpp: 0 bf16, 1 f16, 2 f32; the 8-bit and integer
// codes 3-6 are refused with their names), orders (MatrixOrder: 0 row-major,
// 1 column-major), leading dimensions, the device ordinal and the raw cudaStream_t (an int, e.g.
// torch.cuda.current_stream().cuda_stream).  The Python side checks the tensors and names the
// arguments in its own terms; the host API checks everything again before anything is launched.
//
// Memory: no entry point allocates.  Where a plan needs scratch memory (split-K partial sums, a stream-K
// tail's flags and partial tiles, the two-pass row norm), the entry point calls `alloc(bytes)`, a Python
// callable returning a pair (object with data_ptr(), zeroed): a torch uint8 tensor from the caching
// allocator, allocated on the current stream, and whether its counters are known to be zero
// (python/tessera/ops.py keeps one zero-filled workspace per stream for the GEMM, which every completed
// split-K or stream-K call leaves zeroed, so a decode-shaped call enqueues no fill).  The entry point keeps
// the object alive until the work is enqueued.  Stream-ordered reuse by the caller's allocator is then
// safe, and CUDA graph capture sees only stream work.
//
// Errors: a rejected argument raises ValueError with the host API's message; a valid request this
// build or device cannot run, or a CUDA failure, raises RuntimeError.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>  // std::string <-> str
#include <nanobind/stl/vector.h>  // std::vector <-> list

#include <cuda_runtime.h>  // cudaGetDevice, cudaSetDevice

#include <cstdint>    // uintptr_t, int64_t
#include <stdexcept>  // std::invalid_argument, std::runtime_error
#include <string>     // std::string
#include <vector>     // std::vector

#include "tessera/host/fused.hpp"  // fused::l2_norm, fused::rms_norm, plan_row_norm
#include "tessera/host/gemm.hpp"   // gemm, GemmArgs, Activation, BiasMode

namespace nb = nanobind;

namespace tessera::python {

namespace {

// ------------------------------------------------------------------ decoding the codes
Dtype to_dtype(int code, const char* what) {
  const Dtype t = static_cast<Dtype>(code);
  switch (t) {
    case Dtype::bf16:
    case Dtype::f16:
    case Dtype::f32: return t;
    case Dtype::e4m3:
    case Dtype::e5m2:
    case Dtype::s8:
    case Dtype::s32:  // a Dtype that no entry point takes yet
      throw std::invalid_argument(std::string(what) + ": dtype code " + std::to_string(code) + " (" + dtype_name(t) +
                                  ") is not supported; expected 0 (bf16), 1 (f16) or 2 (f32)");
  }
  throw std::invalid_argument(std::string(what) + ": dtype code " + std::to_string(code) +
                              "; expected 0 (bf16), 1 (f16) or 2 (f32)");
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
// D = act(alpha * A @ B + beta * C + bias) [+ residual]: the fields of GemmArgs, flat.
void gemm_entry(int64_t m, int64_t n, int64_t k,                                 //
                uintptr_t a, int in_type, int a_order, int64_t lda,              //
                uintptr_t b, int b_order, int64_t ldb,                           //
                uintptr_t d, int d_type, int d_order, int64_t ldd,               //
                float alpha, float beta, uintptr_t c, int c_order, int64_t ldc,  //
                uintptr_t bias, int bias_mode, int bias_type, int64_t bias_size,  //
                int activation, float leaky_relu_slope, float clamp_lo, float clamp_hi,  //
                uintptr_t residual, int r_order, int64_t ldr,                    //
                int device, uintptr_t stream, nb::handle alloc) {
  GemmArgs g;
  g.m = m;
  g.n = n;
  g.k = k;
  const Dtype in = to_dtype(in_type, "a");
  const Dtype out = to_dtype(d_type, "d");
  g.a = GemmMatrix{to_ptr(a), in, to_order(a_order, "a"), lda};
  g.b = GemmMatrix{to_ptr(b), in, to_order(b_order, "b"), ldb};
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

  DeviceGuard guard(device);
  PyWorkspace ws{alloc, {}};
  const GemmStatus st = alloc.is_none() ? gemm(g, reinterpret_cast<cudaStream_t>(stream))
                                        : gemm(g, reinterpret_cast<cudaStream_t>(stream), &py_workspace, &ws);
  if (!st) raise_status(st);
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
        nb::arg("stream"), nb::arg("alloc").none(),
        "tessera::gemm on `stream` (asynchronous): D = act(alpha A @ B + beta C + bias) [+ residual]; pointers "
        "are ints (0 = absent), alloc(bytes) -> (object with data_ptr(), counters zeroed) supplies split-K and "
        "stream-K scratch (None: neither)");
  m.def("row_norm", &row_norm_entry, nb::arg("kind"), nb::arg("dtype"), nb::arg("x"), nb::arg("ld_x"), nb::arg("w"),
        nb::arg("y"), nb::arg("ld_y"), nb::arg("rows"), nb::arg("cols"), nb::arg("eps"), nb::arg("device"),
        nb::arg("stream"), nb::arg("alloc").none(),
        "kind 0: l2_norm, 1: rms_norm of `rows` rows on `stream`; alloc(bytes) -> (object with data_ptr(), _) "
        "supplies two_pass scratch (None: "
        "the kernels take it with cudaMallocAsync)");
  m.def("activations", &activation_names, "the GEMM epilogue's activations, in the order of their codes");
}
