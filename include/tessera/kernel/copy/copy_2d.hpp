// include/tessera/kernel/copy/copy_2d.hpp -- the 2-D copy kernels (include from .cu files only).
//
// Every kernel copies an M x N matrix into a row-major destination, dst(m, n) at dst[m*ldd + n].  The
// host API (host/copy.hpp) normalises any problem to that form: a column-major destination is the
// row-major destination of the transposed view.  The source is then either row-major ("straight" copy,
// src(m, n) at src[m*lds + n]) or column-major ("transposing" copy, src(m, n) at src[m + n*lds]).
//
//   kernel                 path                                   problems
//   copy_scalar_kernel     global -> registers -> global          all; one element per atom
//   copy_vector_kernel     global -> registers -> global          straight; widest legal vector
//   copy_smem_kernel       global -cp.async-> shared -> registers -> global, kStages-deep prefetch;
//                          shared layout plain or swizzled        straight and transposing
//   copy_tma_kernel        global -TMA-> shared -TMA-> global     straight, sm_90
//
// Straight copies move bytes: T is uint8_t, N counts bytes, and the vector width only depends on the
// alignment of the two tensors (the host picks it with max_common_vector and the pointer alignment).
// Tiles are enumerated row-major over the destination; each CTA walks tiles blockIdx.x, +gridDim.x, ...
// so the grid can be sized to the machine (persistent) or to the tile count.
#pragma once

#include <cuda.h>  // CUtensorMap

#include <cstdint>  // uint8_t, uint32_t, uint64_t

#include "tessera/algorithm/copy.hpp"      // copy, Residue
#include "tessera/arch/sm80_cp_async.hpp"  // cp_async_commit, cp_async_wait
#include "tessera/arch/sm90_mbarrier.hpp"  // mbarrier_*
#include "tessera/arch/sm90_tma.hpp"       // tma_load_2d, tma_store_2d, bulk_*
#include "tessera/atom/tiled_copy.hpp"     // TiledCopy, views

