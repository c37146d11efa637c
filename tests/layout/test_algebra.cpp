// tests/layout/test_algebra.cpp -- worked examples of each operation (hand-derived), and
// the calculator entry point used by `tessera layout`.
#include <gtest/gtest.h>

#include "layout_ops.hpp"  // apply_layout_op, show_layout
#include "tessera/layout.hpp"

using namespace tessera;

namespace {
std::string op(const std::string& name, std::vector<std::string> args) {
  return tessera::cli::apply_layout_op(name, args);
}
}  // namespace

TEST(LayoutAlgebra, BasicProperties) {
  Layout l = parse_layout("((2,2),8):((1,16),2)");
  EXPECT_EQ(size(l), 32);
  EXPECT_EQ(rank(l), 2);
  EXPECT_EQ(depth(l), 2);
  EXPECT_EQ(cosize(l), 1 + 1 + 16 + 7 * 2);
  EXPECT_EQ(depth(parse_layout("8:2")), 0);
  EXPECT_EQ(depth(parse_layout("(4):(1)")), 1);
  EXPECT_NE(parse_layout("(4):(1)"), parse_layout("4:1"));
  // shape-only text is column-major compact; size-1 modes get stride 0
  EXPECT_EQ(to_string(parse_layout("(4,1,8)")), "(4,1,8):(1,0,4)");
  EXPECT_EQ(to_string(make_layout_row_major(make_tuple(4, 8))), "(4,8):(8,1)");
}

TEST(LayoutAlgebra, Restructuring) {
  Layout l = parse_layout("((2,2),8):((1,16),2)");
  EXPECT_EQ(to_string(flatten(l)), "(2,2,8):(1,16,2)");
  EXPECT_EQ(to_string(group(parse_layout("(2,3,4):(1,2,6)"), 1, 3)), "(2,(3,4)):(1,(2,6))");
  EXPECT_EQ(to_string(append(parse_layout("4:1"), parse_layout("8:4"))), "(4,8):(1,4)");
  EXPECT_EQ(to_string(prepend(parse_layout("(4,8):(1,4)"), parse_layout("2:32"))), "(2,4,8):(32,1,4)");
  EXPECT_EQ(to_string(mode(l, 0)), "(2,2):(1,16)");
  for (Int i = 0; i < size(l); ++i) EXPECT_EQ(flatten(l)(i), l(i));
  EXPECT_THROW(group(l, 1, 3), LayoutError);
}

TEST(LayoutAlgebra, Evaluation) {
  Layout l = parse_layout("(4,8):(8,1)");  // row-major 4x8
  EXPECT_EQ(l(make_tuple(1, 2)), 10);
  EXPECT_EQ(l(5), 9);  // 1-D coordinate 5 = (1,1)
  Layout h = parse_layout("((2,2),3):((1,2),4)");
  EXPECT_EQ(h(make_tuple(make_tuple(1, 1), 2)), 11);
  EXPECT_EQ(h(make_tuple(3, 2)), 11);  // 1-D coordinate inside mode 0
  EXPECT_EQ(to_string(idx2crd(7, h.shape)), "((1,1),1)");
}

TEST(LayoutAlgebra, WorkedExamples) {
  EXPECT_EQ(op("coalesce", {"(2,(1,6)):(1,(6,2))"}), "12:1");
  EXPECT_EQ(op("coalesce", {"(2,4):(1,3)"}), "(2,4):(1,3)");
  EXPECT_EQ(op("coalesce", {"(1,1):(3,5)"}), "1:0");
  EXPECT_EQ(op("coalesce", {"(2,(4,2)):(1,(2,8))", "(1,1)"}), "(2,8):(1,2)");
  EXPECT_EQ(op("filter", {"(4,2,3):(1,0,4)"}), "12:1");
  EXPECT_EQ(op("composition", {"(6,2):(8,2)", "(4,3):(3,1)"}), "((2,2),3):((24,2),8)");
  EXPECT_EQ(op("composition", {"(4,3):(3,1)", "(12):(1)"}), "((4,3)):((3,1))");
  EXPECT_EQ(op("complement", {"4:2", "24"}), "(2,3):(1,8)");
  EXPECT_EQ(op("complement", {"(2,2):(1,4)"}), "2:2");
  EXPECT_EQ(op("right_inverse", {"(4,8):(8,1)"}), "(8,4):(4,1)");
  EXPECT_EQ(op("left_inverse", {"(4,2):(2,1)"}), "(2,4):(4,1)");
  EXPECT_EQ(op("zipped_divide", {"(8,6):(1,8)", "<2,3>"}), "((2,3),(4,2)):((1,8),(2,24))");
  EXPECT_EQ(op("tiled_divide", {"(8,6):(1,8)", "<2,3>"}), "((2,3),4,2):((1,8),2,24)");
  EXPECT_EQ(op("flat_divide", {"(8,6):(1,8)", "<2,3>"}), "(2,3,4,2):(1,8,2,24)");
  EXPECT_EQ(op("logical_product", {"(2,2):(1,2)", "3:1"}), "((2,2),3):((1,2),4)");
  EXPECT_EQ(op("blocked_product", {"2:1", "3:1"}), "((2,3)):((1,2))");
  EXPECT_EQ(op("raked_product", {"2:1", "3:1"}), "((3,2)):((2,1))");
  EXPECT_EQ(op("max_common_vector", {"(4,8):(1,4)", "32:1"}), "32");
  EXPECT_EQ(op("max_common_vector", {"(4,8):(8,1)", "(4,8):(1,4)"}), "1");
  EXPECT_EQ(op("values", {"Sw<1,0,1>o(2,2):(1,2)"}), "0,1,3,2");
  EXPECT_EQ(op("crd2idx", {"((2,2),3):((1,2),4)", "((1,1),2)"}), "11");
  EXPECT_EQ(op("idx2crd", {"((2,2),3):((1,2),4)", "7"}), "((1,1),1)");
  // An integer tiler element n: n:1 for composition, make_layout(n) (1:0 when n = 1) for divide.
  EXPECT_EQ(op("composition", {"(4,8):(12,2)", "<1>"}), "(1):(12)");
  EXPECT_EQ(op("logical_divide", {"(3,5):(5,1)", "<1>"}), "((1,3),5):((0,5),1)");
}

TEST(LayoutAlgebra, Swizzle333SpreadsAColumnOverBankGroups) {
  // 8 rows of 64 bf16 (128 B per row); the first 16-byte unit of each row lands in a
  // different 16-byte unit after Swizzle<3,3,3>.
  Swizzle sw{3, 3, 3};
  std::set<Int> units;
  for (Int r = 0; r < 8; ++r) units.insert((sw(r * 64) % 64) / 8);
  EXPECT_EQ(units.size(), 8u);
}

TEST(LayoutAlgebra, ShowDrawsATable) {
  std::string t = tessera::cli::show_layout("(2,3):(3,1)");
  EXPECT_NE(t.find("(2,3):(3,1)"), std::string::npos);
  EXPECT_NE(t.find("| 3 | 4 | 5 |"), std::string::npos) << t;
  EXPECT_THROW(tessera::cli::show_layout("(2,2,2):(1,2,4)"), std::invalid_argument);
}
