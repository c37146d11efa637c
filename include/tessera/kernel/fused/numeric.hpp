// include/tessera/kernel/fused/numeric.hpp -- vector geometry of the fused kernels.  The element types
// and their 128-bit packing (`Numeric<T>`) live in tessera/kernel/numeric.hpp, shared with the GEMM
// epilogue; this header makes them visible as fused::Numeric and adds the alignment helper.
#pragma once

#include <cstdint>  // uintptr_t

#include "tessera/kernel/numeric.hpp"  // Numeric<T>

namespace tessera::fused {

using tessera::Numeric;

// Bytes moved by one vector access.
inline constexpr int kVectorBytes = 16;

// How many elements of T lie between the 16-byte boundary at or below `p` and `p` itself
// (0 when p is 16-byte aligned).  Requires p aligned to sizeof(T); the host API checks that.
template <class T>
TESSERA_HD_INLINE int misalignment_elems(const void* p) {
  return static_cast<int>((reinterpret_cast<uintptr_t>(p) % kVectorBytes) / sizeof(T));
}

}  // namespace tessera::fused
