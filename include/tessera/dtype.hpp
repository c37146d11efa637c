// include/tessera/dtype.hpp -- the element types and matrix orders of the host API, the kernels' parameters
// and the kernel registry.  The bottom of the include tree: plain C++20, no CUDA, no other tessera header,
// so that host-only code (the tessera command, the registry) and device code share one vocabulary.
//
//   Dtype   bytes  what                                       taken by
//   bf16    2      bfloat16 (8-bit exponent, 7-bit mantissa)  GEMM operands and outputs
//   f16     2      IEEE half                                  GEMM operands and outputs
//   f32     4      IEEE single                                GEMM operands (tf32 / fp32_exact) and outputs
//   e4m3    1      FP8 (4-bit exponent, 3-bit mantissa)       GEMM operands (Hopper)
//   e5m2    1      FP8 (5-bit exponent, 2-bit mantissa)       GEMM operands (Hopper)
//   s8      1      signed 8-bit integer                       GEMM operands (s32 sums: Hopper tensor cores, dp4a)
//   s32     4      signed 32-bit integer                      not yet
//
// The numeric values are part of the interfaces that pass a Dtype as an integer (the Python module's dtype
// codes): bf16 = 0, f16 = 1, f32 = 2 stay as they are, new types take the next values.
#pragma once

namespace tessera {

// Element type of a matrix or vector in memory.
enum class Dtype : int { bf16 = 0, f16 = 1, f32 = 2, e4m3 = 3, e5m2 = 4, s8 = 5, s32 = 6 };

// Every enumerator, in value order (for tables, listings and the tests that cover each one).
inline constexpr Dtype kDtypes[] = {Dtype::bf16, Dtype::f16, Dtype::f32, Dtype::e4m3, Dtype::e5m2, Dtype::s8, Dtype::s32};
inline constexpr int kDtypeCount = static_cast<int>(sizeof(kDtypes) / sizeof(kDtypes[0]));

// Bytes of one element; 0 for a value that is no Dtype (validation rejects those before any size is used).
constexpr int dtype_bytes(Dtype t) {
  switch (t) {
    case Dtype::bf16: return 2;
    case Dtype::f16: return 2;
    case Dtype::f32: return 4;
    case Dtype::e4m3: return 1;
    case Dtype::e5m2: return 1;
    case Dtype::s8: return 1;
    case Dtype::s32: return 4;
  }
  return 0;
}

// The name used in messages and listings; "?" for a value that is no Dtype.
constexpr const char* dtype_name(Dtype t) {
  switch (t) {
    case Dtype::bf16: return "bf16";
    case Dtype::f16: return "f16";
    case Dtype::f32: return "f32";
    case Dtype::e4m3: return "e4m3";
    case Dtype::e5m2: return "e5m2";
    case Dtype::s8: return "s8";
    case Dtype::s32: return "s32";
  }
  return "?";
}

// Whether `t` is one of the enumerators (an integer from outside may be anything).
constexpr bool is_dtype(Dtype t) { return dtype_bytes(t) != 0; }

// The FP8 types (e4m3, e5m2).
constexpr bool is_fp8(Dtype t) { return t == Dtype::e4m3 || t == Dtype::e5m2; }

// The 8-bit GEMM operand types (FP8 and s8): K-major, loaded by TMA, scaled (GemmArgs::scale_a / scale_b).
constexpr bool is_8bit_operand(Dtype t) { return is_fp8(t) || t == Dtype::s8; }

// kDtypes lists every enumerator once, in value order; the switches above cover each of them (the compiler's
// -Wswitch names a missing case; these catch a new enumerator left out of kDtypes).
static_assert([] {
  for (int i = 0; i < kDtypeCount; ++i)
    if (static_cast<int>(kDtypes[i]) != i || dtype_bytes(kDtypes[i]) == 0 || dtype_name(kDtypes[i])[0] == '?') return false;
  return !is_dtype(static_cast<Dtype>(kDtypeCount)) && !is_dtype(static_cast<Dtype>(-1));
}(), "dtype.hpp: kDtypes must list every Dtype in value order, and dtype_bytes / dtype_name must cover each one");

// Storage order of a 2-D matrix: row-major (element (i, j) at i * ld + j) or column-major (j * ld + i).
enum class MatrixOrder : int { row_major = 0, col_major = 1 };

}  // namespace tessera
