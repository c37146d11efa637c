// tessera/tensor/mixed_layout.hpp -- layouts whose nesting is known at compile time and whose
// extents and strides may each be a compile-time value or a run-time value.
//
// A kernel's global tensor has run-time extents (M, K) and a run-time leading dimension, yet
// every loop over its modes must unroll.  MixedLayout<P> keeps the whole structure -- rank,
// nesting, and every value that is known -- in the template argument P (a Layout), and stores
// only the run-time values:
//
//     P = (s0,s1):(d0,1)  with s0 = dynamic_shape(0), s1 = dynamic_shape(1), d0 = dynamic_stride(0)
//     MixedLayout<P>{ shapes {M, K}, strides {ld} }          -> (M,K):(ld,1)
//
// Encoding of run-time leaves inside P (so that P stays a plain Layout the algebra can work on):
//   * extent:  dynamic_shape(j)    = -(j+1)            (negative: never a real extent)
//   * stride:  dynamic_stride(j,c) = c * symbol_prime(j) (c times run-time value j)
// Every algebra step that Tessera applies to a stride multiplies it by a compile-time integer
// or compares two strides for equality, so a stride stays "c times symbol j" and the algebra
// on P is exact for *every* run-time value: composition((BM,BK):(ld,1), tv) is computed once,
// at compile time, and evaluates with one multiply by `ld`.  Static strides next to run-time
// ones must be smaller than kStaticStrideLimit = 2^41 (checked), and coefficients stay below
// 2^22 (an overflow is a compile error, never a wrong value).
//
// Operations that need an extent (divide, composition) require static extents in the modes
// they touch; the one exception is dividing a single-leaf mode with a run-time extent by an
// integer (local_tile of a global tensor), whose rest extent ceil(s/n) becomes a new run-time
// value (see tessera/tensor/tensor.hpp).
//
// Evaluation is a fold over the leaves: no loop over run-time structure, divisions and moduli
// by static extents are by constants.
#pragma once

#include <type_traits>  // std::is_integral_v
#include <utility>      // std::index_sequence

#include "tessera/layout.hpp"  // Layout, IntTuple, detail::Modes, composition, ...

