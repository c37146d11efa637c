// tessera/layout/swizzle.hpp -- Swizzle<B,M,S>: an XOR permutation of offsets.
//
// Bit picture of an offset for Swizzle<B,M,S> with S > 0 (here B=3, M=3, S=3):
//
//     bit:  ... 11 10  9 | 8  7  6 | 5  4  3 | 2  1  0
//                        |  yyy    |  zzz    |  base (M bits, untouched)
//
// The B bits `yyy` starting at bit M+S are XORed into the B bits `zzz` starting at bit M:
//     Sw(x) = x ^ ((x & yyy_mask) >> S)
// With 16-byte units (M = 3 for 2-byte elements: 8 elements per unit) and 8 units per
// 128-byte row (B = 3), Swizzle<3,3,3> moves row r's unit u to unit u ^ (r mod 8): eight
// consecutive rows of one column land in eight different 16-byte bank groups.
// S < 0 swaps the roles (zzz above yyy, shift left).  Requires B >= 0, M >= 0, |S| >= B.
#pragma once

#include "layout.hpp"  // Layout, Int

namespace tessera {

struct Swizzle {
  int b = 0;  // number of bits in the mask
  int m = 0;  // number of least-significant bits kept constant
  int s = 0;  // distance to shift the mask (positive: right)

  TESSERA_HD constexpr void validate() const {
    TESSERA_REQUIRE(b >= 0 && m >= 0, "swizzle: B and M must be non-negative (B={}, M={})",
                    b, m);
    TESSERA_REQUIRE((s < 0 ? -s : s) >= b, "swizzle: |S| must be at least B (B={}, S={})",
                    b, s);
    TESSERA_REQUIRE(b + m + (s < 0 ? -s : s) <= 62, "swizzle: B+M+|S| must be at most 62 (got {})",
                    b + m + (s < 0 ? -s : s));
  }
  TESSERA_HD constexpr Int yyy_mask() const { return ((Int(1) << b) - 1) << (m + (s > 0 ? s : 0)); }
  TESSERA_HD constexpr Int zzz_mask() const { return ((Int(1) << b) - 1) << (m - (s < 0 ? s : 0)); }
  // Sw(x) = x ^ shift(x & yyy_mask, S); an involution: Sw(Sw(x)) == x.
  TESSERA_HD constexpr Int operator()(Int x) const {
    Int y = x & yyy_mask();
    return x ^ (s >= 0 ? (y >> s) : (y << -s));
  }
  TESSERA_HD friend constexpr bool operator==(const Swizzle& a, const Swizzle& c) {
    return a.b == c.b && a.m == c.m && a.s == c.s;
  }
};

// Sw o L: first the layout, then the swizzle of its index.
struct SwizzledLayout {
  Swizzle swizzle;
  Layout layout;
  TESSERA_HD constexpr Int operator()(Int i) const { return swizzle(layout(i)); }
  TESSERA_HD constexpr Int operator()(const IntTuple& c) const { return swizzle(layout(c)); }
  TESSERA_HD friend constexpr bool operator==(const SwizzledLayout& a, const SwizzledLayout& c) {
    return a.swizzle == c.swizzle && a.layout == c.layout;
  }
};

TESSERA_HD constexpr SwizzledLayout composition(const Swizzle& sw, const Layout& l) {
  sw.validate();
  return SwizzledLayout{sw, l};
}
TESSERA_HD constexpr Int size(const SwizzledLayout& l) { return size(l.layout); }

}  // namespace tessera
