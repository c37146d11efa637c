// The commands: `tessera analyze|tv|swizzle|layout draw` reproduce the known facts, write SVG that
// parses, show an example in --help, and reject bad input with a message naming the problem.
#include <gtest/gtest.h>

#include <cstdio>   // std::remove
#include <fstream>  // std::ifstream
#include <sstream>  // std::stringstream
#include <string>   // std::string

#include "tests/common/cli.hpp"  // run_command, has
#include "tests/draw/xml_check.hpp"

namespace {

using tessera::test::CliRun;
using tessera::test::has;

CliRun run(const std::string& args) { return tessera::test::run_command(std::string(TESSERA_CLI) + " " + args); }

const char* kLdm = "--elem-bytes 2 --inst ldmatrix.x4 --tv '((16,2),8):((1,128),16)' --tile '<16,16>' --json";

TEST(Cli, KnownFactsAsJson) {
  CliRun a = run(std::string("analyze smem --layout '(128,64):(64,1)' ") + kLdm);
  ASSERT_EQ(a.status, 0) << a.out;
  EXPECT_TRUE(has(a, "\"bank_conflicts\":896")) << a.out.substr(0, 400);
  EXPECT_TRUE(has(a, "\"max_ways\":8"));
  CliRun b = run(std::string("analyze smem --layout 'Sw<3,3,3>o(128,64):(64,1)' ") + kLdm);
  ASSERT_EQ(b.status, 0) << b.out;
  EXPECT_TRUE(has(b, "\"bank_conflicts\":0,")) << b.out.substr(0, 400);
  EXPECT_TRUE(has(b, "\"wavefronts\":128,"));
  CliRun g = run("analyze gmem --layout 32:1 --elem-bytes 4 --inst ld.32 --tv '(32,1):(1,0)' --json");
  ASSERT_EQ(g.status, 0) << g.out;
  EXPECT_TRUE(has(g, "\"sectors\":4,")) << g.out;
  EXPECT_TRUE(has(g, "\"lines\":1,"));
  CliRun c = run("analyze smem --layout '(32,32):(32,1)' --elem-bytes 4 --inst ld.32 --tv '(32,32):(1,32)' --json");
  EXPECT_TRUE(has(c, "\"max_ways\":32,")) << c.out.substr(0, 400);
  CliRun pad = run("analyze smem --layout '(32,32):(33,1)' --elem-bytes 4 --inst ld.32 --tv '(32,32):(1,32)' --json");
  EXPECT_TRUE(has(pad, "\"bank_conflicts\":0,")) << pad.out.substr(0, 400);
  CliRun v = run("analyze vector --src '(8,64):(64,1)' --dst 'Sw<3,3,3>o(8,64):(64,1)' --elem-bytes 2 --json");
  EXPECT_TRUE(has(v, "\"elements\":8,")) << v.out;
}

TEST(Cli, TableOutput) {
  CliRun r = run("analyze smem --layout '(128,64):(64,1)' --elem-bytes 2 --inst ldmatrix.x4 "
              "--tv '((16,2),8):((1,128),16)' --tile '<16,16>'");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r, "total: 32 instructions, 1024 wavefronts (ideal 128), 896 bank conflicts, at most 8-way")) << r.out;
  CliRun c = run("analyze gmem --layout '(64,64):(64,1)' --elem-bytes 4 --inst ld.128 --copy '(8,16):(16,1)' '(1,4)'");
  ASSERT_EQ(c.status, 0) << c.out;
  EXPECT_TRUE(has(c, "32 requests, 512 sectors (16.00 per request)")) << c.out;
}

TEST(Cli, HelpShowsExamples) {
  for (const char* cmd : {"analyze --help", "tv --help", "swizzle --help", "analyze smem --help"}) {
    CliRun r = run(cmd);
    EXPECT_EQ(r.status, 0) << cmd;
    EXPECT_TRUE(has(r, "example")) << cmd << "\n" << r.out;
    EXPECT_TRUE(has(r, "$ tessera ")) << cmd;
  }
}

