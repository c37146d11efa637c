// tessera/layout/layout.hpp -- Layout = Shape:Stride, a function from coordinates to indices.
//
// A layout maps a coordinate in its shape to an index by the inner product with its
// stride.  Shape and stride have the same nesting (they are *congruent*).
//
//     (4,8):(1,4)     column-major 4x8        L(i,j) = i + 4j
//     (4,8):(8,1)     row-major 4x8           L(i,j) = 8i + j
//     ((2,2),8):((1,16),2)                    a mode can itself be hierarchical
//
// Coordinates: a layout accepts a 1-D index i in [0, size), a coordinate with the top
// rank of the shape, or the full hierarchical ("natural") coordinate.  The 1-D index is
// read column-major (mode 0 fastest); within a mode the same rule applies recursively.
// Evaluating beyond size is defined as CuTe does: the last mode absorbs the excess.
#pragma once

#include "int_tuple.hpp"  // IntTuple, product, leaves

namespace tessera {

struct Layout {
  IntTuple shape = IntTuple::leaf(1);
  IntTuple stride = IntTuple::leaf(0);

  TESSERA_HD friend constexpr bool operator==(const Layout& a, const Layout& b) {
    return a.shape == b.shape && a.stride == b.stride;
  }
  TESSERA_HD friend constexpr bool operator!=(const Layout& a, const Layout& b) { return !(a == b); }

