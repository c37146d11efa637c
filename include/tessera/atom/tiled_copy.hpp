// include/tessera/atom/tiled_copy.hpp -- views, thread-value layouts and tiled copies.
//
// A tiled copy = a copy atom x a thread layout x a value layout, as CuTe's make_tiled_copy:
//
//     thr layout  (TM,TN) -> thread index        e.g. (16,16):(16,1)  row-major threads
//     val layout  (VM,VN) -> value index          e.g. (1,4):(0,1)      4 values along n per thread
//     TV layout   make_tv_copy(vector atom, thr, val) (tensor/tv_layout.hpp):
//                 raked_product, right_inverse, composition
//                                                 (thread, value) -> 1-D tile coordinate (m fastest)
//
// Every one of these is computed by the layout algebra at compile time.  For the device code the TV
// layout is split, also at compile time, into a per-thread base coordinate and a constant offset per
// value: tile coordinate(t, v) = base(t) + offset(v).  That split is exact only for "separable" TV
// layouts (those of raked products are); the class checks it for every (t, v) and refuses others.
//
// A thread's values are grouped into atoms of Atom::kValues consecutive values, which must be
// consecutive tile coordinates along n (kAtomAlongN) or along m; the atom moves them with one instruction.
//
// Views: a view gives the address of element (m, n) of a tile.  Global-memory views carry run-time
// strides; shared-memory views carry a compile-time Layout (or swizzled layout) evaluated with
// static_layout (unrolled, no loops over run-time structure).
#pragma once

#include <type_traits>  // std::integral_constant
#include <utility>      // std::index_sequence

#include "tessera/atom/copy_atom.hpp"  // CopyAtom
#include "tessera/layout.hpp"          // Layout, static_layout
#include "tessera/tensor/tv_layout.hpp"  // TVCopy, make_tv_copy, copy_atom_vector

namespace tessera {

// ---------------------------------------------------------------------------------------------------
// Compile-time loops: static_for<N>(f) calls f(std::integral_constant<int, i>{}) for i = 0..N-1.
// ---------------------------------------------------------------------------------------------------
template <int kN, class F>
TESSERA_HD_INLINE constexpr void static_for(F&& f) {
  [&]<int... kI>(std::integer_sequence<int, kI...>) { (f(std::integral_constant<int, kI>{}), ...); }(
      std::make_integer_sequence<int, kN>{});
}

// ---------------------------------------------------------------------------------------------------
// Views
// ---------------------------------------------------------------------------------------------------

// (M,N):(ld,1) in memory, run-time ld.  Contiguous along n.
template <class T>
struct RowMajorView {
  using ValueType = T;
  T* ptr;
  Int ld;
  TESSERA_HD_INLINE T* at(Int m, Int n) const { return ptr + m * ld + n; }
  // The same view with its origin moved to element (m0, n0).
  TESSERA_HD_INLINE RowMajorView tile(Int m0, Int n0) const { return {at(m0, n0), ld}; }
};

// (M,N):(1,ld) in memory, run-time ld.  Contiguous along m.
template <class T>
struct ColMajorView {
  using ValueType = T;
  T* ptr;
  Int ld;
  TESSERA_HD_INLINE T* at(Int m, Int n) const { return ptr + m + n * ld; }
  TESSERA_HD_INLINE ColMajorView tile(Int m0, Int n0) const { return {at(m0, n0), ld}; }
};

// A compile-time layout over (shared) memory: element (m, n) at ptr[L(m, n)].
template <class T, Layout kL>
struct StaticView {
  using ValueType = T;
  static constexpr Layout kLayout = kL;
  T* ptr;
  TESSERA_HD_INLINE T* at(int m, int n) const { return ptr + StaticLayout<kL>{}(m, n); }
};

// A compile-time swizzled layout: element (m, n) at ptr[Sw(L(m, n))].
template <class T, SwizzledLayout kS>
struct SwizzledView {
  using ValueType = T;
  static constexpr SwizzledLayout kLayout = kS;
  T* ptr;
  TESSERA_HD_INLINE T* at(int m, int n) const { return ptr + StaticSwizzledLayout<kS>{}(m, n); }
};

// Register storage of one thread: N values, 16-byte aligned so that vector atoms may address it.
template <class T, int kN>
struct Fragment {
  alignas(16) T v[kN];
};

// ---------------------------------------------------------------------------------------------------
// TV layout split into base(t) + offset(v)
// ---------------------------------------------------------------------------------------------------
namespace detail {

template <int kValues>
struct ValueOffsets {
  int m[kValues] = {};
  int n[kValues] = {};
};

template <Layout kTV, int kTileM, int kValues>
constexpr ValueOffsets<kValues> value_offsets() {
  ValueOffsets<kValues> o;
  for (int v = 0; v < kValues; ++v) {
    const Int i = static_layout<kTV>(Int(0), Int(v));
    o.m[v] = static_cast<int>(i % kTileM);
    o.n[v] = static_cast<int>(i / kTileM);
  }
  return o;
}

// True when coordinate(t, v) == coordinate(t, 0) + coordinate(0, v) for every thread and value.
template <Layout kTV, int kTileM, int kThreads, int kValues>
constexpr bool tv_separable() {
  for (int t = 0; t < kThreads; ++t) {
    const Int it = static_layout<kTV>(Int(t), Int(0));
    for (int v = 0; v < kValues; ++v) {
      const Int iv = static_layout<kTV>(Int(0), Int(v));
      const Int i = static_layout<kTV>(Int(t), Int(v));
      if (i % kTileM != it % kTileM + iv % kTileM || i / kTileM != it / kTileM + iv / kTileM) return false;
    }
  }
  return true;
}

// Every (m, n) of the tile is owned by exactly one (thread, value).
template <Layout kTV, int kTileM, int kTileN, int kThreads, int kValues>
constexpr bool tv_bijective() {
  if (kThreads * kValues != kTileM * kTileN) return false;
  bool seen[kTileM * kTileN] = {};
  for (int t = 0; t < kThreads; ++t)
    for (int v = 0; v < kValues; ++v) {
      const Int i = static_layout<kTV>(Int(t), Int(v));
      if (i < 0 || i >= kTileM * kTileN || seen[i]) return false;
      seen[i] = true;
    }
  return true;
}

// Values a*kAV .. a*kAV+kAV-1 are consecutive along n (kAlongN) or along m.
template <int kValues, int kAV>
constexpr bool atoms_consecutive(const ValueOffsets<kValues>& o, bool along_n) {
  for (int a = 0; a < kValues / kAV; ++a)
    for (int j = 1; j < kAV; ++j) {
      const int v0 = a * kAV, v = v0 + j;
      if (along_n ? (o.m[v] != o.m[v0] || o.n[v] != o.n[v0] + j) : (o.n[v] != o.n[v0] || o.m[v] != o.m[v0] + j))
        return false;
    }
  return true;
}

}  // namespace detail

// A thread's partition of a tile view: value v of the thread is view.at(m + offset(v).m, n + offset(v).n).
template <class View>
struct ThrView {
  View view;
  int m;
  int n;
};

// One thread's share of a tiled copy: its base coordinate in the tile.
struct ThrCopy {
  int m;  // base(t).m
  int n;  // base(t).n
  // The thread's values of a source / destination tile (both tiles have the tiled copy's tile shape,
  // repeated kRepM x kRepN times; the algorithm in algorithm/copy.hpp walks the repetitions).
  template <class View>
  TESSERA_HD_INLINE ThrView<View> partition_S(const View& v) const { return {v, m, n}; }
  template <class View>
  TESSERA_HD_INLINE ThrView<View> partition_D(const View& v) const { return {v, m, n}; }
};

template <class Op, class T, Layout kThr, Layout kVal>
struct TiledCopy {
  using Atom = CopyAtom<Op, T>;
  using ValueType = T;
  static constexpr Layout kThrLayout = kThr;
  static constexpr Layout kValLayout = kVal;
  static constexpr int kThreads = static_cast<int>(size(kThr));
  static constexpr int kValues = static_cast<int>(size(kVal));  // values per thread per tile
  static_assert(rank(kThr) == 2 && rank(kVal) == 2, "TiledCopy: thread and value layouts must be rank 2, (M,N)");
  // The TV construction is the tensor layer's (make_tv_copy): one definition for kernels and tools.
  static constexpr TVCopy kTVCopy = make_tv_copy(copy_atom_vector(Atom::kValues), kThr, kVal);
  static constexpr int kTileM = static_cast<int>(size(kTVCopy.tiler.elem[0]));
  static constexpr int kTileN = static_cast<int>(size(kTVCopy.tiler.elem[1]));
  static constexpr Layout kLayoutTV = kTVCopy.tv;  // (THR,VAL) -> m + kTileM*n