TEST(Cli, BadInputGivesClearErrors) {
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {"analyze smem --layout 32:1 --elem-bytes 4 --inst ld.96 --tv '(32,1):(1,0)'",
       "error: unknown instruction 'ld.96'; expected one of: ld.8, st.8"},
      {"analyze smem --layout 32:1 --elem-bytes 4 --inst ld.32 --tv '(32,1):(1,0)' --threads 64",
       "error: --threads: 64 threads given, but the access pattern has 32"},
      {"analyze smem --layout 48:1 --elem-bytes 4 --inst ld.32 --tv '(24,2):(2,1)'",
       "24 threads do not match ld.32, which takes 32 addresses per warp"},
      {"analyze gmem --layout 32:1 --elem-bytes 8 --inst ld.32 --tv '(32,1):(1,0)'",
       "--elem-bytes: an element of 8 bytes does not divide the 4-byte access of ld.32"},
      {"analyze smem --layout 32:1 --elem-bytes 4 --inst ld.32", "give exactly one of --tv and --copy"},
      {"analyze smem --layout '(4,' --elem-bytes 4 --inst ld.32 --tv 32:1", "column"},
      {"analyze smem --bogus 1", "unknown option '--bogus'"},
      {"analyze frobnicate", "unknown subcommand 'frobnicate'"},
      {"tv draw", "give exactly one of --copy, --tv, --mma"},
      {"tv draw --mma m16n8k16 --operand D", "--operand: expected A, B or C"},
      {"tv draw --copy '(32,8):(8,1)' '(1,4)' --atom-values 8", "not a multiple of the atom's 8"},
      {"swizzle draw 'Sw<3,3,3>' '(8,64):(64,1)'", "--elem-bytes: missing"},
      {"swizzle draw 'Sw<3,3,1>' '(8,64):(64,1)' --elem-bytes 2", "|S| must be at least B"},
  };
  for (const auto& c : cases) {
    CliRun r = run(c.args);
    EXPECT_NE(r.status, 0) << c.args;
    EXPECT_TRUE(has(r, c.message)) << c.args << "\n  got: " << r.out;
  }
}

TEST(Cli, DrawCommandsWriteParsableSvg) {
  std::string dir = ::testing::TempDir();
  struct Case {
    std::string args, file;
    int cells;
  };
  const Case cases[] = {
      {"tv draw --copy '(32,8):(8,1)' '(1,8)' --atom-values 8", "copy.svg", 32 * 64},
      {"tv draw --mma m16n8k16 --operand B", "mma_b.svg", 8 * 16},
      {"tv draw --tv '((16,2),8):((1,128),16)' --tile '(16,16)'", "ldm.svg", 256},
      {"swizzle draw 'Sw<3,3,3>' '(8,64):(64,1)' --elem-bytes 2", "sw.svg", 512},
      {"analyze smem --layout '(32,32):(32,1)' --elem-bytes 4 --inst ld.32 --tv '(32,32):(1,32)' --instruction 3 --svg",
       "bank.svg", 32 * 32},
  };
  for (const auto& c : cases) {
    std::string path = dir + "/tessera_cli_" + c.file;
    bool svg_flag = c.args.find("--svg") != std::string::npos;
    CliRun r = run(c.args + (svg_flag ? " " : " -o ") + path);
    ASSERT_EQ(r.status, 0) << c.args << "\n" << r.out;
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    tessera::test::XmlDocument d = tessera::test::parse_xml(ss.str());
    EXPECT_EQ(d.count("rect", "cell"), c.cells) << c.args;
  }
}

}  // namespace

// ---- command-line conventions (issue 13): --version, --help everywhere, strict options, --json,
// bounded output for huge or malformed input.

