// include/tessera/kernel/fused/expr.hpp -- typed elementwise expressions: compose functors, run them fused.
//
// An expression is a small value type built from the placeholder `x`, scalar constants and a fixed set
// of operations.  Its type records the whole chain; its value holds only the run-time constants:
//
//   using namespace tessera::ew;
//   auto f = sqrt(sin(x));                 // Unary<Sqrt, Unary<Sin, X>>,               holds nothing
//   auto g = gelu(x * 1.702f + 0.25f);     // Unary<Gelu, Binary<Add, Binary<Mul, X, Const>, Const>>
//   f(0.5f)   -> sqrtf(sinf(0.5f))         // evaluates in the argument's type (fp32 on the device,
//   g(0.5)    -> the same chain in fp64    //   fp64 for host references)
//   to_string(g) -> "gelu(x*1.702+0.25)"   // readable name for tables and errors
//   flops(g)  -> 6                         // operations per element (see "Counting" below)
//
// `tessera::fused::elementwise(f, in, out, n)` applies f to every element in one kernel (one read, one
// write, 128-bit accesses); `elementwise_unfused(f, ...)` runs the same chain as one kernel per
// operation, which is what a framework without fusion does (see include/tessera/host/fused.hpp).
//
// Splitting into stages: an expression in which `x` occurs exactly once is a chain, and `stages(f)`
// returns it as a std::tuple of one-operation expressions, innermost first:
//   stages(gelu(x * a + b)) == tuple{ x * a, x + b, gelu(x) }
// Constants stay with the stage that uses them.  Expressions that use x twice (x * sin(x)) are not
// chains: they can be fused, but `stages` rejects them at compile time.
//
// Counting: flops(f) counts the operations of the formula as written, one per +, -, *, / and one per
// elementary function (sin, sqrt, exp, erfc, tanh ...), with the composite activations expanded as
// documented on each (gelu = 0.5*v*erfc(-v/sqrt(2)) = 4).  It is the figure the roofline uses for
// arithmetic intensity; hardware instruction counts are higher for the transcendental functions.
//
// Special values: every operation is the IEEE / C math-library function of the same name, so NaN
// propagates and infinities follow the formula (gelu(-inf) = -inf * 0 = NaN, sqrt(-1) = NaN).
// relu keeps NaN (relu(NaN) = NaN) rather than mapping it to 0.
#pragma once

#include <cmath>        // sin, sqrt, ... (fp64 host evaluation)
#include <cstdio>       // std::snprintf
#include <string>       // std::string (to_string, host only)
#include <tuple>        // std::tuple, std::tuple_cat
#include <type_traits>  // std::is_arithmetic_v

#include "tessera/kernel/fused/numeric.hpp"  // TESSERA_HD_INLINE

