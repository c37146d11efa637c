// tools/main_job.cpp -- `tessera-gpu main`: the benchmark run of the main job, run by `tessera main`
// (and scripts/run.sh) where a GPU is present.
//
// By default it prints a scorecard (tools/scorecard.hpp): one line per kernel family, each against
// the reference library measured in the same run, with the project's target.  To keep the run short
// every suite runs a small set of cases, through its own options (kScorecardSteps below); the
// suites' own tables go to DIR/log.txt, every record (and the roofline's measurements) to
// DIR/scorecard.json, and tools/scorecard_report.py turns that file into DIR/report.md with plots.
// A progress line on stderr says which step runs and how long the rest should take.
//
// --full runs the full sweeps instead, printed as `tessera bench all` prints them, one JSON file per
// suite under DIR, then the same scorecard, JSON and report over all of it.
#include <cuda_runtime.h>  // cudaGetDeviceProperties
#include <fcntl.h>         // open
#include <unistd.h>        // dup, dup2, close, isatty

#include <chrono>      // std::chrono::steady_clock
#include <cstdio>      // std::printf, std::fprintf
#include <cstdlib>     // std::strtol
#include <cstring>     // std::strcmp
#include <filesystem>  // std::filesystem::create_directories, remove
#include <fstream>     // std::ifstream, std::ofstream
#include <memory>      // std::unique_ptr
#include <sstream>     // std::stringstream
#include <string>      // std::string
#include <vector>      // std::vector

#include "bench_common.hpp"  // find_suite, run_suite, BenchOptions, run_header_json
#include "command.hpp"       // TESSERA_COMMAND, registry
#include "scorecard.hpp"     // score, format_table, Eta, document_json, write_report

namespace {

namespace sc = tessera::scorecard;
using Clock = std::chrono::steady_clock;

// One step of the run: a benchmark suite, or the `roofline` command.
struct Plan {
  const char* name;                // suite name, or "roofline"
  std::vector<std::string> args;   // the suite's (or roofline's) own arguments
  bool quick = false;              // the suite's --quick (copy: only the five default variants)
  double weight = 1;               // rough share of the run's time, for the time-left estimate
};

// The scorecard's cases: enough for every line of the scorecard and the report's plots.
//   copy      the five default variants (--quick), L2-resident to 1 GiB, no transposes
//   gemm      the five large shapes of the GEMM targets; the decode set (M = 1, 16, 64, 128 against four weight
//             shapes); then the five large shapes in FP8 (e4m3, against cuBLASLt's FP8 GEMM)
//   fused     the cases with a target (fp32 L2 norms, fp32 chains fused and unfused)
//   pipeline  the memory-bound cases (0 and 4 FMA per element) at 1 CTA per SM
//   roofline  --quick: ceilings from 4096^3 GEMMs, fewer kernels
std::vector<Plan> scorecard_plan() {
  return {
      {"copy", {"--sizes", "4M,16M,64M,256M,1G", "--no-transpose"}, true, 2},
      {"gemm",
       {"--shapes", "4096x4096x4096,8192x8192x8192,8192x4096x4096,8192x14336x4096,8192x4096x14336"}, false, 3},
      {"gemm", {"--shapes", "decode"}, false, 1},
      {"gemm", {"--dtype", "e4m3", "--shapes", "4096x4096x4096,8192x8192x8192,8192x4096x4096,8192x14336x4096,8192x4096x14336"},
       false, 1},
      {"fused", {"--targets"}, false, 2},
      {"pipeline", {"--work", "0,4", "--ctas", "1"}, false, 1},
      {"roofline", {"--quick"}, false, 2},
  };
}

std::vector<Plan> full_plan(bool quick) {
  std::vector<Plan> p;
  for (const auto& s : tessera::bench::kSuiteNames) p.push_back({s.name, {}, quick, 1});
  p.push_back({"roofline", quick ? std::vector<std::string>{"--quick"} : std::vector<std::string>{}, false, 1});
  return p;
}

struct Options {
  std::string dir = "bench/results/latest";
  bool full = false, quick = false, progress = true;
  int repeats = 0;
};

// While alive, standard output (file descriptor 1) is appended to `path`.
class StdoutToFile {
 public:
  explicit StdoutToFile(const std::string& path) {
    std::fflush(stdout);
    saved_ = dup(1);
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0 && saved_ >= 0 && dup2(fd, 1) >= 0) ok_ = true;
    if (fd >= 0) close(fd);
  }
  ~StdoutToFile() {
    std::fflush(stdout);
    if (ok_) dup2(saved_, 1);
    if (saved_ >= 0) close(saved_);
  }
  StdoutToFile(const StdoutToFile&) = delete;
  StdoutToFile& operator=(const StdoutToFile&) = delete;
  bool ok() const { return ok_; }

