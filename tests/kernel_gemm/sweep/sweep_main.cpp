// tests/kernel_gemm/sweep/sweep_main.cpp -- times every registered tile configuration (variant_*.cu) on
// large bf16 problems, next to cublasGemmEx, after checking each result against tessera::gemm.
// Usage: gemm_tile_sweep [repeats]
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "sweep.hpp"
#include "tessera/host/gemm.hpp"
#include "tessera/kernel/gemm_sm80/config.hpp"

namespace tessera::sweep {
std::vector<Variant>& variants() {
  static std::vector<Variant> v;
  return v;
}
}  // namespace tessera::sweep

using namespace tessera;

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

static double rel_diff(const __nv_bfloat16* x, const __nv_bfloat16* y, size_t n) {
  std::vector<__nv_bfloat16> hx(n), hy(n);
  CK(cudaMemcpy(hx.data(), x, n * 2, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hy.data(), y, n * 2, cudaMemcpyDeviceToHost));
  double num = 0, den = 0;
  for (size_t i = 0; i < n; ++i) {
    const double a = __bfloat162float(hx[i]), b = __bfloat162float(hy[i]);
    if (!std::isfinite(a)) return INFINITY;
    num = std::max(num, std::fabs(a - b));
    den = std::max(den, std::fabs(b));
  }
  return num / den;
}

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 10;
  struct S { int64_t m, n, k; };
  const S shapes[] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {8192, 14336, 4096}};
  void* flush = nullptr;
  const size_t flush_bytes = size_t(256) << 20;
  CK(cudaMalloc(&flush, flush_bytes));
  cublasHandle_t h;
  cublasCreate(&h);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::vector<__nv_bfloat16> pool(size_t(1) << 24);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto& x : pool) x = __float2bfloat16_rn(u(rng));
  auto fill = [&](__nv_bfloat16* d, size_t n) {
    for (size_t done = 0; done < n;) {
      const size_t len = std::min(n - done, pool.size());
      CK(cudaMemcpy(d + done, pool.data() + (done * 13) % 1000, std::min(len, pool.size() - (done * 13) % 1000) * 2, cudaMemcpyHostToDevice));
      done += std::min(len, pool.size() - (done * 13) % 1000);
    }
  };
  auto time_it = [&](auto&& launch) {
    std::vector<float> ms;
    for (int r = 0; r < reps + 2; ++r) {
      CK(cudaMemsetAsync(flush, r, flush_bytes));
      cudaEventRecord(e0);
      launch();
      cudaEventRecord(e1);
      CK(cudaEventSynchronize(e1));
      float t;
      cudaEventElapsedTime(&t, e0, e1);
      if (r >= 2) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  };
  for (const S& s : shapes) {
    __nv_bfloat16 *A, *B, *D, *R;
    CK(cudaMalloc(&A, s.m * s.k * 2));
    CK(cudaMalloc(&B, s.k * s.n * 2));
    CK(cudaMalloc(&D, s.m * s.n * 2));
    CK(cudaMalloc(&R, s.m * s.n * 2));
    fill(A, s.m * s.k);
    fill(B, s.k * s.n);
    const double flop = 2.0 * s.m * s.n * s.k;
    for (int combo = 0; combo < 2; ++combo) {  // 0: B column-major (KK), 1: B row-major (KN)
      GemmArgs g;
      g.m = s.m; g.n = s.n; g.k = s.k;
      g.a = {A, Dtype::bf16, MatrixOrder::row_major, 0};
      g.b = {B, Dtype::bf16, combo ? MatrixOrder::row_major : MatrixOrder::col_major, 0};
      g.d = {R, Dtype::bf16, MatrixOrder::row_major, 0};
      GemmStatus st = gemm(g);
      CK(cudaDeviceSynchronize());
      if (!st) { std::printf("%s\n", st.message.c_str()); return 1; }
      const float one = 1, zero = 0;
      const double ms_cublas = time_it([&] {
        if (combo) cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, s.n, s.m, s.k, &one, B, CUDA_R_16BF, s.n, A, CUDA_R_16BF, s.k, &zero, D, CUDA_R_16BF, s.n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        else cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, s.n, s.m, s.k, &one, B, CUDA_R_16BF, s.k, A, CUDA_R_16BF, s.k, &zero, D, CUDA_R_16BF, s.n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
      });
      std::printf("M=%lld N=%lld K=%lld B %s  cuBLAS %.1f TFLOP/s\n", (long long)s.m, (long long)s.n, (long long)s.k,
                  combo ? "row-major (KN)" : "col-major (KK)", flop / ms_cublas / 1e9);
      for (auto& v : sweep::variants()) {
        const gemm_core::KernelInfo& ki = combo ? v.kn : v.kk;
        CK(cudaFuncSetAttribute(ki.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, ki.smem_bytes));
        cudaFuncAttributes fa{};
        cudaFuncGetAttributes(&fa, ki.fn);
        for (int group : {8, 16, 4}) {
          gemm_sm80::Params p;
          p.m = s.m; p.n = s.n; p.k = s.k;
          p.a = A; p.lda = s.k; p.b = B; p.ldb = combo ? s.n : s.k;
          p.a_vec = p.b_vec = true;
          p.tiles_m = (s.m + ki.block_m - 1) / ki.block_m;
          p.tiles_n = (s.n + ki.block_n - 1) / ki.block_n;
          p.group_m = std::min(group, p.tiles_m);
          p.splits = 1;
          p.ep.m = s.m; p.ep.n = s.n; p.ep.d = D; p.ep.ldd = s.n; p.ep.d_row_major = true; p.ep.d_vec = true;
          p.ep.d_type = Dtype::bf16;
          void* args[] = {&p};
          const dim3 grid(p.tiles_m * p.tiles_n);
          CK(cudaMemset(D, 0xFF, s.m * s.n * 2));
          CK(cudaLaunchKernel(ki.fn, grid, dim3(ki.threads), args, ki.smem_bytes, nullptr));
          CK(cudaDeviceSynchronize());
          const double err = rel_diff(D, R, s.m * s.n);
          const double ms = time_it([&] { cudaLaunchKernel(ki.fn, grid, dim3(ki.threads), args, ki.smem_bytes, nullptr); });
          std::printf("  %-22s group %2d  regs %3d local %3zu  %7.1f TFLOP/s  %.2fx cuBLAS  (max rel diff vs tessera::gemm %.1e)%s\n",
                      v.name.c_str(), group, fa.numRegs, fa.localSizeBytes, flop / ms / 1e9, ms_cublas / ms, err,
                      err > 1e-2 ? "  WRONG" : "");
        }
      }
    }
    cudaFree(A); cudaFree(B); cudaFree(D); cudaFree(R);
  }
  return 0;
}