namespace tessera {

// ------------------------------------------------------------------ symbolic leaves
namespace sym {
inline constexpr int kMaxSymbols = 8;
inline constexpr Int kStaticStrideLimit = Int(1) << 41;
// Distinct primes just above 2^41: a stride c * symbol_prime(j) is "c times run-time stride j".
// (A function rather than an array, so that device code needs no global memory for it.)
TESSERA_HD constexpr Int symbol_prime(int j) {
  switch (j) {
    case 0: return 2199023255579;
    case 1: return 2199023255617;
    case 2: return 2199023255623;
    case 3: return 2199023255633;
    case 4: return 2199023255677;
    case 5: return 2199023255699;
    case 6: return 2199023255713;
    default: return 2199023255717;
  }
}

TESSERA_HD constexpr Int dynamic_shape(int j) { return -(j + 1); }
TESSERA_HD constexpr Int dynamic_stride(int j, Int coef = 1) { return coef * symbol_prime(j); }
TESSERA_HD constexpr bool is_dynamic_shape(Int s) { return s < 0; }
TESSERA_HD constexpr int shape_symbol(Int s) { return static_cast<int>(-s - 1); }
// Symbol index of a stride, -1 for a static stride.
TESSERA_HD constexpr int stride_symbol(Int d) {
  if (d < kStaticStrideLimit && d > -kStaticStrideLimit) return -1;
  for (int j = 0; j < kMaxSymbols; ++j)
    if (d % symbol_prime(j) == 0) return j;
  return -1;
}
TESSERA_HD constexpr Int stride_coef(Int d) {
  int j = stride_symbol(d);
  return j < 0 ? d : d / symbol_prime(j);
}
}  // namespace sym

namespace detail {

// Number of shape symbols (1 + the largest index used), 0 when all extents are static.
TESSERA_HD constexpr int shape_symbol_count(const Layout& p) {
  int n = 0;
  for (int k = 0; k < p.shape.nodes; ++k)
    if (p.shape.arity[k] < 0 && sym::is_dynamic_shape(p.shape.val[k])) {
      int j = sym::shape_symbol(p.shape.val[k]) + 1;
      n = j > n ? j : n;
    }
  return n;
}
TESSERA_HD constexpr int stride_symbol_count(const Layout& p) {
  int n = 0;
  for (int k = 0; k < p.stride.nodes; ++k)
    if (p.stride.arity[k] < 0) {
      int j = sym::stride_symbol(p.stride.val[k]) + 1;
      n = j > n ? j : n;
    }
  return n;
}
// True when every extent of the subtree is a compile-time value.
TESSERA_HD constexpr bool has_static_shape(const IntTuple& s) {
  for (int k = 0; k < s.nodes; ++k)
    if (s.arity[k] < 0 && sym::is_dynamic_shape(s.val[k])) return false;
  return true;
}
TESSERA_HD constexpr bool is_fully_static(const Layout& p) {
  return shape_symbol_count(p) == 0 && stride_symbol_count(p) == 0;
}
// Static strides of a layout with run-time strides must stay below the symbol range.
TESSERA_HD constexpr bool static_strides_in_range(const Layout& p) {
  if (stride_symbol_count(p) == 0) return true;
  for (int k = 0; k < p.stride.nodes; ++k)
    if (p.stride.arity[k] < 0 && sym::stride_symbol(p.stride.val[k]) < 0) {
      Int d = p.stride.val[k];
      if (d >= sym::kStaticStrideLimit || d <= -sym::kStaticStrideLimit) return false;
    }
  return true;
}

// First leaf of each top-level mode (begin[rank] = number of leaves).
struct ModeLeaves {
  int rank = 0;
  int begin[IntTuple::kMaxNodes + 1] = {};
};
TESSERA_HD constexpr ModeLeaves mode_leaves(const Layout& p) {
  ModeLeaves r;
  r.rank = rank(p);
  int acc = 0;
  for (int m = 0; m < r.rank; ++m) {
    r.begin[m] = acc;
    acc += leaf_count(p.shape.get(m));
  }
  r.begin[r.rank] = acc;
  return r;
}

// A fixed-size array of run-time values; empty when N == 0.
template <int N>
struct IntArray {
  Int v[N] = {};
  TESSERA_HD_INLINE constexpr Int operator[](int i) const { return v[i]; }
  TESSERA_HD_INLINE constexpr Int& operator[](int i) { return v[i]; }
};
template <>
struct IntArray<0> {
  TESSERA_HD_INLINE constexpr Int operator[](int) const { return 0; }
};

}  // namespace detail

// ------------------------------------------------------------------ MixedLayout
template <Layout P>
struct MixedLayout {
  static constexpr Layout kProfile = P;
  static constexpr detail::Modes kFlat = detail::flat_modes(P);
  static constexpr int kLeaves = kFlat.n;
  static constexpr int kRank = rank(P);
  static constexpr detail::ModeLeaves kModes = detail::mode_leaves(P);
  static constexpr int kShapeSymbols = detail::shape_symbol_count(P);
  static constexpr int kStrideSymbols = detail::stride_symbol_count(P);
  static constexpr bool kIsStatic = kShapeSymbols == 0 && kStrideSymbols == 0;
  static_assert(kShapeSymbols <= sym::kMaxSymbols && kStrideSymbols <= sym::kMaxSymbols,
                "MixedLayout: at most 8 run-time extents and 8 run-time strides");
  static_assert(detail::static_strides_in_range(P),
                "MixedLayout: a static stride next to run-time strides must be below 2^41; make it a run-time stride");

  [[no_unique_address]] detail::IntArray<kShapeSymbols> dyn_shape{};
  [[no_unique_address]] detail::IntArray<kStrideSymbols> dyn_stride{};

