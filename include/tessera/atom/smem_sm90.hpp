// include/tessera/atom/smem_sm90.hpp -- the Hopper operand tile in shared memory as a layout: one
// Swizzle o Layout from which the TMA box, the TMA swizzle mode and the wgmma descriptor's fields are
// derived, so that the three cannot disagree.
//
// A 128-byte-swizzled tile of `rows` rows of 128 bytes (64 two-byte elements), in element offsets:
//
//     Sw<3,3,3> o (rows, 64):(64, 1)
//
//   mode 0: rows (the M or N extent of a K-major operand; the K extent of an MN-major box), stride 64
//   mode 1: the 64 contiguous elements of a row (K of a K-major operand; M or N of an MN-major box)
//   swizzle: 16-byte units (M = 3: 8 two-byte elements) of a row XORed with the row mod 8 (B = 3, S = 3)
//
// What the hardware expects of the same bytes (TMA CU_TENSOR_MAP_SWIZZLE_128B writing, wgmma's 128-byte
// swizzle reading; the tile 1024-byte aligned): byte address a of the unswizzled tile is stored at
// a ^ (((a >> 7) & 7) << 4).  `matches_hw_sw128` checks the layout against that formula on every element;
// the kernels static_assert it.  Derived:
//   tma_box()            {inner = extent of mode 1 (64 elements = 128 bytes = the swizzle span), outer = rows}
//   tma_swizzle_bytes()  2^B units of 2^M elements: 128
//   wgmma_sbo_bytes()    the stride-dimension byte offset: 8 rows (one swizzle period) x 128 bytes = 1024
//   wgmma_desc_fields()  the descriptor's offsets and swizzle mode, from the two above (arch::smem_desc adds the
//                        tile's address); wgmma_k_offset_bytes() the start of each 16-element K step;
//                        wgmma_operand() both, for a kernel's stage
#pragma once

#include <cstdint>  // uint32_t, uint64_t

#include "tessera/layout/algebra.hpp"  // size, mode, shape/stride access
#include "tessera/layout/swizzle.hpp"  // Swizzle, SwizzledLayout, composition

namespace tessera::atom {

struct SmemTileSm90 {
  SwizzledLayout tile;  // element offsets
  int elem_bytes = 2;

  TESSERA_HD constexpr Int rows() const { return size(mode(tile.layout, 0)); }
  TESSERA_HD constexpr Int row_elems() const { return size(mode(tile.layout, 1)); }
  TESSERA_HD constexpr Int row_stride_elems() const { return mode(tile.layout, 0)(1); }
  TESSERA_HD constexpr Int bytes() const { return size(tile.layout) * elem_bytes; }
  // The byte offset of element (r, c): the layout, then the swizzle.
  TESSERA_HD constexpr Int offset_bytes(Int r, Int c) const { return tile.swizzle(tile.layout(make_tuple(r, c))) * elem_bytes; }

