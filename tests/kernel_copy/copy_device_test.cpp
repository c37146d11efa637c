// Every copy variant against a host copy: element sizes 1/2/4/8, all four majorness combinations
// (mixed = transposing), odd extents, padded and misaligned leading dimensions and base pointers.
// The whole destination allocation is poisoned first: elements must equal the source, every other byte
// (row padding, guard zones before and after) must still hold the poison.  Fresh random data per run.
// TESSERA_TEST_QUICK=1 runs a smaller sweep (used under compute-sanitizer).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>    // uint8_t
#include <cstdlib>    // std::getenv
#include <cstring>    // std::memcmp
#include <map>        // std::map
#include <random>     // std::mt19937_64, std::random_device
#include <sstream>    // std::ostringstream
#include <stdexcept>  // std::invalid_argument
#include <string>     // std::string
#include <vector>     // std::vector

#include "common/gpu.hpp"  // TESSERA_REQUIRE_GPU, CUDA_OK
#include "tessera/host/copy.hpp"

namespace {

using tessera::Copy2d;
using tessera::CopyPlan;
using tessera::CopyTuning;
using tessera::CopyVariant;
using tessera::Major;

constexpr uint8_t kPoison = 0xA5;
constexpr int64_t kGuard = 256;  // bytes before and after each matrix

// 0: full sweep; 1: smaller (memcheck); 2: smallest (racecheck, synccheck).
int quick_level() {
  const char* q = std::getenv("TESSERA_TEST_QUICK");
  return q && (q[0] == '1' || q[0] == '2') ? q[0] - '0' : 0;
}
bool quick() { return quick_level() > 0; }

struct Case {
  int e = 4;
  Major sm = Major::kRow, dm = Major::kRow;
  int64_t rows = 1, cols = 1;
  int pad_kind = 0;  // 0: ld = inner, 1: ld = inner + 3, 2: ld rounded up to 16 bytes (+16 bytes)
  int offset = 0;    // base pointer offset in elements (misaligns vectors when 1)
};

std::string describe(const Case& c, CopyVariant v, uint64_t seed) {
  std::ostringstream o;
  o << "variant=" << tessera::to_string(v) << " elem_bytes=" << c.e << " src=" << (c.sm == Major::kRow ? "row" : "col")
    << " dst=" << (c.dm == Major::kRow ? "row" : "col") << " rows=" << c.rows << " cols=" << c.cols
    << " pad_kind=" << c.pad_kind << " offset=" << c.offset << " seed=" << seed;
  return o.str();
}

int64_t leading_dim(const Case& c, Major m) {
  const int64_t inner = m == Major::kRow ? c.cols : c.rows;
  if (c.pad_kind == 1) return inner + 3;
  if (c.pad_kind == 2) {
    const int64_t per16 = 16 / c.e;
    return (inner + per16 - 1) / per16 * per16 + per16;
  }
  return inner;
}

// One matrix in device memory with guard zones: [guard | offset | matrix span | guard].
struct DeviceMatrix {
  std::vector<uint8_t> host;  // the whole allocation's intended content
  uint8_t* base = nullptr;    // allocation
  int64_t bytes = 0;
  int64_t start = 0;          // byte offset of element (0,0)
  int64_t ld = 0;
  Major major = Major::kRow;
  ~DeviceMatrix() {
    if (base) cudaFree(base);
  }
  int64_t elem_offset(int64_t i, int64_t j, int e) const {
    return start + (major == Major::kRow ? i * ld + j : i + j * ld) * e;
  }
};

void make_matrix(DeviceMatrix& m, const Case& c, Major major, int64_t ld) {
  const int64_t inner = major == Major::kRow ? c.cols : c.rows;
  const int64_t outer = major == Major::kRow ? c.rows : c.cols;
  m.major = major;
  m.ld = ld;
  // 256-byte aligned allocation; `start` keeps element alignment and applies the requested offset.
  m.start = kGuard + static_cast<int64_t>(c.offset) * c.e;
  m.bytes = m.start + ((outer - 1) * ld + inner) * c.e + kGuard;
  m.host.assign(static_cast<size_t>(m.bytes), kPoison);
  ASSERT_EQ(cudaMalloc(&m.base, static_cast<size_t>(m.bytes)), cudaSuccess);
}

// Runs `c` with variant `v`; returns false (after reporting) on a mismatch.  *ran is false when the
// variant refused the problem (then the refusal must have been a std::invalid_argument naming why).
void run_case(const Case& c, CopyVariant v, std::mt19937_64& rng, uint64_t seed, bool* ran,
              const CopyTuning& tuning = {}) {
  *ran = false;
  DeviceMatrix src, dst;
  make_matrix(src, c, c.sm, leading_dim(c, c.sm));
  make_matrix(dst, c, c.dm, leading_dim(c, c.dm));
  // Random source bytes, never equal to the poison byte (so an unwritten destination byte is always seen).
  for (auto& b : src.host) {
    b = static_cast<uint8_t>(rng());
    if (b == kPoison) b = 0x5A;
  }
  CUDA_OK(cudaMemcpy(src.base, src.host.data(), src.host.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemset(dst.base, kPoison, static_cast<size_t>(dst.bytes)));

  Copy2d p;
  p.src = src.base + src.start;
  p.ld_src = src.ld;
  p.src_major = c.sm;
  p.dst = dst.base + dst.start;
  p.ld_dst = dst.ld;
  p.dst_major = c.dm;
  p.rows = c.rows;
  p.cols = c.cols;
  p.elem_bytes = c.e;

  const std::string why = tessera::copy_unsupported_reason(p, v);
  if (!why.empty()) {
    bool threw = false;
    try {
      CopyPlan plan(p, v, tuning);
    } catch (const std::invalid_argument& e) {
      threw = std::string(e.what()).find(why) != std::string::npos;
    }
    EXPECT_TRUE(threw) << "an unsupported variant must throw std::invalid_argument with its reason: "
                       << describe(c, v, seed);
    return;
  }
  CopyPlan plan(p, v, tuning);
  plan.run();
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  *ran = true;

  std::vector<uint8_t> got(static_cast<size_t>(dst.bytes));
  CUDA_OK(cudaMemcpy(got.data(), dst.base, got.size(), cudaMemcpyDeviceToHost));
  // Expected destination: poison everywhere, the source's elements at the matrix positions.
  std::vector<uint8_t> want(static_cast<size_t>(dst.bytes), kPoison);
  for (int64_t i = 0; i < c.rows; ++i)
    for (int64_t j = 0; j < c.cols; ++j)
      std::memcpy(&want[dst.elem_offset(i, j, c.e)], &src.host[src.elem_offset(i, j, c.e)], c.e);
  if (got != want) {
    int64_t first = 0;
    while (got[first] == want[first]) ++first;
    int64_t bad = 0;
    for (size_t k = 0; k < got.size(); ++k) bad += got[k] != want[k];
    ADD_FAILURE() << describe(c, v, seed) << " [" << plan.description() << "]: " << bad << " wrong bytes, first at byte "
                  << first - dst.start << " from element (0,0): got " << int(got[first]) << " want " << int(want[first])
                  << (want[first] == kPoison ? " (the copy wrote outside the matrix)" : "");
  }
}

std::vector<Case> sweep() {
  std::vector<std::pair<int64_t, int64_t>> shapes = {{1, 1}, {1, 45}, {45, 1}, {7, 9}, {33, 65}, {64, 128}, {127, 257}};
  if (quick_level() == 2) shapes = {{1, 45}, {33, 65}, {127, 257}};
  if (!quick()) {
    shapes.push_back({260, 33});
    shapes.push_back({513, 1031});
  }
  std::vector<Case> out;
  for (int e : {1, 2, 4, 8})
    for (Major sm : {Major::kRow, Major::kCol})
      for (Major dm : {Major::kRow, Major::kCol})
        for (auto [r, c] : shapes)
          for (int pad : {0, 1, 2})
            for (int off : {0, 1}) {
              if (quick() && pad == 1 && off == 1) continue;
              if (quick_level() == 2 && (off == 1 || pad == 1)) continue;
              Case k;
              k.e = e;
              k.sm = sm;
              k.dm = dm;
              k.rows = r;
              k.cols = c;
              k.pad_kind = pad;
              k.offset = off;
              out.push_back(k);
            }
  return out;
}

class CopyVariants : public ::testing::TestWithParam<CopyVariant> {};

TEST_P(CopyVariants, MatchesHostCopy) {
  TESSERA_REQUIRE_GPU();
  const CopyVariant v = GetParam();
  if (v == CopyVariant::kTma && tessera::test::gpu_sm() < 90) GTEST_SKIP() << "TMA needs sm_90";
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  std::map<std::string, int> ran;  // per element size and majorness: how many problems this variant ran
  int total = 0;
  for (const Case& c : sweep()) {
    bool did = false;
    run_case(c, v, rng, seed, &did);
    if (HasFailure()) return;  // the first failure is enough (it names every parameter)
    if (did) {
      ++total;
      ran[std::to_string(c.e) + (c.sm == c.dm ? " straight" : " transposing")]++;
    }
  }
  // Each variant must actually run on the problems it claims (no silently skipped variant).
  const bool straight_only = v == CopyVariant::kVector || v == CopyVariant::kTma;
  for (int e : {1, 2, 4, 8}) {
    EXPECT_GT(ran[std::to_string(e) + " straight"], 0) << tessera::to_string(v) << " ran no straight copy of " << e << "-byte elements";
    if (!straight_only) {
      EXPECT_GT(ran[std::to_string(e) + " transposing"], 0)
          << tessera::to_string(v) << " ran no transposing copy of " << e << "-byte elements";
    }
  }
  std::printf("[ info ] %s: %d problems copied and checked\n", tessera::to_string(v), total);
}

INSTANTIATE_TEST_SUITE_P(All, CopyVariants,
                         ::testing::Values(CopyVariant::kScalar, CopyVariant::kVector, CopyVariant::kCpAsync,
                                           CopyVariant::kSwizzled, CopyVariant::kTma, CopyVariant::kAuto),
                         [](const auto& info) { return std::string(tessera::to_string(info.param)); });

// The tuning knobs the benchmark sweeps must all give correct copies.
TEST(CopyTunings, AllKnobsCopyCorrectly) {
  TESSERA_REQUIRE_GPU();
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  std::vector<Case> cases;
  for (auto [r, c] : std::vector<std::pair<int64_t, int64_t>>{{1, 100003}, {300, 517}, {64, 4096}}) {
    Case k;
    k.e = 4;
    k.rows = r;
    k.cols = c;
    k.pad_kind = r == 300 ? 2 : 0;
    cases.push_back(k);
  }
  for (const Case& c : cases) {
    for (int unroll : {1, 2, 4, 8})
      for (int hints : {0, 1})
        for (int ctas : {-1, 0, 1})
          for (int balanced : {0, 1}) {
            CopyTuning t;
            t.unroll = unroll;
            t.hints = hints;
            t.ctas_per_sm = ctas;
            t.balanced = balanced;
            bool did = false;
            run_case(c, CopyVariant::kVector, rng, seed, &did, t);
            ASSERT_TRUE(did && !HasFailure()) << "vector unroll=" << unroll << " hints=" << hints
                                              << " ctas_per_sm=" << ctas << " balanced=" << balanced;
          }
    for (CopyVariant v : {CopyVariant::kCpAsync, CopyVariant::kSwizzled})
      for (int stages : {2, 3, 4})
        for (int ctas : {0, 1})
          for (int balanced : {0, 1}) {
            CopyTuning t;
            t.stages = stages;
            t.ctas_per_sm = ctas;
            t.balanced = balanced;
            bool did = false;
            run_case(c, v, rng, seed, &did, t);
            ASSERT_TRUE(did && !HasFailure()) << tessera::to_string(v) << " stages=" << stages << " ctas_per_sm=" << ctas
                                              << " balanced=" << balanced;
          }
    if (tessera::test::gpu_sm() < 90) continue;
    for (int stages : {2, 3, 4})
        for (int box : {4096, 16384, 32768}) {
          CopyTuning t;
          t.stages = stages;
          t.box_bytes = box;
          t.ctas_per_sm = box == 4096 ? 1 : 0;
          bool did = false;
          run_case(c, CopyVariant::kTma, rng, seed, &did, t);
          ASSERT_TRUE(did && !HasFailure()) << "tma stages=" << stages << " box_bytes=" << box;
        }
  }
}

// Device-side argument checks that need real pointers.
TEST(CopyDeviceValidation, HostPointerAndOverlap) {
  TESSERA_REQUIRE_GPU();
  void* d = nullptr;
  CUDA_OK(cudaMalloc(&d, 1 << 16));
  std::vector<float> h(1024);
  Copy2d p;
  p.rows = 8;
  p.cols = 8;
  p.ld_src = p.ld_dst = 8;
  p.src = h.data();
  p.dst = d;
  try {
    tessera::copy_2d(p);
    ADD_FAILURE() << "accepted a host source pointer";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("src must point to device memory"), std::string::npos) << e.what();
  }
  p.src = d;
  p.dst = static_cast<char*>(d) + 16;  // overlaps
  try {
    tessera::copy_2d(p);
    ADD_FAILURE() << "accepted overlapping src and dst";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("src and dst overlap"), std::string::npos) << e.what();
  }
  p.dst = static_cast<char*>(d) + 4096;
  try {
    tessera::CopyPlan plan(p, CopyVariant::kVector);
    p.dst_major = Major::kCol;
    tessera::CopyPlan plan2(p, CopyVariant::kVector);
    ADD_FAILURE() << "vector accepted a transposing copy";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("variant 'vector' cannot run this problem"), std::string::npos) << e.what();
  }
  CUDA_OK(cudaFree(d));
}

}  // namespace