TEST(CliConventions, VersionAndHelpForEveryCommand) {
  CliRun v = run("--version");
  EXPECT_EQ(v.status, 0);
  EXPECT_EQ(v.out.rfind(std::string("tessera ") + TESSERA_VERSION + " (", 0), 0u) << v.out;
  struct Case {
    std::string args, usage;
  };
  const Case cases[] = {
      {"--help", "usage: tessera <command>"},
      {"help layout", "usage: tessera layout <op>"},
      {"layout --help", "usage: tessera layout <op>"},
      {"layout show --help", "usage: tessera layout show <layout>"},
      {"layout composition --help", "usage: tessera layout composition A B|<tiler>"},
      {"layout crd2idx -h", "usage: tessera layout crd2idx L c"},
      {"layout draw --help", "usage: tessera layout draw"},
      {"tour --help", "usage: tessera tour"},
      {"main --help", "usage: tessera main"},
      {"tv --help", "usage:"},
      {"swizzle --help", "usage:"},
      {"analyze gmem --help", "usage:"},
  };
  for (const auto& c : cases) {
    CliRun r = run(c.args);
    EXPECT_EQ(r.status, 0) << c.args << "\n" << r.out;
    EXPECT_TRUE(has(r, c.usage)) << c.args << "\n" << r.out.substr(0, 600);
  }
  // --help is never read as a layout, and the tour's help does not run the tour
  EXPECT_FALSE(has(run("layout show --help"), "error"));
  EXPECT_FALSE(has(run("tour --help"), "Tessera layout tour"));
}

TEST(CliConventions, UnknownAndRepeatedOptionsAreRejected) {
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {"main --frob", "main: unknown option '--frob'"},
      {"main --quick --quick", "main: option '--quick' given twice"},
      {"main --json a --json b", "main: option '--json' given twice"},
      {"main extra", "main: unexpected argument 'extra'"},
      {"tour --frob", "tour: unknown argument '--frob'"},
      {"layout size 4:1 --frob", "layout: unknown option \"--frob\""},
      {"layout --json --json size 4:1", "layout: option '--json' given twice"},
      {"layout --batch extra", "--batch reads its operations from standard input"},
      {"layout frob --help", "layout: unknown operation \"frob\""},
      {"analyze smem --layout 32:1 --layout 32:1 --elem-bytes 4 --inst ld.32 --tv '(32,1):(1,0)'",
       "option '--layout' given twice"},
      {"tv draw --mma m16n8k16 --operand A --operand B", "option '--operand' given twice"},
      {"--version extra", "--version takes no arguments"},
      {"frob", "tessera: unknown command 'frob'"},
      {"bench frob", "bench: unknown suite 'frob'; known: copy fused gemm pipeline quantize all"},
      {"bench frob --json x", "bench: unknown suite 'frob'; known: copy fused gemm pipeline quantize all"},
#if !TESSERA_WITH_CUDA
      {"bench copy", "needs `tessera-gpu`, which this build does not have"},
#endif
      {"main --repeats 0", "main: --repeats expects 1..100000, got '0'"},
      {"main --full extra", "main: unexpected argument 'extra'"},
  };
  for (const auto& c : cases) {
    CliRun r = run(c.args);
    EXPECT_NE(r.status, 0) << c.args << "\n" << r.out;
    EXPECT_TRUE(has(r, c.message)) << c.args << "\n  got: " << r.out;
  }
}

TEST(CliConventions, JsonForLayoutOperations) {
  CliRun r = run("layout size '(4,8):(8,1)' --json");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "{\"op\":\"size\",\"result\":\"32\"}\n");
  r = run("layout --json composition '(6,2):(8,2)' '(4,3):(3,1)'");
  EXPECT_EQ(r.out, "{\"op\":\"composition\",\"result\":\"((2,2),3):((24,2),8)\"}\n");
  r = run("layout crd2idx '(4,8):(8,1)' '(5,9)' --json");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "{\"op\":\"crd2idx\",\"error\":\"crd2idx: coordinate 5 of mode 0 is outside [0, 4)\"}\n");
  r = run("layout size '(4,8' --json");
  EXPECT_EQ(r.out, "{\"op\":\"size\",\"error\":\"column 5: expected ',' or ')', found end of input in \\\"(4,8\\\"\"}\n");
  r = run("layout show '(2,2):(1,2)' --json");
  EXPECT_TRUE(has(r, "{\"op\":\"show\",\"result\":\"(2,2):(1,2)\\n")) << r.out;
}

