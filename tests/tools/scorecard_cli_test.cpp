// `tessera scorecard` on the saved H100 results of bench/results/: the table it prints, its errors,
// and with --out the scorecard document and the report (tools/scorecard_report.py) whose numbers
// are the document's.
#include <gtest/gtest.h>

#include <cstdio>      // std::snprintf
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ifstream, std::ofstream
#include <sstream>     // std::stringstream
#include <string>      // std::string

#include "json_read.hpp"          // json::parse
#include "scorecard.hpp"          // format_figure
#include "tests/common/cli.hpp"  // run_command, has

namespace {

using tessera::test::CliRun;
using tessera::test::has;

const std::string kResults = std::string(TESSERA_SOURCE_DIR) + "/bench/results/";

CliRun run(const std::string& args) { return tessera::test::run_command(std::string(TESSERA_CLI) + " " + args); }

std::string saved(std::initializer_list<const char*> files) {
  std::string s;
  for (const char* f : files) s += " '" + kResults + f + "'";
  return s;
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The row of `family` in a table printed by the command.
std::string row(const std::string& out, const std::string& family) {
  std::stringstream ss(out);
  for (std::string l; std::getline(ss, l);)
    if (l.rfind(family + "  ", 0) == 0) return l;
  return "";
}

TEST(ScorecardCli, PrintsOneRowPerFamilyFromSavedResults) {
  CliRun r = run("scorecard" + saved({"copy_defaults.json", "gemm_sm90.json", "fused.json", "pipeline.json"}));
  ASSERT_EQ(r.status, 0) << r.out;
  // The range runs from the oldest saved record (the copy's, 2026-11-22) to the newest, which moves as records are
  // measured again.
  EXPECT_TRUE(has(r, "Tessera scorecard of 4 saved files: NVIDIA H100 80GB HBM3, measured 2026-11-22 to 2026-11-"))
      << r.out;
  const std::string gemm = row(r.out, "GEMM bf16, large shapes");
  EXPECT_TRUE(gemm.find("geomean of 5") != std::string::npos && gemm.find("cuBLAS") != std::string::npos &&
              gemm.find(">= 1.00, each >= 0.97") != std::string::npos)
      << gemm;
  EXPECT_NE(row(r.out, "copy, >= 256 MiB").find("met"), std::string::npos) << r.out;
  EXPECT_NE(row(r.out, "GEMM decode set").find("not run"), std::string::npos) << r.out;
  EXPECT_NE(row(r.out, "pipeline, memory-bound").find("> 1.00"), std::string::npos) << r.out;
}

TEST(ScorecardCli, ErrorsNameTheProblem) {
  CliRun none = run("scorecard");
  EXPECT_EQ(none.status, 2);
  EXPECT_TRUE(has(none, "scorecard: give one or more results files")) << none.out;
  CliRun missing = run("scorecard /nonexistent/results.json");
  EXPECT_EQ(missing.status, 1);
  EXPECT_TRUE(has(missing, "/nonexistent/results.json: cannot read the file")) << missing.out;
  const std::string bad = ::testing::TempDir() + "tessera_bad_results.json";
  std::ofstream(bad) << "{\"suite\": \"copy\", \"records\": [\n  {\"figure\": 1,}\n]}";
  CliRun malformed = run("scorecard '" + bad + "'");
  EXPECT_EQ(malformed.status, 1);
  EXPECT_TRUE(has(malformed, bad + ": json: line 2, column 16: expected a member name")) << malformed.out;
  std::ofstream(bad) << "{\"suite\": \"copy\"}";
  EXPECT_TRUE(has(run("scorecard '" + bad + "'"), "no \"records\" array"));
  std::filesystem::remove(bad);
  CliRun help = run("scorecard --help");
  EXPECT_EQ(help.status, 0);
  EXPECT_TRUE(has(help, "usage: tessera scorecard FILE.json...") && has(help, "example: tessera scorecard"));
  EXPECT_TRUE(has(run("scorecard --frob x.json"), "scorecard: unknown option '--frob'"));
}

// The report: Markdown whose numbers are the scorecard document's, and the plots where matplotlib is.
TEST(ScorecardCli, ReportIsWrittenFromTheScorecardDocument) {
  if (tessera::test::run_command("python3 --version").status != 0) GTEST_SKIP() << "python3 is not installed";
  const bool matplotlib = tessera::test::run_command("python3 -c 'import matplotlib'").status == 0;
  const std::string dir = ::testing::TempDir() + "tessera_scorecard_report";
  std::filesystem::remove_all(dir);
  CliRun r = run("scorecard --out '" + dir + "'" +
                 saved({"copy_defaults.json", "gemm_sm90.json", "fused.json", "pipeline.json", "roofline.json"}));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r, "report: " + dir + "/report.md")) << r.out;

  const tessera::json::Value doc = tessera::json::parse(read(dir + "/scorecard.json"));
  const std::string md = read(dir + "/report.md");
  ASSERT_FALSE(md.empty());
  EXPECT_NE(md.find(doc.find("gpu")->text("name")), std::string::npos);
  const auto& lines = doc.find("scorecard")->items;
  ASSERT_EQ(lines.size(), 12u);
  int rows = 0;
  for (const auto& l : lines) {
    // the family's row: "| family | measured: detail | figure unit | reference figure unit | ratio | target | verdict |"
    const std::string family = l.text("family");
    const size_t at = md.find("| " + family + " |");
    ASSERT_NE(at, std::string::npos) << family;
    const std::string md_row = md.substr(at, md.find('\n', at) - at);
    EXPECT_NE(md_row.find(l.text("verdict")), std::string::npos) << md_row;
    if (l.text("verdict") == "not run") continue;
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "| %.2f |", l.num("ratio"));
    EXPECT_NE(md_row.find(ratio), std::string::npos) << md_row << "\n  expected " << ratio;
    EXPECT_NE(md_row.find(tessera::scorecard::format_figure(l.num("figure")) + " " + l.text("unit")), std::string::npos)
        << md_row;
    EXPECT_NE(md_row.find(l.text("reference") + " " + tessera::scorecard::format_figure(l.num("reference_figure"))),
              std::string::npos)
        << md_row;
    ++rows;
  }
  EXPECT_GE(rows, 8);
  // every record is listed, under its suite
  int gemm_records = 0;
  for (const auto& rec : doc.find("records")->items) gemm_records += rec.text("suite") == "gemm";
  EXPECT_GT(gemm_records, 0);
  EXPECT_NE(md.find("### gemm (" + std::to_string(gemm_records) + " records)"), std::string::npos);
  EXPECT_NE(md.find(std::to_string(doc.find("records")->items.size()) + " records, by suite"), std::string::npos);

  for (const char* plot : {"gemm_ratio.png", "copy_bandwidth.png", "roofline.png"}) {
    const bool exists = std::filesystem::exists(dir + "/" + plot);
    EXPECT_EQ(exists, matplotlib) << plot;
    EXPECT_EQ(md.find(std::string("](") + plot + ")") != std::string::npos, matplotlib) << plot;
  }
  if (!matplotlib) {
    EXPECT_NE(md.find("Plots not drawn: matplotlib is not installed"), std::string::npos) << md.substr(0, 2000);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
