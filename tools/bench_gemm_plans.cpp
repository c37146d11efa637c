// tools/bench_gemm_plans.cpp -- `tessera bench gemm --plans`: the planner's plan of the bare GEMM (or, with --menu
// bias_silu_residual, of that fused menu) against every plan that can be forced, shape by shape (bench_gemm_shared.hpp
// says what it records).
#include <algorithm>  // std::sort
#include <cstdio>   // std::fprintf, std::printf
#include <string>   // std::string
#include <utility>  // std::pair
#include <vector>   // std::vector

#include "bench_gemm_shared.hpp"

namespace tessera::bench::gemm_bench {

int run_plan_grid(const BenchOptions& o, const PlanGrid& g, Report& report) {
  const char* dt_name = dtype_name(g.dt);
  const char* menu = g.silu_residual ? "bias+SiLU+residual" : "bare GEMM";
  std::vector<std::vector<std::string>> table;
  int within = 0, done = 0;
  for (const Shape& s : g.shapes) {
    const std::string size = "M=" + std::to_string(s.m) + ",N=" + std::to_string(s.n) + ",K=" + std::to_string(s.k);
    bench::progress(o, "gemm", done++, static_cast<int>(g.shapes.size()), size);
    const int64_t m = s.m, n = s.n, k = s.k;
    uint16_t *A = nullptr, *B = nullptr, *Dt = nullptr, *Dc = nullptr;
    TESSERA_BENCH_CUDA(cudaMalloc(&A, m * k * 2));
    TESSERA_BENCH_CUDA(cudaMalloc(&B, k * n * 2));
    TESSERA_BENCH_CUDA(cudaMalloc(&Dt, m * n * 2));
    TESSERA_BENCH_CUDA(cudaMalloc(&Dc, m * n * 2));
    fill_random(A, static_cast<size_t>(m * k), g.pool, 1);
    fill_random(B, static_cast<size_t>(k * n), g.pool, 2);
    GemmArgs plain;
    plain.m = m; plain.n = n; plain.k = k;
    plain.a = GemmMatrix{A, g.dt, MatrixOrder::row_major, k};
    plain.b = GemmMatrix{B, g.dt, MatrixOrder::col_major, k};
    plain.d = GemmOutput{Dt, g.dt, MatrixOrder::row_major, n};
    // --menu bias_silu_residual: a bias per column and a residual of D's type (row-major), SiLU between.
    uint16_t *bias = nullptr, *R = nullptr;
    GemmArgs epi;  // the same menu in place on cuBLAS's D (the reference)
    if (g.silu_residual) {
      TESSERA_BENCH_CUDA(cudaMalloc(&bias, n * 2));
      TESSERA_BENCH_CUDA(cudaMalloc(&R, m * n * 2));
      fill_random(bias, static_cast<size_t>(n), g.pool, 3);
      fill_random(R, static_cast<size_t>(m * n), g.pool, 4);
      plain.bias_mode = BiasMode::per_column;
      plain.bias = bias;
      plain.bias_type = g.dt;
      plain.bias_size = n;
      plain.activation = Activation::silu;
      plain.residual = GemmMatrix{R, g.dt, MatrixOrder::row_major, n};
      epi = plain;
      epi.d = GemmOutput{Dc, g.dt, MatrixOrder::row_major, n};
    }
    // The candidates: the planner's, then every forced (tile, split) that plans, each distinct plan once; planned with
    // the workspace in place (the planner splits K only when it has one), sized for the largest.
    std::vector<std::pair<GemmTile, int>> settings = {{GemmTile::automatic, 0}};
    for (const gemm_core::GemmKernelEntry& e : gemm_core::gemm_kernels())
      if (bench_tile(e, g.dt))
        for (int split : {1, 2, 3, 4, 6, 8}) settings.push_back({e.tile, split});
    size_t ws_bytes = 0;
    for (auto [tile, split] : settings) {
      GemmArgs a = plain;
      a.tile = tile;
      a.split_k = split;
      ws_bytes = std::max(ws_bytes, gemm_workspace_size(a));
    }
    void* ws = nullptr;
    if (ws_bytes) {
      TESSERA_BENCH_CUDA(cudaMalloc(&ws, ws_bytes));
      TESSERA_BENCH_CUDA(cudaMemset(ws, 0, ws_bytes));
    }
    std::vector<GemmArgs> args;
    std::vector<GemmPlan> plans;
    for (auto [tile, split] : settings) {
      GemmArgs a = plain;
      a.tile = tile;
      a.split_k = split;
      a.workspace = ws;
      a.workspace_bytes = ws_bytes;
      a.workspace_zeroed = true;  // zero-filled above; every call leaves the counters at zero
      GemmPlan p;
      if (!gemm_plan(a, &p).ok()) continue;
      bool seen = false;  // (a forced setting that gives the planner's own plan is the planner's candidate)
      for (size_t i = 0; i < plans.size(); ++i) seen = seen || plans[i].str() == p.str();
      if (seen) continue;
      args.push_back(a);
      plans.push_back(p);
    }
    const float one = 1.f, zero = 0.f;
    // cuBLAS's GEMM into Dc (the handle is on g.stream), then the menu in place with --menu: the reference of the
    // checks, and timed in the second pass
    auto cublas_ref = [&](cudaStream_t st) {
      check_cublas(cublasGemmEx(g.cub, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(m), static_cast<int>(k), &one,
                                B, g.et.cuda(), static_cast<int>(k), A, g.et.cuda(), static_cast<int>(k), &zero, Dc, g.et.cuda(),
                                static_cast<int>(n), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                   "cublasGemmEx");
      if (g.silu_residual) check_gemm(gemm_epilogue_inplace(epi, st));
    };
    cublas_ref(g.stream);
    std::vector<std::function<void(cudaStream_t)>> all;
    for (size_t i = 0; i < args.size(); ++i) {
      TESSERA_BENCH_CUDA(cudaMemsetAsync(Dt, 0xFF, static_cast<size_t>(m * n * 2), g.stream));  // NaN: poisoned
      check_gemm(gemm(args[i], g.stream));
      TESSERA_BENCH_CUDA(cudaStreamSynchronize(g.stream));
      const double err = rel_diff(g.et, Dt, Dc, m, n);
      if (!(err <= 2e-2)) {
        std::fprintf(stderr, "bench gemm --plans: %s: plan %s differs from cuBLAS (%.3g; tolerance 0.02)\n", size.c_str(),
                     plans[i].str().c_str(), err);
        return 1;
      }
      all.push_back([&, i](cudaStream_t st) { check_gemm(gemm(args[i], st)); });
    }
    // Two passes.  The first times every candidate in one round-robin and picks the fastest; the second times the
    // planner's plan against the first pass's three fastest other plans in a round-robin of its own, three times as
    // long, with cuBLAS's GEMM in it (timed, for the note), and its medians give the ratio.  The
    // minimum of some 60 medians, each a few percent noisy, is biased low (the same plan timed twice in one pass
    // differed by up to 6% at 16 x 4096^2), so the plan that is picked is not also the measurement it is judged by.
    // (A round-robin of GEMMs rates the Ampere 16 x 128 tile higher than `tessera bench gemm`'s full round-robin does,
    // cuBLAS in it or not -- docs/PERF.md, thirty-ninth and fifty-first sections: where the two disagree, `--versus`
    // times the other plan in the full round-robin; scripts/device/gemm_h100.sh plans_confirm.)
    const std::vector<double> ms = bench::time_medians_interleaved_ms(all, g.stream, g.warmup, g.repeats, g.flush);
    std::vector<size_t> order;
    for (size_t i = 1; i < ms.size(); ++i) order.push_back(i);
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return ms[x] < ms[y]; });
    if (order.size() > 3) order.resize(3);
    size_t best = 0;  // the planner's plan, when no other plan can be forced
    double ratio = 1.0, first_ratio = 1.0, best_ms = ms[0], cublas_ms = 0;
    std::vector<double> confirm;
    if (!order.empty()) {
      first_ratio = ms[order[0]] / ms[0];
      std::vector<std::function<void(cudaStream_t)>> again = {all[0]};
      for (size_t i : order) again.push_back(all[i]);
      again.push_back(cublas_ref);
      confirm = bench::time_medians_interleaved_ms(again, g.stream, g.warmup, 3 * g.repeats, g.flush);
      cublas_ms = confirm.back();
      confirm.pop_back();
      size_t c = 1;
      for (size_t i = 2; i < confirm.size(); ++i)
        if (confirm[i] < confirm[c]) c = i;
      best = order[c - 1];
      best_ms = confirm[c];
      ratio = confirm[c] / confirm[0];  // the planner's speed over the best other plan's (above 1: the planner's is faster)
    }
    within += ratio >= 0.95;
    std::string note = "planner: " + plans[0].str() + "; first pass (us): planner " + bench::fmt(ms[0] * 1e3, 2) + ", forced:";
    for (size_t i = 1; i < ms.size(); ++i) note += " [" + plan_head(plans[i]) + "] " + bench::fmt(ms[i] * 1e3, 2);
    note += "; first-pass ratio " + bench::fmt(first_ratio, 3);
    if (!confirm.empty()) {
      note += "; second pass (us, " + std::to_string(3 * g.repeats) + " runs each): planner " + bench::fmt(confirm[0] * 1e3, 2);
      for (size_t j = 0; j < order.size(); ++j)
        note += ", [" + plan_head(plans[order[j]]) + "] " + bench::fmt(confirm[1 + j] * 1e3, 2);
      note += std::string(g.silu_residual ? ", cublasGemmEx + gemm_epilogue_inplace " : ", cublasGemmEx ") + bench::fmt(cublas_ms * 1e3, 2);
    }
    note += std::string("; ") + menu + ", " + dt_name + " in/out, A row-major, B column-major, D row-major; L2 evicted by a read pass before each run";
    const double planner_ms = confirm.empty() ? ms[0] : confirm[0];
    report.add(Record{"gemm", "tessera", g.silu_residual ? "plan_choice_bias_silu_residual" : "plan_choice", size, tflops(m, n, k, planner_ms), "TFLOP/s", "best forced plan: " + plans[best].str(),
                      tflops(m, n, k, best_ms), ratio, note});
    table.push_back({size, plan_head(plans[0]), bench::fmt(planner_ms * 1e3, 1),
                     plan_head(plans[best]), bench::fmt(best_ms * 1e3, 1), bench::fmt(ratio, 3),
                     bench::fmt(first_ratio, 3), std::to_string(ms.size())});
    cudaFree(A); cudaFree(B); cudaFree(Dt); cudaFree(Dc);
    if (bias) cudaFree(bias);
    if (R) cudaFree(R);
    if (ws) cudaFree(ws);
  }
  bench::progress(o, "gemm", done, static_cast<int>(g.shapes.size()), "done");
  std::printf("\n%s GEMM: the planner's plan against every forced plan, %s, us (second pass: the planner's plan and the first pass's\n"
              "three fastest others, median of %d; first pass: every plan, median of %d; L2 evicted before each run)\n",
              dt_name, menu, 3 * g.repeats, g.repeats);
  bench::print_table(stdout, {"size", "planner's plan", "us", "best other plan", "us", "planner / best (speed)", "first pass", "plans"}, table);
  std::printf("the planner within 5%% of the best forced plan on %d of %zu shapes (%.0f%%)\n", within, g.shapes.size(),
              g.shapes.empty() ? 0.0 : 100.0 * within / static_cast<double>(g.shapes.size()));
  return 0;
}

}  // namespace tessera::bench::gemm_bench
