// scripts/device/wgmma_overlap.cu -- how much epilogue-like arithmetic (the fused GEMM's gelu_tanh form: five
// FMA-pipe operations and one MUFU.TANH a value, then a bf16 pack and a shared-memory store a pair) the
// tensor cores absorb while two warpgroups drive them as the cooperative kernel does (64 x 256 each,
// m64n256k16, four K steps a tile, operands resident in shared memory: no loads, no barriers).
//
// Variants: the work done by the wgmma warps themselves between K tiles (after the tile's wait, or between its
// commit and its wait), in one burst after a drain (as the kernel's epilogue runs today), or spread over a
// period's K tiles; with one or two wgmma groups in flight; or done by a third warpgroup that issues no wgmma
// (an epilogue warpgroup).  A period is 64 K tiles (a K = 4096 unit of the 128 x 256 kernel); the work of a
// real unit is 128 values a thread and period.
//
//   nvcc -std=c++20 -O3 -arch=sm_90a -I include scripts/device/wgmma_overlap.cu -o /tmp/wgmma_overlap && /tmp/wgmma_overlap
//
// Prints, per variant, cycles per K tile (mean over the 132 blocks of the first warpgroup's loop), the cycles a
// period costs over the variant without work, and the values a thread processed in a period.  The H200's figures
// and what they say about the GEMM kernels: docs/PERF.md, thirty-first section.
#include <cuda_runtime.h>

#include <cstdio>
#include <utility>

#include "tessera/arch/sm90_wgmma.hpp"
#include "wgmma_probe.hpp"

namespace {

constexpr int kKTiles = 1024;
constexpr int kPeriod = 64;
constexpr int kScratch = 96 * 1024;  // bytes: the packed results' scratch (256 threads x 32 words)

__device__ __forceinline__ float tanh_hw(float v) {
  float r;
  asm volatile("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(v));
  return r;
}

// kN values of w through the gelu_tanh form, then packed in pairs and stored to shared memory.
template <int kN, int kRegs>
__device__ __forceinline__ void work(float (&w)[kRegs], uint32_t scratch) {
  static_assert(kN <= kRegs && kN % 2 == 0);
  constexpr float c1 = 0.7978845608028654f, c3 = 0.7978845608028654f * 0.044715f;
#pragma unroll
  for (int j = 0; j < kN; j += 2) {
    float y[2];
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const float v = w[j + i];
      const float h = 0.5f * v;
      y[i] = fmaf(h, tanh_hw(v * fmaf(c3, v * v, c1)), h);
      w[j + i] = fmaf(y[i], 0.9f, 0.05f);
    }
    uint32_t packed;
    asm volatile("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(packed) : "f"(y[1]), "f"(y[0]));
    asm volatile("st.shared.b32 [%0], %1;" ::"r"(scratch + (j / 2) * 1024), "r"(packed) : "memory");
  }
}

enum Mode { kNone, kAfterWait, kBeforeWait, kDrainBurst, kParked, kParkedAtDrain };

// The deferred epilogue of a whole unit in 64 registers: at the drain x = acc a + b (128 values) is packed into 64
// f16 pairs; step g (0-15) unpacks pairs 4 g .. 4 g + 3, runs the 8 values through the gelu_tanh form, packs them
// as bf16 and stores them to shared memory (the staging).  kParked: step g at K tile g of the next period, before the
// tile's wait, dispatched by a switch on g as a kernel's K tile counter would; kParkedAtDrain: all 16 steps right
// after the drain (the work the drain does today, with the f16 round trip).
template <int kG>
__device__ __forceinline__ void parked_step(const uint32_t (&pk)[64], uint32_t scratch) {
  constexpr float c1 = 0.7978845608028654f, c3 = 0.7978845608028654f * 0.044715f;
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const uint32_t word = pk[4 * kG + q];
    float v[2], y[2];
    asm("{.reg .f16 lo, hi;\n mov.b32 {lo, hi}, %2;\n cvt.f32.f16 %0, lo;\n cvt.f32.f16 %1, hi;}"
        : "=f"(v[0]), "=f"(v[1]) : "r"(word));
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const float h = 0.5f * v[i];
      y[i] = fmaf(h, tanh_hw(v[i] * fmaf(c3, v[i] * v[i], c1)), h);
    }
    uint32_t packed;
    asm volatile("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(packed) : "f"(y[1]), "f"(y[0]));
    asm volatile("st.shared.b32 [%0], %1;" ::"r"(scratch + (4 * kG + q) * 1024 % (32 * 1024)), "r"(packed) : "memory");
  }
}
template <int... kGs>
__device__ __forceinline__ void parked_dispatch(int g, const uint32_t (&pk)[64], uint32_t scratch,
                                                std::integer_sequence<int, kGs...>) {
  ((g == kGs ? parked_step<kGs>(pk, scratch) : void()), ...);
}
template <int... kGs>
__device__ __forceinline__ void parked_all(const uint32_t (&pk)[64], uint32_t scratch, std::integer_sequence<int, kGs...>) {
  (parked_step<kGs>(pk, scratch), ...);
}
__device__ __forceinline__ void parked_dispatch_all(const uint32_t (&pk)[64], uint32_t scratch) {
  parked_all(pk, scratch, std::make_integer_sequence<int, 16>{});
}
template <class Acc>
__device__ __forceinline__ void park(const Acc& acc, uint32_t (&pk)[64]) {
  // x = acc a + b (a per-column b as the bias would be: 8 values of b a thread here), packed into f16 pairs
#pragma unroll
  for (int i = 0; i < 128; i += 2) {
    const float b0 = 0.01f * (i % 16), b1 = 0.01f * ((i + 1) % 16);
    const float x0 = fmaf(acc[i], 1.0001f, b0), x1 = fmaf(acc[i + 1], 1.0001f, b1);
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(pk[i / 2]) : "f"(x1), "f"(x0));
  }
}

