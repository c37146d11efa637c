// tests/kernel_gemm/gemm_check.hpp -- one GEMM test case end to end: random inputs, poisoned output,
// tessera::gemm on the GPU, a float64 host reference, and the comparison (every element, with a stated
// tolerance) plus a check that nothing outside D's elements was written.
//
// Tolerance per element:  |got - ref| <= 1e-6 + r_out * |ref| + c_acc * mag
//   mag   = (|alpha| * sum_k |a b| + |beta c| + |bias|) * 1.2 + |residual|   (1.2 bounds the activations'
//           slopes: GELU's is at most 1.13, SiLU's 1.1, the others 1; a, b the dequantised FP8 operands)
//   r_out = rounding to the output type: 2^-7 for bf16 (twice its unit roundoff 2^-8), 2^-10 for f16,
//           1e-6 for f32 (the activations' own few-ulp errors)
//   c_acc = error of the product sum in fp32 relative to mag: 2e-5 for bf16/f16 operands (exact fp32
//           products, fp32 sums in any order) and for the fp32 FFMA path; 1.5e-3 for tf32, whose operands are
//           rounded to 11 significant bits (each product within 2^-10 of exact).
//           s8 operands: the s32 sums are exact; on the dp4a kernel (GemmMath::dp4a or its tile forced) the only errors
//           are the fp32 conversion, the scales, the split-K partials' fp32 sum and alpha: (16 + max(splits, 32)) x
//           2^-24 (2.9e-6 up to 32 splits), except with gelu_tanh, gelu_erf or silu, whose fast formulas err by more
//           (1.3e-5 of |D| measured); otherwise the 2e-5 above.
//           FP8 operands (e4m3 / e5m2; fp8_c_acc below): the products are exact (at most 4 x 4 significant
//           bits, exponents within fp32's), but the tensor cores add them into their accumulator with about 14
//           significant bits (as reported; tessera/kernel/gemm/types.hpp, GemmFp8Accum): each wgmma k32 (a chunk
//           of 32 products) added in errs by about 2^-13 of the magnitude summed so far.
//             promoted: a promotion interval (128 products in the 128 x 128 and decode tiles, 256 in the persistent
//             tile) is 4 or 8 chunks summed from zero, so within 8 * 2^-13 = 9.8e-4 of the interval's sum_k |a b|;
//             the intervals' sums are added in fp32 registers (K/128 adds of 2^-24 each at most: 1.6e-5 at
//             K = 32,768), then scaled by *scale_a and *scale_b (2^-24 each): 1.1e-3 bounds the total.
//             fast: the tensor cores' accumulator runs over all of K, ceil(K/32) chunk adds of up to 2^-12 of the
//             running magnitude each: (K/32) * 2^-12 (0.4% at K = 512; only the short-K tests use it).  It is no
//             bound for long K: once the sum is about 2^14 times a product the accumulator adds products as zeros and
//             stops growing (H200, positive operands: 0.29 relative at K = 16,384, 0.56 at 32,768, where promoted
//             stays at 3.7e-5; gemm_fp8_test's GemmFp8.LongKNeedsPromotion).
//           The reference uses the dequantised operands, scale_a * A and scale_b * B (the scales' float values).
//           Block scales (GemmScale::block): each 128-deep K block's sum times its scales, in float64; the bound
//           holds per block, with mag the sum of the scaled |a b|.
//   + 2^-11 * 1.2 * (|alpha sum| + |bias|) for 16-bit D with beta = 0 and a residual, gelu_tanh or silu: the menus
//           the cooperative Hopper kernel finishes after carrying alpha sum as f16, the bias added after (2^-9 for the
//           value sets that pass f16's range, whose warps carry it as bf16).
// A NaN (the poison) never passes.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>  // __nv_fp8_e4m3, __nv_fp8_e5m2 (host conversions: round to nearest even, saturating)
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>  // std::clamp, std::min
#include <cmath>
#include <cstdint>
#include <cstdlib>  // std::abort
#include <cstring>
#include <functional>  // std::ref
#include <optional>    // GemmCase::in_b
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tessera/host/gemm.hpp"

