// scripts/device/smem_contention.cu -- does other shared-memory traffic slow wgmma whose operands come from shared
// memory?  Two warpgroups issue m64n256k16 as the cooperative GEMM kernel does (64 x 256 each, four K steps a tile,
// A and B resident in shared memory, one group in flight: 80 KB of operand reads a K tile); a third warpgroup makes
// traffic of one kind until the first warpgroup's loop is done:
//   lds / sts  -- warps reading (writing) 16 bytes a lane, 16 accesses in flight a warp;
//   lds + stg  -- what a store warp could do instead of a TMA store: 16-byte shared loads, 16-byte global stores;
//   bulk       -- one thread keeping 2-8 non-tensor bulk copies from global memory (an L2-resident buffer) in flight;
//   bulk store -- one thread storing 8 KB from shared memory with non-tensor bulk copies, 1 or 4 groups in flight;
//   tma load   -- one thread keeping 2-6 stages of two tensor-map boxes in flight (128-byte swizzle, 64 bf16 columns;
//                 the GEMM's stage is a 128-row and a 256-row box, 48 KB), 96 KB in flight, or ("deep") 144 KB as
//                 the kernel's three stages or six stages of half the rows;
//   tma store  -- one thread storing 64-row (8-row) boxes from shared memory through a tensor map (the epilogue's
//                 stores of D), 1 or 4 bulk groups in flight;
//   polling    -- one thread polling an mbarrier that never completes.
// Most also run without the wgmma warpgroups (they then wait a fixed number of cycles), for the helper's own rate.
//
//   nvcc -std=c++20 -O3 -arch=sm_90a -I include scripts/device/smem_contention.cu -o /tmp/smem_contention && /tmp/smem_contention
//
// Prints per variant: cycles per K tile of the wgmma loop (mean over the 132 blocks) and the change against wgmma
// alone, its operand reads in bytes a cycle, the helper's bytes a cycle (mean over the blocks), and the sum.  The
// H200's figures and what they say (and do not say) about the GEMM kernels: docs/PERF.md, thirty-second section.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "tessera/arch/sm90_mbarrier.hpp"
#include "tessera/arch/sm90_tma.hpp"
#include "tessera/arch/sm90_tma_desc.hpp"
#include "wgmma_probe.hpp"

namespace {

constexpr int kKTiles = 2048;
constexpr int kOperandBytesPerTile = 2 * 4 * (64 * 16 * 2 + 256 * 16 * 2);  // two warpgroups, four K steps, A + B
constexpr int kHelperRegion = 96 * 1024;  // 32 KB read or written by lds / sts
constexpr int kBulkRegion = 128 * 1024;   // two 24 KB bulk buffers
constexpr int kBulkBytes = 24 * 1024;
constexpr int kBarriers = kBulkRegion + 2 * kBulkBytes;  // up to 8 barriers
constexpr int kSmem = kBarriers + 64;
constexpr long long kIdleCycles = 2048LL * 1024;  // what the wgmma warpgroups wait when they do not issue
constexpr size_t kSrcBytes = 16u << 20;

enum Helper { kNone, kLds, kSts, kBulk, kBulkLds, kSpin, kLdsStg, kBulkStore };

__device__ void wgmma_loop(const unsigned char* smem, long long* out, float* sink, int b_off) {
  using probe::Atom;
  float acc[Atom::kValuesC];
#pragma unroll
  for (int i = 0; i < Atom::kValuesC; ++i) acc[i] = 0.f;
  const unsigned char* a = smem + (threadIdx.x / 128) * 8192;
  const unsigned char* b = smem + b_off;
  const long long t0 = clock64();
  for (int kt = 0; kt < kKTiles; ++kt) {
    probe::issue_k_tile(acc, a, b);
    tessera::arch::wgmma_wait<1>();
    tessera::arch::wgmma_fence_operands(acc);
  }
  tessera::arch::wgmma_wait<0>();
  const long long t1 = clock64();
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < Atom::kValuesC; ++i) s += acc[i];
  if (threadIdx.x % 128 == 0) out[blockIdx.x * 2 + threadIdx.x / 128] = t1 - t0;
  if (s == 12345.f) *sink = s;
}

