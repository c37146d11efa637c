// include/tessera/host/copy.hpp -- host API of the copy kernels and of the streaming pipeline kernels.
//
//     tessera::Copy2d p;                     // dst(i, j) = src(i, j), 0 <= i < rows, 0 <= j < cols
//     p.src = d_a; p.ld_src = lda; p.src_major = tessera::Major::kRow;
//     p.dst = d_b; p.ld_dst = ldb; p.dst_major = tessera::Major::kCol;   // a transposing copy
//     p.rows = m; p.cols = n; p.elem_bytes = 2;
//     tessera::copy_2d(p);                   // picks a variant; or name one:
//     tessera::CopyPlan plan(p, tessera::CopyVariant::kSwizzled);     // validate + prepare once
//     plan.run(stream);                      // launch (as often as wanted)
//
// Any extents, element sizes 1/2/4/8, row- or column-major on either side (mixed majorness is a
// transposition), leading dimensions >= the contiguous extent.  Bad arguments throw
// std::invalid_argument whose message names the argument and what was expected; a variant that cannot
// run a problem (alignment, architecture, transposition) says why.  All memory must be device memory
// and src must not overlap dst.
//
// Variants (docs/COPY.md):
//   scalar     one element per atom, global -> registers -> global
//   vector     widest legal vector (128-bit when aligned), from max_common_vector of the two layouts
//              and the pointers' alignment; contiguous problems are flattened to one row
//   cp_async   global -> shared by cp.async, kStages-deep prefetch, plain shared layout
//   swizzled   the same with a swizzled shared layout (removes the bank conflicts of transposition)
//   tma        the bulk tensor copy engine, global -> shared -> global (sm_90, straight copies)
#pragma once

#include <cuda_runtime.h>  // cudaStream_t

#include <cstddef>      // size_t
#include <cstdint>      // int64_t, uint64_t
#include <functional>   // std::function
#include <string>       // std::string
#include <vector>       // std::vector

namespace tessera {

enum class Major { kRow, kCol };

enum class CopyVariant { kAuto, kScalar, kVector, kCpAsync, kSwizzled, kTma };

// A 2-D copy problem.  Element (i, j) of a row-major matrix is at base + (i*ld + j)*elem_bytes, of a
// column-major one at base + (i + j*ld)*elem_bytes.
struct Copy2d {
  const void* src = nullptr;
  int64_t ld_src = 0;
  Major src_major = Major::kRow;
  void* dst = nullptr;
  int64_t ld_dst = 0;
  Major dst_major = Major::kRow;
  int64_t rows = 0;
  int64_t cols = 0;
  int elem_bytes = 4;
};

// Optional knobs; 0 means "choose".  Used by the benchmark to compare configurations.
struct CopyTuning {
  int unroll = 0;        // vector: vectors per thread per tile, 1, 2, 4 or 8 (default 4)
  int hints = -1;        // vector: 1 = ld.global.nc.L1::no_allocate + st.global.cs, 0 = plain (default 1)
  int stages = 0;        // cp_async / swizzled / tma: shared buffers, 2..4 (default 3, tma 4; 2 where
                         // the default grid is one CTA per tile)
  int ctas_per_sm = 0;   // persistent grid: CTAs per SM, or -1: one CTA per tile.  Default (0), the
                         // faster choice measured on H100: vector one CTA per tile; straight cp_async,
                         // swizzled and tma one CTA per tile once the copy is larger than L2 (read +
                         // written > 3/4 of it), otherwise as many as fit; transposing copies as many
                         // as fit
  int box_bytes = 0;     // tma: target bytes per box (default 16384)
  int balanced = -1;     // vector / cp_async / swizzled on contiguous (one-row) problems: 1 = each CTA
                         // copies one equal byte range, 0 = CTAs take interleaved tiles (default: measured
                         // faster on H100, see docs/PERF.md)
};

// A validated, prepared copy: run() only launches.
class CopyPlan {
 public:
  CopyPlan(const Copy2d& problem, CopyVariant variant = CopyVariant::kAuto, const CopyTuning& tuning = {});
  // Enqueues the copy on `stream`; throws std::runtime_error if the launch fails.
  void run(cudaStream_t stream = nullptr) const;
  CopyVariant variant() const { return variant_; }
  // What runs, e.g. "vector 16B x4, flattened to 1 x 268435456 bytes, 16 KB tiles, grid 1056".
  const std::string& description() const { return description_; }

