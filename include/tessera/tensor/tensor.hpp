// tessera/tensor/tensor.hpp -- Tensor = iterator + layout; slicing, tiling, partitioning.
//
// A Tensor pairs an iterator (tessera/tensor/iterator.hpp) with a layout:
//   * MixedLayout<P> (tessera/tensor/mixed_layout.hpp): the structure is in the type, values
//     are compile-time or run-time; every operation below is computed on P at compile time and
//     the run-time part is a fold over leaves.  This is the form for device code.
//   * Layout: a run-time value (host code: tools, analysers, tests).  Same operations, computed
//     at run time by the same constexpr functions.
//
//     float* A; int M, K, ld;                                  // a row-major global matrix
//     auto mA  = make_tensor(make_gmem_ptr(A), make_row_major(M, K, ld)); // (M,K)
//     auto gA  = local_tile<make_tiler(128, 32)>(mA, make_coord(bm, _));   // (BLK_M,BLK_K,k)
//     auto tAgA = local_partition<kThr>(gA, threadIdx.x);                  // (THR_M,THR_K,k)
//     auto rA  = make_fragment_like<float>(tAgA(_, _, 0));                 // (THR_M,THR_K)
//
// Operations (CuTe's names and semantics):
//   t(c...)                         element, or a slice when a coordinate holds `_`
//   zipped_divide<T>(t), tiled_divide<T>(t), flat_divide<T>(t)   the algebra's divides on t's layout
//   local_tile<T>(t, coord)         inner partition: the tile at `coord` of the rest modes
//   local_partition<Thr>(t, idx)    outer partition: thread idx's elements, strided by Thr's shape
//   make_identity_tensor            coordinate tensors for bounds predication
//   make_fragment<T, L>(), make_fragment_like<T>(t)   owning register tensors with constexpr layouts
//   recast<U>(t)                    the same memory as elements of another size
#pragma once

#include <type_traits>  // std::is_integral_v, std::common_type_t
#include <utility>      // std::index_sequence

#include "tessera/layout.hpp"                // Layout, Tiler, divides
#include "tessera/tensor/iterator.hpp"       // deref, advance, ArrayEngine, CountingIterator
#include "tessera/tensor/mixed_layout.hpp"   // MixedLayout
#include "tessera/tensor/slice.hpp"          // _, Coord, slice_plan

