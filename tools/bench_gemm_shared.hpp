// tools/bench_gemm_shared.hpp -- what `tessera bench gemm` (bench_gemm.cpp), its --plans mode (bench_gemm_plans.cpp)
// and its FP8 mode (--dtype e4m3|e5m2, bench_gemm_fp8.cpp) share: status checks, the shape record, the 16-bit type,
// the random fill, the comparison against cuBLAS, a cuBLASLt matmul's descriptors and algorithm, the entry points
// of the two modes, and the parsed arguments (bench_gemm_args.cpp).
#pragma once

#include <cublasLt.h>   // the cuBLASLt references (fused GELU_BIAS, FP8)
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

// One cuBLASLt matmul: its descriptors (destroyed with it) and the heuristic's first algorithm; `ok` once one is found,
// else `why` says what failed (where the caller keeps it).
struct LtMatmul {
  bool ok = false;
  std::string why;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, ld = nullptr;
  cublasLtMatmulAlgo_t algo{};
  LtMatmul() = default;
  LtMatmul(const LtMatmul&) = delete;
  LtMatmul& operator=(const LtMatmul&) = delete;
  ~LtMatmul() {
    if (desc) cublasLtMatmulDescDestroy(desc);
    if (la) cublasLtMatrixLayoutDestroy(la);
    if (lb) cublasLtMatrixLayoutDestroy(lb);
    if (ld) cublasLtMatrixLayoutDestroy(ld);
  }
};

// The heuristic's first algorithm for lt's descriptors (D in place of C) with up to ws_bytes of workspace: lt.ok and
// lt.algo, or lt.why.
inline void lt_pick_algo(cublasLtHandle_t h, LtMatmul& lt, size_t ws_bytes) {
  cublasLtMatmulPreference_t pref = nullptr;
  cublasStatus_t s = cublasLtMatmulPreferenceCreate(&pref);
  if (s != CUBLAS_STATUS_SUCCESS) {
    lt.why = "cublasLtMatmulPreferenceCreate: cuBLAS status " + std::to_string(static_cast<int>(s));
    return;
  }
  cublasLtMatmulHeuristicResult_t res{};
  int found = 0;
  s = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes, sizeof ws_bytes);
  if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatmulAlgoGetHeuristic(h, lt.desc, lt.la, lt.lb, lt.ld, lt.ld, pref, 1, &res, &found);
  if (s != CUBLAS_STATUS_SUCCESS) lt.why = "cuBLASLt's heuristic: cuBLAS status " + std::to_string(static_cast<int>(s));
  else if (found == 0) lt.why = "cuBLASLt's heuristic offers no algorithm for this problem";
  else {
    lt.algo = res.algo;
    lt.ok = true;
  }
  cublasLtMatmulPreferenceDestroy(pref);
}

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

