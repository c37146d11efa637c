// scripts/device/decode_queue_probe.cu -- a persistent decode GEMM whose blocks take units of work from a queue, against
// cuBLAS and one plain read of the weights, timed in turn in one process (an experiment for issue 11; not in the library).
//
// The decode problem as the planner orients it: D^T = W X^T, the weights W (n x k, row-major) as the 128-row operand A,
// the batch X (m x k, row-major) as the BN-wide operand B, both K-major, bf16; D (m x n, row-major) is D^T column-major.
// The kernel is gemm_sm90's decode tile (a producer warp driving TMA into a ring of kStages, two consumer warpgroups
// running wgmma m64nBNk16 on rows 0-63 / 64-127 of the stage), made persistent:
//   * a unit is (row tile of 128 weights, column tile of BN batch rows, chunk of `chunk` K tiles of 64);
//   * one block an SM; block b takes unit b, then the next from a global counter (atomicAdd), so that a block that DRAM
//     serves faster takes more units -- the tiles' K ranges are no longer tied to blocks;
//   * the ring runs on across units: the producer fetches the next unit's stages while the consumers finish this one;
//   * each stage carries its unit's index (written by the producer before the full barrier's arrive), so that the
//     consumers learn a unit at its first stage;
//   * a unit's 64 x BN sums per consumer warpgroup go to a fixed workspace slot (tile, chunk, half); the half's counter
//     tells the warpgroup that completes the tile, which adds the tile's Q chunk slots in chunk order (the same sum
//     whichever block computed which chunk, so the same bits run to run) and stores D.  One chunk: D straight away.
// Counters reset themselves (the tile's completer, the last block out of the queue), so launches need no memset.
//
//   nvcc -std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a -I include scripts/device/decode_queue_probe.cu \
//        -o /tmp/dq -lcublas && /tmp/dq [all|M,M,...] [read|sasum|sasum+empty|sasum+smem] [short|hints|batch|bm64|pairs|dual]
//
// Prints, per shape of issue 11's decode set (M = 1, 16, 64, 128 or the list given), us (median of 15 after an L2
// eviction each, rounds rotated) of one read of W (grid-stride), reads of W in the decode kernels' pattern (128-row
// bands, K chunks, a given width a row a step and loads in flight), cuBLAS and the queue kernel, the ratio cuBLAS /
// this, the largest error of 256 sampled outputs against float64 over (sum of |products| + 1), and whether three runs
// gave the same bits.  Default variants: one unit an SM (the K chunk that fills the SMs once) at ring depths 12 (16-wide
// tile; 8 / 6 for the 64- / 128-wide ones) down to 2.  Eviction: `read` a pass of plain loads (as `tessera bench gemm`'s
// l2_evict_by_reading), `sasum` cublasSasum (as `tessera bench gemm` times GEMMs), either with an untimed empty kernel
// after it (`+empty`, `+smem`: 200 KB of shared memory).  Variant sets: `short` (the whole ring, 6 stages, 6 stages with
// programmatic dependent launch, one unit a tile), `hints` (the weights' TMA copies with an L2 evict_first / evict_last
// policy), `batch` (the producer's copies 2 or 4 K tiles at a time), `bm64` (64-row tiles, one consumer warpgroup,
// one to three blocks an SM), `pairs` (clusters of two on adjacent row tiles, the batch's tile multicast), `dual` (a
// 64-row tile's two consumer warpgroups on alternate K tiles).  docs/PERF.md, forty-ninth section, has the
// measurements: the queue (several units a block) and the variant sets lost or tied; 6 stages were best.
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "probe_util.cuh"  // CK, L2Evict, read_words, medians_rotated, bf16 bits
#include "tessera/arch/sm90_cluster.hpp"
#include "tessera/arch/sm90_mbarrier.hpp"
#include "tessera/arch/sm90_tma.hpp"
#include "tessera/arch/sm90_tma_desc.hpp"
#include "tessera/arch/sm90_warpgroup.hpp"
#include "tessera/arch/sm90_wgmma.hpp"
#include "tessera/atom/mma_sm90.hpp"
#include "tessera/atom/smem_sm90.hpp"
#include "tessera/kernel/gemm_sm90/elem.hpp"