  // ---- leaves ----
  template <int K>
  static constexpr bool kStaticShapeLeaf = !sym::is_dynamic_shape(kFlat.s[K]);
  template <int K>
  static constexpr bool kStaticStrideLeaf = sym::stride_symbol(kFlat.d[K]) < 0;

  template <int K>
  TESSERA_HD_INLINE constexpr Int shape_leaf() const {
    if constexpr (kStaticShapeLeaf<K>) {
      return kFlat.s[K];
    } else {
      constexpr int kSym = sym::shape_symbol(kFlat.s[K]);
      return dyn_shape[kSym];
    }
  }
  template <int K>
  TESSERA_HD_INLINE constexpr Int stride_leaf() const {
    if constexpr (kStaticStrideLeaf<K>) {
      return kFlat.d[K];
    } else {
      constexpr Int kCoef = sym::stride_coef(kFlat.d[K]);
      constexpr int kSym = sym::stride_symbol(kFlat.d[K]);
      return kCoef * dyn_stride[kSym];
    }
  }

  // c * stride of leaf K; the type is I for a static stride, Int (64-bit) for a run-time one.
  template <int K, class I>
  TESSERA_HD_INLINE constexpr auto leaf_term(I c) const {
    if constexpr (kStaticStrideLeaf<K>) {
      constexpr Int d = kFlat.d[K];
      if constexpr (d == 0) {
        return I(0);
      } else if constexpr (sizeof(I) >= sizeof(Int) || (d < (Int(1) << (8 * sizeof(I) - 1)) && d >= -(Int(1) << (8 * sizeof(I) - 1)))) {
        return c * I(d);
      } else {
        return Int(c) * d;  // a stride beyond I's range (e.g. an identity tensor's coordinate field)
      }
    } else {
      return Int(c) * stride_leaf<K>();
    }
  }

  // The index of 1-D coordinate c over leaves [K, Hi): column-major, the last leaf takes the rest.
  template <int K, int Hi, class I>
  TESSERA_HD_INLINE constexpr auto eval_range(I c) const {
    if constexpr (K >= Hi) {
      return I(0);
    } else if constexpr (K + 1 == Hi) {
      return leaf_term<K>(c);
    } else if constexpr (kStaticShapeLeaf<K>) {
      constexpr Int s = kFlat.s[K];
      if constexpr (s == 1) {
        return eval_range<K + 1, Hi>(c);
      } else {
        return leaf_term<K>(I(c % I(s))) + eval_range<K + 1, Hi>(I(c / I(s)));
      }
    } else {
      I s = static_cast<I>(shape_leaf<K>());
      return leaf_term<K>(I(c % s)) + eval_range<K + 1, Hi>(I(c / s));
    }
  }

  // L(i): 1-D coordinate over the whole layout.
  template <class I>
  TESSERA_HD_INLINE constexpr auto operator()(I i) const
    requires std::is_integral_v<I>
  {
    return eval_range<0, kLeaves>(i);
  }
  // L(c0, c1, ...): one 1-D coordinate per top-level mode.
  template <class I0, class I1, class... Is>
  TESSERA_HD_INLINE constexpr auto operator()(I0 c0, I1 c1, Is... cs) const {
    static_assert(2 + sizeof...(Is) == kRank, "MixedLayout: give one coordinate per top-level mode of the layout");
    return eval_modes(std::make_index_sequence<kRank>{}, c0, c1, cs...);
  }
  // Mode m evaluated at its 1-D coordinate c.
  template <int M, class I>
  TESSERA_HD_INLINE constexpr auto eval_mode(I c) const {
    return eval_range<kModes.begin[M], kModes.begin[M + 1]>(c);
  }

  // Extent of top-level mode M (compile-time value where static).
  template <int M>
  TESSERA_HD_INLINE constexpr Int mode_size() const {
    return mode_size_impl<kModes.begin[M], kModes.begin[M + 1]>();
  }
  TESSERA_HD_INLINE constexpr Int size() const { return mode_size_impl<0, kLeaves>(); }

