// tools/bench_gemm_fp8.cpp -- `tessera bench gemm --dtype e4m3|e5m2|s8 [--fp8-accum promoted|fast]`: Tessera's 8-bit
// GEMMs (FP8, INT8) against cuBLASLt's and against Tessera's own bf16 GEMM, shape by shape (bench_gemm_shared.hpp says
// what it records).
//
// For each shape, D = (scale_a * X) @ (scale_b * W)^T: X (M x K) row-major and W (N x K) row-major (B = W^T column-major),
// both FP8 of one type, K-major as FP8 needs; scale_a = 0.5, scale_b = 0.25 in device memory (per-tensor); D bf16
// row-major, fp32 accumulation.
//   Tessera FP8     tessera::gemm with the FP8 operands and scales (GemmArgs::scale_a / scale_b / fp8_accum)
//   cuBLASLt FP8    cublasLtMatmul, CUBLAS_COMPUTE_32F, scale type CUDA_R_32F, A/B_SCALE_POINTER on the same scales,
//                   FAST_ACCUM = (--fp8-accum fast); the heuristic's first algorithm with a 32 MiB workspace.  "n/a"
//                   (no record) where it has no kernel: e5m2 x e5m2, or no algorithm for the shape
//   Tessera bf16    tessera::gemm, bare, on bf16 copies of the scaled inputs (the planner's plan): what FP8 buys
// --fp8-scale channel | block: the same scale values (0.5 for X, 0.25 for W) as arrays in the mode's layout -- channel:
// one per row of X (M) and of W (N), cuBLASLt OUTER_VEC_32F; block: X's 1 x 128 blocks (ceil(K/128) x M, M contiguous)
// and W's 128 x 128 blocks (ceil(K/128) x ceil(N/128)), cuBLASLt VEC128_32F on its B (X) and BLK128x128_32F on its A
// (W).  Uniform values keep the bf16 copies and the checks as they are, and neither library's time depends on them;
// gemm_fp8_test's ChannelScales / BlockScales check Tessera's modes against float64 with scales that vary.
// --dtype s8: the operands are integers uniform in [-127, 127] (never zero), per-tensor or channel scales (block: refused
// by the command); Tessera accumulates in s32 and dequantises in its epilogue to bf16 D.  The reference is cuBLASLt's
// INT8 GEMM, s8 x s8 -> s32 with CUBLAS_COMPUTE_32I (TN, alpha 1, beta 0): cuBLASLt has no INT8 GEMM with a 16-bit
// or dequantised output, so it writes 4 bytes per element of D where Tessera writes 2 (and applies no scales); its
// s32 result times the scales is what the checks compare.  Records "int8" / "int8_channel" and "int8_over_bf16".
// cuBLASLt's other INT8 output, s8 D with an fp32 alpha (CUBLAS_COMPUTE_32I, scale type CUDA_R_32F), writes a byte an
// element: timed in the same round as a second reference, alpha chosen to bring D within s8's range (about 100 /
// (6 x the sums' standard deviation)) and checked against the bf16 reference to within its own rounding (records
// "int8_vs_s8_out").
// With s8 the round also times Tessera's DP4A GEMM (GemmMath::dp4a: CUDA cores, the planner's dp4a plan) on the same
// operands and scales, checked as the tensor-core one: records "dp4a" (against cuBLASLt's INT8 GEMM) and
// "dp4a_over_int8" (against Tessera's tensor-core INT8), a table of its own.
// Inputs: a pool of values uniform in [-1, 1], rounded to the FP8 type (never zero), with bf16 copies of scale * value;
// bf16 holds every e4m3 / e5m2 value (and every integer up to 256) times a power of two exactly, so the bf16 GEMM
// multiplies the very same numbers.
// Checks, before timing and again on what the last timed runs left (max |diff| / max |ref| over sampled rows):
//   Tessera bf16 vs cuBLAS bf16 (cublasGemmEx on the copies)      <= 2e-2, as the bf16 bench
//   cuBLASLt FP8 vs cuBLAS bf16                                    beyond tol: cuBLASLt's figure is not used
//   Tessera FP8 vs cuBLAS bf16, and vs cuBLASLt FP8 where usable  beyond tol: the row is marked WRONG, no record
// with tol = 2e-2 (promoted: both accumulate in fp32, the only difference is D's rounding), 5e-2 with fast
// accumulation (the tensor cores' FP8 accumulator keeps fewer bits than fp32 over all of K).  A wrong result is not
// timed and makes the suite's status 1 (the other shapes' records are still written); a GemmStatus error skips the
// shape with its message.
#include <cuda_fp8.h>  // __nv_fp8_e4m3, __nv_fp8_e5m2: the host rounding to FP8

#include <algorithm>   // std::max
#include <cmath>       // std::lrint, std::isfinite, std::fabs
#include <cstdint>     // uint8_t, uint16_t, int32_t
#include <cstring>     // std::memcpy
#include <cstdio>      // std::fprintf, std::printf
#include <functional>  // std::function
#include <random>      // std::mt19937, std::uniform_real_distribution
#include <string>      // std::string
#include <vector>      // std::vector

#include "bench_gemm_shared.hpp"  // Fp8Bench, Shape, Elem16, fill_random, rel_diff, tflops, check_cublas