namespace tessera::ew {

// ---------------------------------------------------------------------------------------------
// Scalar math in fp32 (device kernels) and fp64 (host references), same names for both.
// ---------------------------------------------------------------------------------------------
namespace math {
// clang-format off
TESSERA_HD_INLINE float  sin(float v)   { return ::sinf(v); }
TESSERA_HD_INLINE double sin(double v)  { return ::sin(v); }
TESSERA_HD_INLINE float  cos(float v)   { return ::cosf(v); }
TESSERA_HD_INLINE double cos(double v)  { return ::cos(v); }
TESSERA_HD_INLINE float  exp(float v)   { return ::expf(v); }
TESSERA_HD_INLINE double exp(double v)  { return ::exp(v); }
TESSERA_HD_INLINE float  log(float v)   { return ::logf(v); }
TESSERA_HD_INLINE double log(double v)  { return ::log(v); }
TESSERA_HD_INLINE float  sqrt(float v)  { return ::sqrtf(v); }
TESSERA_HD_INLINE double sqrt(double v) { return ::sqrt(v); }
TESSERA_HD_INLINE float  tanh(float v)  { return ::tanhf(v); }
TESSERA_HD_INLINE double tanh(double v) { return ::tanh(v); }
TESSERA_HD_INLINE float  erf(float v)   { return ::erff(v); }
TESSERA_HD_INLINE double erf(double v)  { return ::erf(v); }
TESSERA_HD_INLINE float  erfc(float v)  { return ::erfcf(v); }
TESSERA_HD_INLINE double erfc(double v) { return ::erfc(v); }
TESSERA_HD_INLINE float  abs(float v)   { return ::fabsf(v); }
TESSERA_HD_INLINE double abs(double v)  { return ::fabs(v); }
// clang-format on
template <class V>
TESSERA_HD_INLINE V inv_sqrt2() { return static_cast<V>(0.70710678118654752440); }
#if defined(__CUDA_ARCH__)
// The hardware's approximation of 2^v, one MUFU instruction, subnormals flushed to zero (no range fix-up
// code): ex2.approx.ftz.f32, 2^-22.5 relative error.  exp2_fast(-inf) = 0, exp2_fast(+inf) = +inf.
__device__ __forceinline__ float exp2_fast(float v) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
  return r;
}
// 1 / (1 + 2^t) with one MUFU operation: e = 2^-|t| in [0, 1], the reciprocal of d = 1 + e in [1, 2] from the
// linear first guess 24/17 - 8/17 d (relative error <= 1/17) and two Newton steps on the FMA pipe (relative
// error <= (1/17)^4 = 1.2e-5), times e when t > 0 (1 / (1 + 2^t) = 2^-t / (1 + 2^-t)).  Six FMA-pipe
// operations in place of a MUFU.RCP (the MUFU unit runs at a sixteenth of the FMA pipe's rate); on the H100
// the GEMM's fused epilogues took as long as with MUFU.RCP (docs/PERF.md), and the kernel spills less.
__device__ __forceinline__ float sigmoid2_fast(float t) {
  const float e = exp2_fast(-fabsf(t));
  const float d = 1.f + e;
  float r = fmaf(-8.f / 17.f, e, 16.f / 17.f);
  r = fmaf(r, fmaf(-d, r, 1.f), r);
  r = fmaf(r, fmaf(-d, r, 1.f), r);
  return t > 0.f ? e * r : r;
}
// The hardware's tanh, one MUFU instruction: tanh.approx.f32.  Its error is stated per GPU by the PTX ISA only
// loosely; what the activations below build on is measured on every fp32 input by tests/kernel_gemm
// (ActivationBound.*Hw: on the H100 |tanh_fast(u) - tanh(u)| stays below 8e-6).
__device__ __forceinline__ float tanh_fast(float v) {
  float r;
  asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(v));
  return r;
}
#endif
// max(v, -FLT_MAX) with NaN kept (on the device one max.NaN): -inf becomes the most negative finite float, so that
// h + h tanh(u) below meets no inf - inf.
TESSERA_HD_INLINE float clamp_neg_inf(float v) {
#if defined(__CUDA_ARCH__)
  float r;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(v), "f"(-3.40282347e38f));
  return r;
#else
  return v < -3.40282347e38f ? -3.40282347e38f : v;
#endif
}
}  // namespace math

