// scripts/device/share_probe.cu -- how fast 128 blocks stream a decode GEMM's two operands when a batch X (M x K) is read
// by every block beside its own band of the weights W (N x K), and what sharing one operand in a cluster of two by TMA
// multicast, the band's height and the order of the K tiles change (an experiment for issue 11; not in the library).
//
// The decode plans at M = 128 stream W once from DRAM and X once per block from L2: at 128 x 8192^2 the 128 x 64 tile
// reads 2 MB of X and 1 MB of W a block (Nsight Compute: 403 MB delivered to the SMs, 398 served by L2), and cuBLAS's
// pair of 128-row W tiles split in two along the batch serves 278 MB for the same delivery (docs/PERF.md, fifty-sixth
// section).  The library's attempt at sharing X by multicast did not lower the bytes L2 served (sixtieth section).
// This probe drops the math: a producer thread fills a ring of stages in shared memory, each stage the block's rows of
// W and of X for one 64-wide K tile (128-byte rows, 128-byte swizzle, as the library's tiles), and two consumer threads
// (the two warpgroups) wait for each stage and release it one stage late (as wgmma keeps a K tile in flight).
// Each variant says, for a stage:
//   wN    the block's W rows (its band: bands of N rows side by side, or `wN pair`: the two blocks of a cluster on the
//         same band), `mc` loaded half by each block of the pair and multicast to both;
//   xM    the block's X rows (every block all M, or `xM split`: the pair's two blocks the two halves), `mc` likewise;
//   rot   each block starts its K loop at a different K tile (block b at b * nk / blocks, wrapping; a pair's two
//         blocks at the same one), so that the blocks
//         do not ask L2 for the same X lines at the same time;
//   cl2   launched in clusters of two without sharing (the control).
// Timed as `tessera bench gemm` times a GEMM: an L2-evicting read pass before every launch, events around it, medians
// of 15 rounds with the variants rotated; beside them one grid-stride read of W (the read floor) and cuBLAS's GEMM
// D = X W^T at the same M, N, K.
//
//   nvcc -std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a -I include scripts/device/share_probe.cu \
//        -o /tmp/shp -lcublas && /tmp/shp
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

#include "probe_util.cuh"  // CK, L2Evict, read_words, medians_rotated
#include "tessera/arch/sm90_cluster.hpp"
#include "tessera/arch/sm90_mbarrier.hpp"
#include "tessera/arch/sm90_tma.hpp"
#include "tessera/arch/sm90_tma_desc.hpp"

