// tessera/layout/algebra.hpp -- coalesce, filter, composition, complement, inverses.
//
// Each operation states what it requires and what it guarantees.  Where CuTe accepts an
// argument but its result would not satisfy the definition (its divisibility checks are
// weaker than the definition in a few cases), Tessera reports an error instead: every
// layout returned here satisfies the postcondition written above its function.
//
// Worked examples (each is a test in tests/layout):
//     coalesce((2,(1,6)):(1,(6,2)))         = 12:1
//     composition((6,2):(8,2), (4,3):(3,1)) = ((2,2),3):((24,2),8)
//     complement(4:2, 24)                   = (2,3):(1,8)
//     right_inverse((4,8):(8,1))            = (8,4):(4,1)
#pragma once

#include "layout.hpp"  // Layout, IntTuple, crd2idx

namespace tessera {

namespace detail {

// A flat list of (shape, stride) modes.
struct Modes {
  static constexpr int kMax = IntTuple::kMaxNodes;
  int n = 0;
  Int s[kMax] = {};
  Int d[kMax] = {};
  TESSERA_HD constexpr void push(Int shape, Int stride) {
    TESSERA_REQUIRE(n < kMax, "over capacity: more than {} modes",
                    kMax);
    s[n] = shape;
    d[n] = stride;
    ++n;
  }
  TESSERA_HD constexpr void remove(int i) {
    for (int k = i; k + 1 < n; ++k) {
      s[k] = s[k + 1];
      d[k] = d[k + 1];
    }
    --n;
  }
};

TESSERA_HD constexpr Modes flat_modes(const Layout& l) {
  Modes m;
  for (int k = 0; k < l.shape.nodes; ++k)
    if (l.shape.arity[k] < 0) m.push(l.shape.val[k], l.stride.val[k]);
  return m;
}

// The layout of a flat mode list: an integer layout for one mode, a flat tuple otherwise.
TESSERA_HD constexpr Layout from_modes(const Modes& m, bool unwrap_single = true) {
  if (unwrap_single && m.n == 1) return make_layout(m.s[0], m.d[0]);
  Layout r{IntTuple::empty_tuple(), IntTuple::empty_tuple()};
  for (int i = 0; i < m.n; ++i) {
    r.shape.push_back(IntTuple::leaf(m.s[i]));
    r.stride.push_back(IntTuple::leaf(m.d[i]));
  }
  return r;
}

// Coalesce a flat mode list from the back, merging mode I into the front of the result
// when s_I * d_I == d_front and dropping size-1 modes.  `keep_tail` keeps the stride of
// a trailing size-1 mode (the layout's values past its size then stay unchanged).
TESSERA_HD constexpr Layout coalesce_modes(const Modes& m, bool keep_tail) {
  if (m.n == 0) return make_layout(1, 0);
  Modes acc;  // result modes, back to front
  bool tuple_form = false;
  Int s0 = m.s[m.n - 1];
  if (keep_tail && s0 == 1) s0 = 2;
  acc.push(s0, m.d[m.n - 1]);
  for (int i = m.n - 2; i >= 0; --i) {
    Int s = m.s[i], d = m.d[i];
    if (s == 1) continue;
    if (!tuple_form && acc.s[0] == 1) {
      acc.s[0] = s;
      acc.d[0] = d;
      continue;
    }
    int f = acc.n - 1;
    if (mul_checked(s, d) == acc.d[f]) {
      acc.s[f] = mul_checked(acc.s[f], s);
      acc.d[f] = d;
    } else {
      acc.push(s, d);
      tuple_form = true;
    }
  }
  if (!tuple_form) {
    if (acc.s[0] == 1) return make_layout(1, 0);
    return make_layout(acc.s[0], acc.d[0]);
  }
  Modes fwd;
  for (int i = acc.n - 1; i >= 0; --i) fwd.push(acc.s[i], acc.d[i]);
  return from_modes(fwd, false);
}

}  // namespace detail

// ---------------------------------------------------------------------------------------
// coalesce(L): the same function on [0, size(L)) with the fewest modes.
// Postcondition: size(R) == size(L); depth(R) <= 1; R(i) == L(i) for 0 <= i < size(L).
// ---------------------------------------------------------------------------------------
TESSERA_HD constexpr Layout coalesce(const Layout& l) {
  return detail::coalesce_modes(detail::flat_modes(l), false);
}

// coalesce by mode: coalesce each mode named by `profile` separately (a leaf of the
// profile coalesces the whole mode).  coalesce((2,(4,2)):(1,(2,8)), (1,1)) = (2,8):(1,2).
TESSERA_HD constexpr Layout coalesce(const Layout& l, const IntTuple& profile) {
  if (profile.is_leaf()) return coalesce(l);
  TESSERA_REQUIRE(profile.rank() <= rank(l), "coalesce: profile of rank {} is longer than the layout's rank {}",
                  profile.rank(), rank(l));
  Layout r{IntTuple::empty_tuple(), IntTuple::empty_tuple()};
  for (int i = 0; i < rank(l); ++i) {
    Layout m = i < profile.rank() ? coalesce(mode(l, i), profile.get(i)) : mode(l, i);
    r.shape.push_back(m.shape);
    r.stride.push_back(m.stride);
  }
  return r;
}

// filter(L): coalesce after removing stride-0 (broadcast) and size-1 modes; 1:0 if none remain.
// Postcondition: R is injective iff L restricted to its non-broadcast modes is; image(R) == image(L).
TESSERA_HD constexpr Layout filter(const Layout& l) {
  detail::Modes m = detail::flat_modes(l);
  for (int i = 0; i < m.n; ++i)
    if (m.d[i] == 0) m.s[i] = 1;
  return detail::coalesce_modes(m, false);
}

// ---------------------------------------------------------------------------------------
// composition(A, B) = A o B, the function c -> A(B(c)) on the domain of B.
// Requires (for each integral mode s:d of B, with A flattened and coalesced): walking A's
// modes, the stride d and A's shapes divide one another where B's elements reach past a
// mode (stride divisibility), and the remaining size of B and A's shapes divide one
// another (shape divisibility).
// Postcondition: R has the shape of B; R(c) == A(B(c)) for every c in B's domain.
// ---------------------------------------------------------------------------------------
namespace detail {

TESSERA_HD constexpr Layout compose_mode(const Layout& lhs, Int rs, Int rd) {
  TESSERA_REQUIRE(rs >= 1, "composition: the right-hand layout has extent {}; extents must be >= 1", rs);
  if (rd == 0) return make_layout(rs, 0);
  if (lhs.shape.is_leaf()) return make_layout(rs, mul_checked(rd, lhs.stride.value()));
  Modes a = flat_modes(lhs);
  for (int k = 0; k < a.n; ++k)
    TESSERA_REQUIRE(a.s[k] >= 1, "composition: the left-hand layout has extent {}; extents must be >= 1", a.s[k]);
  Modes res;
  Int rest_shape = rs, rest_stride = rd;
  for (int k = 0; k + 1 < a.n; ++k) {
    Int cs = a.s[k], cd = a.d[k];
    // The conditions hold for |stride|: a negative stride walks A's modes the same way (A
    // evaluates -x as -A(x)), so it needs the same divisibility as the positive one.
    const Int abs_stride = abs_int(rest_stride);
    TESSERA_REQUIRE(abs_stride % cs == 0 || abs_stride < cs, "composition: stride divisibility condition violated: stride {} and shape {} do not divide one another",
                    rest_stride, cs);
    Int next_shape = ceil_div(cs, abs_int(rest_stride));
    Int next_stride = ceil_div(abs_int(rest_stride), cs) * signum(rest_stride);
    if (next_shape == 1 || rest_shape == 1) {
      rest_stride = next_stride;
      continue;
    }
    Int new_shape = next_shape < rest_shape ? next_shape : rest_shape;
    TESSERA_REQUIRE(rest_shape % new_shape == 0, "composition: shape divisibility condition violated: shape {} is not divisible by {}",
                    rest_shape, new_shape);
    // Stepping by rest_stride inside a mode of size cs and continuing into the next mode
    // is a layout only when rest_stride divides cs (CuTe accepts more and returns a wrong one).
    TESSERA_REQUIRE(cs % abs_stride == 0 || rest_shape <= new_shape, "composition: stride divisibility condition violated: stride {} does not divide shape {} and {} elements continue past it",
                    rest_stride, cs, rest_shape);
    res.push(new_shape, mul_checked(rest_stride, cd));
    rest_shape /= new_shape;
    rest_stride = next_stride;
  }
  Int last_d = a.d[a.n - 1];
  if (res.n == 0) return make_layout(rest_shape, mul_checked(rest_stride, last_d));
  if (rest_shape == 1) return from_modes(res, true);
  res.push(rest_shape, mul_checked(rest_stride, last_d));
  return from_modes(res, false);
}

TESSERA_HD constexpr Layout compose_tree(const Layout& lhs, const IntTuple& rs, const IntTuple& rd) {
  if (rs.is_leaf()) return compose_mode(lhs, rs.value(), rd.value());
  Layout r{IntTuple::empty_tuple(), IntTuple::empty_tuple()};
  for (int i = 0; i < rs.rank(); ++i) {
    Layout m = compose_tree(lhs, rs.get(i), rd.get(i));
    r.shape.push_back(m.shape);
    r.stride.push_back(m.stride);
  }
  return r;
}

// L(i) through the flat leaves, the last leaf taking the excess (CuTe's evaluation).
TESSERA_HD constexpr Int eval_flat(const Modes& m, Int i) {
  Int idx = 0;
  for (int k = 0; k < m.n; ++k) {
    if (k + 1 < m.n) {
      idx += (i % m.s[k]) * m.d[k];
      i /= m.s[k];
    } else {
      idx += mul_checked(i, m.d[k]);
    }
  }
  return idx;
}

// Composition mode by mode of B (CuTe's right distributivity): mode i of the result is
// A o B_i.  This is the function A o B only where A adds B's modes' images without carry;
// divides and products rely on exactly this by-mode form.
TESSERA_HD constexpr Layout composition_by_mode(const Layout& a, const Layout& b) {
  Layout flat_a = coalesce_modes(flat_modes(a), true);
  return compose_tree(flat_a, b.shape, b.stride);
}

}  // namespace detail

namespace detail {
// True when adding the images of B's leaf modes never carries between the digits of A's
// coalesced modes (then A(sum) = sum of A(parts), and the by-mode result is A o B).  A
// conservative bound per digit: false means "not proven", not "not additive".
TESSERA_HD constexpr bool modes_add_without_carry(const Layout& a, const Layout& b) {
  Modes ma = flat_modes(coalesce_modes(flat_modes(a), true));
  Modes mb = flat_modes(b);
  Int p = 1;  // prefix product of A's extents below digit k
  for (int k = 0; k + 1 < ma.n; ++k) {
    Int s = ma.s[k], next = mul_checked(p, s), sum = 0;
    for (int j = 0; j < mb.n; ++j) {
      Int t = mb.s[j], e = mb.d[j];
      if (e < 0) return false;
      if (t <= 1 || e == 0 || e % next == 0) continue;  // never touches digit k
      Int span = mul_checked(t - 1, e);
      if (span < p) continue;                             // stays below digit k
      Int ub = (e % p == 0) ? span / p : s - 1;           // largest digit k it can produce
      sum += ub < s - 1 ? ub : s - 1;
    }
    if (sum > s - 1) return false;
    p = next;
  }
  return true;
}
}  // namespace detail

namespace detail {
// Checks R(c) == A(B(c)) for every coordinate c of B, where R is the by-mode composition of A
// and B: mode j of R is A o B_j, exact on its own by construction, so R(c) = sum_j A(B_j(c_j)).
// Only B's *moving* leaves matter (extent > 1 and stride != 0): a broadcast leaf adds nothing to
// B(c) and its mode of R has stride 0.  The coordinates of the moving leaves are enumerated with
// an odometer (B(c) and R(c) updated as the digits change); their number is bounded by
// kMaxCheckedElements, beyond which the check reports "too large to check" instead of running on.
TESSERA_HD constexpr void check_function_composition(const Layout& a, const Layout& b) {
  const Layout flat_a = coalesce_modes(flat_modes(a), true);
  const Modes ma = flat_modes(a), mb = flat_modes(b);
  int moving[Modes::kMax] = {};
  int nm = 0;
  Int count = 1;
  for (int j = 0; j < mb.n; ++j) {
    if (mb.s[j] <= 1 || mb.d[j] == 0) continue;
    moving[nm++] = j;
    count = mul_checked(count, mb.s[j]);
  }
  if (nm <= 1) return;  // one moving mode: R is A o B_j itself
  TESSERA_REQUIRE(count <= kMaxCheckedElements, "composition: too large to check: {} elements, limit {} (the modes of B could not be proven to add without carries in A, so A(B(c)) would have to be compared with the by-mode result at every coordinate)",
                  count, kMaxCheckedElements);
  Modes rj[Modes::kMax] = {};  // flat modes of A o B_j for each moving leaf
  Int digit[Modes::kMax] = {}, part[Modes::kMax] = {};
  for (int q = 0; q < nm; ++q) rj[q] = flat_modes(compose_mode(flat_a, mb.s[moving[q]], mb.d[moving[q]]));
  Int x = 0, got = 0;  // B(c) and R(c)
  for (Int i = 0; i < count; ++i) {
    const Int want = eval_flat(ma, x);
    TESSERA_REQUIRE(want == got, "composition: not a function composition: at B(c) = {}, A(B(c)) = {} but the modes of B, composed one by one, give {} (B's modes reach across a mode boundary of A)",
                    x, want, got);
    for (int q = 0; q < nm; ++q) {  // next coordinate: increment the odometer
      const int j = moving[q];
      got -= part[q];
      if (++digit[q] < mb.s[j]) {
        x += mb.d[j];
        part[q] = eval_flat(rj[q], digit[q]);
        got += part[q];
        break;
      }
      x -= mul_checked(mb.s[j] - 1, mb.d[j]);
      digit[q] = 0;
      part[q] = 0;
    }
  }
}
}  // namespace detail

// Requires also (beyond the divisibility conditions of each mode): where B has several moving
// modes, their images add in A without carries -- proven per digit when possible, else checked
// at every coordinate (at most kMaxCheckedElements of them; larger: "too large to check").
TESSERA_HD constexpr Layout composition(const Layout& a, const Layout& b) {
  Layout r = detail::composition_by_mode(a, b);
  if (leaf_count(b.shape) > 1 && !detail::modes_add_without_carry(a, b)) detail::check_function_composition(a, b);
  return r;
}

namespace detail {
// Used by divides and products, whose postconditions are stated mode by mode.
TESSERA_HD constexpr Layout compose_parts(const Layout& a, const Layout& b) { return composition_by_mode(a, b); }
}  // namespace detail

// ---------------------------------------------------------------------------------------
// complement(L, cotarget): the layout of the "rest" of [0, cotarget) not reached by L.
// Requires: L injective on its non-broadcast modes (sorted by stride, each stride at least
// the span of the smaller modes).
// Postcondition: R is ordered (R(i) < R(i+1)), R(i) != L(j) for i > 0 and every j, and
// size(R) >= cotarget / size(filter(L)).  When each stride is a multiple of the span below
// it, (L, R) is moreover a bijection onto [0, size(L)*size(R)).
// ---------------------------------------------------------------------------------------
TESSERA_HD constexpr Layout complement(const Layout& l, const IntTuple& cotarget) {
  for (int k = 0; k < cotarget.nodes; ++k)
    TESSERA_REQUIRE(cotarget.arity[k] >= 0 || cotarget.val[k] >= 1, "complement: cotarget {} is not positive; the cotarget (an integer or a tuple of integers) must be >= 1",
                    cotarget.val[k]);
  Layout f = filter(l);
  if (f.stride.is_leaf() && f.stride.value() == 0) return make_layout(IntTuple::leaf(product(cotarget)));
  detail::Modes rem = detail::flat_modes(f);
  for (int k = 0; k < rem.n; ++k)
    TESSERA_REQUIRE(rem.s[k] >= 1 && rem.d[k] > 0, "complement: the layout has a mode {}:{}; complement needs extents >= 1 and non-negative strides",
                    rem.s[k], rem.d[k]);
  detail::Modes out;
  Int last_stride = 1;
  while (rem.n > 0) {
    int idx = 0;
    for (int i = 1; i < rem.n; ++i)
      if (rem.d[i] < rem.d[idx]) idx = i;
    Int min_stride = rem.d[idx];
    Int new_shape = min_stride / last_stride;
    TESSERA_REQUIRE(new_shape != 0, "complement: non-injective layout: stride {} lies inside the span {} of the smaller modes",
                    min_stride, last_stride);
    out.push(new_shape, last_stride);
    last_stride = mul_checked(min_stride, rem.s[idx]);
    rem.remove(idx);
  }
  Int ignored = 0;
  Int rest_shape = product(ceil_div(cotarget, last_stride, &ignored));
  out.push(rest_shape, rest_shape == 1 ? 0 : last_stride);
  return detail::coalesce_modes(out, false);
}
TESSERA_HD constexpr Layout complement(const Layout& l, Int cotarget) { return complement(l, IntTuple::leaf(cotarget)); }
// complement(L) = complement(L, cosize(filter(L))).
TESSERA_HD constexpr Layout complement(const Layout& l) { return complement(l, cosize(filter(l))); }

// ---------------------------------------------------------------------------------------
// right_inverse(L): the largest R (a compact function of its shape) with L(R(i)) == i for
// all i < size(R).  Built by following the chain of strides 1, s*d, ... through L's modes.
// ---------------------------------------------------------------------------------------
namespace detail {
// Indices of modes sorted by stride (stable).
TESSERA_HD constexpr void sort_by_stride(const Modes& m, int* order) {
  for (int i = 0; i < m.n; ++i) order[i] = i;
  for (int i = 1; i < m.n; ++i) {
    int v = order[i], j = i;
    while (j > 0 && m.d[order[j - 1]] > m.d[v]) {
      order[j] = order[j - 1];
      --j;
    }
    order[j] = v;
  }
}
}  // namespace detail

TESSERA_HD constexpr Layout right_inverse(const Layout& l) {
  detail::Modes m = detail::flat_modes(coalesce(l));
  Int preprod[detail::Modes::kMax + 1] = {1};
  for (int i = 0; i < m.n; ++i) preprod[i + 1] = mul_checked(preprod[i], m.s[i]);
  int order[detail::Modes::kMax] = {};
  detail::sort_by_stride(m, order);
  detail::Modes out;
  out.push(1, 0);
  Int curr = 1;
  for (int k = 0; k < m.n; ++k) {
    int i = order[k];
    if (m.d[i] == curr) {
      out.push(m.s[i], preprod[i]);
      curr = mul_checked(m.s[i], m.d[i]);
    }
  }
  return detail::coalesce_modes(out, false);
}

// ---------------------------------------------------------------------------------------
// left_inverse(L): R with R(L(i)) == i for i < size(L) when L is injective; stride-0
// (broadcast) modes are ignored, as CuTe does, and then L(R(L(i))) == L(i).
// Requires: sorted by stride, each non-zero stride divisible by the product of the result's
// modes so far (CuTe's left inverse divisibility condition), and L injective on its
// non-broadcast modes (CuTe does not check this and returns a layout that inverts nothing:
// left_inverse((2,2):(1,1)) would be 2:2).
// ---------------------------------------------------------------------------------------
TESSERA_HD constexpr Layout left_inverse(const Layout& l) {
  detail::Modes m = detail::flat_modes(coalesce(l));
  Int preprod[detail::Modes::kMax + 1] = {1};
  for (int i = 0; i < m.n; ++i) preprod[i + 1] = mul_checked(preprod[i], m.s[i]);
  int order[detail::Modes::kMax] = {};
  detail::sort_by_stride(m, order);
  Int shapes[detail::Modes::kMax + 1] = {};
  Int strides[detail::Modes::kMax + 2] = {0};
  int ns = 0, nd = 1;
  Int sz = 1, span = 0;  // span: 1 + largest index of the positive-stride modes so far
  for (int k = 0; k < m.n; ++k) {
    int i = order[k];
    if (m.d[i] == 0) continue;
    TESSERA_REQUIRE(m.d[i] % sz == 0, "left_inverse: left inverse divisibility condition violated: stride {} is not divisible by {}",
                    m.d[i], sz);
    // With each stride divisible by the one before, L is injective (on its non-broadcast
    // modes) exactly when each stride is at least the span of the smaller modes.
    TESSERA_REQUIRE(m.d[i] < 0 || m.d[i] >= span, "left_inverse: the layout is not injective: stride {} lies inside the span {} of the modes with smaller strides, so two coordinates share an index and no left inverse exists",
                    m.d[i], span);
    if (m.d[i] > 0) span = mul_checked(m.d[i], m.s[i]);
    shapes[ns++] = m.d[i] / sz;
    sz *= m.d[i] / sz;
    strides[nd++] = preprod[i];
  }
  shapes[ns++] = m.s[order[m.n - 1]];
  detail::Modes out;
  for (int i = 0; i < ns; ++i) out.push(shapes[i], strides[i]);
  return detail::coalesce_modes(out, false);
}

// ---------------------------------------------------------------------------------------
// max_common_layout(A, B) / max_common_vector(A, B): the largest R with A(R(i)) == i and
// B(R(i)) == i for i < size(R), i.e. the contiguous elements on which A and B agree;
// max_common_vector is size(R) (>= 1).  Used to pick vector widths for copies.
// ---------------------------------------------------------------------------------------
TESSERA_HD constexpr Int max_common_vector(const Layout& a, const Layout& b) {
  Layout common = coalesce(composition(a, right_inverse(b)));
  Layout first = mode(common, 0);
  if (first.stride.is_leaf() && first.stride.value() == 1) return first.shape.value();
  return 1;
}

TESSERA_HD constexpr Layout max_common_layout(const Layout& a, const Layout& b) {
  Layout inv_b = right_inverse(b);
  Layout common = coalesce(composition(a, inv_b));
  Layout first = mode(common, 0);
  if (first.stride.is_leaf() && first.stride.value() == 1) return composition(inv_b, first);
  return make_layout(1, 0);
}

}  // namespace tessera
