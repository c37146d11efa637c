// The commands: `tessera analyze|tv|swizzle|layout draw` reproduce the known facts, write SVG that
// parses, show an example in --help, and reject bad input with a message naming the problem.
#include <gtest/gtest.h>

#include <array>    // std::array
#include <sys/wait.h>  // WIFEXITED

#include <cstdio>   // popen
#include <fstream>  // std::ifstream
#include <sstream>  // std::stringstream
#include <string>   // std::string

#include "tests/draw/xml_check.hpp"

namespace {

struct CliRun {
  int status = -1;
  std::string out;  // stdout and stderr
};

CliRun run(const std::string& args) {
  std::string cmd = std::string(TESSERA_CLI) + " " + args + " 2>&1";
  CliRun r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

bool has(const CliRun& r, const std::string& s) { return r.out.find(s) != std::string::npos; }

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
