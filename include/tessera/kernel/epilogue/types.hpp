// include/tessera/kernel/epilogue/types.hpp -- the vocabulary of the GEMM epilogue, shared by the kernels
// (device) and the host API (tessera/host/gemm.hpp).  Plain enums and one parameter struct: compiles
// with any C++20 compiler.
#pragma once

#include <cstdint>  // int64_t

#include "tessera/dtype.hpp"  // Dtype, MatrixOrder

namespace tessera {

// The activation of the epilogue, computed in fp32 on alpha * acc + beta * C + bias.
enum class Activation : int {
  none = 0,
  relu,        // max(x, 0)
  gelu_tanh,   // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  gelu_erf,    // 0.5 x (1 + erf(x / sqrt(2)))
  silu,        // x / (1 + exp(-x))
  leaky_relu,  // x >= 0 ? x : slope * x
  clamp,       // min(max(x, lo), hi)
};
constexpr const char* activation_name(Activation a) {
  switch (a) {
    case Activation::none: return "none";
    case Activation::relu: return "relu";
    case Activation::gelu_tanh: return "gelu_tanh";
    case Activation::gelu_erf: return "gelu_erf";
    case Activation::silu: return "silu";
    case Activation::leaky_relu: return "leaky_relu";
    case Activation::clamp: return "clamp";
  }
  return "?";
}

// Which bias is added: none, one value per column of D (length N), per row (length M), one scalar.
enum class BiasMode : int { none = 0, per_column, per_row, scalar };
constexpr const char* bias_mode_name(BiasMode b) {
  return b == BiasMode::none ? "none" : b == BiasMode::per_column ? "per_column" : b == BiasMode::per_row ? "per_row" : "scalar";
}

namespace epilogue {

// What the kernels' epilogue computes, in the problem coordinates the kernel sees (the host may have
// transposed the problem: then rows and columns, per-row and per-column bias are exchanged):
//   D(m,n) = act(alpha * acc(m,n) + beta * C(m,n) + bias) + R(m,n),  cast to d_type, one store.
// A matrix X with x_row_major is addressed as X[m * ldx + n], else X[n * ldx + m].
// *_vec: 16-byte vector accesses are legal for that matrix (base 16-byte aligned and ld * element
// size a multiple of 16); the host decides, the kernel falls back to element accesses otherwise.
struct Params {
  int m = 0, n = 0;
  float alpha = 1.f, beta = 0.f;

  void* d = nullptr;
  int64_t ldd = 0;
  bool d_row_major = true;
  bool d_vec = false;
  Dtype d_type = Dtype::bf16;  // one of kOutputTypes (the host rejects others); C and the residual have this type too

  const void* c = nullptr;  // read only when beta != 0
  int64_t ldc = 0;
  bool c_row_major = true;
  bool c_vec = false;

  const void* residual = nullptr;  // added after the activation when not null
  int64_t ldr = 0;
  bool r_row_major = true;
  bool r_vec = false;

  const void* bias = nullptr;
  int bias_along = 0;  // 0 none, 1 along m (one value per row), 2 along n (per column), 3 scalar
  bool bias_f32 = true;  // else the bias has d_type

  Activation act = Activation::none;
  float act_p0 = 0.f;  // leaky_relu: slope; clamp: lo
  float act_p1 = 0.f;  // clamp: hi
};

inline constexpr int kBiasNone = 0, kBiasAlongM = 1, kBiasAlongN = 2, kBiasScalar = 3;

// The types the epilogue stores D in, and reads C and the residual in (fp32 arithmetic in between).  One list:
// validation reads it (gemm_validate: what D, C and the residual may be), and each type dispatch of the kernels
// asserts that its cases are these, in this order (FragmentEpilogue::dispatch_type, StagedEpilogue::store).
inline constexpr Dtype kOutputTypes[] = {Dtype::bf16, Dtype::f16, Dtype::f32};
constexpr bool output_type(Dtype t) {
  for (Dtype o : kOutputTypes)
    if (o == t) return true;
  return false;
}
// Whether `cases` (a dispatch's, in order) are exactly kOutputTypes.
template <class... T>
constexpr bool output_types_are(T... cases) {
  const Dtype c[] = {cases...};
  if (sizeof...(cases) != sizeof(kOutputTypes) / sizeof(kOutputTypes[0])) return false;
  for (unsigned i = 0; i < sizeof...(cases); ++i)
    if (c[i] != kOutputTypes[i]) return false;
  return true;
}

}  // namespace epilogue
}  // namespace tessera
