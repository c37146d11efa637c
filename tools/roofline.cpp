// tools/roofline.cpp -- `tessera roofline`: measure the GPU's ceilings and place Tessera's kernels under them.
//
// In one run on the present GPU:
//   ceilings   memory: cudaMemcpy device-to-device of 512 MiB (GB/s = bytes read + written);
//              compute: cuBLAS bf16 GEMM (cublasGemmEx, fp32 accumulation) and fp32 SGEMM (CUDA cores, no
//              TF32) at 8192^3
//   kernels    copy (tessera::copy_2d vector; 0 FLOP), the streaming pipeline y = f^work(x) with 1..256
//              FMAs per element (tessera::stream_transform: walks up the memory roof), the fused row norms
//              and elementwise chains (fused and unfused), tessera::gemm (bf16 tensor cores, fp32 FFMA,
//              decode shape, bias+gelu fused into the epilogue vs GEMM + a separate epilogue kernel)
// For each kernel: FLOPs and the bytes that must move (each input read once, each output written once,
// per kernel of a sequence), arithmetic intensity = FLOPs / bytes, achieved GFLOP/s and GB/s, and the
// fraction of the roof at that intensity, min(compute ceiling, memory ceiling x intensity), where the
// compute ceiling is bf16 for tensor-core kernels and fp32 for everything else.
// Every time is the median of --repeats runs (default 20, --quick 5) after 3 warm-ups, each run after an
// untimed L2 flush.  Each kernel's output is checked (sampled) before it is timed.
//
// Output: a table; --json FILE (records in the bench format plus the roofline fields); the plot
// PREFIX.png and PREFIX.svg drawn by tools/roofline_plot.py (python3 + matplotlib).
#include <cublas_v2.h>     // cublasGemmEx, cublasSgemm
#include <cuda_bf16.h>     // __nv_bfloat16
#include <cuda_runtime.h>  // events, memcpy

#include <algorithm>   // std::max, std::min
#include <cmath>       // std::fma, std::fabs
#include <cstdint>     // int64_t
#include <cstdio>      // std::printf, std::FILE
#include <cstdlib>     // std::strtol
#include <cstring>     // std::strcmp
#include <ctime>       // std::time
#include <filesystem>  // std::filesystem::exists
#include <functional>  // std::function
#include <random>      // std::mt19937
#include <stdexcept>   // std::runtime_error
#include <string>      // std::string
#include <tuple>       // std::tuple_size_v
#include <unistd.h>    // mkstemp, close
#include <vector>      // std::vector

#include "bench_common.hpp"                    // time_median_ms, flush_l2, print_table, fmt
#include "command.hpp"                         // TESSERA_COMMAND
#include "scorecard.hpp"                       // tools_script, run_script
#include "tessera/host/copy.hpp"               // copy_2d, stream_transform
#include "tessera/host/fused.hpp"              // l2_norm, rms_norm, elementwise, chains
#include "tessera/host/gemm.hpp"               // gemm, gemm_bias_act, gemm_epilogue_inplace
#include "tessera/kernel/fused/reference.hpp"  // float64 references

namespace {

using namespace tessera;
using bench::fmt;
using bench::json_escape;

void check_cublas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + " failed: cuBLAS status " + std::to_string(static_cast<int>(s)));
}
void check_gemm(const GemmStatus& s, const char* what) {
  if (!s.ok()) throw std::runtime_error(std::string(what) + ": " + s.message);
}
void fail(const std::string& what) { throw std::runtime_error("roofline: " + what); }

struct Options {
  std::string json_path;
  std::string plot_prefix = "roofline";
  bool plot = true;
  bool quick = false;
  int repeats = 0;
  std::string python = "python3";
  std::string script;
};

// One measured kernel.
struct Point {
  std::string group;    // "ceiling", "copy", "fused", "gemm"
  std::string kernel, variant, size;
  std::string ceiling;  // compute ceiling that applies: "bf16" (tensor cores) or "fp32"
  std::string pair;     // fused/unfused pairs share this name ("" = none)
  std::string role;     // "fused" / "unfused" / ""
  double flops = 0, bytes = 0, us = 0;
  double gflops() const { return flops / (us * 1e3); }
  double gbps() const { return bytes / (us * 1e3); }
  double ai() const { return flops / bytes; }
};

