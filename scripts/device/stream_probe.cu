// scripts/device/stream_probe.cu -- how fast one block an SM can stream a band of the weights into shared memory, by
// the engine that moves the bytes (an experiment for issue 11; not in the library).
//
// The decode GEMM streams W (n x k, row-major, bf16) as 128- or 64-row bands, each block a band and a K range, through
// a ring of stages in shared memory.  Earlier probes (docs/PERF.md, forty-ninth section) found a block moving about
// 175-215 rows of 128 bytes a microsecond through TMA whatever the ring's depth, the tile's height or the consumers.
// This probe keeps the ring and drops the math (the consumers only wait for each stage and release it), and moves the
// same bytes by:
//   tma        one TMA box a stage: R rows x 64 elements (128 bytes a row), 128-byte swizzle (the library's);
//   tma2       two such boxes a stage, adjacent in K (a stage of 128 K);
//   tma256     one box of R rows x 128 elements (256 bytes a row), no swizzle;
//   rows       one bulk copy (cp.async.bulk) a row of 256 bytes, R a stage, issued by one thread;
//   cpasync    the producer warpgroup's 128 threads, cp.async 16 bytes each (R x 128 bytes a stage, the swizzled
//              addresses), completed on the stage's barrier by cp.async.mbarrier.arrive.noinc;
//   mixed      rows 0 .. R/2-1 by one TMA box, rows R/2 .. R-1 by the 128 threads' cp.async;
//   mixed4     as mixed, a quarter of the rows (R/4) by cp.async.
// The ring holds the same bytes in every mode (96 KB, about what the decode tile keeps in flight); one block an SM
// (200 KB of shared memory requested).  Timed as `tessera bench gemm` times a GEMM: an L2-evicting read pass before
// every launch, events around it, the median of 15 rounds (modes rotated); beside it one grid-stride read of W (the
// read floor) and cuBLAS's GEMM of a batch of 16 (D = X W^T) on the same W.
//
// `band` replaces those modes by the TMA stream's knobs (band_kernel): the L2 promotion of the map (256, 128 or none),
// an evict_first policy on the copies, clusters of two, the (band, K tile) steps shared out over 132 or 264 blocks,
// two blocks an SM, 64-row bands, half the blocks; `depth` by the ring's depth (4-12 stages) with 256- or 128-byte
// lines, consumers releasing at once or one stage late, at 128 blocks and half of them.  docs/PERF.md, fifty-seventh
// section, has the measurements.
//
//   nvcc -std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a -I include scripts/device/stream_probe.cu \
//        -o /tmp/sp -lcublas && /tmp/sp [band|depth]
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "probe_util.cuh"  // CK, L2Evict, read_words, launch_clustered, medians_rotated
#include "tessera/arch/sm90_mbarrier.hpp"
#include "tessera/arch/sm90_tma.hpp"
#include "tessera/arch/sm90_tma_desc.hpp"

namespace {

using namespace tessera;

enum Mode { kTma, kTma2, kTma256, kRows, kCpAsync, kMixed, kMixed4, kModes };
const char* kModeNames[kModes] = {"tma", "tma2", "tma256", "rows", "cpasync", "mixed", "mixed4"};
constexpr int kRingBytes = 96 * 1024;
constexpr int kSmemBytes = 200 * 1024;

struct SParams {
  const __nv_bfloat16* w;
  int n, k;
  int rows;       // R, the band's height
  int k_per;      // K elements a block
  int stage_k;    // K elements a stage (64 or 128)
  int stages;
};

__device__ __forceinline__ void cp_async16(uint32_t dst, const void* src) {
  asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_async_arrive_noinc(uint64_t* bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(arch::detail::mbar_u32(bar)) : "memory");
}

// rows [r0, r0 + nr) of the band, 128 bytes each (stage_k 64) at K offset kk, by the 128 producer threads.
__device__ __forceinline__ void cp_async_rows(const SParams& p, unsigned char* stage, int row0, int r0, int nr, int kk,
                                              int t) {
  for (int c = t; c < nr * 8; c += 128) {
    const int r = r0 + c / 8, q = c % 8;
    const uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(stage + r * 128 + ((q ^ (r & 7)) * 16)));
    cp_async16(dst, p.w + static_cast<size_t>(row0 + r) * p.k + kk + q * 8);
  }
}

