// src/pipeline.cu -- host API and instantiations of the streaming pipeline kernels.
#include <cuda_runtime.h>

#include <stdexcept>  // std::invalid_argument
#include <string>     // std::string

#include "tessera/host/copy.hpp"
#include "tessera/kernel/copy/launch.hpp"    // persistent_grid, check_launch
#include "tessera/kernel/copy/pipeline.hpp"  // pipeline_*_kernel

namespace tessera {
namespace {

[[noreturn]] void bad(const std::string& msg) { throw std::invalid_argument("tessera::stream_transform: " + msg); }

template <class K>
void launch(K* k, const kernel::PipelineArgs& a, int ctas_per_sm, cudaStream_t s, const char* name) {
  const int64_t grid =
      kernel::persistent_grid(reinterpret_cast<const void*>(k), kernel::PipelineConfig::kThreads, 0, a.num_tiles, ctas_per_sm);
  k<<<static_cast<unsigned>(grid), kernel::PipelineConfig::kThreads, 0, s>>>(a);
  kernel::check_launch(name);
}

}  // namespace

const char* to_string(PipelineVariant v) {
  switch (v) {
    case PipelineVariant::kSync: return "sync";
    case PipelineVariant::kCpAsync: return "cp_async";
    case PipelineVariant::kCudaPipeline: return "cuda_pipeline";
  }
  return "?";
}

void stream_transform(const float* x, float* y, int64_t n, int work, const PipelineRun& run, cudaStream_t stream) {
  if (n < 0) bad("n must be >= 0 (got " + std::to_string(n) + ")");
  if (work < 0) bad("work must be >= 0 (got " + std::to_string(work) + ")");
  if (run.variant != PipelineVariant::kSync && (run.stages < 1 || run.stages > 4))
    bad("stages must be 1..4 (got " + std::to_string(run.stages) + ")");
  if (run.ctas_per_sm < 0 || run.ctas_per_sm > 64)
    bad("ctas_per_sm must be 0 (as many as fit) or 1..64 (got " + std::to_string(run.ctas_per_sm) + ")");
  if (n == 0) return;
  if (!x) bad("x is null");
  if (!y) bad("y is null");
  if (reinterpret_cast<uintptr_t>(x) % 16) bad("x must be 16-byte aligned");
  if (reinterpret_cast<uintptr_t>(y) % 16) bad("y must be 16-byte aligned");
  const auto x0 = reinterpret_cast<uintptr_t>(x), y0 = reinterpret_cast<uintptr_t>(y);
  const uintptr_t bytes = static_cast<uintptr_t>(n) * sizeof(float);
  if (x0 < y0 + bytes && y0 < x0 + bytes) bad("x and y overlap");
  if (kernel::current_device_facts().cc < 80 && run.variant != PipelineVariant::kSync)
    bad(std::string(to_string(run.variant)) + " needs sm_80 or newer (cp.async)");

  kernel::PipelineArgs a{x, y, n, work, kPipelineA, kPipelineB, 0};
  a.num_tiles = (n + kernel::PipelineConfig::kTileFloats - 1) / kernel::PipelineConfig::kTileFloats;
  switch (run.variant) {
    case PipelineVariant::kSync:
      return launch(&kernel::pipeline_sync_kernel, a, run.ctas_per_sm, stream, "pipeline_sync_kernel");
    case PipelineVariant::kCpAsync:
      switch (run.stages) {
        case 1: return launch(&kernel::pipeline_cp_async_kernel<1>, a, run.ctas_per_sm, stream, "pipeline_cp_async_kernel<1>");
        case 2: return launch(&kernel::pipeline_cp_async_kernel<2>, a, run.ctas_per_sm, stream, "pipeline_cp_async_kernel<2>");
        case 3: return launch(&kernel::pipeline_cp_async_kernel<3>, a, run.ctas_per_sm, stream, "pipeline_cp_async_kernel<3>");
        default: return launch(&kernel::pipeline_cp_async_kernel<4>, a, run.ctas_per_sm, stream, "pipeline_cp_async_kernel<4>");
      }
    case PipelineVariant::kCudaPipeline:
      switch (run.stages) {
        case 1: return launch(&kernel::pipeline_cuda_kernel<1>, a, run.ctas_per_sm, stream, "pipeline_cuda_kernel<1>");
        case 2: return launch(&kernel::pipeline_cuda_kernel<2>, a, run.ctas_per_sm, stream, "pipeline_cuda_kernel<2>");
        case 3: return launch(&kernel::pipeline_cuda_kernel<3>, a, run.ctas_per_sm, stream, "pipeline_cuda_kernel<3>");
        default: return launch(&kernel::pipeline_cuda_kernel<4>, a, run.ctas_per_sm, stream, "pipeline_cuda_kernel<4>");
      }
  }
}

}  // namespace tessera
