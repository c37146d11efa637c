// scripts/device/gemv_probe.cu -- the batch-1 GEMV kernel (kernel/gemm_sm80/gemv.hpp) alone, bf16: the bare product
// against bias + SiLU + residual (the decode menu) and against one read of the weights, and the bare product in other
// shapes of the kernel's template (rows a block, A's steps in flight, warps a block; an interleaved read, each step
// the block's threads x 16 contiguous bytes of a row, was measured no faster and removed: docs/PERF.md, fifty-second
// section) and in a persistent form that keeps
// each thread's loads running across groups of rows (gemv_stream_kernel, an experiment), each launch after an L2
// eviction, timed in turn (rounds rotated), medians; each variant's D checked against a float64 reference.  Built without the
// library, in seconds, so that the kernel can be measured where the whole build does not fit:
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
// The persistent form, an experiment (not in the library): a grid of at most as many blocks as the SMs hold, each looping
// over groups of kRows rows (g = blockIdx.x, + gridDim.x, ...; kContig: a contiguous run of groups, ceil(groups / grid)
// a block), its threads' cp.async ring running on across the groups, so
// that the next group's first steps are in flight while this group's sums are reduced and finished (the built kernel's
// blocks each start with an empty ring and end with a barrier and a reduction).  The sums in two buffers by the group's
// parity: one barrier a group.
template <int kRows, int kStages, int kWarps, bool kContig>
__global__ void __launch_bounds__(32 * kWarps) gemv_stream_kernel(const tessera::gemm_sm80::Params p) {
  using G = tessera::gemm_sm80::Gemv<__nv_bfloat16, 1, kRows, kStages, kWarps>;
  constexpr int kThreads = G::kThreads, kChunk = G::kChunk;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  uint4* ring = reinterpret_cast<uint4*>(smem_raw);                 // [kStages][kRows][kThreads]
  float* sums = reinterpret_cast<float*>(smem_raw + G::kRingBytes);  // [2][kWarps][kRows]
  const int t = static_cast<int>(threadIdx.x), warp = t / 32, lane = t % 32;
  const int groups = (p.m + kRows - 1) / kRows;
  const int b = static_cast<int>(blockIdx.x), nb = static_cast<int>(gridDim.x), per = (groups + nb - 1) / nb;
  // Group gi of this block's: its first row.
  auto first_row = [&](int gi) { return (kContig ? b * per + gi : b + gi * nb) * kRows; };
  const int mine = kContig ? max(0, min(per, groups - b * per)) : groups > b ? (groups - b + nb - 1) / nb : 0;
  const int chunks = (p.k + kChunk - 1) / kChunk;
  const int c0 = static_cast<int>(static_cast<int64_t>(warp) * chunks / kWarps);
  const int c1 = static_cast<int>(static_cast<int64_t>(warp + 1) * chunks / kWarps);
  const int steps = (c1 - c0 + 31) / 32;
  const int total = mine * steps;  // this thread's steps over all its groups
  const __nv_bfloat16* a = static_cast<const __nv_bfloat16*>(p.a);
  const __nv_bfloat16* x = static_cast<const __nv_bfloat16*>(p.b);
  // Step q (group q / steps, its step q % steps) into ring stage q % kStages; the issuing position kept incrementally.
  int iq = 0, ig = 0, is = 0;
  auto issue = [&]() {
    if (iq < total) {
      const int row0 = first_row(ig);
      const int c = c0 + lane + 32 * is;
      const int e = c * kChunk;
      const uint32_t bytes = c >= c1 ? 0u : e + kChunk <= p.k ? 16u : static_cast<uint32_t>(p.k - e) * 2u;
      uint4* slot = ring + (iq % kStages) * kRows * kThreads + t;
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        const __nv_bfloat16* row = a + static_cast<int64_t>(min(row0 + r, p.m - 1)) * p.lda;
        tessera::arch::cp_async_cg_16_zfill(slot + r * kThreads, bytes ? row + e : row, bytes);
      }
      if (++is == steps) {
        is = 0;
        ++ig;
      }
    }
    ++iq;
    tessera::arch::cp_async_commit();
  };
