// tests/kernel_fused/test_quantize.cpp -- tessera::fused::quantize against an independent host reference, bit for bit.
//
// The reference below is written from the specification (include/tessera/host/quantize.hpp), not from the kernels:
// FP8 encoding by formula (exponent, mantissa, round to nearest even, saturate to the largest finite value), s8 by
// rounding and clamping, amax as a NaN-propagating max, the scale rule written out again (quantize_reference.hpp;
// test_quantize_host.cpp checks it, and the argument errors, without a GPU).  Device cases: every (x type, q type, scale mode), shapes
// with every residue (cols not a multiple of 8 / 16 / 128, rows not a multiple of 128, rows longer than the
// registers hold), contiguous, padded and misaligned layouts, random inputs of varied magnitude (never zeros) with
// outliers, the outputs poisoned before each run, q bytes, scales and amax compared exactly (a NaN matches any NaN
// encoding), padding and guard regions checked untouched, and the round trip q * scale within half a step of x.
// Special cases: zero groups, a zero tensor, NaN and infinities, amax so small that qmax / amax overflows,
// tensor_given saturating, the workspace reused.
#include <cuda_fp8.h>  // __nv_cvt_float_to_fp8 (host emulation), the cross-check of the reference encoder

#include <algorithm>    // std::min, std::max
#include <cfloat>       // FLT_MAX
#include <cmath>        // std::frexp, std::ldexp, std::nearbyint, std::fabs, std::isnan, std::isinf, std::nextafter
#include <cstring>      // std::memcpy
#include <functional>   // std::function
#include <limits>       // std::numeric_limits
#include <string>       // std::string
#include <type_traits>  // std::is_same_v
#include <vector>       // std::vector

#include "fused_test_util.hpp"        // DeviceArray, to_double, from_double, quick_sweep
#include "quantize_reference.hpp"      // the host reference
#include "tessera/host/quantize.hpp"  // quantize, QuantizeArgs, quantize_scale_shape, plan_quantize

namespace {

using namespace tessera;
using namespace tessera::test::quant_ref;
using fused::QuantizeArgs;
using fused::QuantScale;
using test::DeviceArray;

// ---- data ----

// Random values of either sign, |v| in [0.05, 1) * 2^k with k varying by row and by 128-column block (so every
// scale group sees a different magnitude), never zero; about one element in 500 an outlier 2^10 times larger.
template <class T>
std::vector<T> random_x(std::mt19937_64& rng, size_t n, int64_t ld) {
  std::uniform_real_distribution<double> u(0.05, 1.0);
  std::bernoulli_distribution neg(0.5), outlier(0.002);
  std::vector<T> h(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t r = ld ? static_cast<int64_t>(i) / ld : 0, c = ld ? static_cast<int64_t>(i) % ld : 0;
    int k = static_cast<int>((r * 3 + c / 128) % 13) - 6;
    if (outlier(rng)) k += 10;
    h[i] = test::from_double<T>((neg(rng) ? -1.0 : 1.0) * u(rng) * std::ldexp(1.0, k));
  }
  return h;
}

struct QCase {
  QuantScale mode = QuantScale::row;
  Dtype q_type = Dtype::e4m3;
  int64_t rows = 1, cols = 1;
  int64_t ld_x = 0, ld_q = 0;    // 0 = cols
  int64_t x_off = 0, q_off = 0;  // elements / bytes from a 256-byte aligned allocation
  bool with_amax = true;
  bool own_workspace = false;    // tensor modes: pass a zeroed workspace (else quantize allocates one)
  double given_factor = 1.5;     // tensor_given: scale = given_factor * amax / qmax (< 1: values saturate)
  std::string str() const {
    return std::string(fused::quant_scale_name(mode)) + " q=" + dtype_name(q_type) + " rows=" + std::to_string(rows) +
           " cols=" + std::to_string(cols) + " ld_x=" + std::to_string(ld_x) + " ld_q=" + std::to_string(ld_q) +
           " x_off=" + std::to_string(x_off) + " q_off=" + std::to_string(q_off) + (with_amax ? " amax" : "") +
           (own_workspace ? " workspace" : "") + " given_factor=" + std::to_string(given_factor);
  }
};

template <class T>
constexpr Dtype dtype_of() {
  if constexpr (std::is_same_v<T, float>) return Dtype::f32;
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return Dtype::bf16;
  else return Dtype::f16;
}

// Exact comparison of floats (a NaN matches any NaN).
int compare_floats(const std::vector<float>& got, const std::vector<float>& want, const char* what) {
  int bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const bool ok = std::isnan(want[i]) ? std::isnan(got[i]) : bits_of(got[i]) == bits_of(want[i]);
    if (!ok && bad++ < 5)
      ADD_FAILURE() << what << "[" << i << "] is " << got[i] << " (0x" << std::hex << bits_of(got[i]) << "), expected "
                    << want[i] << " (0x" << bits_of(want[i]) << std::dec << ")";
  }
  if (bad > 5) ADD_FAILURE() << what << ": " << bad << " wrong in total";
  return bad;
}