  // The concrete layout (all values filled in).  Host or device, loops over structure:
  // for printing, checking and tests, not for hot loops.
  TESSERA_HD constexpr Layout value() const {
    Layout r = P;
    for (int k = 0; k < r.shape.nodes; ++k) {
      if (r.shape.arity[k] >= 0) continue;
      if (sym::is_dynamic_shape(r.shape.val[k])) r.shape.val[k] = dyn_shape[sym::shape_symbol(r.shape.val[k])];
      Int d = r.stride.val[k];
      int j = sym::stride_symbol(d);
      if (j >= 0) r.stride.val[k] = sym::stride_coef(d) * dyn_stride[j];
    }
    return r;
  }

 private:
  template <size_t... M, class... Is>
  TESSERA_HD_INLINE constexpr auto eval_modes(std::index_sequence<M...>, Is... cs) const {
    return (... + eval_mode<int(M)>(cs));
  }
  template <int K, int Hi>
  TESSERA_HD_INLINE constexpr Int mode_size_impl() const {
    if constexpr (K >= Hi) {
      return 1;
    } else {
      return shape_leaf<K>() * mode_size_impl<K + 1, Hi>();
    }
  }
};

template <class T>
inline constexpr bool is_mixed_layout_v = false;
template <Layout P>
inline constexpr bool is_mixed_layout_v<MixedLayout<P>> = true;

// A compile-time layout as a (stateless) MixedLayout.
template <Layout L>
using StaticLayoutOf = MixedLayout<L>;

// ------------------------------------------------------------------ construction
// make_mixed_layout<P>(shape values..., stride values...): the run-time values in symbol order.
template <Layout P, class... Vs>
TESSERA_HD constexpr MixedLayout<P> make_mixed_layout(Vs... vs) {
  using M = MixedLayout<P>;
  static_assert(sizeof...(Vs) == M::kShapeSymbols + M::kStrideSymbols,
                "make_mixed_layout: give one value per run-time extent, then one per run-time stride");
  M m{};
  Int v[sizeof...(Vs) > 0 ? sizeof...(Vs) : 1] = {static_cast<Int>(vs)...};
  if constexpr (M::kShapeSymbols > 0)
    for (int j = 0; j < M::kShapeSymbols; ++j) m.dyn_shape[j] = v[j];
  if constexpr (M::kStrideSymbols > 0)
    for (int j = 0; j < M::kStrideSymbols; ++j) m.dyn_stride[j] = v[M::kShapeSymbols + j];
  return m;
}

namespace detail {
TESSERA_HD constexpr Layout dynamic_row_major_profile() {
  return Layout{make_tuple(sym::dynamic_shape(0), sym::dynamic_shape(1)), make_tuple(sym::dynamic_stride(0), 1)};
}
TESSERA_HD constexpr Layout dynamic_col_major_profile() {
  return Layout{make_tuple(sym::dynamic_shape(0), sym::dynamic_shape(1)), make_tuple(1, sym::dynamic_stride(0))};
}
}  // namespace detail

// (rows,cols):(ld,1) with all three at run time (ld defaults to cols).  The unit stride stays static.
TESSERA_HD constexpr MixedLayout<detail::dynamic_row_major_profile()> make_row_major(Int rows, Int cols, Int ld = -1) {
  return make_mixed_layout<detail::dynamic_row_major_profile()>(rows, cols, ld < 0 ? cols : ld);
}
// (rows,cols):(1,ld) with all three at run time (ld defaults to rows).
TESSERA_HD constexpr MixedLayout<detail::dynamic_col_major_profile()> make_col_major(Int rows, Int cols, Int ld = -1) {
  return make_mixed_layout<detail::dynamic_col_major_profile()>(rows, cols, ld < 0 ? rows : ld);
}

}  // namespace tessera
