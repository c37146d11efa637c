// tools/bench_quantize.cpp -- `tessera bench quantize`: the quantisation helpers against cudaMemcpy D2D.
//
// Kernels (include/tessera/host/quantize.hpp): bf16 -> e4m3 / e5m2 / s8 in every scale mode (tensor, tensor_given,
// row, block_1x128, block_128x128) at 8192 x 4096 (64 MiB of input) and 4096 x 14336 (112 MiB); one fp16 case.
// Figure: GB/s counting the bytes that must move -- x read once, q written once, the scales (and nothing else)
// written once -- over the median time.  Reference: cudaMemcpyAsync device-to-device moving the same number of bytes
// (half of them read, half written), timed the same way in the same run; ratio = figure / reference.
// The tensor mode with a computed scale must know the tensor's amax before it writes any q: it reads x twice (an amax
// pass, then a quantise pass that starts with what L2 still holds).  Its record counts the must-move bytes like the
// others; a second record ("..._tensor_two_pass") counts the bytes it reads and writes (2 x + q), its achieved
// bandwidth.
// Every timed run is preceded by an untimed L2 flush (bench::flush_l2); 3 warm-ups; median of --repeats runs (default
// 30, --quick: 5 and fewer cases).  Outputs are verified bit for bit before timing (the scales of every group, the q
// of sampled rows), against fused::quant_scale and cuda_fp8.h's host conversion.
//
// Target (issue 14, docs/PERF.md): the single-pass modes at >= 90% of the D2D figure.
#include <cuda_bf16.h>     // __nv_bfloat16
#include <cuda_fp16.h>     // __half
#include <cuda_fp8.h>      // __nv_cvt_float_to_fp8 (host), the verification
#include <cuda_runtime.h>  // cudaMalloc, cudaMemcpyAsync

#include <algorithm>  // std::min, std::max
#include <cmath>      // std::ldexp, std::nearbyint, std::isnan, std::fabs
#include <cstdint>    // int64_t, uint64_t, uint8_t
#include <cstdio>     // std::printf
#include <cstring>    // std::memcmp, std::memcpy
#include <functional>  // std::function
#include <map>        // std::map
#include <stdexcept>  // std::runtime_error
#include <string>     // std::string
#include <type_traits>  // std::is_same_v
#include <vector>     // std::vector

#include "bench_common.hpp"           // TESSERA_BENCH_SUITE, time_median_ms, flush_l2, Report
#include "tessera/host/quantize.hpp"  // quantize, plan_quantize, quant_scale