// Both kernels' start: the first `bytes` of shared memory filled, eight mbarriers (count 1) at `bars`, the stop flag
// cleared, all of it visible to the generic and the async proxy before anyone goes on.
__device__ void setup(unsigned char* smem, int bytes, uint64_t* bars, volatile int& done) {
  for (int i = threadIdx.x; i < bytes / 4; i += blockDim.x) reinterpret_cast<float*>(smem)[i] = 0.001f * (i % 97);
  if (threadIdx.x == 0) {
    done = 0;
    for (int b = 0; b < 8; ++b) tessera::arch::mbarrier_init(&bars[b], 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  tessera::arch::fence_proxy_async_shared_cta();
  __syncthreads();
}

// Threads 0-255: the wgmma loop (B's operand at b_off), or kIdleCycles of waiting when the helper runs alone; then
// the helper is told to stop.
__device__ void drive(bool wgmma, const unsigned char* smem, long long* out, float* sink, int b_off, volatile int& done) {
  if (wgmma) {
    wgmma_loop(smem, out, sink, b_off);
  } else {
    const long long t0 = clock64();
    while (clock64() - t0 < kIdleCycles) {}
    if (threadIdx.x % 128 == 0) out[blockIdx.x * 2 + threadIdx.x / 128] = clock64() - t0;
  }
  if (threadIdx.x == 0) done = 1;
}

__device__ __forceinline__ void lds_chunk(uint32_t base, int it, uint4& x) {
  uint4 v[16];
#pragma unroll
  for (int i = 0; i < 16; ++i) {
    const uint32_t addr = base + ((i * 512 + it * 8192) & (32 * 1024 - 1));
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v[i].x), "=r"(v[i].y), "=r"(v[i].z), "=r"(v[i].w) : "r"(addr));
  }
#pragma unroll
  for (int i = 0; i < 16; ++i) { x.x ^= v[i].x; x.y ^= v[i].y; x.z ^= v[i].z; x.w ^= v[i].w; }
}

__device__ __forceinline__ void sts_chunk(uint32_t base, int it, const uint4& x) {
#pragma unroll
  for (int i = 0; i < 16; ++i) {
    const uint32_t addr = base + ((i * 512 + it * 8192) & (32 * 1024 - 1));
    asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(x.x + i), "r"(x.y), "r"(x.z), "r"(x.w) : "memory");
  }
}

