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
//   cl2   launched in clusters of two without sharing (the control);
// and then the stream's knobs on three of those arrangements: the maps' L2 promotion (p128: 128-byte lines; pnone),
// two boxes a stage along K (k128), W's loads evict_first (w-first), X's evict_last (x-last), the ring's depth (s12,
// s6: at most 12 or 6 stages; else 16 within 192 KB).
// `/tmp/shp occupancy` runs instead the shapes below 0.95 of cuBLAS in the decode set and 16 x 8192^2 with two more
// knobs: ksN (the block's band split N ways along K, blocks = bands x N, as a split-K plan's units) and rN (a ring of N
// KB, so that two (r96) or three (r64) blocks share an SM: every band of 64 rows of 14336 resident at once).
// `/tmp/shp runs` asks for longer runs of each row: one, two or four 128-byte boxes a stage along K (k64, k128, k256),
// at the decode plans' arrangements (64- and 128-row bands, K split 1 or 2) over six shapes of the decode set.
// `/tmp/shp span` times the library's plans' arrangements at the five shapes trace_cold_run.sh traces and then reads,
// for one launch right after an eviction, each block's global-timer stamps (start, first full stage, end): the blocks'
// span, first start to last end, and the first stage's latency, to set beside the kernels' cold timeline.
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
#include <deque>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "probe_util.cuh"  // CK, L2Evict, read_words, launch_clustered, medians_rotated
#include "tessera/arch/sm90_cluster.hpp"
#include "tessera/arch/sm90_mbarrier.hpp"
#include "tessera/arch/sm90_tma.hpp"
#include "tessera/arch/sm90_tma_desc.hpp"

namespace {

using namespace tessera;

constexpr int kRing = 192 * 1024;      // the ring's bytes at most (the 128 x 64 decode tile keeps 8 stages of 24 KB)
constexpr int kSmem = kRing + 2048;    // + alignment and barriers

struct Params {
  int k;        // K (elements)
  int wr, xr;   // W rows and X rows in a block's stage
  int w_pair;   // 1: the cluster's two blocks take the same W band
  int x_split;  // 1: the cluster's two blocks take X's two halves (rows rank * xr ..)
  int w_mc, x_mc;  // 1: that operand loaded half by each block of the pair and multicast to both
  int rot;      // 1: block b starts at K tile b * nk / gridDim.x
  int stages;
  int kbox;     // boxes a stage along K (1: 64 K a stage; 2: 128)
  int whint, xhint;  // 1: W's loads carry an L2 evict_first policy, X's an evict_last one
  int ks = 1;        // the band split along K: block b takes band b / ks, K tiles [(b % ks) nk / ks, ..) (no clusters)
  int ring = kRing;  // the ring's bytes (the barriers follow it)
  unsigned long long* stamps = nullptr;  // span mode: per block the global timer (ns) at its start, at its first full
                                         // stage (consumer 1) and at its end, and the SM clock's cycles between them
};

__device__ __forceinline__ unsigned long long gtimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// One box, with an L2 cache policy where `policy` is set (0: none).
__device__ __forceinline__ void load_box(void* dst, const CUtensorMap* map, uint64_t* bar, int c0, int c1, uint64_t policy,
                                         bool multicast) {
  const uint32_t d = static_cast<uint32_t>(__cvta_generic_to_shared(dst)), b = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
  const uint64_t m = reinterpret_cast<uint64_t>(map);
  if (multicast) {
    if (policy)
      asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint"
                   " [%0], [%1, {%3, %4}], [%2], %5, %6;\n" ::"r"(d), "l"(m), "r"(b), "r"(c0), "r"(c1), "h"(static_cast<uint16_t>(3)),
                   "l"(policy) : "memory");
    else
      asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
                   " [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(d), "l"(m), "r"(b), "r"(c0), "r"(c1), "h"(static_cast<uint16_t>(3))
                   : "memory");
  } else {
    if (policy)
      asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint"
                   " [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(d), "l"(m), "r"(b), "r"(c0), "r"(c1), "l"(policy) : "memory");
    else
      asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                   " [%0], [%1, {%3, %4}], [%2];\n" ::"r"(d), "l"(m), "r"(b), "r"(c0), "r"(c1) : "memory");
  }
}

