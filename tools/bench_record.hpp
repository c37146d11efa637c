// tools/bench_record.hpp -- one benchmark measurement (a record) and its JSON form: what every
// `tessera bench` suite writes into bench/results/*.json and what `tessera scorecard` reads back.
// Host code only (no CUDA), so that saved results can be read and scored anywhere.
//
// A record on disk, one line of the "records" array:
//   {"suite": "gemm", "case": "bare", "shape": "4096x4096x4096", "dtype": "bf16", "date": ...,
//    "commit": ..., "kernel": "tessera", "variant": "bare", "size": "M=4096,N=4096,K=4096",
//    "figure": 727.467, "unit": "TFLOP/s", "reference": "cublasGemmEx", "reference_figure": 783.182,
//    "ratio": 0.928862, "note": "...", "target": ">= 0.95"}
// "case" repeats the variant and "shape" the size (as MxNxK where the size is "M=..,N=..,K=..") for
// readers that look records up by case and shape; "target" is present only where the suite states
// one for that record.
#pragma once

#include <string>  // std::string
#include <vector>  // std::vector

namespace tessera::bench {

struct Record {
  std::string suite, kernel, variant, size;  // size: human-readable, e.g. "M=4096,N=4096,K=4096"
  double figure = 0;                         // the kernel's figure (GB/s, TFLOP/s, us ...)
  std::string unit;                          // "GB/s", "TFLOP/s", "us"
  std::string reference;                     // e.g. "cudaMemcpy D2D", "cublasGemmEx", "n/a"
  double reference_figure = 0;               // the reference's figure in the same unit (0 = n/a)
  double ratio = 0;                          // figure / reference_figure (or time ratio, see `note`)
  std::string note;                          // anything a reader needs (e.g. "ratio = ref_time/time")
  std::string dtype{};                       // element type ("bf16"); Report::add fills in the suite's
  std::string target{};                      // the ratio this case must reach, e.g. ">= 0.95" ("" = none)
  std::string date{}, commit{};              // when and from which code (filled in when written)
};

// `s` with '"' and '\' escaped and control characters as spaces (newlines as \n): a JSON string body.
std::string json_escape(const std::string& s);

// A number as the records write it ("%.6g").
std::string json_number(double v);

// "M=4096,N=4096,K=4096" -> "4096x4096x4096" (a record's "shape"); any other size unchanged.
std::string shape_of(const std::string& size);

// The record as one JSON object (the line format above); `date` / `commit` stand in for the
// record's own when those are empty.
std::string record_json(const Record& r, const std::string& date, const std::string& commit);

// A JSON document read back: a suite's results, a roofline, or a scorecard.
struct ResultsFile {
  std::string path, suite, date, command, commit;
  std::string gpu_json;          // the document's "gpu" object as written ("" when absent)
  std::string gpu_name;          // its "name" ("" when absent)
  std::vector<Record> records;   // its bench records (a roofline document has none)
  std::string roofline_json;     // a roofline document as written: the whole file or its "roofline" member
};

// Reads a results file.  Records written before the "target" field existed get their target from
// the note ("...; target >= 0.95").  Throws std::runtime_error naming the file on a read or parse error.
ResultsFile read_results(const std::string& path);

}  // namespace tessera::bench