namespace {

using probe::bf16_bits;
using probe::bits_bf16;
using probe::read_words;

using namespace tessera;

struct QParams {
  int n, m, k;            // weight rows, batch rows, K
  __nv_bfloat16* d;       // m x n row-major
  float* ws;              // unit slots: [tile][chunk][half][64 x BN]
  int* tile_count;        // [tile][half], zero between launches
  int* queue;             // [0] the next unit after the first wave, [1] blocks done; zero between launches
  int chunk, chunks;      // K tiles a unit, units a tile
  int tiles_m, tiles_n;   // row tiles of W, column tiles of the batch
  int kt;                 // K tiles
  int units;
  int batch;              // the producer issues its copies `batch` stages at a time, all of them free first
  int hint;               // A's copies with an L2 cache hint: 0 none, 1 evict_first, 2 evict_last
  int cluster;            // 2: blocks in pairs on adjacent row tiles, the batch's tile multicast to both (no queue)
  int depth;              // stages of the ring in use (<= kStages): the copies a block keeps in flight
};

template <int kBN_, int kBM_ = 128, bool kDual = false>
struct DecodeQueue {
  static constexpr int kBM = kBM_, kBN = kBN_, kBK = 64;
  static constexpr int kHalves = kBM / 64;  // consumer warpgroups, 64 rows each
  // kDual (64-row tiles, one unit a block): two consumer warpgroups on the same 64 rows, alternate K tiles, their sums
  // added through shared memory at the end -- two chains of wgmma groups a block.
  static_assert(!kDual || kBM == 64, "dual consumers: 64-row tiles");
  static constexpr int kThreads = 128 * (1 + (kDual ? 2 : kHalves));
  using Atom = gemm_sm90::WgmmaAtomFor<gemm_sm80::ElemBf16, kBN, 0, 0>::type;
  static constexpr int kAcc = Atom::kValuesC;
  static constexpr int kStages = kBM == 64 ? 16 : kBN == 16 ? 12 : kBN == 64 ? 8 : 6;
  static constexpr atom::SmemTileSm90 kTileA = atom::sw128_tile(kBM, 2);
  static constexpr atom::SmemTileSm90 kTileB = atom::sw128_tile(kBN, 2);
  static constexpr int kTileBytesA = static_cast<int>(kTileA.bytes()), kTileBytesB = static_cast<int>(kTileB.bytes());
  static constexpr int kStageBytes = kTileBytesA + kTileBytesB;
  static constexpr int kRowBytesA = static_cast<int>(kTileA.row_stride_elems()) * 2;
  static constexpr atom::SmemTileSm90::WgmmaOperand kOpA = kTileA.wgmma_operand(true, 8192, kBK, Atom::kK);
  static constexpr atom::SmemTileSm90::WgmmaOperand kOpB = kTileB.wgmma_operand(true, 8192, kBK, Atom::kK);
  static_assert(kOpA.desc != 0 && kOpB.desc != 0, "descriptors");
  static constexpr int kBarOffset = kStages * kStageBytes;
  static constexpr int kXchgOffset = kBarOffset + kStages * 16 + kStages * 4 + 16;  // (16-byte aligned)
  static constexpr int kSmemBytes = kXchgOffset + (kDual ? 128 * Atom::kValuesC * 4 : 0) + 1024;
  static constexpr int kSlotFloats = 64 * kBN;  // one consumer warpgroup's unit sums (not in kDual's path)
  static_assert(kSlotFloats > 0, "");

