// tests/layout/test_properties.cpp -- defining properties of every operation, checked on
// thousands of random layouts by enumerating the functions.
#include <gtest/gtest.h>

#include <chrono>  // std::chrono::steady_clock
#include <set>     // std::set
#include <vector>  // std::vector

#include "layout/random_layouts.hpp"  // LayoutGen
#include "tessera/layout.hpp"

using namespace tessera;
using tessera::test::LayoutGen;

namespace {

std::vector<Int> values(const Layout& l) {
  std::vector<Int> v(static_cast<size_t>(size(l)));
  for (Int i = 0; i < size(l); ++i) v[static_cast<size_t>(i)] = l(i);
  return v;
}

constexpr int kTrials = 3000;

}  // namespace

TEST(LayoutProperties, CoalescePreservesTheFunction) {
  LayoutGen g(1);
  for (int t = 0; t < kTrials; ++t) {
    Layout l = g.layout();
    Layout c = coalesce(l);
    ASSERT_EQ(size(c), size(l)) << to_string(l);
    ASSERT_LE(depth(c), 1) << to_string(l);
    ASSERT_EQ(values(c), values(l)) << to_string(l) << " -> " << to_string(c);
    // by-mode coalesce keeps the rank and each mode's function
    if (l.shape.is_tuple()) {
      IntTuple prof = IntTuple::empty_tuple();
      for (int i = 0; i < rank(l); ++i) prof.push_back(IntTuple::leaf(1));
      Layout cm = coalesce(l, prof);
      ASSERT_EQ(rank(cm), rank(l));
      for (int i = 0; i < rank(l); ++i) ASSERT_EQ(values(mode(cm, i)), values(mode(l, i))) << to_string(l);
    }
  }
}

TEST(LayoutProperties, FilterKeepsTheImage) {
  LayoutGen g(2);
  for (int t = 0; t < kTrials; ++t) {
    Layout l = g.layout();
    Layout f = filter(l);
    auto vl = values(l), vf = values(f);
    ASSERT_EQ(std::set<Int>(vl.begin(), vl.end()), std::set<Int>(vf.begin(), vf.end())) << to_string(l);
    for (int k = 0; k < f.stride.nodes; ++k) {
      if (f.stride.arity[k] < 0 && size(f) > 1) {
        ASSERT_NE(f.stride.val[k], 0) << to_string(l);
      }
    }
  }
}

TEST(LayoutProperties, CompositionIsFunctionComposition) {
  LayoutGen g(3);
  int ok = 0, rejected = 0;
  for (int t = 0; t < kTrials; ++t) {
    Layout a = g.layout(3, 5, 2048);
    // B maps into A's domain (and sometimes past it: the last mode of A extends).
    Layout b = g.layout(2, 4, 256, true);
    if (g.uniform(0, 1)) {
      IntTuple bs = g.shape(2, 3, std::max<Int>(1, size(a)));
      b = Layout{bs, compact_col_major(bs)};
      if (g.uniform(0, 1) && size(b) > 1) {
        // scale strides by a divisor-friendly factor
        Int f = g.uniform(1, 3);
        for (int k = 0; k < b.stride.nodes; ++k) b.stride.val[k] *= f;
      }
    }
    Layout r;
    try {
      r = composition(a, b);
    } catch (const LayoutError&) {
      ++rejected;
      continue;
    }
    ++ok;
    ASSERT_TRUE(congruent(r.shape, b.shape) || size(b) == size(r)) << to_string(a) << " o " << to_string(b);
    ASSERT_EQ(size(r), size(b));
    for (Int i = 0; i < size(b); ++i)
      ASSERT_EQ(r(i), a(b(i))) << to_string(a) << " o " << to_string(b) << " = " << to_string(r) << " at " << i;
  }
  EXPECT_GT(ok, kTrials / 3) << "too few admissible compositions to mean anything (rejected " << rejected << ")";
}

TEST(LayoutProperties, RejectedCompositionsAreTheOnesThatAreNotLayouts) {
  // The README example: CuTe returns (2,2):(4,10), which is not A o B.
  Layout a = parse_layout("(6,4):(1,10)"), b = parse_layout("4:4");
  EXPECT_THROW(composition(a, b), LayoutError);
  // and when B stays inside the first mode it is admissible
  EXPECT_EQ(to_string(composition(a, parse_layout("2:4"))), "2:4");
}

