// tessera/layout/static_layout.hpp -- evaluating a compile-time layout in device code.
//
// A Layout is a structural value, so it can be a template argument.  static_layout<L>
// flattens L at compile time and evaluates it with a fold over its leaves: no loop over
// run-time structure, every division and modulus by a constant, nothing in local memory.
//
//     constexpr tessera::Layout kSmem = tessera::make_layout_row_major(tessera::make_tuple(64, 64));
//     float x = smem[tessera::static_layout<kSmem>(i)];      // 1-D coordinate
//     float y = smem[tessera::static_layout<kSmem>(r, c)];   // one coordinate per top mode
//
// docs/CONSTEXPR_INDEXING.md compares the generated code with hand-written indexing.
#pragma once

#include <utility>  // std::index_sequence

#include "algebra.hpp"  // detail::Modes, flat_modes
#include "swizzle.hpp"  // Swizzle, SwizzledLayout

namespace tessera {

namespace detail {
// The flat leaves of L with the prefix products used to split a 1-D coordinate.
struct FlatLayout {
  Modes modes;
  Int prefix[Modes::kMax + 1] = {};
};
TESSERA_HD constexpr FlatLayout flat_layout(const Layout& l) {
  FlatLayout f{flat_modes(l)};
  f.prefix[0] = 1;
  for (int k = 0; k < f.modes.n; ++k) f.prefix[k + 1] = f.prefix[k] * f.modes.s[k];
  return f;
}
}  // namespace detail

template <Layout L>
struct StaticLayout {
  static constexpr detail::FlatLayout kFlat = detail::flat_layout(L);
  static constexpr int kLeaves = kFlat.modes.n;
  static constexpr Int kSize = size(L);
  static constexpr Int kCosize = cosize(L);
  static constexpr int kRank = rank(L);

  // L(i) for a 1-D coordinate 0 <= i < size(L).
  template <class I>
  TESSERA_HD_INLINE constexpr I operator()(I i) const {
    return eval(i, std::make_index_sequence<kLeaves>{});
  }
  // L(c0, c1, ...): one 1-D coordinate per top-level mode.
  template <class I0, class... Is>
  TESSERA_HD_INLINE constexpr I0 operator()(I0 c0, Is... cs) const {
    static_assert(sizeof...(Is) + 1 == kRank, "static_layout: give one coordinate per top-level mode of the layout");
    return eval_modes(std::make_index_sequence<kRank>{}, c0, static_cast<I0>(cs)...);
  }

 private:
  template <class I, size_t... K>
  TESSERA_HD_INLINE static constexpr I eval(I i, std::index_sequence<K...>) {
    return (I(0) + ... + term<K>(i));
  }
  template <size_t K, class I>
  TESSERA_HD_INLINE static constexpr I term(I i) {
    constexpr Int s = kFlat.modes.s[K], d = kFlat.modes.d[K], p = kFlat.prefix[K];
    if constexpr (d == 0 || s == 1) {
      return I(0);
    } else if constexpr (K + 1 == kLeaves) {
      return (i / I(p)) * I(d);
    } else {
      return ((i / I(p)) % I(s)) * I(d);
    }
  }
  template <size_t... M, class I, class... Is>
  TESSERA_HD_INLINE static constexpr I eval_modes(std::index_sequence<M...>, I c0, Is... cs) {
    I c[] = {c0, cs...};
    return (I(0) + ... + StaticLayout<mode(L, int(M))>::eval(c[M], std::make_index_sequence<
                                                                         StaticLayout<mode(L, int(M))>::kLeaves>{}));
  }
  template <Layout>
  friend struct StaticLayout;
};

// static_layout<L>(i) or static_layout<L>(c0, c1, ...): L evaluated with unrolled code.
template <Layout L, class... Is>
TESSERA_HD_INLINE constexpr auto static_layout(Is... is) {
  return StaticLayout<L>{}(is...);
}

// Sw o L at compile time: the swizzle applied to L's index.
template <SwizzledLayout S>
struct StaticSwizzledLayout {
  static constexpr Int kSize = size(S.layout);
  template <class... Is>
  TESSERA_HD_INLINE constexpr auto operator()(Is... is) const {
    auto x = StaticLayout<S.layout>{}(is...);
    using I = decltype(x);
    // (x & yyy) >> S == (x >> S) & zzz for x >= 0: shift first, so that the mask and the
    // XOR fold into one three-input logic instruction (LOP3).
    constexpr Int zzz = S.swizzle.zzz_mask();
    constexpr int sh = S.swizzle.s;
    if constexpr (sh >= 0) {
      return static_cast<I>(x ^ ((x >> sh) & I(zzz)));
    } else {
      return static_cast<I>(x ^ ((x << -sh) & I(zzz)));
    }
  }
};

template <SwizzledLayout S, class... Is>
TESSERA_HD_INLINE constexpr auto static_swizzled_layout(Is... is) {
  return StaticSwizzledLayout<S>{}(is...);
}

}  // namespace tessera