// ---------------------------------------------------------------------------------------------
// Operations.  Each: kName (function name or infix symbol), kFlops (see "Counting"), apply().
// ---------------------------------------------------------------------------------------------
namespace op {
struct Sin   { static constexpr const char* kName = "sin";  static constexpr int kFlops = 1;
               template <class V> TESSERA_HD_INLINE static V apply(V v) { return math::sin(v); } };
struct Cos   { static constexpr const char* kName = "cos";  static constexpr int kFlops = 1;
               template <class V> TESSERA_HD_INLINE static V apply(V v) { return math::cos(v); } };
struct Exp   { static constexpr const char* kName = "exp";  static constexpr int kFlops = 1;
               template <class V> TESSERA_HD_INLINE static V apply(V v) { return math::exp(v); } };
struct Log   { static constexpr const char* kName = "log";  static constexpr int kFlops = 1;
               template <class V> TESSERA_HD_INLINE static V apply(V v) { return math::log(v); } };
struct Sqrt  { static constexpr const char* kName = "sqrt"; static constexpr int kFlops = 1;
               template <class V> TESSERA_HD_INLINE static V apply(V v) { return math::sqrt(v); } };
struct Tanh  { static constexpr const char* kName = "tanh"; static constexpr int kFlops = 1;
               template <class V> TESSERA_HD_INLINE static V apply(V v) { return math::tanh(v); } };
struct Abs   { static constexpr const char* kName = "abs";  static constexpr int kFlops = 1;
               template <class V> TESSERA_HD_INLINE static V apply(V v) { return math::abs(v); } };
struct Neg   { static constexpr const char* kName = "-";    static constexpr int kFlops = 1;
               template <class V> TESSERA_HD_INLINE static V apply(V v) { return -v; } };
// relu(v) = v < 0 ? 0 : v   (1 comparison; NaN and -0 pass through unchanged)
struct Relu  { static constexpr const char* kName = "relu"; static constexpr int kFlops = 1;
               template <class V> TESSERA_HD_INLINE static V apply(V v) { return v < V(0) ? V(0) : v; } };
// sigmoid(v) = 1 / (1 + exp(-v))   (neg, exp, add, div = 4)
struct Sigmoid { static constexpr const char* kName = "sigmoid"; static constexpr int kFlops = 4;
               template <class V> TESSERA_HD_INLINE static V apply(V v) { return V(1) / (V(1) + math::exp(-v)); } };
// silu(v) = v / (1 + exp(-v))      (neg, exp, add, div = 4)
struct Silu  { static constexpr const char* kName = "silu"; static constexpr int kFlops = 4;
               template <class V> TESSERA_HD_INLINE static V apply(V v) { return v / (V(1) + math::exp(-v)); } };
// gelu(v) = 0.5 * v * (1 + erf(v / sqrt(2))), the exact (erf) form, evaluated as
//           0.5 * v * erfc(-v / sqrt(2))  (mul, erfc, mul, mul = 4): the same function without the
// cancellation of 1 + erf(...) for negative v, which costs fp32 most of its digits below v = -3.
struct Gelu  { static constexpr const char* kName = "gelu"; static constexpr int kFlops = 4;
               template <class V> TESSERA_HD_INLINE static V apply(V v) {
                 return V(0.5) * v * math::erfc(v * -math::inv_sqrt2<V>());
               } };

// gelu_tanh(v) = 0.5 * v * (1 + tanh(sqrt(2/pi) * (v + 0.044715 v^3))), the tanh approximation of GELU
//           (mul, mul, fma, mul, tanh, add, mul, mul = 8).  fp64 (host references): that formula.  fp32
//           (device): the same function written v * sigmoid(2u) = v / (1 + exp(-2u)), u the tanh argument,
//           as v / (1 + 2^(v (c1 + c3 v^2))) with the sqrt(2/pi), 0.044715 and log2(e) factors
//           folded into c1, c3: no cancellation for negative v; 3 FMA-pipe operations, then
//           math::sigmoid2_fast (one MUFU.EX2, the reciprocal by Newton steps), one multiply.  Bound,
//           checked over the whole fp32 range against fp64 by tests/kernel_gemm (ActivationBound): |error| <= 5e-5 |exact| + 1e-30 (the
//           rounding of the fp32 exponent argument dominates in the far negative tail).
struct GeluTanh { static constexpr const char* kName = "gelu_tanh"; static constexpr int kFlops = 8;
               template <class V> TESSERA_HD_INLINE static V apply(V v) {
#if defined(__CUDA_ARCH__)
                 if constexpr (sizeof(V) == 4) {
                   // -2 u log2(e) = v (c1 + c3 v^2), u = sqrt(2/pi) (v + 0.044715 v^3)
                   constexpr float c1 = -2.3022081981443250f;          // -2 sqrt(2/pi) log2(e)
                   constexpr float c3 = -2.3022081981443250f * 0.044715f;
                   return v * math::sigmoid2_fast(v * fmaf(c3, v * v, c1));
                 } else
#endif
                 {
                   const V u = V(0.7978845608028654) * (v + V(0.044715) * v * v * v);
                   return V(0.5) * v * (V(1) + math::tanh(u));
                 }
               } };
// silu_approx(v) = v / (1 + exp(-v)) like silu, evaluated in fp32 (device) as v / (1 + 2^(-v log2 e))
//           with math::sigmoid2_fast (one MUFU.EX2; 4 operations counted; fp64 as silu).  Bound as gelu_tanh's
//           (tests/kernel_gemm ActivationBound).
struct SiluApprox { static constexpr const char* kName = "silu"; static constexpr int kFlops = 4;
               template <class V> TESSERA_HD_INLINE static V apply(V v) {
#if defined(__CUDA_ARCH__)
                 if constexpr (sizeof(V) == 4) return v * math::sigmoid2_fast(v * -1.4426950408889634f);
                 else
#endif
                 return v / (V(1) + math::exp(-v));
               } };

// gelu_tanh_hw(v): gelu_tanh with the hardware's tanh, the fused GEMM epilogue's form (kernel/epilogue/
//           fragment_epilogue.hpp).  fp32 (device): h = v / 2, h + h tanh_fast(sqrt(2/pi) v (1 + 0.044715 v^2)):
//           5 FMA-pipe operations, one MUFU.TANH and a NaN-keeping max (-inf -> the limit 0).  Bound, checked on every
//           fp32 input against fp64 (tests/kernel_gemm ActivationBound.GeluTanhHw): |error| <= 8e-6 |v| + 1e-30,
//           an absolute error on the scale of the argument (as the GEMM's own fp32 sum has, 2e-5 of the magnitude
//           of its terms), so for v below about -3, where gelu(v) is below 4e-3 |v|, relative errors grow to 1
//           (the result 0 in the far negative tail).  fp64: gelu_tanh's formula.
struct GeluTanhHw { static constexpr const char* kName = "gelu_tanh"; static constexpr int kFlops = 8;
               template <class V> TESSERA_HD_INLINE static V apply(V v) {
#if defined(__CUDA_ARCH__)
                 if constexpr (sizeof(V) == 4) {
                   constexpr float c1 = 0.7978845608028654f;  // sqrt(2/pi)
                   constexpr float c3 = 0.7978845608028654f * 0.044715f;
                   const float w = math::clamp_neg_inf(v);
                   const float h = 0.5f * w;
                   return fmaf(h, math::tanh_fast(w * fmaf(c3, w * w, c1)), h);
                 } else
#endif
                   return GeluTanh::apply(v);
               } };
// silu_hw(v): silu with the hardware's tanh (silu(v) = v sigmoid(v) = h + h tanh(h), h = v / 2), the fused GEMM
//           epilogue's form.  fp32 (device): one max, one multiply, one MUFU.TANH, one FMA.  Bound as gelu_tanh_hw's
//           (ActivationBound.SiluHw).  fp64: silu.
struct SiluHw { static constexpr const char* kName = "silu"; static constexpr int kFlops = 4;
               template <class V> TESSERA_HD_INLINE static V apply(V v) {
#if defined(__CUDA_ARCH__)
                 if constexpr (sizeof(V) == 4) {
                   const float h = 0.5f * math::clamp_neg_inf(v);
                   return fmaf(h, math::tanh_fast(h), h);
                 } else
#endif
                   return v / (V(1) + math::exp(-v));
               } };

// gelu_hw(v): gelu (the erf form) without branches, the cooperative GEMM epilogue's form: libm's erfcf inlined on
//           each of a fragment's 64 registers made ptxas spill around it.  fp32: erfc(z) = t exp(-z^2 + P(t)),
//           z = |v| / sqrt(2), t = 1 / (1 + z / 2), P a degree-9 polynomial fitted to ln(erfc(z) / t) + z^2 on t in
//           [0, 1] (a Chebyshev-node least-squares fit, scripts/math/fit_erfc.py; |fit error| <= 1.1e-7, so the same
//           relative error on erfc),
//           z^2 = v^2 / 2 exactly (hi + lo by an FMA), z clamped to 28 / sqrt(2) (erfc is 0 in fp32 well before); then
//           gelu = v erfc(z) / 2 for v < 0 and v (2 - erfc(z)) / 2 for v >= 0 (no cancellation on either side).  On the
//           device t and 2^x are MUFU.RCP and MUFU.EX2 (rcp.approx, ex2.approx); on the host 1 / d and exp2f.  About 20
//           FMA-pipe operations and two MUFU; -inf -> 0 (max.NaN), +inf -> +inf, NaN -> NaN.  Bound, checked on every
//           fp32 input (tests/kernel_gemm ActivationBound.GeluHw; the host formula in tests/kernel_fused):
//           |error| <= 5e-5 |exact| + 1e-30 (the rounding of the exponent's argument, up to about 100, dominates in the
//           far negative tail).  fp64: gelu.
struct GeluHw { static constexpr const char* kName = "gelu"; static constexpr int kFlops = 4;
               template <class V> TESSERA_HD_INLINE static V apply(V v) {
                 if constexpr (sizeof(V) == 4) {
                   // P(t) = sum c_j t^j
                   constexpr float c0 = -1.265512225e+00f, c1 = 1.000023680e+00f, c2 = 3.740919597e-01f,
                                   c3 = 9.678418950e-02f, c4 = -1.862880617e-01f, c5 = 2.788680846e-01f,
                                   c6 = -1.135204001e+00f, c7 = 1.488515889e+00f, c8 = -8.221522345e-01f,
                                   c9 = 1.708727777e-01f;
                   const float a = fminf(fabsf(v), 28.f);  // (NaN -> 28; the product with v below keeps NaN)
                   const float d = fmaf(0.5f * 0.70710678118654752f, a, 1.f);
#if defined(__CUDA_ARCH__)
                   float t;
                   asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(t) : "f"(d));
#else
                   const float t = 1.f / d;
#endif
                   float p = c9;
                   p = fmaf(p, t, c8); p = fmaf(p, t, c7); p = fmaf(p, t, c6); p = fmaf(p, t, c5);
                   p = fmaf(p, t, c4); p = fmaf(p, t, c3); p = fmaf(p, t, c2); p = fmaf(p, t, c1);
                   p = fmaf(p, t, c0);
                   const float hi = a * a, lo = fmaf(a, a, -hi);  // a^2 = hi + lo exactly
                   const float x = fmaf(-0.5f, lo, fmaf(-0.5f, hi, p)) * 1.4426950408889634f;  // (-z^2 + P) log2(e)
#if defined(__CUDA_ARCH__)
                   const float r = t * math::exp2_fast(x);  // erfc(z)
#else
                   const float r = t * ::exp2f(x);
#endif
                   return 0.5f * math::clamp_neg_inf(v) * (v >= 0.f ? 2.f - r : r);
                 } else {
                   return Gelu::apply(v);
                 }
               } };

