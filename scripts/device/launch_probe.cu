// scripts/device/launch_probe.cu -- what a launch costs when it is timed as `tessera bench gemm` times a GEMM (events
// around one launch right after an L2-evicting read pass), against what runs inside it, at the decode shapes where
// the library's kernels run furthest behind cuBLAS (an experiment for issue 11; not in the library).
//
// The library's timeline probe (scripts/device/trace_gemm.cu, TRACE_COLD=1) gives the blocks' span, first start to
// last end, by the global timer; the events around the same launch read 3.7-4.8 us more.  This probe times kernels
// that do nothing in the launch shapes of the decode plans -- one block; 132 blocks of 384 threads; the same with
// 200 KB of dynamic shared memory; with parameters of the library's size (a 368-byte struct and three 128-byte tensor
// maps); in clusters of two -- and cuBLAS's GEMM D = X W^T at those shapes, so that what is fixed in every launch
// can be told from what a kernel adds.  `launch_probe ncu` runs each cuBLAS GEMM once after an eviction (for
// `ncu --clock-control none --cache-control all --metrics gpu__time_duration.sum -k regex:'^(?!evict)'`: the
// kernels' own durations).
//
//   nvcc -std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a -I include -I scripts/device scripts/device/launch_probe.cu \
//        -o /tmp/lp -lcublas && /tmp/lp
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "probe_util.cuh"  // CK, L2Evict, launch_clustered, medians_rotated
#include "tessera/arch/sm90_tma_desc.hpp"  // make_tma_desc_2d

namespace {

using namespace tessera;

struct Big {  // the non-persistent Hopper kernel's parameter bytes: Params (368) and three tensor maps
  unsigned char params[368];
};

__global__ void empty_kernel(int* sink) {
  if (threadIdx.x == 1023) *sink = 0;  // (never: at most 384 threads)
}

__global__ void __launch_bounds__(384, 1) empty_big(const Big b, const __grid_constant__ CUtensorMap m0,
                                                    const __grid_constant__ CUtensorMap m1,
                                                    const __grid_constant__ CUtensorMap m2, int* sink) {
  if (threadIdx.x == 1023) *sink = b.params[0] + reinterpret_cast<const unsigned char*>(&m0)[0] +
                                   reinterpret_cast<const unsigned char*>(&m1)[0] +
                                   reinterpret_cast<const unsigned char*>(&m2)[0];
}

// The start of the library's kernel without its loop: thread 0 reads the maps (prefetch), the block syncs, ends.
__global__ void __launch_bounds__(384, 1) start_only(const Big b, const __grid_constant__ CUtensorMap m0,
                                                     const __grid_constant__ CUtensorMap m1,
                                                     const __grid_constant__ CUtensorMap m2, int* sink) {
  if (threadIdx.x == 0) {
    asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(&m0)) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(&m1)) : "memory");
  }
  __syncthreads();
  if (threadIdx.x == 1023) *sink = b.params[0] + reinterpret_cast<const unsigned char*>(&m2)[0];
}

}  // namespace

int main(int argc, char** argv) {
  const bool ncu = argc > 1 && std::string(argv[1]) == "ncu";
  const probe::L2Evict evict;
  const int smem = 200 * 1024;
  CK(cudaFuncSetAttribute(empty_big, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  CK(cudaFuncSetAttribute(start_only, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) { std::fprintf(stderr, "cublasCreate failed\n"); return 1; }
  struct Shape { int m, n, k; };
  const Shape shapes[] = {{16, 14336, 4096}, {128, 4096, 4096}, {16, 8192, 8192}, {128, 14336, 4096}, {64, 4096, 4096}};
  const size_t wmax = size_t(8192) * 8192, xmax = size_t(128) * 8192;
  __nv_bfloat16 *w = nullptr, *x = nullptr, *d = nullptr;
  CK(cudaMalloc(&w, wmax * 2));
  CK(cudaMemset(w, 0x3c, wmax * 2));
  CK(cudaMalloc(&x, xmax * 2));
  CK(cudaMemset(x, 0x3c, xmax * 2));
  CK(cudaMalloc(&d, size_t(128) * 14336 * 2));
  // (a 64 x 64 box of W, 128-byte swizzle: one of the library's stage maps)
  const CUtensorMap map = arch::make_tma_desc_2d(w, 2, 4096, 4096, 4096, 64, 64, arch::TmaSwizzle::k128B);
  const Big big{};
  const float one = 1.0f, zero = 0.0f;
  auto gemm = [&](const Shape& sh) {
    cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, sh.n, sh.m, sh.k, &one, w, CUDA_R_16BF, sh.k, x, CUDA_R_16BF, sh.k, &zero, d,
                 CUDA_R_16BF, sh.n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  };
  if (ncu) {
    for (const Shape& sh : shapes) { gemm(sh); }  // (warm-up: cuBLAS's first call per shape sets itself up)
    CK(cudaDeviceSynchronize());
    for (const Shape& sh : shapes) { evict(); gemm(sh); }
    CK(cudaDeviceSynchronize());
    std::printf("ncu mode: %zu GEMMs after evictions\n", sizeof shapes / sizeof shapes[0]);
    return 0;
  }
  std::vector<std::pair<std::string, std::function<void()>>> runs;
  runs.emplace_back("empty, 1 block of 32", [&] { empty_kernel<<<1, 32>>>(evict.sink); });
  runs.emplace_back("empty, 132 blocks of 384", [&] { empty_kernel<<<evict.sms, 384>>>(evict.sink); });
  runs.emplace_back("empty, 132 x 384, 200 KB smem, big params",
                    [&] { empty_big<<<evict.sms, 384, smem>>>(big, map, map, map, evict.sink); });
  runs.emplace_back("empty, 128 x 384, 200 KB smem, big params, clusters of 2", [&] {
    probe::launch_clustered(empty_big, dim3(128), dim3(384), smem, 2, big, map, map, map, evict.sink);
  });
  runs.emplace_back("start only (prefetch, sync), 132 x 384, 200 KB",
                    [&] { start_only<<<evict.sms, 384, smem>>>(big, map, map, map, evict.sink); });
  for (const Shape& sh : shapes) {
    char nm[64];
    std::snprintf(nm, sizeof nm, "cuBLAS %dx%dx%d", sh.m, sh.n, sh.k);
    runs.emplace_back(nm, [&, sh] { gemm(sh); });
  }
  for (auto& r : runs) r.second();  // warm-up, and errors surface here
  CK(cudaDeviceSynchronize());
  const std::vector<double> med = probe::medians_rotated(runs, evict, 25, 2);
  for (size_t i = 0; i < runs.size(); ++i) std::printf("%-60s %8.2f us\n", runs[i].first.c_str(), med[i]);
  cublasDestroy(h);
  CK(cudaFree(w)); CK(cudaFree(x)); CK(cudaFree(d));
  return 0;
}
