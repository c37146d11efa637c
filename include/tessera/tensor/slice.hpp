// tessera/tensor/slice.hpp -- coordinates with the placeholder `_`, and slicing a layout.
//
// A coordinate for a tensor call t(c0, c1, ...) has one element per top-level mode; each
// element is an integer (a 1-D coordinate within that mode), the placeholder `_` (keep the
// whole mode) or, for a hierarchical mode, a nested make_coord(...) of the same.
//
//     t(2, 3)                          element at (2,3)
//     t(_, 3)                          column 3: a tensor of rank 1, layout (4):(1) for (4,8):(1,4)
//     t(make_coord(_, 1), _)           mode 0 = (a,b): keeps a, fixes b = 1; keeps mode 1
//
// Slicing (CuTe's semantics): the kept sub-layouts are collected, in order, into the top level
// of the result (a kept part of a nested mode is lifted, not wrapped):
//     slice(((_,_),(2,_)), ((BM,BK),(RM,RK)):...) = (BM,BK,RK):...
// The offset of the slice is the sum, over the fixed elements, of that mode's value at its
// coordinate.  A single `_` keeps the whole layout; a single integer is a 1-D coordinate over
// the whole layout.
#pragma once

#include <type_traits>  // std::is_integral_v, std::is_same_v

#include "tessera/layout.hpp"  // Layout, IntTuple