// Binary operations; kPrec orders them for printing (higher binds tighter).
struct Add { static constexpr const char* kName = "+"; static constexpr int kFlops = 1; static constexpr int kPrec = 1;
             template <class V> TESSERA_HD_INLINE static V apply(V a, V b) { return a + b; } };
struct Sub { static constexpr const char* kName = "-"; static constexpr int kFlops = 1; static constexpr int kPrec = 1;
             template <class V> TESSERA_HD_INLINE static V apply(V a, V b) { return a - b; } };
struct Mul { static constexpr const char* kName = "*"; static constexpr int kFlops = 1; static constexpr int kPrec = 2;
             template <class V> TESSERA_HD_INLINE static V apply(V a, V b) { return a * b; } };
struct Div { static constexpr const char* kName = "/"; static constexpr int kFlops = 1; static constexpr int kPrec = 2;
             template <class V> TESSERA_HD_INLINE static V apply(V a, V b) { return a / b; } };
}  // namespace op

// ---------------------------------------------------------------------------------------------
// Expression nodes.  Every node: kIsExpr, kXCount (occurrences of x), kFlops, kPrec, operator()(V).
// ---------------------------------------------------------------------------------------------
struct X {
  static constexpr bool kIsExpr = true;
  static constexpr int kXCount = 1;
  static constexpr int kFlops = 0;
  static constexpr int kPrec = 9;
  template <class V>
  TESSERA_HD_INLINE V operator()(V v) const { return v; }
};
inline constexpr X x{};