template <Helper H, int kWarps, bool kWgmma, int kBufs = 2, int kBackoffNs = 0, int kThrottleNs = 0>
__global__ void __launch_bounds__(384, 1) contention_kernel(long long* out, float* sink, long long* hbytes, long long* hcycles,
                                                            const unsigned char* src) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ volatile int done;
  uint64_t* bars = reinterpret_cast<uint64_t*>(smem + kBarriers);
  setup(smem, kBarriers, bars, done);
  if (threadIdx.x < 256) return drive(kWgmma, smem, out, sink, 64 * 1024, done);
  const int warp = (threadIdx.x - 256) / 32, lane = threadIdx.x % 32;
  const uint32_t sbase = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  long long bytes = 0;
  const long long t0 = clock64();
  if constexpr (H == kBulk || H == kBulkLds) {
    if (warp == 0) {
      if (lane == 0) {
        constexpr int kBytes = 2 * kBulkBytes / kBufs;
        uint32_t phase[kBufs] = {};
        long long n = 0;
        const size_t slots = kSrcBytes / kBytes;
        auto wait = [&](int b) {
          if constexpr (kBackoffNs == 0) {
            tessera::arch::mbarrier_wait_parity(&bars[b], phase[b]);
          } else {
            while (!tessera::arch::mbarrier_test_wait_parity(&bars[b], phase[b])) __nanosleep(kBackoffNs);
          }
        };
        for (int b = 0; b < kBufs; ++b, ++n) {
          tessera::arch::mbarrier_arrive_expect_tx(&bars[b], kBytes);
          tessera::arch::bulk_load(smem + kBulkRegion + b * kBytes, src + ((blockIdx.x * 7 + n) % slots) * kBytes, kBytes, &bars[b]);
        }
        while (!done) {
          for (int b = 0; b < kBufs; ++b, ++n) {
            wait(b);
            phase[b] ^= 1;
            bytes += kBytes;
            if (kThrottleNs > 0) __nanosleep(kThrottleNs);
            tessera::arch::mbarrier_arrive_expect_tx(&bars[b], kBytes);
            tessera::arch::bulk_load(smem + kBulkRegion + b * kBytes, src + ((blockIdx.x * 7 + n) % slots) * kBytes, kBytes, &bars[b]);
          }
        }
        for (int b = 0; b < kBufs; ++b) wait(b);
        hbytes[blockIdx.x * 4 + 0] = bytes;
        hcycles[blockIdx.x * 4 + 0] = clock64() - t0;
      }
      return;
    }
  }
  if constexpr (H == kSpin) {
    // one thread polling a barrier that never completes (try_wait, which may suspend the thread for a while)
    if (warp == 0 && lane == 0) {
      long long polls = 0;
      while (!done) polls += tessera::arch::mbarrier_try_wait_parity(&bars[0], 0) ? 1 : 0;
      hbytes[blockIdx.x * 4 + 0] = polls;
    }
    return;
  }
  if constexpr (H == kLdsStg) {
    // what a store warp could do instead of a TMA store: 16-byte loads from the staged tile, 16-byte global stores
    if (warp < kWarps) {
      const uint32_t base = sbase + kHelperRegion + lane * 16;
      unsigned char* dst = const_cast<unsigned char*>(src) + (size_t(blockIdx.x) * 4 + warp) * 16384 + lane * 16;
      int it = 0;
      while (!done) {
        uint4 v[8];
#pragma unroll
        for (int i = 0; i < 8; ++i) {
          const uint32_t addr = base + ((i * 512 + it * 4096) & (32 * 1024 - 1));
          asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v[i].x), "=r"(v[i].y), "=r"(v[i].z), "=r"(v[i].w) : "r"(addr));
        }
#pragma unroll
        for (int i = 0; i < 8; ++i) {
          unsigned char* p = dst + ((i * 512 + it * 4096) & (16384 - 1));
          asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v[i].x), "r"(v[i].y), "r"(v[i].z), "r"(v[i].w) : "memory");
        }
        ++it;
        bytes += 8 * 512;
        if (kThrottleNs > 0) __nanosleep(kThrottleNs);
      }
      if (lane == 0) {
        atomicAdd(reinterpret_cast<unsigned long long*>(&hbytes[blockIdx.x * 4 + 1]), static_cast<unsigned long long>(bytes));
        atomicMax(reinterpret_cast<unsigned long long*>(&hcycles[blockIdx.x * 4 + 1]), static_cast<unsigned long long>(clock64() - t0));
      }
    }
    return;
  }
  if constexpr (H == kBulkStore) {
    // non-tensor bulk stores of 8 KB from shared memory, kBufs groups in flight
    if (warp == 0 && lane == 0) {
      unsigned char* dst = const_cast<unsigned char*>(src) + size_t(blockIdx.x) * 65536;
      long long n = 0;
      while (!done) {
        tessera::arch::bulk_store(dst + (n % 8) * 8192, smem + kBulkRegion + (n % 4) * 8192, 8192);
        tessera::arch::bulk_commit();
        tessera::arch::bulk_wait_read<kBufs - 1>();
        bytes += 8192;
        ++n;
      }
      tessera::arch::bulk_wait<0>();
      hbytes[blockIdx.x * 4 + 0] = bytes;
      hcycles[blockIdx.x * 4 + 0] = clock64() - t0;
    }
    return;
  }
  constexpr int kFirst = (H == kBulkLds) ? 1 : 0;
  if ((H == kLds || H == kSts || H == kBulkLds) && warp >= kFirst && warp < kFirst + kWarps) {
    const uint32_t base = sbase + kHelperRegion + lane * 16;
    uint4 x = make_uint4(threadIdx.x, 1, 2, 3);
    int it = 0;
    while (!done) {
      if constexpr (H == kSts) sts_chunk(base, it, x);
      else lds_chunk(base, it, x);
      ++it;
      bytes += 16 * 512;
    }
    if ((x.x ^ x.y ^ x.z ^ x.w) == 0x12345678u) *sink = 1.f;
    if (lane == 0) {
      atomicAdd(reinterpret_cast<unsigned long long*>(&hbytes[blockIdx.x * 4 + 1]), static_cast<unsigned long long>(bytes));
      atomicMax(reinterpret_cast<unsigned long long*>(&hcycles[blockIdx.x * 4 + 1]), static_cast<unsigned long long>(clock64() - t0));
    }
  }
}