namespace tessera::bench::gemm_bench {

namespace {

// A device allocation freed on every way out of a shape (a skipped shape, an exception).
struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(size_t bytes) {
    if (bytes) TESSERA_BENCH_CUDA(cudaMalloc(&p, bytes));
  }
  ~DeviceBuffer() {
    if (p) cudaFree(p);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  template <class T>
  T* as() const { return static_cast<T*>(p); }
};

// One value rounded to the FP8 type `dt` (round to nearest, saturating): its bits and its value.
struct Fp8Value {
  uint8_t bits;
  float value;
};
Fp8Value to_fp8(Dtype dt, float x) {
  if (dt == Dtype::s8) {  // x in [-1, 1] to an integer in [-127, 127]
    const int v = static_cast<int>(std::lrint(x * 127.f));
    return {static_cast<uint8_t>(static_cast<int8_t>(v)), static_cast<float>(v)};
  }
  if (dt == Dtype::e5m2) {
    const __nv_fp8_e5m2 q(x);
    return {static_cast<uint8_t>(q.__x), static_cast<float>(q)};
  }
  const __nv_fp8_e4m3 q(x);
  return {static_cast<uint8_t>(q.__x), static_cast<float>(q)};
}

cudaDataType_t cuda_fp8_type(Dtype dt) { return dt == Dtype::e5m2 ? CUDA_R_8F_E5M2 : CUDA_R_8F_E4M3; }

// cuBLASLt's scale modes for Tessera's GemmScale (its A is W, its B is X): nothing for per-tensor scales.
cublasStatus_t lt_scale_modes(GemmScale s, cublasLtMatmulDesc_t desc) {
  if (s == GemmScale::tensor) return CUBLAS_STATUS_SUCCESS;
  const int32_t mode_a = s == GemmScale::block ? CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F : CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F;
  const int32_t mode_b = s == GemmScale::block ? CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F : CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F;
  const cublasStatus_t st = cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &mode_a, sizeof mode_a);
  return st != CUBLAS_STATUS_SUCCESS ? st : cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mode_b, sizeof mode_b);
}

// The scale arrays of one shape in `g.scale`'s layout, every element `v` (tensor: one float).
std::vector<float> scale_array(GemmScale s, bool a, int64_t m, int64_t n, int64_t k, float v) {
  const int64_t kb = (k + kGemmScaleBlock - 1) / kGemmScaleBlock, nb = (n + kGemmScaleBlock - 1) / kGemmScaleBlock;
  const int64_t count = s == GemmScale::tensor ? 1 : s == GemmScale::channel ? (a ? m : n) : (a ? kb * m : kb * nb);
  return std::vector<float>(static_cast<size_t>(count), v);
}

const char* scale_case(Dtype dt, GemmScale s) {
  if (dt == Dtype::s8) return s == GemmScale::channel ? "int8_channel" : "int8";
  return s == GemmScale::block ? "fp8_block" : s == GemmScale::channel ? "fp8_channel" : "fp8_tensor";
}
const char* scale_words(GemmScale s) {
  return s == GemmScale::block ? "block scales (A 1 x 128, B 128 x 128)" : s == GemmScale::channel ? "channel scales (per row of A, column of B)"
                                                                                                : "per-tensor scales";
}

// A D as the checks read it: an m x n row-major matrix of bf16 (Tessera's D, the bf16 reference), or of integers
// times a factor (cuBLASLt's INT8 results: s32, or s8 with its alpha undone), over rel_diff's sample of rows.
struct DView {
  const void* p;
  Dtype t;             // bf16, s32 or s8
  double scale = 1.0;  // (integers only)
};
std::vector<double> sampled_rows(const DView& d, int64_t m, int64_t n) {
  const int64_t step = std::max<int64_t>(1, m / 64), rows = (m + step - 1) / step;
  const size_t w = static_cast<size_t>(dtype_bytes(d.t)), pitch = static_cast<size_t>(n) * w;
  std::vector<unsigned char> raw(static_cast<size_t>(rows) * pitch);
  TESSERA_BENCH_CUDA(cudaMemcpy2D(raw.data(), pitch, d.p, pitch * step, pitch, rows, cudaMemcpyDeviceToHost));
  const Elem16 bf16{Dtype::bf16};
  std::vector<double> v(static_cast<size_t>(rows * n));
  for (size_t i = 0; i < v.size(); ++i) {
    if (d.t == Dtype::s32) {
      int32_t x;
      std::memcpy(&x, raw.data() + 4 * i, 4);
      v[i] = d.scale * x;
    } else if (d.t == Dtype::s8) {
      v[i] = d.scale * static_cast<int8_t>(raw[i]);
    } else {
      uint16_t b;
      std::memcpy(&b, raw.data() + 2 * i, 2);
      v[i] = bf16.to_double(b);
    }
  }
  return v;
}
// max |x - y| / max |y| over that sample (rel_diff for any pair of views).
double rel_diff_any(const DView& x, const DView& y, int64_t m, int64_t n) {
  const std::vector<double> hx = sampled_rows(x, m, n), hy = sampled_rows(y, m, n);
  double num = 0, den = 0;
  for (size_t i = 0; i < hx.size(); ++i) {
    if (!std::isfinite(hx[i])) return INFINITY;
    num = std::max(num, std::fabs(hx[i] - hy[i]));
    den = std::max(den, std::fabs(hy[i]));
  }
  return den > 0 ? num / den : num;
}