// Runs one case; `edit` may change x (host copy, before upload).  Returns false on any failure.
template <class T>
bool run_case(const QCase& c, std::mt19937_64& rng, const std::function<void(std::vector<T>&, int64_t)>& edit = {}) {
  SCOPED_TRACE(std::string(test::type_name<T>()) + " " + c.str());
  const int64_t ld_x = c.ld_x ? c.ld_x : c.cols, ld_q = c.ld_q ? c.ld_q : c.cols;
  const size_t nx = static_cast<size_t>(c.x_off + (c.rows - 1) * ld_x + c.cols);
  const size_t nq = static_cast<size_t>(c.q_off + (c.rows - 1) * ld_q + c.cols);
  const fused::ScaleShape sh = fused::quantize_scale_shape(c.mode, c.rows, c.cols);
  DeviceArray<T> dx(nx);
  DeviceArray<uint8_t> dq(nq);
  DeviceArray<float> ds(static_cast<size_t>(sh.elems())), da(static_cast<size_t>(sh.elems()));
  DeviceArray<uint32_t> dws(4);
  std::vector<T> hx = random_x<T>(rng, nx, ld_x);
  if (edit) edit(hx, ld_x);
  dx.poison();
  dx.upload(hx);
  dq.poison();
  ds.poison();
  da.poison();
  EXPECT_EQ(cudaMemset(dws.data(), 0, 4 * sizeof(uint32_t)), cudaSuccess);

  float given = 0.0f;
  if (c.mode == QuantScale::tensor_given) {
    const Expected probe = reference(hx, c.x_off, ld_x, c.rows, c.cols, c.q_type, QuantScale::tensor, 0.0f);
    given = static_cast<float>(c.given_factor * probe.amax[0] / qmax_of(c.q_type));
    if (!(given > 0.0f) || std::isinf(given)) given = 1.0f;
    ds.upload({given});
  }

  QuantizeArgs a;
  a.x = dx.data() + c.x_off;
  a.x_type = dtype_of<T>();
  a.rows = c.rows;
  a.cols = c.cols;
  a.ld_x = c.ld_x;
  a.q = dq.data() + c.q_off;
  a.q_type = c.q_type;
  a.ld_q = c.ld_q;
  a.mode = c.mode;
  a.scale = ds.data();
  a.amax = c.with_amax ? da.data() : nullptr;
  a.scale_elems = sh.elems();
  if (c.own_workspace) {
    a.workspace = dws.data();
    a.workspace_bytes = 4 * sizeof(uint32_t);
  }
  fused::quantize(a);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);

  const Expected e = reference(hx, c.x_off, ld_x, c.rows, c.cols, c.q_type, c.mode, given);
  const std::vector<uint8_t> hq = dq.download();
  int bad = 0, untouched_bad = 0, trip_bad = 0;
  for (int64_t r = 0; r < c.rows; ++r) {
    for (int64_t i = 0; i < c.cols; ++i) {
      const uint8_t got = hq[c.q_off + r * ld_q + i], want = e.q[r * c.cols + i];
      const bool ok = q_is_nan(want, c.q_type) ? q_is_nan(got, c.q_type) : got == want;
      if (!ok && bad++ < 5)
        ADD_FAILURE() << "q(" << r << ", " << i << ") is 0x" << std::hex << int(got) << ", expected 0x" << int(want)
                      << std::dec << " (x = " << test::to_double(hx[c.x_off + r * ld_x + i]) << ")";
    }
    if (r + 1 < c.rows)
      for (int64_t i = c.cols; i < ld_q; ++i) untouched_bad += !test::is_poison(hq[c.q_off + r * ld_q + i]);
  }
  for (int64_t i = 0; i < c.q_off; ++i) untouched_bad += !test::is_poison(hq[i]);
  if (bad > 5) ADD_FAILURE() << "q: " << bad << " bytes wrong in total";
  EXPECT_EQ(untouched_bad, 0) << "bytes of q outside the rows were written";
  EXPECT_TRUE(dq.guards_intact()) << "writes around q";
  EXPECT_TRUE(dx.guards_intact()) << "writes around x";
  EXPECT_TRUE(ds.guards_intact()) << "writes around the scales";
  bad += compare_floats(ds.download(), e.scale, "scale");
  if (c.with_amax) {
    bad += compare_floats(da.download(), e.amax, "amax");
    EXPECT_TRUE(da.guards_intact()) << "writes around amax";
  } else {
    for (float v : da.download()) untouched_bad += !test::is_poison(v);
    EXPECT_EQ(untouched_bad, 0) << "amax written although not asked for";
  }
  if (c.own_workspace) {
    const std::vector<uint32_t> ws = dws.download();
    EXPECT_EQ(ws[0], 0u) << "workspace max not reset";
    EXPECT_EQ(ws[1], 0u) << "workspace ticket not reset";
  }

  // Round trip: |q * scale - x| <= half a step of q's grid (times the scale), plus the fp32 rounding of inv and of
  // the product, for every group whose scale is finite, not the tiny-amax one, and whose x is finite.
  const std::vector<float> hs = ds.download();
  const int64_t gr = c.mode == QuantScale::row || c.mode == QuantScale::block_1x128 ? 1
                     : c.mode == QuantScale::block_128x128                          ? 128
                                                                                    : c.rows;
  const int64_t gc = c.mode == QuantScale::block_1x128 || c.mode == QuantScale::block_128x128 ? 128 : c.cols;
  for (int64_t r = 0; r < c.rows && trip_bad < 5; ++r) {
    for (int64_t i = 0; i < c.cols; ++i) {
      const float scale = hs[(i / gc) * sh.rows + r / gr];
      const double x = test::to_double(hx[c.x_off + r * ld_x + i]);
      if (!std::isfinite(scale) || !(scale > 0.0f) || !std::isfinite(x)) continue;
      const uint8_t b = hq[c.q_off + r * ld_q + i];
      if (q_is_nan(b, c.q_type)) continue;
      const double deq = q_value(b, c.q_type) * scale;
      const double sat = c.mode == QuantScale::tensor_given && std::fabs(x) / scale > qmax_of(c.q_type)
                             ? std::fabs(x) - qmax_of(c.q_type) * scale  // saturated on purpose
                             : 0.0;
      const double tol = 0.5 * q_step(b, c.q_type) * scale + std::fabs(x) * 0x1p-20 + sat;
      if (!(std::fabs(deq - x) <= tol) && trip_bad++ < 5)
        ADD_FAILURE() << "round trip (" << r << ", " << i << "): q * scale = " << deq << ", x = " << x << ", tolerance "
                      << tol;
    }
  }
  return bad == 0 && untouched_bad == 0 && trip_bad == 0;
}

