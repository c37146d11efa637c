// scripts/device/gemv_probe.cu -- the batch-1 GEMV kernel (kernel/gemm_sm80/gemv.hpp) alone, bf16: the bare product
// against bias + SiLU + residual (the decode menu) and against one read of the weights, each launch after an L2
// eviction, timed in turn (rounds rotated), medians; the fused D checked against a float64 reference.  Built without
// the library, in seconds, so that the kernel's epilogue can be measured where the whole build does not fit:
//
//   nvcc -std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a -I include scripts/device/gemv_probe.cu -o /tmp/gemv_probe
//   /tmp/gemv_probe            # the issue's weight shapes (N, K): (4096, 4096), (8192, 8192), (14336, 4096), (4096, 14336)
//
// As `tessera bench gemm` plans them: D = x W^T with x 1 x K, W N x K row-major, D 1 x N row-major, computed as
// D^T = W x^T (the kernel's A = W, B = x^T, D' column-major); the bias per column of D (per row of D'), bf16.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "tessera/kernel/gemm_sm80/gemv.hpp"

namespace {

using G = tessera::gemm_sm80::Gemv<__nv_bfloat16, 1>;

#define CK(x)                                                                                  \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s failed: %s (line %d)\n", #x, cudaGetErrorString(e_), __LINE__); \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)

__global__ void read_words(const int4* __restrict__ p, size_t n, int never, int* sink) {
  int acc = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const int4 v = __ldcs(p + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == never) *sink = acc;
}

uint16_t bf16_bits(float f) {
  const __nv_bfloat16 b = __float2bfloat16_rn(f);
  uint16_t u;
  std::memcpy(&u, &b, 2);
  return u;
}
double bits_bf16(uint16_t u) {
  uint32_t w = static_cast<uint32_t>(u) << 16;
  float f;
  std::memcpy(&f, &w, 4);
  return f;
}

}  // namespace

int main() {
  int sms = 0, l2 = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  const size_t evict_words = 4 * static_cast<size_t>(l2) / 16;
  int4* evict = nullptr;
  int* sink = nullptr;
  CK(cudaMalloc(&evict, evict_words * 16));
  CK(cudaMemset(evict, 1, evict_words * 16));
  CK(cudaMalloc(&sink, 4));
  CK(cudaFuncSetAttribute(tessera::gemm_sm80::gemv_kernel<__nv_bfloat16, 1>, cudaFuncAttributeMaxDynamicSharedMemorySize, G::kSmemBytes));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  const int shapes[][2] = {{4096, 4096}, {8192, 8192}, {14336, 4096}, {4096, 14336}};
  std::printf("gemv4x1 (bf16), us: median of 15 after an L2 eviction each, rounds rotated\n");
  std::printf("%-14s %8s %8s %8s %12s %12s %10s\n", "N x K", "bare", "fused", "read", "fused/bare", "read/bare", "max err");
  for (auto [n, k] : shapes) {
    std::mt19937 rng(n + k);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    std::vector<uint16_t> w(static_cast<size_t>(n) * k), x(k), bias(n), res(n);
    for (auto& v : w) v = bf16_bits(u(rng));
    for (auto& v : x) v = bf16_bits(u(rng));
    for (auto& v : bias) v = bf16_bits(u(rng));
    for (auto& v : res) v = bf16_bits(u(rng));
    uint16_t *dw, *dx, *db, *dr, *dd;
    CK(cudaMalloc(&dw, w.size() * 2));
    CK(cudaMalloc(&dx, x.size() * 2));
    CK(cudaMalloc(&db, bias.size() * 2));
    CK(cudaMalloc(&dr, res.size() * 2));
    CK(cudaMalloc(&dd, res.size() * 2));
    CK(cudaMemcpy(dw, w.data(), w.size() * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dx, x.data(), x.size() * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, bias.data(), bias.size() * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dr, res.data(), res.size() * 2, cudaMemcpyHostToDevice));
    tessera::gemm_sm80::Params bare;
    bare.m = n;
    bare.n = 1;
    bare.k = k;
    bare.a = dw;
    bare.lda = k;
    bare.b = dx;
    bare.ldb = k;
    bare.ep.m = n;
    bare.ep.n = 1;
    bare.ep.d = dd;
    bare.ep.ldd = n;
    bare.ep.d_row_major = false;
    bare.ep.d_type = tessera::Dtype::bf16;
    tessera::gemm_sm80::Params fused = bare;
    fused.ep.bias = db;
    fused.ep.bias_along = tessera::epilogue::kBiasAlongM;
    fused.ep.bias_f32 = false;
    fused.ep.act = tessera::Activation::silu;
    fused.ep.residual = dr;
    fused.ep.ldr = n;
    fused.ep.r_row_major = false;
    const dim3 grid((n + G::kRows - 1) / G::kRows);
    auto gemv = [&](const tessera::gemm_sm80::Params& p) {
      tessera::gemm_sm80::gemv_kernel<__nv_bfloat16, 1><<<grid, G::kThreads, G::kSmemBytes>>>(p);
    };
    auto read = [&] { read_words<<<4 * sms, 512>>>(reinterpret_cast<const int4*>(dw), w.size() * 2 / 16, 0x2468ace1, sink); };
    // Correctness of the fused menu: D = silu(W x + bias) + residual against float64.
    CK(cudaMemset(dd, 0xFF, res.size() * 2));
    gemv(fused);
    CK(cudaDeviceSynchronize());
    std::vector<uint16_t> d(n);
    CK(cudaMemcpy(d.data(), dd, d.size() * 2, cudaMemcpyDeviceToHost));
    double max_err = 0;
    for (int i = 0; i < n; ++i) {
      double s = 0, sa = 0;
      for (int j = 0; j < k; ++j) {
        const double p = bits_bf16(w[static_cast<size_t>(i) * k + j]) * bits_bf16(x[j]);
        s += p;
        sa += std::fabs(p);
      }
      const double v = s + bits_bf16(bias[i]);
      const double ref = v / (1 + std::exp(-v)) + bits_bf16(res[i]);
      const double err = std::fabs(bits_bf16(d[i]) - ref) / (sa + 1.0);
      if (!(err <= max_err)) max_err = std::isnan(err) ? 1e30 : std::max(max_err, err);
    }
    // Timing: the three launches in turn, each after the eviction.
    std::vector<double> t[3];
    for (int round = 0; round < 17; ++round)
      for (int q = 0; q < 3; ++q) {
        const int which = (q + round) % 3;
        read_words<<<4 * sms, 512>>>(evict, evict_words, 0x2468ace1, sink);
        CK(cudaEventRecord(e0));
        if (which == 0) gemv(bare);
        else if (which == 1) gemv(fused);
        else read();
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (round >= 2) t[which].push_back(ms * 1e3);
      }
    CK(cudaGetLastError());
    double med[3];
    for (int i = 0; i < 3; ++i) {
      std::sort(t[i].begin(), t[i].end());
      med[i] = t[i][t[i].size() / 2];
    }
    char label[32];
    std::snprintf(label, sizeof label, "%d x %d", n, k);
    std::printf("%-14s %8.2f %8.2f %8.2f %12.3f %12.3f %10.2e\n", label, med[0], med[1], med[2], med[0] / med[1],
                med[2] / med[0], max_err);
    cudaFree(dw);
    cudaFree(dx);
    cudaFree(db);
    cudaFree(dr);
    cudaFree(dd);
  }
  return 0;
}
