// tools/bench_gemm.cpp -- `tessera bench gemm`: the tensor-core GEMM with a fused epilogue against
// cuBLAS and cuBLASLt, measured in the same process on the same data.
//
// For each shape (bf16 A row-major M x K, B column-major K x N -- i.e. weights stored N x K, as a
// linear layer keeps them --, bf16 D row-major, fp32 accumulation; --dtype f16: A, B, D, the bias and the
// residual in f16, the references likewise):
//   plain       tessera::gemm                      vs cublasGemmEx (CUBLAS_COMPUTE_32F, default algo)
//   bias+gelu   tessera::gemm, fused epilogue      vs cublasGemmEx + a separate bias+activation kernel
//                                                     (tessera::gemm_epilogue_inplace: the unfused way)
//               and vs cuBLASLt with its own fused epilogue (CUBLASLT_EPILOGUE_GELU_BIAS) where its
//               heuristic offers an algorithm ("n/a" otherwise)
//   bias+silu   (decode shapes and 4096^3) fused vs the unfused way; cuBLASLt has no SiLU epilogue: "n/a"
//   bias+silu+residual  fused vs cublasGemmEx + gemm_epilogue_inplace (bias, SiLU, residual)
// Records named for the GEMM targets: "bare", "bias_gelu" (vs cuBLASLt GELU_BIAS), "bias_silu_residual",
// "epilogue_cost_*" (fused over Tessera's own bare GEMM); all of them from one round-robin (below).
// Decode shapes (M <= 128) also report the rate at which B is streamed, against cudaMemcpy D2D (bytes
// read + written) of a 1 GiB buffer measured in the same run, and the floor: one read of B alone
// (bench::read_once), timed in the same round-robin after the same eviction -- what no kernel that reads
// the weights once can beat (records "decode_floor": the floor's time over the GEMM's, Tessera's and
// cuBLAS's).
// Every figure is the median of --repeats timed runs (default 20) after 3 warm-ups; all variants of a
// shape (Tessera and cuBLAS bare, both with bias + GELU, cuBLASLt GELU_BIAS, both with bias + SiLU +
// residual) are timed in turn, run by run, so that clock drift under sustained load hits all alike.  Each run is preceded by
// an untimed L2 eviction: a read-only pass (cublasSasum) over a buffer of 4x the L2 size.  A read pass
// rather than a write pass, so that the timed kernel does not pay for writing back the flush's dirty
// lines (about 17 us on an H100, more than a whole decode GEMM).  Outputs are verified against cuBLAS
// before timing (max |diff| / max |ref|).  Tessera's split-K workspace is allocated once, zero-filled,
// and passed with workspace_zeroed = true (every call leaves its counters at zero).
// The kernels' resource usage (registers, local memory = spills/stack, shared memory, occupancy) is
// printed first (`--kernels` prints only that).
// Two other modes share this setup: --plans (bench_gemm_plans.cpp) and --dtype e4m3|e5m2, FP8 A and B against
// cuBLASLt's FP8 GEMM and Tessera's bf16 GEMM (bench_gemm_fp8.cpp); bench_gemm_shared.hpp describes both.  The
// arguments, their help text and their checks: bench_gemm_args.cpp.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>
#include <utility>    // std::pair

#include "bench_common.hpp"                        // TESSERA_BENCH_SUITE, time_median_ms, Report
#include "bench_gemm_shared.hpp"                   // Shape, Elem16, fill_random, rel_diff, run_plan_grid, ...
#include "decode_set.hpp"                          // kDecodeBatches, kDecodeWeights
#include "tessera/host/gemm.hpp"                   // tessera::gemm
#include "tessera/kernel/gemm/registry.hpp"      // the kernels (resource report, --tile names)
#include "tessera/kernel/numeric.hpp"             // Numeric: the 16-bit types' conversions