// kWork values at kSteps evenly spaced K tiles of each period (kDrainBurst: kSteps = 1, wait for all groups
// first, and kWork may be 128: two passes over the 64 registers).
template <int kInFlight, Mode kMode, int kWork, int kSteps>
__device__ void issue(const unsigned char* smem, uint32_t scratch, long long* out, float* sink) {
  using probe::Atom;
  float acc[Atom::kValuesC];
#pragma unroll
  for (int i = 0; i < Atom::kValuesC; ++i) acc[i] = 0.f;
  constexpr int kRegs = kMode == kNone || kMode == kParked || kMode == kParkedAtDrain ? 2 : 64;
  float w[kRegs];
#pragma unroll
  for (int j = 0; j < kRegs; ++j) w[j] = 0.01f * ((threadIdx.x + 7 * j) % 61) - 0.3f;
  const unsigned char* a = smem + (threadIdx.x / 128) * 8192;
  const unsigned char* b = smem + 64 * 1024;
  [[maybe_unused]] uint32_t pk[kMode == kParked || kMode == kParkedAtDrain ? 64 : 1];
  if constexpr (kMode == kParked || kMode == kParkedAtDrain)
#pragma unroll
    for (int j = 0; j < 64; ++j) pk[j] = 0x3c003c00u + j;
  const long long t0 = clock64();
  for (int kt = 0; kt < kKTiles; ++kt) {
    if constexpr (kMode == kParked || kMode == kParkedAtDrain) {
      if (kt % kPeriod == 0) {
        tessera::arch::wgmma_wait<0>();
        tessera::arch::wgmma_fence_operands(acc);
        park(acc, pk);
        if constexpr (kMode == kParkedAtDrain) parked_dispatch_all(pk, scratch);
      }
    }
    const bool step = kMode != kNone && (kt % kPeriod) % (kPeriod / kSteps) == 0;
    if constexpr (kMode == kDrainBurst) {
      if (step) {
        tessera::arch::wgmma_wait<0>();
        tessera::arch::wgmma_fence_operands(acc);
        work<(kWork > 64 ? 64 : kWork)>(w, scratch);
        if constexpr (kWork > 64) work<kWork - 64>(w, scratch);
      }
    }
    probe::issue_k_tile(acc, a, b);
    if constexpr (kMode == kBeforeWait) if (step) work<kWork>(w, scratch);
    if constexpr (kMode == kParked) {
      const int g = kt % kPeriod;
      if (g < 16) parked_dispatch(g, pk, scratch, std::make_integer_sequence<int, 16>{});
    }
    tessera::arch::wgmma_wait<kInFlight>();
    tessera::arch::wgmma_fence_operands(acc);
    if constexpr (kMode == kAfterWait) if (step) work<kWork>(w, scratch);
  }
  tessera::arch::wgmma_wait<0>();
  const long long t1 = clock64();
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < Atom::kValuesC; ++i) s += acc[i];
#pragma unroll
  for (int j = 0; j < kRegs; ++j) s += w[j];
  if constexpr (kMode == kParked || kMode == kParkedAtDrain)
