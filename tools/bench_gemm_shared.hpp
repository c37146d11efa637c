// tools/bench_gemm_shared.hpp -- what `tessera bench gemm` (bench_gemm.cpp) and its --plans mode
// (bench_gemm_plans.cpp) share: status checks, the shape record, the 16-bit type, the random fill, the comparison
// against cuBLAS, and the --plans entry point.
#pragma once

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>   // std::max, std::min
#include <cmath>       // std::isfinite, std::fabs
#include <cstdint>     // int64_t, uint16_t
#include <cstring>     // std::memcpy
#include <functional>  // std::function
#include <stdexcept>   // std::runtime_error
#include <string>      // std::string
#include <vector>      // std::vector

#include "bench_common.hpp"                   // BenchOptions, Report, TESSERA_BENCH_CUDA
#include "tessera/host/gemm.hpp"              // GemmStatus, Dtype
#include "tessera/kernel/gemm/registry.hpp"  // GemmKernelEntry
#include "tessera/kernel/numeric.hpp"        // Numeric: the 16-bit types' conversions

namespace tessera::bench::gemm_bench {

inline void check_cublas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + " failed: cuBLAS status " + std::to_string(static_cast<int>(s)));
}
inline void check_gemm(const GemmStatus& s) {
  if (!s.ok()) throw std::runtime_error(s.message);
}

struct Shape {
  const char* group;
  int64_t m, n, k;
};

// The registry entries --tile accepts: those that run this benchmark's GEMMs (`dt` on tensor cores).
inline bool bench_tile(const gemm_core::GemmKernelEntry& e, Dtype dt) { return e.type(GemmMath::tensor_core, dt) != nullptr; }

// The benchmark's 16-bit type (--dtype): its cuBLAS name and conversions of its bit patterns (tessera::Numeric's).
struct Elem16 {
  Dtype dtype = Dtype::bf16;
  cudaDataType_t cuda() const { return dtype == Dtype::f16 ? CUDA_R_16F : CUDA_R_16BF; }
  template <class T>
  static uint16_t bits_of(float x) { return static_cast<uint16_t>(Numeric<T>::bits(Numeric<T>::from_float(x))); }
  template <class T>
  static double value_of(uint16_t b) {
    T v;
    std::memcpy(static_cast<void*>(&v), &b, sizeof v);  // (T is trivially copyable; its members are not public)
    return Numeric<T>::to_float(v);
  }
  uint16_t from_float(float x) const { return dtype == Dtype::f16 ? bits_of<__half>(x) : bits_of<__nv_bfloat16>(x); }
  double to_double(uint16_t b) const { return dtype == Dtype::f16 ? value_of<__half>(b) : value_of<__nv_bfloat16>(b); }
};

// Fills a device 16-bit buffer with values uniform in [-1, 1] from a host pool (never zeros).
inline void fill_random(uint16_t* d, size_t n, const std::vector<uint16_t>& pool, size_t salt) {
  size_t done = 0;
  while (done < n) {
    const size_t start = (salt * 7919 + done * 31) % (pool.size() / 2);
    const size_t len = std::min(n - done, pool.size() - start);
    TESSERA_BENCH_CUDA(cudaMemcpy(d + done, pool.data() + start, len * sizeof(uint16_t), cudaMemcpyHostToDevice));
    done += len;
  }
}

// max |x - y| / max |y| over a sample of rows (every `step`-th row of an m x n row-major 16-bit matrix).
inline double rel_diff(const Elem16& et, const uint16_t* x, const uint16_t* y, int64_t m, int64_t n) {
  const int64_t step = std::max<int64_t>(1, m / 64);
  const int64_t rows = (m + step - 1) / step;
  std::vector<uint16_t> hx(static_cast<size_t>(rows * n)), hy(hx.size());
  const size_t pitch = static_cast<size_t>(n) * sizeof(uint16_t);
  TESSERA_BENCH_CUDA(cudaMemcpy2D(hx.data(), pitch, x, pitch * step, pitch, rows, cudaMemcpyDeviceToHost));
  TESSERA_BENCH_CUDA(cudaMemcpy2D(hy.data(), pitch, y, pitch * step, pitch, rows, cudaMemcpyDeviceToHost));
  double num = 0, den = 0;
  for (size_t i = 0; i < hx.size(); ++i) {
    const double a = et.to_double(hx[i]), b = et.to_double(hy[i]);
    if (!std::isfinite(a)) return INFINITY;
    num = std::max(num, std::fabs(a - b));
    den = std::max(den, std::fabs(b));
  }
  return den > 0 ? num / den : num;
}

inline double tflops(int64_t m, int64_t n, int64_t k, double ms) { return 2.0 * m * n * k / (ms * 1e-3) / 1e12; }

// --plans: for each shape, the planner's plan of the bare GEMM against every plan that can be forced (each tile built
// for `dt` on tensor cores, with 1, 2, 3, 4, 6 and 8 K splits; settings the planner turns into the same plan are timed
// once), each checked against cuBLAS, all timed in one round-robin with the L2 evicted before every run.  Records
// "plan_choice": the planner's speed over the best forced plan's (1 when the planner picked the best).
struct PlanGrid {
  const std::vector<Shape>& shapes;
  Dtype dt;
  const Elem16& et;
  const std::vector<uint16_t>& pool;
  cublasHandle_t cub;
  cudaStream_t stream;
  std::function<void(cudaStream_t)> flush;
  int warmup, repeats;
};

int run_plan_grid(const BenchOptions& o, const PlanGrid& g, Report& report);

}  // namespace tessera::bench::gemm_bench
