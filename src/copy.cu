// src/copy.cu -- host API of the 2-D copy: validation, normalisation, variant selection, plans.
#include <cuda_runtime.h>

#include <algorithm>  // std::min
#include <climits>    // INT_MAX
#include <cstdint>    // INT32_MAX
#include <mutex>      // std::mutex
#include <stdexcept>  // std::invalid_argument, std::runtime_error
#include <string>     // std::string, std::to_string

#include "tessera/host/copy.hpp"
#include "tessera/kernel/copy/launch.hpp"  // NormalCopy, make_*_launch

namespace tessera {
namespace kernel {

const DeviceFacts& current_device_facts() {
  static std::mutex mu;
  static DeviceFacts facts[64];
  static bool known[64] = {};
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64)
    throw std::runtime_error("tessera: no usable CUDA device (cudaGetDevice failed)");
  std::lock_guard<std::mutex> lock(mu);
  if (!known[dev]) {
    DeviceFacts f;
    f.device = dev;
    int major = 0, minor = 0;
    cudaDeviceGetAttribute(&f.sm_count, cudaDevAttrMultiProcessorCount, dev);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    cudaDeviceGetAttribute(&f.smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    cudaDeviceGetAttribute(&f.smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev);
    cudaDeviceGetAttribute(&f.l2_bytes, cudaDevAttrL2CacheSize, dev);
    f.cc = major * 10 + minor;
    facts[dev] = f;
    known[dev] = true;
  }
  return facts[dev];
}

int64_t persistent_grid(const void* kernel, int threads, size_t smem_bytes, int64_t tiles, int requested) {
  if (tiles <= 0) return 0;
  if (tiles > INT32_MAX)
    throw std::invalid_argument("tessera::copy_2d: the problem needs " + std::to_string(tiles) +
                                " tiles; the copy kernels index tiles with 32 bits (at most 2147483647)");
  if (requested == -1) return std::min<int64_t>(tiles, INT_MAX);
  int per_sm = requested;
  if (per_sm <= 0) {
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem_bytes) != cudaSuccess ||
        per_sm < 1)
      per_sm = 1;
  }
  return std::min<int64_t>(tiles, static_cast<int64_t>(per_sm) * current_device_facts().sm_count);
}

void check_launch(const char* what) {
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) throw std::runtime_error(std::string("tessera: launch of ") + what + " failed: " + cudaGetErrorString(e));
}

}  // namespace kernel

namespace {

[[noreturn]] void bad(const std::string& msg) { throw std::invalid_argument("tessera::copy_2d: " + msg); }

std::string i2s(int64_t v) { return std::to_string(v); }

// The byte span [first, last) a matrix occupies.
void matrix_span(const void* base, int64_t inner, int64_t outer, int64_t ld, int e, uintptr_t* first, uintptr_t* last) {
  *first = reinterpret_cast<uintptr_t>(base);
  *last = *first + static_cast<uintptr_t>(((outer - 1) * ld + inner) * e);
}

void check_device_pointer(const void* p, const char* name) {
  cudaPointerAttributes a{};
  cudaError_t e = cudaPointerGetAttributes(&a, p);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    bad(std::string(name) + " is not a pointer the CUDA runtime knows (" + cudaGetErrorString(e) + ")");
  }
  if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)
    bad(std::string(name) + " must point to device memory (cudaMalloc), got " +
        (a.type == cudaMemoryTypeHost ? "pinned host memory" : "unregistered host memory"));
}

