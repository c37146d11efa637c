// tools/bench_pipeline.cpp -- `tessera bench pipeline`: the streaming kernel y = f^work(x) with
// synchronous loads vs an N-stage cp.async pipeline vs cuda::pipeline, for several amounts of arithmetic
// per element, at a fixed occupancy.  Reports time per element and the speed-up over the synchronous
// kernel (same occupancy, same work) measured in the same process.
#include <cuda_runtime.h>

#include <algorithm>  // std::max
#include <cmath>      // std::fabs
#include <cstdio>     // std::printf
#include <random>     // std::mt19937_64
#include <stdexcept>  // std::invalid_argument
#include <string>     // std::string
#include <vector>     // std::vector

#include "bench_common.hpp"       // TESSERA_BENCH_SUITE, time_median_ms, Report
#include "tessera/host/copy.hpp"  // stream_transform

namespace {

using namespace tessera;
using bench::fmt;

double reference(double v, int work) {
  for (int i = 0; i < work; ++i) v = v * static_cast<double>(kPipelineA) + static_cast<double>(kPipelineB);
  return v;
}

// Checks a sample of y against the float64 reference; returns the number of bad samples.
int64_t check_sample(const std::vector<float>& hx, const float* y, int64_t n, int work) {
  std::vector<float> hy(static_cast<size_t>(n));
  cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
  int64_t bad = 0;
  const double tol = (work + 2) * 6e-8 * 4.0;
  auto check = [&](int64_t i) {
    const double want = reference(hx[i], work);
    if (!(std::fabs(hy[i] - want) <= tol * std::max(1.0, std::fabs(want)))) ++bad;
  };
  // Every element of the first and last 8192, and every 997th in between (about 67k of 64M).
  for (int64_t i = 0; i < n; i += (i < 8192 || i >= n - 8192) ? 1 : 997) check(i);
  return bad;
}

std::vector<int> parse_list(const std::string& s) {
  std::vector<int> out;
  size_t a = 0;
  while (a < s.size()) {
    size_t b = s.find(',', a);
    if (b == std::string::npos) b = s.size();
    out.push_back(std::stoi(s.substr(a, b - a)));
    a = b + 1;
  }
  return out;
}

}  // namespace

