// tests/kernel_fused/test_row_norm.cpp -- l2_norm / rms_norm against a float64 host reference.
//
// Every case: random inputs (never zeros), the output buffer poisoned (NaN bytes) before the run, every
// output element checked, the padding between rows and guard regions around the buffer checked to be
// still poisoned.  Row lengths cover every residue modulo the vector width and every one_pass/two_pass
// boundary; layouts cover aligned rows, misaligned rows, padded rows and y/weight misaligned against x.
#include <cmath>       // std::sqrt, NAN, INFINITY
#include <functional>  // std::function
#include <limits>      // std::numeric_limits
#include <string>      // std::string
#include <vector>      // std::vector

#include "fused_test_util.hpp"     // DeviceArray, compare, to_double
#include "tessera/host/fused.hpp"  // l2_norm, rms_norm, plan_row_norm

namespace {

using namespace tessera;
using fused::NormAlgo;
using fused::NormOptions;
using test::DeviceArray;

enum class Kind { l2, rms };

struct NormCase {
  Kind kind = Kind::l2;
  NormAlgo algo = NormAlgo::automatic;
  int64_t rows = 1, cols = 1;
  int64_t ld_x = 0, ld_y = 0;  // 0 = cols
  int64_t x_off = 0, y_off = 0, w_off = 0;  // elements from a 256-byte aligned allocation
  float eps = 1e-6f;
  bool in_place = false;
  std::string str() const {
    return std::string(kind == Kind::l2 ? "l2" : "rms") + " algo=" +
           (algo == NormAlgo::automatic ? "auto" : algo == NormAlgo::one_pass ? "one_pass" : "two_pass") +
           " rows=" + std::to_string(rows) + " cols=" + std::to_string(cols) + " ld_x=" + std::to_string(ld_x) +
           " ld_y=" + std::to_string(ld_y) + " x_off=" + std::to_string(x_off) + " y_off=" + std::to_string(y_off) +
           " w_off=" + std::to_string(w_off) + " eps=" + std::to_string(eps) + (in_place ? " in_place" : "");
  }
};

template <class T>
test::Tolerance tolerance() {
  if constexpr (std::is_same_v<T, float>) return {1e-5, 0.0, 0.0};
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return {1.0 / 256, 0.0, 0.0};  // 2^-8: rounding 2^-9 + scale
  else return {1.0 / 1024, 1.0 / (1 << 24), 0.0};  // fp16: 2^-10, plus the subnormal spacing 2^-24
}

// Float64 reference: y = x / sqrt(ss + eps) (l2) or x / sqrt(ss / cols + eps) * w (rms), compact rows.
template <class T>
std::vector<double> reference(const NormCase& c, const std::vector<T>& x, int64_t x_off, int64_t ld_x,
                              const std::vector<T>& w, int64_t w_off) {
  std::vector<double> ref(static_cast<size_t>(c.rows * c.cols));
  for (int64_t r = 0; r < c.rows; ++r) {
    double ss = 0;
    for (int64_t i = 0; i < c.cols; ++i) {
      const double v = test::to_double(x[x_off + r * ld_x + i]);
      ss += v * v;
    }
    const double denom = std::sqrt(c.kind == Kind::l2 ? ss + double(c.eps) : ss / double(c.cols) + double(c.eps));
    for (int64_t i = 0; i < c.cols; ++i) {
      double v = test::to_double(x[x_off + r * ld_x + i]) / denom;
      if (c.kind == Kind::rms) v *= test::to_double(w[w_off + i]);
      ref[r * c.cols + i] = v;
    }
  }
  return ref;
}

// Random values of either sign with a per-row scale 2^-4 .. 2^4 (the norms are scale invariant; the
// scale exercises the fp32 accumulation).  Never exactly zero.
template <class T>
std::vector<T> random_rows(std::mt19937_64& rng, size_t n, int64_t ld) {
  std::uniform_real_distribution<double> u(0.05, 1.0);
  std::bernoulli_distribution neg(0.5);
  std::vector<T> h(n);
  for (size_t i = 0; i < n; ++i) {
    const double scale = std::ldexp(1.0, static_cast<int>((ld ? i / ld : 0) % 9) - 4);
    h[i] = test::from_double<T>((neg(rng) ? -1.0 : 1.0) * u(rng) * scale);
  }
  return h;
}

// Runs one case; `edit` may change x (host copy) before upload.  Returns false on any failure.
template <class T>
bool run_case(const NormCase& c, std::mt19937_64& rng, const std::function<void(std::vector<T>&, int64_t)>& edit = {}) {
  SCOPED_TRACE(std::string(test::type_name<T>()) + " " + c.str());
  const int64_t ld_x = c.ld_x ? c.ld_x : c.cols, ld_y = c.ld_y ? c.ld_y : c.cols;
  const size_t nx = static_cast<size_t>(c.x_off + (c.rows > 0 ? (c.rows - 1) * ld_x + c.cols : 0));
  const size_t ny = static_cast<size_t>(c.y_off + (c.rows > 0 ? (c.rows - 1) * ld_y + c.cols : 0));
  DeviceArray<T> dx(std::max<size_t>(nx, 1)), dy(std::max<size_t>(ny, 1)), dw(static_cast<size_t>(c.w_off + c.cols + 1));
  std::vector<T> hx = random_rows<T>(rng, dx.size(), ld_x);
  if (edit) edit(hx, ld_x);
  std::vector<T> hw = random_rows<T>(rng, dw.size(), 0);  // weights: |w| in [0.05, 1), random sign
  dx.poison();
  dx.upload(hx);
  dw.poison();
  dw.upload(hw);
  dy.poison();

  NormOptions opt;
  opt.algo = c.algo;
  opt.ld_x = c.ld_x;
  opt.ld_y = c.ld_y;
  T* y = c.in_place ? dx.data() + c.x_off : dy.data() + c.y_off;
  const T* x = dx.data() + c.x_off;
  if (c.kind == Kind::l2) fused::l2_norm(x, y, c.rows, c.cols, c.eps, opt);
  else fused::rms_norm(x, static_cast<const T*>(dw.data() + c.w_off), y, c.rows, c.cols, c.eps, opt);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);

