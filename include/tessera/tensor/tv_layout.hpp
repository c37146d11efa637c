// tessera/tensor/tv_layout.hpp -- thread-value (TV) layouts: who moves which element.
//
// A TV layout maps (thread, value) to a coordinate of a tile: TV(t, v) is the 1-D (column-major)
// index in the tile shape of the v-th element that thread t holds or moves.  Tessera describes
// copies and MMA fragments this way, and the analysers read the same layouts.
//
// make_tv_copy(atom, thr, val) (CuTe's construction): thread layout thr : (M',N') -> thread
// and value layout val : (m',n') -> value give
//     layout_mn = raked_product(thr, val)                     (M,N) -> thread + |thr| * value
//     tv        = right_inverse(layout_mn) o (|thr|,|val|)    (thread, value) -> (M,N) index
//     tile      = <shape of each mode of layout_mn>
// e.g. thr = (32,8):(8,1), val = (1,8): a (32,64) tile; thread t copies row t/8, columns
// 8*(t%8) .. 8*(t%8)+7.
//
// The atom is one instruction: thr_id maps its threads into the tiled copy's threads (1:0 for a
// one-thread atom, 32:1 for a warp-wide one); src and dst map (atom thread, atom value) to the
// element of the atom's reference layout `ref` (usually dst) that it reads or writes, all in
// elements of the copied type.  For a vector copy they are all (1,n):(0,1); for ldmatrix the
// source is "thread t supplies row t" and the destination is the register fragment.
//
// partition_S / partition_D (CuTe's tidfrg_S/D + slice): the part of a tensor that thread t
// reads / writes, shape (CPY, CPY_M, CPY_N, ...): CPY = (atom values, repetitions of the atom
// within the tile), then the tiles of the tensor.
#pragma once

#include "tessera/layout.hpp"           // Layout, Tiler, raked_product, right_inverse
#include "tessera/tensor/tensor.hpp"    // Tensor, MixedLayout, slicing