 private:
  int saved_ = -1;
  bool ok_ = false;
};

// The progress line on stderr: "[scorecard 2/5] gemm M=8192,N=8192,K=8192 (3/7) | 41 s, about 1 min 50 s left".
// On a terminal one line, rewritten in place; elsewhere one line per step.
class Progress {
 public:
  Progress(bool on, const std::vector<Plan>& plan) : on_(on), plan_(plan), eta_(weights(plan)), start_(Clock::now()) {
    tty_ = isatty(2);
  }
  double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  void step(size_t i) {
    step_ = i;
    eta_.at(i, 0);
    show(plan_[i].name, true);
  }
  void within(int done, int total, const std::string& label) {
    eta_.at(step_, total > 0 ? static_cast<double>(done) / total : 0);
    show(std::string(plan_[step_].name) + " " + label + " (" + std::to_string(done) + "/" + std::to_string(total) + ")",
         false);
  }
  void end() {
    if (on_ && tty_) std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  }

 private:
  static std::vector<double> weights(const std::vector<Plan>& plan) {
    std::vector<double> w;
    for (const Plan& p : plan) w.push_back(p.weight);
    return w;
  }
  void show(const std::string& what, bool new_step) {
    if (!on_ || (!tty_ && !new_step)) return;
    const double t = elapsed(), left = eta_.seconds_left(t);
    std::string line = "[scorecard " + std::to_string(step_ + 1) + "/" + std::to_string(plan_.size()) + "] " + what +
                       " | " + sc::format_duration(t) + (left >= 0 ? ", about " + sc::format_duration(left) + " left" : "");
    if (tty_) {
      if (line.size() > 150) line = line.substr(0, 147) + "...";
      std::fprintf(stderr, "\r\033[K%s", line.c_str());
    } else {
      std::fprintf(stderr, "%s\n", line.c_str());
    }
    std::fflush(stderr);
  }
  bool on_, tty_ = false;
  const std::vector<Plan>& plan_;
  sc::Eta eta_;
  Clock::time_point start_;
  size_t step_ = 0;
};

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs `tessera roofline ARGS` (the command registered by roofline.cpp) and returns its status.
int run_roofline(const std::vector<std::string>& args) {
  for (auto& c : tessera::cli::registry()) {
    if (c.name != "roofline") continue;
    std::vector<std::string> a = {"roofline"};
    a.insert(a.end(), args.begin(), args.end());
    std::vector<char*> av;
    for (auto& s : a) av.push_back(s.data());
    av.push_back(nullptr);
    return c.run(static_cast<int>(a.size()), av.data());
  }
  std::fprintf(stderr, "main: the roofline command is missing from this build\n");
  return 1;
}

int parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json" && i + 1 < argc) {
      o.dir = argv[++i];
    } else if (a == "--full") {
      o.full = true;
    } else if (a == "--quick") {
      o.quick = true;
    } else if (a == "--no-progress") {
      o.progress = false;
    } else if (a == "--repeats" && i + 1 < argc) {
      char* end = nullptr;
      const long v = std::strtol(argv[++i], &end, 10);
      if (*end || v < 1 || v > 100000) {
        std::fprintf(stderr, "main: --repeats expects 1..100000, got '%s'\n", argv[i]);
        return 2;
      }
      o.repeats = static_cast<int>(v);
    } else {
      std::fprintf(stderr, "main: unknown or incomplete option '%.40s' (see `tessera main --help`)\n", argv[i]);
      return 2;
    }
  }
  return 0;
}