// Tensor TMA as the GEMM kernel uses it (128-byte swizzle, boxes of 64 bf16 columns): kLoad -- one thread keeps
// kStages stages in flight, each a box of kRowsA rows and one of kRowsB rows (the kernel's stage: 128 + 256 rows,
// 48 KB); kStore -- one thread stores boxes of kRowsA rows from shared memory to global memory, kStages bulk groups in
// flight (the epilogue's stores).  The region: 96 KB from 96 KB on (the wgmma operands below it); kDeep: 144 KB from
// 48 KB on, B's operand moved to 16 KB (the kernel's depth: 3 stages of 48 KB).
enum TmaMode { kLoad, kStore };
constexpr int kTmaSmem = 192 * 1024 + 64;
constexpr int kMatRows = 16384, kMatCols = 256;  // bf16, 8 MB: stays in L2

template <TmaMode kMode, int kStages, int kRowsA, int kRowsB, bool kWgmma, bool kDeep = false>
__global__ void __launch_bounds__(384, 1) tma_kernel(long long* out, float* sink, long long* hbytes, long long* hcycles,
                                                     const __grid_constant__ CUtensorMap map_a,
                                                     const __grid_constant__ CUtensorMap map_b) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ volatile int done;
  constexpr int kStageBytes = (kRowsA + kRowsB) * 128;
  constexpr int kTmaRegion = kDeep ? 48 * 1024 : 96 * 1024, kCapacity = kDeep ? 144 * 1024 : 96 * 1024;
  static_assert(kMode == kStore || kStages * kStageBytes <= kCapacity);
  static_assert(kTmaRegion + kCapacity + 64 == kTmaSmem);
  uint64_t* bars = reinterpret_cast<uint64_t*>(smem + kTmaRegion + kCapacity);
  setup(smem, kTmaRegion + kCapacity, bars, done);
  if (threadIdx.x < 256) return drive(kWgmma, smem, out, sink, kDeep ? 16 * 1024 : 64 * 1024, done);
  if (threadIdx.x != 256) return;
  long long bytes = 0, n = 0;
  const long long t0 = clock64();
  auto row = [&](long long i, int rows) { return static_cast<int32_t>(((blockIdx.x * 61 + i) * rows) % (kMatRows - 256)); };
  if constexpr (kMode == kLoad) {
    uint32_t phase[kStages] = {};
    auto issue = [&](int s) {
      unsigned char* st = smem + kTmaRegion + s * kStageBytes;
      tessera::arch::mbarrier_arrive_expect_tx(&bars[s], kStageBytes);
      tessera::arch::tma_load_2d(st, &map_a, &bars[s], static_cast<int32_t>(64 * (n % 4)), row(n, kRowsA));
      tessera::arch::tma_load_2d(st + kRowsA * 128, &map_b, &bars[s], static_cast<int32_t>(64 * ((n + 1) % 4)), row(n, kRowsB));
      ++n;
    };
    for (int s = 0; s < kStages; ++s) issue(s);
    while (!done) {
      for (int s = 0; s < kStages; ++s) {
        tessera::arch::mbarrier_wait_parity(&bars[s], phase[s]);
        phase[s] ^= 1;
        bytes += kStageBytes;
        issue(s);
      }
    }
    for (int s = 0; s < kStages; ++s) tessera::arch::mbarrier_wait_parity(&bars[s], phase[s]);
  } else {
    constexpr int kBox = kRowsA * 128;
    constexpr int kSlots = kCapacity / kBox;
    while (!done) {
      tessera::arch::tma_store_2d(&map_a, smem + kTmaRegion + (n % kSlots) * kBox, static_cast<int32_t>(64 * (n % 4)), row(n, kRowsA));
      tessera::arch::bulk_commit();
      tessera::arch::bulk_wait_read<kStages - 1>();
      bytes += kBox;
      ++n;
    }
    tessera::arch::bulk_wait<0>();
  }
  hbytes[blockIdx.x * 4 + 0] = bytes;
  hcycles[blockIdx.x * 4 + 0] = clock64() - t0;
}

double g_base = 0;