namespace tessera::test {

// The operands' values: uniform in [-1, 1] (rounded to their type), or with one of these on top:
//   wide_columns  B's columns j = 2 (mod 5) times 2^40: D's rows span more than 2^28 in magnitude within any 64 columns
//   zero_rows     A's rows i = 3 (mod 7) zero: D's rows there are exactly the bias (0 without one)
//   inf_rows      A(i, 0) = +inf for rows i = 5 (mod 11): D's rows there are +-inf before the activation
//   inf_bias      bias entry 6 +inf and entry nb - 3 -inf (nb entries): D's columns (rows) there are +-inf before the
//                 activation
enum class GemmValues { uniform, wide_columns, zero_rows, inf_rows, inf_bias };

struct GemmCase {
  int64_t m = 1, n = 1, k = 1;
  Dtype in = Dtype::bf16, out = Dtype::bf16;
  std::optional<Dtype> in_b;  // B's type where it differs from A's (`in`): the FP8 pairs e4m3 x e5m2
  GemmMath math = GemmMath::automatic;
  MatrixOrder oa = MatrixOrder::row_major, ob = MatrixOrder::row_major;
  MatrixOrder oc = MatrixOrder::row_major, od = MatrixOrder::row_major, orr = MatrixOrder::row_major;
  int64_t pad_a = 0, pad_b = 0, pad_c = 0, pad_d = 0, pad_r = 0;  // ld = packed extent + pad
  int off_a = 0, off_b = 0, off_c = 0, off_d = 0, off_r = 0;      // element offsets of the base pointers
  float alpha = 1.f, beta = 0.f;
  BiasMode bias = BiasMode::none;
  Dtype bias_type = Dtype::f32;
  int off_bias = 0;  // element offset of the bias's base pointer (1 with a 16-bit bias: 2-byte aligned only)
  Activation act = Activation::none;
  float p0 = 0.f, p1 = 0.f;  // leaky slope, or clamp lo / hi
  bool residual = false;
  bool c_is_d = false;  // beta != 0 with C aliasing D (C's data copied into D first)
  GemmTile tile = GemmTile::automatic;
  int split_k = 0;
  GemmStreamK stream_k = GemmStreamK::automatic;
  bool workspace = false;  // pass a workspace of gemm_workspace_size bytes
  bool reuse_workspace = false;  // run twice; the second run trusts the counters the first left at zero
  bool alloc_callback = false;  // gemm(args, stream, alloc, ctx): the workspace from a counting allocator (poisoned)
  void* shared_workspace = nullptr;  // with workspace: this one (shared_workspace_bytes), trusted to be zeroed
  size_t shared_workspace_bytes = 0;
  uint32_t seed = 1;
  GemmValues values = GemmValues::uniform;
  float scale_a = 0.f, scale_b = 0.f;  // FP8 per-tensor scales (GemmArgs::scale_a / scale_b); 0: pass null (1)
  // FP8 channel scales (GemmScale::channel), in place of the per-tensor one: scale_a one per row of A, scale_b one per
  // column of B, values in [0.25, 2) from the seed (channel_scale_values).
  bool scale_a_rows = false, scale_b_cols = false;
  // FP8 block scales (GemmScale::block), in place of the others: A's per row and 128-deep K block, B's per 128 x 128
  // block, values in [0.25, 2) from the seed (block_scale_values).
  bool scale_a_blocks = false, scale_b_blocks = false;
  GemmFp8Accum fp8_accum = GemmFp8Accum::promoted;

  Dtype type_b() const { return in_b.value_or(in); }