  struct Unit {
    int tm, tn, chunk, kt0, n_it, tile;
  };
  __device__ __forceinline__ static void tma_load_2d_hint(void* dst, const CUtensorMap* map, uint64_t* bar, int c0, int c1,
                                                          uint64_t policy) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1, {%3, %4}], "
        "[%2], %5;\n" ::"r"(static_cast<uint32_t>(__cvta_generic_to_shared(dst))),
        "l"(reinterpret_cast<uint64_t>(map)), "r"(static_cast<uint32_t>(__cvta_generic_to_shared(bar))), "r"(c0), "r"(c1), "l"(policy)
        : "memory");
  }
  __device__ __forceinline__ static Unit unit(const QParams& p, int u) {
    Unit w;
    w.tn = u % p.tiles_n;
    const int r = u / p.tiles_n;
    w.chunk = r % p.chunks;
    w.tm = r / p.chunks;
    w.tile = w.tm * p.tiles_n + w.tn;
    w.kt0 = w.chunk * p.chunk;
    w.n_it = min(p.chunk, p.kt - w.kt0);
    return w;
  }

  __device__ static void run(const QParams& p, const CUtensorMap* map_a, const CUtensorMap* map_b) {
#if defined(TESSERA_ARCH_SM90A)
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    unsigned char* smem = reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023});
    unsigned char* sA = smem;
    unsigned char* sB = smem + kStages * kTileBytesA;
    uint64_t* full = reinterpret_cast<uint64_t*>(smem + kBarOffset);
    uint64_t* empty = full + kStages;
    int* unit_of = reinterpret_cast<int*>(empty + kStages);
    int* last_flag = unit_of + kStages;  // [2]: one per consumer warpgroup
    const int wg = static_cast<int>(threadIdx.x) / 128;
    if (threadIdx.x == 0) {
      arch::tma_prefetch_desc(map_a);
      arch::tma_prefetch_desc(map_b);
      for (int s = 0; s < kStages; ++s) {
        arch::mbarrier_init(&full[s], 1);
        arch::mbarrier_init(&empty[s], kDual ? 1 : kHalves * p.cluster);  // a pair's stage is released by both blocks' consumers
      }
      arch::fence_mbarrier_init();
    }
    // The peer's barriers exist before anyone arrives on them or multicasts into its block.
    if (p.cluster > 1) arch::cluster_sync();
    else __syncthreads();
    const int rank = p.cluster > 1 ? static_cast<int>(arch::cluster_ctarank()) : 0;
    // Programmatic dependent launch (Queue::pdl): the block may start while the previous kernel of the stream finishes;
    // nothing global is read or written before that kernel's memory is visible.  (A no-op in a plain launch.)
    asm volatile("griddepcontrol.wait;\n" ::: "memory");

    if (wg == 0) {
      if (threadIdx.x == 0) {
      int u = static_cast<int>(blockIdx.x) / p.cluster, it = 0;
      uint64_t policy = 0;
      if (p.hint == 1) asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(policy));
      if (p.hint == 2) asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;\n" : "=l"(policy));
      while (true) {
        if (u >= p.units) {
          const int s = it % p.depth;
          arch::mbarrier_wait_parity(&empty[s], (static_cast<uint32_t>(it / p.depth) & 1u) ^ 1u);
          unit_of[s] = -1;
          (void)arch::mbarrier_arrive(&full[s]);
          break;
        }
        // The next unit's index, asked for now: its round trip overlaps this unit's copies.
        const int next = p.cluster > 1 ? p.units : static_cast<int>(gridDim.x) + atomicAdd(&p.queue[0], 1);
        const Unit w = unit(p, u);
        for (int j = 0; j < w.n_it; ++j, ++it) {
          const int s = it % p.depth;
          if (p.batch > 1 && it % p.batch == 0)
            for (int b = 1; b < p.batch; ++b)
              arch::mbarrier_wait_parity(&empty[(it + b) % p.depth], (static_cast<uint32_t>((it + b) / p.depth) & 1u) ^ 1u);
          arch::mbarrier_wait_parity(&empty[s], (static_cast<uint32_t>(it / p.depth) & 1u) ^ 1u);
          if (j == 0) unit_of[s] = u;
          arch::mbarrier_arrive_expect_tx(&full[s], kStageBytes);
          const int k0 = (w.kt0 + j) * kBK;
          const int tm = p.cluster > 1 ? 2 * w.tm + rank : w.tm;
          if (p.hint) tma_load_2d_hint(sA + s * kTileBytesA, map_a, &full[s], k0, tm * kBM, policy);
          else arch::tma_load_2d(sA + s * kTileBytesA, map_a, &full[s], k0, tm * kBM);
          if (p.cluster == 1) arch::tma_load_2d(sB + s * kTileBytesB, map_b, &full[s], k0, w.tn * kBN);
          else if (rank == 0) arch::tma_load_2d_multicast(sB + s * kTileBytesB, map_b, &full[s], k0, w.tn * kBN, 0x3);
        }
        u = next;
      }
      // The last block out of the queue resets it for the next launch (every block has made its last atomicAdd).
      if (p.cluster == 1) {
        __threadfence();
        if (atomicAdd(&p.queue[1], 1) == static_cast<int>(gridDim.x) - 1) {
          p.queue[0] = 0;
          p.queue[1] = 0;
        }
      }
      }
    } else {

    // ---- consumers: warpgroup 1 rows 0-63 of each tile, warpgroup 2 rows 64-127 ----
    const int h = wg - 1, t = static_cast<int>(threadIdx.x) % 128;
    const uint32_t a16 = ((static_cast<uint32_t>(__cvta_generic_to_shared(sA)) / 16) & 0x3FFFu) +
                         static_cast<uint32_t>(__shfl_sync(0xffffffffu, (kDual ? 0 : h) * 64 * kRowBytesA / 16, 0));
    const uint32_t b16 = (static_cast<uint32_t>(__cvta_generic_to_shared(sB)) / 16) & 0x3FFFu;
    const uint32_t full_u32 = static_cast<uint32_t>(__cvta_generic_to_shared(full));
    const atom::FragCoord c0 = Atom::c_thread(t);
    float acc[kAcc];
    auto mma_stage = [&](int s, bool fresh) {
      const uint32_t sa16 = a16 + static_cast<uint32_t>(s * (kTileBytesA / 16));
      const uint32_t sb16 = b16 + static_cast<uint32_t>(s * (kTileBytesB / 16));
      arch::wgmma_fence_operands(acc);
      arch::wgmma_fence();
#pragma unroll
      for (int ks = 0; ks < kBK / Atom::kK; ++ks) {
        const uint64_t da = arch::smem_desc16(sa16 + static_cast<uint32_t>(ks * kOpA.k_step / 16), kOpA.desc);
        const uint64_t db = arch::smem_desc16(sb16 + static_cast<uint32_t>(ks * kOpB.k_step / 16), kOpB.desc);
        Atom::fma(acc, da, db, fresh && ks == 0 ? 0u : 1u);
      }
      arch::wgmma_commit();
    };
    // A stage's release: this block's empty barrier and, in a pair, the peer's (its producer multicast into this stage).
    auto release = [&](int s) {
      if (t != 0) return;
      if (p.cluster > 1) {
        for (int r = 0; r < p.cluster; ++r) arch::mbarrier_arrive_cluster(&empty[s], static_cast<uint32_t>(r));
      } else {
        (void)arch::mbarrier_arrive(&empty[s]);
      }
    };
    // One K tile in stage s: wait for it, its wgmma as one group, then the previous stage released once its group is done.
    auto step = [&](int s, uint32_t parity, bool fresh, int& prev) {
      arch::mbarrier_wait_parity(full_u32 + 8u * static_cast<uint32_t>(s), parity);
      mma_stage(s, fresh);
      arch::wgmma_wait<1>();
      arch::wgmma_fence_operands(acc);
      if (prev >= 0) release(prev);
      prev = s;
    };
    auto drain = [&](int prev) {
      arch::wgmma_wait<0>();
      arch::wgmma_fence_operands(acc);
      if (prev >= 0) release(prev);
    };
    // D (m x n row-major): the fragment's (row r, column c) of D^T is D[col0 + c][row0 + r].
    auto store_d = [&](int row0, int col0) {
#pragma unroll
      for (int i = 0; i < kAcc; ++i) {
        const int r = row0 + c0.row + 8 * ((i >> 1) & 1), c = col0 + c0.col + 8 * (i >> 2) + (i & 1);
        if (r < p.n && c < p.m) p.d[static_cast<size_t>(c) * p.n + r] = __float2bfloat16_rn(acc[i]);
      }
    };
    if constexpr (kDual) {
      // One unit a block (its whole K): warpgroup h takes the unit's K tiles h, h + 2, ...
      const Unit w = unit(p, static_cast<int>(blockIdx.x));
      bool fresh = true;
      int prev = -1;
      for (int j = h; j < w.n_it; j += 2) {
        step(j % p.depth, static_cast<uint32_t>(j / p.depth) & 1u, fresh, prev);
        fresh = false;
      }
      drain(prev);
      if (fresh)
        for (int i = 0; i < kAcc; ++i) acc[i] = 0.f;
      float* xchg = reinterpret_cast<float*>(smem + kXchgOffset);
      if (h == 1)
        for (int i = 0; i < kAcc; ++i) xchg[i * 128 + t] = acc[i];
      arch::named_barrier_sync(1, 256);
      if (h == 0) {
        for (int i = 0; i < kAcc; ++i) acc[i] += xchg[i * 128 + t];
        store_d(w.tm * kBM, w.tn * kBN);
      }
    } else {
    int it = 0;
    while (true) {
      int s = it % p.depth;
      arch::mbarrier_wait_parity(full_u32 + 8u * static_cast<uint32_t>(s), static_cast<uint32_t>(it / p.depth) & 1u);
      const int u = unit_of[s];
      if (u < 0) break;
      const Unit w = unit(p, u);
      const int tm = p.cluster > 1 ? 2 * w.tm + rank : w.tm, tile = p.cluster > 1 ? 2 * w.tile + rank : w.tile;
      int prev = -1;
      // (The unit's first stage is waited for again: its phase has completed and stays so until this block releases it.)
      for (int j = 0; j < w.n_it; ++j, ++it) step(it % p.depth, static_cast<uint32_t>(it / p.depth) & 1u, j == 0, prev);
      drain(prev);

      const int row0 = tm * kBM + h * 64, col0 = w.tn * kBN;
      if (p.chunks > 1) {
        // This unit's sums to its slot, in fragment order (each thread's values as float4s, threads innermost).
        float4* slot = reinterpret_cast<float4*>(p.ws + ((static_cast<size_t>(tile) * p.chunks + w.chunk) * kHalves + h) * kSlotFloats);
#pragma unroll
        for (int i = 0; i < kAcc / 4; ++i) __stcg(slot + i * 128 + t, make_float4(acc[4 * i], acc[4 * i + 1], acc[4 * i + 2], acc[4 * i + 3]));
        __threadfence();
        arch::named_barrier_sync(1 + h, 128);
        if (t == 0) {
          int* cnt = p.tile_count + kHalves * tile + h;
          const bool last = atomicAdd(cnt, 1) == p.chunks - 1;
          if (last) *cnt = 0;  // every chunk of this half has arrived: reset for the next launch
          last_flag[h] = last;
        }
        arch::named_barrier_sync(1 + h, 128);
        if (!last_flag[h]) continue;
        __threadfence();
        // Every chunk's slot in chunk order, this unit's own too (its registers are free by now): the same additions
        // whichever block computed which chunk.
#pragma unroll
        for (int i = 0; i < kAcc; ++i) acc[i] = 0.f;
        const float4* base = reinterpret_cast<const float4*>(p.ws + (static_cast<size_t>(tile) * p.chunks * kHalves + h) * kSlotFloats);
        // Slots read kGroup at a time, all their loads issued before the adds (in chunk order).
        constexpr int kV = kAcc / 4, kGroup = 16 / kV < 1 ? 1 : 16 / kV;
        for (int c = 0; c < p.chunks; c += kGroup) {
          float4 v[kGroup][kV];
#pragma unroll
          for (int g = 0; g < kGroup; ++g)
            if (c + g < p.chunks) {
              const float4* sl = base + static_cast<size_t>(c + g) * kHalves * kSlotFloats / 4;
#pragma unroll
              for (int i = 0; i < kV; ++i) v[g][i] = __ldcg(sl + i * 128 + t);
            }
#pragma unroll
          for (int g = 0; g < kGroup; ++g)
            if (c + g < p.chunks) {
#pragma unroll
              for (int i = 0; i < kV; ++i) {
                acc[4 * i] += v[g][i].x;
                acc[4 * i + 1] += v[g][i].y;
                acc[4 * i + 2] += v[g][i].z;
                acc[4 * i + 3] += v[g][i].w;
              }
            }
        }
      }
      store_d(row0, col0);
    }
    }
    }
    // A pair's blocks stay until the peer has stopped arriving on their barriers and multicasting into them.
    if (p.cluster > 1) arch::cluster_sync();
