// scripts/device/lt_gelu_accuracy.cu -- how accurate cuBLASLt's GELU_BIAS epilogue is (the reference the fused
// GEMM is timed against): D = gelu_tanh(A @ B + bias) with A's first column the probe values x (bf16, exact),
// B's first row ones, every other element zero, so D[i][j] = gelu_tanh(x_i + bias_j) with the sum exact in fp32.
// Prints the worst absolute and relative error against fp64 per range of x.
//   nvcc -std=c++17 -O2 -arch=sm_90a scripts/device/lt_gelu_accuracy.cu -lcublasLt -o /tmp/ltacc && /tmp/ltacc
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cmath>
#include <cstdio>
#include <vector>
#define CK(x) do { auto e = (x); if ((int)e != 0) { std::printf("%s failed: %d (line %d)\n", #x, (int)e, __LINE__); return 1; } } while (0)
static double gelu64(double v) { return 0.5 * v * (1.0 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v))); }
int main() {
  const int m = 8192, n = 16, k = 16;  // D is m x n column-major; A m x k column-major; B k x n column-major
  std::vector<__nv_bfloat16> ha((size_t)m * k, __float2bfloat16(0.f)), hb((size_t)k * n, __float2bfloat16(0.f));
  std::vector<float> x(m), hbias(m, 0.f);
  for (int i = 0; i < m; ++i) {  // -10 .. 10, exactly representable in bf16 after rounding
    x[i] = __bfloat162float(__float2bfloat16(-10.f + 20.f * i / (m - 1)));
    ha[i] = __float2bfloat16(x[i]);
  }
  for (int j = 0; j < n; ++j) hb[(size_t)j * k] = __float2bfloat16(1.f);
  __nv_bfloat16 *da, *db; float *dd, *dbias;
  CK(cudaMalloc(&da, ha.size() * 2)); CK(cudaMalloc(&db, hb.size() * 2)); CK(cudaMalloc(&dd, (size_t)m * n * 4));
  CK(cudaMalloc(&dbias, m * 4));
  CK(cudaMemcpy(da, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(db, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dbias, hbias.data(), m * 4, cudaMemcpyHostToDevice));
  cublasLtHandle_t lt; CK(cublasLtCreate(&lt));
  cublasLtMatmulDesc_t op; CK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_GELU_BIAS;
  CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof(epi)));
  CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &dbias, sizeof(dbias)));
  cublasLtMatrixLayout_t la, lb, ld;
  CK(cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, m, k, m));
  CK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, k, n, k));
  CK(cublasLtMatrixLayoutCreate(&ld, CUDA_R_32F, m, n, m));
  float alpha = 1.f, beta = 0.f;
  CK(cublasLtMatmul(lt, op, &alpha, da, la, db, lb, &beta, dd, ld, dd, ld, nullptr, nullptr, 0, 0));
  CK(cudaDeviceSynchronize());
  std::vector<float> hd((size_t)m * n);
  CK(cudaMemcpy(hd.data(), dd, hd.size() * 4, cudaMemcpyDeviceToHost));
  const double edges[] = {-10, -6, -4, -3, -2, -1, 0, 1, 3, 10};
  for (int r = 0; r + 1 < 10; ++r) {
    double worst_abs = 0, worst_rel = 0, at = 0;
    for (int i = 0; i < m; ++i) {
      if (x[i] < edges[r] || x[i] >= edges[r + 1]) continue;
      const double ref = gelu64(x[i]), got = hd[i];
      const double ea = std::fabs(got - ref), er = ref != 0 ? ea / std::fabs(ref) : 0;
      if (ea > worst_abs) worst_abs = ea;
      if (er > worst_rel) { worst_rel = er; at = x[i]; }
    }
    std::printf("cuBLASLt GELU_BIAS, f32 D: x in [%5.1f, %5.1f): worst abs %.3e, worst rel %.3e (at x = %.4f)\n", edges[r],
                edges[r + 1], worst_abs, worst_rel, at);
  }
  return 0;
}