__global__ void __launch_bounds__(384, 1) share_kernel(const __grid_constant__ CUtensorMap map_w,
                                                       const __grid_constant__ CUtensorMap map_x, Params p) {
#if defined(TESSERA_ARCH_SM90A) || defined(TESSERA_ARCH_SM90)
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  unsigned char* smem = reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + p.ring);
  uint64_t* empty = full + 16;
  const bool cluster = p.w_pair | p.x_split | p.w_mc | p.x_mc;  // a pair (the cl2 control: clusters, none of these)
  const uint32_t rank = cluster ? arch::cluster_ctarank() : 0u;
  const bool mc = p.w_mc | p.x_mc;
  const int stage_bytes = (p.wr + p.xr) * 128 * p.kbox;
  const int t = static_cast<int>(threadIdx.x);
  unsigned long long* st = p.stamps ? p.stamps + 4 * blockIdx.x : nullptr;
  if (st && t == 0) { st[0] = gtimer(); st[3] = clock64(); }
  const int nk = p.k / (64 * p.kbox) / p.ks;  // (ks > 1: this block's share; K divides evenly in the probe's shapes)
  const int kbase = p.ks > 1 ? static_cast<int>(blockIdx.x % static_cast<unsigned>(p.ks)) * nk : 0;
  const int w_row0 = (p.ks > 1 ? static_cast<int>(blockIdx.x / static_cast<unsigned>(p.ks)) : static_cast<int>(blockIdx.x >> p.w_pair)) * p.wr;
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
    uint64_t wpol = 0, xpol = 0;
    if (p.whint) asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(wpol));
    if (p.xhint) asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;\n" : "=l"(xpol));
    for (int i = 0; i < nk; ++i) {
      int kt = kt0 + i;
      if (kt >= nk) kt -= nk;
      arch::mbarrier_wait_parity(&empty[s], phase);
      unsigned char* st = smem + s * stage_bytes;
      arch::mbarrier_arrive_expect_tx(&full[s], static_cast<uint32_t>(stage_bytes));
      for (int j = 0; j < p.kbox; ++j) {
        const int kk = ((kbase + kt) * p.kbox + j) * 64;
        unsigned char* sw = st + j * p.wr * 128;                      // W's boxes first, then X's
        unsigned char* sx = st + p.kbox * p.wr * 128 + j * p.xr * 128;
        const int hw = p.w_mc ? p.wr / 2 : 0, hx = p.x_mc ? p.xr / 2 : 0;
        load_box(sw + rank * hw * 128, &map_w, &full[s], kk, w_row0 + static_cast<int>(rank) * hw, wpol, p.w_mc);
        load_box(sx + rank * hx * 128, &map_x, &full[s], kk, x_row0 + static_cast<int>(rank) * hx, xpol, p.x_mc);
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
      if (st && i == 0 && t == 128) st[1] = gtimer();
      if (prev >= 0) release(prev);
      prev = s;
      if (++s == p.stages) { s = 0; phase ^= 1; }
    }
    if (prev >= 0) release(prev);
  }
  __syncthreads();
  if (cluster) arch::cluster_sync();  // no arrival reaches a block that has left
  if (st && t == 0) { st[2] = gtimer(); st[3] = clock64() - st[3]; }
#endif
}

CUtensorMap map_of(const void* base, int rows, int k, int box_rows, int promotion) {
  const arch::TmaL2Promotion pr = promotion == 0     ? arch::TmaL2Promotion::kNone
                                  : promotion == 128 ? arch::TmaL2Promotion::k128B
                                                     : arch::TmaL2Promotion::k256B;
  return arch::make_tma_desc_2d(base, 2, static_cast<uint64_t>(rows), static_cast<uint64_t>(k), static_cast<uint64_t>(k),
                                static_cast<uint32_t>(box_rows), 64, arch::TmaSwizzle::k128B, pr);
}

void launch(const CUtensorMap& mw, const CUtensorMap& mx, const Params& p, int blocks, int cluster) {
  probe::launch_clustered(share_kernel, dim3(static_cast<unsigned>(blocks)), dim3(384), p.ring + 2048, cluster > 1 ? cluster : 0,
                          mw, mx, p);
}