// ---- the sweep ----

struct Shape {
  int64_t rows, cols;
};
// cols: residues mod 8 / 16 / 128, a 1x128 block cut short, rows not a multiple of 128 (and more than 128), rows
// that need the warp, 128, 512 and 1024-thread segments, and rows longer than the registers hold (row loop; chunks);
// rows that fill the warp's, the 128- and the 512-thread segments exactly (16-bit: 512, 4096, 16384 elements; fp32:
// 256, 2048, 8192), which the kernels load and store as whole segments, without per-vector tests.
const std::vector<Shape> kShapes = {{1, 1},     {3, 7},      {5, 8},    {2, 17},   {37, 128}, {9, 129},   {130, 255},
                                    {129, 1000}, {257, 136},  {3, 4097}, {2, 16385}, {2, 40000}, {2, 70001}, {9, 256},
                                    {9, 512},   {5, 2048},   {5, 4096}, {3, 8192}, {3, 16384}};
const std::vector<Shape> kQuickShapes = {{3, 7}, {130, 255}, {3, 4097}, {2, 70001}};

struct LayoutKind {
  const char* name;
  bool padded, misaligned, q_misaligned;
};
// contiguous; padded rows that stay 16-byte aligned (the fast kernels, with ragged row ends); misaligned x and q
// (the row window's edges; the block modes' element-wise kernel); x aligned and q not (no whole segments: q's vectors
// are stored byte by byte).
const LayoutKind kLayouts[] = {{"contiguous", false, false, false},
                               {"padded", true, false, false},
                               {"misaligned", false, true, false},
                               {"q misaligned", false, false, true}};

