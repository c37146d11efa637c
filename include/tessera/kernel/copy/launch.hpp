// include/tessera/kernel/copy/launch.hpp -- the interface between the host API (src/copy.cu) and the
// instantiation units of the copy kernels (src/copy_*.cu).  Not a user header.
#pragma once

#include <cuda_runtime.h>  // cudaStream_t

#include <cstdint>     // int64_t, uintptr_t
#include <functional>  // std::function
#include <initializer_list>  // std::initializer_list
#include <string>      // std::string
#include <vector>      // std::vector

#include "tessera/host/copy.hpp"  // CopyTuning

namespace tessera::kernel {

// A validated problem in normal form: dst is row-major (m, n) with leading dimension ldd; src is
// row-major (m, n) with leading dimension lds, or column-major when `transposed`.  Extents in elements.
struct NormalCopy {
  const void* src = nullptr;
  void* dst = nullptr;
  int64_t m = 0, n = 0;
  int64_t lds = 0, ldd = 0;
  int elem_bytes = 4;
  bool transposed = false;
};

// Facts about the current device, queried once per device.
struct DeviceFacts {
  int device = 0;
  int sm_count = 0;
  int cc = 0;                 // major*10 + minor
  int smem_optin = 0;         // max dynamic shared memory per block after opt-in (bytes)
  int smem_per_sm = 0;        // shared memory per multiprocessor (bytes)
  int l2_bytes = 0;           // L2 cache size (bytes)
};
const DeviceFacts& current_device_facts();

// The default grid of the straight copies through shared memory (cp_async, swizzled) and of TMA: one CTA
// per tile once the copy streams from DRAM (bytes read + written above 3/4 of L2), with 2 stages (one
// tile per CTA uses one), and a persistent grid while the copy is L2-resident.  Measured on the H100
// (docs/PERF.md, "one CTA per tile for every straight variant"): per tile 98.9-99.7% of cudaMemcpy at
// 64 MiB-4 GiB against 93-96% persistent; persistent 99.7-103% at 16 MiB against 91-95% per tile.
// Explicit tuning (ctas_per_sm != 0) is left as it is.
inline CopyTuning straight_grid_defaults(CopyTuning t, const NormalCopy& p) {
  if (t.ctas_per_sm != 0) return t;
  const double bytes = 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * p.elem_bytes;
  if (bytes > 0.75 * current_device_facts().l2_bytes) {
    t.ctas_per_sm = -1;
    if (t.stages == 0) t.stages = 2;
  }
  return t;
}

using Launcher = std::function<void(cudaStream_t)>;

// Largest power of two <= 16 dividing every given value (0 values are ignored).
inline int pow2_alignment(std::initializer_list<uint64_t> values, int cap = 16) {
  int v = cap;
  for (uint64_t x : values)
    while (v > 1 && x % static_cast<uint64_t>(v) != 0) v /= 2;
  return v;
}

// Each returns "" and sets *launch / *description, or returns why the variant cannot run the problem.
std::string make_scalar_launch(const NormalCopy& p, const CopyTuning& t, Launcher* launch, std::string* description);
std::string make_vector_launch(const NormalCopy& p, const CopyTuning& t, Launcher* launch, std::string* description);
std::string make_smem_launch(const NormalCopy& p, bool swizzled, const CopyTuning& t, Launcher* launch,
                             std::string* description);
std::string make_smem_transposed_launch(const NormalCopy& p, bool swizzled, const CopyTuning& t, Launcher* launch,
                                        std::string* description);
std::vector<SmemTraffic> predict_smem_straight(const NormalCopy& p, bool swizzled);
std::vector<SmemTraffic> predict_smem_transposed(const NormalCopy& p, bool swizzled);
std::string make_tma_launch(const NormalCopy& p, const CopyTuning& t, Launcher* launch, std::string* description);

// Bytes of the straight (non-transposing) problem seen as rows of bytes, flattened to one row when both
// matrices are contiguous (max_common_vector of the two byte layouts covers everything), and the widest
// vector (bytes, power of two <= 16) that both layouts and both pointers allow.
struct ByteRows {
  int64_t m = 0, n = 0;      // rows, bytes per row
  int64_t lds = 0, ldd = 0;  // row pitches in bytes
  bool flattened = false;
  int vector = 1;
  int64_t common = 1;        // max_common_vector of the byte layouts
};
ByteRows byte_rows(const NormalCopy& p);

// Persistent grid size: min(tiles, sm_count * ctas_per_sm) where ctas_per_sm = `requested` if > 0, the
// occupancy limit of `kernel` if 0; `requested` == -1 gives one CTA per tile.
int64_t persistent_grid(const void* kernel, int threads, size_t smem_bytes, int64_t tiles, int requested);

// One-row problems with tuning.balanced == 1: equal column ranges per CTA (a multiple of 16 bytes
// each).  Sets *chunk (0: interleaved tiles, the default) and may shrink *grid.
inline void balance_ranges(int64_t n_bytes, const CopyTuning& t, int64_t* grid, int64_t* chunk) {
  *chunk = 0;
  if (t.balanced != 1 || t.ctas_per_sm == -1 || *grid <= 1) return;
  int64_t per = (n_bytes + *grid - 1) / *grid;
  per = (per + 15) / 16 * 16;
  *chunk = per;
  *grid = (n_bytes + per - 1) / per;
}

// Throws std::runtime_error naming `what` when the last launch failed.
void check_launch(const char* what);

}  // namespace tessera::kernel