namespace tessera {

template <class Iter, class L>
struct Tensor;

namespace detail {

// Common integer type of the integers in a coordinate (int when there are none).
template <class T>
struct coord_int {
  using type = std::conditional_t<std::is_integral_v<T>, T, int>;
};
template <class... Ts>
struct coord_int<Coord<Ts...>> {
  using type = std::common_type_t<int, typename coord_int<Ts>::type...>;
};
template <class... Args>
using coord_int_t = std::common_type_t<int, typename coord_int<Args>::type...>;

template <class... Args>
TESSERA_HD_INLINE constexpr auto args_as_coord(Args... args) {
  if constexpr (sizeof...(Args) == 1) {
    return (args, ...);
  } else {
    return make_coord(args...);
  }
}

// Copies the run-time values of a MixedLayout into one with another profile that uses a prefix
// of the same symbols.
template <Layout R, Layout P>
TESSERA_HD_INLINE constexpr MixedLayout<R> rebind(const MixedLayout<P>& from) {
  MixedLayout<R> to{};
  static_assert(MixedLayout<R>::kShapeSymbols <= sym::kMaxSymbols, "rebind: too many run-time extents");
  if constexpr (MixedLayout<R>::kShapeSymbols > 0) {
    static_assert(MixedLayout<R>::kShapeSymbols <= MixedLayout<P>::kShapeSymbols,
                  "rebind: the new layout uses a run-time extent the old one lacks");
    for (int j = 0; j < MixedLayout<R>::kShapeSymbols; ++j) to.dyn_shape[j] = from.dyn_shape[j];
  }
  if constexpr (MixedLayout<R>::kStrideSymbols > 0) {
    static_assert(MixedLayout<R>::kStrideSymbols <= MixedLayout<P>::kStrideSymbols,
                  "rebind: the new layout uses a run-time stride the old one lacks");
    for (int j = 0; j < MixedLayout<R>::kStrideSymbols; ++j) to.dyn_stride[j] = from.dyn_stride[j];
  }
  return to;
}

// Sum over the fixed elements of a slice: mode value at its coordinate (unrolled).
template <Layout P, SlicePlan kPlan, class I, size_t... F>
TESSERA_HD_INLINE constexpr auto slice_offset(const MixedLayout<P>& l, const I* c, std::index_sequence<F...>) {
  (void)l;
  (void)c;
  return (I(0) + ... + l.template eval_range<kPlan.lo[F], kPlan.hi[F]>(c[F]));
}

// Run-time offset of a slice of a run-time Layout.
TESSERA_HD constexpr Int slice_offset_rt(const Layout& l, const SlicePlan& plan, const Int* c) {
  Modes m = flat_modes(l);
  Int off = 0;
  for (int f = 0; f < plan.nfixed; ++f) {
    Int x = c[f];
    for (int k = plan.lo[f]; k < plan.hi[f]; ++k) {
      if (k + 1 == plan.hi[f]) {
        off += x * m.d[k];
      } else {
        off += (x % m.s[k]) * m.d[k];
        x /= m.s[k];
      }
    }
  }
  return off;
}

}  // namespace detail

// ==================================================================== slicing
namespace detail {

// Slices (iterator, layout) by a coordinate of compile-time shape kSpec whose integers are c[0..).
// Returns the element when nothing is kept, else the sliced tensor.
template <IntTuple kSpec, class It, Layout P, class I>
TESSERA_HD_INLINE constexpr decltype(auto) slice_tensor(It& it, const MixedLayout<P>& lay, const I* c) {
  constexpr SlicePlan kPlan = slice_plan(P, kSpec);
  auto off = slice_offset<P, kPlan>(lay, c, std::make_index_sequence<kPlan.nfixed>{});
  if constexpr (kPlan.nkept == 0) {
    return deref(it, static_cast<Int>(off));
  } else {
    constexpr Layout R = kPlan.result;
    auto adv = advance(it, static_cast<Int>(off));
    return Tensor<decltype(adv), MixedLayout<R>>{adv, rebind<R>(lay)};
  }
}
template <IntTuple kSpec, class It, class I>
TESSERA_HD_INLINE constexpr decltype(auto) slice_tensor(It& it, const Layout& lay, const I* c) {
  SlicePlan plan = slice_plan(lay, kSpec);
  Int cc[SlicePlan::kMax] = {};
  for (int f = 0; f < plan.nfixed; ++f) cc[f] = static_cast<Int>(c[f]);
  Int off = slice_offset_rt(lay, plan, cc);
  if constexpr (count_leaves_equal(kSpec, 1) == 0) {
    return deref(it, off);
  } else {
    auto adv = advance(it, off);
    return Tensor<decltype(adv), Layout>{adv, plan.result};
  }
}

template <class... Args, class It, class Lay>
TESSERA_HD_INLINE constexpr decltype(auto) access(It& it, const Lay& lay, Args... args) {
  constexpr IntTuple kSpec = args_spec<Args...>();
  constexpr int kFixed = count_leaves_equal(kSpec, 0);
  using I = coord_int_t<Args...>;
  Int tmp[kFixed > 0 ? kFixed : 1] = {};
  I c[kFixed > 0 ? kFixed : 1] = {};
  int pos = 0;
  collect_fixed(args_as_coord(args...), tmp, pos);
  for (int f = 0; f < kFixed; ++f) c[f] = static_cast<I>(tmp[f]);
  return slice_tensor<kSpec>(it, lay, c);
}

}  // namespace detail

// ==================================================================== Tensor
template <class Iter, class L>
struct Tensor {
  using iterator = Iter;
  using layout_type = L;
  Iter iter;
  [[no_unique_address]] L layout;

  static constexpr bool kMixed = is_mixed_layout_v<L>;