#pragma unroll
  for (int q = 0; q < kStages - 1; ++q) issue();
  int q = 0;  // the step being computed
  for (int gi = 0; gi < mine; ++gi) {
    const int row0 = first_row(gi);
    const int oi = row0 + t;
    const bool owner = t < kRows && oi < p.m;
    typename G::Inputs in;
    if (owner) in = G::fetch(p.ep, oi, 0);
    float acc[kRows][1];
#pragma unroll
    for (int r = 0; r < kRows; ++r) acc[r][0] = 0.f;
    for (int s = 0; s < steps; ++s, ++q) {
      issue();
      const int c = c0 + lane + 32 * s;
      const uint4 xv[1] = {c < c1 ? G::load_chunk(x, c, p.k) : make_uint4(0, 0, 0, 0)};
      tessera::arch::cp_async_wait<kStages - 1>();
      const uint4* slot = ring + (q % kStages) * kRows * kThreads + t;
      uint4 w[kRows];
#pragma unroll
      for (int r = 0; r < kRows; ++r) w[r] = slot[r * kThreads];
      G::multiply(acc, w, xv);
    }
    float v_mine = 0.f;
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      float v = acc[r][0];
#pragma unroll
      for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
      if (lane == r) v_mine = v;
    }
    float* buf = sums + (gi & 1) * kWarps * kRows;
    if (lane < kRows) buf[warp * kRows + lane] = v_mine;
    __syncthreads();
    if (owner) {
      float v = 0.f;
#pragma unroll
      for (int w = 0; w < kWarps; ++w) v += buf[w * kRows + t];
      G::finish(v, in, p.ep, oi, 0);
    }
  }
  tessera::arch::cp_async_wait<0>();
}

// kBalanced: the grid cut to ceil(groups / ceil(groups / slots)) blocks, so that every block has the same number of
// groups (the last one fewer at most); else one block a slot.  kOne: one group a block (the registry kernel's grid).
template <int kRows, int kStages, int kWarps, bool kContig, bool kBalanced, bool kOne = false>
struct Stream {
  using K = tessera::gemm_sm80::Gemv<__nv_bfloat16, 1, kRows, kStages, kWarps>;
  static constexpr int kSmem = K::kRingBytes + 2 * kWarps * kRows * 4;
  static int slots;  // the SMs x the blocks one holds (prepare)
  static void prepare() {
    cudaFuncSetAttribute(gemv_stream_kernel<kRows, kStages, kWarps, kContig>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
    int per = 0, sms = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, gemv_stream_kernel<kRows, kStages, kWarps, kContig>, K::kThreads, kSmem);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    slots = per * sms;
  }
  static void launch(const tessera::gemm_sm80::Params& p) {
    const int groups = (p.m + kRows - 1) / kRows, per = (groups + slots - 1) / slots;
    const int grid = kOne ? groups : kContig || kBalanced ? (groups + per - 1) / per : slots;
    gemv_stream_kernel<kRows, kStages, kWarps, kContig><<<grid, K::kThreads, kSmem>>>(p);
  }
};
template <int kRows, int kStages, int kWarps, bool kContig, bool kBalanced, bool kOne>
int Stream<kRows, kStages, kWarps, kContig, kBalanced, kOne>::slots = 0;

struct Launch {
  const char* name;
  void (*prepare)();
  void (*launch)(const tessera::gemm_sm80::Params&);
};
#define TESSERA_VARIANT(r, s, w) Launch{#r "x" #s "x" #w, &Variant<r, s, w>::prepare, &Variant<r, s, w>::launch}
// rows x stages x warps: the registry's (4 x 4 x 8) first.
// The persistent form: "stream" one block a slot, groups dealt round; "bal" the grid balanced; "contig" balanced with
// contiguous runs of groups.
#define TESSERA_STREAM(r, s, w, c, bl, tag) \
  Launch{"stream" tag " " #r "x" #s "x" #w, &Stream<r, s, w, c, bl>::prepare, &Stream<r, s, w, c, bl>::launch}
const Launch kVariants[] = {TESSERA_VARIANT(4, 4, 8),
                            TESSERA_STREAM(4, 4, 8, false, false, ""),
                            TESSERA_STREAM(4, 4, 8, false, true, " bal"),
                            TESSERA_STREAM(4, 4, 8, true, true, " contig"),
                            TESSERA_STREAM(4, 6, 8, false, true, " bal"),
                            TESSERA_STREAM(4, 6, 8, true, true, " contig"),
                            TESSERA_STREAM(2, 8, 8, false, true, " bal"),
                            TESSERA_STREAM(8, 3, 8, false, true, " bal"),
                            Launch{"stream one 4x4x8", &Stream<4, 4, 8, true, true, true>::prepare,
                                   &Stream<4, 4, 8, true, true, true>::launch}};




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
    runs.push_back({"stream bal 4x4x8 fused", [&] { kVariants[2].launch(fused); }});
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