  const std::vector<double> ref = reference(c, hx, c.x_off, ld_x, hw, c.w_off);
  const std::vector<T> hy = c.in_place ? dx.download() : dy.download();
  const int64_t y_off = c.in_place ? c.x_off : c.y_off, ld_out = c.in_place ? ld_x : ld_y;
  std::vector<T> out(ref.size());
  int untouched_bad = 0;
  for (int64_t r = 0; r < c.rows; ++r) {
    for (int64_t i = 0; i < c.cols; ++i) out[r * c.cols + i] = hy[y_off + r * ld_out + i];
    if (!c.in_place && r + 1 < c.rows)  // padding after the row must keep the poison
      for (int64_t i = c.cols; i < ld_y; ++i) untouched_bad += !test::is_poison(hy[y_off + r * ld_y + i]);
  }
  if (!c.in_place)
    for (int64_t i = 0; i < c.y_off; ++i) untouched_bad += !test::is_poison(hy[i]);
  EXPECT_EQ(untouched_bad, 0) << "elements outside the rows were written";
  EXPECT_TRUE(dy.guards_intact()) << "writes before or after the y allocation's usable range";
  EXPECT_TRUE(dx.guards_intact()) << "writes around x";
  const int bad = test::compare(out, ref, tolerance<T>(), "y");
  return bad == 0 && untouched_bad == 0;
}

// Row lengths: residues mod 4 and mod 8, warp / CTA capacities (512, 4096, 16384, 32768) and their
// neighbours, and a row that needs two_pass under automatic.
const std::vector<int64_t> kCols = {1,    2,    3,    4,     5,     7,     8,     9,     15,    16,    17,   31,
                                    33,   100,  127,  128,   129,   255,   511,   512,   513,   1000,  1023, 1024,
                                    4093, 4095, 4096, 4097,  8191,  16383, 16384, 16385, 32767, 32768, 32769, 70001};

struct Layout {
  const char* name;
  int64_t x_off, y_off, w_off, ld_x_extra, ld_y_extra;
};
// aligned rows; rows all misaligned alike (vector path with scalar edges); padded rows with y and the
// weight misaligned against x (element stores, element weight loads).
const Layout kLayouts[] = {{"contiguous", 0, 0, 0, 0, 0}, {"offset", 1, 1, 1, 0, 0}, {"padded", 2, 0, 3, 3, 5}};