// Fills a device buffer with windows of a host pool of random values (uniform in [-1, 1], never zeros).  Which
// windows depends only on n, the pool's length and `salt`: pools of one length (the FP8 mode's 8-bit values and their
// 16-bit copies) fill two buffers with the same elements.
template <class T>
void fill_random(T* d, size_t n, const std::vector<T>& pool, size_t salt) {
  size_t done = 0;
  while (done < n) {
    const size_t start = (salt * 7919 + done * 31) % (pool.size() / 2);
    const size_t len = std::min(n - done, pool.size() - start);
    TESSERA_BENCH_CUDA(cudaMemcpy(d + done, pool.data() + start, len * sizeof(T), cudaMemcpyHostToDevice));
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

// A plan's head, for tables and notes: its string up to the first comma (tile, split, orientation).
inline std::string plan_head(const GemmPlan& p) {
  const std::string s = p.str();
  return s.substr(0, s.find(','));
}

// --plans: for each shape, the planner's plan of the bare GEMM against every plan that can be forced (each tile built
// for `dt` on tensor cores, with 1, 2, 3, 4, 6 and 8 K splits; settings the planner turns into the same plan are timed
// once), each checked against cuBLAS, all timed in one round-robin with the L2 evicted before every run; then the
// planner's plan, the three fastest others and cuBLAS's GEMM in a second round-robin of three times the runs, whose
// medians judge the planner (the fastest of some 60 noisy medians is biased low).  Records "plan_choice": the planner's
// speed over the fastest other plan's in the second pass (1 or more when the planner's plan is the fastest).  With
// silu_residual (--menu bias_silu_residual) every plan, and the reference, computes that fused menu instead (records
// "plan_choice_bias_silu_residual").
struct PlanGrid {
  const std::vector<Shape>& shapes;
  Dtype dt;
  const Elem16& et;
  const std::vector<uint16_t>& pool;
  cublasHandle_t cub;
  cudaStream_t stream;
  std::function<void(cudaStream_t)> flush;
  int warmup, repeats;
  bool silu_residual = false;  // a bias per column (D's type), SiLU and a residual (D's type and order) on every plan
};

int run_plan_grid(const BenchOptions& o, const PlanGrid& g, Report& report);

// The tiles built for `dt` on tensor cores, by name, comma-separated (--tile and --versus take them).
std::string bench_tile_names(Dtype dt);

// `tessera bench gemm`'s arguments (bench_gemm_args.cpp), parsed and checked against each other.
struct GemmBenchArgs {
  std::string which = "all";  // --shapes
  bool shapes_given = false;  // --shapes given (the FP8 mode has other default shapes: kFp8Shapes)
  bool kernels_only = false;  // --kernels
  bool plans_mode = false;    // --plans: the planner against every forced plan (PlanGrid)
  bool plans_menu = false;    // --menu bias_silu_residual: --plans with that fused menu (PlanGrid::silu_residual)
  bool b_row_major = false;   // --b-row-major: B stored K x N row-major (x @ W with W as stored by most frameworks)
  bool a_col_major = false;   // --a-col-major: A stored column-major (M x K with M contiguous, e.g. x^T stored)
  GemmTile force_tile = GemmTile::automatic;      // --tile NAME: every Tessera GEMM on that tile (split-K still planned)
  int force_split = 0;                            // --split-k N: every Tessera GEMM with N K splits
  GemmStreamK force_sk = GemmStreamK::automatic;  // --stream-k on|off
  Elem16 et;                                      // --dtype bf16|f16: A, B, D, the bias and the residual
  GemmTile versus = GemmTile::automatic;          // --versus TILE:SPLIT: the tile (automatic: none) ...
  std::string versus_tile;                        // ... as named
  int versus_split = 0;                           // ... and the split (0: none)
  bool fp8_mode = false;                          // --dtype e4m3|e5m2|s8: 8-bit A and B, D bf16 (run_fp8_bench)
  Dtype fp8_dt = Dtype::e4m3;
  GemmFp8Accum fp8_accum = GemmFp8Accum::promoted;  // --fp8-accum promoted|fast (FP8 mode only)
  GemmScale fp8_scale = GemmScale::tensor;          // --fp8-scale tensor|channel|block (8-bit mode only)
};

// Parses o.args into *args: -1 to run the benchmark, else the exit code (0 after --help, 2 after a named error).
int parse_gemm_bench_args(const BenchOptions& o, GemmBenchArgs* args);

// --dtype e4m3|e5m2: for each shape, Tessera's FP8 GEMM (A and B of that type, per-tensor scales in device memory,
// bf16 D) against cuBLASLt's FP8 GEMM with the same scales and accumulation setting, and against Tessera's bf16 GEMM
// on the same values (bf16 copies of the scaled FP8 inputs, which hold them exactly), all timed in one round-robin
// with the L2 evicted before every run; each output checked against cuBLAS's bf16 GEMM of those copies and Tessera's
// against cuBLASLt's before and after timing.  Records "fp8_tensor" (over cuBLASLt FP8; none where cuBLASLt has no
// kernel for the pair, e5m2 x e5m2) and "fp8_over_bf16" (over Tessera's bf16 GEMM), dtype e4m3 / e5m2.
// Without a --shapes list the shapes are kFp8Shapes.
inline constexpr const char* kFp8Shapes =
    "2048x2048x2048,4096x4096x4096,8192x8192x8192,8192x4096x4096,8192x14336x4096,8192x4096x14336";
struct Fp8Bench {
  const std::vector<Shape>& shapes;
  Dtype dt;                // e4m3, e5m2 or s8: A and B
  GemmFp8Accum accum;      // Tessera's GemmArgs::fp8_accum; cuBLASLt's CUBLASLT_MATMUL_DESC_FAST_ACCUM (fast: 1)
  GemmScale scale;         // both operands' scale mode (tensor, channel, block); cuBLASLt's A/B_SCALE_MODE to match
  cublasHandle_t cub;      // the bf16 reference (cublasGemmEx)
  cublasLtHandle_t lt;     // the FP8 reference
  void* lt_ws;             // cuBLASLt's workspace, lt_ws_bytes long
  size_t lt_ws_bytes;
  cudaStream_t stream;
  std::function<void(cudaStream_t)> flush;
  int warmup, repeats;
};

int run_fp8_bench(const BenchOptions& o, const Fp8Bench& g, Report& report);

}  // namespace tessera::bench::gemm_bench