template <int kMode>
__global__ void __launch_bounds__(384, 1) stream_kernel(const __grid_constant__ CUtensorMap map, SParams p) {
#if defined(TESSERA_ARCH_SM90A) || defined(TESSERA_ARCH_SM90)
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  unsigned char* smem = reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + kRingBytes);
  uint64_t* empty = full + 16;
  const int stage_bytes = kRingBytes / p.stages;
  const int t = static_cast<int>(threadIdx.x);
  const int row0 = static_cast<int>(blockIdx.x) * p.rows;
  const int k0 = static_cast<int>(blockIdx.y) * p.k_per;
  const int nk = p.k_per / p.stage_k;
  constexpr bool kThreads128 = kMode == kCpAsync || kMode == kMixed || kMode == kMixed4;
  if (t == 0) {
    arch::tma_prefetch_desc(&map);
    for (int s = 0; s < p.stages; ++s) {
      arch::mbarrier_init(&full[s], kMode == kCpAsync ? 128 : kThreads128 ? 129 : 1);
      arch::mbarrier_init(&empty[s], 2);
    }
    arch::fence_mbarrier_init();
  }
  __syncthreads();
  if (t < 128) {
    if (!kThreads128 && t != 0) return;
    for (int kt = 0; kt < nk; ++kt) {
      const int s = kt % p.stages;
      arch::mbarrier_wait_parity(&empty[s], ((kt / p.stages) & 1) ^ 1);
      unsigned char* st = smem + s * stage_bytes;
      const int kk = k0 + kt * p.stage_k;
      if constexpr (kMode == kTma) {
        arch::mbarrier_arrive_expect_tx(&full[s], p.rows * 128);
        arch::tma_load_2d(st, &map, &full[s], kk, row0);
      } else if constexpr (kMode == kTma2) {
        arch::mbarrier_arrive_expect_tx(&full[s], p.rows * 256);
        arch::tma_load_2d(st, &map, &full[s], kk, row0);
        arch::tma_load_2d(st + p.rows * 128, &map, &full[s], kk + 64, row0);
      } else if constexpr (kMode == kTma256) {
        arch::mbarrier_arrive_expect_tx(&full[s], p.rows * 256);
        arch::tma_load_2d(st, &map, &full[s], kk, row0);
      } else if constexpr (kMode == kRows) {
        arch::mbarrier_arrive_expect_tx(&full[s], p.rows * 256);
        for (int r = 0; r < p.rows; ++r)
          arch::bulk_load(st + r * 256, p.w + static_cast<size_t>(row0 + r) * p.k + kk, 256, &full[s]);
      } else if constexpr (kMode == kCpAsync) {
        cp_async_rows(p, st, row0, 0, p.rows, kk, t);
        cp_async_arrive_noinc(&full[s]);
      } else {
        const int tma_rows = kMode == kMixed ? p.rows / 2 : p.rows * 3 / 4;
        if (t == 0) {
          arch::mbarrier_arrive_expect_tx(&full[s], tma_rows * 128);
          arch::tma_load_2d(st, &map, &full[s], kk, row0);
        }
        cp_async_rows(p, st, row0, tma_rows, p.rows - tma_rows, kk, t);
        cp_async_arrive_noinc(&full[s]);
      }
    }
  } else if (t == 128 || t == 256) {
    for (int kt = 0; kt < nk; ++kt) {
      const int s = kt % p.stages;
      arch::mbarrier_wait_parity(&full[s], (kt / p.stages) & 1);
      arch::mbarrier_arrive(&empty[s]);
    }
  }
#endif
}


// The TMA stream with run-time knobs (one thread issues; the knobs cost nothing beside the copies):
//   hint   0: no cache hint, 1: the copies carry an L2 evict_first policy;
//   flat   0: block (x, y) takes band x, K range y; 1: the (band, K tile) steps in band-major order split evenly over
//          gridDim.x blocks (every SM busy, bands shared between neighbouring blocks).
struct BParams {
  int n, k, rows, k_per, stages, ring, hint, flat;
  int hold = 0;  // 1: a consumer releases a stage when the next one has arrived (as wgmma keeps one K tile's group in flight)
};

