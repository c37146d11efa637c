// tools/bench_common.hpp -- the benchmark harness shared by every `tessera bench <suite>`.
//
// A suite registers itself with TESSERA_BENCH_SUITE("name", "summary", fn) and receives
// BenchOptions.  Timing rules (every suite follows them):
//   * verify the kernel before timing it;
//   * warm up, then time with CUDA events, report the median of many runs;
//   * rotate between buffer sets whose total is larger than L2 (or flush L2 between runs)
//     so that a figure is a DRAM figure unless a suite says "L2-resident";
//   * measure the reference (cuBLAS, cuBLASLt, cudaMemcpy) in the same process, same data;
//   * every JSON record carries: suite, kernel, variant, size, figure, unit, reference,
//     reference figure, ratio (bench_record.hpp);
//   * a suite ends with finish(): its records go to the JSON file and to whoever runs it
//     (`tessera main` collects every suite's records for its scorecard).
#pragma once

#include <cuda_runtime.h>  // cudaEvent_t, cudaStream_t

#include <algorithm>   // std::sort
#include <cstdio>      // std::FILE, std::fprintf
#include <functional>  // std::function
#include <string>      // std::string
#include <vector>      // std::vector

#include "bench_record.hpp"  // Record
#include "bench_suites.hpp"  // is_suite_name, suite_summary

namespace tessera::bench {

struct BenchOptions {
  std::string json_path;      // --json FILE: write records here ("" = none)
  bool quick = false;         // --quick: fewer sizes and repetitions (smoke run)
  bool progress = true;       // --no-progress: silence the progress lines on stderr
  int repeats = 0;            // --repeats N: timed runs per point (0 = the suite's default)
  std::vector<std::string> args;  // remaining suite-specific arguments
  // Set by a caller that runs suites itself (the main job's scorecard):
  std::vector<Record>* collect = nullptr;  // finish() appends the suite's records here
  // progress() calls this instead of printing (suite, cases done, cases in all, label)
  std::function<void(const std::string&, int, int, const std::string&)> on_progress;
};

// Collects records and writes them as a JSON document with a header describing the run
// (GPU name, SM count, clocks, driver, runtime, compiler, git commit, date, command line).
class Report {
 public:
  // Element type written into every record ("dtype").
  void set_dtype(std::string t) { dtype_ = std::move(t); }
  explicit Report(std::string suite) : suite_(std::move(suite)) {}
  void add(Record r) {
    if (r.suite.empty()) r.suite = suite_;
    if (r.dtype.empty()) r.dtype = dtype_;
    records_.push_back(std::move(r));
  }
  const std::vector<Record>& records() const { return records_; }
  const std::string& suite() const { return suite_; }
  // Writes JSON to `path`; returns false (and prints why) on failure.
  bool write_json(const std::string& path, const std::string& command_line) const;

 private:
  std::string dtype_;
  std::string suite_;
  std::vector<Record> records_;
};

// The members that open a results document, describing the run (suite, date, command, git commit,
// GPU name, SM count, clocks, driver, runtime, compiler), without braces; *date / *commit receive
// the date and commit written.
std::string run_header_json(const std::string& suite, const std::string& command_line, std::string* date,
                            std::string* commit);

// The command line that runs `suite` with these options: "tessera bench SUITE [args] [--quick] [--repeats N]".
std::string command_line(const BenchOptions& o, const std::string& suite);

// A suite's last step: hands its records to o.collect (when set) and writes them to o.json_path
// (when set; prints "wrote PATH"), with command_line(o, suite) as the run's command.  Returns false
// (and prints why) when the file cannot be written.
bool finish(const BenchOptions& o, const Report& report);

// Times `launch` (which enqueues work on `stream`) with CUDA events: `warmup` untimed calls,
// then `repeats` timed calls, each timed individually; returns the median in milliseconds.
// `before_each` (optional) runs untimed before every call (e.g. to rotate buffers / flush L2).
double time_median_ms(const std::function<void(cudaStream_t)>& launch, cudaStream_t stream,
                      int warmup, int repeats,
                      const std::function<void(cudaStream_t)>& before_each = {});

// The same for several launches timed in turn (a, b, c, b, c, a, c, a, b, ...: each round starts one later), so that
// clock and temperature drift over a long run affect them alike and no launch always follows the same one; returns one
// median per launch.
std::vector<double> time_medians_interleaved_ms(const std::vector<std::function<void(cudaStream_t)>>& launches,
                                                cudaStream_t stream, int warmup, int repeats,
                                                const std::function<void(cudaStream_t)>& before_each = {});

// Reads a scratch buffer of 4x the L2 size so that the next kernel starts with a cold L2.  It
// reads rather than writes: a writing flush leaves dirty lines whose write-back the next timed
// kernel would pay for (about 17 us on an H100).
void flush_l2(cudaStream_t stream);

// One read of `bytes` at `p` (16-byte loads, four in flight per thread, four 512-thread blocks per SM; bytes a
// multiple of 16, p 16-byte aligned), writing nothing: the floor of any kernel that must read those bytes once,
// timed the same way as the kernel it bounds (the GEMM bench's decode shapes: one read of the weights).
void read_once(const void* p, size_t bytes, cudaStream_t stream);

// Device-to-device cudaMemcpyAsync bandwidth (GB/s, bytes read + written) for `bytes`
// per buffer, measured now: the memory ceiling that copy-like kernels are compared with.
double memcpy_d2d_gbps(size_t bytes, cudaStream_t stream, int repeats = 20);

// Progress line on stderr ("[suite] 3/17 label"), overwritten in place on a terminal.
void progress(const BenchOptions& o, const std::string& suite, int done, int total, const std::string& label);

// Throws std::runtime_error naming the call on any CUDA error.
void check_cuda(cudaError_t e, const char* what);
#define TESSERA_BENCH_CUDA(expr) ::tessera::bench::check_cuda((expr), #expr)

// Prints a table: header cells then rows of cells, columns padded.
void print_table(std::FILE* out, const std::vector<std::string>& header,
                 const std::vector<std::vector<std::string>>& rows);
std::string fmt(double v, int decimals = 2);

// ----- suite registry -----
struct Suite {
  std::string name, summary;
  int (*run)(const BenchOptions&);  // returns 0 on success
};
std::vector<Suite>& suites();
// The registered suite `name`, or nullptr.
const Suite* find_suite(const std::string& name);
// Runs a suite; a failure (non-zero status or an exception) is reported on stderr as
// "bench SUITE: ..." and returned as a non-zero status.
int run_suite(const Suite& s, const BenchOptions& o);
struct SuiteRegistrar {
  explicit SuiteRegistrar(Suite s) { suites().push_back(std::move(s)); }
};

}  // namespace tessera::bench

#define TESSERA_BENCH_CAT2(a, b) a##b
#define TESSERA_BENCH_CAT(a, b) TESSERA_BENCH_CAT2(a, b)
// TESSERA_BENCH_SUITE("copy", fn)   with fn: int(const tessera::bench::BenchOptions&); the name must be
// listed (with its summary) in kSuiteNames of tools/bench_suites.hpp.
#define TESSERA_BENCH_SUITE(name, fn)                                                                       \
  static_assert(::tessera::bench::is_suite_name(name),                                                    \
                "TESSERA_BENCH_SUITE: add the suite's name and summary to kSuiteNames in tools/bench_suites.hpp"); \
  static ::tessera::bench::SuiteRegistrar TESSERA_BENCH_CAT(tessera_suite_, __LINE__){                       \
      ::tessera::bench::Suite{name, ::tessera::bench::suite_summary(name), fn}}