struct Const {
  float value;
  static constexpr bool kIsExpr = true;
  static constexpr int kXCount = 0;
  static constexpr int kFlops = 0;
  static constexpr int kPrec = 9;
  template <class V>
  TESSERA_HD_INLINE V operator()(V) const { return static_cast<V>(value); }
};

template <class E>
concept Expression = requires { requires E::kIsExpr; };

template <class Op, Expression A>
struct Unary {
  A a;
  static constexpr bool kIsExpr = true;
  static constexpr int kXCount = A::kXCount;
  static constexpr int kFlops = Op::kFlops + A::kFlops;
  static constexpr int kPrec = 9;
  template <class V>
  TESSERA_HD_INLINE V operator()(V v) const { return Op::apply(a(v)); }
};

template <class Op, Expression A, Expression B>
struct Binary {
  A a;
  B b;
  static constexpr bool kIsExpr = true;
  static constexpr int kXCount = A::kXCount + B::kXCount;
  static constexpr int kFlops = Op::kFlops + A::kFlops + B::kFlops;
  static constexpr int kPrec = Op::kPrec;
  template <class V>
  TESSERA_HD_INLINE V operator()(V v) const { return Op::apply(a(v), b(v)); }
};

template <class S>
concept Scalar = std::is_arithmetic_v<S>;

