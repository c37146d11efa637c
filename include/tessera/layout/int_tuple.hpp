// tessera/layout/int_tuple.hpp -- hierarchical integer tuples, the values of shapes,
// strides and coordinates.
//
// An IntTuple is either an integer (a *leaf*) or a tuple of IntTuples:
//
//     8            leaf                    rank 1, depth 0, size 8
//     (4)          1-tuple holding 4       rank 1, depth 1, size 4   (differs from 4)
//     (4,8)        2-tuple                 rank 2, depth 1, size 32
//     ((2,2),8)    nested                  rank 2, depth 2, size 32
//
// Representation: the tree in preorder in fixed-size arrays (a structural literal type,
// so an IntTuple -- and a Layout made of two -- can be a template argument).  Node k is a
// leaf when arity[k] < 0 (its value in val[k]), else a tuple with arity[k] children that
// follow it in preorder.  Capacity: kMaxNodes nodes (leaves plus tuples) and depth kMaxDepth
// (config.hpp); exceeding either is reported as an error, never truncated.
#pragma once

#include "config.hpp"  // Int, TESSERA_HD, TESSERA_REQUIRE

namespace tessera {

// Depth of the preorder tree arity[0..nodes): 0 for a leaf, 1 + the deepest child for a
// tuple.  Iterative (a stack of the children still to visit per open tuple), so its cost and
// stack use are bounded by kMaxNodes whatever the nesting.
TESSERA_HD constexpr int preorder_depth(const int* arity, int nodes) {
  int open[kMaxNodes + 1] = {};  // children still to visit of each open tuple
  int top = 0, best = 0;
  for (int k = 0; k < nodes; ++k) {
    while (top > 0 && open[top - 1] == 0) --top;  // close finished tuples
    if (top > 0) --open[top - 1];
    if (arity[k] >= 0) {
      open[top++] = arity[k];
      best = top > best ? top : best;
    }
  }
  return best;
}

struct IntTuple {
  static constexpr int kMaxNodes = ::tessera::kMaxNodes;

  int nodes = 1;                   // nodes in use
  int arity[kMaxNodes] = {-1};     // -1: leaf; k >= 0: tuple of k children
  Int val[kMaxNodes] = {};         // leaf values (0 for tuple nodes)

  // ---- construction ----
  TESSERA_HD static constexpr IntTuple leaf(Int v) {
    IntTuple t;
    t.val[0] = v;
    return t;
  }
  TESSERA_HD static constexpr IntTuple empty_tuple() {
    IntTuple t;
    t.arity[0] = 0;
    return t;
  }
  // Appends `child` as the last element of this tuple.  Requires: this is a tuple.
  TESSERA_HD constexpr void push_back(const IntTuple& child) {
    TESSERA_REQUIRE(!is_leaf(), "int tuple: cannot append to an integer");
    TESSERA_REQUIRE(nodes + child.nodes <= kMaxNodes, "over capacity: an int tuple holds at most {} nodes (leaves plus tuples), {} needed",
                    kMaxNodes, nodes + child.nodes);
    const int child_depth = child.arity[0] < 0 ? 0 : preorder_depth(child.arity, child.nodes);
    TESSERA_REQUIRE(child_depth + 1 <= kMaxDepth, "over capacity: an int tuple nests at most {} levels deep, {} needed",
                    kMaxDepth, child_depth + 1);
    for (int k = 0; k < child.nodes; ++k) {
      arity[nodes + k] = child.arity[k];
      val[nodes + k] = child.val[k];
    }
    nodes += child.nodes;
    arity[0] += 1;
  }

  // ---- queries ----
  TESSERA_HD constexpr bool is_leaf() const { return arity[0] < 0; }
  TESSERA_HD constexpr bool is_tuple() const { return arity[0] >= 0; }
  TESSERA_HD constexpr Int value() const {
    TESSERA_REQUIRE(is_leaf(), "int tuple: value() of a tuple");
    return val[0];
  }
  // Number of top-level modes; an integer has rank 1.
  TESSERA_HD constexpr int rank() const { return is_leaf() ? 1 : arity[0]; }

