// tools/scorecard.hpp -- the scorecard of the main job: one line per kernel family with its
// headline figure, the reference library's figure measured in the same run, their ratio, the
// project's target for that ratio and whether it is met.
//
// The lines are computed from benchmark records (bench_record.hpp), so the same code scores the
// main job's run on a GPU (`tessera main`) and results saved earlier (`tessera scorecard FILES`).
// Host code only: it is tested without a GPU (tests/tools/scorecard_test.cpp).
//
// Columns: kernel family | how its records are combined (best of N, geomean of N, worst of N) |
// Tessera's figure | the reference and its figure | ratio (above 1 is better) | target | verdict.
#pragma once

#include <cstddef>  // size_t
#include <string>   // std::string
#include <vector>   // std::vector

#include "bench_record.hpp"  // Record

namespace tessera::scorecard {

using bench::Record;

enum class Verdict { met, missed, no_target, not_run };
// "met", "MISSED", "-" (no target stated), "not run" (no records for the family).
const char* to_string(Verdict v);

struct Line {
  std::string family;          // "copy, >= 256 MiB"
  std::string measured;        // how its records are combined: "best of 10", "geomean of 5", "worst of 2", "1 case"
  std::string detail;          // the record that decided, e.g. "tma at 1 GiB", "worst 0.93 at 4096x4096x4096"
  double figure = 0;           // Tessera's figure (combined as `measured` says)
  std::string unit;            // of figure and reference_figure
  std::string reference;       // short name of the reference, e.g. "cuBLAS"
  std::string reference_full;  // the reference as the records name it, e.g. "cublasGemmEx"
  double reference_figure = 0;
  double ratio = 0;            // figure against the reference: above 1 is better on every line
  std::string target;          // e.g. ">= 0.97", ">= 1.00, each >= 0.97"; "" = the project states none
  Verdict verdict = Verdict::not_run;
  int records = 0;             // how many records the line combines
};

// The scorecard of `records` (one suite's or many, from one run or several files): one line per
// kernel family, always the same families in the same order; a family without records is "not run".
std::vector<Line> score(const std::vector<Record>& records);

// The scorecard as a table for a terminal: a header and one row per line.
std::string format_table(const std::vector<Line>& lines);

// A figure with three or four significant digits: 3012.4 -> "3012", 711.23 -> "711.2",
// 38.61 -> "38.6", 1.234 -> "1.23", 0.0043364 -> "0.00434".
std::string format_figure(double v);

// Seconds as "45 s", "2 min 05 s", "1 h 02 min".
std::string format_duration(double seconds);

// The time left in a run of steps whose shares of the whole are known roughly (weights), from the
// time spent so far: the pace measured on the part that is done is assumed for the rest.
class Eta {
 public:
  explicit Eta(std::vector<double> weights);
  // Step `step` (0-based) is running and `fraction` of it is done (clamped to [0, 1]).
  void at(size_t step, double fraction);
  // The part of the whole run that is done, in [0, 1].
  double done() const;
  // Seconds left after `elapsed` seconds; negative while nothing is done (no pace measured yet).
  double seconds_left(double elapsed) const;

 private:
  std::vector<double> weights_;
  size_t step_ = 0;
  double fraction_ = 0;
};

// One step of a scorecard run: a suite (or the roofline) run with its command line, or a file read.
struct Step {
  std::string name;     // "copy", "gemm", ... or the file's suite
  std::string command;  // the equivalent `tessera ...` command line
  std::string file;     // the file it was read from ("" for a step run now)
  double seconds = -1;  // wall time (-1: not timed)
  int status = 0;       // exit status of the step (0 = it ran and verified)
};

// The scorecard document (JSON): `header` (members without the braces, starting with
// "\"suite\": \"scorecard\"") then "scorecard" (the lines), "steps", "records" (every record, in the
// bench record format) and, when `roofline_json` is not empty, "roofline" (that document verbatim).
// `date` / `commit` stand in for records that carry none.
std::string document_json(const std::string& header, const std::vector<Line>& lines, const std::vector<Step>& steps,
                          const std::vector<Record>& records, const std::string& roofline_json, const std::string& date,
                          const std::string& commit);

// The path of `file` in the tools/ folder of the source tree this was built from (where
// scorecard_report.py and roofline_plot.py lie); "tools/<file>" (relative) when that tree is gone.
std::string tools_script(const std::string& file);

// Runs `python script args...` (each word quoted for the shell) after flushing stdout; returns
// its exit status (127 when it could not be started).
int run_script(const std::string& python, const std::string& script, const std::vector<std::string>& args);

// Runs `python script scorecard_json out_dir` (tools/scorecard_report.py: Markdown and plots); the
// script prints the paths it wrote.  Returns its exit status.
int write_report(const std::string& python, const std::string& script, const std::string& scorecard_json,
                 const std::string& out_dir);

}  // namespace tessera::scorecard