namespace tessera {

struct TVCopyAtom {
  Layout thr_id = make_layout(1, 0);  // atom thread -> tiled-copy thread
  Layout src = make_layout_of(make_layout(1, 0), make_layout(1, 1));  // (atom thr, atom val) -> ref element
  Layout dst = make_layout_of(make_layout(1, 0), make_layout(1, 1));
  Layout ref = make_layout_of(make_layout(1, 0), make_layout(1, 1));
  TESSERA_HD friend constexpr bool operator==(const TVCopyAtom& a, const TVCopyAtom& b) {
    return a.thr_id == b.thr_id && a.src == b.src && a.dst == b.dst && a.ref == b.ref;
  }
};

TESSERA_HD constexpr Int atom_threads(const TVCopyAtom& a) { return size(a.thr_id); }
TESSERA_HD constexpr Int atom_values(const TVCopyAtom& a) { return size(a.ref) / size(a.thr_id); }

// One thread copies `n` contiguous elements (a scalar or vector ld/st, cp.async of n elements).
TESSERA_HD constexpr TVCopyAtom copy_atom_vector(Int n) {
  TESSERA_REQUIRE(n >= 1, "copy_atom_vector: {} values per thread (need at least 1)", n);
  Layout v = make_layout_of(make_layout(1, 0), make_layout(n, 1));
  return TVCopyAtom{make_layout(1, 0), v, v, v};
}

struct TVCopy {
  TVCopyAtom atom;
  Layout tv;    // (thread, value) -> tile index (column-major in the tile shape)
  Tiler tiler;  // the tile shape, one integer per mode
  TESSERA_HD friend constexpr bool operator==(const TVCopy& a, const TVCopy& b) {
    return a.atom == b.atom && a.tv == b.tv && a.tiler == b.tiler;
  }
};

TESSERA_HD constexpr Int tiled_threads(const TVCopy& c) { return size(mode(c.tv, 0)); }
TESSERA_HD constexpr Int tiled_values(const TVCopy& c) { return size(mode(c.tv, 1)); }

// The tile of a tiled copy as a shape tuple (M,N,...).
TESSERA_HD constexpr IntTuple tile_shape(const Tiler& t) {
  IntTuple s = IntTuple::empty_tuple();
  for (int i = 0; i < t.n; ++i) s.push_back(IntTuple::leaf(size(t.elem[i])));
  return s;
}

// make_tv_copy(atom, thr, val), CuTe's make_tiled_copy.  Requires: |val| is a multiple of the atom's values, and the
// atom's thread count divides |thr|.
TESSERA_HD constexpr TVCopy make_tv_copy(const TVCopyAtom& atom, const Layout& thr, const Layout& val) {
  TESSERA_REQUIRE(size(val) % atom_values(atom) == 0, "make_tv_copy: the value layout has {} values per thread, not a multiple of the atom's {}",
                  size(val), atom_values(atom));
  TESSERA_REQUIRE(size(thr) % atom_threads(atom) == 0, "make_tv_copy: the thread layout has {} threads, not a multiple of the atom's {}", size(thr),
                  atom_threads(atom));
  Layout layout_mn = raked_product(thr, val);
  Layout tv = composition(right_inverse(layout_mn), make_layout(make_tuple(size(thr), size(val))));
  Tiler tiler;
  for (int i = 0; i < rank(layout_mn); ++i) tiler.push(product(layout_mn.shape.get(i)));
  TESSERA_REQUIRE(size(mode(tv, 0)) * size(mode(tv, 1)) == size(layout_mn), "make_tv_copy: thread x value layouts do not tile the {} elements of the tile (TV covers {})",
                  size(layout_mn), size(mode(tv, 0)) * size(mode(tv, 1)));
  return TVCopy{atom, tv, tiler};
}

// A TV copy from a TV layout and its tile (CuTe's make_tiled_copy_impl): (thread, value) -> tile index.
TESSERA_HD constexpr TVCopy tv_copy_from_layout(const TVCopyAtom& atom, const Layout& tv, const Tiler& tile) {
  TESSERA_REQUIRE(rank(tv) == 2, "tv_copy_from_layout: a TV layout has rank 2 (thread, value), got rank {}", rank(tv));
  TESSERA_REQUIRE(size(mode(tv, 1)) % atom_values(atom) == 0, "tv_copy_from_layout: {} values per thread, not a multiple of the atom's {}", size(mode(tv, 1)),
                  atom_values(atom));
  return TVCopy{atom, tv, tile};
}

namespace detail {

// zip(((a,b),(c,d))) = ((a,c),(b,d)) for a rank-2 layout whose two modes have rank 2.
TESSERA_HD constexpr Layout zip_modes(const Layout& l) {
  Layout m0 = mode(l, 0), m1 = mode(l, 1);
  Layout a = mode(m0, 0), b = mode(m0, 1), c = mode(m1, 0), d = mode(m1, 1);
  return make_layout_of(make_layout_of(a, c), make_layout_of(b, d));
}

// (thread, value) -> tile index for the target side (src or dst) of a tiled copy:
// ((trg_thr, rest_thr), (trg_val, rest_val)), thread mode coalesced, value modes coalesced each.
TESSERA_HD constexpr Layout thrval2mn(const TVCopy& c, bool source) {
  const TVCopyAtom& a = c.atom;
  Layout ref2trg = composition(right_inverse(a.ref), source ? a.src : a.dst);
  Tiler atom_tile;
  atom_tile.push(atom_threads(a));
  atom_tile.push(atom_values(a));
  Layout atom_tv = zipped_divide(c.tv, atom_tile);  // ((atom_tid,atom_val),(rest_tid,rest_val))
  Layout trg0 = composition(mode(atom_tv, 0), ref2trg);
  Layout trg_tv = make_layout_of(trg0, mode(atom_tv, 1));
  return coalesce(zip_modes(trg_tv), make_tuple(1, make_tuple(1, 1)));
}

}  // namespace detail

// The per-thread view of a tensor layout P (rank >= rank of the tile) under a tiled copy:
// (thread, value, (rest modes...)).  CuTe's tidfrg_S / tidfrg_D.
TESSERA_HD constexpr Layout tidfrg(const Layout& p, const TVCopy& c, bool source) {
  TESSERA_REQUIRE(c.tiler.n <= rank(p), "partition: a tiled copy of rank {} for a tensor of rank {}", c.tiler.n,
                  rank(p));
  detail::DividePlan dp = detail::zipped_divide_plan(p, c.tiler);
  TESSERA_REQUIRE(dp.nderived == 0 && detail::has_static_shape(dp.result.shape.get(0)), "partition: the tile modes of the tensor need static extents (local_tile it first)");
  Layout zipped = dp.result;
  Layout tile = mode(zipped, 0);
  Layout tv = composition(tile, detail::thrval2mn(c, source));  // (thr, val) -> tensor index
  return make_layout_of(mode(tv, 0), mode(tv, 1), mode(zipped, 1));
}

// (thread, value, (rest...)) for a plain TV layout over a tile (MMA fragments): TV(t, v) is the
// tile index that thread t holds as value v.
TESSERA_HD constexpr Layout tv_tidfrg(const Layout& p, const Layout& tv, const Tiler& tile) {
  detail::DividePlan dp = detail::zipped_divide_plan(p, tile);
  TESSERA_REQUIRE(dp.nderived == 0 && detail::has_static_shape(dp.result.shape.get(0)), "partition: the tile modes of the tensor need static extents (local_tile it first)");
  Layout composed = composition(mode(dp.result, 0), tv);
  return make_layout_of(mode(composed, 0), mode(composed, 1), mode(dp.result, 1));
}

namespace detail {
// Slice spec (thread fixed, value kept, every rest mode kept and lifted).
TESSERA_HD constexpr IntTuple thread_slice_spec(const Layout& frg) {
  IntTuple rest = frg.shape.get(2);
  IntTuple rest_spec = rest.is_leaf() ? IntTuple::leaf(1) : keep_all(rest.rank());
  return make_tuple(0, 1, rest_spec);
}

template <Layout F, class It, class L, class I>
TESSERA_HD_INLINE constexpr auto partition_thread(const Tensor<It, L>& t, I thr) {
  static_assert(std::is_integral_v<I>, "partition: the thread index must be an integer");
  constexpr IntTuple kSpec = thread_slice_spec(F);
  MixedLayout<F> lay = rebind<F>(t.layout);
  It it = t.iter;
  I c[1] = {thr};
  return slice_tensor<kSpec>(it, lay, c);
}
}  // namespace detail

// Thread thr's source elements of t: (CPY, CPY_M, CPY_N, ...).
template <TVCopy C, class It, Layout P, class I>
TESSERA_HD_INLINE constexpr auto partition_S(const Tensor<It, MixedLayout<P>>& t, I thr) {
  constexpr Layout F = tidfrg(P, C, true);
  return detail::partition_thread<F>(t, thr);
}
// Thread thr's destination elements of t: (CPY, CPY_M, CPY_N, ...).
template <TVCopy C, class It, Layout P, class I>
TESSERA_HD_INLINE constexpr auto partition_D(const Tensor<It, MixedLayout<P>>& t, I thr) {
  constexpr Layout F = tidfrg(P, C, false);
  return detail::partition_thread<F>(t, thr);
}
// Thread thr's elements of t under the TV layout TV over tiles of shape `Tile`: (V, REST_M, REST_N, ...).
template <Layout TV, Tiler Tile, class It, Layout P, class I>
TESSERA_HD_INLINE constexpr auto partition_tv(const Tensor<It, MixedLayout<P>>& t, I thr) {
  constexpr Layout F = tv_tidfrg(P, TV, Tile);
  return detail::partition_thread<F>(t, thr);
}

// Run-time (host) forms for tensors over a run-time Layout: thread thr's part, same shapes.
namespace detail {
template <class It>
inline Tensor<It, Layout> partition_thread_rt(const Tensor<It, Layout>& t, const Layout& f, Int thr) {
  SlicePlan plan = slice_plan(f, thread_slice_spec(f));
  Int off = slice_offset_rt(f, plan, &thr);
  return {advance(t.iter, off), plan.result};
}
}  // namespace detail
template <class It>
inline Tensor<It, Layout> partition_S(const TVCopy& c, const Tensor<It, Layout>& t, Int thr) {
  return detail::partition_thread_rt(t, tidfrg(t.layout, c, true), thr);
}
template <class It>
inline Tensor<It, Layout> partition_D(const TVCopy& c, const Tensor<It, Layout>& t, Int thr) {
  return detail::partition_thread_rt(t, tidfrg(t.layout, c, false), thr);
}

}  // namespace tessera