namespace {

using namespace tessera;
using namespace tessera::bench::gemm_bench;
using bench::BenchOptions;
using bench::Record;

std::vector<Shape> shapes_for(const std::string& which, bool quick) {
  std::vector<Shape> s;
  if (which == "all" || which == "square")
    for (int64_t x : {512, 1024, 2048, 4096, 8192}) s.push_back({"square", x, x, x});
  if (which == "all" || which == "llm")
    for (auto nk : {std::pair<int64_t, int64_t>{4096, 4096}, {14336, 4096}, {4096, 14336}}) s.push_back({"llm", 8192, nk.first, nk.second});
  // The decode set: M = batch x tokens against an LLM's weight shapes (N, K).
  if (which == "all" || which == "decode")
    for (const auto& nk : bench::kDecodeWeights)
      for (int64_t m : bench::kDecodeBatches) s.push_back({"decode", m, nk.first, nk.second});
  // The planner's grid (issue-sized decode problems, --plans): M = 1 ... 256 against five weight shapes.
  if (which == "decode-grid")
    for (auto nk : {std::pair<int64_t, int64_t>{4096, 4096}, {8192, 8192}, {14336, 4096}, {4096, 14336}, {28672, 8192}})
      for (int64_t m : {1, 2, 4, 8, 16, 32, 64, 128, 256}) s.push_back({"decode", m, nk.first, nk.second});
  // A custom list: "MxNxK[,MxNxK...]".
  if (s.empty()) {
    size_t pos = 0;
    while (pos < which.size()) {
      const size_t end = which.find(',', pos);
      const std::string one = which.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
      long long m = 0, n = 0, k = 0;
      char tail = 0;
      if (std::sscanf(one.c_str(), "%lldx%lldx%lld%c", &m, &n, &k, &tail) != 3 || m < 1 || n < 1 || k < 1)
        throw std::invalid_argument("bench gemm: --shapes expects all, square, llm, decode, decode-grid or MxNxK[,MxNxK...]; got '" +
                                    one + "'");
      s.push_back({m <= 128 ? "decode" : "custom", m, n, k});
      if (end == std::string::npos) break;
      pos = end + 1;
    }
  }
  if (quick) {
    std::vector<Shape> q;
    for (auto& x : s)
      if ((x.m == x.n && x.m <= 4096) || (std::string(x.group) == "decode" && x.n == 4096)) q.push_back(x);
    s = q;
  }
  return s;
}

// Resource report of every compiled GEMM kernel: each registry entry, operand type and operand order.
void print_kernels(std::FILE* out) {
  using namespace gemm_core;
  std::vector<std::vector<std::string>> rows;
  auto add = [&](const std::string& family, const GemmKernelEntry& e, const char* order, const KernelInfo& k) {
    if (!k.fn) return;
    cudaFuncAttributes a{};
    if (cudaFuncGetAttributes(&a, k.fn) != cudaSuccess) { (void)cudaGetLastError(); return; }
    int occ = 0;
    if (cudaFuncSetAttribute(k.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, k.smem_bytes) == cudaSuccess)
      (void)cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k.fn, k.threads, k.smem_bytes);
    (void)cudaGetLastError();
    // The schedule after the block tile, except for the plain mma.sync kernels.
    const std::string tile = std::to_string(k.block_m) + "x" + std::to_string(k.block_n) + "x" + std::to_string(k.block_k) +
                             (e.schedule == GemmSchedule::mma_sync ? "" : std::string(" ") + schedule_name(e.schedule));
    rows.push_back({family, tile, order, std::to_string(k.threads), std::to_string(a.numRegs), std::to_string(a.localSizeBytes),
                    std::to_string(k.smem_bytes), std::to_string(k.stages), std::to_string(occ)});
  };
  for (const GemmKernelEntry& e : gemm_kernels())
    for (const GemmKernelType& t : e.types) {
      // (FP8 pairs: A's type x B's)
      const std::string family = t.math == GemmMath::tf32 ? "tf32"
                                 : t.b_type() != t.in  ? std::string(dtype_name(t.in)) + "x" + dtype_name(t.b_type())
                                                       : dtype_name(t.in);
      if (e.any_order) {
        add(family, e, "any", t.get(Combo::kk));
        continue;
      }
      for (Combo c : kCombos)
        if (e.has(t, c)) add(family, e, combo_name(c), t.get(c));
    }
  std::fprintf(out, "GEMM kernels (registers and local memory per thread: local > 0 means a stack frame or spills):\n");
  bench::print_table(out, {"type", "tile", "A,B major", "threads", "regs", "local B", "smem B", "stages", "blocks/SM"}, rows);
}

