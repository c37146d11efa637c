// The streaming pipeline kernels (synchronous, cp.async with 1..4 stages, cuda::pipeline with 1..4
// stages) against a float64 host reference of y = f^work(x), f(v) = v*a + b, at sizes that leave
// partial tiles and partial 16-byte chunks.  The output and a guard zone after it are poisoned first.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>    // std::fabs, std::isnan
#include <cstdlib>  // std::getenv
#include <cstring>  // std::memcpy
#include <random>   // std::mt19937_64, std::uniform_real_distribution
#include <vector>   // std::vector

#include "common/gpu.hpp"  // TESSERA_REQUIRE_SM, CUDA_OK
#include "tessera/host/copy.hpp"

namespace {

using tessera::PipelineRun;
using tessera::PipelineVariant;

constexpr int64_t kGuardFloats = 64;

double reference(double v, int work) {
  for (int i = 0; i < work; ++i) v = v * static_cast<double>(tessera::kPipelineA) + static_cast<double>(tessera::kPipelineB);
  return v;
}

void check_runs(const std::vector<PipelineRun>& runs) {
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);

  float* x = nullptr;
  float* y = nullptr;
  const int64_t max_n = 1 << 20;
  CUDA_OK(cudaMalloc(&x, (max_n + kGuardFloats) * sizeof(float)));
  CUDA_OK(cudaMalloc(&y, (max_n + kGuardFloats) * sizeof(float)));
  // TESSERA_TEST_QUICK=1 or 2 (under compute-sanitizer): fewer sizes and work amounts.
  const char* q = std::getenv("TESSERA_TEST_QUICK");
  const bool quick = q && (q[0] == '1' || q[0] == '2');
  std::vector<int64_t> sizes = {1, 3, 5, 2047, 2048, 2049, 100003, max_n - 1};
  std::vector<int> works = {0, 3, 37};
  if (quick) {
    sizes = {5, 2049, 20011};
    works = {3};
  }
  int checked = 0;
  for (int64_t n : sizes)
    for (int work : works)
      for (const PipelineRun& run : runs) {
        std::vector<float> hx(static_cast<size_t>(n));
        for (auto& v : hx) v = dist(rng);
        CUDA_OK(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemset(y, 0xFF, (n + kGuardFloats) * sizeof(float)));  // NaN poison
        tessera::stream_transform(x, y, n, work, run);
        CUDA_OK(cudaGetLastError());
        CUDA_OK(cudaDeviceSynchronize());
        std::vector<float> hy(static_cast<size_t>(n + kGuardFloats));
        CUDA_OK(cudaMemcpy(hy.data(), y, hy.size() * sizeof(float), cudaMemcpyDeviceToHost));
        // Float FMA chains: relative error grows by at most one rounding (2^-24) per step.
        const double tol = (work + 2) * 6e-8 * 4.0;
        for (int64_t i = 0; i < n; ++i) {
          const double want = reference(hx[i], work);
          const double err = std::fabs(hy[i] - want) / std::fmax(1.0, std::fabs(want));
          if (std::isnan(hy[i]) || err > tol) {
            FAIL() << tessera::to_string(run.variant) << " stages=" << run.stages << " ctas_per_sm=" << run.ctas_per_sm
                   << " n=" << n << " work=" << work << " seed=" << seed << ": y[" << i << "] = " << hy[i]
                   << ", want " << want << " (x = " << hx[i] << ")";
          }
        }
        for (int64_t i = n; i < n + kGuardFloats; ++i) {
          uint32_t bits;
          std::memcpy(&bits, &hy[i], 4);
          ASSERT_EQ(bits, 0xFFFFFFFFu) << tessera::to_string(run.variant) << " stages=" << run.stages << " n=" << n
                                       << ": wrote past the end at y[" << i << "]";
        }
        ++checked;
      }
  CUDA_OK(cudaFree(x));
  CUDA_OK(cudaFree(y));
  std::printf("[ info ] %d pipeline runs checked against float64\n", checked);
}

// Hand-written kernels: synchronous loads and cp.async with 1..4 stages.
TEST(Pipeline, SyncAndCpAsyncMatchFloat64Reference) {
  TESSERA_REQUIRE_SM(80);
  std::vector<PipelineRun> runs = {{PipelineVariant::kSync, 1, 0}, {PipelineVariant::kSync, 1, 1}};
  for (int s = 1; s <= 4; ++s) runs.push_back({PipelineVariant::kCpAsync, s, 0});
  runs.push_back({PipelineVariant::kCpAsync, 3, 1});  // one CTA per SM: several tiles per CTA
  check_runs(runs);
}

// The libcu++ version (cuda::pipeline / cuda::memcpy_async), a separate test so that a sanitizer run
// that stops at its first report still covers the kernels above.
TEST(Pipeline, CudaPipelineMatchesFloat64Reference) {
  TESSERA_REQUIRE_SM(80);
  std::vector<PipelineRun> runs;
  for (int s = 1; s <= 4; ++s) runs.push_back({PipelineVariant::kCudaPipeline, s, 0});
  runs.push_back({PipelineVariant::kCudaPipeline, 2, 1});
  check_runs(runs);
}

}  // namespace