namespace {

using namespace tessera;
using bench::BenchOptions;
using bench::Record;
using fused::QuantScale;

// Uniform values in [-1, 1) * 2^(i % 5 - 2), with one element in 4099 an outlier 2^8 times larger.
template <class T>
std::vector<T> random_values(size_t n, uint64_t seed) {
  std::vector<T> h(n);
  uint64_t s = seed;
  for (size_t i = 0; i < n; ++i) {
    s += 0x9e3779b97f4a7c15ull;  // splitmix64
    uint64_t z = s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    const double u = -1.0 + 2.0 * (static_cast<double>(z >> 11) * 0x1.0p-53);
    const int k = static_cast<int>(i % 5) - 2 + (i % 4099 == 7 ? 8 : 0);
    h[i] = fused::Numeric<T>::from_float(static_cast<float>(u * std::ldexp(1.0, k)));
  }
  return h;
}

// The q byte of x * inv (the arithmetic of quantize.hpp; FP8 through cuda_fp8.h's host conversion).
uint8_t host_q(float x, float inv, Dtype qt) {
  const float v = x * inv;
  if (qt == Dtype::s8) {
    if (std::isnan(v)) return 0;
    return static_cast<uint8_t>(static_cast<int8_t>(std::nearbyint(std::min(127.0f, std::max(-127.0f, v)))));
  }
  return __nv_cvt_float_to_fp8(v, __NV_SATFINITE, qt == Dtype::e4m3 ? __NV_E4M3 : __NV_E5M2);
}

struct Device {
  void* x = nullptr;
  void* q = nullptr;
  float* scale = nullptr;
  float* amax = nullptr;
  void* ws = nullptr;
  size_t x_bytes = 0, q_bytes = 0, scale_elems = 0;
  void* copy_src = nullptr;  // the reference's buffers
  void* copy_dst = nullptr;
  size_t copy_bytes = 0;
  cudaStream_t stream = nullptr;
  Device(size_t xb, size_t qb, size_t se) : x_bytes(xb), q_bytes(qb), scale_elems(se), copy_bytes(xb) {
    TESSERA_BENCH_CUDA(cudaMalloc(&x, xb));
    TESSERA_BENCH_CUDA(cudaMalloc(&q, qb));
    TESSERA_BENCH_CUDA(cudaMalloc(&scale, se * sizeof(float)));
    TESSERA_BENCH_CUDA(cudaMalloc(&amax, se * sizeof(float)));
    TESSERA_BENCH_CUDA(cudaMalloc(&ws, 256));
    TESSERA_BENCH_CUDA(cudaMemset(ws, 0, 256));
    TESSERA_BENCH_CUDA(cudaMalloc(&copy_src, copy_bytes));
    TESSERA_BENCH_CUDA(cudaMalloc(&copy_dst, copy_bytes));
    TESSERA_BENCH_CUDA(cudaMemset(copy_src, 0x3c, copy_bytes));
    TESSERA_BENCH_CUDA(cudaStreamCreate(&stream));
  }
  ~Device() {
    cudaFree(x);
    cudaFree(q);
    cudaFree(scale);
    cudaFree(amax);
    cudaFree(ws);
    cudaFree(copy_src);
    cudaFree(copy_dst);
    cudaStreamDestroy(stream);
  }
};

struct Suite {
  Suite(const BenchOptions& o, Device& d) : opt(o), dev(d) {}
  const BenchOptions& opt;
  Device& dev;
  bench::Report report{"quantize"};
  std::vector<std::vector<std::string>> table;
  std::map<size_t, double> d2d_gbps;  // by bytes copied
  std::vector<std::string> missed;
  static constexpr double kTarget = 0.90;

