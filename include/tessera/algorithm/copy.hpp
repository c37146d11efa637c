// include/tessera/algorithm/copy.hpp -- the generic copy verbs over tiled copies.
//
//     copy<kRepM,kRepN>(tiled, tXsX, tXdX, residue)   memory -> memory (e.g. cp.async global -> shared)
//     copy<kRepM,kRepN>(tiled, tXsX, frag, residue)   memory -> registers
//     copy<kRepM,kRepN>(tiled, frag, tXdX, residue)   registers -> memory
//
// The tile is the tiled copy's tile repeated kRepM x kRepN times: (kRepM*kTileM, kRepN*kTileN).
// Predication: `residue` is the extent of the valid region measured from the tile origin, (rows, cols);
// when it covers the whole tile the copy runs unpredicated.  Otherwise each atom is classified by how
// many of its values lie inside: all (one vector instruction), some (element by element; an asynchronous
// atom instead copies the valid bytes and zero-fills the rest), none (skipped; an asynchronous atom
// zero-fills its destination).  So a tile hanging over the edge of the tensor never touches memory
// outside it, and shared memory behind the edge holds zeros.
//
// Fragment layout: value v of repetition (rm, rn) is frag.v[(rm*kRepN + rn)*kValues + v], so tiled
// copies with the same thread and value layouts but different atoms (say a scalar shared-memory read
// and a 128-bit global store) agree on the fragment.
#pragma once

#include "tessera/atom/tiled_copy.hpp"  // TiledCopy, ThrView, Fragment, static_for