// A case of one mode and q type on shape s in layout L: padded rows stay 16-byte aligned; misaligned x and q start
// off the vector grid with odd row strides.
QCase layout_case(QuantScale mode, Dtype qt, const Shape& s, const LayoutKind& L) {
  QCase c;
  c.mode = mode;
  c.q_type = qt;
  c.rows = s.rows;
  c.cols = s.cols;
  if (L.padded) {
    c.ld_x = (s.cols + 15) / 16 * 16 + 16;
    c.ld_q = (s.cols + 15) / 16 * 16 + 32;
  }
  if (L.misaligned) {
    c.x_off = 1;
    c.q_off = 3;
    c.ld_x = s.cols + 3;
    c.ld_q = s.cols + 5;
  }
  if (L.q_misaligned) {
    c.q_off = 1;
    c.ld_q = s.cols + 1;
  }
  return c;
}

template <class T>
void sweep() {
  std::mt19937_64 rng(0x9a4e0000 + sizeof(T));
  int failures = 0, n = 0;
  for (const Shape& s : test::quick_sweep() ? kQuickShapes : kShapes) {
    for (const LayoutKind& L : kLayouts) {
      for (QuantScale mode : kModes) {
        for (Dtype qt : kQTypes) {
          QCase c = layout_case(mode, qt, s, L);
          c.with_amax = n % 2 == 0;
          c.own_workspace = n % 3 == 0;
          c.given_factor = n % 5 == 0 ? 0.25 : 1.5;
          ++n;
          failures += !run_case<T>(c, rng);
          if (failures > 10) FAIL() << "more than 10 failing cases; stopping";
        }
      }
    }
  }
}

TEST(Quantize, SweepBf16) { TESSERA_REQUIRE_GPU(); sweep<__nv_bfloat16>(); }
TEST(Quantize, SweepF16) { TESSERA_REQUIRE_GPU(); sweep<__half>(); }
TEST(Quantize, SweepF32) { TESSERA_REQUIRE_GPU(); sweep<float>(); }

