// scripts/device/lt_scale_modes.cu -- what cuBLASLt offers Tessera's reduced-precision GEMMs to race against on this
// GPU: one row per shape and mode, the heuristic's first algorithm timed warm (median of 20 after 5 warm-ups, no L2
// eviction: a probe, not a record).  Modes, each D = X W^T with X (M x K) and W (N x K) row-major, called as
// cuBLASLt's TN product W^T-major (its A = W, its B = X, D column-major N x M = row-major M x N):
//   fp8_tensor   e4m3 x e4m3 -> bf16, per-tensor scales (SCALAR_32F), fast accumulation off
//   fp8_outer    the same with a scale per row of X and per row of W (OUTER_VEC_32F)
//   fp8_block    X in 1 x 128 blocks along K (VEC128_32F), W in 128 x 128 blocks (BLK128x128_32F)
//   fp8_block_t  the other assignment (X 128 x 128, W 1 x 128), in case only that one is offered
//   int8         s8 x s8 -> s32, CUBLAS_COMPUTE_32I (int32 alpha / beta)
// A mode cuBLASLt refuses prints the status instead of a time.
//   nvcc -std=c++17 -O2 -arch=sm_90a scripts/device/lt_scale_modes.cu -lcublasLt -o /tmp/lt_scale_modes && /tmp/lt_scale_modes
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); std::exit(1); } } while (0)

struct Shape { int m, n, k; };

static float time_ms(cublasLtHandle_t h, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t la, cublasLtMatrixLayout_t lb,
                     cublasLtMatrixLayout_t lc, cublasLtMatrixLayout_t ld, const void* alpha, const void* beta, const void* a,
                     const void* b, void* d, void* ws, size_t ws_bytes, cublasStatus_t* st, char* name) {
  cublasLtMatmulPreference_t pref;
  cublasLtMatmulPreferenceCreate(&pref);
  cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes, sizeof ws_bytes);
  cublasLtMatmulHeuristicResult_t res{};
  int found = 0;
  *st = cublasLtMatmulAlgoGetHeuristic(h, desc, la, lb, lc, ld, pref, 1, &res, &found);
  cublasLtMatmulPreferenceDestroy(pref);
  if (*st != CUBLAS_STATUS_SUCCESS || found == 0) {
    if (*st == CUBLAS_STATUS_SUCCESS) *st = CUBLAS_STATUS_NOT_SUPPORTED;
    return -1.f;
  }
  int tile = -1, stages = -1;
  cublasLtMatmulAlgoConfigGetAttribute(&res.algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile, nullptr);
  cublasLtMatmulAlgoConfigGetAttribute(&res.algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof stages, nullptr);
  std::snprintf(name, 64, "tile id %d stages id %d", tile, stages);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::vector<float> t;
  for (int i = 0; i < 25; ++i) {
    cudaEventRecord(e0);
    *st = cublasLtMatmul(h, desc, alpha, a, la, b, lb, beta, d, lc, d, ld, &res.algo, ws, ws_bytes, 0);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    if (*st != CUBLAS_STATUS_SUCCESS) return -1.f;
    float ms;
    cudaEventElapsedTime(&ms, e0, e1);
    if (i >= 5) t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  CK(cudaGetLastError());
  return t[t.size() / 2];
}

int main() {
  const Shape shapes[] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {8192, 4096, 4096}, {8192, 14336, 4096}, {8192, 4096, 14336}, {2048, 2048, 2048}};
  const size_t max_elems = size_t(8192) * 14336;
  void *x, *w, *d, *ws, *sx, *sw;
  const size_t ws_bytes = size_t(32) << 20;
  CK(cudaMalloc(&x, max_elems));
  CK(cudaMalloc(&w, max_elems));
  CK(cudaMalloc(&d, max_elems * 4));
  CK(cudaMalloc(&ws, ws_bytes));
  CK(cudaMalloc(&sx, size_t(16) << 20));
  CK(cudaMalloc(&sw, size_t(16) << 20));
  CK(cudaMemset(x, 0x38, max_elems));  // e4m3 1.0 / s8 56
  CK(cudaMemset(w, 0x30, max_elems));  // e4m3 0.5 / s8 48
  {
    std::vector<float> one((size_t(16) << 20) / 4, 0.5f);
    CK(cudaMemcpy(sx, one.data(), one.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(sw, one.data(), one.size() * 4, cudaMemcpyHostToDevice));
  }
  cublasLtHandle_t h;
  cublasLtCreate(&h);
  const char* modes[] = {"fp8_tensor", "fp8_outer", "fp8_block", "fp8_block_t", "int8"};
  std::printf("%-18s %-12s %10s %10s  %s\n", "shape", "mode", "us", "TFLOP/s", "algo / status");
  for (const Shape& s : shapes) {
    float base = 0.f;
    for (int mi = 0; mi < 5; ++mi) {
      const bool i8 = mi == 4;
      cublasLtMatmulDesc_t desc;
      cublasLtMatmulDescCreate(&desc, i8 ? CUBLAS_COMPUTE_32I : CUBLAS_COMPUTE_32F, i8 ? CUDA_R_32I : CUDA_R_32F);
      const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
      cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
      cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb);
      if (!i8) {
        int32_t modeA = CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F, modeB = modeA;  // cuBLASLt's A = W, B = X
        if (mi == 1) modeA = modeB = CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F;
        if (mi == 2) { modeA = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F; modeB = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F; }
        if (mi == 3) { modeA = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F; modeB = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F; }
        if (mi > 0) {
          cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &modeA, sizeof modeA);
          cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &modeB, sizeof modeB);
        }
        cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sw, sizeof sw);
        cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sx, sizeof sx);
        const int8_t fast = 0;
        cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast);
      }
      const cudaDataType_t in = i8 ? CUDA_R_8I : CUDA_R_8F_E4M3, out = i8 ? CUDA_R_32I : CUDA_R_16BF;
      cublasLtMatrixLayout_t la, lb, lc;
      cublasLtMatrixLayoutCreate(&la, in, s.k, s.n, s.k);   // W^T: K x N column-major = W row-major
      cublasLtMatrixLayoutCreate(&lb, in, s.k, s.m, s.k);   // X^T likewise
      cublasLtMatrixLayoutCreate(&lc, out, s.n, s.m, s.n);  // D^T column-major = D row-major
      const float af = 1.f, bf = 0.f;
      const int32_t ai = 1, bi = 0;
      cublasStatus_t st;
      char name[64] = "";
      const float ms = time_ms(h, desc, la, lb, lc, lc, i8 ? (const void*)&ai : (const void*)&af, i8 ? (const void*)&bi : (const void*)&bf,
                               w, x, d, ws, ws_bytes, &st, name);
      char sh[32];
      std::snprintf(sh, sizeof sh, "%dx%dx%d", s.m, s.n, s.k);
      if (ms < 0) {
        std::printf("%-18s %-12s %10s %10s  status %d\n", sh, modes[mi], "-", "-", int(st));
      } else {
        const double tf = 2.0 * s.m * s.n * s.k / (ms * 1e-3) / 1e12;
        if (mi == 0) base = ms;
        std::printf("%-18s %-12s %10.1f %10.1f  %s  (fp8_tensor time / this %.3f)\n", sh, modes[mi], ms * 1e3, tf, name, base / ms);
      }
      cublasLtMatrixLayoutDestroy(la);
      cublasLtMatrixLayoutDestroy(lb);
      cublasLtMatrixLayoutDestroy(lc);
      cublasLtMatmulDescDestroy(desc);
    }
  }
  cublasLtDestroy(h);
  return 0;
}