// Validates `p` (throws std::invalid_argument) and returns its normal form.  `check_memory`: also
// require device pointers and disjoint buffers (off only for host-side predictions).
kernel::NormalCopy normalize(const Copy2d& p, bool check_memory = true) {
  const int e = p.elem_bytes;
  if (e != 1 && e != 2 && e != 4 && e != 8) bad("elem_bytes must be 1, 2, 4 or 8 (got " + i2s(e) + ")");
  if (p.rows < 0) bad("rows must be >= 0 (got " + i2s(p.rows) + ")");
  if (p.cols < 0) bad("cols must be >= 0 (got " + i2s(p.cols) + ")");
  kernel::NormalCopy n;
  n.elem_bytes = e;
  if (p.rows == 0 || p.cols == 0) return n;  // nothing to copy
  if (!p.src) bad("src is null");
  if (!p.dst) bad("dst is null");
  const auto check_ld = [&](int64_t ld, Major major, const char* name) {
    const int64_t inner = major == Major::kRow ? p.cols : p.rows;
    const int64_t outer = major == Major::kRow ? p.rows : p.cols;
    if (ld < inner)
      bad(std::string(name) + " must be >= " + (major == Major::kRow ? "cols" : "rows") + " (" + i2s(inner) + ") for a " +
          (major == Major::kRow ? "row" : "column") + "-major matrix, got " + i2s(ld));
    if (outer > 1 && ld > (INT64_MAX / e - inner) / (outer - 1))
      bad(std::string(name) + " = " + i2s(ld) + " makes the matrix larger than 2^63 bytes");
  };
  check_ld(p.ld_src, p.src_major, "ld_src");
  check_ld(p.ld_dst, p.dst_major, "ld_dst");
  if (reinterpret_cast<uintptr_t>(p.src) % e) bad("src must be aligned to elem_bytes (" + i2s(e) + ")");
  if (reinterpret_cast<uintptr_t>(p.dst) % e) bad("dst must be aligned to elem_bytes (" + i2s(e) + ")");
  if (check_memory) {
    check_device_pointer(p.src, "src");
    check_device_pointer(p.dst, "dst");
  }
  uintptr_t s0, s1, d0, d1;
  matrix_span(p.src, p.src_major == Major::kRow ? p.cols : p.rows, p.src_major == Major::kRow ? p.rows : p.cols,
              p.ld_src, e, &s0, &s1);
  matrix_span(p.dst, p.dst_major == Major::kRow ? p.cols : p.rows, p.dst_major == Major::kRow ? p.rows : p.cols,
              p.ld_dst, e, &d0, &d1);
  if (check_memory && s0 < d1 && d0 < s1) bad("src and dst overlap; copy_2d needs disjoint buffers");

  n.src = p.src;
  n.dst = p.dst;
  n.lds = p.ld_src;
  n.ldd = p.ld_dst;
  if (p.dst_major == Major::kRow) {
    n.m = p.rows;
    n.n = p.cols;
    n.transposed = p.src_major == Major::kCol;
  } else {  // a column-major destination is the row-major destination of the transposed view
    n.m = p.cols;
    n.n = p.rows;
    n.transposed = p.src_major == Major::kRow;
  }
  return n;
}

std::string make_launch(const kernel::NormalCopy& n, CopyVariant v, const CopyTuning& t, kernel::Launcher* launch,
                        std::string* desc) {
  switch (v) {
    case CopyVariant::kScalar: return kernel::make_scalar_launch(n, t, launch, desc);
    case CopyVariant::kVector: return kernel::make_vector_launch(n, t, launch, desc);
    case CopyVariant::kCpAsync: return kernel::make_smem_launch(n, false, t, launch, desc);
    case CopyVariant::kSwizzled: return kernel::make_smem_launch(n, true, t, launch, desc);
    case CopyVariant::kTma: return kernel::make_tma_launch(n, t, launch, desc);
    case CopyVariant::kAuto: break;
  }
  return "kAuto is resolved before launch";
}

void check_tuning(const CopyTuning& t) {
  if (t.unroll != 0 && t.unroll != 1 && t.unroll != 2 && t.unroll != 4 && t.unroll != 8)
    bad("tuning.unroll must be 0 (default), 1, 2, 4 or 8 (got " + i2s(t.unroll) + ")");
  if (t.hints < -1 || t.hints > 1) bad("tuning.hints must be -1 (default), 0 or 1 (got " + i2s(t.hints) + ")");
  if (t.stages != 0 && (t.stages < 2 || t.stages > 4)) bad("tuning.stages must be 0 (default) or 2..4 (got " + i2s(t.stages) + ")");
  if (t.ctas_per_sm < -1 || t.ctas_per_sm > 64)
    bad("tuning.ctas_per_sm must be -1 (one CTA per tile), 0 (as many as fit) or 1..64 (got " + i2s(t.ctas_per_sm) + ")");
  if (t.balanced < -1 || t.balanced > 1) bad("tuning.balanced must be -1 (default), 0 or 1 (got " + i2s(t.balanced) + ")");
  if (t.box_bytes != 0 && (t.box_bytes < 256 || t.box_bytes > 65536))
    bad("tuning.box_bytes must be 0 (default) or 256..65536 (got " + i2s(t.box_bytes) + ")");
}