// Every mode x q type on one case with edits applied; both workspace variants.
template <class T>
void each_mode(std::mt19937_64& rng, int64_t rows, int64_t cols, const std::function<void(std::vector<T>&, int64_t)>& edit) {
  for (QuantScale mode : kModes)
    for (Dtype qt : kQTypes)
      for (bool ws : {false, true}) {
        QCase c;
        c.mode = mode;
        c.q_type = qt;
        c.rows = rows;
        c.cols = cols;
        c.own_workspace = ws;
        EXPECT_TRUE(run_case<T>(c, rng, edit));
      }
}

// amax == 0: a zero row (row 1), a zero 128x128 block (rows 128..255, cols 128..255) and so zero 1x128 blocks:
// scale 1, q 0.  A whole zero tensor: scale 1 in the tensor modes.
template <class T>
void zero_groups() {
  std::mt19937_64 rng(21);
  each_mode<T>(rng, 260, 300, [](std::vector<T>& x, int64_t ld) {
    for (int64_t i = 0; i < 300; ++i) x[1 * ld + i] = test::from_double<T>(0.0);
    for (int64_t r = 128; r < 256; ++r)
      for (int64_t i = 128; i < 256; ++i) x[r * ld + i] = test::from_double<T>(r % 2 ? 0.0 : -0.0);
  });
  each_mode<T>(rng, 3, 1000, [](std::vector<T>& x, int64_t) {
    for (T& v : x) v = test::from_double<T>(0.0);
  });
}
TEST(Quantize, ZeroGroupsBf16) { TESSERA_REQUIRE_GPU(); zero_groups<__nv_bfloat16>(); }
TEST(Quantize, ZeroGroupsF32) { TESSERA_REQUIRE_GPU(); zero_groups<float>(); }

// NaN in row 0 (column 5), +inf in row 2, -inf and +inf in row 3: those groups get NaN / inf scales; the other
// groups are unaffected.  Rows of 300 (several 1x128 blocks, one of them clean in each special row).
template <class T>
void nan_inf() {
  std::mt19937_64 rng(23);
  each_mode<T>(rng, 5, 300, [](std::vector<T>& x, int64_t ld) {
    const double inf = std::numeric_limits<double>::infinity();
    x[0 * ld + 5] = test::from_double<T>(std::numeric_limits<double>::quiet_NaN());
    x[2 * ld + 299] = test::from_double<T>(inf);
    x[3 * ld + 0] = test::from_double<T>(-inf);
    x[3 * ld + 140] = test::from_double<T>(inf);
  });
}
TEST(Quantize, NanInfBf16) { TESSERA_REQUIRE_GPU(); nan_inf<__nv_bfloat16>(); }
TEST(Quantize, NanInfF16) { TESSERA_REQUIRE_GPU(); nan_inf<__half>(); }
TEST(Quantize, NanInfF32) { TESSERA_REQUIRE_GPU(); nan_inf<float>(); }

// Rounding ties on the device: in rows 0 and 1 every 1x128 block holds 127, so the row and block factors are 1 and
// s8's q is x itself rounded to nearest even: the ties n + 0.5 from -126.5 to 126.5 (row 0), the same one fp32 ulp
// off (row 1, alternately below and above; bf16 rounds them back), and +-0 and subnormals in each block.  Every
// mode and q type runs on the same values; row 2 is random.
template <class T>
void rounding_ties() {
  std::mt19937_64 rng(37);
  each_mode<T>(rng, 3, 600, [](std::vector<T>& x, int64_t ld) {
    for (int64_t r = 0; r < 2; ++r)
      for (int64_t i = 0; i < 600; ++i) {
        float v = static_cast<float>(i % 254) - 126.5f;  // the ties -126.5 .. 126.5
        const float inf = std::numeric_limits<float>::infinity();
        if (r == 1) v = std::nextafter(v, i % 2 ? inf : -inf);
        if (i % 128 == 0) v = 127.0f;
        if (i % 128 == 1) v = -0.0f;
        if (i % 128 == 2) v = 1e-40f;
        x[r * ld + i] = test::from_double<T>(v);
      }
  });
}
TEST(Quantize, RoundingTiesBf16) { TESSERA_REQUIRE_GPU(); rounding_ties<__nv_bfloat16>(); }
TEST(Quantize, RoundingTiesF32) { TESSERA_REQUIRE_GPU(); rounding_ties<float>(); }