// cuBLASLt, column-major view: D^T (N x M) = B^T (op T of the K x N buffer) * A^T (the K x M buffer),
// epilogue GELU(tanh) + bias, the bias running along the N rows of D^T (= per column of row-major D).
// b_row_major: B is stored K x N row-major (the N x K column-major buffer, no transpose).
// a_col_major: A is stored column-major (the M x K column-major buffer, transposed).
void lt_setup(cublasLtHandle_t h, LtMatmul& lt, int64_t m, int64_t n, int64_t k, const void* bias, size_t ws_bytes,
              bool b_row_major, bool a_col_major, cudaDataType_t t16) {
  if (cublasLtMatmulDescCreate(&lt.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F) != CUBLAS_STATUS_SUCCESS) return;
  const cublasOperation_t ta = b_row_major ? CUBLAS_OP_N : CUBLAS_OP_T, tb = a_col_major ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_GELU_BIAS;
  const cudaDataType_t bias_type = t16;
  cublasLtMatmulDescSetAttribute(lt.desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
  cublasLtMatmulDescSetAttribute(lt.desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb);
  cublasLtMatmulDescSetAttribute(lt.desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi);
  cublasLtMatmulDescSetAttribute(lt.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias);
  cublasLtMatmulDescSetAttribute(lt.desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof bias_type);
  if (b_row_major) cublasLtMatrixLayoutCreate(&lt.la, t16, n, k, n);
  else cublasLtMatrixLayoutCreate(&lt.la, t16, k, n, k);
  if (a_col_major) cublasLtMatrixLayoutCreate(&lt.lb, t16, m, k, m);
  else cublasLtMatrixLayoutCreate(&lt.lb, t16, k, m, k);
  cublasLtMatrixLayoutCreate(&lt.ld, t16, n, m, n);
  lt_pick_algo(h, lt, ws_bytes);
}

int run_gemm_bench(const BenchOptions& o) {
  GemmBenchArgs a;
  if (const int rc = parse_gemm_bench_args(o, &a); rc >= 0) return rc;
  const Dtype dt = a.et.dtype;
  const char* dt_name = dtype_name(dt);
  print_kernels(stdout);
  if (a.kernels_only) return 0;

  const int repeats = o.repeats > 0 ? o.repeats : (o.quick ? 5 : 20);
  const int warmup = 3;
  cudaStream_t stream = nullptr;
  TESSERA_BENCH_CUDA(cudaStreamCreate(&stream));
  cublasHandle_t cub = nullptr;
  check_cublas(cublasCreate(&cub), "cublasCreate");
  check_cublas(cublasSetStream(cub, stream), "cublasSetStream");
  cublasLtHandle_t lth = nullptr;
  check_cublas(cublasLtCreate(&lth), "cublasLtCreate");
  const size_t lt_ws_bytes = size_t(32) << 20;
  void* lt_ws = nullptr;
  TESSERA_BENCH_CUDA(cudaMalloc(&lt_ws, lt_ws_bytes));

  // L2 eviction by reading 4x L2 (see the header comment).
  int dev = 0, l2_bytes = 0;
  TESSERA_BENCH_CUDA(cudaGetDevice(&dev));
  TESSERA_BENCH_CUDA(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, dev));
  const size_t evict_floats = std::max<size_t>(size_t(4) * static_cast<size_t>(l2_bytes) / sizeof(float), size_t(1) << 20);
  float* evict = nullptr;
  float* evict_sum = nullptr;
  TESSERA_BENCH_CUDA(cudaMalloc(&evict, evict_floats * sizeof(float)));
  TESSERA_BENCH_CUDA(cudaMalloc(&evict_sum, sizeof(float)));
  TESSERA_BENCH_CUDA(cudaMemset(evict, 0, evict_floats * sizeof(float)));
  cublasHandle_t evict_h = nullptr;
  check_cublas(cublasCreate(&evict_h), "cublasCreate");
  check_cublas(cublasSetStream(evict_h, stream), "cublasSetStream");
  check_cublas(cublasSetPointerMode(evict_h, CUBLAS_POINTER_MODE_DEVICE), "cublasSetPointerMode");
  auto evict_l2 = [&](cudaStream_t) {
    check_cublas(cublasSasum(evict_h, static_cast<int>(std::min<size_t>(evict_floats, 2147483647u)), evict, 1, evict_sum), "cublasSasum");
  };

  if (a.fp8_mode) {
    const std::vector<Shape> fp8_shapes = shapes_for(a.shapes_given ? a.which : kFp8Shapes, o.quick);
    bench::Report fp8_report("gemm");
    const int rc = run_fp8_bench(o, Fp8Bench{fp8_shapes, a.fp8_dt, a.fp8_accum, a.fp8_scale, cub, lth, lt_ws, lt_ws_bytes, stream,
                                             [&](cudaStream_t st) { evict_l2(st); }, warmup, repeats},
                                 fp8_report);
    cudaFree(lt_ws); cudaFree(evict); cudaFree(evict_sum);
    cublasDestroy(evict_h); cublasLtDestroy(lth); cublasDestroy(cub); cudaStreamDestroy(stream);
    // The verified shapes' records are written also when another shape failed its check (rc 1).
    const bool wrote = bench::finish(o, fp8_report);
    return rc != 0 ? rc : wrote ? 0 : 1;
  }
  const double d2d = bench::memcpy_d2d_gbps(size_t(1) << 30, stream);
  std::printf("cudaMemcpy D2D (1 GiB, read + write): %.1f GB/s\n", d2d);

  std::vector<uint16_t> pool(size_t(1) << 24);
  {
    std::mt19937 rng(12345);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (auto& x : pool) x = a.et.from_float(u(rng));
  }

  const std::vector<Shape> shapes = shapes_for(a.which, o.quick);
  bench::Report report("gemm");
  report.set_dtype(dt_name);
  if (a.plans_mode) {
    const int rc = run_plan_grid(
        o, PlanGrid{shapes, dt, a.et, pool, cub, stream, [&](cudaStream_t st) { evict_l2(st); }, warmup, repeats, a.plans_menu}, report);
    cudaFree(lt_ws); cudaFree(evict); cudaFree(evict_sum);
    cublasDestroy(evict_h); cublasLtDestroy(lth); cublasDestroy(cub); cudaStreamDestroy(stream);
    return rc != 0 ? rc : bench::finish(o, report) ? 0 : 1;
  }
  std::vector<std::vector<std::string>> table;
  std::vector<std::string> fused_plans;  // shapes whose fused variants plan another kernel than the bare GEMM
  std::vector<std::string> versus_lines;  // --versus: the planner's bare GEMM against the forced plan
  int done = 0;
  for (const Shape& s : shapes) {
    const std::string size = "M=" + std::to_string(s.m) + ",N=" + std::to_string(s.n) + ",K=" + std::to_string(s.k);
    bench::progress(o, "gemm", done++, static_cast<int>(shapes.size()), size);
    const int64_t m = s.m, n = s.n, k = s.k;
    uint16_t *A = nullptr, *B = nullptr, *bias = nullptr, *Dt = nullptr, *Dc = nullptr;
    TESSERA_BENCH_CUDA(cudaMalloc(&A, m * k * 2));
    TESSERA_BENCH_CUDA(cudaMalloc(&B, k * n * 2));
    TESSERA_BENCH_CUDA(cudaMalloc(&bias, n * 2));
    TESSERA_BENCH_CUDA(cudaMalloc(&Dt, m * n * 2));
    TESSERA_BENCH_CUDA(cudaMalloc(&Dc, m * n * 2));
    fill_random(A, static_cast<size_t>(m * k), pool, 1);
    fill_random(B, static_cast<size_t>(k * n), pool, 2);
    fill_random(bias, static_cast<size_t>(n), pool, 3);

    GemmArgs plain;
    plain.m = m; plain.n = n; plain.k = k;
    plain.a = a.a_col_major ? GemmMatrix{A, dt, MatrixOrder::col_major, m} : GemmMatrix{A, dt, MatrixOrder::row_major, k};
    plain.b = a.b_row_major ? GemmMatrix{B, dt, MatrixOrder::row_major, n} : GemmMatrix{B, dt, MatrixOrder::col_major, k};
    plain.d = GemmOutput{Dt, dt, MatrixOrder::row_major, n};
    plain.tile = a.force_tile;
    plain.split_k = a.force_split;
    plain.stream_k = a.force_sk;
    GemmArgs gelu = plain;
    gelu.bias_mode = BiasMode::per_column;
    gelu.bias = bias;
    gelu.bias_type = dt;
    gelu.bias_size = n;
    gelu.activation = Activation::gelu_tanh;
    GemmArgs silu = gelu;
    silu.activation = Activation::silu;
    // bias + SiLU + residual (the residual: another M x N matrix of D's type and order)
    uint16_t* R = nullptr;
    TESSERA_BENCH_CUDA(cudaMalloc(&R, m * n * 2));
    fill_random(R, static_cast<size_t>(m * n), pool, 4);
    GemmArgs silu_res = silu;
    silu_res.residual = GemmMatrix{R, dt, MatrixOrder::row_major, n};
    // --versus: the bare GEMM on the forced plan.
    GemmArgs forced = plain;
    forced.tile = a.versus;
    forced.split_k = a.versus_split;
    // Workspace for split-K: the size the planner asks for.
    void* ws = nullptr;
    const size_t ws_bytes = std::max({gemm_workspace_size(plain), gemm_workspace_size(gelu),
                                      a.versus_split ? gemm_workspace_size(forced) : size_t{0}});
    if (ws_bytes) {
      TESSERA_BENCH_CUDA(cudaMalloc(&ws, ws_bytes));
      TESSERA_BENCH_CUDA(cudaMemset(ws, 0, ws_bytes));
    }
    for (GemmArgs* g : {&plain, &gelu, &silu, &silu_res, &forced}) {
      g->workspace = ws;
      g->workspace_bytes = ws_bytes;
      g->workspace_zeroed = true;  // zero-filled above; every call leaves the counters at zero
    }
    GemmPlan plan, plan_gelu, plan_sr, plan_forced;
    check_gemm(gemm_plan(plain, &plan));
    if (a.versus_split) {
      const GemmStatus st = gemm_plan(forced, &plan_forced);
      if (!st.ok()) {
        std::fprintf(stderr, "bench gemm: %s: --versus %s:%d does not plan: %s\n", size.c_str(), a.versus_tile.c_str(), a.versus_split,
                     st.message.c_str());
        return 1;
      }
    }
    // The fused variants plan on their own (the planner weighs the epilogue: gemm_plan.cu, persistent_fused_menu).
    check_gemm(gemm_plan(gelu, &plan_gelu));
    check_gemm(gemm_plan(silu_res, &plan_sr));
    // The unfused epilogue, applied to cuBLAS's output.
    GemmArgs epi = gelu;
    epi.d = GemmOutput{Dc, dt, MatrixOrder::row_major, n};
    GemmArgs epi_silu = epi;
    epi_silu.activation = Activation::silu;
    GemmArgs epi_silu_res = epi_silu;
    epi_silu_res.residual = silu_res.residual;

    const float one = 1.f, zero = 0.f;
    auto cublas_plain = [&](cudaStream_t) {
      check_cublas(cublasGemmEx(cub, a.b_row_major ? CUBLAS_OP_N : CUBLAS_OP_T, a.a_col_major ? CUBLAS_OP_T : CUBLAS_OP_N,
                                static_cast<int>(n), static_cast<int>(m),
                                static_cast<int>(k), &one, B, a.et.cuda(), static_cast<int>(a.b_row_major ? n : k), A, a.et.cuda(),
                                static_cast<int>(a.a_col_major ? m : k), &zero, Dc, a.et.cuda(),
                                static_cast<int>(n), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                   "cublasGemmEx");
    };
    auto t_plain = [&](cudaStream_t st) { check_gemm(gemm(plain, st)); };
    auto t_gelu = [&](cudaStream_t st) { check_gemm(gemm(gelu, st)); };
    auto t_silu = [&](cudaStream_t st) { check_gemm(gemm(silu, st)); };
    auto c_gelu = [&](cudaStream_t st) { cublas_plain(st); check_gemm(gemm_epilogue_inplace(epi, st)); };
    auto c_silu = [&](cudaStream_t st) { cublas_plain(st); check_gemm(gemm_epilogue_inplace(epi_silu, st)); };
    auto t_silu_res = [&](cudaStream_t st) { check_gemm(gemm(silu_res, st)); };
    auto c_silu_res = [&](cudaStream_t st) { cublas_plain(st); check_gemm(gemm_epilogue_inplace(epi_silu_res, st)); };
    LtMatmul lt;
    lt_setup(lth, lt, m, n, k, bias, lt_ws_bytes, a.b_row_major, a.a_col_major, a.et.cuda());
    auto lt_gelu = [&](cudaStream_t st) {
      check_cublas(cublasLtMatmul(lth, lt.desc, &one, B, lt.la, A, lt.lb, &zero, Dc, lt.ld, Dc, lt.ld, &lt.algo, lt_ws,
                                  lt_ws_bytes, st),
                   "cublasLtMatmul");
    };

    // ---- verify before timing ----
    t_plain(stream);
    cublas_plain(stream);
    TESSERA_BENCH_CUDA(cudaStreamSynchronize(stream));
    const double err_plain = rel_diff(a.et, Dt, Dc, m, n);
    t_gelu(stream);
    c_gelu(stream);
    TESSERA_BENCH_CUDA(cudaStreamSynchronize(stream));
    const double err_gelu = rel_diff(a.et, Dt, Dc, m, n);
    double err_lt = 0;
    if (lt.ok) {
      lt_gelu(stream);
      TESSERA_BENCH_CUDA(cudaStreamSynchronize(stream));
      err_lt = rel_diff(a.et, Dt, Dc, m, n);
    }
    t_silu_res(stream);
    c_silu_res(stream);
    TESSERA_BENCH_CUDA(cudaStreamSynchronize(stream));
    const double err_silu_res = rel_diff(a.et, Dt, Dc, m, n);
    auto t_forced = [&](cudaStream_t st) { check_gemm(gemm(forced, st)); };
    double err_forced = 0;
    if (a.versus_split) {
      TESSERA_BENCH_CUDA(cudaMemsetAsync(Dt, 0xFF, static_cast<size_t>(m * n * 2), stream));  // NaN: poisoned
      t_forced(stream);
      cublas_plain(stream);
      TESSERA_BENCH_CUDA(cudaStreamSynchronize(stream));
      err_forced = rel_diff(a.et, Dt, Dc, m, n);
    }
    const double tol = 2e-2;
    if (!(err_plain <= tol) || !(err_gelu <= tol) || !(err_lt <= tol) || !(err_silu_res <= tol) || !(err_forced <= tol)) {
      std::fprintf(stderr,
                   "bench gemm: %s: results differ from cuBLAS (plain %.3g, bias+gelu %.3g, cuBLASLt %.3g, bias+silu+residual %.3g, "
                   "--versus plan %.3g; tolerance %.g)\n",
                   size.c_str(), err_plain, err_gelu, err_lt, err_silu_res, err_forced, tol);
      return 1;
    }

    // ---- time ----
    auto flush = [&](cudaStream_t st) { evict_l2(st); };
    // Every variant in turn, run by run, in one round-robin (the clock drifts under sustained load: power
    // and temperature; timing groups one after the other favours whichever ran first): Tessera bare and
    // cuBLAS bare, Tessera bias+GELU, cuBLAS + separate epilogue, cuBLASLt GELU_BIAS, Tessera
    // bias+SiLU+residual, cuBLAS + separate epilogue.
    // bias+SiLU (decode shapes and 4096^3) joins the same round-robin.
    const bool do_silu = std::string(s.group) == "decode" || (m == 4096 && n == 4096 && k == 4096);
    std::vector<std::function<void(cudaStream_t)>> all = {t_plain, cublas_plain, t_gelu, c_gelu, t_silu_res, c_silu_res};
    const size_t i_lt = all.size();
    if (lt.ok) all.push_back(lt_gelu);
    const size_t i_silu = all.size();
    if (do_silu) {
      all.push_back(t_silu);
      all.push_back(c_silu);
    }
    const bool decode = std::string(s.group) == "decode";
    const size_t i_floor = all.size();
    if (decode) all.push_back([&](cudaStream_t st) { bench::read_once(B, static_cast<size_t>(k) * n * sizeof(uint16_t), st); });
    const size_t i_forced = all.size();
    if (a.versus_split) all.push_back(t_forced);
    const std::vector<double> ms = bench::time_medians_interleaved_ms(all, stream, warmup, repeats, flush);
    const double ms_tp = ms[0], ms_cp = ms[1], ms_tg = ms[2], ms_cg = ms[3], ms_tsr = ms[4], ms_csr = ms[5];
    const double ms_lg = lt.ok ? ms[i_lt] : 0;
    const double ms_ts = do_silu ? ms[i_silu] : 0;
    const double ms_cs = do_silu ? ms[i_silu + 1] : 0;

    const double f_tp = tflops(m, n, k, ms_tp), f_cp = tflops(m, n, k, ms_cp), f_tg = tflops(m, n, k, ms_tg),
                 f_cg = tflops(m, n, k, ms_cg), f_lg = lt.ok ? tflops(m, n, k, ms_lg) : 0;
    const std::string note = "plan: " + plan.str() + "; " + dt_name + " in/out, fp32 accumulate, A " + std::string(a.a_col_major ? "column" : "row") + "-major, B " + std::string(a.b_row_major ? "row" : "column") + "-major; L2 evicted "
                             "by a read pass before each run" + (ws_bytes ? "; split-K workspace reused (workspace_zeroed)" : "");
    const double f_tsr = tflops(m, n, k, ms_tsr), f_csr = tflops(m, n, k, ms_csr);
    // A fused variant's records name its own plan where it is not the bare GEMM's.
    auto note_for = [&](const GemmPlan& fp) {
      return fp.str() == plan.str() ? note : note + "; this variant's plan: " + fp.str();
    };
    const std::string note_g = note_for(plan_gelu), note_sr = note_for(plan_sr);
    if (plan_gelu.str() != plan.str() || plan_sr.str() != plan.str())
      fused_plans.push_back(size + ": bias+GELU " + plan_head(plan_gelu) + ", bias+SiLU+residual " +
                            plan_head(plan_sr));
    // The records the GEMM targets are stated in (case names of docs/PERF.md).
    report.add(Record{"gemm", "tessera", "bare", size, f_tp, "TFLOP/s", "cublasGemmEx", f_cp, f_tp / f_cp, note});
    if (lt.ok)
      report.add(Record{"gemm", "tessera", "bias_gelu", size, f_tg, "TFLOP/s", "cublasLt GELU_BIAS", f_lg, f_tg / f_lg, note_g});
    report.add(Record{"gemm", "tessera", "bias_silu_residual", size, f_tsr, "TFLOP/s",
                      "cublasGemmEx + gemm_epilogue_inplace (bias, silu, residual)", f_csr, f_tsr / f_csr, note_sr});
    report.add(Record{"gemm", "tessera", "epilogue_cost_bias_gelu", size, f_tg, "TFLOP/s", "tessera bare (same run)", f_tp,
                      f_tg / f_tp, note_g});
    report.add(Record{"gemm", "tessera", "epilogue_cost_bias_silu_residual", size, f_tsr, "TFLOP/s", "tessera bare (same run)",
                      f_tp, f_tsr / f_tp, note_sr});
    report.add(Record{"gemm", "tessera", "bias+gelu_tanh", size, f_tg, "TFLOP/s", "cublasGemmEx + separate bias/act kernel", f_cg,
                      f_tg / f_cg, note_g});
    if (!lt.ok)
      report.add(Record{"gemm", "tessera", "bias_gelu", size, f_tg, "TFLOP/s", "n/a", 0, 0,
                        note_g + "; cuBLASLt offers no algorithm for this epilogue"});
    report.add(Record{"gemm", "tessera", "bias+gelu_tanh", size, f_tg, "TFLOP/s", "cublasGemmEx (plain, no epilogue)", f_cp,
                      f_tg / f_cp, note_g});
    std::string silu_cell = "-";
    if (do_silu) {
      const double f_ts = tflops(m, n, k, ms_ts), f_cs = tflops(m, n, k, ms_cs);
      report.add(Record{"gemm", "tessera", "bias+silu", size, f_ts, "TFLOP/s", "cublasGemmEx + separate bias/act kernel", f_cs,
                        f_ts / f_cs, note_g});  // (bias+SiLU plans as bias+GELU: the same menu kind)
      report.add(Record{"gemm", "tessera", "bias+silu", size, f_ts, "TFLOP/s", "n/a", 0, 0,
                        note_g + "; cuBLASLt has no SiLU epilogue"});
      silu_cell = bench::fmt(f_ts, 1) + " / " + bench::fmt(f_cs, 1);
    }
    std::string stream_cell = "-", floor_cell = "-";
    if (decode) {
      const double ms_floor = ms[i_floor], f_floor = tflops(m, n, k, ms_floor);
      const std::string floor_ref = "one read of B alone (bench::read_once, same eviction), as TFLOP/s";
      report.add(Record{"gemm", "tessera", "decode_floor", size, f_tp, "TFLOP/s", floor_ref, f_floor, ms_floor / ms_tp, note});
      report.add(Record{"gemm", "cublasGemmEx", "decode_floor", size, f_cp, "TFLOP/s", floor_ref, f_floor, ms_floor / ms_cp,
                        "cuBLAS, for comparison"});
      floor_cell = bench::fmt(ms_floor * 1e3, 1) + " (" + bench::fmt(ms_floor / ms_tp, 2) + " / " + bench::fmt(ms_floor / ms_cp, 2) + ")";
      // The decode target's record: the bare GEMM against cuBLAS, under its own case name.
      report.add(Record{"gemm", "tessera", "decode", size, f_tp, "TFLOP/s", "cublasGemmEx", f_cp, f_tp / f_cp, note});
      const double gbps = static_cast<double>(k) * n * 2 / (ms_tp * 1e-3) / 1e9;
      report.add(Record{"gemm", "tessera", "plain: B streamed", size, gbps, "GB/s", "cudaMemcpy D2D (1 GiB, read+write)", d2d,
                        gbps / d2d, note});
      const double gbps_c = static_cast<double>(k) * n * 2 / (ms_cp * 1e-3) / 1e9;
      report.add(Record{"gemm", "cublasGemmEx", "plain: B streamed", size, gbps_c, "GB/s", "cudaMemcpy D2D (1 GiB, read+write)", d2d,
                        gbps_c / d2d, "cuBLAS, for comparison"});
      stream_cell = bench::fmt(gbps, 0) + " (" + bench::fmt(100 * gbps / d2d, 1) + "%)";
    }
    if (a.versus_split) {
      const double f_fo = tflops(m, n, k, ms[i_forced]);
      report.add(Record{"gemm", "tessera", "plan_vs_forced", size, f_tp, "TFLOP/s", "forced plan (same run): " + plan_forced.str(),
                        f_fo, f_tp / f_fo, note + "; forced plan vs cublasGemmEx " + bench::fmt(f_fo / f_cp, 3)});
      versus_lines.push_back(size + ": planner " + plan_head(plan) + " " + bench::fmt(ms_tp * 1e3, 2) +
                             " us, forced " + plan_head(plan_forced) + " " +
                             bench::fmt(ms[i_forced] * 1e3, 2) + " us, planner / forced (speed) " + bench::fmt(f_tp / f_fo, 3));
    }
    table.push_back({size, plan_head(plan), bench::fmt(f_tp, 1), bench::fmt(f_cp, 1),
                     bench::fmt(f_tp / f_cp, 2), bench::fmt(f_tg, 1), bench::fmt(f_cg, 1), lt.ok ? bench::fmt(f_lg, 1) : "n/a",
                     bench::fmt(f_tg / f_cg, 2), lt.ok ? bench::fmt(f_tg / f_lg, 2) : "n/a", bench::fmt(f_tsr, 1) + " / " + bench::fmt(f_csr, 1),
                     bench::fmt(f_tg / f_tp, 2), silu_cell, stream_cell, floor_cell});

    cudaFree(A); cudaFree(B); cudaFree(bias); cudaFree(Dt); cudaFree(Dc); cudaFree(R);
    if (ws) cudaFree(ws);
  }
  bench::progress(o, "gemm", done, static_cast<int>(shapes.size()), "done");
  std::printf("\n%s GEMM, TFLOP/s (median of %d, L2 evicted by a read pass before each run)\n", dt_name, repeats);
  bench::print_table(stdout,
                     {"size", "tessera plan", "tessera", "cuBLAS", "ratio", "fused gelu", "cuBLAS+epi", "cuBLASLt", "fused/unfused",
                      "gelu vs Lt", "silu+res fused / unfused", "gelu/bare", "silu fused/unfused", "B stream GB/s (% D2D)",
                      "B read floor us (floor/tessera / floor/cuBLAS)"},
                     table);
  if (!versus_lines.empty()) {
    std::printf("the planner's bare GEMM against the --versus plan (same round-robin):\n");
    for (const std::string& l : versus_lines) std::printf("  %s\n", l.c_str());
  }
  if (!fused_plans.empty()) {
    std::printf("fused variants planned apart from the bare GEMM:\n");
    for (const std::string& l : fused_plans) std::printf("  %s\n", l.c_str());
  }
  cudaFree(lt_ws);
  cudaFree(evict);
  cudaFree(evict_sum);
  cublasDestroy(evict_h);
  cublasLtDestroy(lth);
  cublasDestroy(cub);
  cudaStreamDestroy(stream);
  if (!bench::finish(o, report)) return 1;
  return 0;
}

}  // namespace

TESSERA_BENCH_SUITE("gemm", run_gemm_bench);
