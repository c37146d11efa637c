// scripts/device/dsmem_reduce_probe.cu -- the cluster pair's staged reduction alone (kernel/gemm_sm90/gemm_kernel.hpp,
// the fused menus' path): two blocks of 384 threads in a cluster, each holding an fp32 staging tile of 128 x 64 in D's
// column-major order (the 64 x 4096^2 decode plan's tile, 132 floats a staged column), add the peer's half of the
// tile's lines to their own through distributed shared memory; SM cycles of that loop (block mean over 64 clusters),
// one quad's peer load at a time ("serial", the loop before f10e0a9) against kBatch of a thread's quads' loads issued
// before the first is used ("batch 2 / 4 / 8", f10e0a9's is 4).  The sums are checked against the host's.  Then the
// bare GEMM's register form (reduce_regs) with 1-8 loads in flight, and the peer's half pushed by one bulk copy
// (reduce_bulk).
// Measured (H200, 2026-12-01; docs/PERF.md, fifty-second and fifty-third sections): the staged form 1,360 / 1,560 /
// 1,600 / 1,775 cycles with 1 / 2 / 4 / 8 loads in flight, the bulk copy 1,723 (slower than one load at a time), the
// register form 1,135-1,160 / 1,175-1,197 / 1,200 / 1,175-1,195.
//
//   nvcc -std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a -I include scripts/device/dsmem_reduce_probe.cu -o /tmp/dsmem && /tmp/dsmem
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "tessera/arch/sm90_cluster.hpp"    // cluster_sync, ctarank, ld_shared_cluster_f32x4
#include "tessera/arch/sm90_mbarrier.hpp"  // mbarrier_init, arrive_expect_tx, wait_parity, fence_mbarrier_init

namespace {

constexpr int kThreads = 384, kLines = 64, kStride = 132, kQuads = 128 / 4;  // column-major D: 64 lines of 128 floats

#define CK(x)                                                                              \
  do {                                                                                     \
    cudaError_t e_ = (x);                                                                  \
    if (e_ != cudaSuccess) {                                                               \
      std::printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));     \
      return 1;                                                                            \
    }                                                                                      \
  } while (0)

// The end of a staged form: the loop's cycles (from t0) into cycles[], then this block's lines of the summed tile.
__device__ __forceinline__ void finish_staged(const float* stage, float* out, unsigned long long* cycles, unsigned long long t0,
                                              int tile, int split, int line0, int half) {
  __syncthreads();
  const unsigned long long t1 = clock64();
  tessera::arch::cluster_sync();
  if (threadIdx.x == 0) cycles[tile * 2 + split] = t1 - t0;
  for (int i = line0 * kStride + threadIdx.x; i < (line0 + half) * kStride; i += kThreads)
    out[static_cast<size_t>(tile) * kLines * kStride + i] = stage[i];
}

template <int kBatch>
__global__ void __cluster_dims__(1, 1, 2) reduce(const float* in, float* out, unsigned long long* cycles) {
  __shared__ __align__(16) float stage[kLines * kStride];
  namespace arch = tessera::arch;
  const int split = static_cast<int>(arch::cluster_ctarank());
  const int tile = static_cast<int>(blockIdx.x);
  const float* src = in + (static_cast<size_t>(tile) * 2 + split) * kLines * kStride;
  for (int i = threadIdx.x; i < kLines * kStride; i += kThreads) stage[i] = src[i];
  __syncthreads();
  arch::cluster_sync();
  const unsigned long long t0 = clock64();
  const int half = kLines / 2, line0 = split * half, end = (line0 + half) * kQuads;
  const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(stage));
  for (int q0 = line0 * kQuads + static_cast<int>(threadIdx.x); q0 < end; q0 += kBatch * kThreads) {
    float4 peer[kBatch] = {};
    int off[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int q = q0 + u * kThreads;
      off[u] = (q / kQuads) * kStride + 4 * (q % kQuads);
      if (q < end) peer[u] = arch::ld_shared_cluster_f32x4(base + 4u * static_cast<uint32_t>(off[u]), static_cast<uint32_t>(1 - split));
    }
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      if (q0 + u * kThreads >= end) break;
      float4* own = reinterpret_cast<float4*>(stage + off[u]);
      const float4 mine = *own;
      const float4 a = split == 0 ? mine : peer[u], b = split == 0 ? peer[u] : mine;
      *own = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
    }
  }
  finish_staged(stage, out, cycles, t0, tile, split, line0, half);
}