#else
    (void)p; (void)map_a; (void)map_b;
#endif
  }
};

template <int kBN, int kBM = 128, bool kDual = false>
__global__ void __launch_bounds__(DecodeQueue<kBN, kBM, kDual>::kThreads, 1) decode_queue_kernel(const QParams p, const __grid_constant__ CUtensorMap map_a,
                                                              const __grid_constant__ CUtensorMap map_b) {
  DecodeQueue<kBN, kBM, kDual>::run(p, &map_a, &map_b);
}



// One read of W as the decode kernels read it: block b takes band b / chunks (128 rows) and K chunk b % chunks, and
// reads it step by step, each step `wb` bytes of each of the 128 rows; kU loads in flight a thread.
template <int kU>
__global__ void read_band(const char* __restrict__ w, size_t pitch, int row_bytes, int chunks, int wb, int never, int* sink) {
  const int band = static_cast<int>(blockIdx.x) / chunks, ch = static_cast<int>(blockIdx.x) % chunks;
  const int per = row_bytes / chunks, q = wb / 16, step_words = 128 * q, words = (per / wb) * step_words;
  const char* base = w + static_cast<size_t>(band) * 128 * pitch + static_cast<size_t>(ch) * per;
  int acc = 0;
  for (int f0 = static_cast<int>(threadIdx.x); f0 < words; f0 += kU * static_cast<int>(blockDim.x)) {
    int4 v[kU];
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      const int f = f0 + u * static_cast<int>(blockDim.x);
      if (f < words) {
        const int st = f / step_words, i = f % step_words, r = i / q, c = i % q;
        v[u] = __ldcs(reinterpret_cast<const int4*>(base + static_cast<size_t>(r) * pitch + static_cast<size_t>(st) * wb + c * 16));
      } else {
        v[u] = make_int4(0, 0, 0, 0);
      }
    }
#pragma unroll
    for (int u = 0; u < kU; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  if (acc == never) *sink = acc;
}

__global__ void primer_kernel(int* sink, int never) {
  if (never) *sink = 1;
}


struct Queue {
  int bn = 0, chunk = 0, bm = 128;
  bool dual = false;  // DecodeQueue's kDual
  QParams p{};
  CUtensorMap ma{}, mb{};
  int grid = 0;
  bool pdl = false;  // launched with programmatic stream serialisation (cudaLaunchKernelEx)
  template <int kBN, int kBM = 128>
  void launch_ex() const {
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(static_cast<unsigned>(grid));
    cfg.blockDim = dim3(DecodeQueue<kBN, kBM>::kThreads);
    cfg.dynamicSmemBytes = DecodeQueue<kBN, kBM>::kSmemBytes;
    cudaLaunchAttribute attr[1];
    if (p.cluster > 1) {
      attr[0].id = cudaLaunchAttributeClusterDimension;
      attr[0].val.clusterDim.x = static_cast<unsigned>(p.cluster);
      attr[0].val.clusterDim.y = 1;
      attr[0].val.clusterDim.z = 1;
    } else {
      attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
      attr[0].val.programmaticStreamSerializationAllowed = 1;
    }
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    CK(cudaLaunchKernelEx(&cfg, decode_queue_kernel<kBN, kBM>, p, ma, mb));
  }
  void launch() const {
    if (p.cluster > 1) {
      if (bm == 64) launch_ex<16, 64>();
      else launch_ex<16>();
      return;
    }
    if (pdl) {
      if (bn == 16) launch_ex<16>();
      else if (bn == 64) launch_ex<64>();
      else launch_ex<128>();
      return;
    }
    if (dual) decode_queue_kernel<16, 64, true><<<grid, DecodeQueue<16, 64, true>::kThreads, DecodeQueue<16, 64, true>::kSmemBytes>>>(p, ma, mb);
    else if (bm == 64) decode_queue_kernel<16, 64><<<grid, DecodeQueue<16, 64>::kThreads, DecodeQueue<16, 64>::kSmemBytes>>>(p, ma, mb);
    else if (bn == 16) decode_queue_kernel<16><<<grid, 384, DecodeQueue<16>::kSmemBytes>>>(p, ma, mb);
    else if (bn == 64) decode_queue_kernel<64><<<grid, 384, DecodeQueue<64>::kSmemBytes>>>(p, ma, mb);
    else decode_queue_kernel<128><<<grid, 384, DecodeQueue<128>::kSmemBytes>>>(p, ma, mb);
  }
};

}  // namespace