  int repeats() const { return opt.repeats ? opt.repeats : (opt.quick ? 5 : 30); }
  double time_ms(const std::function<void(cudaStream_t)>& launch) {
    return bench::time_median_ms(launch, dev.stream, 3, repeats(), bench::flush_l2);
  }
  // cudaMemcpyAsync D2D moving `moved` bytes (moved / 2 read, moved / 2 written), GB/s; cached per size.
  double d2d(double moved) {
    const size_t bytes = std::min(dev.copy_bytes, static_cast<size_t>(moved / 2) / 256 * 256);
    auto it = d2d_gbps.find(bytes);
    if (it != d2d_gbps.end()) return it->second;
    const double ms = time_ms([&](cudaStream_t s) {
      TESSERA_BENCH_CUDA(cudaMemcpyAsync(dev.copy_dst, dev.copy_src, bytes, cudaMemcpyDeviceToDevice, s));
    });
    return d2d_gbps[bytes] = 2.0 * double(bytes) / (ms * 1e-3) / 1e9;
  }
  void add(const std::string& variant, const std::string& shape, const std::string& dtype, const std::string& plan,
           double us, double bytes, double ref_bytes, bool target, const std::string& note) {
    const double gbps = bytes / (us * 1e-6) / 1e9, ref = d2d(ref_bytes);
    Record r;
    r.kernel = "quantize";
    r.variant = variant;
    r.size = shape;
    r.dtype = dtype;
    r.figure = gbps;
    r.unit = "GB/s";
    r.reference = "cudaMemcpy";
    r.reference_figure = ref;
    r.ratio = gbps / ref;
    if (target) r.target = ">= " + bench::fmt(kTarget, 2);
    r.note = note + "; reference: cudaMemcpyAsync D2D moving the same bytes; plan " + plan + "; time " +
             bench::fmt(us, 1) + " us" + (target ? "; target " + r.target : "");
    report.add(r);
    const std::string verdict = target ? (r.ratio >= kTarget ? "met" : "MISSED") : "";
    if (target && r.ratio < kTarget) missed.push_back(variant + " " + shape);
    table.push_back({variant, shape, dtype, plan, bench::fmt(us, 1), bench::fmt(gbps, 0), bench::fmt(ref, 0),
                     bench::fmt(100 * r.ratio, 1) + "%", verdict});
  }
};

template <class T>
constexpr Dtype dtype_of() {
  if constexpr (std::is_same_v<T, __half>) return Dtype::f16;
  else if constexpr (std::is_same_v<T, float>) return Dtype::f32;
  else return Dtype::bf16;
}

// Verifies every scale, and q of rows 0, 1, rows/2 and rows-1 (block_128x128: of their block rows' first rows too),
// bit for bit.  Throws on a mismatch.
template <class T>
void verify(const std::vector<T>& hx, int64_t rows, int64_t cols, Dtype qt, QuantScale mode, float given,
            const Device& dev, const std::string& name) {
  const fused::ScaleShape sh = fused::quantize_scale_shape(mode, rows, cols);
  std::vector<float> scales(static_cast<size_t>(sh.elems()));
  TESSERA_BENCH_CUDA(cudaMemcpy(scales.data(), dev.scale, scales.size() * sizeof(float), cudaMemcpyDeviceToHost));
  const int64_t gr = mode == QuantScale::block_128x128 ? 128 : mode == QuantScale::row || mode == QuantScale::block_1x128 ? 1 : rows;
  const int64_t gc = mode == QuantScale::block_1x128 || mode == QuantScale::block_128x128 ? 128 : cols;
  const float qmax = fused::quant_max(qt);
  auto fail = [&](const std::string& what) { throw std::runtime_error("bench quantize: " + name + " wrong: " + what); };
  std::vector<float> inv(scales.size());
  for (int64_t br = 0; br < sh.rows; ++br)
    for (int64_t bc = 0; bc < sh.cols; ++bc) {
      uint32_t m = 0;  // |x| bits, NaN-propagating (no NaN in this data)
      for (int64_t r = br * gr; r < std::min(rows, (br + 1) * gr); ++r)
        for (int64_t c = bc * gc; c < std::min(cols, (bc + 1) * gc); ++c) {
          const float f = std::fabs(fused::Numeric<T>::to_float(hx[r * cols + c]));
          uint32_t b;
          std::memcpy(&b, &f, sizeof b);
          m = std::max(m, b);
        }
      float amax;
      std::memcpy(&amax, &m, sizeof amax);
      fused::ScaleInv si = fused::quant_scale(amax, qmax);
      if (mode == QuantScale::tensor_given) si = {given, 1.0f / given};
      const size_t s = static_cast<size_t>(bc * sh.rows + br);  // (block-column-major: tessera/host/quantize.hpp)
      if (std::memcmp(&scales[s], &si.scale, sizeof(float)) != 0)
        fail("scale " + std::to_string(s) + " is " + std::to_string(scales[s]) + ", expected " + std::to_string(si.scale));
      inv[s] = si.inv;
    }
  std::vector<uint8_t> q(static_cast<size_t>(cols));
  for (int64_t r : {int64_t{0}, int64_t{1}, rows / 2, rows - 1}) {
    TESSERA_BENCH_CUDA(cudaMemcpy(q.data(), static_cast<const uint8_t*>(dev.q) + r * cols, q.size(), cudaMemcpyDeviceToHost));
    for (int64_t c = 0; c < cols; ++c) {
      const uint8_t want = host_q(fused::Numeric<T>::to_float(hx[r * cols + c]), inv[(c / gc) * sh.rows + r / gr], qt);
      if (q[c] != want)
        fail("q(" + std::to_string(r) + ", " + std::to_string(c) + ") is " + std::to_string(q[c]) + ", expected " +
             std::to_string(want));
    }
  }
}

struct Size {
  int64_t rows, cols;
};

template <class T>
void run_size(Suite& s, Size sz, const std::vector<Dtype>& qtypes, const std::vector<QuantScale>& modes,
              const std::function<bool(const std::string&)>& wanted, int& done, int total) {
  const int64_t rows = sz.rows, cols = sz.cols;
  const size_t n = static_cast<size_t>(rows * cols), x_bytes = n * sizeof(T);
  if (x_bytes > s.dev.x_bytes || n > s.dev.q_bytes) throw std::runtime_error("bench quantize: case larger than the buffers");
  const std::string shape = std::to_string(rows) + "x" + std::to_string(cols);
  const std::string xname = dtype_name(dtype_of<T>());
  bool uploaded = false;
  std::vector<T> hx;
  for (Dtype qt : qtypes) {
    for (QuantScale mode : modes) {
      const std::string variant = std::string(dtype_name(qt)) + "_" + fused::quant_scale_name(mode) + (xname == "bf16" ? "" : "_" + xname);
      bench::progress(s.opt, "quantize", done++, total, variant + " " + shape);
      if (!wanted(variant)) continue;
      if (!uploaded) {
        hx = random_values<T>(n, 0x51ab + cols);
        TESSERA_BENCH_CUDA(cudaMemcpy(s.dev.x, hx.data(), x_bytes, cudaMemcpyHostToDevice));
        uploaded = true;
      }
      fused::QuantizeArgs a;
      a.x = s.dev.x;
      a.x_type = dtype_of<T>();
      a.rows = rows;
      a.cols = cols;
      a.q = s.dev.q;
      a.q_type = qt;
      a.mode = mode;
      a.scale = s.dev.scale;
      a.scale_elems = static_cast<int64_t>(s.dev.scale_elems);
      a.workspace = s.dev.ws;
      a.workspace_bytes = 256;
      a.stream = s.dev.stream;
      const fused::ScaleShape sh = fused::quantize_scale_shape(mode, rows, cols);
      float given = 0;
      if (mode == QuantScale::tensor_given) {
        // The scale the tensor mode computes (a realistic delayed scale), and the amax for the next step.
        fused::QuantizeArgs t = a;
        t.mode = QuantScale::tensor;
        fused::quantize(t);
        TESSERA_BENCH_CUDA(cudaMemcpyAsync(&given, s.dev.scale, sizeof(float), cudaMemcpyDeviceToHost, s.dev.stream));
        TESSERA_BENCH_CUDA(cudaStreamSynchronize(s.dev.stream));
        a.amax = s.dev.amax;
      }
      const fused::QuantizePlan plan = fused::plan_quantize(a);
      auto launch = [&](cudaStream_t st) {
        fused::QuantizeArgs b = a;
        b.stream = st;
        fused::quantize(b);
      };

      // Verify (poisoned outputs; tensor_given keeps its input scale).
      TESSERA_BENCH_CUDA(cudaMemsetAsync(s.dev.q, 0xFF, n, s.dev.stream));
      if (mode != QuantScale::tensor_given)
        TESSERA_BENCH_CUDA(cudaMemsetAsync(s.dev.scale, 0xFF, sh.elems() * sizeof(float), s.dev.stream));
      launch(s.dev.stream);
      TESSERA_BENCH_CUDA(cudaStreamSynchronize(s.dev.stream));
      verify(hx, rows, cols, qt, mode, given, s.dev, variant + " " + shape);

      const double us = 1e3 * s.time_ms(launch);
      const double scale_bytes = double(sh.elems()) * sizeof(float) * (a.amax ? 2 : 1);
      const double must = double(x_bytes) + double(n) + scale_bytes;
      const std::string dtype = xname + "->" + dtype_name(qt);
      const bool single = mode != QuantScale::tensor;
      s.add(variant, shape, dtype, plan.str(), us, must, must, single,
            "bytes = x read once + q written once + scales" + std::string(a.amax ? " + amax" : "") + " (must move)" +
                (single ? "" : "; this mode reads x twice (amax pass + quantise pass), see the achieved record"));
      if (!single) {
        const double moved = 2.0 * double(x_bytes) + double(n) + scale_bytes;
        s.add(variant + "_two_pass", shape, dtype, plan.str(), us, moved, moved, false,
              "bytes = x read twice + q written once + scale (what the two passes move, L2 hits counted as moved)");
      }
    }
  }
}

int run_quantize(const BenchOptions& o) {
  std::string only;  // --case SUBSTR
  bool targets_only = false;
  for (size_t i = 0; i < o.args.size(); ++i) {
    if (o.args[i] == "--help" || o.args[i] == "-h") {
      std::printf(
          "usage: tessera bench quantize [--json FILE] [--quick] [--repeats N] [--case SUBSTR] [--targets]\n\n"
          "bf16 -> e4m3 / e5m2 / s8 quantisation with per-tensor (computed or given), per-row, 1x128 and 128x128\n"
          "block scales, against cudaMemcpy D2D moving the same bytes; same process, L2 flushed.\n"
          "  --case SUBSTR   run only the cases whose name (e.g. e4m3_row, s8_block_128x128) contains SUBSTR\n"
          "  --targets       run only the cases with a target (e4m3 single-pass modes)\n"
          "example: tessera bench quantize --case e4m3 --json bench/results/quantize.json\n");
      return 0;
    } else if (o.args[i] == "--case" && i + 1 < o.args.size()) {
      only = o.args[++i];
    } else if (o.args[i] == "--targets") {
      targets_only = true;
    } else {
      std::fprintf(stderr, "bench quantize: unknown argument '%s' (suite arguments: --case SUBSTR, --targets)\n",
                   o.args[i].c_str());
      return 2;
    }
  }
  auto wanted = [&](const std::string& name) { return only.empty() || name.find(only) != std::string::npos; };

  std::vector<Size> sizes = {{8192, 4096}, {4096, 14336}};
  std::vector<Dtype> qtypes = {Dtype::e4m3, Dtype::e5m2, Dtype::s8};
  std::vector<QuantScale> modes = {QuantScale::tensor, QuantScale::tensor_given, QuantScale::row, QuantScale::block_1x128,
                                   QuantScale::block_128x128};
  if (o.quick || targets_only) qtypes = {Dtype::e4m3};
  if (o.quick) sizes.resize(1);
  if (targets_only) modes.erase(modes.begin());  // tensor (two passes) has no target
  const bool f16_case = !o.quick && !targets_only;

  size_t max_n = 0, max_scales = 1;
  for (Size s : sizes) {
    max_n = std::max(max_n, static_cast<size_t>(s.rows * s.cols));
    max_scales = std::max<size_t>(max_scales, static_cast<size_t>(s.rows * ((s.cols + 127) / 128)));
  }
  Device dev(max_n * sizeof(__nv_bfloat16), max_n, max_scales);
  Suite s(o, dev);
  int done = 0;
  const int total = static_cast<int>(sizes.size() * qtypes.size() * modes.size()) + (f16_case ? 1 : 0);
  for (Size sz : sizes) run_size<__nv_bfloat16>(s, sz, qtypes, modes, wanted, done, total);
  if (f16_case) run_size<__half>(s, sizes[0], {Dtype::e4m3}, {QuantScale::row}, wanted, done, total);
  bench::progress(o, "quantize", total, total, "done");

  cudaDeviceProp p{};
  TESSERA_BENCH_CUDA(cudaGetDeviceProperties(&p, 0));
  std::printf("GPU: %s, %d SMs, L2 %d MiB; median of %d runs, L2 flushed before each\n", p.name, p.multiProcessorCount,
              p.l2CacheSize >> 20, s.repeats());
  bench::print_table(stdout, {"case", "shape", "dtype", "plan", "us", "GB/s", "D2D GB/s", "of D2D", "target"}, s.table);
  if (s.missed.empty()) {
    std::printf("targets: all met\n");
  } else {
    std::printf("targets missed:");
    for (auto& m : s.missed) std::printf(" [%s]", m.c_str());
    std::printf("\n");
  }
  if (!bench::finish(o, s.report)) return 1;
  return 0;
}

}  // namespace

TESSERA_BENCH_SUITE("quantize", run_quantize);
