// scripts/device/quant_probe.cu -- times tessera::fused::quantize per (q type, mode) on 8192 x 4096 and 4096 x 14336
// bf16 against cudaMemcpy D2D moving the same bytes (x read once, q written once, the scales), L2 overwritten before
// each launch, median of N.  Links with the quantisation kernels alone (scripts/device/quant_ab.sh builds it), so two
// versions of them compare in about a minute; the figures of record come from `tessera bench quantize`.
// usage: quant_probe [N = 25] [q:mode:rows, e.g. s8:tensor_given:8192 -- one case, for ncu]
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>
#include "tessera/host/quantize.hpp"
using namespace tessera;
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e)); std::exit(1); } } while (0)
static void* g_flush; static size_t g_flush_bytes = size_t(256) << 20;
template <class F> double median_us(F f, cudaStream_t s, int n) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  std::vector<float> t;
  for (int i = 0; i < n + 3; ++i) {
    CK(cudaMemsetAsync(g_flush, i & 0xff, g_flush_bytes, s));
    cudaEventRecord(a, s); f(s); cudaEventRecord(b, s); CK(cudaEventSynchronize(b));
    float ms; cudaEventElapsedTime(&ms, a, b); if (i >= 3) t.push_back(ms);
  }
  std::sort(t.begin(), t.end()); return 1e3 * t[t.size() / 2];
}
int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 25;
  CK(cudaMalloc(&g_flush, g_flush_bytes));
  cudaStream_t s; CK(cudaStreamCreate(&s));
  const int64_t shapes[][2] = {{8192, 4096}, {4096, 14336}};
  const size_t maxn = size_t(4096) * 14336;
  void *x, *q, *ws, *cs, *cd; float *sc, *am;
  CK(cudaMalloc(&x, maxn * 2)); CK(cudaMalloc(&q, maxn)); CK(cudaMalloc(&ws, 256)); CK(cudaMemset(ws, 0, 256));
  CK(cudaMalloc(&sc, maxn / 64 * 4)); CK(cudaMalloc(&am, maxn / 64 * 4));
  CK(cudaMalloc(&cs, maxn * 2)); CK(cudaMalloc(&cd, maxn * 2)); CK(cudaMemset(cs, 1, maxn * 2));
  std::vector<__nv_bfloat16> h(maxn); std::mt19937 rng(7); std::normal_distribution<float> nd(0.f, 1.f);
  for (auto& v : h) v = __float2bfloat16(nd(rng));
  CK(cudaMemcpy(x, h.data(), maxn * 2, cudaMemcpyHostToDevice));
  const Dtype qs[] = {Dtype::e4m3, Dtype::e5m2, Dtype::s8};
  const fused::QuantScale modes[] = {fused::QuantScale::tensor_given, fused::QuantScale::row, fused::QuantScale::block_1x128, fused::QuantScale::block_128x128};
  for (auto& sh : shapes) {
    const int64_t rows = sh[0], cols = sh[1], n = rows * cols;
    for (Dtype qt : qs) for (auto mode : modes) {
      const std::string key = std::string(dtype_name(qt)) + ":" + fused::quant_scale_name(mode) + ":" + std::to_string(rows);
      if (argc > 2 && key != argv[2]) continue;
      fused::QuantizeArgs a; a.x = x; a.x_type = Dtype::bf16; a.rows = rows; a.cols = cols; a.q = q; a.q_type = qt;
      a.mode = mode; a.scale = sc; a.workspace = ws; a.workspace_bytes = 256; a.stream = s;
      if (mode == fused::QuantScale::tensor_given) {
        fused::QuantizeArgs t = a; t.mode = fused::QuantScale::tensor; fused::quantize(t); CK(cudaStreamSynchronize(s));
        a.amax = am;
      }
      const auto shp = fused::quantize_scale_shape(mode, rows, cols);
      const double must = double(n) * 2 + double(n) + double(shp.elems()) * 4 * (a.amax ? 2 : 1);
      const double us = median_us([&](cudaStream_t st) { fused::quantize(a); }, s, reps);
      const size_t cb = size_t(must / 2) / 256 * 256;
      const double ref = median_us([&](cudaStream_t st) { CK(cudaMemcpyAsync(cd, cs, cb, cudaMemcpyDeviceToDevice, st)); }, s, reps);
      const double gbps = must / us / 1e3, rgbps = 2.0 * cb / ref / 1e3;
      std::printf("%-6s %-14s %lldx%lld  %-28s %8.1f us %6.0f GB/s  d2d %6.0f  ratio %.3f\n", dtype_name(qt),
                  fused::quant_scale_name(mode), (long long)rows, (long long)cols, fused::plan_quantize(a).str().c_str(), us, gbps, rgbps, gbps / rgbps);
    }
  }
  CK(cudaGetLastError());
  return 0;
}