#pragma unroll
    for (int j = 0; j < 64; ++j) s += __uint_as_float(pk[j]);
  if (threadIdx.x % 128 == 0) out[blockIdx.x * 2 + threadIdx.x / 128] = t1 - t0;
  if (s == 12345.f) *sink = s;
}

template <int kInFlight, Mode kMode, int kWork, int kSteps>
__global__ void __launch_bounds__(256, 1) overlap_kernel(long long* out, float* sink) {
  extern __shared__ __align__(1024) unsigned char smem[];
  for (int i = threadIdx.x; i < kScratch / 4; i += blockDim.x) reinterpret_cast<float*>(smem)[i] = 0.001f * (i % 97);
  __syncthreads();
  const uint32_t scratch = static_cast<uint32_t>(__cvta_generic_to_shared(smem + kScratch)) + threadIdx.x * 4;
  issue<kInFlight, kMode, kWork, kSteps>(smem, scratch, out, sink);
}

// Two warpgroups issue wgmma without work; a third does the work in chunks of 32 values, with a pause of
// kSleepNs between chunks (0: none), until the first warpgroup is done.
template <int kSleepNs>
__global__ void __launch_bounds__(384, 1) helper_kernel(long long* out, float* sink, long long* chunks) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ volatile int done;
  for (int i = threadIdx.x; i < kScratch / 4; i += blockDim.x) reinterpret_cast<float*>(smem)[i] = 0.001f * (i % 97);
  if (threadIdx.x == 0) done = 0;
  __syncthreads();
  if (threadIdx.x < 256) {
    const uint32_t scratch = static_cast<uint32_t>(__cvta_generic_to_shared(smem + kScratch)) + threadIdx.x * 4;
    issue<1, kNone, 0, 1>(smem, scratch, out, sink);
    if (threadIdx.x == 0) done = 1;
  } else {
    const uint32_t scratch = static_cast<uint32_t>(__cvta_generic_to_shared(smem + kScratch)) + (threadIdx.x - 256) * 4;
    float w[32];
#pragma unroll
    for (int j = 0; j < 32; ++j) w[j] = 0.01f * ((threadIdx.x + 7 * j) % 61) - 0.3f;
    long long n = 0;
    while (!done) {
      work<32>(w, scratch);
      ++n;
      if (kSleepNs > 0) __nanosleep(kSleepNs);
    }
    float s = 0.f;
#pragma unroll
    for (int j = 0; j < 32; ++j) s += w[j];
    if (threadIdx.x == 256) chunks[blockIdx.x] = n;
    if (s == 12345.f) *sink = s;
  }
}

double g_base = 0;

double report(const char* name, const long long* h, double values_per_period) {
  double mean = 0;
  for (int b = 0; b < 132; ++b) mean += h[2 * b];
  mean /= 132;
  const double per_tile = mean / kKTiles;
  std::printf("%-62s %8.1f cycles/K tile  %+8.0f cycles/period  %6.0f values/thread/period\n", name, per_tile,
              g_base > 0 ? (per_tile - g_base) * kPeriod : 0.0, values_per_period);
  return per_tile;
}