namespace {

using namespace tessera;

constexpr int kRing = 192 * 1024;      // the ring's bytes (the 128 x 64 decode tile keeps 8 stages of 24 KB)
constexpr int kSmem = kRing + 2048;    // + alignment and barriers

struct Params {
  int k;        // K (elements)
  int wr, xr;   // W rows and X rows in a block's stage
  int w_pair;   // 1: the cluster's two blocks take the same W band
  int x_split;  // 1: the cluster's two blocks take X's two halves (rows rank * xr ..)
  int w_mc, x_mc;  // 1: that operand loaded half by each block of the pair and multicast to both
  int rot;      // 1: block b starts at K tile b * nk / gridDim.x
  int stages;
};

__global__ void __launch_bounds__(384, 1) share_kernel(const __grid_constant__ CUtensorMap map_w,
                                                       const __grid_constant__ CUtensorMap map_x, Params p) {
#if defined(TESSERA_ARCH_SM90A) || defined(TESSERA_ARCH_SM90)
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  unsigned char* smem = reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + kRing);
  uint64_t* empty = full + 16;
  const bool cluster = p.w_pair | p.x_split | p.w_mc | p.x_mc;  // a pair (the cl2 control: clusters, none of these)
  const uint32_t rank = cluster ? arch::cluster_ctarank() : 0u;
  const bool mc = p.w_mc | p.x_mc;
  const int stage_bytes = (p.wr + p.xr) * 128;
  const int t = static_cast<int>(threadIdx.x);
  const int nk = p.k / 64;
  const int w_row0 = static_cast<int>(blockIdx.x >> p.w_pair) * p.wr;
  const int x_row0 = p.x_split ? static_cast<int>(blockIdx.x & 1u) * p.xr : 0;
  // (rot: a pair's blocks take the same order -- they fill each other's stages.)
  const int unit = cluster ? static_cast<int>(blockIdx.x >> 1) : static_cast<int>(blockIdx.x);
  const int units = cluster ? static_cast<int>(gridDim.x >> 1) : static_cast<int>(gridDim.x);
  const int kt0 = p.rot ? static_cast<int>(static_cast<long long>(unit) * nk / units) : 0;
  if (t == 0) {
    arch::tma_prefetch_desc(&map_w);
    arch::tma_prefetch_desc(&map_x);
    for (int s = 0; s < p.stages; ++s) {
      arch::mbarrier_init(&full[s], 1);
      arch::mbarrier_init(&empty[s], mc ? 4 : 2);
    }
    arch::fence_mbarrier_init();
  }
  __syncthreads();
  if (cluster) arch::cluster_sync();  // the peer's barriers exist before any multicast or arrival reaches them
  if (t == 0) {
    int s = 0;
    uint32_t phase = 1;
    for (int i = 0; i < nk; ++i) {
      int kt = kt0 + i;
      if (kt >= nk) kt -= nk;
      arch::mbarrier_wait_parity(&empty[s], phase);
      unsigned char* st = smem + s * stage_bytes;
      arch::mbarrier_arrive_expect_tx(&full[s], static_cast<uint32_t>(stage_bytes));
      if (p.w_mc) {
        const int h = p.wr / 2;
        arch::tma_load_2d_multicast(st + rank * h * 128, &map_w, &full[s], kt * 64, w_row0 + static_cast<int>(rank) * h, 3);
      } else {
        arch::tma_load_2d(st, &map_w, &full[s], kt * 64, w_row0);
      }
      unsigned char* sx = st + p.wr * 128;
      if (p.x_mc) {
        const int h = p.xr / 2;
        arch::tma_load_2d_multicast(sx + rank * h * 128, &map_x, &full[s], kt * 64, x_row0 + static_cast<int>(rank) * h, 3);
      } else {
        arch::tma_load_2d(sx, &map_x, &full[s], kt * 64, x_row0);
      }
      if (++s == p.stages) { s = 0; phase ^= 1; }
    }
  } else if (t == 128 || t == 256) {
    const uint32_t empty_u32 = static_cast<uint32_t>(__cvta_generic_to_shared(empty));
    auto release = [&](int s) {
      (void)arch::mbarrier_arrive(&empty[s]);
      if (mc) arch::mbarrier_arrive_cluster(empty_u32 + 8u * static_cast<uint32_t>(s), rank ^ 1u);
    };
    int s = 0, prev = -1;
    uint32_t phase = 0;
    for (int i = 0; i < nk; ++i) {
      arch::mbarrier_wait_parity(&full[s], phase);
      if (prev >= 0) release(prev);
      prev = s;
      if (++s == p.stages) { s = 0; phase ^= 1; }
    }
    if (prev >= 0) release(prev);
  }
  __syncthreads();
  if (cluster) arch::cluster_sync();  // no arrival reaches a block that has left
#endif
}

CUtensorMap map_of(const void* base, int rows, int k, int box_rows) {
  return arch::make_tma_desc_2d(base, 2, static_cast<uint64_t>(rows), static_cast<uint64_t>(k), static_cast<uint64_t>(k),
                                static_cast<uint32_t>(box_rows), 64, arch::TmaSwizzle::k128B, arch::TmaL2Promotion::k256B);
}

void launch(const CUtensorMap& mw, const CUtensorMap& mx, const Params& p, int blocks, int cluster) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>(blocks));
  cfg.blockDim = dim3(384);
  cfg.dynamicSmemBytes = kSmem;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = static_cast<unsigned>(cluster);
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = cluster > 1 ? 1 : 0;
  CK(cudaLaunchKernelEx(&cfg, share_kernel, mw, mx, p));
}

struct Variant {
  const char* name;
  int wr, xr, w_pair, x_split, w_mc, x_mc, rot, cluster;
};

}  // namespace