// cuBLASLt's INT8 GEMM in lt_fp8_setup's TN form (below), s8 x s8 with CUBLAS_COMPUTE_32I: D s32 with int32 alpha and
// beta (d = CUDA_R_32I), or D s8 with fp32 ones (CUDA_R_8I).  No scales.
void lt_int8_setup(const Fp8Bench& g, LtMatmul& lt, int64_t m, int64_t n, int64_t k, cudaDataType_t d) {
  auto fail = [&](cublasStatus_t s, const char* what) {
    if (s == CUBLAS_STATUS_SUCCESS) return false;
    lt.why = std::string(what) + ": cuBLAS status " + std::to_string(static_cast<int>(s));
    return true;
  };
  const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  const cudaDataType_t scale_type = d == CUDA_R_32I ? CUDA_R_32I : CUDA_R_32F;
  if (fail(cublasLtMatmulDescCreate(&lt.desc, CUBLAS_COMPUTE_32I, scale_type), "cublasLtMatmulDescCreate") ||
      fail(cublasLtMatmulDescSetAttribute(lt.desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta), "TRANSA") ||
      fail(cublasLtMatmulDescSetAttribute(lt.desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb), "TRANSB") ||
      fail(cublasLtMatrixLayoutCreate(&lt.la, CUDA_R_8I, static_cast<uint64_t>(k), static_cast<uint64_t>(n), k), "layout of W") ||
      fail(cublasLtMatrixLayoutCreate(&lt.lb, CUDA_R_8I, static_cast<uint64_t>(k), static_cast<uint64_t>(m), k), "layout of X") ||
      fail(cublasLtMatrixLayoutCreate(&lt.ld, d, static_cast<uint64_t>(n), static_cast<uint64_t>(m), n), "layout of D"))
    return;
  lt_pick_algo(g.lt, lt, g.lt_ws_bytes);
}