namespace tessera {

// Valid extent (rows, cols) from a tile's origin.
struct Residue {
  Int m;
  Int n;
};

namespace detail {

// Number of valid values of the atom starting at tile coordinate (m, n).
template <int kAV, bool kAlongN>
TESSERA_HD_INLINE int atom_valid(Int m, Int n, Residue r) {
  if constexpr (kAlongN) {
    if (m >= r.m || n >= r.n) return 0;
    const Int left = r.n - n;
    return left >= kAV ? kAV : static_cast<int>(left);
  } else {
    if (n >= r.n || m >= r.m) return 0;
    const Int left = r.m - m;
    return left >= kAV ? kAV : static_cast<int>(left);
  }
}

template <class T>
TESSERA_HD_INLINE void copy_value(const T* src, T* dst) {
  UniversalCopy<8 * static_cast<int>(sizeof(T))>::copy(src, dst);
}

}  // namespace detail

#if defined(__CUDACC__)

// memory -> memory
template <int kRepM = 1, int kRepN = 1, class Op, class T, Layout kThr, Layout kVal, class SrcView, class DstView>
TESSERA_DEVICE_INLINE void copy(const TiledCopy<Op, T, kThr, kVal>&, const ThrView<SrcView>& src,
                                const ThrView<DstView>& dst, Residue residue) {
  using TC = TiledCopy<Op, T, kThr, kVal>;
  constexpr int kAV = TC::Atom::kValues;
  const bool full = residue.m >= kRepM * TC::kTileM && residue.n >= kRepN * TC::kTileN;
  static_for<kRepM>([&](auto rm_) {
    constexpr int rm = decltype(rm_)::value;
    static_for<kRepN>([&](auto rn_) {
      constexpr int rn = decltype(rn_)::value;
      static_for<TC::kAtoms>([&](auto a_) {
        constexpr int a = decltype(a_)::value;
        constexpr int v0 = a * kAV;
        constexpr int dm = TC::kOffsets.m[v0] + rm * TC::kTileM;
        constexpr int dn = TC::kOffsets.n[v0] + rn * TC::kTileN;
        const int sm = src.m + dm, sn = src.n + dn, tm = dst.m + dm, tn = dst.n + dn;
        if (full) {
          Op::copy(src.view.at(sm, sn), dst.view.at(tm, tn));
          return;
        }
        const int valid = detail::atom_valid<kAV, TC::kAtomAlongN>(sm, sn, residue);
        if (valid == kAV) {
          Op::copy(src.view.at(sm, sn), dst.view.at(tm, tn));
        } else if constexpr (Op::kAsync) {
          // Zero-fill: the source address is never read for the invalid bytes; the tile origin is a
          // valid address of the tensor.
          const void* s = valid > 0 ? static_cast<const void*>(src.view.at(sm, sn)) : src.view.at(0, 0);
          Op::copy_zfill(s, dst.view.at(tm, tn), static_cast<uint32_t>(valid * sizeof(T)));
        } else {
          for (int j = 0; j < valid; ++j) {
            if constexpr (TC::kAtomAlongN) detail::copy_value(src.view.at(sm, sn + j), dst.view.at(tm, tn + j));
            else detail::copy_value(src.view.at(sm + j, sn), dst.view.at(tm + j, tn));
          }
        }
      });
    });
  });
}

// memory -> registers
template <int kRepM = 1, int kRepN = 1, class Op, class T, Layout kThr, Layout kVal, class SrcView, int kN>
TESSERA_DEVICE_INLINE void copy(const TiledCopy<Op, T, kThr, kVal>&, const ThrView<SrcView>& src, Fragment<T, kN>& frag,
                                Residue residue) {
  using TC = TiledCopy<Op, T, kThr, kVal>;
  static_assert(kN == kRepM * kRepN * TC::kValues, "copy: fragment size must be kRepM*kRepN*kValues of the tiled copy");
  static_assert(!Op::kAsync, "copy into registers needs a synchronous atom");
  constexpr int kAV = TC::Atom::kValues;
  const bool full = residue.m >= kRepM * TC::kTileM && residue.n >= kRepN * TC::kTileN;
  static_for<kRepM>([&](auto rm_) {
    constexpr int rm = decltype(rm_)::value;
    static_for<kRepN>([&](auto rn_) {
      constexpr int rn = decltype(rn_)::value;
      static_for<TC::kAtoms>([&](auto a_) {
        constexpr int a = decltype(a_)::value;
        constexpr int v0 = a * kAV;
        constexpr int r = (rm * kRepN + rn) * TC::kValues + v0;
        constexpr int dm = TC::kOffsets.m[v0] + rm * TC::kTileM;
        constexpr int dn = TC::kOffsets.n[v0] + rn * TC::kTileN;
        const int sm = src.m + dm, sn = src.n + dn;
        if (full) {
          Op::copy(src.view.at(sm, sn), &frag.v[r]);
          return;
        }
        const int valid = detail::atom_valid<kAV, TC::kAtomAlongN>(sm, sn, residue);
        if (valid == kAV) {
          Op::copy(src.view.at(sm, sn), &frag.v[r]);
        } else {
          static_for<kAV>([&](auto j_) {
            constexpr int j = decltype(j_)::value;
            if (j < valid) {
              if constexpr (TC::kAtomAlongN) detail::copy_value(src.view.at(sm, sn + j), &frag.v[r + j]);
              else detail::copy_value(src.view.at(sm + j, sn), &frag.v[r + j]);
            }
          });
        }
      });
    });
  });
}

// registers -> memory
template <int kRepM = 1, int kRepN = 1, class Op, class T, Layout kThr, Layout kVal, class DstView, int kN>
TESSERA_DEVICE_INLINE void copy(const TiledCopy<Op, T, kThr, kVal>&, const Fragment<T, kN>& frag, const ThrView<DstView>& dst,
                                Residue residue) {
  using TC = TiledCopy<Op, T, kThr, kVal>;
  static_assert(kN == kRepM * kRepN * TC::kValues, "copy: fragment size must be kRepM*kRepN*kValues of the tiled copy");
  static_assert(!Op::kAsync, "copy from registers needs a synchronous atom");
  constexpr int kAV = TC::Atom::kValues;
  const bool full = residue.m >= kRepM * TC::kTileM && residue.n >= kRepN * TC::kTileN;
  static_for<kRepM>([&](auto rm_) {
    constexpr int rm = decltype(rm_)::value;
    static_for<kRepN>([&](auto rn_) {
      constexpr int rn = decltype(rn_)::value;
      static_for<TC::kAtoms>([&](auto a_) {
        constexpr int a = decltype(a_)::value;
        constexpr int v0 = a * kAV;
        constexpr int r = (rm * kRepN + rn) * TC::kValues + v0;
        constexpr int dm = TC::kOffsets.m[v0] + rm * TC::kTileM;
        constexpr int dn = TC::kOffsets.n[v0] + rn * TC::kTileN;
        const int tm = dst.m + dm, tn = dst.n + dn;
        if (full) {
          Op::copy(&frag.v[r], dst.view.at(tm, tn));
          return;
        }
        const int valid = detail::atom_valid<kAV, TC::kAtomAlongN>(tm, tn, residue);
        if (valid == kAV) {
          Op::copy(&frag.v[r], dst.view.at(tm, tn));
        } else {
          static_for<kAV>([&](auto j_) {
            constexpr int j = decltype(j_)::value;
            if (j < valid) {
              if constexpr (TC::kAtomAlongN) detail::copy_value(&frag.v[r + j], dst.view.at(tm, tn + j));
              else detail::copy_value(&frag.v[r + j], dst.view.at(tm + j, tn));
            }
          });
        }
      });
    });
  });
}

#endif  // __CUDACC__

}  // namespace tessera