// ---- builders: functions and operators ----
// clang-format off
template <Expression A> constexpr Unary<op::Sin, A>     sin(A a)     { return {a}; }
template <Expression A> constexpr Unary<op::Cos, A>     cos(A a)     { return {a}; }
template <Expression A> constexpr Unary<op::Exp, A>     exp(A a)     { return {a}; }
template <Expression A> constexpr Unary<op::Log, A>     log(A a)     { return {a}; }
template <Expression A> constexpr Unary<op::Sqrt, A>    sqrt(A a)    { return {a}; }
template <Expression A> constexpr Unary<op::Tanh, A>    tanh(A a)    { return {a}; }
template <Expression A> constexpr Unary<op::Abs, A>     abs(A a)     { return {a}; }
template <Expression A> constexpr Unary<op::Relu, A>    relu(A a)    { return {a}; }
template <Expression A> constexpr Unary<op::Sigmoid, A> sigmoid(A a) { return {a}; }
template <Expression A> constexpr Unary<op::Silu, A>    silu(A a)    { return {a}; }
template <Expression A> constexpr Unary<op::Gelu, A>    gelu(A a)    { return {a}; }
template <Expression A> constexpr Unary<op::GeluTanh, A> gelu_tanh(A a) { return {a}; }
template <Expression A> constexpr Unary<op::SiluApprox, A> silu_approx(A a) { return {a}; }
template <Expression A> constexpr Unary<op::Neg, A>     operator-(A a) { return {a}; }

template <Expression A, Expression B> constexpr Binary<op::Add, A, B> operator+(A a, B b) { return {a, b}; }
template <Expression A, Expression B> constexpr Binary<op::Sub, A, B> operator-(A a, B b) { return {a, b}; }
template <Expression A, Expression B> constexpr Binary<op::Mul, A, B> operator*(A a, B b) { return {a, b}; }
template <Expression A, Expression B> constexpr Binary<op::Div, A, B> operator/(A a, B b) { return {a, b}; }
template <Expression A, Scalar S> constexpr Binary<op::Add, A, Const> operator+(A a, S s) { return {a, Const{static_cast<float>(s)}}; }
template <Expression A, Scalar S> constexpr Binary<op::Sub, A, Const> operator-(A a, S s) { return {a, Const{static_cast<float>(s)}}; }
template <Expression A, Scalar S> constexpr Binary<op::Mul, A, Const> operator*(A a, S s) { return {a, Const{static_cast<float>(s)}}; }
template <Expression A, Scalar S> constexpr Binary<op::Div, A, Const> operator/(A a, S s) { return {a, Const{static_cast<float>(s)}}; }
template <Scalar S, Expression B> constexpr Binary<op::Add, Const, B> operator+(S s, B b) { return {Const{static_cast<float>(s)}, b}; }
template <Scalar S, Expression B> constexpr Binary<op::Sub, Const, B> operator-(S s, B b) { return {Const{static_cast<float>(s)}, b}; }
template <Scalar S, Expression B> constexpr Binary<op::Mul, Const, B> operator*(S s, B b) { return {Const{static_cast<float>(s)}, b}; }
template <Scalar S, Expression B> constexpr Binary<op::Div, Const, B> operator/(S s, B b) { return {Const{static_cast<float>(s)}, b}; }
// clang-format on

