// scripts/device/xu_bench.cu -- which pipes the epilogue's conversions and activations share: the throughput, per
// SM and clock, of cvt.rn.bf16x2.f32 (SASS F2FP.BF16.F32.PACK_AB), tanh.approx.f32 (MUFU.TANH), both interleaved,
// and a bf16 round-to-nearest-even pack done with integer instructions, alone and beside the tanh.  If F2FP ran on
// the MUFU pipe, "tanh + f2fp" would take the sum of the two times; it takes the tanh's alone (docs/PERF.md).
//   nvcc -O3 -arch=sm_90a -o /tmp/xu scripts/device/xu_bench.cu && /tmp/xu
// (132 blocks of 1024 threads, 16 independent chains per thread; block 0's clock64 span, after a warm-up launch.)
#include <cstdint>
#include <cstdio>

#include <cuda_runtime.h>

constexpr int kChains = 16;  // independent chains per thread

__device__ __forceinline__ uint32_t f2fp(float a, float b) {
  uint32_t r;
  asm volatile("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(a), "f"(b));
  return r;
}
__device__ __forceinline__ float tanh_approx(float a) {
  float r;
  asm volatile("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(a));
  return r;
}
// bf16 round-to-nearest-even of two finite floats with integer instructions, packed (no NaN handling).
__device__ __forceinline__ uint32_t int_rne(float a, float b) {
  uint32_t x = __float_as_uint(a), y = __float_as_uint(b);
  x += 0x7fffu + ((x >> 16) & 1u);
  y += 0x7fffu + ((y >> 16) & 1u);
  return __byte_perm(y, x, 0x7632);
}

template <int kMode>
__global__ void chains(float* out, long long* cycles, int iters) {
  float v[kChains];
  uint32_t w[kChains];
  for (int i = 0; i < kChains; ++i) {
    v[i] = threadIdx.x * 1e-3f + i;
    w[i] = i;
  }
  __syncthreads();
  const long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int i = 0; i < kChains; ++i) {
      if constexpr (kMode == 0) { w[i] ^= f2fp(v[i], v[(i + 1) % kChains]); v[i] = __uint_as_float(w[i] | 0x3f000000u); }
      if constexpr (kMode == 1) { v[i] = tanh_approx(v[i]); }
      if constexpr (kMode == 2) { v[i] = tanh_approx(v[i]); w[i] ^= f2fp(v[i], v[(i + 1) % kChains]); }
      if constexpr (kMode == 3) { w[i] ^= int_rne(v[i], v[(i + 1) % kChains]); v[i] = __uint_as_float(w[i] | 0x3f000000u); }
      if constexpr (kMode == 4) { v[i] = tanh_approx(v[i]); w[i] ^= int_rne(v[i], v[(i + 1) % kChains]); }
    }
  }
  __syncthreads();
  const long long t1 = clock64();
  float s = 0.f;
  for (int i = 0; i < kChains; ++i) s += v[i] + static_cast<float>(w[i]);
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;  // keeps the chains
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

template <int kMode>
long long run(float* out, long long* cycles, int iters) {
  long long c0 = 0;
  for (int rep = 0; rep < 2; ++rep) chains<kMode><<<132, 1024>>>(out, cycles, iters);  // the first one warms up
  if (cudaDeviceSynchronize() != cudaSuccess) return -1;
  cudaMemcpy(&c0, cycles, sizeof c0, cudaMemcpyDeviceToHost);
  return c0;
}

int main() {
  float* out = nullptr;
  long long* cycles = nullptr;
  if (cudaMalloc(&out, 132 * 1024 * sizeof(float)) != cudaSuccess || cudaMalloc(&cycles, 132 * sizeof(long long)) != cudaSuccess) {
    std::printf("cudaMalloc failed (no GPU?)\n");
    return 1;
  }
  const int iters = 256;
  const long long c[5] = {run<0>(out, cycles, iters), run<1>(out, cycles, iters), run<2>(out, cycles, iters),
                          run<3>(out, cycles, iters), run<4>(out, cycles, iters)};
  const char* names[5] = {"f2fp (+xor, or)", "tanh", "tanh + f2fp", "int rne (+xor, or)", "tanh + int rne"};
  const double elems = 1024.0 * iters * kChains;  // per block (one per SM), of each kind
  for (int m = 0; m < 5; ++m) std::printf("%-20s %9lld cycles: %5.1f elements per clock and SM\n", names[m], c[m], c[m] > 0 ? elems / c[m] : 0.0);
  return 0;
}