// cuBLASLt's FP8 GEMM for one shape.  cuBLASLt is column-major and its FP8 kernels take only the "TN" form (A
// transposed, B not): it computes D^T (N x M, ld N; = row-major D) = op(A) * B with
//   cuBLASLt A = the K-major weight buffer W, layout K x N (ld K), TRANSA = T  (op(A) = W, N x K)
//   cuBLASLt B = the K-major activation buffer X, layout K x M (ld K), TRANSB = N  (= X^T)
// so cuBLASLt's A scale is W's (scale_b) and its B scale is X's (scale_a), each 16-byte aligned (see run_fp8_bench).
// C is D's layout and type (beta = 0).
// (lt.why: why cuBLASLt does not run this shape, "n/a" in the table.)
void lt_fp8_setup(const Fp8Bench& g, LtMatmul& lt, int64_t m, int64_t n, int64_t k, const float* scale_a, const float* scale_b) {
  auto fail = [&](cublasStatus_t s, const char* what) {
    if (s == CUBLAS_STATUS_SUCCESS) return false;
    lt.why = std::string(what) + ": cuBLAS status " + std::to_string(static_cast<int>(s));
    return true;
  };
  const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  if (g.dt == Dtype::s8) {  // s8 x s8 -> s32, int32 alpha / beta, no scales (this file's header)
    lt_int8_setup(g, lt, m, n, k, CUDA_R_32I);
    return;
  }
  if (g.scale == GemmScale::block && g.dt == Dtype::e5m2) {
    lt.why = "cuBLASLt's block-scaled FP8 takes e4m3";
    return;
  }
  if (g.dt == Dtype::e5m2) {  // cuBLASLt's FP8 type table: e4m3 x e4m3, e4m3 x e5m2, e5m2 x e4m3; not e5m2 x e5m2
    lt.why = "cuBLASLt has no e5m2 x e5m2 FP8 GEMM";
    return;
  }
  if (fail(cublasLtMatmulDescCreate(&lt.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate")) return;
  const int8_t fast = g.accum == GemmFp8Accum::fast ? 1 : 0;  // CUBLASLT_MATMUL_DESC_FAST_ACCUM is an int8_t
  const void* a_scale = scale_b;  // cuBLASLt's A is W
  const void* b_scale = scale_a;  // cuBLASLt's B is X
  const cudaDataType_t t8 = cuda_fp8_type(g.dt);
  if (fail(cublasLtMatmulDescSetAttribute(lt.desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta), "TRANSA") ||
      fail(cublasLtMatmulDescSetAttribute(lt.desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb), "TRANSB") ||
      fail(cublasLtMatmulDescSetAttribute(lt.desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &a_scale, sizeof a_scale), "A_SCALE_POINTER") ||
      fail(cublasLtMatmulDescSetAttribute(lt.desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &b_scale, sizeof b_scale), "B_SCALE_POINTER") ||
      fail(cublasLtMatmulDescSetAttribute(lt.desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast), "FAST_ACCUM") ||
      fail(lt_scale_modes(g.scale, lt.desc), "A/B_SCALE_MODE") ||
      fail(cublasLtMatrixLayoutCreate(&lt.la, t8, static_cast<uint64_t>(k), static_cast<uint64_t>(n), k), "layout of W") ||
      fail(cublasLtMatrixLayoutCreate(&lt.lb, t8, static_cast<uint64_t>(k), static_cast<uint64_t>(m), k), "layout of X") ||
      fail(cublasLtMatrixLayoutCreate(&lt.ld, CUDA_R_16BF, static_cast<uint64_t>(n), static_cast<uint64_t>(m), n), "layout of D"))
    return;
  lt_pick_algo(g.lt, lt, g.lt_ws_bytes);
}


}  // namespace

int run_fp8_bench(const BenchOptions& o, const Fp8Bench& g, Report& report) {
  const char* dt_name = dtype_name(g.dt);
  const bool s8 = g.dt == Dtype::s8;
  const char* kind = s8 ? "INT8" : "FP8";
  const bool fast = g.accum == GemmFp8Accum::fast;
  const char* accum_name = s8 ? "s32 (exact)" : fast ? "fast" : "promoted";
  report.set_dtype(dt_name);
  const std::string lt_name = s8 ? std::string("cublasLt INT8 s8 x s8 -> s32 (COMPUTE_32I, no scales)")
                                 : std::string("cublasLt FP8 ") + dt_name + " " + scale_words(g.scale) + ", fast accum " + (fast ? "on" : "off");
  const std::string rec_case = scale_case(g.dt, g.scale);
  const std::string rec_over = g.scale == GemmScale::tensor ? std::string(s8 ? "int8_over_bf16" : "fp8_over_bf16") : rec_case + "_over_bf16";
  const double tol_ref = 2e-2;              // bf16 (Tessera vs cuBLAS), as the bf16 bench
  const double tol_fp8 = fast ? 5e-2 : 2e-2;  // the FP8 GEMMs vs the bf16 reference and vs each other
  const Elem16 bf16{Dtype::bf16};           // D's type, for rel_diff
  const float scale_host[2] = {0.5f, 0.25f};  // scale_a, scale_b (powers of two: the bf16 copies stay exact)

  // The pools: FP8 bits, and bf16 copies of scale_a * value (A) and scale_b * value (B), index for index.
  const size_t pool_n = size_t(1) << 24;
  std::vector<uint8_t> pool8(pool_n);
  std::vector<uint16_t> pool_a(pool_n), pool_b(pool_n);
  {
    std::mt19937 rng(12345);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (size_t i = 0; i < pool_n; ++i) {
      Fp8Value q{};
      do q = to_fp8(g.dt, u(rng));
      while (q.value == 0.f);  // (values near zero round to +-0 in FP8)
      pool8[i] = q.bits;
      pool_a[i] = bf16.from_float(scale_host[0] * q.value);
      pool_b[i] = bf16.from_float(scale_host[1] * q.value);
    }
  }
  // Each scale 16-byte aligned: cuBLASLt 13.1's FP8 matmul refuses (CUBLAS_STATUS_NOT_SUPPORTED, after its heuristic
  // has offered an algorithm) a scale pointer aligned to 4 or 8 bytes only; Tessera needs 4.
  const float scale_dev[8] = {scale_host[0], 0, 0, 0, scale_host[1], 0, 0, 0};
  DeviceBuffer scales(sizeof scale_dev);
  TESSERA_BENCH_CUDA(cudaMemcpy(scales.p, scale_dev, sizeof scale_dev, cudaMemcpyHostToDevice));
  const float* scale_a = scales.as<float>();
  const float* scale_b = scales.as<float>() + 4;

  std::vector<std::vector<std::string>> table, dp_rows;  // (dp_rows: s8's DP4A GEMM)
  int done = 0, wrong = 0, skipped = 0;
  for (const Shape& s : g.shapes) {
    const std::string size = "M=" + std::to_string(s.m) + ",N=" + std::to_string(s.n) + ",K=" + std::to_string(s.k);
    bench::progress(o, "gemm", done++, static_cast<int>(g.shapes.size()), size);
    const int64_t m = s.m, n = s.n, k = s.k;
    const size_t mk = static_cast<size_t>(m * k), nk = static_cast<size_t>(n * k), mn = static_cast<size_t>(m * n);
    DeviceBuffer A8(mk), B8(nk), A16(mk * 2), B16(nk * 2);
    DeviceBuffer D8(mn * 2), Dlt(mn * (s8 ? 4 : 2)), D16(mn * 2), Dref(mn * 2);  // Tessera 8-bit, cuBLASLt (s32 for s8), Tessera bf16, cuBLAS bf16
    DeviceBuffer Ddp(s8 ? mn * 2 : 0);  // Tessera DP4A (s8)
    DeviceBuffer Dlt8(s8 ? mn : 0);     // cuBLASLt INT8 with s8 D (s8)
    fill_random(A8.as<uint8_t>(), mk, pool8, 1);
    fill_random(B8.as<uint8_t>(), nk, pool8, 2);
    fill_random(A16.as<uint16_t>(), mk, pool_a, 1);  // the same elements as A8, times scale_a
    fill_random(B16.as<uint16_t>(), nk, pool_b, 2);

    GemmArgs f8;
    f8.m = m; f8.n = n; f8.k = k;
    f8.a = GemmMatrix{A8.p, g.dt, MatrixOrder::row_major, k};
    f8.b = GemmMatrix{B8.p, g.dt, MatrixOrder::col_major, k};
    f8.d = GemmOutput{D8.p, Dtype::bf16, MatrixOrder::row_major, n};
    // Channel and block scales: arrays of the same values in the mode's layout (this file's header).
    const float* sc_a = scale_a;
    const float* sc_b = scale_b;
    const std::vector<float> ha = scale_array(g.scale, true, m, n, k, scale_host[0]);
    const std::vector<float> hb = scale_array(g.scale, false, m, n, k, scale_host[1]);
    DeviceBuffer arr_a(g.scale == GemmScale::tensor ? 0 : ha.size() * 4);
    DeviceBuffer arr_b(g.scale == GemmScale::tensor ? 0 : hb.size() * 4);
    if (g.scale != GemmScale::tensor) {
      TESSERA_BENCH_CUDA(cudaMemcpy(arr_a.p, ha.data(), ha.size() * 4, cudaMemcpyHostToDevice));
      TESSERA_BENCH_CUDA(cudaMemcpy(arr_b.p, hb.data(), hb.size() * 4, cudaMemcpyHostToDevice));
      sc_a = arr_a.as<float>();
      sc_b = arr_b.as<float>();
    }
    f8.scale_a = sc_a;
    f8.scale_b = sc_b;
    f8.scale_a_mode = f8.scale_b_mode = g.scale;
    f8.fp8_accum = g.accum;
    GemmArgs dp = f8;  // (s8: the same GEMM on CUDA cores)
    dp.math = GemmMath::dp4a;
    dp.d = GemmOutput{Ddp.p, Dtype::bf16, MatrixOrder::row_major, n};
    GemmArgs b16;
    b16.m = m; b16.n = n; b16.k = k;
    b16.a = GemmMatrix{A16.p, Dtype::bf16, MatrixOrder::row_major, k};
    b16.b = GemmMatrix{B16.p, Dtype::bf16, MatrixOrder::col_major, k};
    b16.d = GemmOutput{D16.p, Dtype::bf16, MatrixOrder::row_major, n};
    // Workspace for split-K / stream-K: the size the planner asks for, zero-filled once (every call leaves the counters
    // at zero), shared by both Tessera GEMMs as the bf16 bench shares it between its variants.
    const size_t ws_bytes = std::max({gemm_workspace_size(f8), gemm_workspace_size(b16), s8 ? gemm_workspace_size(dp) : size_t(0)});
    DeviceBuffer ws(ws_bytes);
    if (ws_bytes) TESSERA_BENCH_CUDA(cudaMemset(ws.p, 0, ws_bytes));
    for (GemmArgs* a : {&f8, &b16, &dp}) {
      a->workspace = ws.p;
      a->workspace_bytes = ws_bytes;
      a->workspace_zeroed = true;
    }
    auto skip = [&](const char* what, const GemmStatus& st) {
      std::fprintf(stderr, "bench gemm --dtype %s: %s: %s: %s; shape skipped\n", dt_name, size.c_str(), what, st.message.c_str());
      table.push_back({size, std::string("skipped (") + what + ")", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-"});
      ++skipped;
    };
    GemmPlan plan8, plan16;
    if (const GemmStatus st = gemm_plan(f8, &plan8); !st.ok()) { skip("tessera FP8", st); continue; }
    if (const GemmStatus st = gemm_plan(b16, &plan16); !st.ok()) { skip("tessera bf16", st); continue; }
    GemmPlan plan_dp;
    bool dp_ok = s8;  // (timed and recorded where its plan and its check pass)
    if (s8) {
      if (const GemmStatus st = gemm_plan(dp, &plan_dp); !st.ok()) {
        std::fprintf(stderr, "bench gemm --dtype s8: %s: tessera DP4A: %s; not timed\n", size.c_str(), st.message.c_str());
        dp_ok = false;
      }
    }
    LtMatmul lt;
    lt_fp8_setup(g, lt, m, n, k, sc_a, sc_b);
    LtMatmul lt8;  // (s8: cuBLASLt's INT8 GEMM with s8 D)
    if (s8 && g.scale == GemmScale::tensor) lt_int8_setup(g, lt8, m, n, k, CUDA_R_8I);
    // Its alpha: D's sums have a standard deviation of about sqrt(K) x 5,376 (products of integers uniform in
    // [-127, 127]); about 100 / 6 of them fits s8 with rare saturation.
    const float alpha8 = static_cast<float>(100.0 / (6.0 * 5376.0 * std::sqrt(static_cast<double>(k))));
    const float beta8 = 0.f;

    const float one = 1.f, zero = 0.f;
    const int32_t ione = 1, izero = 0;  // cuBLASLt INT8's alpha and beta
    const void* lt_alpha = s8 ? static_cast<const void*>(&ione) : &one;
    const void* lt_beta = s8 ? static_cast<const void*>(&izero) : &zero;
    const double lt_scale = s8 ? double(scale_host[0]) * scale_host[1] : 1.0;  // what turns cuBLASLt's s32 into D's values
    auto t_f8 = [&](cudaStream_t st) { check_gemm(gemm(f8, st)); };
    auto t_b16 = [&](cudaStream_t st) { check_gemm(gemm(b16, st)); };
    auto t_dp = [&](cudaStream_t st) { check_gemm(gemm(dp, st)); };
    auto lt_s8 = [&](cudaStream_t st) {
      check_cublas(cublasLtMatmul(g.lt, lt8.desc, &alpha8, B8.p, lt8.la, A8.p, lt8.lb, &beta8, Dlt8.p, lt8.ld, Dlt8.p, lt8.ld, &lt8.algo,
                                  g.lt_ws, g.lt_ws_bytes, st),
                   "cublasLtMatmul (s8 D)");
    };
    auto lt_f8 = [&](cudaStream_t st) {
      check_cublas(cublasLtMatmul(g.lt, lt.desc, lt_alpha, B8.p, lt.la, A8.p, lt.lb, lt_beta, Dlt.p, lt.ld, Dlt.p, lt.ld, &lt.algo, g.lt_ws,
                                  g.lt_ws_bytes, st),
                   "cublasLtMatmul");
    };

    // ---- verify before timing (outputs poisoned first: 0xFFFF is a bf16 NaN, which rel_diff reports as inf) ----
    // (cuBLASLt's s32 D: 0xFFFFFFFF is -1, which the check against the bf16 reference catches where it is left)
    for (const DeviceBuffer* d : {&D8, &Dlt, &D16, &Dref}) TESSERA_BENCH_CUDA(cudaMemsetAsync(d->p, 0xFF, d == &Dlt ? mn * (s8 ? 4 : 2) : mn * 2, g.stream));
    if (dp_ok) TESSERA_BENCH_CUDA(cudaMemsetAsync(Ddp.p, 0xFF, mn * 2, g.stream));
    if (lt8.ok) TESSERA_BENCH_CUDA(cudaMemsetAsync(Dlt8.p, 0x7F, mn, g.stream));
    if (const GemmStatus st = gemm(f8, g.stream); !st.ok()) { skip("tessera FP8", st); continue; }
    if (const GemmStatus st = gemm(b16, g.stream); !st.ok()) { skip("tessera bf16", st); continue; }
    if (dp_ok) {
      if (const GemmStatus st = gemm(dp, g.stream); !st.ok()) {
        std::fprintf(stderr, "bench gemm --dtype s8: %s: tessera DP4A: %s; not timed\n", size.c_str(), st.message.c_str());
        dp_ok = false;
      }
    }
    check_cublas(cublasGemmEx(g.cub, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(m), static_cast<int>(k), &one,
                              B16.p, CUDA_R_16BF, static_cast<int>(k), A16.p, CUDA_R_16BF, static_cast<int>(k), &zero, Dref.p,
                              CUDA_R_16BF, static_cast<int>(n), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx");
    if (lt.ok) {
      const cublasStatus_t st = cublasLtMatmul(g.lt, lt.desc, lt_alpha, B8.p, lt.la, A8.p, lt.lb, lt_beta, Dlt.p, lt.ld, Dlt.p, lt.ld, &lt.algo,
                                               g.lt_ws, g.lt_ws_bytes, g.stream);
      if (st != CUBLAS_STATUS_SUCCESS) {
        lt.ok = false;
        lt.why = "cublasLtMatmul: cuBLAS status " + std::to_string(static_cast<int>(st));
      }
    }
    if (lt8.ok) {
      const cublasStatus_t st = cublasLtMatmul(g.lt, lt8.desc, &alpha8, B8.p, lt8.la, A8.p, lt8.lb, &beta8, Dlt8.p, lt8.ld, Dlt8.p, lt8.ld,
                                               &lt8.algo, g.lt_ws, g.lt_ws_bytes, g.stream);
      if (st != CUBLAS_STATUS_SUCCESS) {
        lt8.ok = false;
        lt8.why = "cublasLtMatmul: cuBLAS status " + std::to_string(static_cast<int>(st));
      }
    }
    TESSERA_BENCH_CUDA(cudaStreamSynchronize(g.stream));
    const double err_b16 = rel_diff(bf16, D16.as<uint16_t>(), Dref.as<uint16_t>(), m, n);
    // cuBLASLt's s8 D: within its rounding to integers (0.5 of about 100 at the largest) and rare saturation, 2e-2
    const double err_lt8 = lt8.ok ? rel_diff_any({Dlt8.p, Dtype::s8, lt_scale / alpha8}, {Dref.p, Dtype::bf16}, m, n) : 0;
    if (lt8.ok && !(err_lt8 <= 2e-2)) {
      std::fprintf(stderr, "bench gemm --dtype s8: %s: cuBLASLt INT8 with s8 D differs from cuBLAS bf16 (%.3g); not timed\n",
                   size.c_str(), err_lt8);
      lt8.ok = false;
    }
    if (s8 && g.scale == GemmScale::tensor && !lt8.ok)
      std::fprintf(stderr, "bench gemm --dtype s8: %s: cuBLASLt INT8 with s8 D n/a (%s)\n", size.c_str(), lt8.why.c_str());
    const double err_dp = dp_ok ? rel_diff(bf16, Ddp.as<uint16_t>(), Dref.as<uint16_t>(), m, n) : 0;
    if (dp_ok && !(err_dp <= tol_fp8)) {
      std::fprintf(stderr, "bench gemm --dtype s8: %s: WARNING: Tessera DP4A (%s) differs from cuBLAS bf16 (%.3g; tolerance %.g); "
                           "not timed, not recorded\n", size.c_str(), plan_dp.str().c_str(), err_dp, tol_fp8);
      dp_rows.push_back({size, plan_head(plan_dp), "WRONG", "-", "-", "-", bench::fmt(err_dp, 4)});
      dp_ok = false;
      ++wrong;
    }
    const double err_f8 = rel_diff(bf16, D8.as<uint16_t>(), Dref.as<uint16_t>(), m, n);
    const DView lt_view{Dlt.p, s8 ? Dtype::s32 : Dtype::bf16, lt_scale};  // cuBLASLt's D as the checks read it
    const double err_lt_ref = lt.ok ? rel_diff_any(lt_view, {Dref.p, Dtype::bf16}, m, n) : 0;
    if (lt.ok && !(err_lt_ref <= tol_fp8)) {  // then it is no yardstick for Tessera either
      std::fprintf(stderr, "bench gemm --dtype %s: %s: cuBLASLt %s differs from cuBLAS bf16 on the same values (%.3g; tolerance %.g); "
                           "its figure is not reported\n", dt_name, size.c_str(), kind, err_lt_ref, tol_fp8);
      lt.ok = false;
      lt.why = std::string("cuBLASLt ") + kind + " differs from the bf16 reference";
    }
    const double err_f8_lt = lt.ok ? rel_diff_any({D8.p, Dtype::bf16}, lt_view, m, n) : 0;
    if (!lt.ok) std::fprintf(stderr, "bench gemm --dtype %s: %s: cuBLASLt n/a (%s)\n", dt_name, size.c_str(), lt.why.c_str());
    const std::string plan_cell = plan_head(plan8);
    const std::string err_cell = (lt.ok ? bench::fmt(err_f8_lt, 4) : std::string("n/a")) + " / " + bench::fmt(err_f8, 4);
    if (!(err_f8 <= tol_fp8) || !(err_f8_lt <= tol_fp8)) {
      std::fprintf(stderr, "bench gemm --dtype %s: %s: WARNING: Tessera %s (%s) differs from cuBLASLt %s (%s) / cuBLAS bf16 (%.3g) "
                           "beyond the tolerance %.g; not timed, not recorded\n", dt_name, size.c_str(), kind, plan8.str().c_str(), kind,
                   lt.ok ? bench::fmt(err_f8_lt, 4).c_str() : "n/a", err_f8, tol_fp8);
      table.push_back({size, plan_cell, "WRONG", "-", "-", "-", "-", "-", "-", "-", "-", err_cell + " (WRONG)"});
      ++wrong;
      continue;
    }
    const bool b16_ok = err_b16 <= tol_ref;
    if (!b16_ok)
      std::fprintf(stderr, "bench gemm --dtype %s: %s: WARNING: Tessera bf16 (%s) differs from cuBLAS bf16 (%.3g; tolerance %.g); "
                           "%s not recorded\n", dt_name, size.c_str(), plan16.str().c_str(), err_b16, tol_ref, rec_over.c_str());

    // ---- time: Tessera FP8, cuBLASLt FP8, Tessera bf16 in one round-robin, the L2 evicted before each run ----
    std::vector<std::function<void(cudaStream_t)>> all = {t_f8, t_b16};
    if (lt.ok) all.push_back(lt_f8);
    const size_t i_lt8 = all.size();
    if (lt8.ok) all.push_back(lt_s8);
    if (dp_ok) all.push_back(t_dp);
    const std::vector<double> ms = bench::time_medians_interleaved_ms(all, g.stream, g.warmup, g.repeats, g.flush);
    // What the last timed runs left must still be right (the reused workspace, the scales read on the device).
    const double err_f8_after = rel_diff(bf16, D8.as<uint16_t>(), Dref.as<uint16_t>(), m, n);
    const double err_b16_after = rel_diff(bf16, D16.as<uint16_t>(), Dref.as<uint16_t>(), m, n);
    if (!(err_f8_after <= tol_fp8)) {
      std::fprintf(stderr, "bench gemm --dtype %s: %s: WARNING: Tessera %s (%s) differs from cuBLAS bf16 after the timed runs "
                           "(%.3g; tolerance %.g); not recorded\n", dt_name, size.c_str(), kind, plan8.str().c_str(), err_f8_after, tol_fp8);
      table.push_back({size, plan_cell, "WRONG", "-", "-", "-", "-", "-", "-", "-", "-", err_cell + " (WRONG after timing)"});
      ++wrong;
      continue;
    }
    const bool b16_recorded = b16_ok && err_b16_after <= tol_ref;
    if (b16_ok && !b16_recorded)
      std::fprintf(stderr, "bench gemm --dtype %s: %s: WARNING: Tessera bf16 differs from cuBLAS bf16 after the timed runs (%.3g); "
                           "%s not recorded\n", dt_name, size.c_str(), err_b16_after, rec_over.c_str());
    const double ms_f8 = ms[0], ms_b16 = ms[1], ms_lt = lt.ok ? ms[2] : 0;
    if (dp_ok) {  // DP4A: its result after the timed runs, its records and its row
      const double ms_dp = ms.back(), f_dp = tflops(m, n, k, ms_dp), f_lt = lt.ok ? tflops(m, n, k, ms_lt) : 0;
      const double err_dp_after = rel_diff(bf16, Ddp.as<uint16_t>(), Dref.as<uint16_t>(), m, n);
      const std::string pc = plan_head(plan_dp);
      if (!(err_dp_after <= tol_fp8)) {
        std::fprintf(stderr, "bench gemm --dtype s8: %s: WARNING: Tessera DP4A differs from cuBLAS bf16 after the timed runs (%.3g); "
                             "not recorded\n", size.c_str(), err_dp_after);
        dp_rows.push_back({size, pc, "WRONG", "-", "-", "-", bench::fmt(err_dp_after, 4)});
        ++wrong;
      } else {
        const std::string note_dp = "plan: " + plan_dp.str() + "; DP4A (GemmMath::dp4a, CUDA cores) on the INT8 bench's operands and " +
                                    scale_words(g.scale) + ", bf16 D row-major; L2 evicted by a read pass before each run; " +
                                    "max|diff|/max|ref| vs cuBLAS bf16 " + bench::fmt(err_dp, 4);
        if (lt.ok)
          report.add(Record{"gemm", "tessera", s8 && g.scale == GemmScale::channel ? "dp4a_channel" : "dp4a", size, f_dp, "TFLOP/s",
                            lt_name, f_lt, f_dp / f_lt, note_dp + "; cuBLASLt: TN, CUBLAS_COMPUTE_32I, s32 D"});
        report.add(Record{"gemm", "tessera", "dp4a_over_int8", size, f_dp, "TFLOP/s", "tessera INT8 tensor cores (same run)",
                          tflops(m, n, k, ms_f8), ms_f8 / ms_dp, note_dp + "; the tensor-core plan: " + plan8.str()});
        dp_rows.push_back({size, pc, bench::fmt(ms_dp * 1e3, 1), bench::fmt(f_dp, 1), lt.ok ? bench::fmt(ms_lt / ms_dp, 3) : "n/a",
                           bench::fmt(ms_f8 / ms_dp, 3), bench::fmt(err_dp, 4)});
      }
    }
    const double f_f8 = tflops(m, n, k, ms_f8), f_b16 = tflops(m, n, k, ms_b16), f_lt = lt.ok ? tflops(m, n, k, ms_lt) : 0;

    const std::string note = "plan: " + plan8.str() + "; " + dt_name + " A row-major x " + dt_name +
                             " B column-major (W N x K), " + scale_words(g.scale) + " " + bench::fmt(scale_host[0], 2) + " / " +
                             bench::fmt(scale_host[1], 2) + " (device), " + (s8 ? std::string("s32 accumulation") : std::string("fp8_accum ") + accum_name) +
                             ", bf16 D row-major; L2 evicted by a read pass before each run" +
                             (ws_bytes ? "; split-K workspace reused (workspace_zeroed)" : "") +
                             "; max|diff|/max|ref| vs cuBLAS bf16 " + bench::fmt(err_f8, 4) +
                             (lt.ok ? std::string(", vs cuBLASLt ") + kind + " " + bench::fmt(err_f8_lt, 4) : std::string());
    if (lt8.ok) {
      const double ms_lt8 = ms[i_lt8], f_lt8 = tflops(m, n, k, ms_lt8);
      std::printf("%s: cuBLASLt INT8 with s8 D: %.1f us, %.1f TFLOP/s; Tessera INT8 (bf16 D) over it: %.3f (check %.4f)\n",
                  size.c_str(), ms_lt8 * 1e3, f_lt8, ms_lt8 / ms_f8, err_lt8);
      report.add(Record{"gemm", "tessera", "int8_vs_s8_out", size, f_f8, "TFLOP/s",
                        "cublasLt INT8 s8 x s8 -> s8 (COMPUTE_32I, fp32 alpha)", f_lt8, f_f8 / f_lt8,
                        note + "; cuBLASLt: TN, CUBLAS_COMPUTE_32I, scale type fp32, s8 D (1 byte per element), heuristic's first "
                               "algorithm, 32 MiB workspace; its D vs cuBLAS bf16 " + bench::fmt(err_lt8, 4)});
    }
    if (lt.ok)
      report.add(Record{"gemm", "tessera", rec_case, size, f_f8, "TFLOP/s", lt_name, f_lt, f_f8 / f_lt,
                        note + (s8 ? "; cuBLASLt: TN, CUBLAS_COMPUTE_32I, s32 D (4 bytes per element), no scales"
                                   : "; cuBLASLt: TN, CUBLAS_COMPUTE_32F") + ", heuristic's first algorithm, 32 MiB workspace"});
    if (b16_recorded)
      report.add(Record{"gemm", "tessera", rec_over, size, f_f8, "TFLOP/s", "tessera bf16 (same run)", f_b16, f_f8 / f_b16,
                        note + "; the bf16 GEMM on bf16 copies of the scaled inputs, plan: " + plan16.str()});
    table.push_back({size, plan_cell, bench::fmt(ms_f8 * 1e3, 1), bench::fmt(f_f8, 1), lt.ok ? bench::fmt(ms_lt * 1e3, 1) : "n/a",
                     lt.ok ? bench::fmt(f_lt, 1) : "n/a", lt.ok ? bench::fmt(f_f8 / f_lt, 2) : "n/a", bench::fmt(ms_b16 * 1e3, 1),
                     bench::fmt(f_b16, 1), b16_recorded ? bench::fmt(f_f8 / f_b16, 2) : "n/a (bf16 wrong)", err_cell,
                     bench::fmt(err_b16, 4)});
  }
  bench::progress(o, "gemm", done, static_cast<int>(g.shapes.size()), "done");
  std::printf("\n%s x %s GEMM, bf16 D, %s, accumulation %s: us and TFLOP/s (median of %d, L2 evicted by a read pass "
              "before each run)\n", dt_name, dt_name, scale_words(g.scale), accum_name, g.repeats);
  bench::print_table(stdout,
                     {std::string("size"), std::string("tessera ") + kind + " plan", std::string(kind) + " us", std::string(kind) + " TFLOP/s",
                      "cuBLASLt us", "cuBLASLt TFLOP/s", std::string(kind) + "/cuBLASLt", "bf16 us", "bf16 TFLOP/s",
                      std::string(kind) + "/bf16", std::string(kind) + " err vs Lt / vs bf16 ref", "bf16 err"},
                     table);
  if (!dp_rows.empty()) {
    std::printf("\nDP4A (s8 on CUDA cores, GemmMath::dp4a), same operands, scales and round: us and TFLOP/s\n");
    bench::print_table(stdout, {"size", "tessera DP4A plan", "DP4A us", "DP4A TFLOP/s", "DP4A/cuBLASLt INT8", "DP4A/tessera INT8", "err vs bf16 ref"},
                       dp_rows);
  }
  if (skipped) std::printf("%d of %zu shapes skipped (Tessera refused them; messages above)\n", skipped, g.shapes.size());
  if (wrong) {
    std::fprintf(stderr, "bench gemm --dtype %s: Tessera %s gave wrong results on %d of %zu shapes (marked WRONG)\n", dt_name, kind, wrong,
                 g.shapes.size());
    return 1;
  }
  return 0;
}

}  // namespace tessera::bench::gemm_bench