TEST(LayoutProperties, MultiModeCompositionIsProvenWithoutEnumeration) {
  // 2^28 elements: the carry-free proof takes microseconds, where enumeration would take seconds.
  Layout rm = make_layout_row_major(make_tuple(16384, 16384));
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(max_common_vector(rm, rm), Int(16384) * 16384);
  EXPECT_EQ(max_common_vector(make_layout(make_tuple(16384, 16384)), rm), 1);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(ms, 1000.0);
  // and a by-mode result that is not A o B is still rejected (found by the divide test)
  EXPECT_THROW(composition(parse_layout("(5,8,(1,2)):(8,40,(8,2))"), parse_layout("((1,3),17):((4,17),1)")), LayoutError);
}

TEST(LayoutProperties, ComplementIsDisjointOrderedAndLargeEnough) {
  LayoutGen g(4);
  for (int t = 0; t < kTrials; ++t) {
    Layout l = g.injective_layout();
    Int cot = cosize(l) * g.uniform(1, 4);
    Layout c = complement(l, cot);
    auto vl = values(l);
    std::set<Int> img(vl.begin(), vl.end());
    auto vc = values(c);
    for (size_t i = 1; i < vc.size(); ++i) {
      ASSERT_LT(vc[i - 1], vc[i]) << "not ordered: " << to_string(l) << " " << cot << " -> " << to_string(c);
      ASSERT_EQ(img.count(vc[i]), 0u) << "not disjoint: " << to_string(l) << " -> " << to_string(c);
    }
    ASSERT_GE(size(c) * size(filter(l)), cot) << to_string(l) << " -> " << to_string(c);
    // Compact chains (each stride a multiple of the span below it): (L, C) is a bijection.
    Layout full = make_layout_of(l, c);
    auto vf = values(full);
    std::set<Int> all(vf.begin(), vf.end());
    bool chain = true;
    {
      detail::Modes m = detail::flat_modes(filter(l));
      int order[detail::Modes::kMax];
      detail::sort_by_stride(m, order);
      Int span = 1;
      for (int k = 0; k < m.n; ++k) {
        if (m.d[order[k]] % span) chain = false;
        span = m.d[order[k]] * m.s[order[k]];
      }
    }
    if (chain) {
      ASSERT_EQ(all.size(), vf.size()) << to_string(l);
      ASSERT_EQ(*all.rbegin() + 1, static_cast<Int>(vf.size())) << to_string(l) << " -> " << to_string(c);
    }
  }
}

TEST(LayoutProperties, RightInverseInverts) {
  LayoutGen g(5);
  for (int t = 0; t < kTrials; ++t) {
    Layout l = g.layout();
    Layout r = right_inverse(l);
    for (Int i = 0; i < size(r); ++i) ASSERT_EQ(l(r(i)), i) << to_string(l) << " -> " << to_string(r);
  }
}

TEST(LayoutProperties, LeftInverseInverts) {
  LayoutGen g(6);
  int checked = 0;
  for (int t = 0; t < kTrials; ++t) {
    Layout l = g.injective_layout();
    Layout r;
    try {
      r = left_inverse(l);
    } catch (const LayoutError&) {
      continue;
    }
    ++checked;
    for (Int i = 0; i < size(l); ++i) ASSERT_EQ(r(l(i)), i) << to_string(l) << " -> " << to_string(r);
  }
  EXPECT_GT(checked, kTrials / 2);
}

TEST(LayoutProperties, DivideEvaluatesAsItsDefinition) {
  LayoutGen g(7);
  int checked = 0;
  for (int t = 0; t < kTrials; ++t) {
    Layout l = g.layout(2, 4, 1024, false);
    Layout tile = g.layout(1, 2, std::max<Int>(1, size(l) / 2), false);
    Layout d, z, ti, fl;
    try {
      d = logical_divide(l, tile);
      z = zipped_divide(l, tile);
      ti = tiled_divide(l, tile);
      fl = flat_divide(l, tile);
    } catch (const LayoutError&) {
      continue;
    }
    ++checked;
    // mode 0 is L o T and mode 1 is L o complement(T, shape(coalesce(L))), each exactly
    Layout tl = mode(d, 0);
    for (Int j = 0; j < size(tile); ++j) ASSERT_EQ(tl(j), l(tile(j))) << to_string(l) << " / " << to_string(tile);
    Layout c = complement(tile, coalesce(l).shape);
    Layout rest = mode(d, 1);
    ASSERT_EQ(size(rest), size(c));
    for (Int k = 0; k < size(c); ++k) ASSERT_EQ(rest(k), l(c(k))) << to_string(l) << " / " << to_string(tile);
    ASSERT_EQ(values(z), values(d));
    ASSERT_EQ(values(ti), values(d));
    ASSERT_EQ(values(fl), values(d));
  }
  EXPECT_GT(checked, kTrials / 4);
}

