// tessera/layout/divide_product.hpp -- tilers, logical/zipped/tiled/flat divide and product,
// blocked and raked products.
//
// A *tiler* is either one Layout (applied to the whole layout) or a by-mode list
// <T0,T1,...> whose element k applies to mode k (an integer n stands for n:1).
//
//     logical_divide(L, T)  = L o (T, complement(T, size(L)))       -> (tile, rest)
//     logical_product(A, B) = (A, complement(A, size(A)*cosize(B)) o B) -> (block, repeat)
//
//     zipped_divide((8,6):(1,8), <2,3>) = ((2,3),(4,2)):((1,8),(2,24))
//     blocked_product(2:1, 3:1)          = ((2,3)):((1,2))
#pragma once

#include "algebra.hpp"  // composition, complement, coalesce

namespace tessera {

// A by-mode tiler <T0,T1,...>.
// An integer element n is kept as such: composition reads it as n:1, divides and products
// as make_layout(n) (which is 1:0 for n = 1), exactly as CuTe treats an integer tiler.
struct Tiler {
  static constexpr int kMax = 8;
  int n = 0;
  Layout elem[kMax] = {};
  bool is_int[kMax] = {};

  TESSERA_HD constexpr void push(const Layout& l) {
    TESSERA_REQUIRE(n < kMax, "tiler: at most {} modes",
                    kMax);
    is_int[n] = false;
    elem[n++] = l;
  }
  TESSERA_HD constexpr void push(Int extent) {
    TESSERA_REQUIRE(n < kMax, "tiler: at most {} modes",
                    kMax);
    is_int[n] = true;
    elem[n++] = make_layout(IntTuple::leaf(extent));
  }
  TESSERA_HD friend constexpr bool operator==(const Tiler& a, const Tiler& b) {
    if (a.n != b.n) return false;
    for (int i = 0; i < a.n; ++i)
      if (a.elem[i] != b.elem[i] || a.is_int[i] != b.is_int[i]) return false;
    return true;
  }
};

// make_tiler(4, make_layout(...), 8).
template <class... Ts>
TESSERA_HD constexpr Tiler make_tiler(const Ts&... ts) {
  Tiler t;
  (t.push(ts), ...);
  return t;
}

// composition(L, <T0,...>): mode k of L composed with T_k; modes of L beyond the tiler are dropped.
TESSERA_HD constexpr Layout composition(const Layout& l, const Tiler& t) {
  TESSERA_REQUIRE(t.n <= rank(l), "composition: too many modes in tiler: {} modes for a layout of rank {}",
                  t.n, rank(l));
  Layout r{IntTuple::empty_tuple(), IntTuple::empty_tuple()};
  for (int i = 0; i < t.n; ++i) {
    Layout ti = t.is_int[i] ? make_layout(size(t.elem[i]), 1) : t.elem[i];
    Layout m = composition(mode(l, i), ti);
    r.shape.push_back(m.shape);
    r.stride.push_back(m.stride);
  }
  return r;
}

// ---------------------------------------------------------------------------------------
// logical_divide(L, T) = L o (T, complement(T, shape(coalesce(L)))): a rank-2 layout whose
// mode 0 is the tile T (in L's codomain) and mode 1 enumerates the tiles.  By-mode tilers
// divide mode k by T_k and keep the remaining modes.
// Requires: the compositions and complement are admissible (see algebra.hpp).
// ---------------------------------------------------------------------------------------
TESSERA_HD constexpr Layout logical_divide(const Layout& l, const Layout& t) {
  Layout c = complement(t, coalesce(l).shape);
  return detail::compose_parts(l, make_layout_of(t, c));
}

namespace detail {
template <class Op>
TESSERA_HD constexpr Layout by_mode(const Layout& l, const Tiler& t, Op op, const char* msg) {
  TESSERA_REQUIRE(t.n <= rank(l), msg,
                  t.n, rank(l));
  Layout r{IntTuple::empty_tuple(), IntTuple::empty_tuple()};
  for (int i = 0; i < rank(l); ++i) {
    Layout m = i < t.n ? op(mode(l, i), t.elem[i]) : mode(l, i);
    r.shape.push_back(m.shape);
    r.stride.push_back(m.stride);
  }
  return r;
}
struct LogicalDivideOp {
  TESSERA_HD constexpr Layout operator()(const Layout& a, const Layout& b) const { return logical_divide(a, b); }
};
}  // namespace detail

TESSERA_HD constexpr Layout logical_divide(const Layout& l, const Tiler& t) {
  return detail::by_mode(l, t, detail::LogicalDivideOp{},
                         "logical_divide: too many modes in tiler: {} modes for a layout of rank {}");
}

// ---------------------------------------------------------------------------------------
// logical_product(A, B) = (A, complement(A, size(A)*cosize(B)) o B): B's layout of copies
// of A.  By-mode tilers multiply mode k by T_k and keep the remaining modes.
// ---------------------------------------------------------------------------------------
TESSERA_HD constexpr Layout logical_product(const Layout& a, const Layout& b) {
  Layout c = complement(a, mul_checked(size(a), cosize(b)));
  return make_layout_of(a, detail::compose_parts(c, b));
}

namespace detail {
struct LogicalProductOp {
  TESSERA_HD constexpr Layout operator()(const Layout& a, const Layout& b) const { return logical_product(a, b); }
};

// zip2_by for a by-mode tiler: modes 0..n-1 of `x` are pairs (tile_k, rest_k); returns
// ((tile_0..tile_{n-1}), (rest_0..rest_{n-1}, x_n, ...)).
TESSERA_HD constexpr IntTuple zip2_by(const IntTuple& x, int n) {
  IntTuple first = IntTuple::empty_tuple(), second = IntTuple::empty_tuple();
  for (int i = 0; i < n; ++i) {
    IntTuple xi = x.get(i);
    TESSERA_REQUIRE(xi.is_tuple() && xi.rank() == 2, "tile_unzip: mode {} is not a rank-2 (tile, rest) mode",
                    i);
    first.push_back(xi.get(0));
    second.push_back(xi.get(1));
  }
  for (int i = n; i < x.rank(); ++i) second.push_back(x.get(i));
  return make_tuple(first, second);
}

// Splices the elements of mode `m` of a rank-2 layout into the top level when it has
// rank > 1 (CuTe's result(_, repeat<R>(_)) slicing).
TESSERA_HD constexpr void splice_mode(const Layout& from, Layout& into) {
  if (from.shape.is_leaf() || from.shape.rank() == 1) {
    into.shape.push_back(from.shape);
    into.stride.push_back(from.stride);
    return;
  }
  for (int i = 0; i < from.shape.rank(); ++i) {
    into.shape.push_back(from.shape.get(i));
    into.stride.push_back(from.stride.get(i));
  }
}
TESSERA_HD constexpr Layout unpack(const Layout& zipped, bool first, bool second) {
  Layout r{IntTuple::empty_tuple(), IntTuple::empty_tuple()};
  Layout m0 = mode(zipped, 0), m1 = mode(zipped, 1);
  if (first) {
    splice_mode(m0, r);
  } else {
    r.shape.push_back(m0.shape);
    r.stride.push_back(m0.stride);
  }
  if (second) {
    splice_mode(m1, r);
  } else {
    r.shape.push_back(m1.shape);
    r.stride.push_back(m1.stride);
  }
  return r;
}
}  // namespace detail

TESSERA_HD constexpr Layout logical_product(const Layout& a, const Tiler& t) {
  return detail::by_mode(a, t, detail::LogicalProductOp{},
                         "logical_product: too many modes in tiler: {} modes for a layout of rank {}");
}

// tile_unzip: gather the tile modes and the rest modes of a by-mode result into a rank-2
// layout ((tiles...),(rests..., untouched modes...)).
TESSERA_HD constexpr Layout tile_unzip(const Layout& l, const Tiler& t) {
  return Layout{detail::zip2_by(l.shape, t.n), detail::zip2_by(l.stride, t.n)};
}
TESSERA_HD constexpr Layout tile_unzip(const Layout& l, const Layout&) { return l; }

// zipped_divide: ((tile modes), (rest modes)); tiled_divide: ((tile modes), rest0, rest1, ...);
// flat_divide: (tile0, tile1, ..., rest0, rest1, ...).  Likewise for the products.
template <class T>
TESSERA_HD constexpr Layout zipped_divide(const Layout& l, const T& t) { return tile_unzip(logical_divide(l, t), t); }
template <class T>
TESSERA_HD constexpr Layout tiled_divide(const Layout& l, const T& t) {
  return detail::unpack(zipped_divide(l, t), false, true);
}
template <class T>
TESSERA_HD constexpr Layout flat_divide(const Layout& l, const T& t) {
  return detail::unpack(zipped_divide(l, t), true, true);
}
template <class T>
TESSERA_HD constexpr Layout zipped_product(const Layout& l, const T& t) {
  return tile_unzip(logical_product(l, t), t);
}
template <class T>
TESSERA_HD constexpr Layout tiled_product(const Layout& l, const T& t) {
  return detail::unpack(zipped_product(l, t), false, true);
}
template <class T>
TESSERA_HD constexpr Layout flat_product(const Layout& l, const T& t) {
  return detail::unpack(zipped_product(l, t), true, true);
}

// ---------------------------------------------------------------------------------------
// blocked_product(A, B): B's arrangement of whole A blocks, mode by mode:
//   result mode k = (A_k, B_k) -- A's elements vary fastest within a block.
// raked_product(A, B): the same elements interleaved: result mode k = (B_k, A_k).
// Both pad the lower-rank argument with 1:0 modes to the same rank.
// ---------------------------------------------------------------------------------------
namespace detail {
TESSERA_HD constexpr Layout append_to_rank(const Layout& l, int r) {
  if (rank(l) >= r) return l;
  Layout out = l.shape.is_leaf() ? Layout{make_tuple(l.shape), make_tuple(l.stride)} : l;
  while (rank(out) < r) {
    out.shape.push_back(IntTuple::leaf(1));
    out.stride.push_back(IntTuple::leaf(0));
  }
  return out;
}
// zip((a0,a1,..),(b0,b1,..)) = ((a0,b0),(a1,b1),..); for integers: ((a,b)).
// Requires equal ranks: zipping a shorter tuple would drop elements of the longer one.
TESSERA_HD constexpr IntTuple zip(const IntTuple& a, const IntTuple& b) {
  IntTuple r = IntTuple::empty_tuple();
  if (a.is_leaf()) {
    r.push_back(make_tuple(a, b));
    return r;
  }
  TESSERA_REQUIRE(a.rank() == b.rank(), "blocked/raked product: the block and the tiler's image have ranks {} and {}; they must match mode by mode (the result would lose elements)",
                  a.rank(), b.rank());
  for (int i = 0; i < a.rank(); ++i) r.push_back(make_tuple(a.get(i), b.get(i)));
  return r;
}
TESSERA_HD constexpr Layout rank_sensitive_product(const Layout& a, const Layout& b, bool raked) {
  int r = rank(a) > rank(b) ? rank(a) : rank(b);
  Layout p = logical_product(append_to_rank(a, r), append_to_rank(b, r));
  Layout p0 = mode(p, 0), p1 = mode(p, 1);
  if (raked) return Layout{zip(p1.shape, p0.shape), zip(p1.stride, p0.stride)};
  return Layout{zip(p0.shape, p1.shape), zip(p0.stride, p1.stride)};
}
}  // namespace detail

TESSERA_HD constexpr Layout blocked_product(const Layout& a, const Layout& b) {
  return detail::rank_sensitive_product(a, b, false);
}
TESSERA_HD constexpr Layout raked_product(const Layout& a, const Layout& b) {
  return detail::rank_sensitive_product(a, b, true);
}

}  // namespace tessera