  // Element at a coordinate, or a sliced tensor when the coordinate holds `_`.
  template <class... Args>
  TESSERA_HD_INLINE constexpr decltype(auto) operator()(Args... args) {
    return detail::access<Args...>(iter, layout, args...);
  }
  template <class... Args>
  TESSERA_HD_INLINE constexpr decltype(auto) operator()(Args... args) const {
    return detail::access<Args...>(iter, layout, args...);
  }
  // Element at a 1-D coordinate.
  template <class I>
  TESSERA_HD_INLINE constexpr decltype(auto) operator[](I i) {
    static_assert(std::is_integral_v<I>, "tensor[i]: i must be an integer (use t(...) for coordinates)");
    return detail::access<I>(iter, layout, i);
  }
  template <class I>
  TESSERA_HD_INLINE constexpr decltype(auto) operator[](I i) const {
    static_assert(std::is_integral_v<I>, "tensor[i]: i must be an integer (use t(...) for coordinates)");
    return detail::access<I>(iter, layout, i);
  }

  TESSERA_HD_INLINE constexpr Int size() const {
    if constexpr (kMixed) {
      return layout.size();
    } else {
      return tessera::size(layout);
    }
  }
  // The concrete layout (run-time values filled in).
  TESSERA_HD constexpr Layout layout_value() const {
    if constexpr (kMixed) {
      return layout.value();
    } else {
      return layout;
    }
  }
};

template <class T>
inline constexpr bool is_tensor_v = false;
template <class I, class L>
inline constexpr bool is_tensor_v<Tensor<I, L>> = true;

// Size of a tensor, or of one of its top-level modes (compile-time constant where static).
template <class I, class L>
TESSERA_HD_INLINE constexpr Int size(const Tensor<I, L>& t) {
  return t.size();
}
template <int M, class I, Layout P>
TESSERA_HD_INLINE constexpr Int size(const Tensor<I, MixedLayout<P>>& t) {
  return t.layout.template mode_size<M>();
}

// ------------------------------------------------------------------ construction
template <class Iter, Layout P>
TESSERA_HD_INLINE constexpr Tensor<Iter, MixedLayout<P>> make_tensor(Iter it, const MixedLayout<P>& l) {
  return {it, l};
}
// A tensor over a run-time layout (host code; device code should use a MixedLayout).
template <class Iter>
TESSERA_HD_INLINE constexpr Tensor<Iter, Layout> make_tensor(Iter it, const Layout& l) {
  return {it, l};
}
// A tensor with the compile-time layout L: make_tensor<L>(ptr).
template <Layout L, class Iter>
TESSERA_HD_INLINE constexpr Tensor<Iter, MixedLayout<L>> make_tensor(Iter it) {
  static_assert(detail::is_fully_static(L), "make_tensor<L>: L must be a compile-time layout");
  return {it, {}};
}

// An owning register tensor with the compile-time layout L (cosize(L) elements of T).
template <class T, Layout L>
TESSERA_HD_INLINE constexpr Tensor<ArrayEngine<T, cosize(L)>, MixedLayout<L>> make_fragment() {
  static_assert(detail::is_fully_static(L), "make_fragment: the layout of a register fragment must be static");
  return {};
}

// An owning register tensor with the shape of t (compact, column-major).
template <class T, class Iter, Layout P>
TESSERA_HD_INLINE constexpr auto make_fragment_like(const Tensor<Iter, MixedLayout<P>>&) {
  static_assert(detail::has_static_shape(P.shape),
                "make_fragment_like: the tensor's shape must be static (slice away run-time modes first)");
  constexpr Layout L = make_layout(P.shape);
  return make_fragment<T, L>();
}

// ==================================================================== divides on tensors
namespace detail {

// zipped_divide of a (possibly mixed) profile P by a tiler.  Modes with static extents use the
// algebra; a single-leaf mode with a run-time extent s divided by an integer n becomes
// (n, ceil(s/n)):(d, n*d), the rest extent a new run-time value.
struct DividePlan {
  static constexpr int kMax = sym::kMaxSymbols;
  Layout result;
  int nderived = 0;
  int new_sym[kMax] = {};
  int old_sym[kMax] = {};
  Int divisor[kMax] = {};
};

TESSERA_HD constexpr DividePlan zipped_divide_plan(const Layout& p, const Tiler& t) {
  TESSERA_REQUIRE(t.n <= rank(p), "zipped_divide: a tiler with {} modes for a tensor of rank {}", t.n, rank(p));
  DividePlan plan;
  int next_sym = shape_symbol_count(p);
  Layout by_mode{IntTuple::empty_tuple(), IntTuple::empty_tuple()};
  for (int i = 0; i < rank(p); ++i) {
    Layout mi = mode(p, i);
    Layout r = mi;
    if (i < t.n) {
      if (has_static_shape(mi.shape)) {
        r = logical_divide(mi, t.elem[i]);
      } else {
        TESSERA_REQUIRE(mi.shape.is_leaf(), "zipped_divide: mode {} has a run-time extent and is hierarchical; only a single run-time "
                        "extent can be divided",
                        i);
        Layout ti = t.elem[i];
        Int n = size(ti);
        TESSERA_REQUIRE(t.is_int[i] || ti == make_layout(n, 1) || n == 1, "zipped_divide: mode {} has a run-time extent; divide it by an integer tile (got a tile of "
                        "size {} that is not n:1)",
                        i, n);
        TESSERA_REQUIRE(next_sym < sym::kMaxSymbols, "zipped_divide: more than {} run-time extents", sym::kMaxSymbols);
        Int d = mi.stride.value();
        r = make_layout_of(make_layout(n, n == 1 ? 0 : d), make_layout(sym::dynamic_shape(next_sym), n * d));
        plan.new_sym[plan.nderived] = next_sym;
        plan.old_sym[plan.nderived] = sym::shape_symbol(mi.shape.value());
        plan.divisor[plan.nderived] = n;
        ++plan.nderived;
        ++next_sym;
      }
    }
    by_mode.shape.push_back(r.shape);
    by_mode.stride.push_back(r.stride);
  }
  plan.result = tile_unzip(by_mode, t);
  return plan;
}
TESSERA_HD constexpr DividePlan zipped_divide_plan(const Layout& p, const Layout& t) {
  TESSERA_REQUIRE(has_static_shape(p.shape), "zipped_divide: dividing by a layout needs static extents in every mode");
  DividePlan plan;
  plan.result = zipped_divide(p, t);
  return plan;
}

template <Layout R, DividePlan kPlan, Layout P>
TESSERA_HD_INLINE constexpr MixedLayout<R> apply_divide(const MixedLayout<P>& from) {
  MixedLayout<R> to{};
  if constexpr (MixedLayout<R>::kShapeSymbols > 0) {
    for (int j = 0; j < MixedLayout<P>::kShapeSymbols; ++j) to.dyn_shape[j] = from.dyn_shape[j];
    for (int k = 0; k < kPlan.nderived; ++k) {
      Int s = from.dyn_shape[kPlan.old_sym[k]];
      to.dyn_shape[kPlan.new_sym[k]] = (s + kPlan.divisor[k] - 1) / kPlan.divisor[k];
    }
  }
  if constexpr (MixedLayout<R>::kStrideSymbols > 0)
    for (int j = 0; j < MixedLayout<R>::kStrideSymbols; ++j) to.dyn_stride[j] = from.dyn_stride[j];
  return to;
}

// Unpacks ((tiles),(rests)) as the divides do: tiled keeps the tile mode, flat splices both.
TESSERA_HD constexpr Layout unpack_divided(const Layout& zipped, bool splice_tile) {
  Layout r{IntTuple::empty_tuple(), IntTuple::empty_tuple()};
  for (int part = 0; part < 2; ++part) {
    Layout m = mode(zipped, part);
    bool splice = part == 1 || splice_tile;
    if (splice && m.shape.is_tuple()) {
      for (int i = 0; i < m.shape.rank(); ++i) {
        r.shape.push_back(m.shape.get(i));
        r.stride.push_back(m.stride.get(i));
      }
    } else {
      r.shape.push_back(m.shape);
      r.stride.push_back(m.stride);
    }
  }
  return r;
}

// A spec of n placeholder leaves (n > 0): (1,1,...,1).
TESSERA_HD constexpr IntTuple keep_all(int n) {
  IntTuple t = IntTuple::empty_tuple();
  for (int i = 0; i < n; ++i) t.push_back(IntTuple::leaf(1));
  return t;
}
// A spec of n fixed leaves: (0,0,...,0).
TESSERA_HD constexpr IntTuple fix_all(int n) {
  IntTuple t = IntTuple::empty_tuple();
  for (int i = 0; i < n; ++i) t.push_back(IntTuple::leaf(0));
  return t;
}

}  // namespace detail

// zipped_divide<T>(t): ((tile modes),(rest modes)).  T is a by-mode Tiler or a Layout.
template <auto T, class It, Layout P>
TESSERA_HD_INLINE constexpr auto zipped_divide(const Tensor<It, MixedLayout<P>>& t) {
  constexpr detail::DividePlan kPlan = detail::zipped_divide_plan(P, T);
  constexpr Layout R = kPlan.result;
  return Tensor<It, MixedLayout<R>>{t.iter, detail::apply_divide<R, kPlan>(t.layout)};
}
// tiled_divide<T>(t): ((tile modes), rest0, rest1, ...).
template <auto T, class It, Layout P>
TESSERA_HD_INLINE constexpr auto tiled_divide(const Tensor<It, MixedLayout<P>>& t) {
  constexpr detail::DividePlan kPlan = detail::zipped_divide_plan(P, T);
  constexpr Layout R = detail::unpack_divided(kPlan.result, false);
  return Tensor<It, MixedLayout<R>>{t.iter, detail::apply_divide<R, kPlan>(t.layout)};
}
// flat_divide<T>(t): (tile0, tile1, ..., rest0, rest1, ...).
template <auto T, class It, Layout P>
TESSERA_HD_INLINE constexpr auto flat_divide(const Tensor<It, MixedLayout<P>>& t) {
  constexpr detail::DividePlan kPlan = detail::zipped_divide_plan(P, T);
  constexpr Layout R = detail::unpack_divided(kPlan.result, true);
  return Tensor<It, MixedLayout<R>>{t.iter, detail::apply_divide<R, kPlan>(t.layout)};
}
// Run-time layouts (host): the algebra's divides.
template <class It, class T>
inline Tensor<It, Layout> zipped_divide(const Tensor<It, Layout>& t, const T& tiler) {
  return {t.iter, zipped_divide(t.layout, tiler)};
}
template <class It, class T>
inline Tensor<It, Layout> tiled_divide(const Tensor<It, Layout>& t, const T& tiler) {
  return {t.iter, tiled_divide(t.layout, tiler)};
}

// ==================================================================== partitions
namespace detail {
// Slice spec of local_tile: keep the tile modes, index the rest modes by the coordinate (missing
// trailing rest modes are kept).
TESSERA_HD constexpr IntTuple local_tile_spec(const Layout& zipped, const IntTuple& coord) {
  IntTuple tile = zipped.shape.get(0), rest_shape = zipped.shape.get(1);
  int r0 = tile.rank(), r1 = rest_shape.rank();
  IntTuple rest = coord;
  if (rest.is_tuple()) {
    TESSERA_REQUIRE(rest.rank() <= r1, "local_tile: a coordinate of {} elements for {} rest modes", rest.rank(), r1);
    while (rest.rank() < r1) rest.push_back(IntTuple::leaf(1));
    if (rest_shape.is_leaf()) rest = rest.get(0);
  }
  return make_tuple(tile.is_leaf() ? IntTuple::leaf(1) : keep_all(r0), rest);
}
}  // namespace detail

namespace detail {
// Slices a divided tensor by spec kSpec, taking the fixed (0) positions of the spec from the integers
// of `coord` in order: the common tail of local_tile and outer_partition.
template <IntTuple kSpec, class Tiled, class C>
TESSERA_HD_INLINE constexpr auto slice_by_coord(const Tiled& tiled, C coord) {
  constexpr int kFixed = count_leaves_equal(kSpec, 0);
  using I = coord_int_t<C>;
  Int tmp[kFixed > 0 ? kFixed : 1] = {};
  I c[kFixed > 0 ? kFixed : 1] = {};
  int pos = 0;
  collect_fixed(coord, tmp, pos);
  for (int f = 0; f < kFixed; ++f) c[f] = static_cast<I>(tmp[f]);
  return slice_tensor<kSpec>(tiled.iter, tiled.layout, c);
}
}  // namespace detail

// local_tile<T>(t, coord) -- the inner partition: divide t by the tiler T and select the tile
// at `coord` of the rest modes.  coord may hold `_` (and may be shorter than the rest: missing
// trailing modes are kept):
//     local_tile<make_tiler(128, 32)>(mA (M,K), make_coord(bm, _))  ->  (128,32,ceil(K/32))
// A single integer coord is a 1-D index over all tiles.
template <auto T, class It, class L, class C>
TESSERA_HD_INLINE constexpr auto local_tile(const Tensor<It, L>& t, C coord) {
  static_assert(is_mixed_layout_v<L>, "local_tile<T>: the tensor needs a MixedLayout (use the run-time overload)");
  auto tiled = zipped_divide<T>(t);
  constexpr Layout Z = decltype(tiled.layout)::kProfile;
  constexpr IntTuple kSpec = detail::local_tile_spec(Z, detail::coord_spec<C>());
  return detail::slice_by_coord<kSpec>(tiled, coord);
}

// inner_partition<T>(t, coord): CuTe's name for local_tile.
template <auto T, class It, class L, class C>
TESSERA_HD_INLINE constexpr auto inner_partition(const Tensor<It, L>& t, C coord) {
  return local_tile<T>(t, coord);
}

namespace detail {
// Slice spec of outer_partition: index the tile modes by the coordinate (missing trailing tile
// modes are kept), keep every rest mode.
TESSERA_HD constexpr IntTuple outer_partition_spec(const Layout& zipped, const IntTuple& coord) {
  IntTuple tile_shape = zipped.shape.get(0), rest_shape = zipped.shape.get(1);
  IntTuple tile = coord;
  if (tile.is_tuple()) {
    TESSERA_REQUIRE(tile.rank() <= tile_shape.rank(), "outer_partition: a coordinate of {} elements for {} tile modes",
                    tile.rank(), tile_shape.rank());
    while (tile.rank() < tile_shape.rank()) tile.push_back(IntTuple::leaf(1));
    if (tile_shape.is_leaf()) tile = tile.get(0);
  }
  return make_tuple(tile, rest_shape.is_leaf() ? IntTuple::leaf(1) : keep_all(rest_shape.rank()));
}
}  // namespace detail

// outer_partition<T>(t, coord): divide t by the tiler T and keep, from every tile, the element
// at `coord` within the tile: the result has the rest modes.
//     outer_partition<make_tiler(32, 8)>(sA (128,32), make_coord(3, 5))   // (4,4): rows 3+32i, cols 5+8j
template <auto T, class It, class L, class C>
TESSERA_HD_INLINE constexpr auto outer_partition(const Tensor<It, L>& t, C coord) {
  static_assert(is_mixed_layout_v<L>, "outer_partition<T>: the tensor needs a MixedLayout");
  auto tiled = zipped_divide<T>(t);
  constexpr Layout Z = decltype(tiled.layout)::kProfile;
  constexpr IntTuple kSpec = detail::outer_partition_spec(Z, detail::coord_spec<C>());
  return detail::slice_by_coord<kSpec>(tiled, coord);
}

namespace detail {

// Flat coordinate of thread `idx` in the thread layout Thr: per top-level mode, the 1-D
// (column-major) coordinate of the hierarchical coordinate ((idx / d_k) % s_k)_k.
template <Layout Thr, int K, int Hi, class I>
TESSERA_HD_INLINE constexpr I thread_mode_coord(I idx) {
  constexpr Modes kFlat = flat_modes(Thr);
  if constexpr (K >= Hi) {
    return I(0);
  } else {
    constexpr Int s = kFlat.s[K], d = kFlat.d[K];
    if constexpr (d == 0 || s == 1) {
      return I(s) * thread_mode_coord<Thr, K + 1, Hi>(idx);
    } else {
      return I((idx / I(d)) % I(s)) + I(s) * thread_mode_coord<Thr, K + 1, Hi>(idx);
    }
  }
}

TESSERA_HD constexpr Tiler shape_tiler(const Layout& thr) {
  Tiler t;
  for (int i = 0; i < rank(thr); ++i) t.push(product(thr.shape.get(i)));
  return t;
}

template <Layout Thr, class I, size_t... M>
TESSERA_HD_INLINE constexpr void thread_coords(I idx, I* out, std::index_sequence<M...>) {
  constexpr ModeLeaves kML = mode_leaves(Thr);
  ((out[M] = thread_mode_coord<Thr, kML.begin[M], kML.begin[M + 1]>(idx)), ...);
}

}  // namespace detail

// local_partition<Thr>(t, idx) -- the outer partition: divide t by Thr's shape and keep, for
// thread idx, the elements at its coordinate in every tile.  Thr maps a thread coordinate to
// the thread index (e.g. (32,8):(8,1): 8 consecutive threads along mode 1).  The result has
// the rest modes: for t of shape (M,N) and Thr of shape (TM,TN), (M/TM, N/TN).
//     tAsA = local_partition<make_layout(make_tuple(32,8), make_tuple(8,1))>(sA (128,32), tid);  // (4,4)
template <Layout Thr, class It, class L, class I>
TESSERA_HD_INLINE constexpr auto local_partition(const Tensor<It, L>& t, I idx) {
  static_assert(std::is_integral_v<I>, "local_partition: the thread index must be an integer");
  static_assert(is_mixed_layout_v<L>, "local_partition<Thr>: the tensor needs a MixedLayout");
  static_assert(detail::is_fully_static(Thr), "local_partition<Thr>: the thread layout must be static");
  constexpr Tiler kTiler = detail::shape_tiler(Thr);
  auto tiled = zipped_divide<kTiler>(t);
  constexpr Layout Z = decltype(tiled.layout)::kProfile;
  constexpr int kR0 = rank(Thr);
  constexpr int kR1 = rank(mode(Z, 1));
  constexpr IntTuple kSpec =
      make_tuple(kR0 == 1 && Z.shape.get(0).is_leaf() ? IntTuple::leaf(0) : detail::fix_all(kR0),
                 kR1 == 1 && Z.shape.get(1).is_leaf() ? IntTuple::leaf(1) : detail::keep_all(kR1));
  I c[kR0] = {};
  detail::thread_coords<Thr>(idx, c, std::make_index_sequence<kR0>{});
  return detail::slice_tensor<kSpec>(tiled.iter, tiled.layout, c);
}

// ==================================================================== identity tensors
namespace detail {
// Strides of an identity tensor: mode m's coordinate in field m (see CountingIterator).
TESSERA_HD constexpr Layout identity_layout(const IntTuple& shape) {
  int r = shape.rank();
  TESSERA_REQUIRE(r >= 1 && r <= kIdentityMaxRank, "make_identity_tensor: rank {} (identity tensors have rank 1 to 4)",
                  r);
  int bits = kIdentityFieldBits[r];
  if (shape.is_leaf()) return make_layout(shape, compact_col_major(shape));
  IntTuple stride = IntTuple::empty_tuple();
  for (int m = 0; m < r; ++m) {
    IntTuple sm = shape.get(m);
    if (has_static_shape(sm))
      TESSERA_REQUIRE(product(sm) <= (Int(1) << bits), "make_identity_tensor: mode {} has {} elements; a rank-{} identity tensor holds at most 2^" "{} "
                      "per mode",
                      m, product(sm), r);
    IntTuple st = sm;
    Int cur = Int(1) << (bits * m);
    for (int k = 0; k < st.nodes; ++k)
      if (st.arity[k] < 0) {
        Int s = st.val[k];
        st.val[k] = cur;
        cur *= sym::is_dynamic_shape(s) ? 1 : s;
      }
    stride.push_back(st);
  }
  return Layout{shape, stride};
}
}  // namespace detail

// An identity tensor of the static shape S: t(c) is the coordinate c itself (one 1-D
// coordinate per top-level mode), for bounds predication of partitioned tiles.
template <IntTuple S>
TESSERA_HD_INLINE constexpr auto make_identity_tensor() {
  constexpr Layout L = detail::identity_layout(S);
  return Tensor<CountingIterator<S.rank()>, MixedLayout<L>>{{0}, {}};
}
// An identity tensor of run-time extents (m, n).
TESSERA_HD_INLINE constexpr auto make_identity_tensor(Int m, Int n) {
  constexpr Layout L = detail::identity_layout(make_tuple(sym::dynamic_shape(0), sym::dynamic_shape(1)));
  TESSERA_REQUIRE(m >= 0 && n >= 0 && m <= (Int(1) << 31) && n <= (Int(1) << 31), "make_identity_tensor: extents ({}, {}) must lie in [0, 2^31]", m, n);
  return Tensor<CountingIterator<2>, MixedLayout<L>>{{0}, make_mixed_layout<L>(m, n)};
}

// ==================================================================== recast
namespace detail {
// The layout of the same memory seen as elements `num/den` times as large (num or den is 1).
// upcast by n: the unit-stride leaf's extent and every other stride are divided by n.
// downcast by n: the unit-stride leaf's extent and every other stride are multiplied by n.
TESSERA_HD constexpr Layout recast_layout(const Layout& l, Int from_bytes, Int to_bytes) {
  Layout r = l;
  if (from_bytes == to_bytes) return r;
  bool up = to_bytes > from_bytes;
  Int n = up ? to_bytes / from_bytes : from_bytes / to_bytes;
  TESSERA_REQUIRE((up ? to_bytes % from_bytes : from_bytes % to_bytes) == 0, "recast: element sizes {} and {} bytes do not divide one another", from_bytes, to_bytes);
  bool unit_seen = false;
  for (int k = 0; k < r.shape.nodes; ++k) {
    if (r.shape.arity[k] >= 0) continue;
    Int& s = r.shape.val[k];
    Int& d = r.stride.val[k];
    if (d == 0 || s == 1) continue;
    if (d == 1 || d == -1) {
      TESSERA_REQUIRE(!sym::is_dynamic_shape(s), "recast: the unit-stride mode has a run-time extent");
      unit_seen = true;
      if (up) {
        TESSERA_REQUIRE(s % n == 0, "recast: the unit-stride extent {} is not divisible by {}", s, n);
        s /= n;
      } else {
        s *= n;
      }
      continue;
    }
    Int coef = sym::stride_coef(d);
    if (up) {
      TESSERA_REQUIRE(coef % n == 0, "recast: stride {} is not divisible by {} (elements would straddle)", coef, n);
      d /= n;
    } else {
      d *= n;
    }
  }
  TESSERA_REQUIRE(unit_seen || !up || n == 1, "recast: no unit-stride mode to widen (upcast by {})", n);
  return r;
}
}  // namespace detail

// recast<U>(t): the same memory as elements of type U.  Widening needs a unit-stride mode whose
// extent, and every other stride, is divisible by sizeof(U)/sizeof(T); the pointer must be
// aligned for U (checked on the host by recast_aligned).
template <class U, class T, Layout P>
TESSERA_HD_INLINE constexpr auto recast(const Tensor<T*, MixedLayout<P>>& t) {
  constexpr Layout R = detail::recast_layout(P, sizeof(T), sizeof(U));
  return Tensor<U*, MixedLayout<R>>{reinterpret_cast<U*>(t.iter), detail::rebind<R>(t.layout)};
}
template <class U, class T, MemSpace S, Layout P>
TESSERA_HD_INLINE constexpr auto recast(const Tensor<MemPtr<T, S>, MixedLayout<P>>& t) {
  constexpr Layout R = detail::recast_layout(P, sizeof(T), sizeof(U));
  return Tensor<MemPtr<U, S>, MixedLayout<R>>{{reinterpret_cast<U*>(t.iter.ptr)}, detail::rebind<R>(t.layout)};
}
template <class U, class T>
inline Tensor<U*, Layout> recast(const Tensor<T*, Layout>& t) {
  return {reinterpret_cast<U*>(t.iter), detail::recast_layout(t.layout, sizeof(T), sizeof(U))};
}

}  // namespace tessera