template <int kInFlight, Mode kMode, int kWork, int kSteps>
double run(const char* name) {
  long long* out;
  float* sink;
  cudaMalloc(&out, 132 * 2 * sizeof(long long));
  cudaMalloc(&sink, sizeof(float));
  const int smem = 128 * 1024;
  auto k = overlap_kernel<kInFlight, kMode, kWork, kSteps>;
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  for (int rep = 0; rep < 3; ++rep) k<<<132, 256, smem>>>(out, sink);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { std::printf("%s: %s\n", name, cudaGetErrorString(e)); return 0; }
  long long h[264];
  cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost);
  cudaFree(out);
  cudaFree(sink);
  return report(name, h, kMode == kNone ? 0.0 : double(kWork) * kSteps);
}

template <int kSleepNs>
void run_helper(const char* name) {
  long long *out, *chunks;
  float* sink;
  cudaMalloc(&out, 132 * 2 * sizeof(long long));
  cudaMalloc(&chunks, 132 * sizeof(long long));
  cudaMalloc(&sink, sizeof(float));
  const int smem = 128 * 1024;
  cudaFuncSetAttribute(helper_kernel<kSleepNs>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  for (int rep = 0; rep < 3; ++rep) helper_kernel<kSleepNs><<<132, 384, smem>>>(out, sink, chunks);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { std::printf("%s: %s\n", name, cudaGetErrorString(e)); return; }
  long long h[264], c[132];
  cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost);
  cudaMemcpy(c, chunks, sizeof(c), cudaMemcpyDeviceToHost);
  double n = 0;
  for (int b = 0; b < 132; ++b) n += c[b];
  n /= 132;
  // values a helper thread processed per period
  report(name, h, n * 32 / (kKTiles / kPeriod));
  cudaFree(out);
  cudaFree(chunks);
  cudaFree(sink);
}

}  // namespace

int main() {
  g_base = run<1, kNone, 0, 1>("no work, 1 in flight");
  run<2, kNone, 0, 1>("no work, 2 in flight");
  run<1, kDrainBurst, 128, 1>("drain, then 128 values (today's epilogue)");
  run<1, kDrainBurst, 64, 1>("drain, then 64 values");
  run<1, kAfterWait, 8, 16>("1 in flight, 8 values after the wait, 16 tiles a period");
  run<1, kAfterWait, 16, 8>("1 in flight, 16 values after the wait, 8 tiles");
  run<1, kAfterWait, 32, 4>("1 in flight, 32 values after the wait, 4 tiles");
  run<1, kAfterWait, 64, 2>("1 in flight, 64 values after the wait, 2 tiles");
  run<1, kBeforeWait, 8, 16>("1 in flight, 8 values before the wait, 16 tiles");
  run<1, kBeforeWait, 16, 8>("1 in flight, 16 values before the wait, 8 tiles");
  run<1, kBeforeWait, 32, 4>("1 in flight, 32 values before the wait, 4 tiles");
  run<1, kAfterWait, 8, 64>("1 in flight, 8 values after the wait, every tile");
  run<1, kBeforeWait, 8, 64>("1 in flight, 8 values before the wait, every tile");
  run<2, kAfterWait, 8, 16>("2 in flight, 8 values after the wait, 16 tiles");
  run<2, kAfterWait, 32, 4>("2 in flight, 32 values after the wait, 4 tiles");
  run<2, kAfterWait, 64, 2>("2 in flight, 64 values after the wait, 2 tiles");
  run<2, kAfterWait, 8, 64>("2 in flight, 8 values after the wait, every tile");
  run<1, kParked, 128, 1>("f16-parked unit, 8 values at K tiles 0-15 (switch on the tile)");
  run<1, kParkedAtDrain, 128, 1>("f16-parked unit, all 128 values at the drain");
  run<1, kDrainBurst, 0, 1>("drain alone (no work)");
  run_helper<0>("third warpgroup, continuous (values: its own, not the wgmma warps')");
  run_helper<2000>("third warpgroup, 2 us pause between chunks");
  run_helper<8000>("third warpgroup, 8 us pause between chunks");
  return 0;
}