static int run_pipeline_bench(const bench::BenchOptions& o) {
  int64_t n = int64_t{64} << 20;  // 64 Mi floats: 256 MiB in, 256 MiB out
  std::vector<int> works = o.quick ? std::vector<int>{0, 32} : std::vector<int>{0, 4, 16, 64, 256, 1024};
  std::vector<int> occupancies = {1, 0};
  for (size_t i = 0; i < o.args.size(); ++i) {
    const std::string& a = o.args[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= o.args.size()) throw std::invalid_argument("bench pipeline: " + a + " needs a value");
      return o.args[++i];
    };
    if (a == "--help" || a == "-h") {
      std::printf(
          "usage: tessera bench pipeline [--json FILE] [--quick] [--repeats N] [--n FLOATS] [--work LIST] [--ctas LIST]\n\n"
          "y[i] = f^work(x[i]) (one FMA per step) streamed through shared memory in 8 KB tiles by a persistent\n"
          "grid: synchronous loads vs cp.async with 1..4 stages vs cuda::pipeline with 1..4 stages.\n"
          "  --work 0,16,256   FMAs per element (default 0,4,16,64,256,1024)\n"
          "  --ctas 1,0        CTAs per SM of the persistent grid (0 = as many as fit; default 1,0)\n"
          "example: tessera bench pipeline --json bench/results/pipeline.json\n");
      return 0;
    } else if (a == "--n") {
      n = std::stoll(next());
    } else if (a == "--work") {
      works = parse_list(next());
    } else if (a == "--ctas") {
      occupancies = parse_list(next());
    } else {
      throw std::invalid_argument("bench pipeline: unknown argument '" + a + "' (see --help)");
    }
  }
  if (n < 1) throw std::invalid_argument("bench pipeline: --n must be >= 1");
  cudaStream_t stream = nullptr;
  TESSERA_BENCH_CUDA(cudaStreamCreate(&stream));
  float *x = nullptr, *y = nullptr;
  TESSERA_BENCH_CUDA(cudaMalloc(&x, n * sizeof(float)));
  TESSERA_BENCH_CUDA(cudaMalloc(&y, n * sizeof(float)));
  std::vector<float> hx(static_cast<size_t>(n));
  std::mt19937_64 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  for (auto& v : hx) v = dist(rng);
  TESSERA_BENCH_CUDA(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  const double memcpy_gbps = bench::memcpy_d2d_gbps(bytes, stream);
  const int repeats = o.repeats ? o.repeats : (o.quick ? 10 : 20);

  std::vector<PipelineRun> runs;
  for (int ctas : occupancies) {
    runs.push_back({PipelineVariant::kSync, 1, ctas});
    for (int s = 1; s <= 4; ++s) runs.push_back({PipelineVariant::kCpAsync, s, ctas});
    for (int s = 1; s <= 4; ++s) runs.push_back({PipelineVariant::kCudaPipeline, s, ctas});
  }
  bench::Report report("pipeline");
  std::vector<std::vector<std::string>> table;
  const int total = static_cast<int>(works.size() * runs.size());
  int done = 0;
  std::vector<int> losses(occupancies.size(), 0);  // memory-bound cases where a pipelined kernel lost
  for (int work : works) {
    double sync_ms = 0;
    for (const PipelineRun& r : runs) {
      const std::string label = std::string(to_string(r.variant)) + (r.variant == PipelineVariant::kSync ? "" : " " + std::to_string(r.stages) + "st") +
                                (r.ctas_per_sm ? ", " + std::to_string(r.ctas_per_sm) + " CTA/SM" : ", max CTA/SM");
      bench::progress(o, "pipeline", ++done, total, "work=" + std::to_string(work) + " " + label);
      TESSERA_BENCH_CUDA(cudaMemsetAsync(y, 0xFF, bytes, stream));
      stream_transform(x, y, n, work, r, stream);
      TESSERA_BENCH_CUDA(cudaStreamSynchronize(stream));
      if (const int64_t bad = check_sample(hx, y, n, work)) {
        std::fprintf(stderr, "bench pipeline: %s work=%d: %lld sampled outputs wrong\n", label.c_str(), work,
                     static_cast<long long>(bad));
        return 1;
      }
      const double ms = bench::time_median_ms([&](cudaStream_t s) { stream_transform(x, y, n, work, r, s); }, stream, 2, repeats);
      if (r.variant == PipelineVariant::kSync) sync_ms = ms;
      const double gbps = 2.0 * bytes / (ms * 1e-3) / 1e9;
      const double ns_per_elem = ms * 1e6 / static_cast<double>(n);
      const double speedup = sync_ms / ms;
      table.push_back({std::to_string(work), label, fmt(ns_per_elem, 4), fmt(gbps, 1), fmt(100 * gbps / memcpy_gbps, 1),
                       fmt(speedup, 2)});
      // Memory-bound (a few FMAs per element): the pipelined kernels with >= 2 stages must beat sync.
      if (work <= 4 && r.variant != PipelineVariant::kSync && r.stages >= 2 && speedup <= 1.0)
        for (size_t k = 0; k < occupancies.size(); ++k) losses[k] += occupancies[k] == r.ctas_per_sm;
      bench::Record rec;
      rec.kernel = "stream_transform";
      rec.variant = label;
      rec.size = "n=" + std::to_string(n) + " floats, work=" + std::to_string(work) + " FMA/elem";
      rec.figure = ns_per_elem;
      rec.unit = "ns/elem";
      rec.reference = "sync (same kernel, synchronous loads, same occupancy)";
      rec.reference_figure = sync_ms * 1e6 / static_cast<double>(n);
      rec.ratio = speedup;
      rec.note = "ratio = speed-up = sync time / time; " + fmt(gbps, 1) + " GB/s (read+write) vs cudaMemcpy D2D " +
                 fmt(memcpy_gbps, 1) + " GB/s; median of " + std::to_string(repeats);
      report.add(rec);
    }
  }
  std::printf("\ncudaMemcpy D2D at %zu MiB: %.1f GB/s (read + write)\n\n", bytes >> 20, memcpy_gbps);
  bench::print_table(stdout, {"work", "variant", "ns/elem", "GB/s", "% memcpy", "speed-up vs sync"}, table);
  for (size_t k = 0; k < occupancies.size(); ++k)
    std::printf("%s: pipelined (>= 2 stages) slower than or equal to sync in %d memory-bound cases (work <= 4)\n",
                occupancies[k] ? (std::to_string(occupancies[k]) + " CTA/SM").c_str() : "max CTA/SM", losses[k]);
  cudaFree(x);
  cudaFree(y);
  cudaStreamDestroy(stream);
  if (!bench::finish(o, report)) return 1;
  return 0;
}

TESSERA_BENCH_SUITE("pipeline", run_pipeline_bench);
