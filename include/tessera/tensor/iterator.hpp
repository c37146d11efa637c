// tessera/tensor/iterator.hpp -- what a tensor's layout indexes into.
//
//   T*                  a raw pointer (any memory)
//   MemPtr<T, Space>    a pointer tagged with its memory space: make_gmem_ptr, make_smem_ptr;
//                       atoms and algorithms use the tag to pick instructions (cp.async needs
//                       a global source and a shared destination)
//   ArrayEngine<T, N>   owning storage of N elements (register fragments); slicing a tensor
//                       that owns its storage yields a view (a T*) into it
//   CountingIterator<R> the iterator of an identity tensor: its "element" at index i is the
//                       coordinate that i encodes (see make_identity_tensor in tensor.hpp)
//
// Two operations make an iterator usable by Tensor: deref(it, i) (the element at offset i) and
// advance(it, i) (an iterator i elements further; a view for owning storage).
#pragma once

#include "tessera/layout.hpp"  // Int, TESSERA_HD_INLINE

namespace tessera {

// ------------------------------------------------------------------ tagged pointers
enum class MemSpace { Generic, Global, Shared, Register };

template <class T, MemSpace S>
struct MemPtr {
  using value_type = T;
  static constexpr MemSpace kSpace = S;
  T* ptr = nullptr;
  TESSERA_HD_INLINE constexpr T& operator[](Int i) const { return ptr[i]; }
  TESSERA_HD_INLINE constexpr MemPtr operator+(Int i) const { return MemPtr{ptr + i}; }
  TESSERA_HD_INLINE constexpr T* get() const { return ptr; }
};

template <class T>
TESSERA_HD_INLINE constexpr MemPtr<T, MemSpace::Global> make_gmem_ptr(T* p) {
  return {p};
}
template <class T>
TESSERA_HD_INLINE constexpr MemPtr<T, MemSpace::Shared> make_smem_ptr(T* p) {
  return {p};
}

// ------------------------------------------------------------------ owning storage
template <class T, Int N>
struct ArrayEngine {
  static_assert(N > 0, "ArrayEngine: a fragment holds at least one element");
  using value_type = T;
  T data[N];
  TESSERA_HD_INLINE constexpr T& operator[](Int i) { return data[i]; }
  TESSERA_HD_INLINE constexpr const T& operator[](Int i) const { return data[i]; }
};

// ------------------------------------------------------------------ coordinates of identity tensors
// An identity tensor of rank R packs its coordinate into one integer: the 1-D coordinate of
// top-level mode m sits in bits [W*m, W*m + W) (W = kIdentityFieldBits[R]), so that tiling and
// partitioning move it with ordinary integer strides and reading it back is a shift and a mask.
inline constexpr int kIdentityMaxRank = 4;
inline constexpr int kIdentityFieldBits[kIdentityMaxRank + 1] = {0, 40, 31, 20, 13};

// The coordinate an identity tensor holds: one 1-D coordinate per top-level mode.
template <int R>
struct IdentityCoord {
  Int c[R];
  TESSERA_HD_INLINE constexpr Int operator[](int i) const { return c[i]; }
  template <int I>
  TESSERA_HD_INLINE constexpr Int get() const {
    static_assert(I >= 0 && I < R, "IdentityCoord: mode index out of range");
    return c[I];
  }
  TESSERA_HD friend constexpr bool operator==(const IdentityCoord& a, const IdentityCoord& b) {
    for (int i = 0; i < R; ++i)
      if (a.c[i] != b.c[i]) return false;
    return true;
  }
};

template <int R>
struct CountingIterator {
  static_assert(R >= 1 && R <= kIdentityMaxRank, "identity tensors have rank 1 to 4");
  static constexpr int kBits = kIdentityFieldBits[R];
  Int base = 0;
  TESSERA_HD_INLINE constexpr IdentityCoord<R> operator[](Int i) const {
    Int v = base + i;
    IdentityCoord<R> r{};
    for (int m = 0; m < R; ++m) r.c[m] = (v >> (kBits * m)) & ((Int(1) << kBits) - 1);
    return r;
  }
  TESSERA_HD_INLINE constexpr CountingIterator operator+(Int i) const { return CountingIterator{base + i}; }
};

// ------------------------------------------------------------------ deref / advance
template <class T>
TESSERA_HD_INLINE constexpr T& deref(T* p, Int i) {
  return p[i];
}
template <class T>
TESSERA_HD_INLINE constexpr T* advance(T* p, Int i) {
  return p + i;
}
template <class T, MemSpace S>
TESSERA_HD_INLINE constexpr T& deref(const MemPtr<T, S>& p, Int i) {
  return p.ptr[i];
}
template <class T, MemSpace S>
TESSERA_HD_INLINE constexpr MemPtr<T, S> advance(const MemPtr<T, S>& p, Int i) {
  return p + i;
}
template <class T, Int N>
TESSERA_HD_INLINE constexpr T& deref(ArrayEngine<T, N>& a, Int i) {
  return a.data[i];
}
template <class T, Int N>
TESSERA_HD_INLINE constexpr const T& deref(const ArrayEngine<T, N>& a, Int i) {
  return a.data[i];
}
template <class T, Int N>
TESSERA_HD_INLINE constexpr MemPtr<T, MemSpace::Register> advance(ArrayEngine<T, N>& a, Int i) {
  return {a.data + i};
}
template <class T, Int N>
TESSERA_HD_INLINE constexpr MemPtr<const T, MemSpace::Register> advance(const ArrayEngine<T, N>& a, Int i) {
  return {a.data + i};
}
template <int R>
TESSERA_HD_INLINE constexpr IdentityCoord<R> deref(const CountingIterator<R>& it, Int i) {
  return it[i];
}
template <int R>
TESSERA_HD_INLINE constexpr CountingIterator<R> advance(const CountingIterator<R>& it, Int i) {
  return it + i;
}

// The raw pointer behind an iterator (nullptr-free iterators only).
template <class T>
TESSERA_HD_INLINE constexpr T* raw_pointer(T* p) {
  return p;
}
template <class T, MemSpace S>
TESSERA_HD_INLINE constexpr T* raw_pointer(const MemPtr<T, S>& p) {
  return p.ptr;
}

}  // namespace tessera
