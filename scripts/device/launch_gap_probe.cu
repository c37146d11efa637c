// scripts/device/launch_gap_probe.cu -- how long a launch takes to start and finish around a kernel that does nothing,
// timed as `tessera bench gemm` times a GEMM (an L2-evicting read pass, probe_util.cuh's L2Evict, then events around
// the launch), by the kind of launch: shared memory (none, or 227 KB a block: the SMs' carveout changes after the read
// pass), clusters, a 1 KB parameter block.  Each kernel writes the global timer at its first block's start and last
// block's end, so the event interval splits into the time before the first block, the blocks' span and the time after
// the last.
//   nvcc -std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a scripts/device/launch_gap_probe.cu -o /tmp/lgp && /tmp/lgp
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <vector>

#include "probe_util.cuh"  // CK, probe::L2Evict

__device__ unsigned long long g_t[4];
__device__ __forceinline__ unsigned long long gtimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
struct Big { unsigned char b[1024]; };
template <bool kBig>
__global__ void idle(Big big, int spin) {
  extern __shared__ unsigned char sm[];
  if (threadIdx.x == 0) atomicMin(&g_t[0], gtimer());
  // a little work so that the blocks overlap: `spin` rounds of a dependent chain
  float x = threadIdx.x;
  for (int i = 0; i < spin; ++i) x = x * 0.999f + 1.f;
  if (x == 12345.f) sm[threadIdx.x] = kBig ? big.b[threadIdx.x % 1024] : 1;
  __syncthreads();
  if (threadIdx.x == 0) atomicMax(&g_t[1], gtimer());
}
int main() {
  const probe::L2Evict evict;  // 4 x the L2, plain loads, on the default stream
  const int sms = evict.sms;
  const int smem_big = 227 * 1024;
  CK(cudaFuncSetAttribute(idle<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_big));
  CK(cudaFuncSetAttribute(idle<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_big));
  CK(cudaFuncSetAttribute(idle<false>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  const cudaStream_t st = 0;  // the eviction's stream
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  struct Case { const char* name; int smem; int cluster; bool big; bool evict; int blocks; };
  const Case cases[] = {
      {"no smem, 132 blocks", 0, 1, false, true, sms},
      {"227 KB smem, 132 blocks", smem_big, 1, false, true, sms},
      {"227 KB smem, clusters of 2 (128 blocks)", smem_big, 2, false, true, 128},
      {"227 KB smem, 1 KB params", smem_big, 1, true, true, sms},
      {"no smem, no eviction before", 0, 1, false, false, sms},
      {"227 KB smem, no eviction before", smem_big, 1, false, false, sms},
      {"227 KB smem, clusters of 2, no eviction before", smem_big, 2, false, false, 128},
  };
  Big big{};
  for (int spin : {0, 20000}) {
    std::printf("spin %d (a block's work)\n", spin);
    for (const Case& c : cases) {
      std::vector<double> tot, span;
      for (int r = 0; r < 31; ++r) {
        const unsigned long long init[4] = {~0ull, 0, 0, 0};
        CK(cudaMemcpyToSymbolAsync(g_t, init, sizeof init, 0, cudaMemcpyHostToDevice, st));
        if (c.evict) evict();
        // the global timer at the event: a one-thread kernel would change what precedes the launch, so the events'
        // own times give the interval, and the kernel's timer stamps its inside
        CK(cudaEventRecord(e0, st));
        cudaLaunchConfig_t cfg{};
        cfg.gridDim = dim3(c.blocks);
        cfg.blockDim = dim3(384);
        cfg.dynamicSmemBytes = c.smem;
        cfg.stream = st;
        cudaLaunchAttribute at{};
        at.id = cudaLaunchAttributeClusterDimension;
        at.val.clusterDim.x = c.cluster; at.val.clusterDim.y = 1; at.val.clusterDim.z = 1;
        cfg.attrs = &at; cfg.numAttrs = c.cluster > 1 ? 1 : 0;
        if (c.big) CK(cudaLaunchKernelEx(&cfg, idle<true>, big, spin));
        else CK(cudaLaunchKernelEx(&cfg, idle<false>, big, spin));
        CK(cudaEventRecord(e1, st));
        CK(cudaStreamSynchronize(st));
        float ms = 0; CK(cudaEventElapsedTime(&ms, e0, e1));
        unsigned long long t[4]; CK(cudaMemcpyFromSymbol(t, g_t, sizeof t));
        tot.push_back(ms * 1e3); span.push_back((t[1] - t[0]) * 1e-3);
      }
      auto med = [](std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; };
      std::printf("  %-48s event interval %6.2f us, blocks' span %6.2f us, outside the blocks %5.2f us\n", c.name, med(tot),
                  med(span), med(tot) - med(span));
    }
  }
  return 0;
}
