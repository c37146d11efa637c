// The two ways a thread can signal "my cp.async copies of this stage have landed" on an mbarrier, in
// a kStages-deep producer/consumer ring (a `full` and an `empty` barrier per stage, counts = block size,
// parity waits), checked for correctness against the input.  The ring is the protocol of
// cuda::pipeline<thread_scope_block>; the kernels use Tessera's arch wrappers only.
//
//   Protocol::kStoreArrive     plain st.shared, then mbarrier.arrive (no cp.async)
//   Protocol::kCpAsyncInc      cp.async, cp.async.mbarrier.arrive (pending count +1), mbarrier.arrive:
//                              what libcu++'s producer_commit emits
//   Protocol::kCpAsyncNoinc    cp.async, cp.async.mbarrier.arrive.noinc (that is the arrival)
//
// All three are correct PTX.  Under `compute-sanitizer --tool synccheck` (2025.3.1, H100)
// kCpAsyncInc is reported as "Barrier error detected. Missing wait" at the thread's own arrive, while
// the other two are clean: tests/kernel_copy/device_check.sh runs the three separately and records
// which one is flagged (docs/COPY.md).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>  // uint64_t
#include <cstring>  // std::memcpy
#include <random>   // std::mt19937, std::uniform_real_distribution
#include <vector>   // std::vector

#include "common/gpu.hpp"                  // TESSERA_REQUIRE_SM, CUDA_OK
#include "tessera/arch/sm80_cp_async.hpp"  // cp_async_cg_16, cp_async_mbarrier_arrive[_noinc]
#include "tessera/arch/sm90_mbarrier.hpp"  // mbarrier_init, mbarrier_arrive, mbarrier_wait_parity

namespace {

enum class Protocol { kStoreArrive, kCpAsyncInc, kCpAsyncNoinc };

constexpr int kThreads = 128;
constexpr int kTileFloats = kThreads * 4 * 2;  // two 16-byte chunks per thread

// y[i] = 2 * x[i] + 1 through a kStages-deep ring of shared-memory tiles.  n is a multiple of 4;
// the last tile may be partial (chunks past n are not copied and not read).
template <int kStages, Protocol kProto>
__global__ void __launch_bounds__(kThreads) ring_kernel(const float* x, float* y, int n) {
  __shared__ __align__(128) float tile_smem[kStages][kTileFloats];
  __shared__ uint64_t full[kStages], empty[kStages];
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      tessera::arch::mbarrier_init(&full[s], kThreads);
      tessera::arch::mbarrier_init(&empty[s], kThreads);
    }
  }
  __syncthreads();
  const int num_tiles = (n + kTileFloats - 1) / kTileFloats;
  int head = 0, tail = 0;
  uint32_t empty_parity = 1, full_parity = 0;  // parity 1 on a fresh barrier: the stage is free
  auto produce = [&](int tile) {
    tessera::arch::mbarrier_wait_parity(&empty[head], empty_parity);
    if (tile < num_tiles) {
      for (int r = 0; r < 2; ++r) {
        const int off = (threadIdx.x + r * kThreads) * 4;
        const int i = tile * kTileFloats + off;
        if (i >= n) continue;
        if constexpr (kProto == Protocol::kStoreArrive) {
          *reinterpret_cast<float4*>(&tile_smem[head][off]) = *reinterpret_cast<const float4*>(x + i);
        } else {
          tessera::arch::cp_async_cg_16(&tile_smem[head][off], x + i);
        }
      }
    }
    if constexpr (kProto == Protocol::kCpAsyncNoinc) {
      tessera::arch::cp_async_mbarrier_arrive_noinc(&full[head]);
    } else {
      if constexpr (kProto == Protocol::kCpAsyncInc) tessera::arch::cp_async_mbarrier_arrive(&full[head]);
      (void)tessera::arch::mbarrier_arrive(&full[head]);
    }
    if (++head == kStages) { head = 0; empty_parity ^= 1u; }
  };
  int tile = blockIdx.x;
  for (int s = 0; s < kStages - 1; ++s) produce(tile + s * gridDim.x);
  for (; tile < num_tiles; tile += gridDim.x) {
    produce(tile + (kStages - 1) * gridDim.x);
    tessera::arch::mbarrier_wait_parity(&full[tail], full_parity);
    // Read back another thread's floats (so the barrier, not program order, makes them visible).
    for (int j = 0; j < kTileFloats / kThreads; ++j) {
      const int k = (kThreads - 1 - threadIdx.x) + j * kThreads;
      const int i = tile * kTileFloats + k;
      if (i < n) y[i] = 2.0f * tile_smem[tail][k] + 1.0f;
    }
    (void)tessera::arch::mbarrier_arrive(&empty[tail]);
    if (++tail == kStages) { tail = 0; full_parity ^= 1u; }
  }
}

template <int kStages, Protocol kProto>
void check_ring() {
  TESSERA_REQUIRE_SM(80);
  std::mt19937 rng(1234 + kStages * 10 + static_cast<int>(kProto));
  std::uniform_real_distribution<float> dist(-8.0f, 8.0f);
  // Fewer tiles than blocks, exactly one round, several rounds with a partial last tile.
  const int sizes[] = {4, kTileFloats, 3 * kTileFloats + 20, 37 * kTileFloats + 4 * 97};
  const int grids[] = {1, 5, 16};
  constexpr int kGuard = 64;
  float* x = nullptr;
  float* y = nullptr;
  const int max_n = 37 * kTileFloats + 4 * 97;
  CUDA_OK(cudaMalloc(&x, max_n * sizeof(float)));
  CUDA_OK(cudaMalloc(&y, (max_n + kGuard) * sizeof(float)));
  for (int n : sizes) {
    std::vector<float> hx(n);
    for (float& v : hx) v = dist(rng);
    CUDA_OK(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    for (int grid : grids) {
      CUDA_OK(cudaMemset(y, 0xFF, (n + kGuard) * sizeof(float)));  // NaN poison, guard zone too
      ring_kernel<kStages, kProto><<<grid, kThreads>>>(x, y, n);
      CUDA_OK(cudaGetLastError());
      CUDA_OK(cudaDeviceSynchronize());
      std::vector<float> hy(n + kGuard);
      CUDA_OK(cudaMemcpy(hy.data(), y, hy.size() * sizeof(float), cudaMemcpyDeviceToHost));
      int bad = 0;
      for (int i = 0; i < n; ++i) bad += hy[i] != 2.0f * hx[i] + 1.0f;  // exact: 2x is exact, so fused or not it rounds once
      for (int i = n; i < n + kGuard; ++i) {
        uint32_t bits;
        std::memcpy(&bits, &hy[i], sizeof bits);
        bad += bits != 0xFFFFFFFFu;
      }
      ASSERT_EQ(bad, 0) << "stages=" << kStages << " n=" << n << " grid=" << grid;
    }
  }
  CUDA_OK(cudaFree(x));
  CUDA_OK(cudaFree(y));
}

TEST(MbarrierStoreArrive, RingIsCorrect) {
  check_ring<1, Protocol::kStoreArrive>();
  check_ring<3, Protocol::kStoreArrive>();
}
TEST(MbarrierCpAsyncInc, RingIsCorrect) {
  check_ring<1, Protocol::kCpAsyncInc>();
  check_ring<3, Protocol::kCpAsyncInc>();
}
TEST(MbarrierCpAsyncNoinc, RingIsCorrect) {
  check_ring<1, Protocol::kCpAsyncNoinc>();
  check_ring<3, Protocol::kCpAsyncNoinc>();
}

}  // namespace