const std::vector<int64_t> kQuickCols = {1, 2, 3, 4, 5, 7, 8, 9, 33, 512, 513, 4096, 4097, 32768, 32769};

template <class T>
void sweep() {
  std::mt19937_64 rng(0x5eed0000 + sizeof(T));
  int failures = 0;
  for (int64_t cols : test::quick_sweep() ? kQuickCols : kCols) {
    for (const Layout& L : kLayouts) {
      for (Kind kind : {Kind::l2, Kind::rms}) {
        for (NormAlgo algo : {NormAlgo::automatic, NormAlgo::two_pass}) {
          NormCase c;
          c.kind = kind;
          c.algo = algo;
          c.rows = cols <= 512 ? 37 : 3;  // 37: the warp-per-row kernel's last CTA is partial
          c.cols = cols;
          c.x_off = L.x_off;
          c.y_off = L.y_off;
          c.w_off = L.w_off;
          c.ld_x = L.ld_x_extra ? cols + L.ld_x_extra : 0;
          c.ld_y = L.ld_y_extra ? cols + L.ld_y_extra : 0;
          failures += !run_case<T>(c, rng);
          if (failures > 10) FAIL() << "more than 10 failing cases; stopping";
        }
      }
    }
  }
}

TEST(FusedRowNorm, SweepFp32) { TESSERA_REQUIRE_GPU(); sweep<float>(); }
TEST(FusedRowNorm, SweepBf16) { TESSERA_REQUIRE_GPU(); sweep<__nv_bfloat16>(); }
TEST(FusedRowNorm, SweepFp16) { TESSERA_REQUIRE_GPU(); sweep<__half>(); }

// Explicit one_pass must agree with the reference too (automatic already takes it for short rows; this
// checks the forced path at the largest capacity).
TEST(FusedRowNorm, ForcedOnePassAtCapacity) {
  TESSERA_REQUIRE_GPU();
  std::mt19937_64 rng(7);
  NormCase c;
  c.algo = NormAlgo::one_pass;
  c.rows = 2;
  c.cols = fused::max_one_pass_cols<float>();
  EXPECT_TRUE(run_case<float>(c, rng));
  c.kind = Kind::rms;
  EXPECT_TRUE(run_case<float>(c, rng));
}

// Specified: a zero row gives zeros when eps > 0 and NaN (0 * 1/sqrt(0)) when eps == 0; other rows are
// unaffected.  Both algorithms, both kinds, every type.
template <class T>
void zero_rows() {
  std::mt19937_64 rng(11);
  for (int64_t cols : {1000, 40000}) {
    for (NormAlgo algo : {NormAlgo::automatic, NormAlgo::two_pass}) {
      for (Kind kind : {Kind::l2, Kind::rms}) {
        for (float eps : {1e-6f, 0.0f}) {
          NormCase c;
          c.kind = kind;
          c.algo = algo;
          c.rows = 4;
          c.cols = cols;
          c.eps = eps;
          auto zero_rows_1_3 = [&](std::vector<T>& x, int64_t ld) {
            for (int64_t r : {1, 3})
              for (int64_t i = 0; i < cols; ++i) x[r * ld + i] = test::from_double<T>(0.0);
          };
          EXPECT_TRUE(run_case<T>(c, rng, zero_rows_1_3));
        }
      }
    }
  }
}
TEST(FusedRowNorm, ZeroRowsFp32) { TESSERA_REQUIRE_GPU(); zero_rows<float>(); }
TEST(FusedRowNorm, ZeroRowsBf16) { TESSERA_REQUIRE_GPU(); zero_rows<__nv_bfloat16>(); }
TEST(FusedRowNorm, ZeroRowsFp16) { TESSERA_REQUIRE_GPU(); zero_rows<__half>(); }