namespace tessera {

// The placeholder: "all of this mode".
struct Underscore {};
inline constexpr Underscore _{};

// ------------------------------------------------------------------ Coord: a small tuple
// A (possibly nested) coordinate of integers, `_` and Coords; host and device.
template <class... Ts>
struct Coord;
template <>
struct Coord<> {
  static constexpr int kRank = 0;
};
template <class T, class... Ts>
struct Coord<T, Ts...> {
  static constexpr int kRank = 1 + sizeof...(Ts);
  T head;
  Coord<Ts...> tail;
  template <int I>
  TESSERA_HD_INLINE constexpr auto get() const {
    if constexpr (I == 0) {
      return head;
    } else {
      return tail.template get<I - 1>();
    }
  }
};

TESSERA_HD_INLINE constexpr Coord<> make_coord() { return {}; }
template <class T, class... Ts>
TESSERA_HD_INLINE constexpr Coord<T, Ts...> make_coord(T t, Ts... ts) {
  return Coord<T, Ts...>{t, make_coord(ts...)};
}

template <class T>
inline constexpr bool is_coord_v = false;
template <class... Ts>
inline constexpr bool is_coord_v<Coord<Ts...>> = true;

namespace detail {

template <class T>
inline constexpr bool is_underscore_v = std::is_same_v<T, Underscore>;

// The compile-time shape of a coordinate: leaf 1 for `_`, leaf 0 for an integer, tuples for Coords.
template <class T>
TESSERA_HD constexpr IntTuple coord_spec();
template <class... Ts>
TESSERA_HD constexpr IntTuple coord_spec_of(const Coord<Ts...>*) {
  IntTuple t = IntTuple::empty_tuple();
  (t.push_back(coord_spec<Ts>()), ...);
  return t;
}
template <class T>
TESSERA_HD constexpr IntTuple coord_spec() {
  if constexpr (is_underscore_v<T>) {
    return IntTuple::leaf(1);
  } else if constexpr (is_coord_v<T>) {
    return coord_spec_of(static_cast<const T*>(nullptr));
  } else {
    static_assert(std::is_integral_v<T>, "coordinate: each element must be an integer, `_` or a make_coord(...)");
    return IntTuple::leaf(0);
  }
}
// Spec of an argument list t(a0, a1, ...): one argument is itself the coordinate.
template <class... Args>
TESSERA_HD constexpr IntTuple args_spec() {
  if constexpr (sizeof...(Args) == 1) {
    return coord_spec<Args...>();
  } else {
    IntTuple t = IntTuple::empty_tuple();
    (t.push_back(coord_spec<Args>()), ...);
    return t;
  }
}
TESSERA_HD constexpr int count_leaves_equal(const IntTuple& t, Int v) {
  int n = 0;
  for (int k = 0; k < t.nodes; ++k) n += t.arity[k] < 0 && t.val[k] == v;
  return n;
}

// The integers of a coordinate in preorder (the fixed elements), written to out[pos...].
template <class T>
TESSERA_HD_INLINE constexpr void collect_fixed(const T& c, Int* out, int& pos) {
  if constexpr (is_underscore_v<T>) {
    (void)c;
  } else if constexpr (is_coord_v<T>) {
    if constexpr (T::kRank > 0) {
      collect_fixed(c.head, out, pos);
      collect_fixed(c.tail, out, pos);
    }
  } else {
    out[pos++] = static_cast<Int>(c);
  }
}

// ------------------------------------------------------------------ slice plan
struct SlicePlan {
  static constexpr int kMax = IntTuple::kMaxNodes;
  int nfixed = 0;
  int lo[kMax] = {};  // leaf range [lo, hi) of P evaluated at fixed coordinate f
  int hi[kMax] = {};
  int nkept = 0;
  Layout result{IntTuple::empty_tuple(), IntTuple::empty_tuple()};
};

TESSERA_HD constexpr int leaves_before(const IntTuple& t, int pos) {
  int n = 0;
  for (int k = 0; k < pos; ++k) n += t.arity[k] < 0;
  return n;
}
TESSERA_HD constexpr int child_node(const IntTuple& t, int pos, int i) {
  int q = pos + 1;
  for (int c = 0; c < i; ++c) q += t.span(q);
  return q;
}

TESSERA_HD constexpr void lift_slice(const IntTuple& spec, const Layout& p, int pos, SlicePlan& plan) {
  if (spec.is_leaf()) {
    int lo = leaves_before(p.shape, pos);
    int hi = lo + leaf_count(p.shape.subtree(pos));
    if (spec.value() == 1) {
      plan.result.shape.push_back(p.shape.subtree(pos));
      plan.result.stride.push_back(p.stride.subtree(pos));
      ++plan.nkept;
    } else {
      plan.lo[plan.nfixed] = lo;
      plan.hi[plan.nfixed] = hi;
      ++plan.nfixed;
    }
    return;
  }
  TESSERA_REQUIRE(p.shape.arity[pos] == spec.rank(), "slice: a coordinate of rank {} for a mode of rank {} (arity -1 means an integer mode)", spec.rank(),
                  p.shape.arity[pos]);
  for (int i = 0; i < spec.rank(); ++i) lift_slice(spec.get(i), p, child_node(p.shape, pos, i), plan);
}

// The plan of slicing P by a coordinate of shape `spec`.
TESSERA_HD constexpr SlicePlan slice_plan(const Layout& p, const IntTuple& spec) {
  SlicePlan plan;
  if (spec.is_leaf()) {
    if (spec.value() == 1) {
      plan.result = p;
      plan.nkept = 1;
    } else {
      plan.lo[0] = 0;
      plan.hi[0] = leaf_count(p.shape);
      plan.nfixed = 1;
    }
    return plan;
  }
  TESSERA_REQUIRE(p.shape.is_tuple() && spec.rank() == p.shape.rank(), "slice: a coordinate with {} elements for a layout of rank {}", spec.rank(), rank(p));
  for (int i = 0; i < spec.rank(); ++i) lift_slice(spec.get(i), p, child_node(p.shape, 0, i), plan);
  return plan;
}

}  // namespace detail

// The layout that remains after slicing L by a coordinate of the given spec (host or compile time).
TESSERA_HD constexpr Layout slice_layout(const Layout& l, const IntTuple& spec) {
  return detail::slice_plan(l, spec).result;
}

}  // namespace tessera