 private:
  CopyVariant variant_ = CopyVariant::kAuto;
  std::string description_;
  std::function<void(cudaStream_t)> launch_;
};

// Validates, picks a variant (kAuto) and launches.
void copy_2d(const Copy2d& problem, CopyVariant variant = CopyVariant::kAuto, cudaStream_t stream = nullptr);

// Why `variant` cannot run `problem` on the current device ("" when it can).  Throws
// std::invalid_argument for problems that are invalid for every variant.
std::string copy_unsupported_reason(const Copy2d& problem, CopyVariant variant);

// The variant kAuto picks for `problem` on the current device.
CopyVariant select_copy_variant(const Copy2d& problem);

// Predicted shared-memory traffic of the cp_async / swizzled variants on `problem` (model in
// kernel/copy/smem_model.hpp): one entry per shared-memory access phase of the kernel, totals over
// the whole problem.  Empty for variants that do not use shared memory through registers.
struct SmemTraffic {
  std::string access;          // e.g. "cp.async 16B global->shared", "ld.shared 4B read-out"
  bool is_load = false;        // shared-memory loads (true) or stores (false)
  int64_t instructions = 0;    // warp-level instructions
  int64_t wavefronts = 0;      // predicted
  int64_t ideal_wavefronts = 0;
  int max_ways = 1;            // worst n-way conflict of one instruction
};
std::vector<SmemTraffic> predict_smem_traffic(const Copy2d& problem, CopyVariant variant);

// Checking helpers (device-side, for benchmarks and large tests):
// fills `bytes` bytes with a pseudo-random sequence from `seed` (never the byte 0xA5, the poison the
// tests use), and counts the elements of problem.dst that differ from problem.src.
void fill_random_bytes(void* dst, size_t bytes, uint64_t seed, cudaStream_t stream = nullptr);
int64_t count_copy_mismatches(const Copy2d& problem, cudaStream_t stream = nullptr);

const char* to_string(CopyVariant v);
// "scalar", "vector", "cp_async", "swizzled", "tma", "auto"; throws std::invalid_argument otherwise.
CopyVariant parse_copy_variant(const std::string& name);
std::vector<CopyVariant> all_copy_variants();  // every variant but kAuto

// ---------------------------------------------------------------------------------------------------
// Streaming pipeline: y[i] = f^work(x[i]), f(v) = v*kPipelineA + kPipelineB (one FMA), through shared
// memory in tiles of 2048 floats.  x and y: device memory, 16-byte aligned, not overlapping; any n.
// ---------------------------------------------------------------------------------------------------
enum class PipelineVariant { kSync, kCpAsync, kCudaPipeline };

inline constexpr float kPipelineA = 0.9990234375f;  // 1 - 2^-10, exact in float and double
inline constexpr float kPipelineB = 0.0009765625f;  // 2^-10

struct PipelineRun {
  PipelineVariant variant = PipelineVariant::kCpAsync;
  int stages = 2;        // cp.async / cuda::pipeline: 1..4 (ignored by kSync)
  int ctas_per_sm = 0;   // persistent grid: CTAs per SM (0: as many as fit)
};

void stream_transform(const float* x, float* y, int64_t n, int work, const PipelineRun& run,
                      cudaStream_t stream = nullptr);
const char* to_string(PipelineVariant v);

}  // namespace tessera
