// Uses the installed headers at run time and at compile time, and the installed kernels.
//
//   consumer host   the layout algebra and a device function from kernel.cu (no GPU needed)
//   consumer gpu    tessera::gemm (fp32) and tessera::fused::l2_norm on the GPU, checked against a
//                   host reference; exits 77 (reported as skipped by ctest) when no GPU is present
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tessera/host/fused.hpp"
#include "tessera/host/gemm.hpp"
#include "tessera/layout.hpp"

int consumer_kernel_tile_size();  // kernel.cu

namespace {

constexpr int kSkipped = 77;

int check_host() {
  constexpr tessera::Layout kTile = tessera::make_layout_row_major(tessera::make_tuple(8, 16));
  static_assert(tessera::size(kTile) == 128, "compile-time algebra in a consumer");
  tessera::Layout l = tessera::parse_layout("(6,2):(8,2)");
  std::string r = tessera::to_string(tessera::composition(l, tessera::parse_layout("(4,3):(3,1)")));
  std::printf("%s %d\n", r.c_str(), consumer_kernel_tile_size());
  return r == "((2,2),3):((24,2),8)" && consumer_kernel_tile_size() == 4096 ? 0 : 1;
}

bool cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) std::fprintf(stderr, "consumer: %s: %s\n", what, cudaGetErrorString(e));
  return e == cudaSuccess;
}

// D = A @ B (row-major, fp32 exact) and y = l2_norm(x) on the GPU against host references.
int check_gpu() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("consumer gpu: skipped (no CUDA device)\n");
    return kSkipped;
  }
  const int64_t m = 70, n = 50, k = 33, rows = 5, cols = 300;
  std::vector<float> a(m * k), b(k * n), d(m * n), x(rows * cols), y(rows * cols);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(static_cast<int>(i * 7 % 13) - 6) / 8;
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(static_cast<int>(i * 5 % 11) - 5) / 4;
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i * 3 % 17) - 8) / 3;
  float *da = nullptr, *db = nullptr, *dd = nullptr, *dx = nullptr, *dy = nullptr;
  bool ok = cuda_ok(cudaMalloc(&da, a.size() * sizeof(float)), "cudaMalloc") &&
            cuda_ok(cudaMalloc(&db, b.size() * sizeof(float)), "cudaMalloc") &&
            cuda_ok(cudaMalloc(&dd, d.size() * sizeof(float)), "cudaMalloc") &&
            cuda_ok(cudaMalloc(&dx, x.size() * sizeof(float)), "cudaMalloc") &&
            cuda_ok(cudaMalloc(&dy, y.size() * sizeof(float)), "cudaMalloc") &&
            cuda_ok(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice), "copy A") &&
            cuda_ok(cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice), "copy B") &&
            cuda_ok(cudaMemcpy(dx, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice), "copy x");
  if (ok) {
    tessera::GemmStatus st = tessera::gemm(m, n, k, da, db, dd);
    if (!st.ok()) std::fprintf(stderr, "consumer: tessera::gemm: %s\n", st.message.c_str());
    ok = st.ok();
  }
  if (ok) tessera::fused::l2_norm(dx, dy, rows, cols, 1e-6f);
  ok = ok && cuda_ok(cudaDeviceSynchronize(), "kernels") &&
       cuda_ok(cudaMemcpy(d.data(), dd, d.size() * sizeof(float), cudaMemcpyDeviceToHost), "copy D") &&
       cuda_ok(cudaMemcpy(y.data(), dy, y.size() * sizeof(float), cudaMemcpyDeviceToHost), "copy y");
  int bad = 0;
  for (int64_t i = 0; ok && i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double ref = 0;
      for (int64_t p = 0; p < k; ++p) ref += static_cast<double>(a[i * k + p]) * b[p * n + j];
      if (std::fabs(d[i * n + j] - ref) > 1e-4 * (1 + std::fabs(ref)) && bad++ < 5)
        std::fprintf(stderr, "consumer: gemm D[%ld,%ld] = %g, expected %g\n", long(i), long(j), d[i * n + j], ref);
    }
  for (int64_t r = 0; ok && r < rows; ++r) {
    double ss = 0;
    for (int64_t c = 0; c < cols; ++c) ss += static_cast<double>(x[r * cols + c]) * x[r * cols + c];
    for (int64_t c = 0; c < cols; ++c) {
      double ref = x[r * cols + c] / std::sqrt(ss + 1e-6);
      if (std::fabs(y[r * cols + c] - ref) > 1e-5 * (1 + std::fabs(ref)) && bad++ < 10)
        std::fprintf(stderr, "consumer: l2_norm y[%ld,%ld] = %g, expected %g\n", long(r), long(c), y[r * cols + c], ref);
    }
  }
  cudaFree(da), cudaFree(db), cudaFree(dd), cudaFree(dx), cudaFree(dy);
  if (!ok || bad) {
    std::fprintf(stderr, "consumer gpu: FAILED (%d mismatches)\n", bad);
    return 1;
  }
  std::printf("consumer gpu: tessera::gemm %ldx%ldx%ld and tessera::fused::l2_norm %ldx%ld match the host reference\n",
              long(m), long(n), long(k), long(rows), long(cols));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && !std::strcmp(argv[1], "host")) return check_host();
  if (argc == 2 && !std::strcmp(argv[1], "gpu")) return check_gpu();
  std::fprintf(stderr, "usage: consumer host|gpu\n");
  return 2;
}