  struct Box {
    uint32_t inner = 0, outer = 0;
  };
  TESSERA_HD constexpr Box tma_box() const { return Box{static_cast<uint32_t>(row_elems()), static_cast<uint32_t>(rows())}; }
  TESSERA_HD constexpr int tma_swizzle_bytes() const {
    return (1 << tile.swizzle.b) * (1 << tile.swizzle.m) * elem_bytes;
  }
  TESSERA_HD constexpr int wgmma_sbo_bytes() const {
    return static_cast<int>((Int(1) << tile.swizzle.b) * row_stride_elems() * elem_bytes);
  }
  // The fields of the wgmma shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format") that the layout
  // decides, for the 128-byte swizzled tiles (matches_hw_sw128, which the kernels static_assert; wgmma_sbo_bytes
  // counts one swizzle period of 2^B rows, which is the 8-row group only for B = 3): bits 16-29 the
  // leading-dimension byte offset / 16, bits 32-45 the stride-dimension byte offset / 16 (wgmma_sbo_bytes), bits
  // 62-63 the swizzle mode (1: 128 bytes; 0, no descriptor, for any other tile).  The start address (bits 0-13) is
  // the place of the tile in shared memory: arch::smem_desc adds it.  K-major operands (the K extent along mode 1):
  // the leading offset is unused with a swizzle, 16 bytes by convention.  MN-major ones (64-element boxes along M or
  // N, the K extent along mode 0): `next_box_bytes` apart along M or N.
  TESSERA_HD constexpr uint64_t wgmma_desc_fields(bool k_major, uint32_t next_box_bytes = 0) const {
    if (tma_swizzle_bytes() != 128 || wgmma_sbo_bytes() != 1024) return 0;
    const uint64_t lbo = k_major ? 16u : next_box_bytes;
    return (((lbo >> 4) & 0x3FFFu) << 16) | (static_cast<uint64_t>(wgmma_sbo_bytes() >> 4) << 32) | (uint64_t{1} << 62);
  }
  // The byte offset of the wgmma instruction reading K elements k .. k + 15 of the tile, from the tile's start: the
  // unswizzled layout's offset (the hardware applies the swizzle to the final address), along mode 1 for a K-major
  // operand (32 bytes per 16 two-byte elements), along mode 0 for an MN-major one (16 rows of 128 bytes).
  TESSERA_HD constexpr int wgmma_k_offset_bytes(bool k_major, Int k) const {
    return static_cast<int>((k_major ? tile.layout(make_tuple(Int(0), k)) : tile.layout(make_tuple(k, Int(0)))) * elem_bytes);
  }
  // What a kernel's wgmma loop needs of an operand tile: the descriptor's fields and the byte step between its
  // 16-element K steps over a stage of `k_extent` K elements, checked evenly spaced.  {0, 0} where the tile gives
  // no descriptor or the steps are not evenly spaced: the kernels static_assert against that.
  struct WgmmaOperand {
    uint64_t desc = 0;
    int k_step = 0;
  };
  // `k_atom`: the K elements of one instruction (16 for 16-bit operands, 32 for FP8: 32 bytes of a K-major row either
  // way).
  TESSERA_HD constexpr WgmmaOperand wgmma_operand(bool k_major, uint32_t next_box_bytes, Int k_extent, Int k_atom = 16) const {
    const int step = wgmma_k_offset_bytes(k_major, k_atom);
    for (Int k = 0; k < k_extent; k += k_atom)
      if (wgmma_k_offset_bytes(k_major, k) != static_cast<int>(k / k_atom) * step) return {};
    return {wgmma_desc_fields(k_major, next_box_bytes), step};
  }

  // The layout places every element where the 128-byte hardware swizzle puts it.  Checked element by element
  // on one swizzle period (8 rows = 1024 bytes); the other rows are that period shifted by multiples of
  // 1024 bytes, which neither swizzle touches (both XOR masks lie below the period), so one period decides.
  constexpr bool matches_hw_sw128() const {
    if (row_elems() * elem_bytes != 128 || row_stride_elems() != row_elems() || rows() % 8 != 0) return false;
    const Int period = 1024 / elem_bytes;  // elements in 8 rows
    if (tile.swizzle.yyy_mask() >= period || tile.swizzle.zzz_mask() >= period) return false;
    for (Int r = 0; r < 8; ++r)
      for (Int c = 0; c < row_elems(); ++c) {
        const Int a = (r * row_elems() + c) * elem_bytes;  // unswizzled byte address
        const Int hw = a ^ (((a >> 7) & 7) << 4);
        if (tile.swizzle(r * row_stride_elems() + c) * elem_bytes != hw) return false;
      }
    return tile.layout(make_tuple(rows() - 1, row_elems() - 1)) == rows() * row_elems() - 1;  // compact rows
  }
};

// The 128-byte-swizzled tile of `rows` rows of 128 bytes for elements of `elem_bytes` (1, 2 or 4) bytes.
TESSERA_HD constexpr SmemTileSm90 sw128_tile(Int rows, int elem_bytes) {
  const Int per_row = 128 / elem_bytes;
  const int unit_log2 = elem_bytes == 1 ? 4 : elem_bytes == 2 ? 3 : 2;  // 16-byte units
  return SmemTileSm90{composition(Swizzle{3, unit_log2, 3}, make_layout(make_tuple(rows, per_row), make_tuple(per_row, 1))),
                      elem_bytes};
}

}  // namespace tessera::atom