int run_main_job(int argc, char** argv) {
  Options o;
  if (const int rc = parse(argc, argv, o)) return rc;
  std::error_code ec;
  std::filesystem::create_directories(o.dir, ec);
  if (ec || !std::filesystem::is_directory(o.dir)) {
    std::fprintf(stderr, "main: cannot create the folder '%s'\n", o.dir.c_str());
    return 1;
  }
  const std::vector<Plan> plan = o.full ? full_plan(o.quick) : scorecard_plan();
  // A scorecard run with --quick is a smoke run: fewer timed runs per case (the suites' --quick
  // would also drop cases the scorecard needs).
  const int repeats = o.repeats ? o.repeats : (!o.full && o.quick ? 5 : 0);
  const std::string log = o.dir + "/log.txt", roofline_json = o.dir + "/roofline.json";
  if (!o.full) std::ofstream(log, std::ios::trunc) << "";
  std::filesystem::remove(roofline_json, ec);  // a file from an earlier run is never taken for this one's

  std::vector<tessera::bench::Record> records;
  std::vector<sc::Step> steps;
  Progress progress(o.progress && !o.full, plan);
  int status = 0;
  for (size_t i = 0; i < plan.size(); ++i) {
    const Plan& p = plan[i];
    progress.step(i);
    sc::Step step;
    step.name = p.name;
    const double t0 = progress.elapsed();
    const bool roofline = std::string(p.name) == "roofline";
    std::vector<std::string> rargs;  // the roofline's
    tessera::bench::BenchOptions bo;
    if (roofline) {
      rargs = p.args;
      if (repeats) rargs.insert(rargs.end(), {"--repeats", std::to_string(repeats)});
      rargs.insert(rargs.end(), {"--no-plot", "--json", roofline_json});  // the report draws the plot
      step.command = "tessera roofline";
      for (const auto& a : rargs) step.command += " " + a;
    } else {
      bo.args = p.args;
      bo.quick = p.quick;
      bo.repeats = repeats;
      bo.collect = &records;
      if (o.full) {
        bo.json_path = o.dir + "/" + p.name + ".json";
        bo.progress = o.progress;
      } else {
        bo.on_progress = [&](const std::string&, int done, int total, const std::string& label) {
          progress.within(done, total, label);
        };
      }
      step.command = tessera::bench::command_line(bo, p.name);
    }
    {
      std::unique_ptr<StdoutToFile> quiet;
      if (!o.full) {
        std::ofstream(log, std::ios::app) << "\n== " << step.command << "\n";
        quiet = std::make_unique<StdoutToFile>(log);
      } else {
        std::printf("== %s ==\n", step.command.c_str());
      }
      if (roofline) {
        step.status = run_roofline(rargs);
      } else if (const tessera::bench::Suite* s = tessera::bench::find_suite(p.name)) {
        step.status = tessera::bench::run_suite(*s, bo);
      } else {
        std::fprintf(stderr, "main: the suite '%s' is not built into this tessera-gpu\n", p.name);
        step.status = 2;
      }
    }
    step.seconds = progress.elapsed() - t0;
    if (step.status) status = step.status;
    steps.push_back(step);
  }
  progress.end();

  // ---- the scorecard, its JSON document and the report ----
  const std::vector<sc::Line> lines = sc::score(records);
  std::string command = "tessera main";
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
  std::string date, commit;
  const std::string header = tessera::bench::run_header_json("scorecard", command, &date, &commit);
  const std::string roofline_text = read_text(roofline_json);
  if (!o.full) std::filesystem::remove(roofline_json, ec);  // kept inside scorecard.json
  const std::string doc_path = o.dir + "/scorecard.json";
  {
    std::ofstream doc(doc_path, std::ios::binary);
    doc << sc::document_json(header, lines, steps, records, roofline_text, date, commit);
    if (!doc) {
      std::fprintf(stderr, "main: cannot write '%s'\n", doc_path.c_str());
      status = status ? status : 1;
    }
  }
  cudaDeviceProp prop{};
  int dev = 0;
  cudaGetDevice(&dev);
  cudaGetDeviceProperties(&prop, dev);
  std::printf("\nTessera scorecard: %s, %s, commit %s, %s%s\n\n", prop.name[0] ? prop.name : "no GPU found", date.c_str(), commit.c_str(),
              sc::format_duration(progress.elapsed()).c_str(), o.full ? " (full sweeps)" : "");
  std::fputs(sc::format_table(lines).c_str(), stdout);
  std::printf("\nratio: Tessera's figure against the reference measured in the same run (above 1: Tessera is faster)\n");
  for (const sc::Step& s : steps)
    if (s.status) std::printf("failed: `%s` (status %d; its lines are \"not run\")\n", s.command.c_str(), s.status);
  std::printf("details: %s (%zu records)%s\n", doc_path.c_str(), records.size(),
              o.full ? "" : ("; the suites' own tables: " + log).c_str());
  const int report = sc::write_report("python3", sc::tools_script("scorecard_report.py"), doc_path, o.dir);
  if (report) std::printf("report: not written (python3 tools/scorecard_report.py exited with %d)\n", report);
  if (!o.full) std::printf("full sweeps: tessera main --full (scripts/run.sh --full), or tessera bench <suite>\n");
  return status;
}

}  // namespace

TESSERA_COMMAND("main", "the benchmark run of the main job (run by `tessera main` where a GPU is present)", run_main_job);