// Launches `kernel` (a contention_kernel or tma_kernel) three times with `smem` bytes and prints the last run: the
// wgmma loop's cycles per K tile (kWgmma) and the helper's bytes a cycle, async-proxy (slot 0) and generic (slot 1).
template <class Kernel, class... Args>
void measure(const char* name, bool wgmma, bool base, Kernel kernel, int smem, Args... args) {
  long long *out, *hb, *hc;
  float* sink;
  cudaMalloc(&out, 132 * 2 * sizeof(long long));
  cudaMalloc(&hb, 132 * 4 * sizeof(long long));
  cudaMalloc(&hc, 132 * 4 * sizeof(long long));
  cudaMalloc(&sink, sizeof(float));
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  long long h[264], b[528], c[528];
  for (int rep = 0; rep < 3; ++rep) {
    cudaMemset(hb, 0, 132 * 4 * sizeof(long long));
    cudaMemset(hc, 0, 132 * 4 * sizeof(long long));
    kernel<<<132, 384, smem>>>(out, sink, hb, hc, args...);
  }
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { std::printf("%s: %s\n", name, cudaGetErrorString(e)); std::exit(1); }
  cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost);
  cudaMemcpy(b, hb, sizeof(b), cudaMemcpyDeviceToHost);
  cudaMemcpy(c, hc, sizeof(c), cudaMemcpyDeviceToHost);
  double mean = 0, helper[2] = {0, 0};
  for (int i = 0; i < 132; ++i) {
    mean += h[2 * i];
    for (int j = 0; j < 2; ++j)
      if (c[4 * i + j] > 0) helper[j] += double(b[4 * i + j]) / double(c[4 * i + j]);
  }
  mean /= 132;
  helper[0] /= 132;
  helper[1] /= 132;
  if (wgmma) {
    const double per_tile = mean / kKTiles;
    if (base) g_base = per_tile;
    const double ops = kOperandBytesPerTile / per_tile;
    std::printf("%-44s %8.1f cycles/K tile (%+5.1f%%)  wgmma reads %5.1f B/cyc  async %5.1f  generic %5.1f  sum %6.1f\n", name,
                per_tile, 100.0 * (per_tile / g_base - 1.0), ops, helper[0], helper[1], ops + helper[0] + helper[1]);
  } else {
    std::printf("%-44s %8s                       wgmma reads %5s B/cyc  async %5.1f  generic %5.1f  sum %6.1f\n", name, "-", "-",
                helper[0], helper[1], helper[0] + helper[1]);
  }
  cudaFree(out);
  cudaFree(hb);
  cudaFree(hc);
  cudaFree(sink);
}

template <Helper H, int kWarps, bool kWgmma, int kBufs = 2, int kBackoffNs = 0, int kThrottleNs = 0>
void run(const char* name, const unsigned char* src) {
  measure(name, kWgmma, H == kNone, contention_kernel<H, kWarps, kWgmma, kBufs, kBackoffNs, kThrottleNs>, kSmem, src);
}

void* g_mat = nullptr;
void* g_dst = nullptr;

template <TmaMode kMode, int kStages, int kRowsA, int kRowsB, bool kWgmma, bool kDeep = false>
void run_tma(const char* name) {
  using tessera::arch::TmaSwizzle;
  void* base = kMode == kLoad ? g_mat : g_dst;
  const CUtensorMap ma = tessera::arch::make_tma_desc_2d(base, 2, kMatRows, kMatCols, kMatCols, kRowsA, 64, TmaSwizzle::k128B);
  const CUtensorMap mb =
      tessera::arch::make_tma_desc_2d(g_mat, 2, kMatRows, kMatCols, kMatCols, kRowsB > 0 ? kRowsB : 64, 64, TmaSwizzle::k128B);
  measure(name, kWgmma, false, tma_kernel<kMode, kStages, kRowsA, kRowsB, kWgmma, kDeep>, kTmaSmem, ma, mb);
}

}  // namespace

