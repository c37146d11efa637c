// tests/layout/run_cases.cpp -- runs `tessera layout --batch` over a layout-cases file
// (op<TAB>arg1[<TAB>arg2]<TAB>expected) and compares every result line with the expected
// field after removing spaces and underscores; an expected `error` matches any line that
// starts with `error`.  Exits non-zero on any mismatch or missing file.
//
// usage: run_cases <path/to/tessera> <cases.tsv>
#include <cstdio>    // std::printf
#include <cstdlib>   // std::system
#include <fstream>   // std::ifstream
#include <string>    // std::string
#include <unistd.h>  // getpid
#include <vector>    // std::vector

static std::string normalize(const std::string& s) {
  std::string o;
  for (char c : s)
    if (c != ' ' && c != '_' && c != '\r') o += c;
  return o;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: run_cases <tessera> <cases.tsv>\n");
    return 2;
  }
  std::ifstream in(argv[2]);
  if (!in) {
    std::fprintf(stderr, "run_cases: cannot open cases file '%s'\n", argv[2]);
    return 2;
  }
  std::vector<std::string> inputs, expected;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    size_t tab = line.rfind('\t');
    if (tab == std::string::npos) {
      std::fprintf(stderr, "run_cases: malformed case line: %s\n", line.c_str());
      return 2;
    }
    inputs.push_back(line.substr(0, tab));
    expected.push_back(line.substr(tab + 1));
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "run_cases: no cases in '%s'\n", argv[2]);
    return 2;
  }
  std::string tmp = "/tmp/tessera_cases_" + std::to_string(getpid());
  {
    std::ofstream o(tmp + ".in");
    for (auto& s : inputs) o << s << '\n';
  }
  std::string cmd = std::string("'") + argv[1] + "' layout --batch < " + tmp + ".in > " + tmp + ".out";
  int rc = std::system(cmd.c_str());
  if (rc != 0) {
    std::fprintf(stderr, "run_cases: `%s` exited with status %d\n", cmd.c_str(), rc);
    return 1;
  }
  std::ifstream out(tmp + ".out");
  std::vector<std::string> got;
  while (std::getline(out, line)) got.push_back(line);
  std::remove((tmp + ".in").c_str());
  std::remove((tmp + ".out").c_str());
  if (got.size() != inputs.size()) {
    std::fprintf(stderr, "run_cases: %zu input lines but %zu output lines (batch mode must print one line each)\n",
                 inputs.size(), got.size());
    return 1;
  }
  int passed = 0, failed = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string g = normalize(got[i]), e = normalize(expected[i]);
    bool ok = e == "error" ? g.rfind("error", 0) == 0 : g == e;
    if (ok) {
      ++passed;
    } else {
      ++failed;
      if (failed <= 50)
        std::printf("FAIL line %zu: %s\n  expected: %s\n  got:      %s\n", i + 1, inputs[i].c_str(), expected[i].c_str(),
                    got[i].c_str());
    }
  }
  std::printf("layout cases: %d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
