// Argument validation of the copy host API: every bad argument is rejected with a message naming it.
// These checks run before any device access, so the test needs no GPU.
#include <gtest/gtest.h>

#include <stdexcept>  // std::invalid_argument
#include <string>     // std::string

#include "tessera/host/copy.hpp"
#include "tessera/kernel/copy/launch.hpp"  // persistent_grid

namespace {

using tessera::Copy2d;
using tessera::CopyPlan;
using tessera::CopyTuning;
using tessera::CopyVariant;
using tessera::Major;

Copy2d valid_looking() {
  Copy2d p;
  p.src = reinterpret_cast<const void*>(uintptr_t{0x10000});
  p.dst = reinterpret_cast<void*>(uintptr_t{0x90000});
  p.rows = 10;
  p.cols = 20;
  p.ld_src = 20;
  p.ld_dst = 24;
  p.elem_bytes = 4;
  return p;
}

// Expects CopyPlan(p, v, t) to throw std::invalid_argument whose message contains `needle`.
void expect_rejected(const Copy2d& p, const std::string& needle, CopyVariant v = CopyVariant::kAuto,
                     const CopyTuning& t = {}) {
  try {
    CopyPlan plan(p, v, t);
    FAIL() << "accepted a bad problem; expected an error mentioning '" << needle << "'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << "message: " << e.what();
  }
}

TEST(CopyValidation, ElementSize) {
  Copy2d p = valid_looking();
  p.elem_bytes = 3;
  expect_rejected(p, "elem_bytes must be 1, 2, 4 or 8 (got 3)");
  p.elem_bytes = 16;
  expect_rejected(p, "elem_bytes must be 1, 2, 4 or 8 (got 16)");
}

TEST(CopyValidation, NegativeExtents) {
  Copy2d p = valid_looking();
  p.rows = -1;
  expect_rejected(p, "rows must be >= 0 (got -1)");
  p = valid_looking();
  p.cols = -5;
  expect_rejected(p, "cols must be >= 0 (got -5)");
}

TEST(CopyValidation, NullPointers) {
  Copy2d p = valid_looking();
  p.src = nullptr;
  expect_rejected(p, "src is null");
  p = valid_looking();
  p.dst = nullptr;
  expect_rejected(p, "dst is null");
}

TEST(CopyValidation, LeadingDimensions) {
  Copy2d p = valid_looking();
  p.ld_src = 19;
  expect_rejected(p, "ld_src must be >= cols (20) for a row-major matrix, got 19");
  p = valid_looking();
  p.dst_major = Major::kCol;
  p.ld_dst = 9;
  expect_rejected(p, "ld_dst must be >= rows (10) for a column-major matrix, got 9");
  p = valid_looking();
  p.ld_src = int64_t{1} << 62;
  expect_rejected(p, "larger than 2^63 bytes");
}

TEST(CopyValidation, Alignment) {
  Copy2d p = valid_looking();
  p.src = reinterpret_cast<const void*>(uintptr_t{0x10002});
  expect_rejected(p, "src must be aligned to elem_bytes (4)");
  p = valid_looking();
  p.dst = reinterpret_cast<void*>(uintptr_t{0x90001});
  expect_rejected(p, "dst must be aligned to elem_bytes (4)");
}

TEST(CopyValidation, Tuning) {
  Copy2d p = valid_looking();
  CopyTuning t;
  t.unroll = 3;
  expect_rejected(p, "tuning.unroll must be", CopyVariant::kVector, t);
  t = {};
  t.stages = 7;
  expect_rejected(p, "tuning.stages must be", CopyVariant::kCpAsync, t);
  t = {};
  t.ctas_per_sm = -2;
  expect_rejected(p, "tuning.ctas_per_sm must be", CopyVariant::kVector, t);
  t = {};
  t.box_bytes = 100;
  expect_rejected(p, "tuning.box_bytes must be", CopyVariant::kTma, t);
}

TEST(CopyValidation, EmptyProblemIsANoOp) {
  Copy2d p;  // null pointers are fine when there is nothing to copy
  p.rows = 0;
  p.cols = 7;
  EXPECT_NO_THROW(CopyPlan(p, CopyVariant::kVector).run());
  p.rows = 5;
  p.cols = 0;
  EXPECT_NO_THROW(tessera::copy_2d(p));
}

TEST(CopyValidation, VariantNames) {
  for (CopyVariant v : tessera::all_copy_variants()) EXPECT_EQ(tessera::parse_copy_variant(tessera::to_string(v)), v);
  EXPECT_EQ(tessera::parse_copy_variant("auto"), CopyVariant::kAuto);
  try {
    tessera::parse_copy_variant("fast");
    FAIL() << "accepted an unknown variant name";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown copy variant 'fast'"), std::string::npos) << e.what();
  }
}

TEST(CopyValidation, PipelineArguments) {
  tessera::PipelineRun run;
  run.stages = 5;
  EXPECT_THROW(tessera::stream_transform(nullptr, nullptr, 10, 1, run), std::invalid_argument);
  run.stages = 2;
  try {
    tessera::stream_transform(nullptr, nullptr, 10, -1, run);
    FAIL() << "accepted work = -1";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("work must be >= 0 (got -1)"), std::string::npos) << e.what();
  }
  try {
    tessera::stream_transform(reinterpret_cast<const float*>(uintptr_t{0x1004}), reinterpret_cast<float*>(uintptr_t{0x9000}),
                              10, 1, run);
    FAIL() << "accepted a misaligned x";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("x must be 16-byte aligned"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(tessera::stream_transform(nullptr, nullptr, 0, 1, run));  // nothing to do
}

}  // namespace

namespace {

// The copy kernels index tiles with 32 bits: the launch helper every copy variant sizes its grid with
// refuses more than 2^31-1 tiles by name, before it touches the device.
TEST(CopyValidation, TooManyTiles) {
  const int64_t too_many = int64_t{1} << 31;
  try {
    (void)tessera::kernel::persistent_grid(nullptr, 256, 0, too_many, -1);
    FAIL() << "accepted 2^31 tiles";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("needs 2147483648 tiles; the copy kernels index tiles with 32 bits"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
