// scripts/device/cluster_barrier_probe.cu -- what a cluster barrier costs at a block's start, and whether its release
// form waits for the bulk (TMA) loads the thread has in flight: the question behind the pushed cluster pair's start
// (its first version passed barrier.cluster.arrive.release + wait.acquire right after thread 0 issued the ring's
// first loads, and the consumers started 2.4-3.4k cycles later than without the barrier; docs/PERF.md, fifty-fourth
// section).  In the SASS the release arrival is MEMBAR.ALL.CTA + MEMBAR.ALL.GPU + UCGABAR_ARV, the relaxed one
// UCGABAR_ARV alone.  Answer (H200, fifty-fifth section): yes -- with four 16 KB loads in flight thread 0 passed the
// release barrier after 4,655 cycles (552 without loads), the relaxed arrival after 222; __threadfence() likewise
// (4,467 against 461).
//
// One launch per case: 132 blocks of 384 threads in clusters of two, one block an SM (the GEMM kernels' shape), the L2
// evicted before each launch.  Thread 0 initialises an mbarrier and, where the case says so, issues four 16 KB bulk
// loads (cp.async.bulk, 64 KB, the decode tile's first stages) of the block's own part of a buffer on it; then the
// block's barrier, then the case's cluster barrier.  SM cycles from the block's barrier (block means, best launch of 5):
//   pass-0    thread 0 through the barrier;   pass-128  thread 128 (a consumer) through it;
//   data-128  thread 128 until the loads have landed (its wait on the mbarrier after the barrier).
// Cases:
//   sync            cluster_sync (arrive.release + wait.acquire), no loads in flight
//   sync+loads      cluster_sync with the loads in flight
//   relaxed+loads   cluster_arrive_relaxed + cluster_wait with the loads in flight
//   split+loads     cluster_arrive_relaxed, the wait after the loads have landed (the pushed pair's second version)
//   membar+loads    thread 0's __threadfence() (MEMBAR.SC.GPU) with the loads in flight, then the block's barrier
//   membar          the same, no loads in flight
//   second-sync     a second cluster_sync after a first (both blocks already together): the barrier's own latency
//   loads           no barrier: the loads' latency alone
//
//   nvcc -std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a -I include scripts/device/cluster_barrier_probe.cu -o /tmp/cbp && /tmp/cbp
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "probe_util.cuh"                  // CK, probe::L2Evict
#include "tessera/arch/sm90_cluster.hpp"   // cluster_sync, cluster_arrive(_relaxed), cluster_wait
#include "tessera/arch/sm90_mbarrier.hpp"  // mbarrier_init, arrive_expect_tx, wait_parity, fence_mbarrier_init
#include "tessera/arch/sm90_tma.hpp"       // bulk_load