CopyVariant auto_variant(const kernel::NormalCopy& n) {
  CopyTuning t;
  kernel::Launcher l;
  std::string d;
  if (n.transposed) {
    if (kernel::make_smem_launch(n, true, t, &l, &d).empty()) return CopyVariant::kSwizzled;
    return CopyVariant::kScalar;
  }
  return CopyVariant::kVector;
}

}  // namespace

CopyPlan::CopyPlan(const Copy2d& problem, CopyVariant variant, const CopyTuning& tuning) {
  check_tuning(tuning);
  const kernel::NormalCopy n = normalize(problem);
  if (n.m == 0 || n.n == 0) {
    variant_ = variant == CopyVariant::kAuto ? CopyVariant::kVector : variant;
    description_ = "empty problem: nothing to copy";
    launch_ = [](cudaStream_t) {};
    return;
  }
  variant_ = variant == CopyVariant::kAuto ? auto_variant(n) : variant;
  const std::string why = make_launch(n, variant_, tuning, &launch_, &description_);
  if (!why.empty()) bad(std::string("variant '") + to_string(variant_) + "' cannot run this problem: " + why);
}

void CopyPlan::run(cudaStream_t stream) const { launch_(stream); }

void copy_2d(const Copy2d& problem, CopyVariant variant, cudaStream_t stream) { CopyPlan(problem, variant).run(stream); }

std::string copy_unsupported_reason(const Copy2d& problem, CopyVariant variant) {
  const kernel::NormalCopy n = normalize(problem);
  if (variant == CopyVariant::kAuto || n.m == 0 || n.n == 0) return "";
  kernel::Launcher l;
  std::string d;
  return make_launch(n, variant, CopyTuning{}, &l, &d);
}

CopyVariant select_copy_variant(const Copy2d& problem) {
  const kernel::NormalCopy n = normalize(problem);
  if (n.m == 0 || n.n == 0) return CopyVariant::kVector;
  return auto_variant(n);
}

std::vector<SmemTraffic> predict_smem_traffic(const Copy2d& problem, CopyVariant variant) {
  const kernel::NormalCopy n = normalize(problem, /*check_memory=*/false);
  if (n.m == 0 || n.n == 0) return {};
  if (variant == CopyVariant::kAuto) variant = auto_variant(n);
  if (variant != CopyVariant::kCpAsync && variant != CopyVariant::kSwizzled) return {};
  const bool swizzled = variant == CopyVariant::kSwizzled;
  return n.transposed ? kernel::predict_smem_transposed(n, swizzled) : kernel::predict_smem_straight(n, swizzled);
}

const char* to_string(CopyVariant v) {
  switch (v) {
    case CopyVariant::kAuto: return "auto";
    case CopyVariant::kScalar: return "scalar";
    case CopyVariant::kVector: return "vector";
    case CopyVariant::kCpAsync: return "cp_async";
    case CopyVariant::kSwizzled: return "swizzled";
    case CopyVariant::kTma: return "tma";
  }
  return "?";
}

CopyVariant parse_copy_variant(const std::string& name) {
  for (CopyVariant v : {CopyVariant::kAuto, CopyVariant::kScalar, CopyVariant::kVector, CopyVariant::kCpAsync,
                        CopyVariant::kSwizzled, CopyVariant::kTma})
    if (name == to_string(v)) return v;
  throw std::invalid_argument("unknown copy variant '" + name +
                              "' (expected auto, scalar, vector, cp_async, swizzled or tma)");
}

std::vector<CopyVariant> all_copy_variants() {
  return {CopyVariant::kScalar, CopyVariant::kVector, CopyVariant::kCpAsync, CopyVariant::kSwizzled, CopyVariant::kTma};
}

}  // namespace tessera
