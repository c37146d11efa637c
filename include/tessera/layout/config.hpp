// tessera/layout/config.hpp -- portability macros and the error path of the layout algebra.
//
// Every function of the algebra is `constexpr` and callable from host and device code.
// When an inadmissible argument is detected:
//   * during constant evaluation (a layout used as a template argument, a constexpr
//     variable, a static_assert) the call of the non-constexpr `layout_error` makes the
//     program ill-formed, and the compiler prints that call with its message and numbers;
//   * at run time on the host it throws tessera::LayoutError whose what() names the
//     operation, the violated condition and the numbers involved;
//   * at run time on the device (never reached by compile-time layouts) it traps.
#pragma once

#if __cplusplus < 202002L
#error "Tessera needs C++20. CMake: link tessera::tessera (or tessera::kernels) from find_package(tessera), which adds C++20 for C++ and CUDA sources; by hand: -std=c++20 (g++, clang++ and nvcc)"
#endif

#include <cstdint>  // int64_t

#include <stdexcept>  // std::invalid_argument
#include <string>     // std::string

#if defined(__CUDACC__)
#define TESSERA_HD __host__ __device__
#define TESSERA_HD_INLINE __host__ __device__ __forceinline__
#else
#define TESSERA_HD
#define TESSERA_HD_INLINE inline
#endif

namespace tessera {

// The integer type of shapes, strides, coordinates and indices in the algebra.
using Int = int64_t;

// ---- The limits of the representation, stated once (docs/LAYOUT.md, "Limits") ----
// Every value the algebra accepts lies within these bounds, and each bound is checked where a
// value is built (IntTuple::push_back, the text parser) or where an operation would exceed it:
// going past one is a LayoutError that names the limit, never a truncation, a hang or a crash.
inline constexpr int kMaxNodes = 64;   // nodes (integers plus tuples) of one shape, stride or coordinate
inline constexpr int kMaxDepth = 16;   // nesting depth of an int tuple: ((((4)))) has depth 4
inline constexpr int kMaxMagnitudeLog2 = 48;
inline constexpr Int kMaxMagnitude = Int(1) << kMaxMagnitudeLog2;  // |integer| in the text form
inline constexpr Int kMaxSize = Int(1) << 62;  // size and cosize of a layout read from text
// Checks that must enumerate (composition's carry check when it cannot be proven) visit at
// most this many elements; beyond it they report "too large to check".
inline constexpr Int kMaxCheckedElements = Int(1) << 22;

// Thrown (host, run time) for malformed text, inadmissible operations and over-capacity values.
struct LayoutError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

namespace detail {

// Replaces each "{}" in `msg` by the next of a, b, c.
inline std::string format_error(const char* msg, Int a, Int b, Int c) {
  std::string out;
  Int args[3] = {a, b, c};
  int k = 0;
  for (const char* p = msg; *p; ++p) {
    if (p[0] == '{' && p[1] == '}' && k < 3) {
      out += std::to_string(args[k++]);
      ++p;
    } else {
      out += *p;
    }
  }
  return out;
}

// Deliberately not constexpr: reaching it during constant evaluation is a compile error
// that shows this call, its message and its numbers.
[[noreturn]] TESSERA_HD inline void layout_error(const char* msg, Int a = 0, Int b = 0, Int c = 0) {
#if defined(__CUDA_ARCH__)
  (void)msg; (void)a; (void)b; (void)c;
  __trap();
  __builtin_unreachable();
#else
  throw LayoutError(format_error(msg, a, b, c));
#endif
}

}  // namespace detail

// Requires(cond): otherwise the algebra reports `msg` with up to three numbers.
#define TESSERA_REQUIRE(cond, msg, ...)                              \
  do {                                                               \
    if (!(cond)) ::tessera::detail::layout_error(msg, ##__VA_ARGS__); \
  } while (0)

}  // namespace tessera