  std::string str() const {
    auto o = [](MatrixOrder x) { return x == MatrixOrder::row_major ? "R" : "C"; };
    std::ostringstream s;
    s << "m=" << m << " n=" << n << " k=" << k << " in=" << dtype_name(in) << " out=" << dtype_name(out)
      << " math=" << static_cast<int>(math) << " orders(a,b,c,d,r)=" << o(oa) << o(ob) << o(oc) << o(od) << o(orr)
      << " pads=" << pad_a << "," << pad_b << "," << pad_c << "," << pad_d << "," << pad_r << " offs=" << off_a << ","
      << off_b << "," << off_c << "," << off_d << "," << off_r << " alpha=" << alpha << " beta=" << beta
      << " bias=" << bias_mode_name(bias) << "/" << dtype_name(bias_type) << "+" << off_bias << " act=" << activation_name(act) << "(" << p0
      << "," << p1 << ") residual=" << residual << " c_is_d=" << c_is_d << " tile=" << static_cast<int>(tile)
      << " split_k=" << split_k << " stream_k=" << static_cast<int>(stream_k) << " workspace=" << workspace << " reuse=" << reuse_workspace << " seed=" << seed
      << " values=" << static_cast<int>(values);
    if (in_b) s << " in_b=" << dtype_name(*in_b);
    if (scale_a != 0.f || scale_b != 0.f) s << " scales=" << scale_a << "," << scale_b << " (0: null)";
    if (scale_a_rows || scale_b_cols) s << " channel_scales(a rows, b cols)=" << scale_a_rows << "," << scale_b_cols;
    if (scale_a_blocks || scale_b_blocks) s << " block_scales(a, b)=" << scale_a_blocks << "," << scale_b_blocks;
    if (is_fp8(in)) s << " fp8_accum=" << (fp8_accum == GemmFp8Accum::promoted ? "promoted" : "fast");
    return s.str();
  }
};

// ---- host element conversions ----
inline double round_to(Dtype t, double x) {
  switch (t) {
    case Dtype::bf16: return static_cast<double>(__bfloat162float(__float2bfloat16_rn(static_cast<float>(x))));
    case Dtype::f16: return static_cast<double>(__half2float(__float2half_rn(static_cast<float>(x))));
    case Dtype::f32: return static_cast<double>(static_cast<float>(x));
    case Dtype::e4m3: return static_cast<double>(static_cast<float>(__nv_fp8_e4m3(static_cast<float>(x))));
    case Dtype::e5m2: return static_cast<double>(static_cast<float>(__nv_fp8_e5m2(static_cast<float>(x))));
    case Dtype::s8: return std::clamp(std::nearbyint(x), -128.0, 127.0);
    default: std::abort();  // the GEMM takes bf16, f16, f32, the FP8 types and s8 only (validation rejects the others)
  }
}
inline void store_elem(Dtype t, void* buf, int64_t i, double x) {
  switch (t) {
    case Dtype::bf16: static_cast<__nv_bfloat16*>(buf)[i] = __float2bfloat16_rn(static_cast<float>(x)); break;
    case Dtype::f16: static_cast<__half*>(buf)[i] = __float2half_rn(static_cast<float>(x)); break;
    case Dtype::f32: static_cast<float*>(buf)[i] = static_cast<float>(x); break;
    case Dtype::e4m3: static_cast<__nv_fp8_e4m3*>(buf)[i] = __nv_fp8_e4m3(static_cast<float>(x)); break;
    case Dtype::e5m2: static_cast<__nv_fp8_e5m2*>(buf)[i] = __nv_fp8_e5m2(static_cast<float>(x)); break;
    case Dtype::s8: static_cast<int8_t*>(buf)[i] = static_cast<int8_t>(std::clamp(std::nearbyint(x), -128.0, 127.0)); break;
    default: std::abort();
  }
}
inline double load_elem(Dtype t, const void* buf, int64_t i) {
  switch (t) {
    case Dtype::bf16: return __bfloat162float(static_cast<const __nv_bfloat16*>(buf)[i]);
    case Dtype::f16: return __half2float(static_cast<const __half*>(buf)[i]);
    case Dtype::f32: return static_cast<const float*>(buf)[i];
    case Dtype::e4m3: return static_cast<float>(static_cast<const __nv_fp8_e4m3*>(buf)[i]);
    case Dtype::e5m2: return static_cast<float>(static_cast<const __nv_fp8_e5m2*>(buf)[i]);
    case Dtype::s8: return static_cast<const int8_t*>(buf)[i];
    default: std::abort();
  }
}

inline double ref_act(Activation a, double x, double p0, double p1) {
  if (std::isinf(x) && a != Activation::leaky_relu && a != Activation::clamp) return x > 0 || a == Activation::none ? x : 0.0;  // the limits
  switch (a) {
    case Activation::none: return x;
    case Activation::relu: return x > 0 ? x : 0;
    case Activation::gelu_tanh: return 0.5 * x * (1 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
    case Activation::gelu_erf: return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    case Activation::silu: return x / (1 + std::exp(-x));
    case Activation::leaky_relu: return x >= 0 ? x : p0 * x;
    case Activation::clamp: return std::min(std::max(x, p0), p1);
  }
  return x;
}

// A host matrix (values exactly representable in its type) and its device copy with ld and offset.
struct Mat {
  int64_t rows = 0, cols = 0, ld = 0;
  MatrixOrder order = MatrixOrder::row_major;
  Dtype type = Dtype::bf16;
  int off = 0;
  std::vector<double> val;           // logical values, row-major rows x cols
  std::vector<unsigned char> bytes;  // the whole device buffer image (offset + padding included)
  void* dev = nullptr;               // allocation
  void* data() const { return static_cast<unsigned char*>(dev) + static_cast<size_t>(off) * dtype_bytes(type); }
  int64_t index(int64_t r, int64_t c) const { return off + (order == MatrixOrder::row_major ? r * ld + c : c * ld + r); }
  size_t elems() const {
    const int64_t outer = order == MatrixOrder::row_major ? rows : cols;
    return static_cast<size_t>(off + outer * ld);
  }
  double& at(int64_t r, int64_t c) { return val[static_cast<size_t>(r * cols + c)]; }
  double at(int64_t r, int64_t c) const { return val[static_cast<size_t>(r * cols + c)]; }
  void set(int64_t r, int64_t c, double v);  // value and device image (v representable in the type)
};

inline void Mat::set(int64_t r, int64_t c, double v) {
  at(r, c) = v;
  store_elem(type, bytes.data(), index(r, c), v);
}

inline void make_mat(Mat& x, int64_t rows, int64_t cols, MatrixOrder o, Dtype t, int64_t pad, int off, std::mt19937& rng,
                     bool fill_random, unsigned char poison = 0xFF) {
  x.rows = rows;
  x.cols = cols;
  x.order = o;
  x.type = t;
  x.off = off;
  x.ld = (o == MatrixOrder::row_major ? cols : rows) + pad;
  x.val.assign(static_cast<size_t>(rows * cols), 0.0);
  // (s8 has no NaN: its padding holds 127, so a kernel that reads past K sums wrong values instead)
  x.bytes.assign(x.elems() * dtype_bytes(t), t == Dtype::s8 && poison == 0xFF ? 0x7F : poison);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const double span = t == Dtype::s8 ? 127.0 : 1.0;  // s8: integers in [-127, 127]
  if (fill_random) {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        const double v = round_to(t, span * u(rng));
        x.at(r, c) = v;
        store_elem(t, x.bytes.data(), x.index(r, c), v);
      }
  }
}

struct DeviceBuffers {
  std::vector<void*> ptrs;
  ~DeviceBuffers() {
    for (void* p : ptrs) cudaFree(p);
  }
  void* alloc(size_t bytes) {
    void* p = nullptr;
    if (cudaMalloc(&p, bytes < 16 ? 16 : bytes) != cudaSuccess) return nullptr;
    ptrs.push_back(p);
    return p;
  }
};

// A GemmWorkspaceAlloc that records its calls: memory from `db`, filled with garbage, reported not zeroed.
struct CountingAlloc {
  DeviceBuffers* db;
  int calls = 0;
  size_t bytes = 0;
  void* ptr = nullptr;
  static void* fn(size_t bytes, void* ctx, bool* zeroed) {
    auto* a = static_cast<CountingAlloc*>(ctx);
    ++a->calls;
    a->bytes = bytes;
    a->ptr = a->db->alloc(bytes);
    if (a->ptr) {
      EXPECT_EQ(cudaMemset(a->ptr, 0x5A, bytes), cudaSuccess);
    }
    *zeroed = false;
    return a->ptr;
  }
};

inline void upload(DeviceBuffers& db, Mat& x) {
  x.dev = db.alloc(x.bytes.size());
  ASSERT_NE(x.dev, nullptr);
  ASSERT_EQ(cudaMemcpy(x.dev, x.bytes.data(), x.bytes.size(), cudaMemcpyHostToDevice), cudaSuccess);
}

// The arguments of D = A @ B for case `cs` over uploaded matrices (the epilogue fields left at their defaults).
inline GemmArgs product_args(const GemmCase& cs, const Mat& A, const Mat& B, const Mat& D) {
  GemmArgs g;
  g.m = cs.m;
  g.n = cs.n;
  g.k = cs.k;
  g.a = GemmMatrix{A.data(), cs.in, cs.oa, A.ld};
  g.b = GemmMatrix{B.data(), cs.type_b(), cs.ob, B.ld};
  g.d = GemmOutput{D.data(), cs.out, cs.od, D.ld};
  g.fp8_accum = cs.fp8_accum;
  return g;
}

// The channel scales of case `cs`: A's per row (`rows`: m values) or B's per column (n values), in [0.25, 2), from
// the case's seed (the same values for the upload and the reference).
inline std::vector<float> channel_scale_values(const GemmCase& cs, bool rows) {
  std::mt19937 rng(cs.seed * 2654435761u + (rows ? 17u : 29u));
  std::uniform_real_distribution<float> u(0.25f, 2.f);
  std::vector<float> v(static_cast<size_t>(rows ? cs.m : cs.n));
  for (float& x : v) x = u(rng);
  return v;
}

// The block scales of case `cs` (GemmArgs' layouts): A's (`a`) ceil(K / 128) x M, row i of K block kb at [kb * M + i];
// B's ceil(K / 128) x ceil(N / 128), block (kb, jb) at [kb * ceil(N / 128) + jb]; values in [0.25, 2) from the seed.
inline std::vector<float> block_scale_values(const GemmCase& cs, bool a) {
  std::mt19937 rng(cs.seed * 2654435761u + (a ? 41u : 53u));
  std::uniform_real_distribution<float> u(0.25f, 2.f);
  const int64_t kb = (cs.k + 127) / 128;
  std::vector<float> v(static_cast<size_t>(kb * (a ? cs.m : (cs.n + 127) / 128)));
  for (float& x : v) x = u(rng);
  return v;
}

// The FP8 scales of case `cs` (per tensor: 0 passes null; channel and block scales: their vectors) in device memory
// (from `db`), set in `g` with their modes.
inline void upload_scales(DeviceBuffers& db, const GemmCase& cs, GemmArgs& g) {
  const bool chan[2] = {cs.scale_a_rows, cs.scale_b_cols};
  const bool blk[2] = {cs.scale_a_blocks, cs.scale_b_blocks};
  std::vector<float> vals[2];
  for (int i = 0; i < 2; ++i) {
    if (blk[i]) vals[i] = block_scale_values(cs, i == 0);
    else if (chan[i]) vals[i] = channel_scale_values(cs, i == 0);
    else if ((i == 0 ? cs.scale_a : cs.scale_b) != 0.f) vals[i] = {i == 0 ? cs.scale_a : cs.scale_b};
  }
  const float* ptrs[2] = {nullptr, nullptr};
  for (int i = 0; i < 2; ++i) {
    if (vals[i].empty()) continue;
    void* p = db.alloc(vals[i].size() * sizeof(float));
    EXPECT_NE(p, nullptr);
    if (p) {
      EXPECT_EQ(cudaMemcpy(p, vals[i].data(), vals[i].size() * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
    }
    ptrs[i] = static_cast<const float*>(p);
  }
  g.scale_a = ptrs[0];
  g.scale_b = ptrs[1];
  g.scale_a_mode = blk[0] ? tessera::GemmScale::block : chan[0] ? tessera::GemmScale::channel : tessera::GemmScale::tensor;
  g.scale_b_mode = blk[1] ? tessera::GemmScale::block : chan[1] ? tessera::GemmScale::channel : tessera::GemmScale::tensor;
}

// The accumulation error of an FP8 product sum relative to mag (this file's header).
inline double fp8_c_acc(GemmFp8Accum acc, int64_t k) {
  if (acc == GemmFp8Accum::promoted) return 1.1e-3;
  return static_cast<double>(std::max<int64_t>(1, (k + 31) / 32)) * 0x1p-12;
}

// An element of D that misses the float64 reference (run_gemm_case's comparison).
struct RefMiss {
  int64_t i, j;
  double got, v, err, tol;
};

// The elements of D (`out`: the image of D's device buffer after the run) that miss the float64 reference of case `cs`
// by more than the tolerance in this file's header: at most 8, in row order.  `bias` holds the bias's values (empty
// without one); C is read when cs.beta != 0, R with cs.residual.  The reference runs on the host's threads, by blocks
// of rows (each element's sums in one fixed order, the same on any number of threads), over B's values transposed
// first so that the K loop reads both operands in order.
inline std::vector<RefMiss> reference_misses(const GemmCase& cs, const Mat& A, const Mat& B, const Mat& C, const Mat& R,
                                             const std::vector<double>& bias, const std::vector<unsigned char>& out,
                                             const Mat& D) {
  const double r_out = cs.out == Dtype::bf16 ? 1.0 / 128 : cs.out == Dtype::f16 ? 1.0 / 1024 : 1e-6;
  const GemmMath math = cs.math == GemmMath::automatic ? (cs.in == Dtype::f32 ? GemmMath::fp32_exact : GemmMath::tensor_core) : cs.math;
  // (s8: the s32 sums are exact; converted to fp32 (2^-24 relative), then split-K partials added in fp32: 2e-5 as for
  // the 16-bit operands bounds them.  The dp4a kernel, which the INT8 tests hold to its own bound: float(S) (2^-24 of
  // |S| <= sum |a b|), the scale products and the multiplications by them (4 x 2^-24), the split-K partials' fp32 sum
  // (at most 32 automatic splits, or the forced count: one 2^-24 of the running sum each), alpha and the beta C and bias
  // additions (3 x 2^-24): (16 + max(splits, 32)) x 2^-24 of mag bounds them all.)
  // That bound is the sums' alone: with gelu_tanh, gelu_erf or silu (the epilogue's fast formulas, whose own error
  // reached 1.3e-5 of |D| on the H200: GemmDp4a.ShapesScalesMenus, m = 33, n = 130, k = 37, f32 D) the 2e-5 of the
  // other paths holds them.
  const bool approx_act = cs.act == Activation::gelu_tanh || cs.act == Activation::gelu_erf || cs.act == Activation::silu;
  const bool dp4a = (math == GemmMath::dp4a || cs.tile == GemmTile::dp4a128x128) && !approx_act;
  const double c_acc = is_fp8(cs.in)             ? fp8_c_acc(cs.fp8_accum, cs.k)
                       : dp4a                    ? (16.0 + std::max(cs.split_k, 32)) * 0x1p-24
                       : math == GemmMath::tf32  ? 1.5e-3
                                                 : 2e-5;
  // FP8: the dequantised product (scale_a A) (scale_b B) = scale_a scale_b (A B), the scales' float values (0: null, 1).
  // Channel scales: row i's and column j's values instead of the per-tensor one.
  const double s_ab = (cs.scale_a == 0.f || cs.scale_a_rows || cs.scale_a_blocks ? 1.0 : static_cast<double>(cs.scale_a)) *
                      (cs.scale_b == 0.f || cs.scale_b_cols || cs.scale_b_blocks ? 1.0 : static_cast<double>(cs.scale_b));
  // Block scales: each 128-deep K block's sum times its A and B scales (1 for an operand without them).
  const std::vector<float> blk_a = cs.scale_a_blocks ? block_scale_values(cs, true) : std::vector<float>{};
  const std::vector<float> blk_b = cs.scale_b_blocks ? block_scale_values(cs, false) : std::vector<float>{};
  const bool by_blocks = cs.scale_a_blocks || cs.scale_b_blocks;
  const int64_t nb = (cs.n + 127) / 128;
  auto blk_at = [&](int64_t i, int64_t j, int64_t kb) {
    return (blk_a.empty() ? 1.0 : static_cast<double>(blk_a[static_cast<size_t>(kb * cs.m + i)])) *
           (blk_b.empty() ? 1.0 : static_cast<double>(blk_b[static_cast<size_t>(kb * nb + j / 128)]));
  };
  const std::vector<float> s_rows = cs.scale_a_rows ? channel_scale_values(cs, true) : std::vector<float>{};
  const std::vector<float> s_cols = cs.scale_b_cols ? channel_scale_values(cs, false) : std::vector<float>{};
  auto s_at = [&](int64_t i, int64_t j) {
    return s_ab * (s_rows.empty() ? 1.0 : static_cast<double>(s_rows[static_cast<size_t>(i)])) *
           (s_cols.empty() ? 1.0 : static_cast<double>(s_cols[static_cast<size_t>(j)]));
  };
  // The cooperative Hopper kernel's deferred menus with a residual, gelu_tanh or silu (16-bit D, beta = 0) carry
  // alpha A B as f16 from the drain to the pass that adds the bias and applies the activation and the residual, if any
  // (bf16 where a value of the warp passes f16's range): one more rounding, at most 2^-11 |alpha A B| (2^-9 as bf16),
  // bounded here by 2^-11 (|alpha A B| + |bias|) -- times the activation's slope (at most 1.13).  Without cancellation
  // (against the bias or the residual, or GELU's and SiLU's tails towards 0 for x < 0) this is within r_out.  The
  // value sets with infinities or 2^40-wide columns reach past f16's range: their warps park as bf16.
  const bool parked = (cs.out == Dtype::bf16 || cs.out == Dtype::f16) && cs.beta == 0.f &&
                      (cs.residual || cs.act == Activation::gelu_tanh || cs.act == Activation::silu);
  const bool past_f16 = cs.values == GemmValues::wide_columns || cs.values == GemmValues::inf_rows || cs.values == GemmValues::inf_bias;
  const double r_park = parked ? (past_f16 ? 0x1p-9 : 0x1p-11) * 1.2 : 0.0;
  const bool use_c = cs.beta != 0.f;
  const bool has_bias = !bias.empty();
  std::vector<double> bt(static_cast<size_t>(cs.n * cs.k));
  for (int64_t kk = 0; kk < cs.k; ++kk)
    for (int64_t j = 0; j < cs.n; ++j) bt[static_cast<size_t>(j * cs.k + kk)] = B.at(kk, j);
  auto check_rows = [&](int64_t r0, int64_t r1, std::vector<RefMiss>& miss) {
    for (int64_t i = r0; i < r1 && miss.size() < 8; ++i) {
      const double* a = &A.val[static_cast<size_t>(i * cs.k)];
      for (int64_t j = 0; j < cs.n && miss.size() < 8; ++j) {
        const double* b = &bt[static_cast<size_t>(j * cs.k)];
        // (four partial sums: the K loop runs at the adder's rate rather than its latency; float64 keeps the order's
        // effect some 10^9 times below the tolerance)
        double sa[4] = {0, 0, 0, 0}, sm[4] = {0, 0, 0, 0};
        int64_t kk = 0;
        for (; kk + 4 <= cs.k; kk += 4)
          for (int q = 0; q < 4; ++q) {
            const double pr = a[kk + q] * b[kk + q];
            sa[q] += pr;
            sm[q] += std::fabs(pr);
          }
        for (; kk < cs.k; ++kk) {
          const double pr = a[kk] * b[kk];
          sa[0] += pr;
          sm[0] += std::fabs(pr);
        }
        double acc = (sa[0] + sa[1]) + (sa[2] + sa[3]), mag = (sm[0] + sm[1]) + (sm[2] + sm[3]);
        if (by_blocks) {  // (again, by K blocks: each block's sums times its scales)
          acc = 0.0;
          mag = 0.0;
          for (int64_t k0 = 0; k0 < cs.k; k0 += 128) {
            double bs = 0.0, bm = 0.0;
            for (int64_t q = k0; q < std::min(cs.k, k0 + 128); ++q) {
              const double pr = a[q] * b[q];
              bs += pr;
              bm += std::fabs(pr);
            }
            const double f = blk_at(i, j, k0 / 128);
            acc += f * bs;
            mag += std::fabs(f) * bm;
          }
        }
        const double s_ij = s_at(i, j);
        double v = cs.alpha * (s_ij * acc);
        mag *= std::fabs(cs.alpha * s_ij);
        double x_abs = std::fabs(v);  // |alpha sum| + |bias|: the parked value's bound (r_park)
        if (use_c) {
          v += cs.beta * C.at(i, j);
          mag += std::fabs(cs.beta * C.at(i, j));
        }
        if (has_bias) {
          const double bv = bias[static_cast<size_t>(cs.bias == BiasMode::per_column ? j : cs.bias == BiasMode::per_row ? i : 0)];
          v += bv;
          mag += std::fabs(bv);
          x_abs += std::fabs(bv);
        }
        const double x_park = r_park * x_abs;
        v = ref_act(cs.act, v, cs.p0, cs.p1);
        mag *= 1.2;
        if (cs.residual) {
          v += R.at(i, j);
          mag += std::fabs(R.at(i, j));
        }
        const double got = load_elem(cs.out, out.data(), D.index(i, j));
        // An infinite result must be exact; a finite one from an infinite sum (the activation's limit) within its rounding.
        const double tol = std::isinf(v) ? 0.0 : 1e-6 + r_out * std::fabs(v) + (std::isfinite(mag) ? c_acc * mag + x_park : 0.0);
        const double err = std::isinf(v) ? (got == v ? 0.0 : HUGE_VAL) : std::fabs(got - v);
        if (!(err <= tol)) miss.push_back({i, j, got, v, err, tol});
      }
    }
  };
  const int64_t blocks = std::clamp<int64_t>(static_cast<int64_t>(std::thread::hardware_concurrency()), 1, 64);
  const int64_t per = (cs.m + blocks - 1) / blocks;
  std::vector<std::vector<RefMiss>> misses(static_cast<size_t>(blocks));
  {
    std::vector<std::thread> pool;
    for (int64_t t = 1; t < blocks && t * per < cs.m; ++t)
      pool.emplace_back(check_rows, t * per, std::min(cs.m, (t + 1) * per), std::ref(misses[static_cast<size_t>(t)]));
    check_rows(0, std::min(cs.m, per), misses[0]);
    for (std::thread& th : pool) th.join();
  }
  std::vector<RefMiss> first;
  for (const std::vector<RefMiss>& ms : misses)
    for (const RefMiss& x : ms)
      if (first.size() < 8) first.push_back(x);
  return first;
}

// Runs one case; reports failures through gtest (with the case description).  Returns the plan used.
inline GemmPlan run_gemm_case(const GemmCase& cs) {
  GemmPlan plan;
  std::mt19937 rng(cs.seed);
  DeviceBuffers db;
  Mat A, B, C, D, R;
  make_mat(A, cs.m, cs.k, cs.oa, cs.in, cs.pad_a, cs.off_a, rng, true);
  make_mat(B, cs.k, cs.n, cs.ob, cs.type_b(), cs.pad_b, cs.off_b, rng, true);
  switch (cs.values) {
    case GemmValues::uniform: break;
    case GemmValues::wide_columns:
      for (int64_t r = 0; r < cs.k; ++r)
        for (int64_t c = 2; c < cs.n; c += 5) B.set(r, c, B.at(r, c) * 0x1p40);
      break;
    case GemmValues::zero_rows:
      for (int64_t r = 3; r < cs.m; r += 7)
        for (int64_t c = 0; c < cs.k; ++c) A.set(r, c, 0.0);
      break;
    case GemmValues::inf_rows:
      for (int64_t r = 5; r < cs.m; r += 11) A.set(r, 0, HUGE_VAL);
      break;
    case GemmValues::inf_bias: break;  // below, with the bias
  }
  const bool use_c = cs.beta != 0.f;
  if (use_c && !cs.c_is_d) make_mat(C, cs.m, cs.n, cs.oc, cs.out, cs.pad_c, cs.off_c, rng, true);
  if (cs.residual) make_mat(R, cs.m, cs.n, cs.orr, cs.out, cs.pad_r, cs.off_r, rng, true);
  // D: poisoned (all bytes 0xFF = NaN in every type); with c_is_d, C's values are written into D first.
  make_mat(D, cs.m, cs.n, cs.od, cs.out, cs.pad_d, cs.off_d, rng, cs.c_is_d);
  if (cs.c_is_d) C = D;
  std::vector<double> bias;
  std::vector<unsigned char> bias_bytes;
  const int64_t nb = cs.bias == BiasMode::per_column ? cs.n : cs.bias == BiasMode::per_row ? cs.m : cs.bias == BiasMode::scalar ? 1 : 0;
  if (nb) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    bias.resize(static_cast<size_t>(nb));
    bias_bytes.resize(static_cast<size_t>(nb + cs.off_bias) * dtype_bytes(cs.bias_type));
    for (int64_t i = 0; i < cs.off_bias; ++i) store_elem(cs.bias_type, bias_bytes.data(), i, 1e3);  // read by no one
    for (int64_t i = 0; i < nb; ++i) {
      bias[static_cast<size_t>(i)] = round_to(cs.bias_type, u(rng));
      if (cs.values == GemmValues::inf_bias && i == 6) bias[static_cast<size_t>(i)] = HUGE_VAL;
      if (cs.values == GemmValues::inf_bias && i == nb - 3 && nb > 7) bias[static_cast<size_t>(i)] = -HUGE_VAL;
      store_elem(cs.bias_type, bias_bytes.data(), cs.off_bias + i, bias[static_cast<size_t>(i)]);
    }
  }
  upload(db, A);
  upload(db, B);
  if (use_c && !cs.c_is_d) upload(db, C);
  if (cs.residual) upload(db, R);
  upload(db, D);
  void* dbias = nullptr;
  if (nb) {
    dbias = db.alloc(bias_bytes.size());
    EXPECT_EQ(cudaMemcpy(dbias, bias_bytes.data(), bias_bytes.size(), cudaMemcpyHostToDevice), cudaSuccess);
  }

  GemmArgs g = product_args(cs, A, B, D);
  upload_scales(db, cs, g);
  if (use_c) g.c = cs.c_is_d ? GemmMatrix{D.data(), cs.out, cs.od, D.ld} : GemmMatrix{C.data(), cs.out, cs.oc, C.ld};
  g.alpha = cs.alpha;
  g.beta = cs.beta;
  g.bias_mode = cs.bias;
  g.bias = dbias ? static_cast<unsigned char*>(dbias) + static_cast<size_t>(cs.off_bias) * dtype_bytes(cs.bias_type) : nullptr;
  g.bias_type = cs.bias_type;
  g.bias_size = nb;
  g.activation = cs.act;
  if (cs.act == Activation::leaky_relu) g.leaky_relu_slope = cs.p0;
  if (cs.act == Activation::clamp) {
    g.clamp_lo = cs.p0;
    g.clamp_hi = cs.p1;
  }
  if (cs.residual) g.residual = GemmMatrix{R.data(), cs.out, cs.orr, R.ld};
  g.math = cs.math;
  g.tile = cs.tile;
  g.split_k = cs.split_k;
  g.stream_k = cs.stream_k;
  size_t ws_bytes = 0;
  if (cs.workspace && cs.shared_workspace) {
    // A workspace that other problems used before: their completed calls left its counters zero.
    ws_bytes = cs.shared_workspace_bytes;
    g.workspace = cs.shared_workspace;
    g.workspace_bytes = ws_bytes;
    g.workspace_zeroed = true;
  } else if (cs.workspace) {
    ws_bytes = gemm_workspace_size(g);
    if (ws_bytes) {
      g.workspace = db.alloc(ws_bytes);
      g.workspace_bytes = ws_bytes;
      // Garbage in the counters must not matter: gemm() resets them (workspace_zeroed is false).
      EXPECT_EQ(cudaMemset(g.workspace, 0x5A, ws_bytes), cudaSuccess);
    }
  }
  GemmStatus st = gemm_plan(g, &plan);
  EXPECT_TRUE(st.ok()) << st.message << "\n  case: " << cs.str();
  if (!st.ok()) return plan;
  if (cs.alloc_callback) {
    // The allocator is called once, for the bytes gemm_workspace_size names (split-K or a stream-K tail), or not at all.
    const size_t want = gemm_workspace_size(g);
    CountingAlloc ca{&db};
    st = gemm(g, nullptr, &CountingAlloc::fn, &ca);
    EXPECT_EQ(ca.calls, want ? 1 : 0) << cs.str();
    EXPECT_EQ(ca.bytes, want) << cs.str();
    ws_bytes = ca.bytes;
    g.workspace = ca.ptr;  // (for the flag checks below)
  } else {
    st = gemm(g, nullptr);
  }
  EXPECT_TRUE(st.ok()) << st.message << "\n  case: " << cs.str();
  if (!st.ok()) return plan;
  cudaError_t e = cudaDeviceSynchronize();
  EXPECT_EQ(e, cudaSuccess) << cudaGetErrorString(e) << "\n  case: " << cs.str();
  if (e != cudaSuccess) return plan;
  if (cs.reuse_workspace) {
    // Second run on the same workspace without the counter reset; D poisoned again first.
    EXPECT_EQ(cudaMemcpy(D.dev, D.bytes.data(), D.bytes.size(), cudaMemcpyHostToDevice), cudaSuccess);
    g.workspace_zeroed = true;
    st = gemm(g, nullptr);
    EXPECT_TRUE(st.ok()) << st.message << "\n  case: " << cs.str();
    e = cudaDeviceSynchronize();
    EXPECT_EQ(e, cudaSuccess) << cudaGetErrorString(e) << "\n  case: " << cs.str();
    if (!st.ok() || e != cudaSuccess) return plan;
  }
  std::vector<unsigned char> out(D.bytes.size());
  EXPECT_EQ(cudaMemcpy(out.data(), D.dev, out.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  if (plan.stream_k_tiles > 0 && ws_bytes) {
    // The stream-K flags (two per block) are left at zero.
    std::vector<int> flags(static_cast<size_t>(plan.grid_blocks) * 2);
    EXPECT_EQ(cudaMemcpy(flags.data(), g.workspace, flags.size() * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
    for (size_t i = 0; i < flags.size(); ++i) {
      EXPECT_EQ(flags[i], 0) << "stream-K flag " << i << " not reset\n  case: " << cs.str();
      if (flags[i] != 0) break;
    }
  }
  if (plan.split_k > 1 && ws_bytes) {
    // The kernel leaves the tile counters at zero.
    std::vector<int> counters(static_cast<size_t>(plan.grid_tiles));
    EXPECT_EQ(cudaMemcpy(counters.data(), g.workspace, counters.size() * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
    for (size_t i = 0; i < counters.size(); ++i) {
      EXPECT_EQ(counters[i], 0) << "split-K counter " << i << " not reset\n  case: " << cs.str();
      if (counters[i] != 0) break;
    }
  }

  // ---- reference and comparison ----
  int bad = 0;
  for (const RefMiss& x : reference_misses(cs, A, B, C, R, bias, out, D)) {
    ++bad;
    ADD_FAILURE() << "D(" << x.i << "," << x.j << ") = " << x.got << ", reference " << x.v << ", |err| " << x.err << " > tol "
                  << x.tol << "\n  plan: " << plan.str() << "\n  case: " << cs.str();
  }
  // Nothing outside D's elements was written: the offset prefix and the ld padding keep the poison.
  std::vector<char> inside(D.elems(), 0);
  for (int64_t i = 0; i < cs.m; ++i)
    for (int64_t j = 0; j < cs.n; ++j) inside[static_cast<size_t>(D.index(i, j))] = 1;
  const int eb = dtype_bytes(cs.out);
  for (size_t x = 0; x < inside.size() && bad < 8; ++x) {
    if (inside[x]) continue;
    for (int b = 0; b < eb; ++b)
      if (out[x * eb + b] != 0xFF) {
        ++bad;
        ADD_FAILURE() << "element " << x << " of D's buffer lies outside the matrix and was written\n  plan: " << plan.str()
                      << "\n  case: " << cs.str();
        break;
      }
  }
  return plan;
}

// Runs case `cs` (plain GEMM: its shape, types, orders, tile, split, workspace, FP8 scales and accumulation; no
// epilogue inputs) three times on the same inputs, D poisoned before each run, and says whether all three outputs
// have the same bits.
inline bool gemm_repeatable(const GemmCase& cs) {
  std::mt19937 rng(cs.seed);
  DeviceBuffers db;
  Mat A, B, D;
  make_mat(A, cs.m, cs.k, cs.oa, cs.in, cs.pad_a, cs.off_a, rng, true);
  make_mat(B, cs.k, cs.n, cs.ob, cs.type_b(), cs.pad_b, cs.off_b, rng, true);
  make_mat(D, cs.m, cs.n, cs.od, cs.out, cs.pad_d, cs.off_d, rng, false);
  upload(db, A);
  upload(db, B);
  upload(db, D);
  GemmArgs g = product_args(cs, A, B, D);
  upload_scales(db, cs, g);
  g.tile = cs.tile;
  g.split_k = cs.split_k;
  if (cs.workspace) {
    g.workspace_bytes = gemm_workspace_size(g);
    g.workspace = g.workspace_bytes ? db.alloc(g.workspace_bytes) : nullptr;
  }
  std::vector<unsigned char> first, out(D.bytes.size());
  for (int run = 0; run < 3; ++run) {
    EXPECT_EQ(cudaMemcpy(D.dev, D.bytes.data(), D.bytes.size(), cudaMemcpyHostToDevice), cudaSuccess);
    const GemmStatus st = gemm(g, nullptr);
    EXPECT_TRUE(st.ok()) << st.message << "\n  case: " << cs.str();
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess) << cs.str();
    EXPECT_EQ(cudaMemcpy(out.data(), D.dev, out.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    if (!st.ok()) return false;
    if (run == 0) first = out;
    else if (out != first) return false;
  }
  return true;
}

}  // namespace tessera::test
