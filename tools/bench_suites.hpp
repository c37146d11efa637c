// tools/bench_suites.hpp -- the names of the benchmark suites, known to both halves of the command:
// the host `tessera` rejects an unknown suite before it looks for `tessera-gpu` (so a build without
// CUDA says "unknown suite" too), and every suite tessera-gpu registers must be listed here
// (TESSERA_BENCH_SUITE checks it at compile time and takes the summary from here).
#pragma once

#include <string>       // std::string
#include <string_view>  // std::string_view

namespace tessera::bench {

struct SuiteName {
  const char* name;
  const char* summary;
};

inline constexpr SuiteName kSuiteNames[] = {
    {"copy", "2-D copy variants vs cudaMemcpy D2D, L2-resident to 4 GiB, plus transposing copies"},
    {"fused", "L2/RMS row norms and elementwise chains (fused vs unfused) vs cudaMemcpy D2D"},
    {"gemm", "bf16 tensor-core GEMM + fused epilogue vs cuBLAS / cuBLASLt (TFLOP/s, ratios)"},
    {"pipeline", "streaming through shared memory: sync vs cp.async 1-4 stages vs cuda::pipeline"},
    {"quantize", "bf16 -> e4m3 / e5m2 / s8 with tensor, row and block scales vs cudaMemcpy D2D"},
};

constexpr bool is_suite_name(std::string_view name) {
  for (const SuiteName& s : kSuiteNames)
    if (name == s.name) return true;
  return false;
}

constexpr const char* suite_summary(std::string_view name) {
  for (const SuiteName& s : kSuiteNames)
    if (name == s.name) return s.summary;
  return "";
}

// "copy fused gemm pipeline quantize all": the words `tessera bench` accepts as a suite.
inline std::string suite_list() {
  std::string s;
  for (const SuiteName& n : kSuiteNames) s += std::string(n.name) + " ";
  return s + "all";
}

}  // namespace tessera::bench
