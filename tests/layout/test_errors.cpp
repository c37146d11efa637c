// tests/layout/test_errors.cpp -- bad input gives a clear error: malformed text (with the
// column), inadmissible operations (naming the condition and the numbers), over-capacity
// values; and a randomized fuzz of the parser and the calculator that must never crash.
#include <gtest/gtest.h>

#include <random>  // std::mt19937

#include "layout_ops.hpp"
#include "tessera/layout.hpp"

using namespace tessera;

namespace {
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

TEST(LayoutErrors, MalformedTextNamesTheColumn) {
  EXPECT_EQ(error_of([] { parse_layout("(4,8):(8,1"); }).substr(0, 10), "column 11:");
  EXPECT_NE(error_of([] { parse_layout("(4,8):(8,1"); }).find("expected ',' or ')'"), std::string::npos);
  EXPECT_NE(error_of([] { parse_layout("(4,8):(8)"); }).find("same nesting"), std::string::npos);
  EXPECT_NE(error_of([] { parse_layout("(4,,8)"); }).find("column 4: expected an integer"), std::string::npos);
  EXPECT_NE(error_of([] { parse_layout("4:2 x"); }).find("column 5: expected end of input"), std::string::npos);
  EXPECT_NE(error_of([] { parse_layout(""); }).find("expected an integer"), std::string::npos);
  EXPECT_NE(error_of([] { parse_tiler("<2,3"); }).find("expected ',' or '>'"), std::string::npos);
  EXPECT_NE(error_of([] { parse_swizzled("Sw<3,3,1>o8:1"); }).find("|S| must be at least B"), std::string::npos);
  EXPECT_NE(error_of([] { parse_layout("99999999999999999999"); }).find("too large"), std::string::npos);
  EXPECT_NE(error_of([] { parse_layout("(-2,4)"); }).find("not positive"), std::string::npos);
  EXPECT_NE(error_of([] { parse_layout("(0,4):(1,0)"); }).find("not positive"), std::string::npos);
  // underscores and spaces as CuTe prints them are fine
  EXPECT_EQ(to_string(parse_layout(" ( _4 , _8 ) : ( _8 , _1 ) ")), "(4,8):(8,1)");
}

TEST(LayoutErrors, InadmissibleOperationsNameTheCondition) {
  std::string e = error_of([] { composition(parse_layout("(6,4):(1,10)"), parse_layout("4:4")); });
  EXPECT_NE(e.find("composition: stride divisibility condition violated"), std::string::npos) << e;
  EXPECT_NE(e.find("4"), std::string::npos);
  e = error_of([] { composition(parse_layout("(8,8):(8,1)"), parse_layout("4:3")); });
  EXPECT_NE(e.find("divisibility condition violated"), std::string::npos) << e;
  e = error_of([] { composition(parse_layout("(6,8):(3,2)"), parse_layout("(8):(1)")); });
  EXPECT_NE(e.find("shape divisibility"), std::string::npos) << e;
  e = error_of([] { complement(parse_layout("(2,2):(1,1)"), IntTuple::leaf(8)); });
  EXPECT_NE(e.find("complement: non-injective"), std::string::npos) << e;
  e = error_of([] { left_inverse(parse_layout("(2,3):(2,3)")); });
  EXPECT_NE(e.find("left inverse divisibility"), std::string::npos) << e;
  e = error_of([] { logical_divide(parse_layout("8:1"), parse_tiler("<2,2>")); });
  EXPECT_NE(e.find("too many modes in tiler: 2 modes for a layout of rank 1"), std::string::npos) << e;
  e = error_of([] { tessera::cli::apply_layout_op("complment", {"4:1"}); });
  EXPECT_NE(e.find("unknown operation 'complment'"), std::string::npos) << e;
  e = error_of([] { tessera::cli::apply_layout_op("composition", {"4:1"}); });
  EXPECT_NE(e.find("expected 2 arguments, got 1"), std::string::npos) << e;
  e = error_of([] { tessera::cli::apply_layout_op("idx2crd", {"(2,3):(1,2)", "6"}); });
  EXPECT_NE(e.find("outside [0, 6)"), std::string::npos) << e;
}

TEST(LayoutErrors, OverCapacityIsAnErrorNotATruncation) {
  std::string big = "(";
  for (int i = 0; i < 70; ++i) big += (i ? ",2" : "2");
  big += ")";
  std::string e = error_of([&] { parse_layout(big); });
  EXPECT_NE(e.find("over capacity"), std::string::npos) << e;
  std::string deep;
  for (int i = 0; i < 70; ++i) deep += "(";
  deep += "2";
  for (int i = 0; i < 70; ++i) deep += ")";
  e = error_of([&] { parse_layout(deep); });
  EXPECT_NE(e.find("over capacity"), std::string::npos) << e;
  Tiler t;
  e = error_of([&] {
    for (int i = 0; i < 9; ++i) t.push(Int(2));
  });
  EXPECT_NE(e.find("at most 8 modes"), std::string::npos) << e;
}

// Randomized fuzz: mutate valid texts and random op lines; every call must either return
// a value or throw a std::exception with a message.  (A longer coverage-guided run with
// libFuzzer is scripts/fuzz.sh; see docs/LAYOUT.md.)
TEST(LayoutErrors, FuzzParserAndCalculatorNeverCrash) {
  std::mt19937 rng(1234);
  const std::vector<std::string> seeds = {"(4,8):(8,1)", "((2,2),8):((1,16),2)", "<2,(3,2):(1,4)>", "Sw<3,3,3>o(8,64):(64,1)",
                                          "8:2", "(4):(1)", "(_4,_8):(_8,_1)", "((3,5,2),(2,(4,4)),1):((1,3,15),(30,(60,240)),0)"};
  const std::string alphabet = "()<>:,-_0123456789 Swo\t";
  const auto& ops = tessera::cli::layout_ops();
  int thrown = 0, ok = 0;
  for (int t = 0; t < 20000; ++t) {
    std::string s = seeds[rng() % seeds.size()];
    int muts = 1 + rng() % 4;
    for (int m = 0; m < muts; ++m) {
      size_t pos = s.empty() ? 0 : rng() % s.size();
      switch (rng() % 3) {
        case 0: if (!s.empty()) s.erase(pos, 1); break;
        case 1: s.insert(pos, 1, alphabet[rng() % alphabet.size()]); break;
        default: if (!s.empty()) s[pos] = alphabet[rng() % alphabet.size()]; break;
      }
    }
    std::string other = seeds[rng() % seeds.size()];
    const auto& o = ops[rng() % ops.size()];
    try {
      (void)tessera::cli::apply_layout_op(o.name, {s, other});
      ++ok;
    } catch (const std::exception& e) {
      ASSERT_GT(std::string(e.what()).size(), 5u);
      ++thrown;
    }
    try {
      (void)tessera::cli::apply_layout_op(o.name, {s});
      ++ok;
    } catch (const std::exception& e) {
      ASSERT_GT(std::string(e.what()).size(), 5u);
      ++thrown;
    }
  }
  EXPECT_GT(ok, 100);
  EXPECT_GT(thrown, 100);
}
