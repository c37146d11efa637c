// src/copy_smem.cu -- instantiations of copy_smem_kernel for straight copies (bytes through shared
// memory by cp.async, plain or swizzled layout), and the dispatch to the transposing ones.
#include <string>  // std::string

#include "tessera/kernel/copy/copy_2d.hpp"  // copy_smem_kernel
#include "tessera/kernel/copy/launch.hpp"   // NormalCopy, ByteRows, Launcher
#include "tessera/kernel/copy/smem_model.hpp"  // tile_cost

namespace tessera::kernel {
namespace {

template <int kVec, bool kRows1, bool kSwizzled, int kStages>
std::string smem_launch(const NormalCopy& p, const ByteRows& b, const CopyTuning& t, Launcher* launch,
                        std::string* description) {
  using Cfg = SmemCopyConfig<uint8_t, false, kVec, kRows1>;
  Copy2dArgs<uint8_t> a{static_cast<const uint8_t*>(p.src), b.lds, static_cast<uint8_t*>(p.dst), b.ldd, b.m, b.n, 0, 0};
  a.tiles_n = (b.n + Cfg::kTileN - 1) / Cfg::kTileN;
  a.num_tiles = ((b.m + Cfg::kTileM - 1) / Cfg::kTileM) * a.tiles_n;
  void (*k)(Copy2dArgs<uint8_t>) = &copy_smem_kernel<uint8_t, false, kVec, kRows1, kSwizzled, kStages, true>;
  const size_t smem = static_cast<size_t>(kStages) * Cfg::kTileBytes;
  if (static_cast<int>(smem) > current_device_facts().smem_optin)
    return "needs " + std::to_string(smem) + " bytes of shared memory per block, the device allows " +
           std::to_string(current_device_facts().smem_optin);
  if (cudaFuncSetAttribute(reinterpret_cast<const void*>(k), cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(smem)) != cudaSuccess) {
    (void)cudaGetLastError();
    return "cudaFuncSetAttribute(MaxDynamicSharedMemorySize) failed";
  }
  int64_t grid = persistent_grid(reinterpret_cast<const void*>(k), Cfg::kThreads, smem, a.num_tiles, t.ctas_per_sm);
  if constexpr (kRows1) balance_ranges(b.n, t, &grid, &a.chunk);
  *launch = [a, grid, k, smem](cudaStream_t s) {
    k<<<static_cast<unsigned>(grid), Cfg::kThreads, smem, s>>>(a);
    check_launch("copy_smem_kernel");
  };
  *description = std::string(kSwizzled ? "swizzled" : "cp_async") + " " + std::to_string(kVec) + "B, " +
                 std::to_string(kStages) + " stages" + (b.flattened ? ", flattened" : "") + ", " + std::to_string(b.m) +
                 " x " + std::to_string(b.n) + " bytes, " + std::to_string(Cfg::kTileM) + "x" +
                 std::to_string(Cfg::kTileN) + "-byte tiles, " +
                 (a.chunk ? "balanced ranges of " + std::to_string(a.chunk) + " bytes, " : std::string()) + "grid " + std::to_string(grid);
  return "";
}

template <int kVec, bool kSwizzled, int kStages>
std::string smem_launch_rows(const NormalCopy& p, const ByteRows& b, const CopyTuning& t, Launcher* launch,
                             std::string* description) {
  return b.m == 1 ? smem_launch<kVec, true, kSwizzled, kStages>(p, b, t, launch, description)
                  : smem_launch<kVec, false, kSwizzled, kStages>(p, b, t, launch, description);
}

template <bool kSwizzled>
std::string smem_launch_straight(const NormalCopy& p, const CopyTuning& tuning, Launcher* launch,
                                 std::string* description) {
  const CopyTuning t = straight_grid_defaults(tuning, p);
  const ByteRows b = byte_rows(p);
  if (b.vector < 4)
    return "cp.async moves 4, 8 or 16 bytes: src, dst and both row pitches (ld*elem_bytes) must be multiples of 4 "
           "bytes (widest common alignment here: " +
           std::to_string(b.vector) + " bytes)";
  const int stages = t.stages ? t.stages : 3;
  if (b.vector == 16) {
    switch (stages) {
      case 2: return smem_launch_rows<16, kSwizzled, 2>(p, b, t, launch, description);
      case 4: return smem_launch_rows<16, kSwizzled, 4>(p, b, t, launch, description);
      default: return smem_launch_rows<16, kSwizzled, 3>(p, b, t, launch, description);
    }
  }
  if (b.vector == 8) return smem_launch_rows<8, kSwizzled, 3>(p, b, t, launch, description);
  return smem_launch_rows<4, kSwizzled, 3>(p, b, t, launch, description);
}

template <int kVec, bool kRows1, bool kSwizzled>
std::vector<SmemTraffic> smem_predict(const ByteRows& b) {
  using Cfg = SmemCopyConfig<uint8_t, false, kVec, kRows1>;
  const int64_t tiles = ((b.m + Cfg::kTileM - 1) / Cfg::kTileM) * ((b.n + Cfg::kTileN - 1) / Cfg::kTileN);
  std::vector<uint8_t> tile(Cfg::kTileBytes);
  const auto view = make_smem_view<Cfg, uint8_t, kSwizzled>(tile.data());  // (TILE_M,TILE_N)
  const TileCost g2s = tile_cost<typename Cfg::G2S, Cfg::kRepM, Cfg::kRepN>(view);
  const TileCost s2r = tile_cost<typename Cfg::S2R, Cfg::kReadRepM, Cfg::kReadRepN>(view);
  return {SmemTraffic{"cp.async " + std::to_string(kVec) + "B global->shared", false, g2s.instructions * tiles,
                      g2s.wavefronts * tiles, g2s.ideal * tiles, g2s.max_ways},
          SmemTraffic{"ld.shared " + std::to_string(kVec) + "B read-out", true, s2r.instructions * tiles,
                      s2r.wavefronts * tiles, s2r.ideal * tiles, s2r.max_ways}};
}

template <bool kSwizzled>
std::vector<SmemTraffic> smem_predict_v(const ByteRows& b) {
  if (b.vector < 4) return {};
  if (b.m == 1) {
    if (b.vector == 16) return smem_predict<16, true, kSwizzled>(b);
    if (b.vector == 8) return smem_predict<8, true, kSwizzled>(b);
    return smem_predict<4, true, kSwizzled>(b);
  }
  if (b.vector == 16) return smem_predict<16, false, kSwizzled>(b);
  if (b.vector == 8) return smem_predict<8, false, kSwizzled>(b);
  return smem_predict<4, false, kSwizzled>(b);
}

}  // namespace

std::vector<SmemTraffic> predict_smem_straight(const NormalCopy& p, bool swizzled) {
  const ByteRows b = byte_rows(p);
  return swizzled ? smem_predict_v<true>(b) : smem_predict_v<false>(b);
}

std::string make_smem_launch(const NormalCopy& p, bool swizzled, const CopyTuning& t, Launcher* launch,
                             std::string* description) {
  if (current_device_facts().cc < 80) return "cp.async needs sm_80 or newer";
  if (p.transposed) return make_smem_transposed_launch(p, swizzled, t, launch, description);
  return swizzled ? smem_launch_straight<true>(p, t, launch, description)
                  : smem_launch_straight<false>(p, t, launch, description);
}

}  // namespace tessera::kernel