  // Number of nodes of the subtree that starts at node `pos`.
  TESSERA_HD constexpr int span(int pos) const {
    int need = 1, k = pos;
    while (need > 0) {
      need -= 1;
      if (arity[k] > 0) need += arity[k];
      ++k;
    }
    return k - pos;
  }
  // Node index of top-level element i (requires a tuple).
  TESSERA_HD constexpr int child_pos(int i) const {
    int pos = 1;
    for (int c = 0; c < i; ++c) pos += span(pos);
    return pos;
  }
  TESSERA_HD constexpr IntTuple subtree(int pos) const {
    IntTuple t;
    int n = span(pos);
    for (int k = 0; k < n; ++k) {
      t.arity[k] = arity[pos + k];
      t.val[k] = val[pos + k];
    }
    t.nodes = n;
    return t;
  }
  // Element i of a tuple; for an integer, get(0) is the integer itself (as in CuTe).
  TESSERA_HD constexpr IntTuple get(int i) const {
    TESSERA_REQUIRE(i >= 0 && i < rank(), "int tuple: mode {} out of range for rank {}",
                    i, rank());
    if (is_leaf()) return *this;
    return subtree(child_pos(i));
  }

  TESSERA_HD friend constexpr bool operator==(const IntTuple& a, const IntTuple& b) {
    if (a.nodes != b.nodes) return false;
    for (int k = 0; k < a.nodes; ++k)
      if (a.arity[k] != b.arity[k] || (a.arity[k] < 0 && a.val[k] != b.val[k])) return false;
    return true;
  }
  TESSERA_HD friend constexpr bool operator!=(const IntTuple& a, const IntTuple& b) { return !(a == b); }
};

// a * b, reported as an error instead of overflowing 64 bits.
TESSERA_HD constexpr Int mul_checked(Int a, Int b) {
  constexpr Int kMax = 0x7fffffffffffffffLL;
  Int ua = a < 0 ? -a : a, ub = b < 0 ? -b : b;
  TESSERA_REQUIRE(ua == 0 || ub <= kMax / ua, "layout arithmetic overflow: {} * {} does not fit in 64 bits", a, b);
  return a * b;
}

// ---- building tuples ----

TESSERA_HD constexpr IntTuple make_int_tuple(Int v) { return IntTuple::leaf(v); }
TESSERA_HD constexpr IntTuple make_int_tuple(const IntTuple& t) { return t; }

// make_tuple(a, b, ...) -- elements may be integers or IntTuples: make_tuple(4, make_tuple(2, 2)).
template <class... Ts>
TESSERA_HD constexpr IntTuple make_tuple(const Ts&... elems) {
  IntTuple t = IntTuple::empty_tuple();
  (t.push_back(make_int_tuple(elems)), ...);
  return t;
}

// The leaves of t in order (a bounded list).
struct Leaves {
  static constexpr int kMax = IntTuple::kMaxNodes;
  int n = 0;
  Int v[kMax] = {};
  TESSERA_HD constexpr void push(Int x) {
    TESSERA_REQUIRE(n < kMax, "over capacity: more than {} leaves",
                    kMax);
    v[n++] = x;
  }
  TESSERA_HD constexpr Int operator[](int i) const { return v[i]; }
};

TESSERA_HD constexpr Leaves leaves(const IntTuple& t) {
  Leaves out;
  for (int k = 0; k < t.nodes; ++k)
    if (t.arity[k] < 0) out.push(t.val[k]);
  return out;
}

TESSERA_HD constexpr int leaf_count(const IntTuple& t) {
  int n = 0;
  for (int k = 0; k < t.nodes; ++k) n += t.arity[k] < 0;
  return n;
}

// A tuple of the given leaves; a single leaf stays an integer when `unwrap_single`.
TESSERA_HD constexpr IntTuple tuple_of(const Leaves& l, bool unwrap_single) {
  if (unwrap_single && l.n == 1) return IntTuple::leaf(l.v[0]);
  IntTuple t = IntTuple::empty_tuple();
  for (int i = 0; i < l.n; ++i) t.push_back(IntTuple::leaf(l.v[i]));
  return t;
}

// Same structure as `profile`, leaves taken in order from `l` starting at *pos.
TESSERA_HD constexpr IntTuple unflatten_like(const IntTuple& profile, const Leaves& l, int* pos) {
  IntTuple t = profile;
  for (int k = 0; k < t.nodes; ++k)
    if (t.arity[k] < 0) t.val[k] = l.v[(*pos)++];
  return t;
}

// ---- reductions and properties ----

// Product of all leaves (1 for an empty tuple).
TESSERA_HD constexpr Int product(const IntTuple& t) {
  Int p = 1;
  for (int k = 0; k < t.nodes; ++k)
    if (t.arity[k] < 0) p = mul_checked(p, t.val[k]);
  return p;
}

// depth: 0 for an integer, 1 + max depth of the elements for a tuple.
TESSERA_HD constexpr int depth(const IntTuple& t) { return preorder_depth(t.arity, t.nodes); }

// flatten: all leaves in one tuple; an integer stays an integer.
TESSERA_HD constexpr IntTuple flatten(const IntTuple& t) {
  if (t.is_leaf()) return t;
  return tuple_of(leaves(t), false);
}

// Same nesting (including 1-tuples) on both sides.
TESSERA_HD constexpr bool congruent(const IntTuple& a, const IntTuple& b) {
  if (a.nodes != b.nodes) return false;
  for (int k = 0; k < a.nodes; ++k)
    if (a.arity[k] != b.arity[k]) return false;
  return true;
}

// Tuple t with element x appended (an integer t first becomes the 1-tuple (t)).
TESSERA_HD constexpr IntTuple append(const IntTuple& t, const IntTuple& x) {
  IntTuple r = t.is_leaf() ? make_tuple(t) : t;
  r.push_back(x);
  return r;
}
TESSERA_HD constexpr IntTuple prepend(const IntTuple& t, const IntTuple& x) {
  IntTuple r = make_tuple(x);
  if (t.is_leaf()) {
    r.push_back(t);
  } else {
    for (int i = 0; i < t.rank(); ++i) r.push_back(t.get(i));
  }
  return r;
}

// A 1-tuple is replaced by its element.
TESSERA_HD constexpr IntTuple unwrap(const IntTuple& t) {
  if (t.is_tuple() && t.rank() == 1) return unwrap(t.get(0));
  return t;
}

// ---- elementwise integer helpers (CuTe's shape arithmetic) ----

TESSERA_HD constexpr Int abs_int(Int a) { return a < 0 ? -a : a; }
TESSERA_HD constexpr Int signum(Int a) { return (a > 0) - (a < 0); }
TESSERA_HD constexpr Int ceil_div(Int a, Int b) {
  TESSERA_REQUIRE(b != 0, "ceil_div: division by zero ({} / {})",
                  a, b);
  return (a + b - 1) / b;
}
TESSERA_HD constexpr Int gcd_int(Int a, Int b) {
  a = abs_int(a);
  b = abs_int(b);
  while (b) {
    Int t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// ceil_div(tuple, n): divides n out of the modes from the left, as CuTe does:
//   (3,6)/2 -> (2,6): ceil(3/2)=2 and the remaining ceil(2/3)=1 divides nothing more.
TESSERA_HD constexpr IntTuple ceil_div(const IntTuple& a, Int b, Int* rest_out = nullptr) {
  if (a.is_leaf()) {
    if (rest_out) *rest_out = ceil_div(b, a.value());
    return IntTuple::leaf(ceil_div(a.value(), b));
  }
  IntTuple r = IntTuple::empty_tuple();
  Int rest = b;
  for (int i = 0; i < a.rank(); ++i) {
    IntTuple ai = a.get(i);
    Int next = 1;
    r.push_back(ceil_div(ai, rest, &next));
    rest = next;
  }
  if (rest_out) *rest_out = rest;
  return r;
}

}  // namespace tessera