// The bare GEMM's form (GemmSm90::finish_registers): one warpgroup of the block (128 threads) adds the peer's 8 float4
// of each thread (the exchange buffer thread by thread: float4 i of thread t at i * 128 + t; 16 KB, a 128 x 64 tile's
// consumer warpgroup), kBatch loads in flight (the kernel's: 8).
template <int kBatch>
__global__ void __cluster_dims__(1, 1, 2) reduce_regs(const float* in, float* out, unsigned long long* cycles) {
  constexpr int kVec = 8;
  __shared__ __align__(16) float4 xbuf[kVec * 128];
  namespace arch = tessera::arch;
  const int split = static_cast<int>(arch::cluster_ctarank());
  const int tile = static_cast<int>(blockIdx.x), t = static_cast<int>(threadIdx.x);
  const float4* src = reinterpret_cast<const float4*>(in) + (static_cast<size_t>(tile) * 2 + split) * kVec * 128;
  for (int i = t; i < kVec * 128; i += kThreads) xbuf[i] = src[i];
  float4 acc[kVec];
  if (t < 128)
    for (int i = 0; i < kVec; ++i) acc[i] = src[i * 128 + t];
  __syncthreads();
  arch::cluster_sync();
  const unsigned long long t0 = clock64();
  if (t < 128) {
    const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(xbuf)) + 16u * static_cast<uint32_t>(t);
#pragma unroll
    for (int i0 = 0; i0 < kVec; i0 += kBatch) {
      float4 v[kBatch];
#pragma unroll
      for (int i = 0; i < kBatch; ++i) v[i] = arch::ld_shared_cluster_f32x4(base + 16u * 128u * static_cast<uint32_t>(i0 + i), static_cast<uint32_t>(1 - split));
#pragma unroll
      for (int i = 0; i < kBatch; ++i) {
        acc[i0 + i].x += v[i].x; acc[i0 + i].y += v[i].y; acc[i0 + i].z += v[i].z; acc[i0 + i].w += v[i].w;
      }
    }
  }
  __syncthreads();
  const unsigned long long t1 = clock64();
  arch::cluster_sync();
  if (t == 0) cycles[tile * 2 + split] = t1 - t0;
  if (t < 128)
    for (int i = 0; i < kVec; ++i) reinterpret_cast<float4*>(out)[(static_cast<size_t>(tile) * 2 + split) * kVec * 128 + i * 128 + t] = acc[i];
}


// The staged form with one bulk copy: each block's thread 0 pushes the lines the peer keeps (half the tile, contiguous
// in the staging tile: 32 x 132 floats) into the peer's receive buffer (cp.async.bulk.shared::cluster.shared::cta,
// completing on the peer's mbarrier), and the peer adds them from its own shared memory.
__global__ void __cluster_dims__(1, 1, 2) reduce_bulk(const float* in, float* out, unsigned long long* cycles) {
  extern __shared__ __align__(128) float smem[];
  float* stage = smem;                      // kLines * kStride
  float* recv = smem + kLines * kStride;    // (kLines / 2) * kStride
  __shared__ __align__(8) uint64_t bar;
  namespace arch = tessera::arch;
  const int split = static_cast<int>(arch::cluster_ctarank());
  const int tile = static_cast<int>(blockIdx.x);
  const int half = kLines / 2, line0 = split * half, peer_line0 = (1 - split) * half;
  constexpr uint32_t kBytes = (kLines / 2) * kStride * 4;
  const float* src = in + (static_cast<size_t>(tile) * 2 + split) * kLines * kStride;
  for (int i = threadIdx.x; i < kLines * kStride; i += kThreads) stage[i] = src[i];
  if (threadIdx.x == 0) {
    arch::mbarrier_init(&bar, 1);
    arch::fence_mbarrier_init();
    arch::mbarrier_arrive_expect_tx(&bar, kBytes);
  }
  __syncthreads();
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // the staged tile visible to the copy engine
  arch::cluster_sync();
  const unsigned long long t0 = clock64();
  if (threadIdx.x == 0) {
    const uint32_t src_u = static_cast<uint32_t>(__cvta_generic_to_shared(stage + peer_line0 * kStride));
    const uint32_t dst_l = static_cast<uint32_t>(__cvta_generic_to_shared(recv));
    const uint32_t bar_l = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
    asm volatile(
        "{\n .reg .b32 d, b;\n"
        " mapa.shared::cluster.u32 d, %0, %3;\n"
        " mapa.shared::cluster.u32 b, %1, %3;\n"
        " cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [d], [%2], %4, [b];\n}\n"
        ::"r"(dst_l), "r"(bar_l), "r"(src_u), "r"(static_cast<uint32_t>(1 - split)), "r"(kBytes)
        : "memory");
  }
  arch::mbarrier_wait_parity(&bar, 0u);
  for (int q = static_cast<int>(threadIdx.x); q < half * kQuads; q += kThreads) {
    const int off = (q / kQuads) * kStride + 4 * (q % kQuads);
    float4* own = reinterpret_cast<float4*>(stage + line0 * kStride + off);
    const float4 mine = *own, peer = *reinterpret_cast<const float4*>(recv + off);
    const float4 a = split == 0 ? mine : peer, b = split == 0 ? peer : mine;
    *own = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
  }
  finish_staged(stage, out, cycles, t0, tile, split, line0, half);
}