int main(int argc, char** argv) {
  const probe::L2Evict evict;
  const int sms = evict.sms;
  int* const sink = evict.sink;
  CK(cudaFuncSetAttribute(decode_queue_kernel<16>, cudaFuncAttributeMaxDynamicSharedMemorySize, DecodeQueue<16>::kSmemBytes));
  CK(cudaFuncSetAttribute(decode_queue_kernel<16, 64>, cudaFuncAttributeMaxDynamicSharedMemorySize, DecodeQueue<16, 64>::kSmemBytes));
  CK(cudaFuncSetAttribute(decode_queue_kernel<16, 64, true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          DecodeQueue<16, 64, true>::kSmemBytes));
  CK(cudaFuncSetAttribute(decode_queue_kernel<64>, cudaFuncAttributeMaxDynamicSharedMemorySize, DecodeQueue<64>::kSmemBytes));
  CK(cudaFuncSetAttribute(decode_queue_kernel<128>, cudaFuncAttributeMaxDynamicSharedMemorySize, DecodeQueue<128>::kSmemBytes));
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 1;
  std::vector<int> ms = {1, 16, 64, 128};
  // (chunk, depth): chunk 0 the whole K (one unit a tile), -1 as many chunks a tile as fill the SMs once; depth 0: every
  // stage of the ring
  std::vector<std::tuple<int, int, int>> chunks = {{-1, 0, 0}, {-1, 8, 0}, {-1, 6, 0}, {-1, 4, 0}, {-1, 3, 0}, {-1, 2, 0}};
  // argv[2] "sasum": evict L2 as `tessera bench gemm` does (cublasSasum over 4x L2), not by read_words; argv[3] "short":
  // only the whole ring and 6 stages, at one unit an SM, and 6 stages at one unit a tile.
  // argv[2] may add a primer after the eviction, untimed: "sasum+empty" an empty kernel, "sasum+smem" an empty kernel
  // with 200 KB of dynamic shared memory (does the launch after the eviction pay for the change of shared-memory size?)
  const std::string evict_mode = argc > 2 ? argv[2] : "read";
  const bool sasum = evict_mode.rfind("sasum", 0) == 0;
  const int primer = evict_mode == "sasum+empty" ? 1 : evict_mode == "sasum+smem" ? 2 : 0;
  CK(cudaFuncSetAttribute(primer_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  if (argc > 3 && std::string(argv[3]) == "short") chunks = {{-1, 0, 0}, {-1, 6, 0}, {-1, -6, 0}, {0, 6, 0}};  // depth -6: 6 stages, launched with PDL
  // "batch": the producer's copies 2 / 4 K tiles at a time (the same rows' 256 / 512 contiguous bytes asked for together)
  if (argc > 3 && std::string(argv[3]) == "batch") chunks = {{-1, 6, 0}, {-1, 6, 10}, {-1, 6, 20}, {-1, 8, 20}, {-1, 8, 40}};
  // "bm64": 64-row tiles (one consumer warpgroup, a ring of up to 16 stages of 10 KB): hint 100 x (blocks an SM)
  // "pairs": blocks in clusters of two on adjacent row tiles, the batch's tile multicast to both, one unit a pair
  if (argc > 3 && std::string(argv[3]) == "pairs")
    chunks = {{-1, 6, 0}, {-1, 6, 1000}, {-1, 12, 1000}, {-1, 12, 1100}, {-1, 16, 1100}, {0, 16, 1100}};
  // "dual": 64-row tiles with two consumer warpgroups on alternate K tiles, one unit (the whole K) a block
  if (argc > 3 && std::string(argv[3]) == "dual") chunks = {{-1, 6, 0}, {-1, 12, 100}, {0, 8, 2100}, {0, 12, 2100}, {0, 16, 2100}};
  if (argc > 3 && std::string(argv[3]) == "bm64") chunks = {{-1, 6, 0}, {-1, 6, 100}, {-1, 8, 100}, {-1, 12, 100}, {-1, 16, 100}};
  if (argc > 3 && std::string(argv[3]) == "hints") chunks = {{-1, 6, 0}, {-1, 6, 1}, {-1, 6, 2}, {-1, 0, 1}};  // the weights' L2 hint
  cublasHandle_t evict_h;
  float* evict_sum = nullptr;
  if (cublasCreate(&evict_h) != CUBLAS_STATUS_SUCCESS) return 1;
  cublasSetPointerMode(evict_h, CUBLAS_POINTER_MODE_DEVICE);
  CK(cudaMalloc(&evict_sum, 4));
  auto evict_l2 = [&] {
    if (sasum) cublasSasum(evict_h, static_cast<int>(evict.words * 4), reinterpret_cast<const float*>(evict.buf), 1, evict_sum);
    else evict();
    if (primer == 1) primer_kernel<<<sms, 128>>>(sink, 0);
    if (primer == 2) primer_kernel<<<sms, 128, 200 * 1024>>>(sink, 0);
  };
  if (argc > 1 && std::string(argv[1]) != "all") {
    ms.clear();
    for (char* s = argv[1]; *s;) {
      ms.push_back(std::atoi(s));
      while (*s && *s != ',') ++s;
      if (*s) ++s;
    }
  }
  const int shapes[][2] = {{4096, 4096}, {8192, 8192}, {14336, 4096}, {4096, 14336}};
  std::printf("decode queue probe, bf16, us: median of 15 after an L2 eviction (%s) each, rounds rotated; %d SMs\n", evict_mode.c_str(), sms);
  std::vector<double> geo;
  for (auto [n, k] : shapes) {
    std::mt19937 rng(n + k);
    std::uniform_real_distribution<float> uni(-1.f, 1.f);
    std::vector<uint16_t> w(static_cast<size_t>(n) * k);
    for (auto& v : w) v = bf16_bits(uni(rng));
    uint16_t* dw;
    CK(cudaMalloc(&dw, w.size() * 2));
    CK(cudaMemcpy(dw, w.data(), w.size() * 2, cudaMemcpyHostToDevice));
    for (int m : ms) {
      std::vector<uint16_t> x(static_cast<size_t>(m) * k);
      for (auto& v : x) v = bf16_bits(uni(rng));
      uint16_t *dx, *dd, *dref;
      CK(cudaMalloc(&dx, x.size() * 2));
      CK(cudaMalloc(&dd, static_cast<size_t>(m) * n * 2));
      CK(cudaMalloc(&dref, static_cast<size_t>(m) * n * 2));
      CK(cudaMemcpy(dx, x.data(), x.size() * 2, cudaMemcpyHostToDevice));
      const int kt = (k + 63) / 64;
      std::vector<int> bns = m <= 16 ? std::vector<int>{16} : m <= 64 ? std::vector<int>{64} : std::vector<int>{64, 128};
      std::vector<Queue> qs;
      std::vector<void*> frees;
      for (int bn : bns)
      for (auto [c, depth, hint] : chunks) {
        const int tiles_n = (m + bn - 1) / bn;
        Queue q;
        q.bn = bn;
        q.dual = hint >= 2000;
        q.p.cluster = hint >= 1000 && !q.dual ? 2 : 1;
        const int rest = hint % 1000;
        q.bm = rest >= 100 ? 64 : 128;
        if ((q.bm == 64 || q.p.cluster > 1) && bn != 16) continue;
        const int bps = rest >= 100 ? rest / 100 : 1;  // blocks an SM
        const int tiles_m = (n + q.bm - 1) / q.bm;
        const int fill = std::max(1, bps * sms / (tiles_m * tiles_n));
        q.chunk = c == 0 ? kt : c < 0 ? (kt + fill - 1) / fill : c;
        const int stages = q.bm == 64 ? DecodeQueue<16, 64>::kStages : bn == 16 ? DecodeQueue<16>::kStages : bn == 64 ? DecodeQueue<64>::kStages : DecodeQueue<128>::kStages;
        if (depth > stages) continue;
        q.pdl = depth < 0;
        q.p.depth = depth == 0 ? stages : std::abs(depth);
        q.p.hint = rest % 10;
        q.p.batch = (rest % 100) / 10;
        if (q.p.batch > q.p.depth - 2) continue;  // the consumers hold one stage while they wait for the next

        if (q.chunk > kt || q.chunk < 1) continue;
        q.p.n = n;
        q.p.m = m;
        q.p.k = k;
        q.p.d = reinterpret_cast<__nv_bfloat16*>(dd);
        q.p.chunk = q.chunk;
        q.p.chunks = (kt + q.chunk - 1) / q.chunk;
        q.p.tiles_m = tiles_m / q.p.cluster;  // (pairs of row tiles in a pair's units)
        if (tiles_m % q.p.cluster != 0) continue;
        q.p.tiles_n = tiles_n;
        q.p.kt = kt;
        q.p.units = q.p.tiles_m * tiles_n * q.p.chunks;
        const size_t ws_bytes = static_cast<size_t>(tiles_m) * tiles_n * q.p.chunks * q.bm * bn * 4;
        CK(cudaMalloc(&q.p.ws, ws_bytes));
        CK(cudaMalloc(&q.p.tile_count, static_cast<size_t>(tiles_m) * tiles_n * 2 * 4));
        CK(cudaMemset(q.p.tile_count, 0, static_cast<size_t>(tiles_m) * tiles_n * 2 * 4));
        CK(cudaMalloc(&q.p.queue, 8));
        CK(cudaMemset(q.p.queue, 0, 8));
        frees.push_back(q.p.ws);
        frees.push_back(q.p.tile_count);
        frees.push_back(q.p.queue);
        q.ma = arch::make_tma_desc_2d(dw, 2, n, k, k, q.bm, 64, arch::TmaSwizzle::k128B);
        q.mb = arch::make_tma_desc_2d(dx, 2, m, k, k, bn, 64, arch::TmaSwizzle::k128B);
        q.grid = q.p.cluster > 1 ? q.p.units * q.p.cluster : std::min(bps * sms, q.p.units);
        if (q.dual) {
          if (q.chunk != kt) continue;  // one unit a block, its whole K
          q.grid = q.p.units;
        }
        qs.push_back(q);
      }
      const float one = 1.f, zero = 0.f;
      auto cublas = [&] {
        cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &one, dw, CUDA_R_16BF, k, dx, CUDA_R_16BF, k, &zero, dref,
                     CUDA_R_16BF, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
      };
      // Correctness: 256 sampled outputs of each chunk length against float64, and three runs' bits.
      std::vector<std::pair<int, int>> samples;
      std::mt19937 srng(m * 7 + n);
      for (int i = 0; i < 256; ++i) samples.push_back({static_cast<int>(srng() % m), static_cast<int>(srng() % n)});
      std::vector<double> err(qs.size()), ref(samples.size()), mag(samples.size());
      for (size_t i = 0; i < samples.size(); ++i) {
        double s = 0, a = 0;
        for (int j = 0; j < k; ++j) {
          const double q = bits_bf16(x[static_cast<size_t>(samples[i].first) * k + j]) * bits_bf16(w[static_cast<size_t>(samples[i].second) * k + j]);
          s += q;
          a += std::fabs(q);
        }
        ref[i] = s;
        mag[i] = a;
      }
      std::vector<int> same(qs.size(), 1);
      std::vector<uint16_t> d0(static_cast<size_t>(m) * n), d1(d0.size());
      for (size_t qi = 0; qi < qs.size(); ++qi) {
        for (int rep = 0; rep < 3; ++rep) {
          CK(cudaMemset(dd, 0xFF, d0.size() * 2));
          qs[qi].launch();
          CK(cudaDeviceSynchronize());
          CK(cudaMemcpy(rep == 0 ? d0.data() : d1.data(), dd, d0.size() * 2, cudaMemcpyDeviceToHost));
          if (rep > 0 && std::memcmp(d0.data(), d1.data(), d0.size() * 2) != 0) same[qi] = 0;
        }
        double worst = 0;
        for (size_t i = 0; i < samples.size(); ++i) {
          const double v = bits_bf16(d0[static_cast<size_t>(samples[i].first) * n + samples[i].second]);
          const double e = std::fabs(v - ref[i]) / (mag[i] + 1.0);
          worst = std::isnan(e) ? 1e30 : std::max(worst, e);
        }
        err[qi] = worst;
      }
      std::vector<std::pair<std::string, std::function<void()>>> runs;
      runs.push_back({"read of W", [&] { read_words<<<4 * sms, 512>>>(reinterpret_cast<const int4*>(dw), w.size() * 2 / 16, 0x2468ace1, sink); }});
      runs.push_back({"cuBLAS", cublas});
      const int first_q = 2 + 6;
      auto band = [&](auto u_c, int wb) {
        constexpr int kU = decltype(u_c)::value;
        const int row_bytes = 2 * k, bands = n / 128;
        const int ch = std::max(1, std::min(row_bytes / wb, 4 * sms / bands));
        char name[64];
        std::snprintf(name, sizeof name, "read bands %d B a step x%d, %d in flight", wb, ch, kU);
        runs.push_back({name, [=] { read_band<kU><<<bands * ch, 256>>>(reinterpret_cast<const char*>(dw), 2 * static_cast<size_t>(k), row_bytes, ch, wb, 0x2468ace1, sink); }});
      };
      band(std::integral_constant<int, 1>{}, 128);
      band(std::integral_constant<int, 2>{}, 128);
      band(std::integral_constant<int, 4>{}, 128);
      band(std::integral_constant<int, 8>{}, 128);
      band(std::integral_constant<int, 4>{}, 512);
      band(std::integral_constant<int, 8>{}, 512);
      for (const Queue& q : qs) {
        char name[64];
        std::snprintf(name, sizeof name, "q %dx%d c%d depth %d%s%s (%d units)", q.bm, q.bn, q.chunk, q.p.depth, q.pdl ? " pdl" : "",
                      q.p.hint == 1 ? " evict_first" : q.p.hint == 2 ? " evict_last" : "", q.p.units);
        if (q.p.cluster > 1) std::snprintf(name + std::strlen(name), sizeof name - std::strlen(name), " pairs");
        if (q.dual) std::snprintf(name + std::strlen(name), sizeof name - std::strlen(name), " dual");
        if (q.p.batch > 1) std::snprintf(name + std::strlen(name), sizeof name - std::strlen(name), " batch %d", q.p.batch);
        runs.push_back({name, [&q] { q.launch(); }});
      }
      const int nr = static_cast<int>(runs.size());
      const std::vector<double> med = probe::medians_rotated(runs, evict_l2);
      std::printf("M x N x K = %d x %d x %d\n", m, n, k);
      double best = 0;
      for (int i = 0; i < nr; ++i) {
        std::printf("  %-34s %8.2f us  cuBLAS/this %6.3f  read/this %6.3f", runs[i].first.c_str(), med[i], med[1] / med[i], med[0] / med[i]);
        if (i >= first_q) {
          std::printf("  err %.2e  %s", err[i - first_q], same[i - first_q] ? "same bits" : "BITS DIFFER");
          best = std::max(best, med[1] / med[i]);
        }
        std::printf("\n");
      }
      geo.push_back(best);
      for (void* f : frees) cudaFree(f);
      cudaFree(dx);
      cudaFree(dd);
      cudaFree(dref);
    }
    cudaFree(dw);
  }
  double g = 0;
  for (double v : geo) g += std::log(v);
  std::printf("geomean of the best chunk over the shapes: %.3f\n", std::exp(g / geo.size()));
  cublasDestroy(handle);
  return 0;
}
