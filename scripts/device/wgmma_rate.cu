// scripts/device/wgmma_rate.cu -- how fast the tensor cores of one SM retire wgmma when one or two warpgroups
// issue them, with operands resident in shared memory (no loads, no barriers): the ceiling of a main loop
// whose K tiles are issued as the Hopper kernels issue them (kBK / 16 steps of kH atoms, commit, wait for all
// but kInFlight groups).  Which schedule can keep the tensor cores busy with one warpgroup alone (ping-pong)
// is a question of this number, not of the loads.
//
//   nvcc -std=c++20 -O3 -arch=sm_90a -I include scripts/device/wgmma_rate.cu -o /tmp/wgmma_rate && /tmp/wgmma_rate
//
// Prints, per variant, cycles per K tile (64 deep) and the multiply-adds per cycle and SM it implies.
#include <cuda_runtime.h>

#include <cstdio>

#include "tessera/arch/sm90_wgmma.hpp"
#include "tessera/atom/mma_sm90.hpp"
#include "tessera/atom/smem_sm90.hpp"

namespace {

constexpr int kKTiles = 512;
// The K-major 128-byte swizzled operand tile (rows of 64 bf16) and its wgmma descriptor fields, as in the kernels.
constexpr tessera::atom::SmemTileSm90 kTile = tessera::atom::sw128_tile(64, 2);
constexpr uint64_t kDesc = kTile.wgmma_desc_fields(true);

template <int kN, int kH, int kInFlight>
__device__ void issue(const unsigned char* smem, long long* out, float* sink) {
  using Atom = tessera::atom::WgmmaSm90<kN, false, 0, 0>;
  float acc[kH][Atom::kValuesC];
#pragma unroll
  for (int h = 0; h < kH; ++h)
#pragma unroll
    for (int i = 0; i < Atom::kValuesC; ++i) acc[h][i] = 0.f;
  const unsigned char* a = smem;               // 64 kH rows x 128 B
  const unsigned char* b = smem + 64 * 1024;   // kN rows x 128 B
  const long long t0 = clock64();
  for (int kt = 0; kt < kKTiles; ++kt) {
#pragma unroll
    for (int h = 0; h < kH; ++h) tessera::arch::wgmma_fence_operands(acc[h]);
    tessera::arch::wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < 4; ++ks) {
      const uint64_t db = tessera::arch::smem_desc(b + ks * kTile.wgmma_k_offset_bytes(true, 16), kDesc);
#pragma unroll
      for (int h = 0; h < kH; ++h) {
        const uint64_t da = tessera::arch::smem_desc(a + h * 8192 + ks * kTile.wgmma_k_offset_bytes(true, 16), kDesc);
        Atom::fma(acc[h], da, db, 1u);
      }
    }
    tessera::arch::wgmma_commit();
    tessera::arch::wgmma_wait<kInFlight>();
#pragma unroll
    for (int h = 0; h < kH; ++h) tessera::arch::wgmma_fence_operands(acc[h]);
  }
  tessera::arch::wgmma_wait<0>();
  const long long t1 = clock64();
  float s = 0.f;
#pragma unroll
  for (int h = 0; h < kH; ++h)
#pragma unroll
    for (int i = 0; i < Atom::kValuesC; ++i) s += acc[h][i];
  if (threadIdx.x % 128 == 0) out[blockIdx.x * 2 + threadIdx.x / 128] = t1 - t0;
  if (s == 12345.f) *sink = s;  // keeps the accumulators alive
}

template <int kN, int kH, int kInFlight>
__global__ void __launch_bounds__(256, 1) rate_kernel(int warpgroups, long long* out, float* sink) {
  extern __shared__ __align__(1024) unsigned char smem[];
  for (int i = threadIdx.x; i < 128 * 1024 / 4; i += blockDim.x) reinterpret_cast<float*>(smem)[i] = 0.001f * (i % 97);
  __syncthreads();
  if (static_cast<int>(threadIdx.x) / 128 < warpgroups) issue<kN, kH, kInFlight>(smem, out, sink);
}

template <int kN, int kH, int kInFlight>
void run(const char* name, int warpgroups) {
  long long* out;
  float* sink;
  cudaMalloc(&out, 132 * 2 * sizeof(long long));
  cudaMalloc(&sink, sizeof(float));
  cudaMemset(out, 0, 132 * 2 * sizeof(long long));
  const int smem = 128 * 1024;
  cudaFuncSetAttribute(rate_kernel<kN, kH, kInFlight>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  for (int rep = 0; rep < 3; ++rep) rate_kernel<kN, kH, kInFlight><<<132, 256, smem>>>(warpgroups, out, sink);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { std::printf("%s: %s\n", name, cudaGetErrorString(e)); return; }
  long long h[264];
  cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost);
  double mean = 0;
  long long mx = 0;
  for (int b = 0; b < 132; ++b) { mean += h[2 * b]; mx = h[2 * b] > mx ? h[2 * b] : mx; }
  mean /= 132;
  const double macs = 64.0 * kH * kN * 64.0 * kKTiles * warpgroups;  // per SM
  std::printf("%-44s  %8.1f cycles per K tile per warpgroup  %7.1f MACs/cycle/SM (max block %lld)\n", name,
              mean / kKTiles, macs / mean, mx);
  cudaFree(out);
  cudaFree(sink);
}

}  // namespace

int main() {
  run<256, 1, 1>("1 wg, 64x256 (m64n256 x1), 1 in flight", 1);
  run<256, 1, 2>("1 wg, 64x256 (m64n256 x1), 2 in flight", 1);
  run<128, 2, 1>("1 wg, 128x128 (m64n128 x2), 1 in flight", 1);
  run<128, 2, 2>("1 wg, 128x128 (m64n128 x2), 2 in flight", 1);
  run<128, 1, 1>("1 wg, 64x128 (m64n128 x1), 1 in flight", 1);
  run<256, 1, 1>("2 wg, 64x256 each (cooperative), 1 in flight", 2);
  run<128, 2, 1>("2 wg, 128x128 each, 1 in flight", 2);
  run<128, 1, 1>("2 wg, 64x128 each, 1 in flight", 2);
  return 0;
}
