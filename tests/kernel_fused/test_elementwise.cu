// tests/kernel_fused/test_elementwise.cu -- fused and unfused elementwise chains against float64 references.
//
// Fused: out = round_T(f(x)) with f evaluated in float64.  Unfused: the chain's stages evaluated in
// float64 with the result rounded to T after every stage (what one kernel per operation computes).
// Every length residue, both pointers at every misalignment (equal and unequal), poisoned outputs and
// guard regions, NaN / Inf / -0 inputs.  The library's instantiated chains are called through the host
// API; two more expressions are instantiated here from the kernel header (a chain and a non-chain).
#include <cmath>   // std::sin, std::sqrt, std::erfc
#include <limits>  // std::numeric_limits
#include <string>  // std::string
#include <tuple>   // std::apply
#include <vector>  // std::vector

#include "fused_test_util.hpp"                   // DeviceArray, compare
#include "tessera/host/fused.hpp"                // elementwise, chains
#include "tessera/kernel/fused/elementwise.hpp"  // the templates, for the extra expressions below

namespace {

using namespace tessera;
using test::DeviceArray;

enum class Mode { fused, unfused };

template <class T>
test::Tolerance chain_tolerance(Mode m) {
  // Relative to |ref| + 1 (the chains' values are O(1); near zero crossings the absolute error of the
  // inputs dominates).  Unfused 16-bit: each rounded intermediate can be amplified by the next stage
  // (gelu's condition number is below 4 on the tested range).
  const double k = m == Mode::fused ? 1.0 : 4.0;
  if constexpr (std::is_same_v<T, float>) return {1e-5 * k, 0.0, 1.0};
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return {k / 256, 0.0, 1.0};
  else return {k / 1024, 0.0, 1.0};
}

template <class T, class F>
std::vector<double> chain_reference(const F& f, const std::vector<T>& x, Mode m) {
  std::vector<double> ref(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double v = test::to_double(x[i]);
    if (m == Mode::fused) {
      ref[i] = test::to_double(test::from_double<T>(f(v)));
    } else if constexpr (F::kXCount == 1 && F::kFlops > 0) {
      double r = v;
      std::apply([&](const auto&... stage) { ((r = test::to_double(test::from_double<T>(stage(r)))), ...); },
                 ew::stages(f));
      ref[i] = r;
    } else {
      ref[i] = test::to_double(test::from_double<T>(f(v)));
    }
  }
  return ref;
}

template <class T, class F>
void launch(const F& f, Mode m, const T* in, T* out, int64_t n) {
  if constexpr (F::kXCount == 1) {
    if (m == Mode::fused) fused::elementwise(f, in, out, n);
    else fused::elementwise_unfused(f, in, out, n);
  } else {  // not a chain: only the fused kernel exists
    ASSERT_EQ(m, Mode::fused) << "expressions that use x more than once run fused only";
    fused::elementwise(f, in, out, n);
  }
}

// Inputs uniform in [lo, hi]; `specials` puts NaN, +-inf and -0 at a few positions.
template <class T>
std::vector<T> random_values(std::mt19937_64& rng, size_t n, double lo, double hi, bool specials) {
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<T> h(n);
  for (auto& v : h) v = test::from_double<T>(u(rng));
  if (specials && n > 0) {
    const double inf = std::numeric_limits<double>::infinity();
    const double vals[] = {std::numeric_limits<double>::quiet_NaN(), inf, -inf, -0.0};
    for (size_t k = 0; k < 4; ++k) h[(k * 7919) % n] = test::from_double<T>(vals[k]);
  }
  return h;
}

const std::vector<int64_t> kLengths = {0, 1, 2, 3, 5, 7, 8, 9, 15, 31, 64, 127, 1000, 4099, 65541, (1 << 18) + 3};
struct Offsets {
  int64_t in, out;
};
// equal misalignment (vector path with scalar head/tail) and unequal (scalar path)
const Offsets kOffsets[] = {{0, 0}, {1, 1}, {3, 3}, {7, 7}, {0, 1}, {2, 5}};

template <class T, class F>
int run_chain(const F& f, const std::string& name, Mode m, double lo, double hi, std::mt19937_64& rng,
              bool specials = false) {
  int failures = 0;
  const std::vector<int64_t> quick = {0, 1, 3, 8, 9, 4099, 65541};
  for (int64_t n : test::quick_sweep() ? quick : kLengths) {
    for (const Offsets& o : kOffsets) {
      SCOPED_TRACE(std::string(test::type_name<T>()) + " " + name + (m == Mode::fused ? " fused" : " unfused") +
                   " n=" + std::to_string(n) + " in_off=" + std::to_string(o.in) + " out_off=" +
                   std::to_string(o.out) + (specials ? " specials" : ""));
      DeviceArray<T> din(static_cast<size_t>(n + o.in) + 1), dout(static_cast<size_t>(n + o.out) + 1);
      std::vector<T> hin = random_values<T>(rng, din.size(), lo, hi, false);
      std::vector<T> x(hin.begin() + o.in, hin.begin() + o.in + n);
      if (specials) {
        x = random_values<T>(rng, static_cast<size_t>(n), lo, hi, true);
        std::copy(x.begin(), x.end(), hin.begin() + o.in);
      }
      din.poison();
      din.upload(hin);
      dout.poison();
      launch(f, m, static_cast<const T*>(din.data() + o.in), dout.data() + o.out, n);
      EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      const std::vector<T> hout = dout.download();
      std::vector<T> y(hout.begin() + o.out, hout.begin() + o.out + n);
      int bad = test::compare(y, chain_reference(f, x, m), chain_tolerance<T>(m), "out");
      int outside = 0;
      for (int64_t i = 0; i < o.out; ++i) outside += !test::is_poison(hout[i]);
      outside += !test::is_poison(hout[o.out + n]);
      EXPECT_EQ(outside, 0) << "elements outside [0, n) were written";
      EXPECT_TRUE(dout.guards_intact());
      failures += (bad + outside) > 0;
      if (failures > 10) return failures;
    }
  }
  return failures;
}

template <class T>
void library_chains(bool specials) {
  std::mt19937_64 rng(0xe1e0 + sizeof(T) + specials);
  for (Mode m : {Mode::fused, Mode::unfused}) {
    EXPECT_EQ(run_chain<T>(fused::chains::identity(), "x", m, -4.0, 4.0, rng, specials), 0);
    EXPECT_EQ(run_chain<T>(fused::chains::sqrt_sin(), "sqrt(sin(x))", m, 0.05, 3.0, rng, specials), 0);
    EXPECT_EQ(run_chain<T>(fused::chains::gelu_affine(1.702f, -0.25f), "gelu(x*1.702-0.25)", m, -1.0, 2.0, rng,
                           specials),
              0);
  }
}

TEST(FusedElementwise, ChainsFp32) { TESSERA_REQUIRE_GPU(); library_chains<float>(false); }
TEST(FusedElementwise, ChainsBf16) { TESSERA_REQUIRE_GPU(); library_chains<__nv_bfloat16>(false); }
TEST(FusedElementwise, ChainsFp16) { TESSERA_REQUIRE_GPU(); library_chains<__half>(false); }
TEST(FusedElementwise, NanInfFp32) { TESSERA_REQUIRE_GPU(); library_chains<float>(true); }
TEST(FusedElementwise, NanInfBf16) { TESSERA_REQUIRE_GPU(); library_chains<__nv_bfloat16>(true); }
TEST(FusedElementwise, NanInfFp16) { TESSERA_REQUIRE_GPU(); library_chains<__half>(true); }

// Any expression runs through the kernel header: a chain with a constant on the left and a non-chain.
TEST(FusedElementwise, UserExpressions) {
  TESSERA_REQUIRE_GPU();
  using namespace tessera::ew;
  std::mt19937_64 rng(23);
  const auto chain = 1.5f - relu(x) * 2.0f;  // stages: relu(x), x*2, 1.5-x
  static_assert(std::tuple_size_v<decltype(stages(chain))> == 3, "three stages");
  EXPECT_EQ(run_chain<float>(chain, to_string(chain), Mode::fused, -2.0, 2.0, rng, true), 0);
  EXPECT_EQ(run_chain<float>(chain, to_string(chain), Mode::unfused, -2.0, 2.0, rng, true), 0);
  const auto non_chain = x * sin(x) + silu(x) / 4.0f;  // x used three times: fused only
  EXPECT_EQ(run_chain<float>(non_chain, to_string(non_chain), Mode::fused, -3.0, 3.0, rng, true), 0);
}

// ---- host-side checks (no GPU needed) ----
TEST(FusedElementwiseArgs, RejectsBadArguments) {
  float* p = reinterpret_cast<float*>(uintptr_t{1} << 32);
  const auto f = fused::chains::sqrt_sin();
  auto expect_error = [](auto&& call, const std::string& needle) {
    try {
      call();
      ADD_FAILURE() << "expected ArgumentError mentioning '" << needle << "'";
    } catch (const fused::ArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error([&] { fused::elementwise(f, static_cast<const float*>(p), p + 64, -1); }, "'n'");
  expect_error([&] { fused::elementwise(f, static_cast<const float*>(nullptr), p, 4); }, "'in'");
  expect_error([&] { fused::elementwise(f, static_cast<const float*>(p), static_cast<float*>(nullptr), 4); }, "'out'");
  expect_error([&] { fused::elementwise_unfused(f, static_cast<const float*>(p), p + 2, 4); }, "overlap");
  float* odd = reinterpret_cast<float*>(reinterpret_cast<char*>(p) + 1);
  expect_error([&] { fused::elementwise(f, static_cast<const float*>(odd), p + 64, 4); }, "'in' must be aligned");
  // n == 0 accepts null pointers and does nothing
  fused::elementwise(f, static_cast<const float*>(nullptr), static_cast<float*>(nullptr), 0);
}

}  // namespace
