// tools/bench.cpp -- `tessera bench <suite|all> [options]`: run benchmark suites.
#include <cstdio>   // std::printf
#include <cstring>  // std::strcmp
#include <set>      // std::set
#include <string>   // std::string

#include "bench_common.hpp"  // suites, BenchOptions
#include "bench_suites.hpp"  // is_suite_name, suite_list
#include "command.hpp"       // TESSERA_COMMAND

namespace {

void bench_help() {
  std::printf(
      "usage: tessera bench <suite|all> [--json FILE] [--quick] [--repeats N] [--no-progress] [suite args]\n\n"
      "Runs a benchmark suite on the present GPU.  Every figure is measured against the reference\n"
      "library (cudaMemcpy, cuBLAS, cuBLASLt) in the same process on the same data; times are the\n"
      "median of many warm runs with L2 flushed or buffers rotated.  With --json, `all` writes one\n"
      "file per suite: FILE is then a folder (e.g. bench/results).\n\nsuites:\n");
  for (auto& s : tessera::bench::suites()) std::printf("  %-10s %s\n", s.name.c_str(), s.summary.c_str());
  std::printf("\nexample: tessera bench copy --json bench/results/copy.json\n");
}

int run_bench(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    bench_help();
    return argc < 2 ? 2 : 0;
  }
  std::string which = argv[1];
  if (which != "all" && !tessera::bench::is_suite_name(which)) {  // checked first: it needs no GPU
    std::fprintf(stderr, "bench: unknown suite '%.40s'; known: %s\n", which.c_str(), tessera::bench::suite_list().c_str());
    return 2;
  }
  tessera::bench::BenchOptions o;
  std::set<std::string> seen;  // options of bench itself may be given once
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if ((a == "--json" || a == "--quick" || a == "--no-progress" || a == "--repeats") && !seen.insert(a).second) {
      std::fprintf(stderr, "bench: option '%s' given twice\n", a.c_str());
      return 2;
    }
    if (a == "--json") {
      if (i + 1 >= argc) { std::fprintf(stderr, "bench: --json needs a file name\n"); return 2; }
      o.json_path = argv[++i];
    } else if (a == "--quick") {
      o.quick = true;
    } else if (a == "--no-progress") {
      o.progress = false;
    } else if (a == "--repeats") {
      if (i + 1 >= argc) { std::fprintf(stderr, "bench: --repeats needs a number\n"); return 2; }
      char* end = nullptr;
      long v = std::strtol(argv[++i], &end, 10);
      if (*end || v < 1 || v > 100000) { std::fprintf(stderr, "bench: --repeats expects 1..100000, got '%s'\n", argv[i]); return 2; }
      o.repeats = static_cast<int>(v);
    } else {
      o.args.push_back(a);
    }
  }
  bool help = false;  // a suite's --help needs no GPU
  for (const std::string& a : o.args) help = help || a == "--help" || a == "-h";
  int ndev = 0;
  if (!help && (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0)) {
    std::fprintf(stderr, "bench: no CUDA GPU present; benchmarks need one (try `tessera tour`)\n");
    return 1;
  }
  int rc = 0;
  for (const tessera::bench::SuiteName& n : tessera::bench::kSuiteNames) {
    if (which != "all" && which != n.name) continue;
    const tessera::bench::Suite* s = tessera::bench::find_suite(n.name);
    if (!s) {
      std::fprintf(stderr, "bench: the suite '%s' is not built into this tessera-gpu\n", n.name);
      return 2;
    }
    tessera::bench::BenchOptions so = o;
    if (which == "all" && !o.json_path.empty()) so.json_path = o.json_path + "/" + s->name + ".json";
    std::printf("== bench %s ==\n", s->name.c_str());
    if (const int r = tessera::bench::run_suite(*s, so)) rc = r;
  }
  return rc;
}

}  // namespace

TESSERA_COMMAND("bench", "benchmark kernels against cudaMemcpy / cuBLAS / cuBLASLt in the same run", run_bench);
