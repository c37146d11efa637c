// tests/fuzz/fuzz_layout.cpp -- libFuzzer target for the layout text form and calculator.
// Input: one batch line "op<TAB>arg1[<TAB>arg2]" of any length; every input must give a result
// or a std::exception with a bounded message -- never a crash, a hang (scripts/fuzz.sh runs with a
// per-input time limit), unbounded output, or undefined behaviour (ASan + UBSan).
#include <cstddef>  // size_t
#include <cstdint>  // uint8_t
#include <string>   // std::string
#include <vector>   // std::vector

#include "layout_ops.hpp"  // apply_layout_op, show_layout, json_string

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string line(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string> f = tessera::cli::split_tabs(line);
  try {
    std::vector<std::string> args(f.begin() + 1, f.end());
    const std::string out =
        f[0] == "show" ? tessera::cli::show_layout(args.empty() ? "" : args[0]) : tessera::cli::apply_layout_op(f[0], args);
    (void)tessera::cli::json_string(out);
  } catch (const std::exception& e) {
    const std::string m = e.what();
    // A message names the problem and quotes a window of the input, not all of it.
    if (m.empty() || m.size() > 4096) __builtin_trap();
    (void)tessera::cli::json_string(m);
  }
  return 0;
}
