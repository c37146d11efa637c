// tests/layout/test_static.cpp -- the algebra at compile time: results checked with
// static_assert, layouts as template arguments, static_layout evaluation.
#include <gtest/gtest.h>

#include "tessera/layout.hpp"

using namespace tessera;

namespace {

constexpr Layout kRowMajor = make_layout_row_major(make_tuple(4, 8));      // (4,8):(8,1)
constexpr Layout kA = make_layout(make_tuple(6, 2), make_tuple(8, 2));      // (6,2):(8,2)
constexpr Layout kB = make_layout(make_tuple(4, 3), make_tuple(3, 1));      // (4,3):(3,1)
constexpr Layout kComposed = composition(kA, kB);                           // ((2,2),3):((24,2),8)

static_assert(size(kRowMajor) == 32 && cosize(kRowMajor) == 32, "size/cosize of a compact 4x8");
static_assert(kRowMajor(make_tuple(1, 2)) == 10, "row-major evaluation");
static_assert(kComposed == make_layout(make_tuple(make_tuple(2, 2), 3), make_tuple(make_tuple(24, 2), 8)),
              "composition result");
static_assert(coalesce(make_layout(make_tuple(2, make_tuple(1, 6)), make_tuple(1, make_tuple(6, 2)))) ==
                  make_layout(12, 1),
              "coalesce");
static_assert(complement(make_layout(4, 2), 24) == make_layout(make_tuple(2, 3), make_tuple(1, 8)), "complement");
static_assert(right_inverse(kRowMajor) == make_layout(make_tuple(8, 4), make_tuple(4, 1)), "right inverse");
static_assert(max_common_vector(make_layout(make_tuple(4, 8)), make_layout(32, 1)) == 32, "max common vector");
static_assert(zipped_divide(make_layout(make_tuple(8, 6)), make_tiler(2, 3)) ==
                  make_layout(make_tuple(make_tuple(2, 3), make_tuple(4, 2)),
                              make_tuple(make_tuple(1, 8), make_tuple(2, 24))),
              "zipped divide");
static_assert(Swizzle{3, 3, 3}(64) == 72, "Swizzle<3,3,3> moves row 1's first unit to unit 1");

// A layout is a template argument.
template <Layout L>
constexpr Int last_index() {
  return L(size(L) - 1);
}
static_assert(last_index<kRowMajor>() == 31, "layout as a template argument");
static_assert(static_layout<kComposed>(5) == kComposed(5), "static_layout agrees with the run-time evaluation");
static_assert(static_layout<kRowMajor>(3, 7) == 31, "static_layout with one coordinate per mode");

constexpr SwizzledLayout kSw = composition(Swizzle{3, 3, 3}, make_layout_row_major(make_tuple(8, 64)));
static_assert(static_swizzled_layout<kSw>(1, 0) == 72, "swizzled static layout");

}  // namespace

TEST(LayoutStatic, StaticLayoutMatchesRuntimeEverywhere) {
  constexpr Layout kL = make_layout(make_tuple(make_tuple(2, 4), 3, 5), make_tuple(make_tuple(60, 1), 4, 12));
  for (int i = 0; i < size(kL); ++i) ASSERT_EQ(static_layout<kL>(i), kL(i)) << i;
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 64; ++c) ASSERT_EQ(static_swizzled_layout<kSw>(r, c), kSw(make_tuple(r, c)));
}