__global__ void __launch_bounds__(384, 1) band_kernel(const __grid_constant__ CUtensorMap map, BParams p) {
#if defined(TESSERA_ARCH_SM90A) || defined(TESSERA_ARCH_SM90)
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  unsigned char* smem = reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + p.ring);
  uint64_t* empty = full + 16;
  const int stage_bytes = p.ring / p.stages;
  const int t = static_cast<int>(threadIdx.x);
  const int kts = p.k / 64;  // K tiles of a whole row
  long long first, count;
  if (p.flat) {
    const long long total = static_cast<long long>(p.n / p.rows) * kts;
    first = total * blockIdx.x / gridDim.x;
    count = total * (blockIdx.x + 1) / gridDim.x - first;
  } else {
    first = static_cast<long long>(blockIdx.x) * kts + static_cast<long long>(blockIdx.y) * (p.k_per / 64);
    count = p.k_per / 64;
  }
  if (t == 0) {
    arch::tma_prefetch_desc(&map);
    for (int s = 0; s < p.stages; ++s) {
      arch::mbarrier_init(&full[s], 1);
      arch::mbarrier_init(&empty[s], 2);
    }
    arch::fence_mbarrier_init();
  }
  __syncthreads();
  if (t == 0) {
    uint64_t policy = 0;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(policy));
    // (32-bit counters stepped along: a 64-bit division a step holds a one-thread producer back.)
    int band = static_cast<int>(first / kts), kt = static_cast<int>(first % kts), s = 0;
    uint32_t phase = 1;
    for (int i = 0; i < static_cast<int>(count); ++i) {
      arch::mbarrier_wait_parity(&empty[s], phase);
      unsigned char* st = smem + s * stage_bytes;
      arch::mbarrier_arrive_expect_tx(&full[s], p.rows * 128);
      if (p.hint) {
        asm volatile(
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(
                static_cast<uint32_t>(__cvta_generic_to_shared(st))),
            "l"(reinterpret_cast<uint64_t>(&map)), "r"(arch::detail::mbar_u32(&full[s])), "r"(kt * 64), "r"(band * p.rows),
            "l"(policy)
            : "memory");
      } else {
        arch::tma_load_2d(st, &map, &full[s], kt * 64, band * p.rows);
      }
      if (++kt == kts) { kt = 0; ++band; }
      if (++s == p.stages) { s = 0; phase ^= 1; }
    }
  } else if (t == 128 || t == 256) {
    int s = 0;
    uint32_t phase = 0;
    int prev = -1;
    for (int i = 0; i < static_cast<int>(count); ++i) {
      arch::mbarrier_wait_parity(&full[s], phase);
      if (!p.hold) arch::mbarrier_arrive(&empty[s]);
      else if (prev >= 0) arch::mbarrier_arrive(&empty[prev]);
      prev = s;
      if (++s == p.stages) { s = 0; phase ^= 1; }
    }
    if (p.hold && prev >= 0) arch::mbarrier_arrive(&empty[prev]);
  }
#endif
}

// The weights' map as the library builds it (128-row boxes of 64 elements, 128-byte swizzle), with the L2 promotion
// given: 0 (none), 128 or 256.
CUtensorMap band_map(const void* base, int n, int k, int rows, int promotion) {
  const arch::TmaL2Promotion pr = promotion == 0     ? arch::TmaL2Promotion::kNone
                                  : promotion == 128 ? arch::TmaL2Promotion::k128B
                                                     : arch::TmaL2Promotion::k256B;
  return arch::make_tma_desc_2d(base, 2, static_cast<uint64_t>(n), static_cast<uint64_t>(k), static_cast<uint64_t>(k),
                                static_cast<uint32_t>(rows), 64, arch::TmaSwizzle::k128B, pr);
}

void band_launch(const CUtensorMap& map, const BParams& p, dim3 grid, int cluster, int smem) {
  probe::launch_clustered(band_kernel, grid, dim3(384), smem, cluster, map, p);  // (cluster 0: a plain launch)
}

template <int kMode>
void launch(const CUtensorMap& map, const SParams& p, dim3 grid) {
  stream_kernel<kMode><<<grid, 384, kSmemBytes>>>(map, p);
}

