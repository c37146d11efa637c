// scripts/device/gemv_probe.cu -- the batch-1 GEMV kernel (kernel/gemm_sm80/gemv.hpp) alone, bf16: the bare product
// against bias + SiLU + residual (the decode menu) and against one read of the weights, and the bare product in other
// shapes of the kernel's template (rows a block, A's steps in flight, warps a block; an interleaved read, each step
// the block's threads x 16 contiguous bytes of a row, was measured no faster and removed: docs/PERF.md, fifty-second
// section) and the dealt kernel (each block looping over groups of rows) on three grids, each launch after an L2
// eviction, timed in turn (rounds rotated), medians; each variant's D checked against a float64 reference.  Built
// without the library, in seconds, so that the kernel can be measured where the whole build does not fit:
//
//   nvcc -std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a -I include scripts/device/gemv_probe.cu -o /tmp/gemv_probe
//   /tmp/gemv_probe            # the issue's weight shapes (N, K): (4096, 4096), (8192, 8192), (14336, 4096), (4096, 14336)
//   /tmp/gemv_probe menus      # the epilogue's inputs in every width, a K ending inside a chunk, against float64
//
// As `tessera bench gemm` plans them: D = x W^T with x 1 x K, W N x K row-major, D 1 x N row-major, computed as
// D^T = W x^T (the kernel's A = W, B = x^T, D' column-major); the bias per column of D (per row of D'), bf16.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <random>
#include <vector>

#include "probe_util.cuh"  // CK, L2Evict, read_words, medians_rotated, bf16 bits
#include "tessera/kernel/gemm_sm80/gemv.hpp"

namespace {

using probe::bf16_bits;
using probe::bits_bf16;
using probe::read_words;

// A shape of the kernel's template: kRows rows a block, kStages steps in flight, kWarps warps a block.
template <int kRows, int kStages, int kWarps>
struct Variant {
  using K = tessera::gemm_sm80::Gemv<__nv_bfloat16, 1, kRows, kStages, kWarps>;
  static void prepare() {
    cudaFuncSetAttribute(tessera::gemm_sm80::gemv_kernel<__nv_bfloat16, 1, kRows, kStages, kWarps>,
                         cudaFuncAttributeMaxDynamicSharedMemorySize, K::kSmemBytes);
  }
  static void launch(const tessera::gemm_sm80::Params& p) {
    tessera::gemm_sm80::gemv_kernel<__nv_bfloat16, 1, kRows, kStages, kWarps>
        <<<(p.m + kRows - 1) / kRows, K::kThreads, K::kSmemBytes>>>(p);
  }
};
// The dealt kernel (gemv_kernel<..., true>: block b of a grid of g takes groups b, b + g, ...; the library launches it
// one block a slot where the groups number at least four a slot) on a chosen grid: kGrid 0, one block a slot (the
// library's); 1, balanced: ceil(groups / ceil(groups / slots)) blocks, every block the same number of groups (the last
// one fewer at most); 2, one block a group.  (A contiguous run of groups a block, measured in the sixty-fourth session,
// was no faster: docs/PERF.md.)
template <int kRows, int kStages, int kWarps, int kGrid>
struct Dealt {
  using K = tessera::gemm_sm80::Gemv<__nv_bfloat16, 1, kRows, kStages, kWarps>;
  static constexpr auto kFn = tessera::gemm_sm80::gemv_kernel<__nv_bfloat16, 1, kRows, kStages, kWarps, true>;
  static int slots;  // the SMs x the blocks one holds (prepare)
  static void prepare() {
    cudaFuncSetAttribute(kFn, cudaFuncAttributeMaxDynamicSharedMemorySize, K::kSmemBytes);
    int per = 0, sms = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kFn, K::kThreads, K::kSmemBytes);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    slots = per * sms;
  }
  static void launch(const tessera::gemm_sm80::Params& p) {
    const int groups = (p.m + kRows - 1) / kRows, per = (groups + slots - 1) / slots;
    const int grid = kGrid == 2 ? groups : kGrid == 1 ? (groups + per - 1) / per : (groups < slots ? groups : slots);
    kFn<<<grid, K::kThreads, K::kSmemBytes>>>(p);
  }
};
template <int kRows, int kStages, int kWarps, int kGrid>
int Dealt<kRows, kStages, kWarps, kGrid>::slots = 0;