int main() {
  unsigned char* src;
  cudaMalloc(&src, kSrcBytes);
  cudaMemset(src, 1, kSrcBytes);
  cudaMalloc(&g_mat, size_t(kMatRows) * kMatCols * 2);
  cudaMalloc(&g_dst, size_t(kMatRows) * kMatCols * 2);
  cudaMemset(g_mat, 0x3c, size_t(kMatRows) * kMatCols * 2);
  run<kNone, 0, true>("wgmma alone", src);
  // the helpers alone
  run<kLds, 1, false>("lds, 1 warp, alone", src);
  run<kLds, 4, false>("lds, 4 warps, alone", src);
  run<kSts, 4, false>("sts, 4 warps, alone", src);
  run<kLdsStg, 1, false>("lds + stg, 1 warp, alone", src);
  run<kLdsStg, 4, false>("lds + stg, 4 warps, alone", src);
  run<kBulk, 0, false>("bulk 2 x 24 KB, alone", src);
  run<kBulk, 0, false, 4>("bulk 4 x 12 KB, alone", src);
  run<kBulkLds, 3, false>("bulk + lds 3 warps, alone", src);
  run<kBulkStore, 0, false, 1>("bulk store 8 KB, 1 group, alone", src);
  run_tma<kLoad, 2, 128, 256, false>("tma load 2 x (128+256 rows), alone");
  run_tma<kLoad, 4, 64, 128, false>("tma load 4 x (64+128 rows), alone");
  run_tma<kStore, 1, 64, 0, false>("tma store 64-row boxes, 1 group, alone");
  run_tma<kStore, 4, 64, 0, false>("tma store 64-row boxes, 4 groups, alone");
  // beside wgmma: generic shared-memory traffic
  run<kLds, 1, true>("wgmma + lds, 1 warp", src);
  run<kLds, 2, true>("wgmma + lds, 2 warps", src);
  run<kLds, 4, true>("wgmma + lds, 4 warps", src);
  run<kSts, 1, true>("wgmma + sts, 1 warp", src);
  run<kSts, 4, true>("wgmma + sts, 4 warps", src);
  run<kLdsStg, 1, true>("wgmma + lds + stg, 1 warp", src);
  run<kLdsStg, 2, true>("wgmma + lds + stg, 2 warps", src);
  run<kLdsStg, 4, true>("wgmma + lds + stg, 4 warps", src);
  run<kLdsStg, 1, true, 2, 0, 1000>("wgmma + lds + stg, 1 warp, 1 us pause a 4 KB", src);
  run<kSpin, 0, true>("wgmma + one thread polling a barrier", src);
  // beside wgmma: the async proxy (bulk copies and TMA)
  run<kBulk, 0, true>("wgmma + bulk 2 x 24 KB", src);
  run<kBulk, 0, true, 4>("wgmma + bulk 4 x 12 KB", src);
  run<kBulk, 0, true, 8>("wgmma + bulk 8 x 6 KB", src);
  run<kBulk, 0, true, 2, 200>("wgmma + bulk 2 x 24 KB, polls 200 ns apart", src);
  run<kBulk, 0, true, 2, 0, 500>("wgmma + bulk 2 x 24 KB, 500 ns pause a copy", src);
  run<kBulk, 0, true, 2, 0, 2000>("wgmma + bulk 2 x 24 KB, 2 us pause a copy", src);
  run<kBulkLds, 1, true>("wgmma + bulk + lds 1 warp", src);
  run<kBulkLds, 3, true>("wgmma + bulk + lds 3 warps", src);
  run<kBulkStore, 0, true, 1>("wgmma + bulk store 8 KB, 1 group", src);
  run<kBulkStore, 0, true, 4>("wgmma + bulk store 8 KB, 4 groups", src);
  run_tma<kLoad, 2, 128, 256, true>("wgmma + tma load 2 x (128+256 rows)");
  run_tma<kLoad, 4, 64, 128, true>("wgmma + tma load 4 x (64+128 rows)");
  run_tma<kLoad, 6, 64, 64, true>("wgmma + tma load 6 x (64+64 rows)");
  // the kernel's depth: 144 KB in flight as 3 stages of its boxes, or the same bytes in smaller boxes
  run_tma<kLoad, 3, 128, 256, false, true>("tma load 3 x (128+256 rows), deep, alone");
  run_tma<kLoad, 3, 128, 256, true, true>("wgmma + tma load 3 x (128+256 rows), deep");
  run_tma<kLoad, 6, 64, 128, true, true>("wgmma + tma load 6 x (64+128 rows), deep");
  run_tma<kStore, 1, 64, 0, true>("wgmma + tma store 64-row boxes, 1 group");
  run_tma<kStore, 4, 64, 0, true>("wgmma + tma store 64-row boxes, 4 groups");
  run_tma<kStore, 4, 32, 0, true>("wgmma + tma store 32-row boxes, 4 groups");
  run_tma<kStore, 1, 8, 0, true>("wgmma + tma store 8-row boxes, 1 group");
  run<kNone, 0, true>("wgmma alone, again", src);
  cudaFree(src);
  return 0;
}