TEST(CliConventions, BatchSurvivesHugeAndDeepLinesWithBoundedOutput) {
  const std::string path = ::testing::TempDir() + "tessera_batch_input.txt";
  {
    std::ofstream f(path, std::ios::binary);
    f << "size\t(" << std::string(4 << 20, '2') << ")\n";                                   // a 4 MB integer
    f << "size\t" << std::string(5000, '(') << "2" << std::string(5000, ')') << "\n";     // deep nesting
    f << "composition\t(6,4,3):(1,8,2)\t(1099511627776,6):(0,-1)\n";                      // was a hang
    f << "size\t(4,\x01\xff)\n";                                                            // raw bytes
    f << "size\t(4,8):(8,1)\n";
  }
  CliRun r = run("layout --batch < '" + path + "'");
  EXPECT_EQ(r.status, 0);
  EXPECT_LT(r.out.size(), 2000u) << r.out.substr(0, 2000);
  std::stringstream lines(r.out);
  std::string l1, l2, l3, l4, l5;
  std::getline(lines, l1);
  std::getline(lines, l2);
  std::getline(lines, l3);
  std::getline(lines, l4);
  std::getline(lines, l5);
  EXPECT_TRUE(l1.rfind("error: column 2: integer too large", 0) == 0) << l1;
  EXPECT_TRUE(has(CliRun{0, l1}, "(input of 4194306 bytes)")) << l1;
  EXPECT_TRUE(l2.rfind("error: column 17: over capacity: nesting deeper than 16 levels", 0) == 0) << l2;
  EXPECT_EQ(l3, "(1099511627776,6):(0,-1)");
  EXPECT_EQ(l4, "error: column 4: expected an integer, found '\\x01' in \"(4,\\x01\\xff)\"");
  EXPECT_EQ(l5, "32");
  std::remove(path.c_str());
}

TEST(CliConventions, AnalysisOfAHugeLayoutIsABoundedError) {
  CliRun r = run("analyze smem --layout '(65536,65536):(65536,1)' --elem-bytes 4 --inst ld.32 --tv '(32,32):(1,32)' "
                 "--tile '<32,32>'");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(has(r, "too large to analyze: 4294967296 elements, limit 1048576")) << r.out;
  EXPECT_FALSE(has(r, "bad_alloc"));
}

TEST(CliConventions, MainJobWithoutAGpuIsTheTour) {
  // CUDA_VISIBLE_DEVICES= hides every GPU, so this takes the path of a machine without one even where
  // a GPU is present (where it would otherwise run the benchmarks).
  CliRun r = tessera::test::run_command("CUDA_VISIBLE_DEVICES= " + std::string(TESSERA_CLI) + " main");
  EXPECT_EQ(r.status, 0) << r.out.substr(0, 600);
  EXPECT_TRUE(has(r, TESSERA_WITH_CUDA ? "No CUDA GPU present: running the layout tour"
                                       : "built without its GPU part (tessera-gpu): running the layout tour"))
      << r.out.substr(0, 400);
  EXPECT_TRUE(has(r, "colexicographic")) << "the tour itself";
  EXPECT_TRUE(has(r, "896 bank conflicts, at most 8-way"));
  EXPECT_FALSE(has(r, "Tessera scorecard:")) << "no benchmark ran";
  CliRun h = run("main --help");
  EXPECT_EQ(h.status, 0);
  for (const char* s : {"--full", "scorecard.json", "report.md", "gemm_ratio.png", "copy_bandwidth.png", "roofline.png",
                        "log.txt", "tessera scorecard"})
    EXPECT_TRUE(has(h, s)) << s << "\n" << h.out;
}

TEST(CliConventions, TourTeachesWithoutAGpu) {
  CliRun r = run("tour");
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(has(r, "colexicographic")) << r.out.substr(0, 400);
  EXPECT_TRUE(has(r, "0,8,16,24,1,9,17,25")) << "values of the row-major tile in index order";
  EXPECT_TRUE(has(r, "tessera layout draw")) << "the drawing commands";
  EXPECT_TRUE(has(r, "896 bank conflicts, at most 8-way")) << "the analysis of the unswizzled tile";
  EXPECT_TRUE(has(r, "0 bank conflicts")) << "the analysis of the swizzled tile";
  EXPECT_TRUE(has(r, "   row 1:  1 0 3 2 5 4 7 6")) << "the bank groups of Sw<3,3,3>";
}