// Operations per element (see "Counting" in the header comment).
template <Expression E>
constexpr int flops(const E&) { return E::kFlops; }

// ---- printing (host) ----
namespace detail {
inline std::string const_str(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", static_cast<double>(v));
  return buf;
}
inline std::string to_str(const X&) { return "x"; }
inline std::string to_str(const Const& c) { return const_str(c.value); }
template <class Op, class A>
std::string to_str(const Unary<Op, A>& e);
template <class Op, class A, class B>
std::string to_str(const Binary<Op, A, B>& e);
template <class Op, class A>
std::string to_str(const Unary<Op, A>& e) {
  if constexpr (std::is_same_v<Op, op::Neg>) {
    const std::string s = to_str(e.a);
    return A::kPrec < 9 ? "-(" + s + ")" : "-" + s;
  } else {
    return std::string(Op::kName) + "(" + to_str(e.a) + ")";
  }
}
template <class Op, class A, class B>
std::string to_str(const Binary<Op, A, B>& e) {
  std::string l = to_str(e.a), r = to_str(e.b);
  if (A::kPrec < Op::kPrec) l = "(" + l + ")";
  if constexpr (std::is_same_v<B, Const> && (std::is_same_v<Op, op::Add> || std::is_same_v<Op, op::Sub>)) {
    if (e.b.value < 0.0f)  // x+-1 reads x-1, x--1 reads x+1
      return l + (std::is_same_v<Op, op::Add> ? "-" : "+") + const_str(-e.b.value);
  }
  // The right operand needs parentheses also at equal precedence for - and / (a-(b-c), a/(b*c)).
  const bool non_assoc = std::is_same_v<Op, op::Sub> || std::is_same_v<Op, op::Div>;
  if (B::kPrec < Op::kPrec || (non_assoc && B::kPrec == Op::kPrec)) r = "(" + r + ")";
  return l + Op::kName + r;
}
}  // namespace detail

// "gelu(x*1.702+0.25)": the expression in the syntax that builds it.
template <Expression E>
std::string to_string(const E& e) { return detail::to_str(e); }

// ---- splitting a chain into one-operation stages ----
namespace detail {
inline std::tuple<> stages_of(const X&) { return {}; }
template <class Op, class A>
auto stages_of(const Unary<Op, A>& e);
template <class Op, class A, class B>
auto stages_of(const Binary<Op, A, B>& e);
template <class Op, class A>
auto stages_of(const Unary<Op, A>& e) {
  return std::tuple_cat(stages_of(e.a), std::tuple<Unary<Op, X>>{Unary<Op, X>{x}});
}
template <class Op, class A, class B>
auto stages_of(const Binary<Op, A, B>& e) {
  if constexpr (A::kXCount == 1) {
    return std::tuple_cat(stages_of(e.a), std::tuple<Binary<Op, X, B>>{Binary<Op, X, B>{x, e.b}});
  } else {
    return std::tuple_cat(stages_of(e.b), std::tuple<Binary<Op, A, X>>{Binary<Op, A, X>{e.a, x}});
  }
}
}  // namespace detail

// The chain as a tuple of one-operation expressions, innermost first (empty for `x` itself).
template <Expression E>
auto stages(const E& e) {
  static_assert(E::kXCount == 1,
                "ew::stages: the expression must use x exactly once (a chain); expressions such as x*sin(x) "
                "can only run fused");
  return detail::stages_of(e);
}

}  // namespace tessera::ew
