// tests/fuzz/fuzz_layout.cpp -- libFuzzer target for the layout text form and calculator.
// Input: one batch line "op<TAB>arg1[<TAB>arg2]"; every input must give a result or a
// std::exception with a message -- never a crash, a hang, or undefined behaviour (run with
// ASan + UBSan by scripts/fuzz.sh).
#include <cstddef>  // size_t
#include <cstdint>  // uint8_t
#include <string>   // std::string
#include <vector>   // std::vector

#include "layout_ops.hpp"  // apply_layout_op, show_layout

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 512) return 0;
  std::string line(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string> f = tessera::cli::split_tabs(line);
  try {
    std::vector<std::string> args(f.begin() + 1, f.end());
    if (f[0] == "show")
      (void)tessera::cli::show_layout(args.empty() ? "" : args[0]);
    else if (f[0] != "values")  // values enumerates up to 2^24 elements: too slow per input
      (void)tessera::cli::apply_layout_op(f[0], args);
  } catch (const std::exception& e) {
    if (std::string(e.what()).empty()) __builtin_trap();
  }
  return 0;
}