// amax below qmax / FLT_MAX for every q type (row 1 below 1e-38, partly subnormal; bf16 and fp32 reach it):
// scale 2^-128, factor FLT_MAX, and q * scale still recovers x.
template <class T>
void tiny_amax() {
  std::mt19937_64 rng(29);
  each_mode<T>(rng, 3, 260, [](std::vector<T>& x, int64_t ld) {
    for (int64_t i = 0; i < 260; ++i)
      x[1 * ld + i] = test::from_double<T>((i % 2 ? -1.0 : 1.0) * (0.05 + 0.9 * double(i % 97) / 97.0) * 1e-38);
  });
}
TEST(Quantize, TinyAmaxBf16) { TESSERA_REQUIRE_GPU(); tiny_amax<__nv_bfloat16>(); }
TEST(Quantize, TinyAmaxF32) { TESSERA_REQUIRE_GPU(); tiny_amax<float>(); }

// The workspace is left ready: the same workspace through many tensor calls of different sizes gives right results
// every time (a stale max or ticket would show in the scale).
TEST(Quantize, WorkspaceReused) {
  TESSERA_REQUIRE_GPU();
  std::mt19937_64 rng(31);
  for (Shape s : {Shape{64, 512}, Shape{1000, 4096}, Shape{3, 70001}, Shape{5, 7}}) {
    for (QuantScale mode : {QuantScale::tensor, QuantScale::tensor_given}) {
      QCase c;
      c.mode = mode;
      c.rows = s.rows;
      c.cols = s.cols;
      c.own_workspace = true;
      EXPECT_TRUE(run_case<__nv_bfloat16>(c, rng));
    }
  }
}

// More segments than resident CTAs, so that each CTA strides over several, loads its next segment while it works
// on the current one, and the last round is partial: every mode, the warp-per-row, 128-, 512-thread and chunked
// segments, contiguous, padded and misaligned rows, e4m3 and s8 in turn, with and without the amax.
template <class T>
void many_segments() {
  std::mt19937_64 rng(0x5e9 + sizeof(T));
  int n = 0;
  for (Shape s : {Shape{5003, 72}, Shape{1501, 1000}, Shape{400, 9000}, Shape{120, 70001}}) {
    for (const LayoutKind& L : kLayouts) {
      for (QuantScale mode : kModes) {
        QCase c = layout_case(mode, n % 2 ? Dtype::s8 : Dtype::e4m3, s, L);
        c.with_amax = n % 3 != 1;
        c.own_workspace = true;
        c.given_factor = n % 4 == 0 ? 0.25 : 1.5;
        ++n;
        EXPECT_TRUE(run_case<T>(c, rng));
      }
    }
  }
}
TEST(Quantize, ManySegmentsPerCtaBf16) { TESSERA_REQUIRE_GPU(); many_segments<__nv_bfloat16>(); }
TEST(Quantize, ManySegmentsPerCtaF32) { TESSERA_REQUIRE_GPU(); many_segments<float>(); }

// rows == 0 or cols == 0: nothing launched or written; null pointers are accepted then.
TEST(Quantize, EmptyIsNoop) {
  TESSERA_REQUIRE_GPU();
  DeviceArray<float> s(4);
  s.poison();
  QuantizeArgs a;
  a.mode = QuantScale::tensor;
  a.rows = 0;
  a.cols = 16;
  fused::quantize(a);
  a.rows = 16;
  a.cols = 0;
  a.scale = s.data();
  fused::quantize(a);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (float v : s.download()) EXPECT_TRUE(test::is_poison(v));
}

}  // namespace
