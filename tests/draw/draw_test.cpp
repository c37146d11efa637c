// The pictures: every SVG parses as XML, has one cell per element (and one label per cell when
// labelled), and its labels say what an independent formula says.
#include <gtest/gtest.h>

#include <cstdio>  // std::snprintf
#include <string>  // std::string

#include "tessera/atom/mma_sm80.hpp"  // PTX ISA fragment formulas
#include "tessera/layout.hpp"
#include "tests/draw/xml_check.hpp"
#include "tessera/draw/svg.hpp"

namespace {

using namespace tessera;
using tessera::test::parse_xml;
using tessera::test::XmlDocument;

// Labels of the cells in grid order (row-major), tspans joined by a space.
std::vector<std::string> labels(const XmlDocument& d) {
  std::vector<std::string> r;
  for (size_t i : d.find("text", "label")) r.push_back(d.all_text(i, " ").substr(0));
  for (auto& s : r)
    if (!s.empty() && s[0] == ' ') s.erase(0, 1);
  return r;
}

TEST(Svg, LayoutGrid) {
  Layout l = parse_layout("(4,8):(8,1)");
  XmlDocument d = parse_xml(draw::render(draw::layout_grid(l)));
  EXPECT_EQ(d.root, "svg");
  EXPECT_EQ(d.count("rect", "cell"), 32);
  EXPECT_EQ(d.count("text", "label"), 32);
  EXPECT_EQ(d.count("rect", "swatch"), 8);  // legend: index mod 8
  auto lab = labels(d);
  ASSERT_EQ(lab.size(), 32u);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 8; ++j) EXPECT_EQ(lab[static_cast<size_t>(i * 8 + j)], std::to_string(8 * i + j));
  // the title names the layout; headers number rows and columns
  EXPECT_EQ(d.elements[d.find("text", "title")[0]].text, "(4,8):(8,1)");
  EXPECT_EQ(d.count("text", "header"), 4 + 8);
}

TEST(Svg, SwizzledTitleIsEscaped) {
  SwizzledLayout s = parse_swizzled("Sw<2,0,2>o(4,4):(4,1)");
  std::string svg = draw::render(draw::layout_grid(s.layout, s.swizzle));
  EXPECT_NE(svg.find("Sw&lt;2,0,2&gt;o(4,4):(4,1)"), std::string::npos);
  XmlDocument d = parse_xml(svg);
  auto lab = labels(d);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      int off = 4 * i + j, sw = off ^ ((off >> 2) & 3);
      EXPECT_EQ(lab[static_cast<size_t>(4 * i + j)], std::to_string(sw));
    }
}

TEST(Svg, MmaFragmentPicture) {
  using F = atom::Sm80Frag16x8x16;
  XmlDocument d = parse_xml(draw::render(draw::tv_grid(F::kALayout, 16, 16, "m16n8k16 A")));
  EXPECT_EQ(d.count("rect", "cell"), 256);
  auto lab = labels(d);
  ASSERT_EQ(lab.size(), 256u);
  std::vector<std::string> want(256);
  for (int lane = 0; lane < 32; ++lane)
    for (int v = 0; v < 8; ++v) {
      atom::FragCoord c = F::a_coord(lane, v);
      char buf[32];
      std::snprintf(buf, sizeof buf, "T%d V%d", lane, v);
      want[static_cast<size_t>(c.row * 16 + c.col)] = buf;
    }
  EXPECT_EQ(lab, want);
  EXPECT_EQ(d.count("rect", "swatch"), 32);  // one legend entry per thread
}

TEST(Svg, TiledCopyPictureMarksSharedAndMissingElements) {
  // two threads hold every element (stride-0 thread mode) and half the tile is not covered
  Layout tv = parse_layout("(2,4):(0,1)");
  XmlDocument d = parse_xml(draw::render(draw::tv_grid(tv, 2, 4, "broadcast")));
  auto lab = labels(d);
  ASSERT_EQ(lab.size(), 8u);
  EXPECT_EQ(lab[0], "T0 V0+1");  // (0,0): T0/V0 and T1/V0
  EXPECT_EQ(lab[1], "T0 V2+1");  // (0,1) = index 2
  EXPECT_EQ(lab[4], "T0 V1+1");  // (1,0) = index 1
  EXPECT_EQ(lab[7], "-");        // (1,3) = index 7: nobody
}

TEST(Svg, SwizzleBanks) {
  SwizzledLayout s = parse_swizzled("Sw<3,3,3>o(8,64):(64,1)");
  XmlDocument d = parse_xml(draw::render(draw::swizzle_grid(s.swizzle, s.layout, 2)));
  EXPECT_EQ(d.count("rect", "cell"), 512);
  EXPECT_EQ(d.count("rect", "swatch"), 32);
  auto lab = labels(d);
  ASSERT_EQ(lab.size(), 512u);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 64; ++j) {
      int off = i * 64 + j, sw = off ^ (((off >> 6) & 7) << 3), bank = (sw * 2 / 4) % 32;
      ASSERT_EQ(lab[static_cast<size_t>(i * 64 + j)], std::to_string(sw) + " b" + std::to_string(bank));
    }
}

TEST(Svg, BankConflictPicture) {
  analysis::AccessPattern p;
  p.memory = analysis::parse_memory_layout("(128,64):(64,1)");
  p.elem_bytes = 2;
  p.tv = parse_layout("((16,2),8):((1,128),16)");
  p.tile = parse_tiler("<16,16>");
  const auto& inst = analysis::find_instruction("ldmatrix.x4");
  auto insts = analysis::expand(p, inst);
  XmlDocument d = parse_xml(draw::render(draw::bank_grid(insts[0], inst, "ldmatrix")));
  // 4 phases x 8 wavefronts = 32 rows of 32 banks; each lane occupies 4 banks in its own row
  EXPECT_EQ(d.count("rect", "cell"), 32 * 32);
  int busy = 0;
  for (const auto& s : labels(d)) busy += !s.empty();
  EXPECT_EQ(busy, 32 * 4);
}

TEST(Svg, LargeGridsDropLabelsAndHugeOnesAreRefused) {
  XmlDocument d = parse_xml(draw::render(draw::layout_grid(parse_layout("(128,64):(64,1)"))));
  EXPECT_EQ(d.count("rect", "cell"), 8192);
  EXPECT_EQ(d.count("text", "label"), 0);
  EXPECT_THROW(draw::render(draw::layout_grid(parse_layout("(512,512):(512,1)"))), std::invalid_argument);
  EXPECT_THROW(draw::layout_grid(parse_layout("(2,2,2):(1,2,4)")), std::invalid_argument);
}

TEST(Svg, CheckerRejectsBrokenXml) {
  EXPECT_THROW(parse_xml("<svg><rect></svg>"), std::runtime_error);
  EXPECT_THROW(parse_xml("<svg a=1></svg>"), std::runtime_error);
  EXPECT_THROW(parse_xml("<svg>a < b</svg>"), std::runtime_error);
  EXPECT_THROW(parse_xml("<svg></svg><svg></svg>"), std::runtime_error);
  EXPECT_THROW(parse_xml("<svg>&nbsp;</svg>"), std::runtime_error);
  EXPECT_NO_THROW(parse_xml("<?xml version=\"1.0\"?>\n<svg><g a=\"&lt;\"/><text>x &amp; y</text></svg>\n"));
}

}  // namespace
