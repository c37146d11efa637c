// include/tessera/atom/copy_atom.hpp -- copy operations and copy atoms.
//
// A copy *operation* is one instruction (or one plain C++ load/store) that moves kBits from a source
// address to a destination address; the PTX it uses lives in arch/, never here.  A copy *atom* is an
// operation applied to an element type T: it moves kValues = kBits / (8*sizeof(T)) consecutive values
// of one thread, which must be contiguous in both source and destination and aligned to kBits/8 bytes.
//
//     operation                 src -> dst            bits          notes
//     UniversalCopy<B>          any -> any            8..128        plain C++ load + store (LDG/LDS/STG/STS)
//     GlobalLoadStreaming<B>    global -> registers   32/64/128     ld.global.nc.L1::no_allocate (read-only data)
//     GlobalStoreStreaming<B>   registers -> global   32/64/128     st.global.cs (evict-first)
//     Sm80CpAsyncCa<B>          global -> shared      32/64/128     cp.async.ca, asynchronous, zero-fill
//     Sm80CpAsyncCg16           global -> shared      128           cp.async.cg (L2 only), asynchronous, zero-fill
//
// Interface of an operation:
//   kBits, kAsync (true: completes later, see cp_async_commit / cp_async_wait in arch/)
//   copy(src, dst)                       move kBits
//   copy_zfill(src, dst, src_bytes)      (asynchronous operations only) read src_bytes, zero the rest
#pragma once

#include <cstdint>  // uint8_t, uint16_t, uint32_t, uint64_t

#include "tessera/arch/config.hpp"         // TESSERA_DEVICE_INLINE
#include "tessera/arch/ld_st.hpp"          // ld_global_nc_*, st_global_cs_*
#include "tessera/arch/sm80_cp_async.hpp"  // cp_async_*

namespace tessera {

namespace detail {
template <int kBits>
struct UintOfBits;
template <>
struct UintOfBits<8> { using type = uint8_t; };
template <>
struct UintOfBits<16> { using type = uint16_t; };
template <>
struct UintOfBits<32> { using type = uint32_t; };
template <>
struct UintOfBits<64> { using type = uint64_t; };
struct alignas(16) Uint128 { uint32_t w[4]; };
template <>
struct UintOfBits<128> { using type = Uint128; };
}  // namespace detail

// Plain load + store of kBits; the compiler chooses the instruction from the address spaces.
template <int kBits>
struct UniversalCopy {
  static_assert(kBits == 8 || kBits == 16 || kBits == 32 || kBits == 64 || kBits == 128,
                "UniversalCopy: kBits must be 8, 16, 32, 64 or 128");
  static constexpr int kBitsPerCopy = kBits;
  static constexpr bool kAsync = false;
  using U = typename detail::UintOfBits<kBits>::type;
#if defined(__CUDACC__)
  TESSERA_DEVICE_INLINE static void copy(const void* src, void* dst) {
    *static_cast<U*>(dst) = *static_cast<const U*>(src);
  }
#endif
};

// Global -> registers through the read-only, no-L1-allocate path.  The source must not be written by
// any thread of the kernel.
template <int kBits>
struct GlobalLoadStreaming {
  static_assert(kBits == 32 || kBits == 64 || kBits == 128, "GlobalLoadStreaming: kBits must be 32, 64 or 128");
  static constexpr int kBitsPerCopy = kBits;
  static constexpr bool kAsync = false;
#if defined(__CUDACC__)
  TESSERA_DEVICE_INLINE static void copy(const void* src, void* dst) {
    if constexpr (kBits == 128) {
      arch::ld_global_nc_v4_u32(*static_cast<uint32_t(*)[4]>(dst), src);
    } else if constexpr (kBits == 64) {
      arch::ld_global_nc_v2_u32(*static_cast<uint32_t(*)[2]>(dst), src);
    } else {
      arch::ld_global_nc_u32(*static_cast<uint32_t*>(dst), src);
    }
  }
#endif
};

// Registers -> global with the streaming (evict-first) cache hint.
template <int kBits>
struct GlobalStoreStreaming {
  static_assert(kBits == 32 || kBits == 64 || kBits == 128, "GlobalStoreStreaming: kBits must be 32, 64 or 128");
  static constexpr int kBitsPerCopy = kBits;
  static constexpr bool kAsync = false;
#if defined(__CUDACC__)
  TESSERA_DEVICE_INLINE static void copy(const void* src, void* dst) {
    if constexpr (kBits == 128) {
      arch::st_global_cs_v4_u32(dst, *static_cast<const uint32_t(*)[4]>(src));
    } else if constexpr (kBits == 64) {
      arch::st_global_cs_v2_u32(dst, *static_cast<const uint32_t(*)[2]>(src));
    } else {
      arch::st_global_cs_u32(dst, *static_cast<const uint32_t*>(src));
    }
  }
#endif
};

// Global -> shared, asynchronous, cached in L1 and L2 (4, 8 or 16 bytes).
template <int kBits>
struct Sm80CpAsyncCa {
  static_assert(kBits == 32 || kBits == 64 || kBits == 128, "Sm80CpAsyncCa: cp.async.ca copies 32, 64 or 128 bits");
  static constexpr int kBitsPerCopy = kBits;
  static constexpr bool kAsync = true;
#if defined(__CUDACC__)
  TESSERA_DEVICE_INLINE static void copy(const void* src, void* dst) {
    arch::cp_async_ca_zfill<kBits / 8>(dst, src, kBits / 8);
  }
  TESSERA_DEVICE_INLINE static void copy_zfill(const void* src, void* dst, uint32_t src_bytes) {
    arch::cp_async_ca_zfill<kBits / 8>(dst, src, src_bytes);
  }
#endif
};

// Global -> shared, asynchronous, 16 bytes, L2 only.
struct Sm80CpAsyncCg16 {
  static constexpr int kBitsPerCopy = 128;
  static constexpr bool kAsync = true;
#if defined(__CUDACC__)
  TESSERA_DEVICE_INLINE static void copy(const void* src, void* dst) { arch::cp_async_cg_16(dst, src); }
  TESSERA_DEVICE_INLINE static void copy_zfill(const void* src, void* dst, uint32_t src_bytes) {
    arch::cp_async_cg_16_zfill(dst, src, src_bytes);
  }
#endif
};

// An operation applied to values of type T: kValues consecutive values per call.
template <class Op, class T>
struct CopyAtom {
  using Operation = Op;
  using ValueType = T;
  static constexpr int kBits = Op::kBitsPerCopy;
  static_assert(kBits % (8 * static_cast<int>(sizeof(T))) == 0,
                "CopyAtom: the operation's width must be a whole number of values (kBits % (8*sizeof(T)) == 0)");
  static constexpr int kValues = kBits / (8 * static_cast<int>(sizeof(T)));
  static constexpr int kBytes = kBits / 8;
  static constexpr bool kAsync = Op::kAsync;
};

}  // namespace tessera
