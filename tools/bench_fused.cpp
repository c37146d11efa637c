// tools/bench_fused.cpp -- `tessera bench fused`: fused memory-bound kernels against cudaMemcpy D2D.
//
// Kernels (include/tessera/host/fused.hpp):
//   l2_norm / rms_norm   fp32, bf16, fp16; rows of 256, 4096, 16384 and 65536 elements, 256 MiB of fp32
//                        input per case (bf16/fp16: the same element count); forced two_pass as a contrast
//   elementwise chains   x (a copy), sqrt(sin(x)), gelu(x*1.702-0.25): fused (one kernel) and unfused (one
//                        kernel per operation, intermediates stored in the element type), 64 Mi elements
// Figure: GB/s counting the bytes that must move -- the input read once and the output written once
// (plus the RMS weight once) -- over the median time.  Reference: cudaMemcpyAsync device-to-device of
// the same input buffer into the same output buffer, timed the same way in the same run (GB/s = bytes
// read + written); ratio = figure / reference.  Fused vs unfused: ratio = unfused time / fused time.
// Every timed run is preceded by an untimed L2 flush (bench::flush_l2); 3 warm-ups; median of
// --repeats runs (default 30, --quick: 5 and fewer cases).  Outputs are verified against a float64
// host reference before timing (sampled rows / elements).
//
// Targets (H100, docs/PERF.md): fp32 l2_norm with rows of 4096 and 16384 and the fused fp32 chains at
// >= 95% of the D2D figure, and the fused chains faster than the unfused sequences.
#include <cuda_bf16.h>     // __nv_bfloat16
#include <cuda_fp16.h>     // __half
#include <cuda_runtime.h>  // cudaMalloc, cudaMemcpyAsync

#include <cmath>       // std::ldexp
#include <cstdint>     // int64_t, uint64_t
#include <cstdio>      // std::printf
#include <functional>  // std::function
#include <map>         // std::map
#include <stdexcept>   // std::runtime_error
#include <string>      // std::string
#include <vector>      // std::vector

#include "bench_common.hpp"                    // TESSERA_BENCH_SUITE, time_median_ms, flush_l2, Report
#include "tessera/host/fused.hpp"              // l2_norm, rms_norm, elementwise, chains
#include "tessera/kernel/fused/reference.hpp"  // float64 references

namespace {

using namespace tessera;
using bench::BenchOptions;
using bench::Record;

// Uniform values in [-1, 1) * 2^(i % 5 - 2): never zero in practice, of varied magnitude.
template <class T>
std::vector<T> random_values(size_t n, uint64_t seed, double lo = -1.0, double hi = 1.0) {
  std::vector<T> h(n);
  uint64_t s = seed;
  for (size_t i = 0; i < n; ++i) {
    s += 0x9e3779b97f4a7c15ull;  // splitmix64
    uint64_t z = s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    const double u = lo + (hi - lo) * (static_cast<double>(z >> 11) * 0x1.0p-53);
    h[i] = fused::Numeric<T>::from_float(static_cast<float>(lo < 0 ? u * std::ldexp(1.0, int(i % 5) - 2) : u));
  }
  return h;
}

struct Device {
  void* x = nullptr;
  void* y = nullptr;
  void* w = nullptr;
  size_t bytes = 0;
  cudaStream_t stream = nullptr;
  Device(size_t b, size_t w_bytes) : bytes(b) {
    TESSERA_BENCH_CUDA(cudaMalloc(&x, b));
    TESSERA_BENCH_CUDA(cudaMalloc(&y, b));
    TESSERA_BENCH_CUDA(cudaMalloc(&w, w_bytes));
    TESSERA_BENCH_CUDA(cudaStreamCreate(&stream));
  }
  ~Device() {
    cudaFree(x);
    cudaFree(y);
    cudaFree(w);
    cudaStreamDestroy(stream);
  }
};

struct Suite {
  Suite(const BenchOptions& o, Device& d) : opt(o), dev(d) {}
  const BenchOptions& opt;
  Device& dev;
  bench::Report report{"fused"};
  std::vector<std::vector<std::string>> table;
  std::map<size_t, double> d2d_gbps;  // by bytes
  std::vector<std::string> missed;

