// include/tessera/kernel/gemm_sm80/smem_layout.hpp -- the swizzled shared-memory layouts of the GEMM's
// operand tiles, as index functions for the kernel and as tessera layouts for the analysers and tests.
//
// Both layouts are built from 128-byte rows of 16-byte units (8 units per row).  The unit index is
// XORed with the row index mod 8 (Swizzle<3,M,3> in element offsets, M = log2(elements per unit)):
//
//   unit:     0  1  2  3  4  5  6  7            physical unit = unit ^ (row % 8)
//   row 0:    0  1  2  3  4  5  6  7
//   row 1:    1  0  3  2  5  4  7  6
//   row 2:    2  3  0  1  6  7  4  5
//   ...
// so the 8 rows that one ldmatrix phase (8 lanes x 16 bytes) or one cp.async phase reads or writes at
// the same logical unit land in 8 different 16-byte bank groups: no bank conflicts.
//
// K-major tile (an operand whose K index is contiguous in global memory, e.g. row-major A):
//   (ROWS, BLK_K) with BLK_K = 128 bytes; element (r, k) at Sw(r * BLK_K + k)
//   layout  Sw<3,M,3> o (ROWS, BLK_K):(BLK_K, 1)
// MN-major tile (M or N contiguous, e.g. row-major B): BLK_K rows of the contiguous dimension X, cut into
// atoms of 128 bytes along X, each atom a (BLK_K, W) block with W = 128 bytes of elements:
//   element (k, x) at (x / W) * BLK_K * W + Sw(k * W + x % W)
//   layout  Sw<3,M,3> o ((W, X/W), BLK_K):((1, BLK_K*W), W)   (coordinate (x, k))
#pragma once

#include "tessera/layout/layout.hpp"   // Layout, make_layout, make_tuple
#include "tessera/layout/swizzle.hpp"  // Swizzle, SwizzledLayout, composition

namespace tessera::gemm_sm80 {

// log2 of a power of two (compile time).
constexpr int log2_exact(int x) { return x <= 1 ? 0 : 1 + log2_exact(x / 2); }

template <int kRows, int kElemBytes>
struct SmemKMajor {
  static constexpr int kUnit = 16 / kElemBytes;   // elements per 16-byte unit
  static constexpr int kRowElems = 128 / kElemBytes;  // BLK_K
  static constexpr int kElems = kRows * kRowElems;
  static_assert(kRows % 8 == 0, "SmemKMajor: the tile needs a multiple of 8 rows (one swizzle period)");

  // Element offset of unit `unit` (0..7) of row r.
  TESSERA_HD static constexpr int unit_offset(int r, int unit) { return r * kRowElems + ((unit ^ (r & 7)) * kUnit); }
  // Element offset of (r, k).
  TESSERA_HD static constexpr int offset(int r, int k) { return unit_offset(r, k / kUnit) + k % kUnit; }

  static constexpr SwizzledLayout layout() {
    return composition(Swizzle{3, log2_exact(kUnit), 3},
                       make_layout(make_tuple(kRows, kRowElems), make_tuple(kRowElems, 1)));
  }
};

template <int kX, int kElemBytes>
struct SmemMNMajor {
  static constexpr int kUnit = 16 / kElemBytes;
  static constexpr int kBlockK = 128 / kElemBytes;  // rows (K) of the tile
  static constexpr int kAtomX = 128 / kElemBytes;   // elements of X per atom row
  static constexpr int kAtoms = kX / kAtomX;
  static constexpr int kElems = kX * kBlockK;
  static_assert(kX % kAtomX == 0, "SmemMNMajor: the tile's M/N extent must be a multiple of 128 bytes of elements");

  // Element offset of unit `unit` (counted along X from 0) of row k.
  TESSERA_HD static constexpr int unit_offset(int k, int unit) {
    return (unit / 8) * (kBlockK * kAtomX) + k * kAtomX + (((unit & 7) ^ (k & 7)) * kUnit);
  }
  // Element offset of (k, x).
  TESSERA_HD static constexpr int offset(int k, int x) { return unit_offset(k, x / kUnit) + x % kUnit; }

  // Coordinate (x, k).
  static constexpr SwizzledLayout layout() {
    return composition(Swizzle{3, log2_exact(kUnit), 3},
                       make_layout(make_tuple(make_tuple(kAtomX, kAtoms), kBlockK),
                                   make_tuple(make_tuple(1, kBlockK * kAtomX), kAtomX)));
  }
};

}  // namespace tessera::gemm_sm80