namespace tessera::kernel {

// Log2 of a power of two, at compile time.
constexpr int log2_exact(int x) {
  int l = 0;
  while ((1 << l) < x) ++l;
  return l;
}

// The normalised problem (see the header comment).
template <class T>
struct Copy2dArgs {
  const T* src;
  Int lds;
  T* dst;
  Int ldd;
  Int m;
  Int n;
  Int tiles_n;    // tiles along n
  Int num_tiles;  // tiles_m * tiles_n
  Int chunk = 0;  // one-row problems: > 0 gives CTA b the columns [b*chunk, (b+1)*chunk) (balanced ranges)
};

// The tiles one CTA copies, in order k = 0, 1, ...:
//   interleaved (chunk == 0): tiles blockIdx.x + k*gridDim.x of the row-major tile grid;
//   balanced (one-row problems, chunk > 0): the CTA's column range [b*chunk, (b+1)*chunk) in tiles of
//   kTileN, the last one cut at the range end.  Equal ranges make every CTA finish at the same time,
//   where interleaved tiles leave a partial last wave (tiles % gridDim.x CTAs work one tile longer).
template <int kTileM, int kTileN, class T>
struct CtaTiles {
  Int count = 0;
  Int begin = 0, end = 0;  // balanced: the column range
  TESSERA_DEVICE_INLINE explicit CtaTiles(const Copy2dArgs<T>& p) {
    if (p.chunk > 0) {
      begin = blockIdx.x * p.chunk;
      end = begin + p.chunk < p.n ? begin + p.chunk : p.n;
      count = end > begin ? (end - begin + kTileN - 1) / kTileN : 0;
    } else {
      // 32-bit arithmetic: the host refuses problems of more than 2^31-1 tiles (persistent_grid).
      const uint32_t tiles = static_cast<uint32_t>(p.num_tiles);
      count = tiles > blockIdx.x ? (tiles - blockIdx.x + gridDim.x - 1) / gridDim.x : 0u;
    }
  }
  // Origin of the CTA's k-th tile and the valid extent from it.
  TESSERA_DEVICE_INLINE void tile(const Copy2dArgs<T>& p, Int k, Int& m0, Int& n0, Residue& residue) const {
    if (p.chunk > 0) {
      m0 = 0;
      n0 = begin + k * kTileN;
      residue = Residue{p.m, end - n0};
    } else {
      const uint32_t t = blockIdx.x + static_cast<uint32_t>(k) * gridDim.x;
      const uint32_t tiles_n = static_cast<uint32_t>(p.tiles_n);
      m0 = Int(t / tiles_n) * kTileM;
      n0 = Int(t % tiles_n) * kTileN;
      residue = Residue{p.m - m0, p.n - n0};
    }
  }
};

namespace detail {
// Row-major (kRows, kCols) thread layout: thread index t = m*kCols + n.
template <int kRows, int kCols>
constexpr Layout row_major_layout() {
  return make_layout_row_major(make_tuple(Int(kRows), Int(kCols)));
}
template <int kRows, int kCols>
constexpr Layout col_major_layout() {
  return make_layout(make_tuple(Int(kRows), Int(kCols)));
}
}  // namespace detail

// =====================================================================================================
// 1. One element per atom.  Thread layout (8,32) row-major, one value each; 4 repetitions along m:
//    a 32x32 tile.  The loads of a tile are issued before its stores (through a register fragment).
// =====================================================================================================
template <class T, bool kTransposed>
struct ScalarCopyConfig {
  static constexpr int kThreads = 256;
  static constexpr int kRepM = 4, kRepN = 1;
  using G2R = TiledCopy<UniversalCopy<8 * sizeof(T)>, T, detail::row_major_layout<8, 32>(),
                        detail::row_major_layout<1, 1>()>;
  using R2G = G2R;
  static constexpr int kTileM = kRepM * G2R::kTileM;  // 32
  static constexpr int kTileN = kRepN * G2R::kTileN;  // 32
};

template <class T, bool kTransposed>
__global__ void __launch_bounds__(256) copy_scalar_kernel(Copy2dArgs<T> p) {
  using Cfg = ScalarCopyConfig<T, kTransposed>;
  const ThrCopy thr = Cfg::G2R::get_slice(threadIdx.x);
  for (Int tile = blockIdx.x; tile < p.num_tiles; tile += gridDim.x) {
    const Int m0 = (tile / p.tiles_n) * Cfg::kTileM;
    const Int n0 = (tile % p.tiles_n) * Cfg::kTileN;
    const Residue residue{p.m - m0, p.n - n0};
    Fragment<T, Cfg::kRepM * Cfg::kRepN * Cfg::G2R::kValues> rD;  // the thread's values of the tile
    if constexpr (kTransposed) {
      auto tSgS = thr.partition_S(ColMajorView<const T>{p.src, p.lds}.tile(m0, n0));  // (TILE_M,TILE_N)
      copy<Cfg::kRepM, Cfg::kRepN>(typename Cfg::G2R{}, tSgS, rD, residue);
    } else {
      auto tSgS = thr.partition_S(RowMajorView<const T>{p.src, p.lds}.tile(m0, n0));  // (TILE_M,TILE_N)
      copy<Cfg::kRepM, Cfg::kRepN>(typename Cfg::G2R{}, tSgS, rD, residue);
    }
    auto tDgD = thr.partition_D(RowMajorView<T>{p.dst, p.ldd}.tile(m0, n0));  // (TILE_M,TILE_N)
    copy<Cfg::kRepM, Cfg::kRepN>(typename Cfg::R2G{}, rD, tDgD, residue);
  }
}

// =====================================================================================================
// 2. Vectorized straight copy of bytes.  kVec bytes per atom (16 = 128-bit), kUnroll repetitions per
//    tile (all loads of a tile are in flight before the first store).  kRows1: the tile is one row of
//    256*kVec*kUnroll bytes (for contiguous problems flattened to one row); otherwise 8 rows.
//    kHints: loads through ld.global.nc.L1::no_allocate, stores with st.global.cs.
// =====================================================================================================
template <int kVec, int kUnroll, bool kRows1, bool kHints>
struct VectorCopyConfig {
  static constexpr int kThreads = 256;
  static constexpr int kThrM = kRows1 ? 1 : 8;
  static constexpr Layout kThr = detail::row_major_layout<kThrM, kThreads / kThrM>();
  static constexpr Layout kVal = detail::row_major_layout<1, kVec>();
  using LoadOp = std::conditional_t<kHints && kVec >= 4, GlobalLoadStreaming<8 * kVec>, UniversalCopy<8 * kVec>>;
  using StoreOp = std::conditional_t<kHints && kVec >= 4, GlobalStoreStreaming<8 * kVec>, UniversalCopy<8 * kVec>>;
  using G2R = TiledCopy<LoadOp, uint8_t, kThr, kVal>;
  using R2G = TiledCopy<StoreOp, uint8_t, kThr, kVal>;
  using Edge = TiledCopy<UniversalCopy<8 * kVec>, uint8_t, kThr, kVal>;  // memory -> memory at the edges
  static constexpr int kRepM = kRows1 ? 1 : kUnroll;
  static constexpr int kRepN = kRows1 ? kUnroll : 1;
  static constexpr int kTileM = kRepM * G2R::kTileM;
  static constexpr int kTileN = kRepN * G2R::kTileN;
};

template <int kVec, int kUnroll, bool kRows1, bool kHints>
__global__ void __launch_bounds__(256) copy_vector_kernel(Copy2dArgs<uint8_t> p) {
  using Cfg = VectorCopyConfig<kVec, kUnroll, kRows1, kHints>;
  const ThrCopy thr = Cfg::G2R::get_slice(threadIdx.x);
  const CtaTiles<Cfg::kTileM, Cfg::kTileN, uint8_t> tiles(p);
  for (Int k = 0; k < tiles.count; ++k) {
    Int m0, n0;
    Residue residue;
    tiles.tile(p, k, m0, n0, residue);
    auto tSgS = thr.partition_S(RowMajorView<const uint8_t>{p.src, p.lds}.tile(m0, n0));  // (TILE_M,TILE_N)
    auto tDgD = thr.partition_D(RowMajorView<uint8_t>{p.dst, p.ldd}.tile(m0, n0));        // (TILE_M,TILE_N)
    if (residue.m >= Cfg::kTileM && residue.n >= Cfg::kTileN) {
      Fragment<uint8_t, Cfg::kRepM * Cfg::kRepN * Cfg::G2R::kValues> rD;
      copy<Cfg::kRepM, Cfg::kRepN>(typename Cfg::G2R{}, tSgS, rD, Residue{Cfg::kTileM, Cfg::kTileN});
      copy<Cfg::kRepM, Cfg::kRepN>(typename Cfg::R2G{}, rD, tDgD, Residue{Cfg::kTileM, Cfg::kTileN});
    } else {
      // Edge tile: memory to memory, whole vectors where they fit, a run-time loop of bytes elsewhere.
      // Going through a fragment here would unroll every byte of every vector into its own register
      // (178 registers for 16-byte vectors x 4 rows, 255 for x 8) and cap the occupancy of every tile.
      copy<Cfg::kRepM, Cfg::kRepN>(typename Cfg::Edge{}, tSgS, tDgD, residue);
    }
  }
}

// =====================================================================================================
// 3. Through shared memory with cp.async, kStages-deep: while tile i is read out of shared memory and
//    stored, tiles i+1 .. i+kStages-1 are in flight.  The shared layout is compile-time, plain or
//    swizzled (kSwizzle); the global -> shared atom is cp.async of kVec bytes (zero-fill at the edges).
//
//    Straight (T = uint8_t, bytes): tile (kTileM, kTileN) row-major in shared memory, every phase reads
//      and writes rows with kVec-byte vectors.
//    Transposing (T = element type): the tile is (kTileM, kTileN) = (128/sizeof(T), 64) in destination
//      coordinates, stored column-major in shared memory (each column is 128 bytes, contiguous along m
//      like the source).  The read-out walks rows (n), the destination's contiguous direction: lanes
//      are arranged (16/sizeof(T) along m) x (rest along n), each lane holding a word of W consecutive
//      n: 8 bytes for 1- and 2-byte types, one value for 4- and 8-byte types.  Unswizzled, the lanes of
//      a warp hit few banks (column stride 128 B = 32 banks); Swizzle<3, log2(16/sizeof(T)), 3+log2(W)>
//      XORs the 16-byte chunk index inside a column with (column / W) mod 8 and removes the conflicts.
//      docs/COPY.md has the predicted and measured bank conflicts.
// =====================================================================================================
template <class T, bool kTransposed, int kVec, bool kRows1>
struct SmemCopyConfig;

// Straight: bytes, kVec-byte vectors, thread layout (8,32) or (1,256), 4 repetitions.
template <int kVec, bool kRows1>
struct SmemCopyConfig<uint8_t, false, kVec, kRows1> {
  static constexpr int kThreads = 256;
  static constexpr int kThrM = kRows1 ? 1 : 8;
  static constexpr Layout kThr = detail::row_major_layout<kThrM, kThreads / kThrM>();
  static constexpr Layout kVal = detail::row_major_layout<1, kVec>();
  using G2S = TiledCopy<std::conditional_t<kVec == 16, Sm80CpAsyncCg16, Sm80CpAsyncCa<8 * kVec>>, uint8_t, kThr, kVal>;
  using S2R = TiledCopy<UniversalCopy<8 * kVec>, uint8_t, kThr, kVal>;
  using R2G = S2R;
  static constexpr int kRepM = kRows1 ? 1 : 4;
  static constexpr int kRepN = kRows1 ? 4 : 1;
  static constexpr int kTileM = kRepM * G2S::kTileM;
  static constexpr int kTileN = kRepN * G2S::kTileN;
  static constexpr int kReadRepM = kRepM, kReadRepN = kRepN;
  static constexpr Layout kSmem = detail::row_major_layout<kTileM, kTileN>();  // (TILE_M,TILE_N) row-major
  // 16-byte (kVec-byte) chunks keep their bytes; the chunk index (3 bits) is XORed with the bits above it.
  // (A one-row tile has no row bits: there the chunk index is XORed with the next chunk bits.)
  static constexpr Swizzle kSwizzle{3, log2_exact(kVec), kRows1 ? 3 : log2_exact(kTileN) - log2_exact(kVec)};
  static constexpr int kTileBytes = kTileM * kTileN;
};

// Transposing: element type T, source column-major.
template <class T, int kVec>
struct SmemCopyConfig<T, true, kVec, false> {
  static constexpr int kThreads = 256;
  static constexpr int kE = sizeof(T);
  static constexpr int kTileM = 128 / kE;  // one 128-byte column per tile column
  static constexpr int kTileN = 64;
  // global -> shared: kVec-byte vectors along m (the source's contiguous direction).
  static constexpr int kG2sThrM = 128 / kVec;
  static constexpr Layout kG2sThr = detail::col_major_layout<kG2sThrM, kThreads / kG2sThrM>();
  static constexpr Layout kG2sVal = detail::col_major_layout<kVec / kE, 1>();
  using G2S = TiledCopy<std::conditional_t<kVec == 16, Sm80CpAsyncCg16, Sm80CpAsyncCa<8 * kVec>>, T, kG2sThr, kG2sVal>;
  static constexpr int kRepM = 1;
  static constexpr int kRepN = kTileN / G2S::kTileN;
  // shared -> registers -> global: lanes (kLaneM along m) x (kLaneN along n), 8 warps along m;
  // each lane holds kWord consecutive values along n: 8 bytes for 1- and 2-byte elements, so that a
  // warp's store covers 32 bytes of each of its rows (whole sectors; 2-byte elements with 4-byte words
  // wrote half sectors and ran at 57-61% of cudaMemcpy).
  static constexpr int kLaneM = 16 / kE;
  static constexpr int kLaneN = 32 / kLaneM;
  static constexpr int kWord = kE < 4 ? 8 / kE : 1;
  static constexpr Layout kReadThr = make_layout(make_tuple(make_tuple(Int(kLaneM), Int(8)), Int(kLaneN)),
                                                 make_tuple(make_tuple(Int(1), Int(32)), Int(kLaneM)));
  static constexpr Layout kReadVal = detail::row_major_layout<1, kWord>();
  using S2R = TiledCopy<UniversalCopy<8 * kE>, T, kReadThr, kReadVal>;
  using R2G = TiledCopy<UniversalCopy<8 * kE * kWord>, T, kReadThr, kReadVal>;
  using R2GElem = TiledCopy<UniversalCopy<8 * kE>, T, kReadThr, kReadVal>;  // destination not word-aligned
  static constexpr int kReadRepM = kTileM / S2R::kTileM;
  static constexpr int kReadRepN = kTileN / S2R::kTileN;
  static_assert(kReadRepM * S2R::kTileM == kTileM && kReadRepN * S2R::kTileN == kTileN,
                "SmemCopyConfig: the read-out tiled copy must tile the shared tile exactly");
  static constexpr Layout kSmem = detail::col_major_layout<kTileM, kTileN>();  // (TILE_M,TILE_N) column-major
  // The 16-byte chunk index inside a column is XORed with (column / kWord) mod 8: the kLaneN lanes of
  // one read-out instruction sit kWord columns apart, so they land in distinct chunks (conflict-free).
  static constexpr Swizzle kSwizzle{3, log2_exact(16 / kE), 3 + log2_exact(kWord)};
  static constexpr int kTileBytes = kTileM * kTileN * kE;
};

template <class Cfg, class T, bool kSwizzled>
TESSERA_HD_INLINE auto make_smem_view(T* ptr) {
  if constexpr (kSwizzled) {
    return SwizzledView<T, SwizzledLayout{Cfg::kSwizzle, Cfg::kSmem}>{ptr};
  } else {
    return StaticView<T, Cfg::kSmem>{ptr};
  }
}

template <class T, bool kTransposed, int kVec, bool kRows1, bool kSwizzled, int kStages, bool kWordStores>
__global__ void __launch_bounds__(256) copy_smem_kernel(Copy2dArgs<T> p) {
  using Cfg = SmemCopyConfig<T, kTransposed, kVec, kRows1>;
  static_assert(kStages >= 2 && kStages <= 4, "copy_smem_kernel: kStages must be 2..4");
  extern __shared__ __align__(128) uint8_t smem_raw[];
  T* smem = reinterpret_cast<T*>(smem_raw);  // kStages x (TILE_M,TILE_N)
  constexpr int kStageElems = Cfg::kTileBytes / sizeof(T);

  const ThrCopy g2s = Cfg::G2S::get_slice(threadIdx.x);
  const ThrCopy s2r = Cfg::S2R::get_slice(threadIdx.x);

  const CtaTiles<Cfg::kTileM, Cfg::kTileN, T> tiles(p);
  // Issues the cp.async of the CTA's k-th tile into `stage` (always commits a group, possibly empty,
  // so that the group count stays in step with the tile count).
  auto load_tile = [&](Int k, int stage) {
    if (k < tiles.count) {
      Int m0, n0;
      Residue residue;
      tiles.tile(p, k, m0, n0, residue);
      auto sS = make_smem_view<Cfg, T, kSwizzled>(smem + stage * kStageElems);  // (TILE_M,TILE_N)
      if constexpr (kTransposed) {
        auto tSgS = g2s.partition_S(ColMajorView<const T>{p.src, p.lds}.tile(m0, n0));  // (TILE_M,TILE_N)
        copy<Cfg::kRepM, Cfg::kRepN>(typename Cfg::G2S{}, tSgS, g2s.partition_D(sS), residue);
      } else {
        auto tSgS = g2s.partition_S(RowMajorView<const T>{p.src, p.lds}.tile(m0, n0));  // (TILE_M,TILE_N)
        copy<Cfg::kRepM, Cfg::kRepN>(typename Cfg::G2S{}, tSgS, g2s.partition_D(sS), residue);
      }
    }
    arch::cp_async_commit();
  };

  // Prologue: kStages-1 tiles in flight.
  for (int s = 0; s < kStages - 1; ++s) load_tile(s, s);

  for (Int k = 0; k < tiles.count; ++k) {
    const int stage = static_cast<int>(k % kStages);
    // Refill the stage freed at the end of the previous iteration.
    load_tile(k + kStages - 1, static_cast<int>((k + kStages - 1) % kStages));
    arch::cp_async_wait<kStages - 1>();  // tile k has landed (for this thread) ...
    __syncthreads();                     // ... and for every thread

    Int m0, n0;
    Residue residue;
    tiles.tile(p, k, m0, n0, residue);
    auto sS = make_smem_view<Cfg, T, kSwizzled>(smem + stage * kStageElems);  // (TILE_M,TILE_N)
    Fragment<T, Cfg::kReadRepM * Cfg::kReadRepN * Cfg::S2R::kValues> rD;
    copy<Cfg::kReadRepM, Cfg::kReadRepN>(typename Cfg::S2R{}, s2r.partition_S(sS), rD, Residue{Cfg::kTileM, Cfg::kTileN});
    auto tDgD = s2r.partition_D(RowMajorView<T>{p.dst, p.ldd}.tile(m0, n0));  // (TILE_M,TILE_N)
    if constexpr (kTransposed && !kWordStores) {
      copy<Cfg::kReadRepM, Cfg::kReadRepN>(typename Cfg::R2GElem{}, rD, tDgD, residue);
    } else {
      copy<Cfg::kReadRepM, Cfg::kReadRepN>(typename Cfg::R2G{}, rD, tDgD, residue);
    }
    __syncthreads();  // everyone has read `stage` before it is refilled
  }
  arch::cp_async_wait_all();  // no copy may be outstanding when the CTA exits
}

// =====================================================================================================
// 4. TMA (sm_90): one thread drives the copy engine.  kStages shared buffers of one box each; box i is
//    loaded (completion on barrier i % kStages), then stored from the same buffer; a buffer is reloaded
//    once the store issued one iteration earlier has finished reading it (bulk wait_group.read 1).
//    Out-of-bounds parts of a box are zero-filled on load and clipped on store, so any extents work.
// =====================================================================================================
template <int kStages>
__global__ void __launch_bounds__(32) copy_tma_kernel(const __grid_constant__ CUtensorMap src_map,
                                                      const __grid_constant__ CUtensorMap dst_map, int box_rows,
                                                      int box_cols, uint32_t box_bytes, Int tiles_n, Int num_tiles) {
  static_assert(kStages >= 2 && kStages <= 4, "copy_tma_kernel: kStages must be 2..4 (a buffer is refilled one "
                                              "iteration after its store)");
#if defined(TESSERA_ARCH_SM90)
  extern __shared__ __align__(128) uint8_t smem_raw[];
  if (threadIdx.x != 0) return;
  // Layout of shared memory: kStages boxes (each 128-byte aligned), then kStages barriers.
  const uint32_t stride = (box_bytes + 127u) & ~127u;
  uint64_t* bar = reinterpret_cast<uint64_t*>(smem_raw + kStages * stride);
  for (int s = 0; s < kStages; ++s) arch::mbarrier_init(&bar[s], 1);
  arch::fence_mbarrier_init();
  arch::tma_prefetch_desc(&src_map);
  arch::tma_prefetch_desc(&dst_map);

  const Int mine = num_tiles > blockIdx.x ? (num_tiles - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
  auto coords = [&](Int i, int32_t& c0, int32_t& c1) {
    const Int tile = blockIdx.x + i * gridDim.x;
    c1 = static_cast<int32_t>((tile / tiles_n) * box_rows);
    c0 = static_cast<int32_t>((tile % tiles_n) * box_cols);
  };
  auto load = [&](Int i) {
    const int s = static_cast<int>(i % kStages);
    int32_t c0, c1;
    coords(i, c0, c1);
    arch::mbarrier_arrive_expect_tx(&bar[s], box_bytes);
    arch::tma_load_2d(smem_raw + s * stride, &src_map, &bar[s], c0, c1);
  };

  for (Int i = 0; i < kStages && i < mine; ++i) load(i);
  for (Int i = 0; i < mine; ++i) {
    const int s = static_cast<int>(i % kStages);
    arch::mbarrier_wait_parity(&bar[s], static_cast<uint32_t>((i / kStages) & 1));
    int32_t c0, c1;
    coords(i, c0, c1);
    arch::tma_store_2d(&dst_map, smem_raw + s * stride, c0, c1);
    arch::bulk_commit();
    if (i >= 1 && i - 1 + kStages < mine) {
      arch::bulk_wait_read<1>();  // the store of box i-1 has read its buffer
      load(i - 1 + kStages);
    }
  }
  arch::bulk_wait<0>();  // all stores complete before the CTA (and its shared memory) goes away
#else
  (void)src_map; (void)dst_map; (void)box_rows; (void)box_cols; (void)box_bytes; (void)tiles_n; (void)num_tiles;
  __trap();  // the host API only launches this kernel on sm_90 devices
#endif
}

}  // namespace tessera::kernel