  int repeats() const { return opt.repeats ? opt.repeats : (opt.quick ? 5 : 30); }
  double time_ms(const std::function<void(cudaStream_t)>& launch) {
    return bench::time_median_ms(launch, dev.stream, 3, repeats(), bench::flush_l2);
  }
  // cudaMemcpy D2D of `bytes` from x to y, GB/s counting bytes read + written (cached per size).
  double d2d(size_t bytes) {
    auto it = d2d_gbps.find(bytes);
    if (it != d2d_gbps.end()) return it->second;
    const double ms = time_ms([&](cudaStream_t s) {
      TESSERA_BENCH_CUDA(cudaMemcpyAsync(dev.y, dev.x, bytes, cudaMemcpyDeviceToDevice, s));
    });
    return d2d_gbps[bytes] = 2.0 * double(bytes) / (ms * 1e-3) / 1e9;
  }
  // The bandwidth target of the cases marked with one: this fraction of the D2D figure.
  static constexpr double kTarget = 0.95;
  void add(const std::string& kernel, const std::string& variant, const std::string& size, double us,
           double moved_bytes, size_t ref_bytes, bool target) {
    const double gbps = moved_bytes / (us * 1e-6) / 1e9, ref = d2d(ref_bytes);
    Record r;
    r.kernel = kernel;
    r.variant = variant;
    r.size = size;
    r.figure = gbps;
    r.unit = "GB/s";
    r.reference = "cudaMemcpy D2D";
    r.reference_figure = ref;
    r.ratio = gbps / ref;
    if (target) r.target = ">= " + bench::fmt(kTarget, 2);
    r.note = "bytes = input read once + output written once; time " + bench::fmt(us, 1) + " us" +
             (target ? "; target " + r.target : "");
    report.add(r);
    std::string verdict = target ? (r.ratio >= kTarget ? "met" : "MISSED") : "";
    if (target && r.ratio < kTarget) missed.push_back(kernel + " " + size);
    table.push_back({kernel, variant, size, bench::fmt(us, 1), bench::fmt(gbps, 0), bench::fmt(ref, 0),
                     bench::fmt(100 * r.ratio, 1) + "%", verdict});
  }
};

// ---- row norms ----
struct NormCase {
  const char* type;  // "fp32" / "bf16" / "fp16"
  bool rms;
  int64_t rows, cols;
  fused::NormAlgo algo;
  bool target;
};

template <class T>
void run_norm(Suite& s, const NormCase& c) {
  const size_t n = static_cast<size_t>(c.rows * c.cols), bytes = n * sizeof(T);
  if (bytes > s.dev.bytes) throw std::runtime_error("bench fused: case larger than the buffers");
  const std::vector<T> hx = random_values<T>(n, 0x1234 + c.cols);
  const std::vector<T> hw = random_values<T>(static_cast<size_t>(c.cols), 0x77, 0.5, 1.5);
  TESSERA_BENCH_CUDA(cudaMemcpy(s.dev.x, hx.data(), bytes, cudaMemcpyHostToDevice));
  TESSERA_BENCH_CUDA(cudaMemcpy(s.dev.w, hw.data(), c.cols * sizeof(T), cudaMemcpyHostToDevice));
  const T* x = static_cast<const T*>(s.dev.x);
  const T* w = static_cast<const T*>(s.dev.w);
  T* y = static_cast<T*>(s.dev.y);
  const float eps = 1e-6f;
  fused::NormOptions opt;
  opt.algo = c.algo;
  opt.stream = s.dev.stream;
  const fused::NormPlan plan = fused::plan_row_norm(x, c.rows, c.cols, opt);
  auto launch = [&](cudaStream_t) {
    if (c.rms) fused::rms_norm(x, w, y, c.rows, c.cols, eps, opt);
    else fused::l2_norm(x, y, c.rows, c.cols, eps, opt);
  };

  // Verify (poisoned output, sampled rows against float64).
  TESSERA_BENCH_CUDA(cudaMemsetAsync(y, 0xFF, bytes, s.dev.stream));
  launch(s.dev.stream);
  TESSERA_BENCH_CUDA(cudaStreamSynchronize(s.dev.stream));
  std::vector<T> row(static_cast<size_t>(c.cols));
  for (int64_t r : {int64_t{0}, int64_t{1}, c.rows / 2, c.rows - 1}) {
    TESSERA_BENCH_CUDA(cudaMemcpy(row.data(), y + r * c.cols, c.cols * sizeof(T), cudaMemcpyDeviceToHost));
    const auto ref = fused::reference::row_norm(hx.data() + r * c.cols, c.rms ? hw.data() : nullptr, c.cols, eps);
    const double err = fused::reference::max_rel_error(row.data(), ref, fused::reference::magnitude_floor<T>());
    if (!(err <= fused::reference::tolerance<T>()))
      throw std::runtime_error(std::string("bench fused: ") + (c.rms ? "rms_norm " : "l2_norm ") + c.type + " row " +
                               std::to_string(r) + " of " + std::to_string(c.rows) + "x" + std::to_string(c.cols) +
                               " wrong: max relative error " + std::to_string(err));
  }

  const double us = 1e3 * s.time_ms(launch);
  const double moved = 2.0 * double(bytes) + (c.rms ? double(c.cols * sizeof(T)) : 0.0);
  s.add(std::string(c.rms ? "rms_norm " : "l2_norm ") + c.type, plan.str(),
        "rows=" + std::to_string(c.rows) + ",cols=" + std::to_string(c.cols), us, moved, bytes, c.target);
}

// ---- elementwise chains ----
template <class T, class F>
void run_chain(Suite& s, const F& f, const char* type, int64_t n, double lo, double hi, bool target,
               const std::function<bool(const std::string&)>& wanted) {
  if (!wanted("chain " + ew::to_string(f) + " " + type)) return;
  const size_t bytes = static_cast<size_t>(n) * sizeof(T);
  const std::vector<T> hx = random_values<T>(static_cast<size_t>(n), 0x4321, lo, hi);
  TESSERA_BENCH_CUDA(cudaMemcpy(s.dev.x, hx.data(), bytes, cudaMemcpyHostToDevice));
  const T* x = static_cast<const T*>(s.dev.x);
  T* y = static_cast<T*>(s.dev.y);
  const std::string name = "chain " + ew::to_string(f) + " " + type;
  const std::string size = "n=" + std::to_string(n);
  double us_fused = 0, us_unfused = 0;
  constexpr int kStages = std::tuple_size_v<decltype(ew::stages(f))>;
  for (bool unfused : {false, true}) {
    if (unfused && kStages < 2) continue;  // x alone or a single operation: nothing to split
    auto launch = [&](cudaStream_t st) {
      if (unfused) fused::elementwise_unfused(f, x, y, n, st);
      else fused::elementwise(f, x, y, n, st);
    };
    TESSERA_BENCH_CUDA(cudaMemsetAsync(y, 0xFF, bytes, s.dev.stream));
    launch(s.dev.stream);
    TESSERA_BENCH_CUDA(cudaStreamSynchronize(s.dev.stream));
    // Verify 4096 samples spread over the array plus the last element.
    std::vector<T> hy(static_cast<size_t>(n));
    TESSERA_BENCH_CUDA(cudaMemcpy(hy.data(), y, bytes, cudaMemcpyDeviceToHost));
    std::vector<double> ref;
    std::vector<T> got;
    for (int64_t i = 0; i < n; i += std::max<int64_t>(1, n / 4096)) {
      double v = fused::reference::to_double(hx[i]);
      if (unfused) {  // every stage rounds to T
        std::apply([&](const auto&... st) { ((v = fused::reference::to_double(fused::Numeric<T>::from_float(float(st(v))))), ...); },
                   ew::stages(f));
      } else {
        v = f(v);
      }
      ref.push_back(v);
      got.push_back(hy[i]);
    }
    const double tol = fused::reference::tolerance<T>() * (unfused ? 4 : 1);
    const double err = fused::reference::max_rel_error(got.data(), ref, 1.0);
    if (!(err <= tol))
      throw std::runtime_error("bench fused: " + name + (unfused ? " unfused" : " fused") + " wrong: error " +
                               std::to_string(err) + " > " + std::to_string(tol));
    const double us = 1e3 * s.time_ms(launch);
    (unfused ? us_unfused : us_fused) = us;
    s.add(name, unfused ? "unfused (" + std::to_string(kStages) + " kernels)" : "fused (1 kernel)", size, us,
          2.0 * double(bytes), bytes, target && !unfused);
  }
  if (us_unfused > 0) {
    Record r;
    r.kernel = name;
    r.variant = "fused vs unfused";
    r.size = size;
    r.figure = us_fused;
    r.unit = "us";
    r.reference = "unfused sequence (" + std::to_string(kStages) + " kernels)";
    r.reference_figure = us_unfused;
    r.ratio = us_unfused / us_fused;
    r.note = "ratio = unfused time / fused time (speed-up); target > 1";
    r.target = "> 1";
    s.report.add(r);
    s.table.push_back({name, "speed-up vs unfused", size, "", "", "", bench::fmt(r.ratio, 2) + "x",
                       r.ratio > 1 ? "met" : "MISSED"});
    if (r.ratio <= 1) s.missed.push_back(name + " fused vs unfused");
  }
}

int run_fused(const BenchOptions& o) {
  const bool quick = o.quick;
  std::string only;  // --case SUBSTR: run only the cases whose kernel name contains SUBSTR
  bool targets_only = false;  // --targets: only the cases with a target (the main job's scorecard)
  for (size_t i = 0; i < o.args.size(); ++i) {
    if (o.args[i] == "--help" || o.args[i] == "-h") {
      std::printf(
          "usage: tessera bench fused [--json FILE] [--quick] [--repeats N] [--case SUBSTR] [--targets]\n\n"
          "Row L2 norm, RMSNorm and fused elementwise chains against cudaMemcpy D2D (the bandwidth ceiling)\n"
          "and against the same chain run one kernel per operation; same process, L2 flushed.\n"
          "  --case SUBSTR   run only the cases whose kernel name contains SUBSTR\n"
          "  --targets       run only the cases with a target: fp32 L2 norm rows of 4096 and 16384, fp32 chains\n"
          "example: tessera bench fused --case l2_norm --json bench/results/fused.json\n");
      return 0;
    } else if (o.args[i] == "--case" && i + 1 < o.args.size()) {
      only = o.args[++i];
    } else if (o.args[i] == "--targets") {
      targets_only = true;
    } else {
      std::fprintf(stderr, "bench fused: unknown argument '%s' (suite arguments: --case SUBSTR, --targets)\n", o.args[i].c_str());
      return 2;
    }
  }
  auto wanted = [&](const std::string& name) { return only.empty() || name.find(only) != std::string::npos; };
  const int64_t kMi = int64_t{1} << 20;
  Device dev(256 * kMi, 65536 * sizeof(float));
  Suite s(o, dev);
  const fused::NormAlgo automatic = fused::NormAlgo::automatic, two_pass = fused::NormAlgo::two_pass;

  std::vector<NormCase> norms = {
      {"fp32", false, 16384, 4096, automatic, true},  {"fp32", false, 4096, 16384, automatic, true},
      {"fp32", true, 16384, 4096, automatic, false},  {"fp32", true, 4096, 16384, automatic, false},
      {"fp32", false, 262144, 256, automatic, false}, {"fp32", false, 1024, 65536, automatic, false},
      {"fp32", false, 4096, 16384, two_pass, false},  {"bf16", false, 16384, 4096, automatic, false},
      {"bf16", false, 4096, 16384, automatic, false}, {"bf16", true, 16384, 4096, automatic, false},
      {"fp16", false, 16384, 4096, automatic, false},
  };
  if (quick) norms.resize(3);
  if (targets_only) std::erase_if(norms, [](const NormCase& c) { return !c.target; });
  // Chains: x and sqrt(sin(x)) always; GELU (fp32) unless --quick; the bf16 ones (no target) in full runs.
  const bool gelu32 = !quick, chains16 = !quick && !targets_only;
  int done = 0;
  const int total = static_cast<int>(norms.size()) + 2 + (gelu32 ? 1 : 0) + (chains16 ? 2 : 0);
  for (const NormCase& c : norms) {
    const std::string name = std::string(c.rms ? "rms_norm " : "l2_norm ") + c.type;
    bench::progress(o, "fused", done++, total, name);
    if (!wanted(name)) continue;
    if (std::string(c.type) == "fp32") run_norm<float>(s, c);
    else if (std::string(c.type) == "bf16") run_norm<__nv_bfloat16>(s, c);
    else run_norm<__half>(s, c);
  }
  const int64_t n32 = 64 * kMi;  // 256 MiB of fp32
  bench::progress(o, "fused", done++, total, "chain x");
  run_chain<float>(s, fused::chains::identity(), "fp32", n32, -1, 1, true, wanted);
  bench::progress(o, "fused", done++, total, "chain sqrt(sin(x))");
  run_chain<float>(s, fused::chains::sqrt_sin(), "fp32", n32, 0.05, 3.0, true, wanted);
  if (gelu32) {
    bench::progress(o, "fused", done++, total, "chain gelu");
    run_chain<float>(s, fused::chains::gelu_affine(1.702f, -0.25f), "fp32", n32, -3, 3, true, wanted);
  }
  if (chains16) {
    bench::progress(o, "fused", done++, total, "chain sqrt(sin(x)) bf16");
    run_chain<__nv_bfloat16>(s, fused::chains::sqrt_sin(), "bf16", n32, 0.05, 3.0, false, wanted);
    bench::progress(o, "fused", done++, total, "chain gelu bf16");
    run_chain<__nv_bfloat16>(s, fused::chains::gelu_affine(1.702f, -0.25f), "bf16", n32, -3, 3, false, wanted);
  }
  bench::progress(o, "fused", total, total, "done");

  cudaDeviceProp p{};
  TESSERA_BENCH_CUDA(cudaGetDeviceProperties(&p, 0));
  std::printf("GPU: %s, %d SMs, L2 %d MiB; median of %d runs, L2 flushed before each\n", p.name,
              p.multiProcessorCount, p.l2CacheSize >> 20, s.repeats());
  bench::print_table(stdout, {"kernel", "variant", "size", "us", "GB/s", "D2D GB/s", "of D2D", "target"}, s.table);
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

TESSERA_BENCH_SUITE("fused", run_fused);