struct Launch {
  const char* name;
  void (*prepare)();
  void (*launch)(const tessera::gemm_sm80::Params&);
};
#define TESSERA_VARIANT(r, s, w) Launch{#r "x" #s "x" #w, &Variant<r, s, w>::prepare, &Variant<r, s, w>::launch}
// rows x stages x warps: the registry's (4 x 4 x 8) first.
#define TESSERA_DEALT(r, s, w, g, tag) \
  Launch{"dealt" tag " " #r "x" #s "x" #w, &Dealt<r, s, w, g>::prepare, &Dealt<r, s, w, g>::launch}
const Launch kVariants[] = {TESSERA_VARIANT(4, 4, 8),           TESSERA_DEALT(4, 4, 8, 0, ""),
                            TESSERA_DEALT(4, 4, 8, 1, " bal"), TESSERA_DEALT(4, 6, 8, 1, " bal"),
                            TESSERA_DEALT(8, 3, 8, 1, " bal"), TESSERA_DEALT(4, 4, 8, 2, " one")};

// The kernel's parameters for D^T = W x^T: W n x k (rows of pitch ld), x of k, D' a column of n of type dt.
tessera::gemm_sm80::Params gemv_params(const void* w, const void* x, void* d, int n, int k, int ld, tessera::Dtype dt) {
  tessera::gemm_sm80::Params p;
  p.m = n;
  p.n = 1;
  p.k = k;
  p.a = w;
  p.lda = ld;
  p.b = x;
  p.ldb = ld;
  p.ep.m = n;
  p.ep.n = 1;
  p.ep.d = d;
  p.ep.ldd = n;
  p.ep.d_row_major = false;
  p.ep.d_type = dt;
  return p;
}

// `gemv_probe menus`: the epilogue's inputs in each width the kernel reads them (fp32, bf16, f16: C, the bias, the
// residual), with a K that ends inside a chunk (K = 1003 in rows of 1008) and rows that do not fill a block (N = 1001),
// against float64; returns the number of menus whose largest error exceeds 2^-8 of (sum of |products| + |C| + 1).
struct Menu {
  const char* name;
  tessera::Dtype d_type;
  float beta;
  int bias_along;  // kBiasNone / AlongM / AlongN / Scalar
  bool bias_f32;
  tessera::Activation act;
  bool residual;
};
double to_double(tessera::Dtype t, const unsigned char* p) {
  if (t == tessera::Dtype::f32) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  uint16_t u;
  std::memcpy(&u, p, 2);
  if (t == tessera::Dtype::bf16) return bits_bf16(u);
  __half h;
  std::memcpy(&h, &u, 2);
  return __half2float(h);
}
void from_double(tessera::Dtype t, unsigned char* p, double v) {
  if (t == tessera::Dtype::f32) {
    const float f = static_cast<float>(v);
    std::memcpy(p, &f, 4);
  } else if (t == tessera::Dtype::bf16) {
    const uint16_t u = bf16_bits(static_cast<float>(v));
    std::memcpy(p, &u, 2);
  } else {
    const __half h = __float2half_rn(static_cast<float>(v));
    std::memcpy(p, &h, 2);
  }
}
int run_menus() {
  using tessera::Activation;
  using tessera::Dtype;
  namespace ep = tessera::epilogue;
  const int n = 1001, k = 1003, ld = 1008;
  const Menu menus[] = {
      {"f32 D, beta C, fp32 bias along M, gelu_tanh, residual", Dtype::f32, 0.5f, ep::kBiasAlongM, true, Activation::gelu_tanh, true},
      {"f16 D, beta C, f16 bias scalar, relu, residual", Dtype::f16, -0.75f, ep::kBiasScalar, false, Activation::relu, true},
      {"bf16 D, fp32 bias along N, no activation", Dtype::bf16, 0.f, ep::kBiasAlongN, true, Activation::none, false},
      {"f16 D, f16 bias along M, silu, residual", Dtype::f16, 0.f, ep::kBiasAlongM, false, Activation::silu, true},
      {"bf16 D, beta C, bf16 bias along M, leaky_relu", Dtype::bf16, 1.f, ep::kBiasAlongM, false, Activation::leaky_relu, false},
  };
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<uint16_t> w(static_cast<size_t>(n) * ld, 0xFFFF), x(ld, 0xFFFF);  // the padding NaN: never read as data
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < k; ++j) w[static_cast<size_t>(i) * ld + j] = bf16_bits(u(rng));
  for (int j = 0; j < k; ++j) x[j] = bf16_bits(u(rng));
  uint16_t *dw, *dx;
  unsigned char *dc, *dbias, *dr, *dd;
  CK(cudaMalloc(&dw, w.size() * 2));
  CK(cudaMalloc(&dx, x.size() * 2));
  CK(cudaMalloc(&dc, n * 4));
  CK(cudaMalloc(&dbias, n * 4));
  CK(cudaMalloc(&dr, n * 4));
  CK(cudaMalloc(&dd, n * 4));
  CK(cudaMemcpy(dw, w.data(), w.size() * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dx, x.data(), x.size() * 2, cudaMemcpyHostToDevice));
  int bad = 0;
  for (const Menu& m : menus) {
    const int eb = m.d_type == Dtype::f32 ? 4 : 2, bb = m.bias_f32 ? 4 : eb;
    const Dtype bt = m.bias_f32 ? Dtype::f32 : m.d_type;
    std::vector<unsigned char> c(n * 4), bias(n * 4), r(n * 4), d(n * 4);
    for (int i = 0; i < n; ++i) {
      from_double(m.d_type, &c[i * eb], u(rng));
      from_double(bt, &bias[i * bb], u(rng));
      from_double(m.d_type, &r[i * eb], u(rng));
    }
    CK(cudaMemcpy(dc, c.data(), c.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dbias, bias.data(), bias.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dr, r.data(), r.size(), cudaMemcpyHostToDevice));
    CK(cudaMemset(dd, 0xFF, n * 4));
    tessera::gemm_sm80::Params p = gemv_params(dw, dx, dd, n, k, ld, m.d_type);
    p.ep.alpha = 0.75f;
    p.ep.beta = m.beta;
    p.ep.c = m.beta != 0.f ? dc : nullptr;
    p.ep.ldc = n;
    p.ep.c_row_major = false;
    p.ep.bias = m.bias_along != ep::kBiasNone ? dbias : nullptr;
    p.ep.bias_along = m.bias_along;
    p.ep.bias_f32 = m.bias_f32;
    p.ep.act = m.act;
    p.ep.act_p0 = 0.1f;
    p.ep.residual = m.residual ? dr : nullptr;
    p.ep.ldr = n;
    p.ep.r_row_major = false;
    Variant<4, 4, 8>::launch(p);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(d.data(), dd, d.size(), cudaMemcpyDeviceToHost));
    double worst = 0;
    for (int i = 0; i < n; ++i) {
      double s = 0, sa = 0;
      for (int j = 0; j < k; ++j) {
        const double q = bits_bf16(w[static_cast<size_t>(i) * ld + j]) * bits_bf16(x[j]);
        s += q;
        sa += std::fabs(q);
      }
      double v = 0.75 * s;
      const double cv = to_double(m.d_type, &c[i * eb]);
      if (m.beta != 0.f) v += m.beta * cv;
      const int bi = m.bias_along == ep::kBiasAlongM ? i : 0;
      if (m.bias_along != ep::kBiasNone) v += to_double(bt, &bias[bi * bb]);
      switch (m.act) {
        case Activation::gelu_tanh: v = 0.5 * v * (1 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v))); break;
        case Activation::relu: v = std::max(v, 0.0); break;
        case Activation::silu: v = v / (1 + std::exp(-v)); break;
        case Activation::leaky_relu: v = v >= 0 ? v : 0.1 * v; break;
        default: break;
      }
      if (m.residual) v += to_double(m.d_type, &r[i * eb]);
      const double err = std::fabs(to_double(m.d_type, &d[i * eb]) - v) / (sa + std::fabs(cv) + 1.0);
      worst = std::isnan(err) ? 1e30 : std::max(worst, err);
    }
    const bool ok = worst <= 1.0 / 256;
    bad += !ok;
    std::printf("%-58s max err %.2e %s\n", m.name, worst, ok ? "ok" : "FAILED");
  }
  cudaFree(dw);
  cudaFree(dx);
  cudaFree(dc);
  cudaFree(dbias);
  cudaFree(dr);
  cudaFree(dd);
  return bad;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "menus") {
    CK(cudaFuncSetAttribute(tessera::gemm_sm80::gemv_kernel<__nv_bfloat16, 1, 4, 4, 8>,
                            cudaFuncAttributeMaxDynamicSharedMemorySize, Variant<4, 4, 8>::K::kSmemBytes));
    const int bad = run_menus();
    std::printf("%s\n", bad ? "menus: FAILED" : "menus: all within bounds");
    return bad ? 1 : 0;
  }
  const probe::L2Evict evict;
  const int sms = evict.sms;
  int* const sink = evict.sink;
  for (const Launch& v : kVariants) v.prepare();
  CK(cudaGetLastError());
  const int shapes[][2] = {{4096, 4096}, {8192, 8192}, {14336, 4096}, {4096, 14336}, {28672, 8192}};
  std::printf("gemv, batch 1 (bf16), us: median of 15 after an L2 eviction each, rounds rotated; variants rows x stages x warps\n");
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
    const tessera::gemm_sm80::Params bare = gemv_params(dw, dx, dd, n, k, k, tessera::Dtype::bf16);
    tessera::gemm_sm80::Params fused = bare;
    fused.ep.bias = db;
    fused.ep.bias_along = tessera::epilogue::kBiasAlongM;
    fused.ep.bias_f32 = false;
    fused.ep.act = tessera::Activation::silu;
    fused.ep.residual = dr;
    fused.ep.ldr = n;
    fused.ep.r_row_major = false;
    // The float64 reference: the dot products, their magnitudes, and the fused menu's values.
    std::vector<double> dot(n), mag(n);
    for (int i = 0; i < n; ++i) {
      double s = 0, sa = 0;
      for (int j = 0; j < k; ++j) {
        const double p = bits_bf16(w[static_cast<size_t>(i) * k + j]) * bits_bf16(x[j]);
        s += p;
        sa += std::fabs(p);
      }
      dot[i] = s;
      mag[i] = sa;
    }
    // Each launch's D (poisoned first) against the reference: the largest error over (sum of |products| + 1).
    auto check = [&](auto&& run, bool menu) {
      CK(cudaMemset(dd, 0xFF, res.size() * 2));
      run();
      CK(cudaDeviceSynchronize());
      std::vector<uint16_t> d(n);
      CK(cudaMemcpy(d.data(), dd, d.size() * 2, cudaMemcpyDeviceToHost));
      double worst = 0;
      for (int i = 0; i < n; ++i) {
        const double v = dot[i] + (menu ? bits_bf16(bias[i]) : 0.0);
        const double ref = menu ? v / (1 + std::exp(-v)) + bits_bf16(res[i]) : v;
        const double err = std::fabs(bits_bf16(d[i]) - ref) / (mag[i] + 1.0);
        worst = std::isnan(err) ? 1e30 : std::max(worst, err);
      }
      return worst;
    };
    // The launches timed in turn: the read, the registry's shape fused, every variant bare.
    std::vector<std::pair<std::string, std::function<void()>>> runs;
    runs.push_back({"read of W", [&] { read_words<<<4 * sms, 512>>>(reinterpret_cast<const int4*>(dw), w.size() * 2 / 16, 0x2468ace1, sink); }});
    runs.push_back({"4x4x8 fused", [&] { kVariants[0].launch(fused); }});
    runs.push_back({"dealt bal 4x4x8 fused", [&] { kVariants[2].launch(fused); }});
    // The fused menu's parts alone, on the built kernel: the bias (a load a group's output), the residual (a load and an
    // add), SiLU (no load).
    tessera::gemm_sm80::Params only_bias = bare, only_res = bare, only_silu = bare;
    only_bias.ep.bias = db;
    only_bias.ep.bias_along = tessera::epilogue::kBiasAlongM;
    only_res.ep.residual = dr;
    only_res.ep.ldr = n;
    only_res.ep.r_row_major = false;
    only_silu.ep.act = tessera::Activation::silu;
    const size_t parts = runs.size();
    runs.push_back({"4x4x8 bias", [&] { kVariants[0].launch(only_bias); }});
    runs.push_back({"4x4x8 residual", [&] { kVariants[0].launch(only_res); }});
    runs.push_back({"4x4x8 silu", [&] { kVariants[0].launch(only_silu); }});
    for (const Launch& v : kVariants) runs.push_back({std::string(v.name) + " bare", [&, v] { v.launch(bare); }});
    std::vector<double> err(runs.size(), 0.0);
    for (size_t r = 1; r < runs.size(); ++r)
      if (r < parts || r >= parts + 3) err[r] = check(runs[r].second, r <= 2);  // (the parts alone: timed, not checked)
    const std::vector<double> med =
        probe::medians_rotated(runs, evict);
    const double bare_us = med[parts + 3];  // the registry's shape, bare
    std::printf("N x K = %d x %d\n  %-14s %8s %14s %14s %10s\n", n, k, "launch", "us", "read / this", "4x4x8 bare / this", "max err");
    for (size_t i = 0; i < runs.size(); ++i)
      std::printf("  %-14s %8.2f %14.3f %14.3f %10.2e\n", runs[i].first.c_str(), med[i], med[0] / med[i], bare_us / med[i], err[i]);
    cudaFree(dw);
    cudaFree(dx);
    cudaFree(db);
    cudaFree(dr);
    cudaFree(dd);
  }
  return 0;
}
