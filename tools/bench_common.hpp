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
//     reference figure, ratio.
#pragma once

#include <cuda_runtime.h>  // cudaEvent_t, cudaStream_t

#include <algorithm>   // std::sort
#include <cstdio>      // std::FILE, std::fprintf
#include <functional>  // std::function
#include <string>      // std::string
#include <vector>      // std::vector

namespace tessera::bench {

struct BenchOptions {
  std::string json_path;      // --json FILE: write records here ("" = none)
  bool quick = false;         // --quick: fewer sizes and repetitions (smoke run)
  bool progress = true;       // --no-progress: silence the progress lines on stderr
  int repeats = 0;            // --repeats N: timed runs per point (0 = the suite's default)
  std::vector<std::string> args;  // remaining suite-specific arguments
};

struct Record {
  std::string suite, kernel, variant, size;  // size: human-readable, e.g. "M=4096,N=4096,K=4096"
  double figure = 0;                         // the kernel's figure (GB/s, TFLOP/s, us ...)
  std::string unit;                          // "GB/s", "TFLOP/s", "us"
  std::string reference;                     // e.g. "cudaMemcpy D2D", "cublasGemmEx", "n/a"
  double reference_figure = 0;               // the reference's figure in the same unit (0 = n/a)
  double ratio = 0;                          // figure / reference_figure (or time ratio, see `note`)
  std::string note;                          // anything a reader needs (e.g. "ratio = ref_time/time")
};

// Collects records and writes them as a JSON document with a header describing the run
// (GPU name, SM count, clocks, driver, runtime, compiler, git commit, date, command line).
class Report {
 public:
  // Element type written into every record ("dtype").
  void set_dtype(std::string t) { dtype_ = std::move(t); }
  explicit Report(std::string suite) : suite_(std::move(suite)) {}
  void add(Record r) { if (r.suite.empty()) r.suite = suite_; records_.push_back(std::move(r)); }
  const std::vector<Record>& records() const { return records_; }
  // Writes JSON to `path`; returns false (and prints why) on failure.
  bool write_json(const std::string& path, const std::string& command_line) const;

 private:
  std::string dtype_;
  std::string suite_;
  std::vector<Record> records_;
};

// Times `launch` (which enqueues work on `stream`) with CUDA events: `warmup` untimed calls,
// then `repeats` timed calls, each timed individually; returns the median in milliseconds.
// `before_each` (optional) runs untimed before every call (e.g. to rotate buffers / flush L2).
double time_median_ms(const std::function<void(cudaStream_t)>& launch, cudaStream_t stream,
                      int warmup, int repeats,
                      const std::function<void(cudaStream_t)>& before_each = {});

// The same for several launches timed in turn (a, b, c, a, b, c, ...), so that clock and temperature
// drift over a long run affect them alike; returns one median per launch.
std::vector<double> time_medians_interleaved_ms(const std::vector<std::function<void(cudaStream_t)>>& launches,
                                                cudaStream_t stream, int warmup, int repeats,
                                                const std::function<void(cudaStream_t)>& before_each = {});

// Reads a scratch buffer of 4x the L2 size so that the next kernel starts with a cold L2.  It
// reads rather than writes: a writing flush leaves dirty lines whose write-back the next timed
// kernel would pay for (about 17 us on an H100).
void flush_l2(cudaStream_t stream);

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
struct SuiteRegistrar {
  explicit SuiteRegistrar(Suite s) { suites().push_back(std::move(s)); }
};

}  // namespace tessera::bench

#define TESSERA_BENCH_CAT2(a, b) a##b
#define TESSERA_BENCH_CAT(a, b) TESSERA_BENCH_CAT2(a, b)
// TESSERA_BENCH_SUITE("copy", "summary", fn)   with fn: int(const tessera::bench::BenchOptions&)
#define TESSERA_BENCH_SUITE(name, summary, fn) \
  static ::tessera::bench::SuiteRegistrar TESSERA_BENCH_CAT(tessera_suite_, __LINE__){::tessera::bench::Suite{name, summary, fn}}