// Times `launch` (one launch of 64 clusters) five times: the best block mean of the loop's cycles; with `want`, checks
// the tile's sums (the staged forms' output).
template <class Launch>
int time_it(const char* name, Launch launch, float* dout, unsigned long long* dcyc, int tiles, const std::vector<float>* want) {
  std::vector<unsigned long long> cyc(tiles * 2);
  double best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    if (want) CK(cudaMemset(dout, 0xff, sizeof(float) * want->size()));
    launch();
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(cyc.data(), dcyc, sizeof(unsigned long long) * cyc.size(), cudaMemcpyDeviceToHost));
    double mean = 0;
    for (unsigned long long c : cyc) mean += static_cast<double>(c);
    mean /= static_cast<double>(cyc.size());
    best = mean < best ? mean : best;
  }
  int bad = 0;
  if (want) {
    std::vector<float> got(want->size());
    CK(cudaMemcpy(got.data(), dout, sizeof(float) * got.size(), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < got.size(); ++i)
      if ((i % kStride) < 128 && got[i] != (*want)[i]) ++bad;
  }
  std::printf("  %-8s %7.0f cycles (block mean, best of 5)%s\n", name, best, !want ? "" : bad ? "   WRONG" : "   sums exact");
  return bad ? 1 : 0;
}

}  // namespace

int main() {
  const int tiles = 64;  // 64 clusters: the 64 x 4096^2 plan's 32 tiles x 2 splits, and more
  std::vector<float> in(static_cast<size_t>(tiles) * 2 * kLines * kStride), want(static_cast<size_t>(tiles) * kLines * kStride);
  unsigned s = 12345;
  for (float& x : in) x = static_cast<float>((s = s * 1664525u + 1013904223u) >> 8) / 16777216.f - 0.5f;
  for (int t = 0; t < tiles; ++t)
    for (int i = 0; i < kLines * kStride; ++i)
      want[static_cast<size_t>(t) * kLines * kStride + i] =
          in[(static_cast<size_t>(t) * 2) * kLines * kStride + i] + in[(static_cast<size_t>(t) * 2 + 1) * kLines * kStride + i];
  float *din = nullptr, *dout = nullptr;
  unsigned long long* dcyc = nullptr;
  CK(cudaMalloc(&din, sizeof(float) * in.size()));
  CK(cudaMalloc(&dout, sizeof(float) * want.size()));
  CK(cudaMalloc(&dcyc, sizeof(unsigned long long) * tiles * 2));
  CK(cudaMemcpy(din, in.data(), sizeof(float) * in.size(), cudaMemcpyHostToDevice));
  std::printf("cluster pair's staged reduction, 128 x 64 fp32 tile (column-major), half the lines a block, %d clusters\n", tiles);
  const dim3 grid(tiles, 1, 2);
  const int bulk_smem = static_cast<int>(sizeof(float)) * (kLines + kLines / 2) * kStride;
  CK(cudaFuncSetAttribute(reduce_bulk, cudaFuncAttributeMaxDynamicSharedMemorySize, bulk_smem));
  int bad = 0;
  bad += time_it("serial", [&] { reduce<1><<<grid, kThreads>>>(din, dout, dcyc); }, dout, dcyc, tiles, &want);
  bad += time_it("batch 2", [&] { reduce<2><<<grid, kThreads>>>(din, dout, dcyc); }, dout, dcyc, tiles, &want);
  bad += time_it("batch 4", [&] { reduce<4><<<grid, kThreads>>>(din, dout, dcyc); }, dout, dcyc, tiles, &want);
  bad += time_it("batch 8", [&] { reduce<8><<<grid, kThreads>>>(din, dout, dcyc); }, dout, dcyc, tiles, &want);
  bad += time_it("bulk", [&] { reduce_bulk<<<grid, kThreads, bulk_smem>>>(din, dout, dcyc); }, dout, dcyc, tiles, &want);
  std::printf("the bare GEMM's form: one warpgroup, 8 float4 a thread from the peer (16 KB), loads in flight:\n");
  bad += time_it("1", [&] { reduce_regs<1><<<grid, kThreads>>>(din, dout, dcyc); }, dout, dcyc, tiles, nullptr);
  bad += time_it("2", [&] { reduce_regs<2><<<grid, kThreads>>>(din, dout, dcyc); }, dout, dcyc, tiles, nullptr);
  bad += time_it("4", [&] { reduce_regs<4><<<grid, kThreads>>>(din, dout, dcyc); }, dout, dcyc, tiles, nullptr);
  bad += time_it("8", [&] { reduce_regs<8><<<grid, kThreads>>>(din, dout, dcyc); }, dout, dcyc, tiles, nullptr);
  return bad;
}