struct Variant {
  const char* name;
  int wr, xr, w_pair, x_split, w_mc, x_mc, rot, cluster;
  int promotion = 256, kbox = 1, whint = 0, xhint = 0, max_stages = 16;
  int ks = 1, ring_kb = kRing / 1024;
};

}  // namespace

int main(int argc, char** argv) {
  const bool occupancy = argc > 1 && std::string(argv[1]) == "occupancy";
  const bool runs_mode = argc > 1 && std::string(argv[1]) == "runs";
  const bool span = argc > 1 && std::string(argv[1]) == "span";
  const probe::L2Evict evict;
  CK(cudaFuncSetAttribute(share_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) { std::fprintf(stderr, "cublasCreate failed\n"); return 1; }
  struct Shape { int m, n, k; };
  const std::vector<Shape> shapes = span ? std::vector<Shape>{{16, 14336, 4096}, {128, 4096, 4096}, {16, 8192, 8192},
                                                               {128, 14336, 4096}, {64, 4096, 4096}}
                                  : runs_mode ? std::vector<Shape>{{16, 8192, 8192}, {16, 14336, 4096}, {16, 4096, 4096},
                                                                    {128, 4096, 4096}, {128, 8192, 8192}, {64, 4096, 14336}}
                                  : occupancy ? std::vector<Shape>{{16, 14336, 4096}, {128, 4096, 4096}, {16, 8192, 8192}}
                                              : std::vector<Shape>{{128, 8192, 8192}, {128, 14336, 4096}, {16, 8192, 8192}, {64, 4096, 4096}};
  std::printf("%-16s %-34s %6s %9s %8s\n", "M x N x K", "variant", "blocks", "us", "W GB/s");
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
    std::vector<Variant> vs;
    std::deque<std::string> names;  // (stable: the variants point at them)
    if (span) {
      // The library's plans' arrangements at these shapes (trace_cold_run.sh traces the kernels at the same ones), W's
      // band and the ring: 128 x 16 (128-row bands, 6 stages), 128 x 64 split 2 (64-row bands, K in two, 8 stages),
      // 64 x 16 (64-row bands, 12 stages), 128 x 128 (128-row bands, 4 stages), 64 x 64 split 2 (64-row bands, K in
      // two, 8 stages); each also with two boxes a stage along K and half the stages (as the kernels' pairs ask).
      const int wr = sh.n == 14336 ? 128 : 64, ks = sh.k == 4096 && sh.n == 4096 ? 2 : 1;
      const int stages = sh.m == 16 ? (wr == 128 ? 6 : 12) : sh.m == 128 ? (wr == 128 ? 4 : 8) : 8;
      char nm[64];
      std::snprintf(nm, sizeof nm, "w%d xM ks%d", wr, ks);
      names.push_back(nm);
      vs.push_back(Variant{names.back().c_str(), wr, M, 0, 0, 0, 0, 0, 1, 256, 1, 0, 0, stages, ks, 192});
      names.push_back(std::string(nm) + " pairs-like k128");
      vs.push_back(Variant{names.back().c_str(), wr, M, 0, 0, 0, 0, 0, 1, 256, 2, 0, 0, stages / 2, ks, 192});
    } else if (runs_mode) {
      for (int wr : {64, 128})
        for (int ks : {1, 2})
          for (int kbox : {1, 2, 4}) {
            char nm[64];
            std::snprintf(nm, sizeof nm, "w%d xM ks%d k%d", wr, ks, 64 * kbox);
            names.push_back(nm);
            vs.push_back(Variant{names.back().c_str(), wr, M, 0, 0, 0, 0, 0, 1, 256, kbox, 0, 0, 16, ks, 192});
          }
    } else if (occupancy) {
      // name, wr, xr, w_pair, x_split, w_mc, x_mc, rot, cluster, promotion, kbox, whint, xhint, max_stages, ks, ring_kb
      for (int kbox = 1; kbox <= 2; ++kbox)
        for (int wr : {64, 128})
          for (int ks : {1, 2, 4})
            for (int ring : {192, 96, 64}) {
              if (wr == 128 && ring == 64) continue;
              char nm[64];
              std::snprintf(nm, sizeof nm, "w%d xM%s ks%d r%d", wr, kbox == 2 ? " k128" : "", ks, ring);
              names.push_back(nm);
              vs.push_back(Variant{names.back().c_str(), wr, M, 0, 0, 0, 0, 0, 1, 256, kbox, 0, 0, 16, ks, ring});
            }
      vs.push_back(Variant{"w128 pair, xM/2", 128, H, 1, 1, 0, 0, 0, 2});
      vs.push_back(Variant{"w128 pair, xM/2 k128", 128, H, 1, 1, 0, 0, 0, 2, 256, 2});
      vs.push_back(Variant{"w112 xM k128", 112, M, 0, 0, 0, 0, 0, 1, 256, 2});
    } else vs = {
        {"w64 xM", 64, M, 0, 0, 0, 0, 0, 1},          {"w64 xM rot", 64, M, 0, 0, 0, 0, 1, 1},
        {"w64 xM cl2", 64, M, 0, 0, 0, 0, 0, 2},      {"w64 xM mc", 64, M, 0, 0, 0, 1, 0, 2},
        {"w128 pair mc, xM/2", 128, H, 1, 1, 1, 0, 0, 2}, {"w128 pair, xM/2", 128, H, 1, 1, 0, 0, 0, 2},
        {"w128 xM", 128, M, 0, 0, 0, 0, 0, 1},        {"w112 xM", 112, M, 0, 0, 0, 0, 0, 1},
        {"w112 xM mc", 112, M, 0, 0, 0, 1, 0, 2},
    };
    // The stream's knobs on the arrangements of the library's plans (64-row bands; 112 at N = 14336) and cuBLAS's
    // pair: the L2 promotion of both maps (128-byte lines, none), two boxes a stage along K, W evict_first, X
    // evict_last, W evict_first with 128-byte lines, and rings of at most 12 and 6 stages (16 else, within 192 KB).
    for (int base = 0; base < (occupancy || runs_mode || span ? 0 : 3); ++base) {
      Variant b = base == 0 ? Variant{"w64 xM", 64, M, 0, 0, 0, 0, 0, 1}
                : base == 1 ? Variant{"w128 pair, xM/2", 128, H, 1, 1, 0, 0, 0, 2}
                            : Variant{"w112 xM", 112, M, 0, 0, 0, 0, 0, 1};
      auto add = [&](const char* knob, int promotion, int kbox, int whint, int xhint, int max_stages = 16) {
        names.push_back(std::string(b.name) + " " + knob);
        Variant v = b;
        v.name = names.back().c_str();
        v.promotion = promotion; v.kbox = kbox; v.whint = whint; v.xhint = xhint; v.max_stages = max_stages;
        vs.push_back(v);
      };
      add("p128", 128, 1, 0, 0);
      add("pnone", 0, 1, 0, 0);
      add("k128", 256, 2, 0, 0);
      add("k128 p128", 128, 2, 0, 0);
      add("w-first", 256, 1, 1, 0);
      add("x-last", 256, 1, 0, 1);
      add("w-first x-last p128", 128, 1, 1, 1);
      add("s12", 256, 1, 0, 0, 12);
      add("s6", 256, 1, 0, 0, 6);
    }
    std::vector<CUtensorMap> maps;
    maps.reserve(2 * vs.size() + 2);
    struct Spanned { std::string name; const CUtensorMap *mw, *mx; Params p; int blocks, cl; };
    std::vector<Spanned> spanned;
    for (const Variant& v : vs) {
      const int bands = sh.n / v.wr;
      if (sh.n % v.wr != 0) continue;
      const int blocks = (bands << v.w_pair) * v.ks;
      const int per_sm = (227 * 1024) / (v.ring_kb * 1024 + 2048 + 1024);  // blocks an SM holds by shared memory
      // (the full ring: at most two waves, as before; the small rings: one wave of their blocks an SM)
      if (blocks > (v.ring_kb < 192 ? per_sm : 2) * evict.sms || (v.cluster > 1 && blocks % 2)) continue;
      if (v.ks > 1 && (v.cluster > 1 || (sh.k / (64 * v.kbox)) % v.ks != 0)) continue;
      if (v.xr < 8 || (v.x_mc && v.xr / 2 < 8)) continue;
      Params p{sh.k, v.wr, v.xr, v.w_pair, v.x_split, v.w_mc, v.x_mc, v.rot, 0, v.kbox, v.whint, v.xhint, v.ks, v.ring_kb * 1024};
      p.stages = std::min(v.max_stages, p.ring / ((v.wr + v.xr) * 128 * v.kbox));
      if (p.stages < 2) continue;
      maps.push_back(map_of(w, sh.n, sh.k, v.w_mc ? v.wr / 2 : v.wr, v.promotion));
      const CUtensorMap* mw = &maps.back();
      maps.push_back(map_of(x, sh.m, sh.k, v.x_mc ? v.xr / 2 : v.xr, v.promotion));
      const CUtensorMap* mx = &maps.back();
      const int cl = v.cluster;
      runs.emplace_back(std::string(v.name) + " s" + std::to_string(p.stages),
                        [mw, mx, p, blocks, cl] { launch(*mw, *mx, p, blocks, cl); });
      blocks_of.push_back(blocks);
      if (span) spanned.push_back({runs.back().first, mw, mx, p, blocks, cl});
    }
    for (auto& r : runs) r.second();  // warm-up, and errors surface here
    CK(cudaDeviceSynchronize());
    const std::vector<double> med = probe::medians_rotated(runs, evict, 15, 2);
    char shape[48];
    std::snprintf(shape, sizeof shape, "%dx%dx%d", sh.m, sh.n, sh.k);
    for (size_t i = 0; i < runs.size(); ++i)
      std::printf("%-16s %-34s %6d %9.2f %8.0f\n", shape, runs[i].first.c_str(), blocks_of[i], med[i],
                  welems * 2 / (med[i] * 1e3));
    // span: one launch right after an eviction with the blocks' stamps (five times, the last one's printed, beside
    // the events' time of each), as trace_gemm.cu's TRACE_COLD=1 reads the library's kernels.
    for (Spanned& sp : spanned) {
      unsigned long long* dst = nullptr;
      CK(cudaMalloc(&dst, sizeof(unsigned long long) * 4 * sp.blocks));
      sp.p.stamps = dst;
      std::vector<unsigned long long> hs(4 * static_cast<size_t>(sp.blocks));
      cudaEvent_t e0, e1;
      CK(cudaEventCreate(&e0));
      CK(cudaEventCreate(&e1));
      float ev[5];
      for (int rep = 0; rep < 5; ++rep) {
        CK(cudaMemset(dst, 0, sizeof(unsigned long long) * 4 * sp.blocks));
        evict();
        CK(cudaEventRecord(e0));
        launch(*sp.mw, *sp.mx, sp.p, sp.blocks, sp.cl);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ev[rep], e0, e1));
      }
      CK(cudaMemcpy(hs.data(), dst, hs.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
      unsigned long long g0 = ~0ull, g2 = 0;
      std::vector<double> first, ends, cyc;
      for (int b = 0; b < sp.blocks; ++b) g0 = std::min(g0, hs[4 * b]);
      for (int b = 0; b < sp.blocks; ++b) {
        g2 = std::max(g2, hs[4 * b + 2]);
        first.push_back((hs[4 * b + 1] - hs[4 * b]) * 1e-3);
        ends.push_back((hs[4 * b + 2] - g0) * 1e-3);
        cyc.push_back(static_cast<double>(hs[4 * b + 3]));
      }
      std::sort(first.begin(), first.end());
      std::sort(ends.begin(), ends.end());
      std::sort(cyc.begin(), cyc.end());
      const size_t n = ends.size();
      std::printf("%-16s %-34s span: events %.2f %.2f %.2f %.2f %.2f us; blocks' span %.2f us; first stage after the block's "
                  "start p50 %.2f max %.2f us; ends min %.2f p50 %.2f max %.2f us; block cycles p50 %.0f\n",
                  shape, sp.name.c_str(), ev[0] * 1e3, ev[1] * 1e3, ev[2] * 1e3, ev[3] * 1e3, ev[4] * 1e3, (g2 - g0) * 1e-3,
                  first[n / 2], first[n - 1], ends[0], ends[n / 2], ends[n - 1], cyc[n / 2]);
      CK(cudaFree(dst));
      CK(cudaEventDestroy(e0));
      CK(cudaEventDestroy(e1));
    }
    CK(cudaFree(w)); CK(cudaFree(x)); CK(cudaFree(d));
  }
  cublasDestroy(h);
  return 0;
}
