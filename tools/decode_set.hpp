// tools/decode_set.hpp -- the decode set D of the GEMM benchmarks: batches M against an LLM's weight shapes (N, K).
// `tessera bench gemm --shapes decode` times it, and the scorecard's decode lines score it (one definition for both).
#pragma once

#include <cstdint>  // int64_t
#include <utility>  // std::pair

namespace tessera::bench {

inline constexpr int64_t kDecodeBatches[] = {1, 16, 64, 128};
inline constexpr std::pair<int64_t, int64_t> kDecodeWeights[] = {{4096, 4096}, {8192, 8192}, {14336, 4096}, {4096, 14336}};

// Whether M x N x K is a shape of D.
constexpr bool in_decode_set(int64_t m, int64_t n, int64_t k) {
  bool batch = false, weights = false;
  for (int64_t b : kDecodeBatches) batch = batch || b == m;
  for (const auto& w : kDecodeWeights) weights = weights || (w.first == n && w.second == k);
  return batch && weights;
}

}  // namespace tessera::bench