template <int kMode>
void set_smem() {
  CK(cudaFuncSetAttribute(stream_kernel<kMode>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
}

}  // namespace

int main(int argc, char** argv) {
  const bool depth = argc > 1 && std::string(argv[1]) == "depth";
  const bool band_only = depth || (argc > 1 && std::string(argv[1]) == "band");
  const probe::L2Evict evict;
  CK(cudaFuncSetAttribute(band_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
  set_smem<kTma>(); set_smem<kTma2>(); set_smem<kTma256>(); set_smem<kRows>(); set_smem<kCpAsync>();
  set_smem<kMixed>(); set_smem<kMixed4>();
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) { std::fprintf(stderr, "cublasCreate failed\n"); return 1; }
  struct Shape { int n, k; };
  const Shape shapes[] = {{8192, 8192}, {4096, 14336}, {4096, 4096}, {14336, 4096}};
  std::printf("%-14s %-26s %9s %8s %14s\n", "N x K", "variant", "us", "GB/s", "rows/us/block");
  for (const Shape& sh : shapes) {
    const size_t elems = static_cast<size_t>(sh.n) * sh.k;
    __nv_bfloat16* w = nullptr;
    CK(cudaMalloc(&w, elems * 2));
    CK(cudaMemset(w, 0x3c, elems * 2));
    const int m = 16;
    __nv_bfloat16 *x = nullptr, *d = nullptr;
    CK(cudaMalloc(&x, static_cast<size_t>(m) * sh.k * 2));
    CK(cudaMemset(x, 0x3c, static_cast<size_t>(m) * sh.k * 2));
    CK(cudaMalloc(&d, static_cast<size_t>(m) * sh.n * 2));
    const float one = 1.0f, zero = 0.0f;
    std::vector<std::pair<std::string, std::function<void()>>> runs;
    std::vector<double> rows_total;  // 128-byte rows a block moves (for rows/us/block), 0 where not a band kernel
    std::vector<int> blocks_of;
    runs.emplace_back("read (grid-stride)", [&] {
      probe::read_words<<<4 * evict.sms, 512>>>(reinterpret_cast<const int4*>(w), elems / 8, 0x13579bdf, evict.sink);
    });
    rows_total.push_back(0); blocks_of.push_back(0);
    runs.emplace_back("cuBLAS 16 x N x K", [&] {
      cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, sh.n, m, sh.k, &one, w, CUDA_R_16BF, sh.k, x, CUDA_R_16BF, sh.k, &zero, d,
                   CUDA_R_16BF, sh.n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    });
    rows_total.push_back(0); blocks_of.push_back(0);
    std::vector<CUtensorMap> maps;
    maps.reserve(64);
    for (int rows : {128, 64}) {
      // Splits so that the grid is 128 blocks (or the fewest above 64).
      const int tiles = sh.n / rows;
      int splits = 1;
      while (tiles * splits < 128 && (sh.k / (splits * 2)) % 128 == 0) splits *= 2;
      const int k_per = sh.k / splits;
      for (int mode = 0; mode < (band_only ? 0 : static_cast<int>(kModes)); ++mode) {
        SParams p{w, sh.n, sh.k, rows, k_per, 64, 6};
        arch::TmaSwizzle sw = arch::TmaSwizzle::k128B;
        uint32_t box_rows = rows, box_cols = 64;
        if (mode == kTma2) { p.stage_k = 128; p.stages = 3; }
        if (mode == kTma256 || mode == kRows) { p.stage_k = 128; p.stages = 3; sw = arch::TmaSwizzle::kNone; box_cols = 128; }
        if (mode == kMixed) box_rows = rows / 2;
        if (mode == kMixed4) box_rows = rows * 3 / 4;
        p.stages = std::min(16, kRingBytes / (rows * p.stage_k * 2));
        maps.push_back(arch::make_tma_desc_2d(w, 2, sh.n, sh.k, sh.k, box_rows, box_cols, sw, arch::TmaL2Promotion::k256B));
        const CUtensorMap* mp = &maps.back();
        const dim3 grid(tiles, splits);
        const std::string name = std::string(kModeNames[mode]) + " R" + std::to_string(rows) + " x" +
                                 std::to_string(tiles * splits) + " s" + std::to_string(p.stages);
        std::function<void()> f;
        switch (mode) {
          case kTma: f = [mp, p, grid] { launch<kTma>(*mp, p, grid); }; break;
          case kTma2: f = [mp, p, grid] { launch<kTma2>(*mp, p, grid); }; break;
          case kTma256: f = [mp, p, grid] { launch<kTma256>(*mp, p, grid); }; break;
          case kRows: f = [mp, p, grid] { launch<kRows>(*mp, p, grid); }; break;
          case kCpAsync: f = [mp, p, grid] { launch<kCpAsync>(*mp, p, grid); }; break;
          case kMixed: f = [mp, p, grid] { launch<kMixed>(*mp, p, grid); }; break;
          default: f = [mp, p, grid] { launch<kMixed4>(*mp, p, grid); }; break;
        }
        runs.emplace_back(name, f);
        rows_total.push_back(static_cast<double>(rows) * (k_per / 64));
        blocks_of.push_back(tiles * splits);
      }
      // The TMA stream's knobs.
      struct Knob { const char* name; int promotion, hint, flat, cluster, blocks_per_sm, half = 0; };
      const Knob knobs[] = {{"p256", 256, 0, 0, 1, 1}, {"p256 plain", 256, 0, 0, 0, 1}, {"flat132 plain", 256, 0, 1, 0, 1}, {"p128", 128, 0, 0, 1, 1}, {"pnone", 0, 0, 0, 1, 1},
                            {"evict_first", 256, 1, 0, 1, 1}, {"cluster2", 256, 0, 0, 2, 1},
                            {"flat132", 256, 0, 1, 1, 1}, {"2/SM", 256, 0, 0, 1, 2}, {"flat264", 256, 0, 1, 1, 2},
                            {"flat132 p128", 128, 0, 1, 1, 1}, {"half p256", 256, 0, 0, 0, 1, 1},
                            {"half p128", 128, 0, 0, 0, 1, 1}};
      for (const Knob& kn : knobs) {
        if (depth) break;
        maps.push_back(band_map(w, sh.n, sh.k, rows, kn.promotion));
        const CUtensorMap* mp = &maps.back();
        BParams b{sh.n, sh.k, rows, k_per, 0, kn.blocks_per_sm == 1 ? kRingBytes : kRingBytes / 2, kn.hint, kn.flat};
        b.stages = std::min(16, b.ring / (rows * 128));
        int smem = kn.blocks_per_sm == 1 ? kSmemBytes : 100 * 1024;
        dim3 grid(tiles, splits);
        if (kn.blocks_per_sm == 2 && !kn.flat) { grid.y = splits * 2; b.k_per = k_per / 2; }
        if (kn.half) { grid.y = splits > 1 ? splits / 2 : 1; b.k_per = sh.k / static_cast<int>(grid.y); }  // half the blocks
        if (kn.flat) grid = dim3(evict.sms * kn.blocks_per_sm, 1);
        const int cl = kn.cluster;
        runs.emplace_back(std::string("band ") + kn.name + " R" + std::to_string(rows) + " x" +
                              std::to_string(grid.x * grid.y) + " s" + std::to_string(b.stages),
                          [mp, b, grid, cl, smem] { band_launch(*mp, b, grid, cl, smem); });
        rows_total.push_back(static_cast<double>(sh.n) * (sh.k / 64) / (grid.x * grid.y));
        blocks_of.push_back(grid.x * grid.y);
      }
      // `depth`: the ring's depth (stages of R x 128 bytes), 256- or 128-byte lines, consumers releasing at once or
      // one stage late; R = 128 only, the default blocks and half of them.
      for (int half = 0; depth && rows == 128 && half < 2; ++half)
        for (int promotion : {256, 128})
          for (int stages : {4, 6, 8, 12})
            for (int hold : {0, 1}) {
              if (half && (hold || stages == 4 || stages == 8)) continue;
              maps.push_back(band_map(w, sh.n, sh.k, rows, promotion));
              const CUtensorMap* mp = &maps.back();
              BParams b{sh.n, sh.k, rows, k_per, stages, stages * rows * 128, 0, 0};
              b.hold = hold;
              dim3 grid(tiles, splits);
              if (half) { grid.y = splits > 1 ? splits / 2 : 1; b.k_per = sh.k / static_cast<int>(grid.y); }
              runs.emplace_back(std::string("depth p") + std::to_string(promotion) + (hold ? " hold" : "") + " R128 x" +
                                    std::to_string(grid.x * grid.y) + " s" + std::to_string(stages),
                                [mp, b, grid] { band_launch(*mp, b, grid, 0, kSmemBytes); });
              rows_total.push_back(static_cast<double>(sh.n) * (sh.k / 64) / (grid.x * grid.y));
              blocks_of.push_back(grid.x * grid.y);
            }
    }
    for (auto& r : runs) r.second();  // warm-up, and errors surface here
    CK(cudaDeviceSynchronize());
    const std::vector<double> med = probe::medians_rotated(runs, evict, 15, 2);
    for (size_t i = 0; i < runs.size(); ++i)
      std::printf("%5d x %-6d %-26s %9.2f %8.0f %14.0f\n", sh.n, sh.k, runs[i].first.c_str(), med[i],
                  elems * 2 / (med[i] * 1e3), rows_total[i] > 0 ? rows_total[i] / med[i] : 0.0);
    CK(cudaFree(w)); CK(cudaFree(x)); CK(cudaFree(d));
  }
  cublasDestroy(h);
  return 0;
}