struct Ceilings {
  double mem_gbps = 0, bf16_gflops = 0, fp32_gflops = 0;
  double peak(const std::string& c) const { return c == "bf16" ? bf16_gflops : fp32_gflops; }
  double roof(const Point& p) const { return std::min(peak(p.ceiling), mem_gbps * p.ai()); }
};

template <class T>
void fill_random(std::vector<T>& h, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  for (auto& v : h) v = fused::Numeric<T>::from_float(u(rng));
}

class Roofline {
 public:
  explicit Roofline(const Options& o) : o_(o) {
    TESSERA_BENCH_CUDA(cudaStreamCreate(&stream_));
    check_cublas(cublasCreate(&cublas_), "cublasCreate");
    check_cublas(cublasSetStream(cublas_, stream_), "cublasSetStream");
  }
  ~Roofline() {
    cublasDestroy(cublas_);
    for (void* p : allocations_) cudaFree(p);
    cudaStreamDestroy(stream_);
  }

  void run() {
    measure_ceilings();
    measure_copy();
    measure_fused();
    measure_gemm();
  }
  const Ceilings& ceilings() const { return ceil_; }
  const std::vector<Point>& points() const { return points_; }

 private:
  int repeats() const { return o_.repeats ? o_.repeats : (o_.quick ? 5 : 20); }
  double time_us(const std::function<void(cudaStream_t)>& launch) {
    return 1e3 * bench::time_median_ms(launch, stream_, 3, repeats(), bench::flush_l2);
  }
  template <class T>
  T* alloc(size_t n) {
    void* p = nullptr;
    TESSERA_BENCH_CUDA(cudaMalloc(&p, n * sizeof(T)));
    allocations_.push_back(p);
    return static_cast<T*>(p);
  }
  template <class T>
  T* upload(const std::vector<T>& h) {
    T* d = alloc<T>(h.size());
    TESSERA_BENCH_CUDA(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
  }
  void release_all() {
    TESSERA_BENCH_CUDA(cudaDeviceSynchronize());
    for (void* p : allocations_) cudaFree(p);
    allocations_.clear();
  }
  template <class T>
  std::vector<T> download(const T* d, size_t n) {
    std::vector<T> h(n);
    TESSERA_BENCH_CUDA(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }
  void add(Point p) { points_.push_back(std::move(p)); }
  void progress(const std::string& what) { std::fprintf(stderr, "[roofline] %s\n", what.c_str()); }

  // ---------------------------------------------------------------------------------------------
  void measure_ceilings() {
    progress("ceilings: cudaMemcpy D2D, cuBLAS bf16 and fp32 GEMM 8192^3");
    const size_t bytes = size_t{512} << 20;
    std::vector<uint8_t> hsrc(bytes);
    std::mt19937 rng(1);
    for (auto& b : hsrc) b = static_cast<uint8_t>(rng());
    uint8_t* src = upload(hsrc);
    uint8_t* dst = alloc<uint8_t>(bytes);
    const double us = time_us([&](cudaStream_t s) {
      TESSERA_BENCH_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s));
    });
    if (download(dst, 4096) != std::vector<uint8_t>(hsrc.begin(), hsrc.begin() + 4096)) fail("cudaMemcpy check");
    ceil_.mem_gbps = 2.0 * bytes / (us * 1e3);
    add({"ceiling", "cudaMemcpy D2D", "", "512 MiB", "fp32", "", "", 0, 2.0 * bytes, us});
    release_all();

    const int64_t n = o_.quick ? 4096 : 8192;
    const std::string size = "M=N=K=" + std::to_string(n);
    {
      std::vector<__nv_bfloat16> h(static_cast<size_t>(n * n));
      fill_random(h, 2, -1.f, 1.f);
      const __nv_bfloat16* a = upload(h);
      fill_random(h, 3, -1.f, 1.f);
      const __nv_bfloat16* b = upload(h);
      __nv_bfloat16* d = alloc<__nv_bfloat16>(h.size());
      const float alpha = 1.f, beta = 0.f;
      const double us_bf16 = time_us([&](cudaStream_t) {
        check_cublas(cublasGemmEx(cublas_, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(n), int(n), &alpha, b, CUDA_R_16BF,
                                  int(n), a, CUDA_R_16BF, int(n), &beta, d, CUDA_R_16BF, int(n), CUBLAS_COMPUTE_32F,
                                  CUBLAS_GEMM_DEFAULT),
                     "cublasGemmEx");
      });
      const double flops = 2.0 * n * n * n, mbytes = 3.0 * n * n * sizeof(__nv_bfloat16);
      ceil_.bf16_gflops = flops / (us_bf16 * 1e3);
      add({"ceiling", "cuBLAS bf16 GEMM", "cublasGemmEx", size, "bf16", "", "", flops, mbytes, us_bf16});
      release_all();
    }
    {
      std::vector<float> h(static_cast<size_t>(n * n));
      fill_random(h, 4, -1.f, 1.f);
      const float* a = upload(h);
      fill_random(h, 5, -1.f, 1.f);
      const float* b = upload(h);
      float* d = alloc<float>(h.size());
      const float alpha = 1.f, beta = 0.f;
      check_cublas(cublasSetMathMode(cublas_, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");  // no TF32
      const double us_f32 = time_us([&](cudaStream_t) {
        check_cublas(cublasSgemm(cublas_, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(n), int(n), &alpha, b, int(n), a,
                                 int(n), &beta, d, int(n)),
                     "cublasSgemm");
      });
      check_cublas(cublasSetMathMode(cublas_, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
      const double flops = 2.0 * n * n * n, mbytes = 3.0 * n * n * sizeof(float);
      ceil_.fp32_gflops = flops / (us_f32 * 1e3);
      add({"ceiling", "cuBLAS fp32 SGEMM", "cublasSgemm (no TF32)", size, "fp32", "", "", flops, mbytes, us_f32});
      release_all();
    }
  }

  // ---------------------------------------------------------------------------------------------
  void measure_copy() {
    const int64_t n = int64_t{64} << 20;  // 256 MiB of fp32
    std::vector<float> hx(static_cast<size_t>(n));
    fill_random(hx, 6, -2.f, 2.f);
    const float* x = upload(hx);
    float* y = alloc<float>(hx.size());
    const std::string size = "n=" + std::to_string(n) + " fp32";

    progress("copy: tessera::copy_2d vector");
    Copy2d p;
    p.src = x;
    p.dst = y;
    p.rows = 1;
    p.cols = n;
    p.ld_src = n;
    p.ld_dst = n;
    p.elem_bytes = 4;
    const CopyPlan plan(p, CopyVariant::kVector);
    plan.run(stream_);
    TESSERA_BENCH_CUDA(cudaStreamSynchronize(stream_));
    const std::vector<float> hy = download(y, 1 << 16);
    if (!std::equal(hy.begin(), hy.end(), hx.begin())) fail("copy_2d output differs from its input");
    add({"copy", "copy_2d", "vector", size, "fp32", "", "", 0, 2.0 * n * 4, time_us([&](cudaStream_t s) { plan.run(s); })});

    // The streaming pipeline: f(v) = v*A + B applied `work` times (one FMA = 2 FLOPs each).
    std::vector<int> works = o_.quick ? std::vector<int>{1, 64} : std::vector<int>{1, 4, 16, 64, 256};
    for (int work : works) {
      progress("copy: stream_transform work=" + std::to_string(work));
      PipelineRun run;
      run.variant = PipelineVariant::kCpAsync;
      run.stages = 2;
      stream_transform(x, y, n, work, run, stream_);
      TESSERA_BENCH_CUDA(cudaStreamSynchronize(stream_));
      const std::vector<float> got = download(y, 4096);
      for (size_t i = 0; i < got.size(); ++i) {
        float v = hx[i];
        for (int w = 0; w < work; ++w) v = std::fma(v, kPipelineA, kPipelineB);
        if (std::fabs(got[i] - v) > 1e-6f * (1 + std::fabs(v))) fail("stream_transform output wrong at " + std::to_string(i));
      }
      const double us = time_us([&](cudaStream_t s) { stream_transform(x, y, n, work, run, s); });
      add({"copy", "stream_transform", "cp.async 2 stages, " + std::to_string(work) + " FMA/elem", size, "fp32", "", "",
           2.0 * work * n, 8.0 * n, us});
    }
    release_all();
  }

  // ---------------------------------------------------------------------------------------------
  template <class T>
  void norm_point(const char* type, bool rms, int64_t rows, int64_t cols, fused::NormAlgo algo) {
    const size_t n = static_cast<size_t>(rows * cols);
    std::vector<T> hx(n), hw(static_cast<size_t>(cols));
    fill_random(hx, 7, -1.f, 1.f);
    fill_random(hw, 8, 0.5f, 1.5f);
    const T* x = upload(hx);
    const T* w = upload(hw);
    T* y = alloc<T>(n);
    fused::NormOptions opt;
    opt.algo = algo;
    opt.stream = stream_;
    const float eps = 1e-6f;
    auto launch = [&](cudaStream_t) {
      if (rms) fused::rms_norm(x, w, y, rows, cols, eps, opt);
      else fused::l2_norm(x, y, rows, cols, eps, opt);
    };
    launch(stream_);
    TESSERA_BENCH_CUDA(cudaStreamSynchronize(stream_));
    for (int64_t r : {int64_t{0}, rows - 1}) {
      const std::vector<T> got = download(y + r * cols, static_cast<size_t>(cols));
      const auto ref = fused::reference::row_norm(hx.data() + r * cols, rms ? hw.data() : nullptr, cols, eps);
      if (!(fused::reference::max_rel_error(got.data(), ref, fused::reference::magnitude_floor<T>()) <=
            fused::reference::tolerance<T>()))
        fail(std::string(rms ? "rms_norm" : "l2_norm") + " output wrong");
    }
    const double us = time_us(launch);
    // FLOPs: per element x*x+ss (FMA, 2) and x*s (1) [and *w (1)]; per row +eps, sqrt, 1/ [and /cols].
    const double flops = double(n) * (rms ? 4 : 3) + double(rows) * (rms ? 4 : 3);
    const double bytes = 2.0 * n * sizeof(T) + (rms ? cols * sizeof(T) : 0);
    const std::string plan = fused::plan_row_norm(x, rows, cols, opt).str();
    add({"fused", std::string(rms ? "rms_norm " : "l2_norm ") + type, plan,
         std::to_string(rows) + "x" + std::to_string(cols), "fp32", "", "", flops, bytes, us});
    release_all();
  }

  template <class F>
  void chain_points(const F& f, float lo, float hi) {
    const int64_t n = int64_t{64} << 20;
    std::vector<float> hx(static_cast<size_t>(n));
    fill_random(hx, 9, lo, hi);
    const float* x = upload(hx);
    float* y = alloc<float>(hx.size());
    const std::string name = ew::to_string(f);
    constexpr int kStages = std::tuple_size_v<decltype(ew::stages(f))>;
    for (bool unfused : {false, true}) {
      auto launch = [&](cudaStream_t s) {
        if (unfused) fused::elementwise_unfused(f, x, y, n, s);
        else fused::elementwise(f, x, y, n, s);
      };
      launch(stream_);
      TESSERA_BENCH_CUDA(cudaStreamSynchronize(stream_));
      const std::vector<float> got = download(y, 4096);
      std::vector<double> ref(got.size());
      for (size_t i = 0; i < ref.size(); ++i) ref[i] = f(double(hx[i]));
      if (!(fused::reference::max_rel_error(got.data(), ref, 1.0) <= 4e-5)) fail("chain " + name + " output wrong");
      const double us = time_us(launch);
      const double bytes = 2.0 * n * sizeof(float) * (unfused ? kStages : 1);
      add({"fused", "chain " + name, unfused ? std::to_string(kStages) + " kernels" : "1 kernel",
           "n=" + std::to_string(n) + " fp32", "fp32", name + " fp32", unfused ? "unfused" : "fused",
           double(ew::flops(f)) * n, bytes, us});
    }
    release_all();
  }

  void measure_fused() {
    const fused::NormAlgo automatic = fused::NormAlgo::automatic;
    progress("fused: l2_norm / rms_norm");
    norm_point<float>("fp32", false, 16384, 4096, automatic);
    norm_point<float>("fp32", false, 4096, 16384, automatic);
    if (!o_.quick) {
      norm_point<float>("fp32", true, 16384, 4096, automatic);
      norm_point<__nv_bfloat16>("bf16", false, 16384, 4096, automatic);
      norm_point<float>("fp32", false, 4096, 16384, fused::NormAlgo::two_pass);
    }
    progress("fused: elementwise chains, fused and unfused");
    chain_points(fused::chains::sqrt_sin(), 0.05f, 3.0f);
    chain_points(fused::chains::gelu_affine(1.702f, -0.25f), -3.f, 3.f);
  }

  // ---------------------------------------------------------------------------------------------
  // D = A @ B (row-major, packed) by tessera::gemm, checked against cuBLAS on the same data.
  template <class T>
  void gemm_point(int64_t m, int64_t n, int64_t k, const std::string& ceiling) {
    progress("gemm: " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " " + ceiling);
    std::vector<T> ha(static_cast<size_t>(m * k)), hb(static_cast<size_t>(k * n));
    fill_random(ha, 10, -1.f, 1.f);
    fill_random(hb, 11, -1.f, 1.f);
    const T* a = upload(ha);
    const T* b = upload(hb);
    T* d = alloc<T>(static_cast<size_t>(m * n));
    T* d_ref = alloc<T>(static_cast<size_t>(m * n));
    auto launch = [&](cudaStream_t s) { check_gemm(gemm(m, n, k, a, b, d, s), "tessera::gemm"); };
    launch(stream_);
    const float alpha = 1.f, beta = 0.f;
    constexpr bool kBf16 = std::is_same_v<T, __nv_bfloat16>;
    if (!kBf16) check_cublas(cublasSetMathMode(cublas_, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");
    // row-major D = A B  <=>  column-major D^T = B^T A^T
    check_cublas(cublasGemmEx(cublas_, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(m), int(k), &alpha, b,
                              kBf16 ? CUDA_R_16BF : CUDA_R_32F, int(n), a, kBf16 ? CUDA_R_16BF : CUDA_R_32F, int(k),
                              &beta, d_ref, kBf16 ? CUDA_R_16BF : CUDA_R_32F, int(n), CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx (reference)");
    if (!kBf16) check_cublas(cublasSetMathMode(cublas_, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
    TESSERA_BENCH_CUDA(cudaStreamSynchronize(stream_));
    const size_t count = std::min<size_t>(static_cast<size_t>(m * n), 1 << 16);
    const auto got = download(d, count), ref = download(d_ref, count);
    double max_diff = 0, max_ref = 0;
    for (size_t i = 0; i < count; ++i) {
      const double g = fused::reference::to_double(got[i]), r = fused::reference::to_double(ref[i]);
      max_diff = std::max(max_diff, std::fabs(g - r));
      max_ref = std::max(max_ref, std::fabs(r));
      if (std::isnan(g)) max_diff = INFINITY;
    }
    if (!(max_diff <= (kBf16 ? 1e-2 : 1e-5) * max_ref)) fail("tessera::gemm differs from cuBLAS");
    const double us = time_us(launch);
    add({"gemm", "tessera::gemm " + std::string(kBf16 ? "bf16" : "fp32"), kBf16 ? "tensor cores" : "fp32 FFMA",
         std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k), ceiling, "", "",
         2.0 * m * n * k, double(m * k + k * n + m * n) * sizeof(T), us});
    release_all();
  }

  // bias + gelu in the GEMM's epilogue vs GEMM then a separate epilogue kernel over D.
  void gemm_epilogue_pair(int64_t m, int64_t n, int64_t k) {
    progress("gemm: bias+gelu fused vs unfused " + std::to_string(m) + "^3");
    using T = __nv_bfloat16;
    std::vector<T> ha(static_cast<size_t>(m * k)), hb(static_cast<size_t>(k * n)), hbias(static_cast<size_t>(n));
    fill_random(ha, 12, -1.f, 1.f);
    fill_random(hb, 13, -1.f, 1.f);
    fill_random(hbias, 14, -1.f, 1.f);
    const T* a = upload(ha);
    const T* b = upload(hb);
    const T* bias = upload(hbias);
    T* d_fused = alloc<T>(static_cast<size_t>(m * n));
    T* d_unfused = alloc<T>(static_cast<size_t>(m * n));
    GemmArgs epi;
    epi.m = m;
    epi.n = n;
    epi.d = {d_unfused, Dtype::bf16, MatrixOrder::row_major, 0};
    epi.bias_mode = BiasMode::per_column;
    epi.bias = bias;
    epi.bias_type = Dtype::bf16;
    epi.bias_size = n;
    epi.activation = Activation::gelu_erf;
    auto fused_launch = [&](cudaStream_t s) {
      check_gemm(gemm_bias_act(m, n, k, a, b, bias, Activation::gelu_erf, d_fused, s), "gemm_bias_act");
    };
    auto unfused_launch = [&](cudaStream_t s) {
      check_gemm(gemm(m, n, k, a, b, d_unfused, s), "tessera::gemm");
      check_gemm(gemm_epilogue_inplace(epi, s), "gemm_epilogue_inplace");
    };
    fused_launch(stream_);
    unfused_launch(stream_);
    TESSERA_BENCH_CUDA(cudaStreamSynchronize(stream_));
    const size_t count = 1 << 16;
    const auto f = download(d_fused, count), u = download(d_unfused, count);
    double max_diff = 0, max_ref = 0;
    for (size_t i = 0; i < count; ++i) {
      const double x = fused::reference::to_double(f[i]), r = fused::reference::to_double(u[i]);
      max_diff = std::max(max_diff, std::isnan(x) ? INFINITY : std::fabs(x - r));
      max_ref = std::max(max_ref, std::fabs(r));
    }
    if (!(max_diff <= 2e-2 * max_ref)) fail("fused and unfused bias+gelu GEMMs disagree");
    const std::string size = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
    const double mm = 2.0 * m * n * k, elems = double(m) * n;
    const double ab = double(m * k + k * n) * sizeof(T), dd = elems * sizeof(T), bb = double(n) * sizeof(T);
    // epilogue FLOPs: + bias (1) and gelu (counted as ew::gelu: 4) per element
    const double epi_flops = 5.0 * elems;
    add({"gemm", "gemm + bias + gelu", "fused epilogue", size, "bf16", "gemm+bias+gelu", "fused", mm + epi_flops,
         ab + bb + dd, time_us(fused_launch)});
    add({"gemm", "gemm + bias + gelu", "gemm, then epilogue kernel", size, "bf16", "gemm+bias+gelu", "unfused",
         mm + epi_flops, (ab + dd) + (dd + bb + dd), time_us(unfused_launch)});
    release_all();
  }

  void measure_gemm() {
    gemm_point<__nv_bfloat16>(o_.quick ? 4096 : 8192, o_.quick ? 4096 : 8192, o_.quick ? 4096 : 8192, "bf16");
    if (!o_.quick) gemm_point<__nv_bfloat16>(2048, 2048, 2048, "bf16");
    gemm_point<__nv_bfloat16>(16, 8192, 8192, "bf16");  // decode: streams B, memory-bound
    gemm_point<float>(4096, 4096, 4096, "fp32");
    gemm_epilogue_pair(4096, 4096, 4096);
  }

  Options o_;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  std::vector<void*> allocations_;
  Ceilings ceil_;
  std::vector<Point> points_;
};

// ---------------------------------------------------------------------------------------------
bool write_json(const std::string& path, const Roofline& r, const std::string& command_line, int repeats) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "roofline: cannot write '%s'\n", path.c_str());
    return false;
  }
  cudaDeviceProp p{};
  int dev = 0, drv = 0, rt = 0;
  cudaGetDevice(&dev);
  cudaGetDeviceProperties(&p, dev);
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  char date[64];
  const std::time_t t = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  const Ceilings& c = r.ceilings();
  std::fprintf(f, "{\n  \"suite\": \"roofline\",\n  \"date\": \"%s\",\n  \"command\": \"%s\",\n", date,
               json_escape(command_line).c_str());
  std::fprintf(f, "  \"gpu\": {\"name\": \"%s\", \"sm_count\": %d, \"cc\": \"%d.%d\", \"l2_bytes\": %d, \"driver\": %d, "
               "\"runtime\": %d},\n", json_escape(p.name).c_str(), p.multiProcessorCount, p.major, p.minor,
               p.l2CacheSize, drv, rt);
  std::fprintf(f, "  \"method\": \"median of %d runs after 3 warm-ups, L2 flushed before each run\",\n", repeats);
  std::fprintf(f, "  \"ceilings\": {\"memory_gbps\": %.6g, \"memory_reference\": \"cudaMemcpy D2D 512 MiB, bytes read + "
               "written\", \"bf16_gflops\": %.6g, \"bf16_reference\": \"cublasGemmEx bf16, fp32 accumulation\", "
               "\"fp32_gflops\": %.6g, \"fp32_reference\": \"cublasSgemm, pedantic math (no TF32)\"},\n",
               c.mem_gbps, c.bf16_gflops, c.fp32_gflops);
  std::fprintf(f, "  \"records\": [\n");
  const auto& pts = r.points();
  for (size_t i = 0; i < pts.size(); ++i) {
    const Point& q = pts[i];
    const bool zero = q.flops == 0;
    const double figure = zero ? q.gbps() : q.gflops();
    const double ref = zero ? c.mem_gbps : c.roof(q);
    std::fprintf(f,
                 "    {\"suite\": \"roofline\", \"group\": \"%s\", \"kernel\": \"%s\", \"variant\": \"%s\", \"size\": \"%s\", "
                 "\"figure\": %.6g, \"unit\": \"%s\", \"reference\": \"%s\", \"reference_figure\": %.6g, \"ratio\": %.6g, "
                 "\"time_us\": %.6g, \"flops\": %.6g, \"bytes\": %.6g, \"intensity\": %.6g, \"gflops\": %.6g, \"gbps\": %.6g, "
                 "\"ceiling\": \"%s\", \"pair\": \"%s\", \"role\": \"%s\"}%s\n",
                 json_escape(q.group).c_str(), json_escape(q.kernel).c_str(), json_escape(q.variant).c_str(),
                 json_escape(q.size).c_str(), figure, zero ? "GB/s" : "GFLOP/s",
                 zero ? "memory ceiling (cudaMemcpy D2D)" : "roof: min(compute ceiling, memory ceiling x intensity)",
                 ref, figure / ref, q.us, q.flops, q.bytes, zero ? 0.0 : q.ai(), q.gflops(), q.gbps(),
                 q.ceiling.c_str(), json_escape(q.pair).c_str(), q.role.c_str(), i + 1 < pts.size() ? "," : "");
  }
  std::fprintf(f, "  ]\n}\n");
  std::fclose(f);
  return true;
}

void print_report(const Roofline& r) {
  const Ceilings& c = r.ceilings();
  cudaDeviceProp p{};
  cudaGetDeviceProperties(&p, 0);
  std::printf("GPU: %s, %d SMs\n", p.name, p.multiProcessorCount);
  std::printf("ceilings: memory %.0f GB/s (cudaMemcpy D2D), bf16 %.1f TFLOP/s (cuBLAS), fp32 %.1f TFLOP/s (cuBLAS)\n",
              c.mem_gbps, c.bf16_gflops / 1e3, c.fp32_gflops / 1e3);
  std::printf("ridge points: bf16 %.1f FLOP/B, fp32 %.1f FLOP/B\n\n", c.bf16_gflops / c.mem_gbps,
              c.fp32_gflops / c.mem_gbps);
  std::vector<std::vector<std::string>> rows;
  for (const Point& q : r.points()) {
    const bool zero = q.flops == 0;
    const double roof = zero ? c.mem_gbps : c.roof(q);
    const double frac = zero ? q.gbps() / c.mem_gbps : q.gflops() / roof;
    const std::string bound = zero ? "memory" : (c.mem_gbps * q.ai() < c.peak(q.ceiling) ? "memory" : "compute");
    rows.push_back({q.kernel, q.variant, q.size, fmt(q.us, 1), zero ? "0" : fmt(q.ai(), 3),
                    zero ? "-" : fmt(q.gflops(), 0), fmt(q.gbps(), 0), q.ceiling + "/" + bound,
                    fmt(100 * frac, 1) + "%"});
  }
  bench::print_table(stdout, {"kernel", "variant", "size", "us", "FLOP/B", "GFLOP/s", "GB/s", "roof", "of roof"}, rows);
}

void help() {
  std::printf(
      "usage: tessera roofline [--json FILE] [--plot PREFIX | --no-plot] [--quick] [--repeats N]\n"
      "                        [--python EXE] [--script FILE]\n\n"
      "Measures the present GPU's memory ceiling (cudaMemcpy D2D) and compute ceilings (cuBLAS bf16 and fp32\n"
      "GEMM), runs Tessera's copy, fused and GEMM kernels, and prints each one's arithmetic intensity\n"
      "(FLOPs / bytes that must move), GFLOP/s, GB/s and fraction of the roof.  Writes a log-log roofline plot\n"
      "PREFIX.png and PREFIX.svg (default PREFIX: roofline) with tools/roofline_plot.py (python3, matplotlib).\n\n"
      "  --json FILE     write the measurements (bench record format + roofline fields)\n"
      "  --plot PREFIX   plot file names without extension (e.g. docs/roofline)\n"
      "  --no-plot       skip the plot\n"
      "  --quick         smaller GEMMs, fewer kernels and repetitions\n"
      "  --repeats N     timed runs per kernel (default 20)\n"
      "  --python EXE    Python interpreter for the plot (default python3)\n"
      "  --script FILE   the plotting script (default: tools/roofline_plot.py of this source tree)\n\n"
      "example: tessera roofline --json bench/results/roofline.json --plot docs/roofline\n");
}

int run_roofline(int argc, char** argv) {
  Options o;
  std::string command_line = "tessera roofline";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    command_line += " " + a;
    auto value = [&](const char* what) -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(std::string("roofline: ") + a + " needs " + what);
      command_line += std::string(" ") + argv[i + 1];
      return argv[++i];
    };
    try {
      if (a == "--help" || a == "-h") {
        help();
        return 0;
      } else if (a == "--json") {
        o.json_path = value("a file name");
      } else if (a == "--plot") {
        o.plot_prefix = value("a file prefix");
      } else if (a == "--no-plot") {
        o.plot = false;
      } else if (a == "--quick") {
        o.quick = true;
      } else if (a == "--repeats") {
        const std::string v = value("a number");
        char* end = nullptr;
        const long n = std::strtol(v.c_str(), &end, 10);
        if (*end || n < 1 || n > 100000)
          throw std::invalid_argument("roofline: --repeats expects 1..100000, got '" + v + "'");
        o.repeats = static_cast<int>(n);
      } else if (a == "--python") {
        o.python = value("an executable");
      } else if (a == "--script") {
        o.script = value("a file name");
      } else {
        throw std::invalid_argument("roofline: unknown argument '" + a + "' (see tessera roofline --help)");
      }
    } catch (const std::invalid_argument& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return 2;
    }
  }
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    std::fprintf(stderr, "roofline: no CUDA GPU present; the roofline is measured on one\n");
    return 1;
  }
  if (o.script.empty()) o.script = tessera::scorecard::tools_script("roofline_plot.py");
  if (o.plot && !std::filesystem::exists(o.script)) {
    std::fprintf(stderr, "roofline: plotting script '%s' not found (pass --script FILE or --no-plot)\n", o.script.c_str());
    return 2;
  }

  try {
    Roofline r(o);
    r.run();
    print_report(r);
    const int repeats = o.repeats ? o.repeats : (o.quick ? 5 : 20);
    std::string json = o.json_path;
    if (json.empty() && o.plot) {  // the plot reads the measurements from a file
      char tmpl[] = "/tmp/tessera_roofline_XXXXXX";
      const int fd = mkstemp(tmpl);
      if (fd < 0) throw std::runtime_error("roofline: cannot create a temporary file");
      close(fd);
      json = tmpl;
    }
    if (!json.empty()) {
      if (!write_json(json, r, command_line, repeats)) return 1;
      if (!o.json_path.empty()) std::printf("wrote %s\n", json.c_str());
    }
    if (o.plot) {
      const int rc = tessera::scorecard::run_script(o.python, o.script, {json, o.plot_prefix});
      if (o.json_path.empty()) std::remove(json.c_str());
      if (rc != 0) {
        std::fprintf(stderr, "roofline: the plot failed (%s exited with %d); is matplotlib installed? "
                     "(python3 -m pip install matplotlib)\n", o.python.c_str(), rc);
        return 1;
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace

TESSERA_COMMAND("roofline", "measure memory/compute ceilings and plot Tessera's kernels on a roofline", run_roofline);