namespace {

enum Case { kSync, kSyncLoads, kRelaxedLoads, kSplitLoads, kMembarLoads, kMembar, kSecondSync, kLoads, kCases };
const char* const kNames[kCases] = {"sync", "sync+loads", "relaxed+loads", "split+loads", "membar+loads", "membar", "second-sync", "loads"};
constexpr int kThreads = 384, kLoadsPerBlock = 4, kLoadBytes = 16384, kBlockBytes = kLoadsPerBlock * kLoadBytes;

__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(kThreads, 1)
    barrier_case(const unsigned char* src, int which, unsigned long long* out) {
  namespace arch = tessera::arch;
  extern __shared__ __align__(128) unsigned char smem[];
  __shared__ uint64_t bar;
  const bool loads = which != kSync && which != kMembar && which != kSecondSync;
  if (threadIdx.x == 0) {
    arch::mbarrier_init(&bar, 1);
    arch::fence_mbarrier_init();
    arch::fence_proxy_async_shared_cta();
    if (loads) {
      arch::mbarrier_arrive_expect_tx(&bar, kBlockBytes);
      for (int i = 0; i < kLoadsPerBlock; ++i)
        arch::bulk_load(smem + i * kLoadBytes, src + static_cast<size_t>(blockIdx.x) * kBlockBytes + i * kLoadBytes, kLoadBytes, &bar);
    }
  }
  __syncthreads();
  const unsigned long long t0 = clock64();
  switch (which) {
    case kSync: case kSyncLoads: arch::cluster_sync(); break;
    case kRelaxedLoads: arch::cluster_arrive_relaxed(); arch::cluster_wait(); break;
    case kSplitLoads: arch::cluster_arrive_relaxed(); break;
    case kMembarLoads: case kMembar: if (threadIdx.x == 0) __threadfence(); __syncthreads(); break;
    case kSecondSync: {
      arch::cluster_sync();
      __syncthreads();
      const unsigned long long t1 = clock64();
      arch::cluster_sync();
      const unsigned long long t2 = clock64();
      if (threadIdx.x == 0) out[blockIdx.x * 3 + 0] = t2 - t1;
      if (threadIdx.x == 128) { out[blockIdx.x * 3 + 1] = t2 - t1; out[blockIdx.x * 3 + 2] = 0; }
      return;
    }
    default: break;
  }
  const unsigned long long t1 = clock64();
  if (threadIdx.x == 0) out[blockIdx.x * 3 + 0] = t1 - t0;
  if (threadIdx.x == 128) {
    if (loads) arch::mbarrier_wait_parity(&bar, 0u);
    out[blockIdx.x * 3 + 1] = t1 - t0;
    out[blockIdx.x * 3 + 2] = loads ? clock64() - t0 : 0;
  }
  if (threadIdx.x == 0 && loads && which != kSplitLoads) arch::mbarrier_wait_parity(&bar, 0u);  // the block leaves with its loads landed
  if (which == kSplitLoads) {
    if (threadIdx.x != 128) arch::mbarrier_wait_parity(&bar, 0u);
    arch::cluster_wait();
  }
  // No block leaves while the peer may still be in the cluster barrier.
  arch::cluster_sync();
}

}  // namespace

int main() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int blocks = sms & ~1;
  probe::L2Evict evict;
  unsigned char* src = nullptr;
  unsigned long long* out = nullptr;
  CK(cudaMalloc(&src, static_cast<size_t>(blocks) * kBlockBytes));
  CK(cudaMemset(src, 3, static_cast<size_t>(blocks) * kBlockBytes));
  CK(cudaMalloc(&out, static_cast<size_t>(blocks) * 3 * sizeof(unsigned long long)));
  CK(cudaFuncSetAttribute(barrier_case, cudaFuncAttributeMaxDynamicSharedMemorySize, kBlockBytes));
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d blocks of %d threads in clusters of 2, %d KB of bulk loads a block, L2 evicted before each launch\n", prop.name,
              blocks, kThreads, kBlockBytes / 1024);
  std::printf("  %-14s %9s %9s %9s   (SM cycles from the block's barrier, block means, best of 5)\n", "case", "pass-0", "pass-128",
              "data-128");
  std::vector<unsigned long long> h(static_cast<size_t>(blocks) * 3);
  for (int c = 0; c < kCases; ++c) {
    double best[3] = {1e30, 1e30, 1e30};
    for (int rep = 0; rep < 5; ++rep) {
      evict();
      barrier_case<<<blocks, kThreads, kBlockBytes>>>(src, c, out);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(h.data(), out, h.size() * sizeof(h[0]), cudaMemcpyDeviceToHost));
      for (int j = 0; j < 3; ++j) {
        double sum = 0;
        for (int b = 0; b < blocks; ++b) sum += static_cast<double>(h[static_cast<size_t>(b) * 3 + j]);
        best[j] = std::min(best[j], sum / blocks);
      }
    }
    std::printf("  %-14s %9.0f %9.0f %9.0f\n", kNames[c], best[0], best[1], best[2]);
  }
  cudaFree(src);
  cudaFree(out);
  return 0;
}
