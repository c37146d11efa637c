// src/copy_tma.cu -- the TMA copy (sm_90): tensor maps for source and destination, box choice,
// instantiations of copy_tma_kernel.
#include <cuda.h>  // CUtensorMap

#include <algorithm>  // std::min, std::max
#include <stdexcept>  // std::exception
#include <string>     // std::string

#include "tessera/arch/sm90_tma_desc.hpp"   // make_tma_desc_2d
#include "tessera/kernel/copy/copy_2d.hpp"  // copy_tma_kernel
#include "tessera/kernel/copy/launch.hpp"   // NormalCopy, ByteRows, Launcher

namespace tessera::kernel {
namespace {

template <int kStages>
std::string tma_launch(const NormalCopy& p, const ByteRows& b, int unit, const CopyTuning& t, Launcher* launch,
                       std::string* description) {
  void (*k)(CUtensorMap, CUtensorMap, int, int, uint32_t, Int, Int) = &copy_tma_kernel<kStages>;
  cudaFuncAttributes attr{};
  if (cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(k)) != cudaSuccess || attr.binaryVersion < 90) {
    (void)cudaGetLastError();
    return "this build has no sm_90 code for the TMA kernel (build with TESSERA_CUDA_ARCHITECTURES containing 90a)";
  }
  const int64_t cols = b.n / unit;  // row length in units
  const int64_t ld_units_s = b.m > 1 ? b.lds / unit : (cols + 16 / unit - 1) / (16 / unit) * (16 / unit);
  const int64_t ld_units_d = b.m > 1 ? b.ldd / unit : ld_units_s;
  const int64_t align = 16 / unit;  // box inner extent must be a multiple of 16 bytes
  const int box_cols = static_cast<int>(std::min<int64_t>(256, (cols + align - 1) / align * align));
  const int target = t.box_bytes ? t.box_bytes : 16384;
  int box_rows = std::max(1, std::min(256, target / (box_cols * unit)));
  box_rows = static_cast<int>(std::min<int64_t>(box_rows, b.m));
  const uint32_t box_bytes = static_cast<uint32_t>(box_rows) * box_cols * unit;
  const size_t smem = kStages * ((box_bytes + 127) / 128 * 128) + kStages * sizeof(uint64_t);
  if (static_cast<int>(smem) > current_device_facts().smem_optin)
    return "needs " + std::to_string(smem) + " bytes of shared memory, the device allows " +
           std::to_string(current_device_facts().smem_optin) + " (reduce box_bytes or stages)";
  CUtensorMap src_map, dst_map;
  try {
    src_map = arch::make_tma_desc_2d(p.src, unit, b.m, cols, ld_units_s, box_rows, box_cols);
    dst_map = arch::make_tma_desc_2d(p.dst, unit, b.m, cols, ld_units_d, box_rows, box_cols);
  } catch (const std::exception& e) {
    return e.what();
  }
  if (cudaFuncSetAttribute(reinterpret_cast<const void*>(k), cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(smem)) != cudaSuccess) {
    (void)cudaGetLastError();
    return "cudaFuncSetAttribute(MaxDynamicSharedMemorySize) failed";
  }
  const int64_t tiles_n = (cols + box_cols - 1) / box_cols;
  const int64_t num_tiles = ((b.m + box_rows - 1) / box_rows) * tiles_n;
  const int64_t grid = persistent_grid(reinterpret_cast<const void*>(k), 32, smem, num_tiles, t.ctas_per_sm);
  *launch = [=](cudaStream_t s) {
    k<<<static_cast<unsigned>(grid), 32, smem, s>>>(src_map, dst_map, box_rows, box_cols, box_bytes, tiles_n,
                                                   num_tiles);
    check_launch("copy_tma_kernel");
  };
  *description = "tma " + std::to_string(kStages) + " stages, " + std::to_string(unit) + "B units, box " +
                 std::to_string(box_rows) + "x" + std::to_string(box_cols) + " (" + std::to_string(box_bytes) +
                 " bytes), " + std::to_string(b.m) + " x " + std::to_string(b.n) + " bytes, grid " + std::to_string(grid);
  return "";
}

}  // namespace

std::string make_tma_launch(const NormalCopy& p, const CopyTuning& tuning, Launcher* launch, std::string* description) {
  const CopyTuning t = straight_grid_defaults(tuning, p);
  if (current_device_facts().cc < 90) return "TMA needs an sm_90 (Hopper) device";
  if (p.transposed) return "tma copies boxes without transposing them: src and dst must have the same majorness";
  // Rows of bytes, as given (TMA needs no flattening: a box spans rows).
  ByteRows b;
  b.m = p.m;
  b.n = p.n * p.elem_bytes;
  b.lds = p.lds * p.elem_bytes;
  b.ldd = p.ldd * p.elem_bytes;
  const auto src = reinterpret_cast<uintptr_t>(p.src), dst = reinterpret_cast<uintptr_t>(p.dst);
  if (src % 16 || dst % 16) return "TMA needs 16-byte aligned src and dst";
  if (b.m > 1 && (b.lds % 16 || b.ldd % 16))
    return "TMA needs row pitches (ld*elem_bytes) that are multiples of 16 bytes (got " + std::to_string(b.lds) +
           " and " + std::to_string(b.ldd) + ")";
  // A TMA store clips a box at the tensor's edge only to whole 16-byte groups of the innermost
  // dimension (measured on H100: a 1-byte-wide tensor got 16 bytes written).  So the engine copies the
  // first floor(row bytes / 16) * 16 bytes of every row, and the vector kernel the rest (< 16 bytes).
  const int64_t main_bytes = b.n / 16 * 16;
  if (main_bytes == 0)
    return "TMA stores whole 16-byte groups at a row's end: rows must be at least 16 bytes long (got " +
           std::to_string(b.n) + ")";
  if (b.m >= (int64_t{1} << 31) || main_bytes / 8 >= (int64_t{1} << 31))
    return "TMA coordinates are 32-bit: rows and row length must be < 2^31";
  ByteRows main = b;
  main.n = main_bytes;
  std::string why;
  Launcher tma;
  switch (t.stages ? t.stages : 4) {
    case 2: why = tma_launch<2>(p, main, 8, t, &tma, description); break;
    case 3: why = tma_launch<3>(p, main, 8, t, &tma, description); break;
    default: why = tma_launch<4>(p, main, 8, t, &tma, description); break;
  }
  if (!why.empty()) return why;
  if (main_bytes == b.n) {
    *launch = std::move(tma);
    return "";
  }
  // The ragged right edge: columns [main_bytes/E, n) of every row, by the vector kernel.
  NormalCopy edge = p;
  edge.src = static_cast<const uint8_t*>(p.src) + main_bytes;
  edge.dst = static_cast<uint8_t*>(p.dst) + main_bytes;
  edge.n = (b.n - main_bytes) / p.elem_bytes;
  Launcher tail;
  std::string tail_desc;
  why = make_vector_launch(edge, CopyTuning{}, &tail, &tail_desc);
  if (!why.empty()) return why;
  *launch = [tma, tail](cudaStream_t s) {
    tma(s);
    tail(s);
  };
  *description += "; last " + std::to_string(b.n - main_bytes) + " bytes of each row: " + tail_desc;
  return "";
}

}  // namespace tessera::kernel