  static_assert(detail::tv_bijective<kLayoutTV, kTileM, kTileN, kThreads, kValues>(),
                "TiledCopy: the TV layout must cover every tile element exactly once "
                "(thread and value layouts must be injective and compact)");
  static_assert(detail::tv_separable<kLayoutTV, kTileM, kThreads, kValues>(),
                "TiledCopy: TV layout is not separable into base(thread) + offset(value); use a raked thread x value "
                "arrangement");

  static constexpr detail::ValueOffsets<kValues> kOffsets = detail::value_offsets<kLayoutTV, kTileM, kValues>();
  static_assert(kValues % Atom::kValues == 0,
                "TiledCopy: each thread's value count must be a multiple of the atom's values (widen the value layout)");
  static constexpr int kAtoms = kValues / Atom::kValues;  // atom calls per thread per tile
  static constexpr bool kAtomAlongN = detail::atoms_consecutive<kValues, Atom::kValues>(kOffsets, true);
  static constexpr bool kAtomAlongM = detail::atoms_consecutive<kValues, Atom::kValues>(kOffsets, false);
  static_assert(kAtomAlongN || kAtomAlongM,
                "TiledCopy: an atom's values must be consecutive along n or along m in the tile "
                "(order the value layout so that the vector mode comes first)");

  // The base coordinate of thread `t` (0 <= t < kThreads).
  TESSERA_HD_INLINE static ThrCopy get_slice(int t) {
    const int i = StaticLayout<kLayoutTV>{}(t, 0);
    return ThrCopy{i % kTileM, i / kTileM};
  }
};

// make_tiled_copy<Op, T, thr, val>: the alias that reads like CuTe's make_tiled_copy(atom, thr, val).
template <class Op, class T, Layout kThr, Layout kVal>
using make_tiled_copy = TiledCopy<Op, T, kThr, kVal>;

}  // namespace tessera
