// src/copy_check.cu -- device-side helpers to fill buffers and check copies (benchmarks, large tests).
#include <cuda_runtime.h>

#include <stdexcept>  // std::invalid_argument, std::runtime_error
#include <string>     // std::string

#include "tessera/host/copy.hpp"
#include "tessera/kernel/copy/launch.hpp"  // current_device_facts, check_launch

namespace tessera {
namespace {

__device__ __forceinline__ uint64_t mix64(uint64_t x) {  // splitmix64 finaliser
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

__global__ void fill_random_kernel(uint8_t* dst, size_t bytes, uint64_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < (bytes + 7) / 8; i += size_t(gridDim.x) * blockDim.x) {
    uint64_t v = mix64(seed ^ mix64(i));
    for (int b = 0; b < 8 && i * 8 + b < bytes; ++b) {
      uint8_t x = static_cast<uint8_t>(v >> (8 * b));
      dst[i * 8 + b] = x == 0xA5 ? 0x5A : x;
    }
  }
}

// dst(i, j) vs src(i, j) for row- or column-major layouts given by (row stride, column stride).
__global__ void count_mismatch_kernel(const uint8_t* src, int64_t s_ri, int64_t s_cj, const uint8_t* dst, int64_t d_ri,
                                      int64_t d_cj, int64_t rows, int64_t cols, int e, unsigned long long* count) {
  unsigned long long local = 0;
  const int64_t total = rows * cols;
  for (int64_t k = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; k < total; k += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = k / cols, j = k % cols;
    const uint8_t* a = src + (i * s_ri + j * s_cj) * e;
    const uint8_t* b = dst + (i * d_ri + j * d_cj) * e;
    bool same = true;
    for (int x = 0; x < e; ++x) same &= a[x] == b[x];
    local += same ? 0 : 1;
  }
  if (local) atomicAdd(count, local);
}

int fill_grid() { return kernel::current_device_facts().sm_count * 8; }

}  // namespace

void fill_random_bytes(void* dst, size_t bytes, uint64_t seed, cudaStream_t stream) {
  if (bytes == 0) return;
  if (!dst) throw std::invalid_argument("tessera::fill_random_bytes: dst is null");
  fill_random_kernel<<<fill_grid(), 256, 0, stream>>>(static_cast<uint8_t*>(dst), bytes, seed);
  kernel::check_launch("fill_random_kernel");
}

int64_t count_copy_mismatches(const Copy2d& p, cudaStream_t stream) {
  if (p.rows == 0 || p.cols == 0) return 0;
  if (!p.src || !p.dst) throw std::invalid_argument("tessera::count_copy_mismatches: null src or dst");
  unsigned long long* d_count = nullptr;
  if (cudaMalloc(&d_count, sizeof *d_count) != cudaSuccess) throw std::runtime_error("count_copy_mismatches: cudaMalloc failed");
  cudaMemsetAsync(d_count, 0, sizeof *d_count, stream);
  const int64_t s_ri = p.src_major == Major::kRow ? p.ld_src : 1, s_cj = p.src_major == Major::kRow ? 1 : p.ld_src;
  const int64_t d_ri = p.dst_major == Major::kRow ? p.ld_dst : 1, d_cj = p.dst_major == Major::kRow ? 1 : p.ld_dst;
  count_mismatch_kernel<<<fill_grid(), 256, 0, stream>>>(static_cast<const uint8_t*>(p.src), s_ri, s_cj,
                                                         static_cast<const uint8_t*>(p.dst), d_ri, d_cj, p.rows, p.cols,
                                                         p.elem_bytes, d_count);
  kernel::check_launch("count_mismatch_kernel");
  unsigned long long h = 0;
  const cudaError_t e = cudaMemcpyAsync(&h, d_count, sizeof h, cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
  cudaFree(d_count);
  if (e != cudaSuccess) throw std::runtime_error(std::string("count_copy_mismatches: ") + cudaGetErrorString(e));
  return static_cast<int64_t>(h);
}

}  // namespace tessera
