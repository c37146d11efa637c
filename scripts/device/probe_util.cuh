// scripts/device/probe_util.cuh -- what the standalone GPU probes (gemv_probe.cu, stream_probe.cu, share_probe.cu, ...)
// share: a CUDA call check, the L2 eviction (buffer and pass), one grid-stride read of a buffer (the read floor), bf16 bit
// conversions, a launch in clusters, and the rotated medians.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#define CK(x)                                                                                  \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s failed: %s (line %d)\n", #x, cudaGetErrorString(e_), __LINE__); \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)

namespace probe {

// The L2 eviction pass: plain loads (normal L2 priority).  A pass of streaming loads (__ldcs, evict-first) leaves lines
// of normal priority -- the weights a previous launch read -- in L2, so the next launch finds part of them there
// (docs/PERF.md, forty-ninth section).
__global__ void evict_pass(const int4* __restrict__ p, size_t n, int never, int* sink) {
  int acc = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const int4 v = p[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == never) *sink = acc;
}

// One read of n 16-byte words, grid-stride, streaming loads: the floor a kernel that reads the words once is held to.
__global__ void read_words(const int4* __restrict__ p, size_t n, int never, int* sink) {
  int acc = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const int4 v = __ldcs(p + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == never) *sink = acc;
}

// The L2 eviction buffer (4x the L2) and the pass over it: ev() evicts; ev.sms, ev.sink serve the other kernels.
struct L2Evict {
  int sms = 0;
  size_t words = 0;
  int4* buf = nullptr;
  int* sink = nullptr;
  L2Evict() {
    int l2 = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    words = 4 * static_cast<size_t>(l2) / 16;
    CK(cudaMalloc(&buf, words * 16));
    CK(cudaMemset(buf, 1, words * 16));
    CK(cudaMalloc(&sink, 4));
  }
  L2Evict(const L2Evict&) = delete;
  L2Evict& operator=(const L2Evict&) = delete;
  ~L2Evict() {
    cudaFree(buf);
    cudaFree(sink);
  }
  void operator()() const { evict_pass<<<4 * sms, 512>>>(buf, words, 0x2468ace1, sink); }
};

inline uint16_t bf16_bits(float f) {
  const __nv_bfloat16 b = __float2bfloat16_rn(f);
  uint16_t u;
  std::memcpy(&u, &b, 2);
  return u;
}
inline double bits_bf16(uint16_t u) {
  uint32_t w = static_cast<uint32_t>(u) << 16;
  float f;
  std::memcpy(&f, &w, 4);
  return f;
}

// A launch of `kernel` over `grid` blocks of `block` threads with `smem` bytes of dynamic shared memory, in clusters of
// `cluster` blocks along x (0: a plain launch, no cluster attribute; 1: the attribute, clusters of one).
template <class... KArgs, class... Args>
void launch_clustered(void (*kernel)(KArgs...), dim3 grid, dim3 block, int smem, int cluster, Args&&... args) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = static_cast<size_t>(smem);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = static_cast<unsigned>(cluster);
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = cluster > 0 ? 1 : 0;
  CK(cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...));
}

// Medians (us) of runs[i].second(), each launch after evict() and timed alone by events: `rounds` rounds, each starting
// one launch further on (so that no launch always follows the same one), the first `skip` rounds not counted.
template <class Runs, class Evict>
std::vector<double> medians_rotated(const Runs& runs, Evict&& evict, int rounds = 17, int skip = 2) {
  const int nr = static_cast<int>(runs.size());
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<std::vector<double>> t(nr);
  for (int round = 0; round < rounds; ++round)
    for (int q = 0; q < nr; ++q) {
      const int which = (q + round) % nr;
      evict();
      CK(cudaEventRecord(e0));
      runs[which].second();
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      if (round >= skip) t[which].push_back(ms * 1e3);
    }
  CK(cudaGetLastError());
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  std::vector<double> med(nr);
  for (int i = 0; i < nr; ++i) {
    std::sort(t[i].begin(), t[i].end());
    med[i] = t[i][t[i].size() / 2];
  }
  return med;
}

}  // namespace probe