  // L(i): the index of the 1-D coordinate i.
  TESSERA_HD constexpr Int operator()(Int i) const;
  // L(c): the index of coordinate c (an integer, a top-level or a natural coordinate).
  TESSERA_HD constexpr Int operator()(const IntTuple& c) const;
};

// Column-major compact strides for `shape`, starting at `start`: (4,(2,3)) -> (1,(4,8)).
// A size-1 mode gets stride 0 (its stride never matters, and 0 marks it as such).
TESSERA_HD constexpr IntTuple compact_col_major(const IntTuple& shape, Int start = 1) {
  IntTuple d = shape;
  Int cur = start;
  for (int k = 0; k < d.nodes; ++k)
    if (d.arity[k] < 0) {
      Int s = d.val[k];
      d.val[k] = s == 1 ? 0 : cur;
      cur = mul_checked(cur, s);
    }
  return d;
}
// Row-major compact strides: the last leaf varies fastest.  (4,8) -> (8,1).
TESSERA_HD constexpr IntTuple compact_row_major(const IntTuple& shape, Int start = 1) {
  IntTuple d = shape;
  Int cur = start;
  for (int k = d.nodes - 1; k >= 0; --k)
    if (d.arity[k] < 0) {
      Int s = d.val[k];
      d.val[k] = s == 1 ? 0 : cur;
      cur = mul_checked(cur, s);
    }
  return d;
}

// Shape and stride must be congruent.
TESSERA_HD constexpr Layout make_layout(const IntTuple& shape, const IntTuple& stride) {
  TESSERA_REQUIRE(congruent(shape, stride), "layout: shape and stride must have the same nesting");
  return Layout{shape, stride};
}
// A shape alone means the compact column-major layout.
TESSERA_HD constexpr Layout make_layout(const IntTuple& shape) { return Layout{shape, compact_col_major(shape)}; }
TESSERA_HD constexpr Layout make_layout(Int s, Int d) { return Layout{IntTuple::leaf(s), IntTuple::leaf(d)}; }
TESSERA_HD constexpr Layout make_layout_row_major(const IntTuple& shape) {
  return Layout{shape, compact_row_major(shape)};
}

// Concatenation of layouts into one of higher rank: make_layout_of(A, B) = (A,B).
template <class... Ls>
TESSERA_HD constexpr Layout make_layout_of(const Ls&... ls) {
  Layout r{IntTuple::empty_tuple(), IntTuple::empty_tuple()};
  (r.shape.push_back(ls.shape), ...);
  (r.stride.push_back(ls.stride), ...);
  return r;
}

// ---- restructuring (the function on a 1-D coordinate is unchanged by flatten and group) ----

// flatten(L): all leaves as top-level modes.  ((2,2),8):((1,16),2) -> (2,2,8):(1,16,2)
TESSERA_HD constexpr Layout flatten(const Layout& l) { return Layout{flatten(l.shape), flatten(l.stride)}; }
// append(L, M): M as a new last mode (an integer layout L first becomes the 1-tuple (L)).
TESSERA_HD constexpr Layout append(const Layout& l, const Layout& m) {
  return Layout{append(l.shape, m.shape), append(l.stride, m.stride)};
}
// prepend(L, M): M as a new first mode.
TESSERA_HD constexpr Layout prepend(const Layout& l, const Layout& m) {
  return Layout{prepend(l.shape, m.shape), prepend(l.stride, m.stride)};
}
// group(L, b, e): modes [b, e) gathered into one mode.  group((2,3,4):(1,2,6), 1, 3) = (2,(3,4)):(1,(2,6))
TESSERA_HD constexpr Layout group(const Layout& l, int b, int e) {
  TESSERA_REQUIRE(l.shape.is_tuple() && 0 <= b && b < e && e <= l.shape.rank(), "group: modes [{}, {}) are not a non-empty range of a layout of rank {}",
                  b, e, l.shape.rank());
  Layout r{IntTuple::empty_tuple(), IntTuple::empty_tuple()};
  IntTuple gs = IntTuple::empty_tuple(), gd = IntTuple::empty_tuple();
  for (int i = 0; i < l.shape.rank(); ++i) {
    if (i >= b && i < e) {
      gs.push_back(l.shape.get(i));
      gd.push_back(l.stride.get(i));
      if (i == e - 1) {
        r.shape.push_back(gs);
        r.stride.push_back(gd);
      }
    } else {
      r.shape.push_back(l.shape.get(i));
      r.stride.push_back(l.stride.get(i));
    }
  }
  return r;
}

// ---- properties ----
TESSERA_HD constexpr Int size(const Layout& l) { return product(l.shape); }
TESSERA_HD constexpr int rank(const Layout& l) { return l.shape.rank(); }
TESSERA_HD constexpr int depth(const Layout& l) { return depth(l.shape); }
// Mode i as a layout; for a rank-1 integer layout, mode 0 is the layout itself.
TESSERA_HD constexpr Layout mode(const Layout& l, int i) { return Layout{l.shape.get(i), l.stride.get(i)}; }

// cosize = 1 + sum (s_k - 1)|d_k|: the extent of the codomain (for non-negative strides,
// one past the largest index).
TESSERA_HD constexpr Int cosize(const Layout& l) {
  Int c = 1;
  for (int k = 0; k < l.shape.nodes; ++k)
    if (l.shape.arity[k] < 0) c += mul_checked(l.shape.val[k] - 1, abs_int(l.stride.val[k]));
  return c;
}

// ---- coordinates ----

// Index of a 1-D coordinate i within (shape, stride): modes are consumed column-major, the
// last mode takes the remainder (so indices past the size extend the last mode).
TESSERA_HD constexpr Int crd2idx(Int i, const IntTuple& shape, const IntTuple& stride) {
  if (shape.is_leaf()) return i * stride.value();
  Int idx = 0;
  int r = shape.rank();
  for (int m = 0; m < r; ++m) {
    IntTuple s = shape.get(m);
    IntTuple d = stride.get(m);
    if (m + 1 < r) {
      Int n = product(s);
      idx += crd2idx(i % n, s, d);
      i /= n;
    } else {
      idx += crd2idx(i, s, d);
    }
  }
  return idx;
}

// Index of coordinate c: an integer (1-D within this (sub)shape) or a tuple with the
// rank of the shape whose elements are coordinates of the modes.
TESSERA_HD constexpr Int crd2idx(const IntTuple& c, const IntTuple& shape, const IntTuple& stride) {
  if (c.is_leaf()) return crd2idx(c.value(), shape, stride);
  TESSERA_REQUIRE(shape.is_tuple() && c.rank() == shape.rank(), "crd2idx: coordinate of rank {} does not match a shape of rank {}",
                  c.rank(), shape.rank());
  Int idx = 0;
  for (int m = 0; m < c.rank(); ++m) idx += crd2idx(c.get(m), shape.get(m), stride.get(m));
  return idx;
}

TESSERA_HD constexpr Int Layout::operator()(Int i) const { return crd2idx(i, shape, stride); }
TESSERA_HD constexpr Int Layout::operator()(const IntTuple& c) const { return crd2idx(c, shape, stride); }

// The natural (fully hierarchical) coordinate of 1-D index i in `shape`; i in [0, size).
TESSERA_HD constexpr IntTuple idx2crd(Int i, const IntTuple& shape) {
  if (shape.is_leaf()) return IntTuple::leaf(i);
  IntTuple c = IntTuple::empty_tuple();
  int r = shape.rank();
  for (int m = 0; m < r; ++m) {
    IntTuple s = shape.get(m);
    Int n = product(s);
    if (m + 1 < r) {
      c.push_back(idx2crd(i % n, s));
      i /= n;
    } else {
      c.push_back(idx2crd(i, s));
    }
  }
  return c;
}

}  // namespace tessera