// eps enters the formula: with tiny rows eps dominates the norm.  The reference with eps differs from
// the one without eps by far more than the tolerance, so ignoring eps would fail.
TEST(FusedRowNorm, EpsIsApplied) {
  TESSERA_REQUIRE_GPU();
  std::mt19937_64 rng(13);
  for (Kind kind : {Kind::l2, Kind::rms}) {
    NormCase c;
    c.kind = kind;
    c.rows = 5;
    c.cols = 256;
    c.eps = 1e-2f;
    auto tiny = [](std::vector<float>& x, int64_t) {
      for (float& v : x) v *= 1e-3f;
    };
    std::vector<float> probe = random_rows<float>(rng, 256, 0);
    tiny(probe, 0);
    double ss = 0;
    for (float v : probe) ss += double(v) * v;
    const double ms = kind == Kind::l2 ? ss : ss / 256;
    ASSERT_GT(std::sqrt((ms + 1e-2) / ms), 10.0) << "test data: eps must dominate";
    EXPECT_TRUE(run_case<float>(c, rng, tiny));
  }
}

// IEEE propagation: NaN in a row -> the whole row NaN; +-inf -> that element NaN, the others +-0.
template <class T>
void nan_inf() {
  std::mt19937_64 rng(17);
  for (int64_t cols : {1000, 40000}) {
    for (NormAlgo algo : {NormAlgo::automatic, NormAlgo::two_pass}) {
      for (Kind kind : {Kind::l2, Kind::rms}) {
        NormCase c;
        c.kind = kind;
        c.algo = algo;
        c.rows = 4;
        c.cols = cols;
        auto specials = [&](std::vector<T>& x, int64_t ld) {
          const double inf = std::numeric_limits<double>::infinity();
          x[0 * ld + cols / 3] = test::from_double<T>(std::numeric_limits<double>::quiet_NaN());
          x[1 * ld + cols - 1] = test::from_double<T>(inf);
          x[2 * ld + 0] = test::from_double<T>(-inf);
          x[2 * ld + cols / 2] = test::from_double<T>(inf);
        };
        EXPECT_TRUE(run_case<T>(c, rng, specials));
      }
    }
  }
}
TEST(FusedRowNorm, NanInfFp32) { TESSERA_REQUIRE_GPU(); nan_inf<float>(); }
TEST(FusedRowNorm, NanInfBf16) { TESSERA_REQUIRE_GPU(); nan_inf<__nv_bfloat16>(); }
TEST(FusedRowNorm, NanInfFp16) { TESSERA_REQUIRE_GPU(); nan_inf<__half>(); }

TEST(FusedRowNorm, InPlace) {
  TESSERA_REQUIRE_GPU();
  std::mt19937_64 rng(19);
  for (int64_t cols : {37, 4096, 40000}) {
    for (Kind kind : {Kind::l2, Kind::rms}) {
      NormCase c;
      c.kind = kind;
      c.rows = 3;
      c.cols = cols;
      c.in_place = true;
      c.x_off = 1;
      EXPECT_TRUE(run_case<float>(c, rng));
      EXPECT_TRUE(run_case<__nv_bfloat16>(c, rng));
    }
  }
}

// rows == 0 or cols == 0: nothing is launched or written; null pointers are accepted then.
TEST(FusedRowNorm, EmptyIsNoop) {
  TESSERA_REQUIRE_GPU();
  DeviceArray<float> y(16);
  y.poison();
  fused::l2_norm<float>(y.data(), y.data(), 0, 16, 1e-6f);
  fused::l2_norm<float>(y.data(), y.data(), 16, 0, 1e-6f);
  fused::l2_norm<float>(nullptr, nullptr, 0, 0, 1e-6f);
  fused::rms_norm<float>(nullptr, nullptr, nullptr, 0, 8, 1e-6f);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (float v : y.download()) EXPECT_TRUE(test::is_poison(v));
}

// ---- host-side checks: these run without a GPU (arguments are checked before any CUDA call) ----

template <class F>
void expect_argument_error(F&& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "expected ArgumentError mentioning '" << needle << "'";
  } catch (const fused::ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << "message: " << e.what();
  }
}