int main() {
  const probe::L2Evict evict;
  CK(cudaFuncSetAttribute(share_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) { std::fprintf(stderr, "cublasCreate failed\n"); return 1; }
  struct Shape { int m, n, k; };
  const Shape shapes[] = {{128, 8192, 8192}, {128, 14336, 4096}, {16, 8192, 8192}, {64, 4096, 4096}};
  std::printf("%-16s %-28s %6s %9s %8s\n", "M x N x K", "variant", "blocks", "us", "W GB/s");
  for (const Shape& sh : shapes) {
    const size_t welems = static_cast<size_t>(sh.n) * sh.k, xelems = static_cast<size_t>(sh.m) * sh.k;
    __nv_bfloat16 *w = nullptr, *x = nullptr, *d = nullptr;
    CK(cudaMalloc(&w, welems * 2));
    CK(cudaMemset(w, 0x3c, welems * 2));
    CK(cudaMalloc(&x, xelems * 2));
    CK(cudaMemset(x, 0x3c, xelems * 2));
    CK(cudaMalloc(&d, static_cast<size_t>(sh.m) * sh.n * 2));
    const float one = 1.0f, zero = 0.0f;
    std::vector<std::pair<std::string, std::function<void()>>> runs;
    std::vector<int> blocks_of;
    runs.emplace_back("read W (grid-stride)", [&] {
      probe::read_words<<<4 * evict.sms, 512>>>(reinterpret_cast<const int4*>(w), welems / 8, 0x13579bdf, evict.sink);
    });
    blocks_of.push_back(4 * evict.sms);
    runs.emplace_back("cuBLAS D = X W^T", [&] {
      cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, sh.n, sh.m, sh.k, &one, w, CUDA_R_16BF, sh.k, x, CUDA_R_16BF, sh.k, &zero, d,
                   CUDA_R_16BF, sh.n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    });
    blocks_of.push_back(0);
    const int M = sh.m, H = sh.m / 2;
    // name, wr, xr, w_pair, x_split, w_mc, x_mc, rot, cluster
    std::vector<Variant> vs = {
        {"w64 xM", 64, M, 0, 0, 0, 0, 0, 1},          {"w64 xM rot", 64, M, 0, 0, 0, 0, 1, 1},
        {"w64 xM cl2", 64, M, 0, 0, 0, 0, 0, 2},      {"w64 xM mc", 64, M, 0, 0, 0, 1, 0, 2},
        {"w64 xM mc rot", 64, M, 0, 0, 0, 1, 1, 2},   {"w128 pair mc, xM/2", 128, H, 1, 1, 1, 0, 0, 2},
        {"w128 pair, xM/2", 128, H, 1, 1, 0, 0, 0, 2}, {"w128 pair mc, xM/2 rot", 128, H, 1, 1, 1, 0, 1, 2},
        {"w128 xM", 128, M, 0, 0, 0, 0, 0, 1},        {"w112 xM", 112, M, 0, 0, 0, 0, 0, 1},
        {"w112 xM rot", 112, M, 0, 0, 0, 0, 1, 1},    {"w112 xM mc", 112, M, 0, 0, 0, 1, 0, 2},
        {"w112 xM mc rot", 112, M, 0, 0, 0, 1, 1, 2},
    };
    std::vector<CUtensorMap> maps;
    maps.reserve(2 * vs.size());
    for (const Variant& v : vs) {
      const int bands = sh.n / v.wr;
      if (sh.n % v.wr != 0) continue;
      const int blocks = bands << v.w_pair;
      if (blocks > 2 * evict.sms || (v.cluster > 1 && blocks % 2)) continue;
      if (v.xr < 8 || (v.x_mc && v.xr / 2 < 8)) continue;
      Params p{sh.k, v.wr, v.xr, v.w_pair, v.x_split, v.w_mc, v.x_mc, v.rot, 0};
      p.stages = std::min(16, kRing / ((v.wr + v.xr) * 128));
      maps.push_back(map_of(w, sh.n, sh.k, v.w_mc ? v.wr / 2 : v.wr));
      const CUtensorMap* mw = &maps.back();
      maps.push_back(map_of(x, sh.m, sh.k, v.x_mc ? v.xr / 2 : v.xr));
      const CUtensorMap* mx = &maps.back();
      const int cl = v.cluster;
      runs.emplace_back(std::string(v.name) + " s" + std::to_string(p.stages),
                        [mw, mx, p, blocks, cl] { launch(*mw, *mx, p, blocks, cl); });
      blocks_of.push_back(blocks);
    }
    for (auto& r : runs) r.second();  // warm-up, and errors surface here
    CK(cudaDeviceSynchronize());
    const std::vector<double> med = probe::medians_rotated(runs, evict, 15, 2);
    char shape[48];
    std::snprintf(shape, sizeof shape, "%dx%dx%d", sh.m, sh.n, sh.k);
    for (size_t i = 0; i < runs.size(); ++i)
      std::printf("%-16s %-28s %6d %9.2f %8.0f\n", shape, runs[i].first.c_str(), blocks_of[i], med[i],
                  welems * 2 / (med[i] * 1e3));
    CK(cudaFree(w)); CK(cudaFree(x)); CK(cudaFree(d));
  }
  cublasDestroy(h);
  return 0;
}