TEST(LayoutProperties, ProductEvaluatesAsItsDefinition) {
  LayoutGen g(8);
  int checked = 0;
  for (int t = 0; t < kTrials; ++t) {
    Layout a = g.injective_layout(3, 64);
    Layout b = g.layout(2, 3, 32, false);
    Layout p, bl, ra;
    SCOPED_TRACE(to_string(a) + " x " + to_string(b));
    try {
      p = logical_product(a, b);
    } catch (const LayoutError&) {
      continue;
    }
    ++checked;
    ASSERT_EQ(values(mode(p, 0)), values(a));
    // mode 1 is complement(A, size(A)*cosize(B)) o B, composed mode by mode of B
    Layout c = complement(a, size(a) * cosize(b));
    Layout p1 = mode(p, 1);
    if (b.shape.is_leaf()) {
      for (Int j = 0; j < size(b); ++j) ASSERT_EQ(p1(j), c(b(j)));
    } else {
      for (int m = 0; m < rank(b); ++m)
        for (Int j = 0; j < size(mode(b, m)); ++j) ASSERT_EQ(mode(p1, m)(j), c(mode(b, m)(j)));
    }
    // blocked and raked products hold the same elements as the logical product
    try {
      bl = blocked_product(a, b);
      ra = raked_product(a, b);
    } catch (const LayoutError& e) {
      // only when the block's and the tiler's image's ranks differ (CuTe would drop elements)
      ASSERT_NE(std::string(e.what()).find("ranks"), std::string::npos) << e.what();
      continue;
    }
    auto vp = values(p), vb = values(bl), vr = values(ra);
    ASSERT_EQ(std::multiset<Int>(vp.begin(), vp.end()), std::multiset<Int>(vb.begin(), vb.end()));
    ASSERT_EQ(std::multiset<Int>(vp.begin(), vp.end()), std::multiset<Int>(vr.begin(), vr.end()));
  }
  EXPECT_GT(checked, kTrials / 4);
}

TEST(LayoutProperties, MaxCommonVectorIsContiguousInBoth) {
  LayoutGen g(9);
  for (int t = 0; t < kTrials; ++t) {
    Layout a = g.injective_layout(4, 256);
    // b: a permutation of a's shape, compact
    Layout b = make_layout(a.shape);
    if (g.uniform(0, 1)) b = make_layout_row_major(a.shape);
    Int n;
    Layout r;
    try {
      n = max_common_vector(a, b);
      r = max_common_layout(a, b);
    } catch (const LayoutError&) {
      continue;
    }
    ASSERT_GE(n, 1);
    ASSERT_EQ(size(r), n) << to_string(a) << " " << to_string(b);
    for (Int i = 0; i < size(r); ++i) {
      ASSERT_EQ(a(r(i)), i) << to_string(a) << " " << to_string(b);
      ASSERT_EQ(b(r(i)), i) << to_string(a) << " " << to_string(b);
    }
  }
}

TEST(LayoutProperties, Idx2CrdAndCrd2IdxRoundTrip) {
  LayoutGen g(10);
  for (int t = 0; t < kTrials / 3; ++t) {
    Layout l = g.layout();
    for (Int i = 0; i < size(l); ++i) {
      IntTuple c = idx2crd(i, l.shape);
      ASSERT_TRUE(congruent(c, l.shape) || l.shape.is_leaf()) << to_string(l);
      ASSERT_EQ(l(c), l(i)) << to_string(l) << " at " << i << " crd " << to_string(c);
    }
  }
}

TEST(LayoutProperties, TextRoundTrip) {
  LayoutGen g(11);
  for (int t = 0; t < kTrials; ++t) {
    Layout l = g.layout();
    ASSERT_EQ(parse_layout(to_string(l)), l) << to_string(l);
  }
}

TEST(LayoutProperties, SwizzleIsAnInvolutionAndABijection) {
  for (int b = 0; b <= 3; ++b)
    for (int m = 0; m <= 4; ++m)
      for (int s = -5; s <= 5; ++s) {
        if ((s < 0 ? -s : s) < b) continue;
        Swizzle sw{b, m, s};
        std::set<Int> seen;
        Int n = Int(1) << (b + m + (s < 0 ? -s : s));
        for (Int x = 0; x < n; ++x) {
          ASSERT_EQ(sw(sw(x)), x);
          seen.insert(sw(x));
        }
        ASSERT_EQ(static_cast<Int>(seen.size()), n);
        ASSERT_EQ(*seen.rbegin(), n - 1);
      }
}