TEST(FusedRowNormArgs, RejectsBadArguments) {
  // Fake device addresses: the checks never dereference them.
  float* p = reinterpret_cast<float*>(uintptr_t{1} << 32);
  float* q = p + (1 << 20);
  expect_argument_error([&] { fused::l2_norm<float>(p, q, -1, 8, 1e-6f); }, "'rows'");
  expect_argument_error([&] { fused::l2_norm<float>(p, q, 2, -8, 1e-6f); }, "'cols'");
  expect_argument_error([&] { fused::l2_norm<float>(p, q, 2, int64_t{1} << 32, 1e-6f); }, "'cols'");
  expect_argument_error([&] { fused::l2_norm<float>(p, q, 2, 8, -1e-6f); }, "'eps'");
  expect_argument_error([&] { fused::l2_norm<float>(p, q, 2, 8, std::numeric_limits<float>::quiet_NaN()); }, "'eps'");
  expect_argument_error([&] { fused::l2_norm<float>(p, q, 2, 8, std::numeric_limits<float>::infinity()); }, "'eps'");
  expect_argument_error([&] { fused::l2_norm<float>(nullptr, q, 2, 8, 1e-6f); }, "'x'");
  expect_argument_error([&] { fused::l2_norm<float>(p, nullptr, 2, 8, 1e-6f); }, "'y'");
  expect_argument_error([&] { fused::rms_norm<float>(p, nullptr, q, 2, 8, 1e-6f); }, "'weight'");
  NormOptions bad_ld;
  bad_ld.ld_x = 7;
  expect_argument_error([&] { fused::l2_norm<float>(p, q, 2, 8, 1e-6f, bad_ld); }, "'ld_x'");
  bad_ld.ld_x = 0;
  bad_ld.ld_y = -2;
  expect_argument_error([&] { fused::l2_norm<float>(p, q, 2, 8, 1e-6f, bad_ld); }, "'ld_y'");
  float* misaligned = reinterpret_cast<float*>(reinterpret_cast<char*>(p) + 2);
  expect_argument_error([&] { fused::l2_norm<float>(misaligned, q, 2, 8, 1e-6f); }, "'x' must be aligned");
  expect_argument_error([&] { fused::l2_norm<float>(p, p + 3, 2, 8, 1e-6f); }, "overlap");
  NormOptions one;
  one.algo = NormAlgo::one_pass;
  expect_argument_error([&] { fused::l2_norm<float>(p, q, 2, 40000, 1e-6f, one); }, "one_pass holds at most");
  NormOptions ws;
  ws.algo = NormAlgo::two_pass;
  ws.workspace = q + (1 << 20);
  ws.workspace_bytes = 4;
  expect_argument_error([&] { fused::l2_norm<float>(p, q, 2, 40000, 1e-6f, ws); }, "'workspace_bytes'");
}

TEST(FusedRowNormArgs, PlansFollowRowLength) {
  const float* p = reinterpret_cast<const float*>(uintptr_t{1} << 32);  // 16-byte aligned
  EXPECT_EQ(fused::plan_row_norm(p, 100, 512).str(), "one-pass 32x4 (8 rows/CTA)");
  EXPECT_EQ(fused::plan_row_norm(p, 100, 4096).str(), "one-pass 128x8");
  EXPECT_EQ(fused::plan_row_norm(p, 100, 4097).str(), "one-pass 512x8");  // 4097 does not fit 128 x 32
  EXPECT_EQ(fused::plan_row_norm(p, 100, 4098).str(), "one-pass 512x8");  // rows no longer 16-byte aligned
  EXPECT_EQ(fused::plan_row_norm(p, 100, 16384).str(), "one-pass 512x8");
  EXPECT_EQ(fused::plan_row_norm(p, 100, 32768).str(), "one-pass 1024x8");
  EXPECT_EQ(fused::plan_row_norm(p, 100, 32769).str(), "two-pass 5 chunks of 256x8");
  const fused::NormPlan big = fused::plan_row_norm(p, 10, 1 << 20);
  EXPECT_EQ(big.algo, NormAlgo::two_pass);
  EXPECT_EQ(big.chunks, 128);
  EXPECT_EQ(big.workspace_bytes, 10u * 128u * sizeof(float));
  const __nv_bfloat16* b = reinterpret_cast<const __nv_bfloat16*>(p);
  EXPECT_EQ(fused::plan_row_norm(b, 100, 4096).str(), "one-pass 128x4");
  EXPECT_EQ(fused::max_one_pass_cols<__nv_bfloat16>(), 32768);
  EXPECT_EQ(fused::max_one_pass_cols<float>(), 32768);
  // misaligned start: the row window needs one more vector than ceil(cols / 4)
  EXPECT_EQ(fused::plan_row_norm(p + 1, 100, 4096).str(), "one-pass 512x8");
}

}  // namespace
