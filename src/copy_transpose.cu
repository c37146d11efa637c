// src/copy_transpose.cu -- instantiations of copy_smem_kernel for transposing copies (column-major
// source, row-major destination) with a plain or swizzled shared layout, element sizes 1/2/4/8.
#include <string>  // std::string

#include "tessera/kernel/copy/copy_2d.hpp"  // copy_smem_kernel
#include "tessera/kernel/copy/launch.hpp"   // NormalCopy, Launcher
#include "tessera/kernel/copy/smem_model.hpp"  // tile_cost

namespace tessera::kernel {
namespace {

constexpr int kTransposeStages = 3;

template <class T, int kVec, bool kSwizzled, bool kWord>
std::string transpose_launch(const NormalCopy& p, const CopyTuning& t, Launcher* launch, std::string* description) {
  using Cfg = SmemCopyConfig<T, true, kVec, false>;
  Copy2dArgs<T> a{static_cast<const T*>(p.src), p.lds, static_cast<T*>(p.dst), p.ldd, p.m, p.n, 0, 0};
  a.tiles_n = (p.n + Cfg::kTileN - 1) / Cfg::kTileN;
  a.num_tiles = ((p.m + Cfg::kTileM - 1) / Cfg::kTileM) * a.tiles_n;
  void (*k)(Copy2dArgs<T>) = &copy_smem_kernel<T, true, kVec, false, kSwizzled, kTransposeStages, kWord>;
  const size_t smem = static_cast<size_t>(kTransposeStages) * Cfg::kTileBytes;
  if (cudaFuncSetAttribute(reinterpret_cast<const void*>(k), cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(smem)) != cudaSuccess) {
    (void)cudaGetLastError();
    return "cudaFuncSetAttribute(MaxDynamicSharedMemorySize) failed";
  }
  const int64_t grid = persistent_grid(reinterpret_cast<const void*>(k), Cfg::kThreads, smem, a.num_tiles, t.ctas_per_sm);
  *launch = [a, grid, k, smem](cudaStream_t s) {
    k<<<static_cast<unsigned>(grid), Cfg::kThreads, smem, s>>>(a);
    check_launch("copy_smem_kernel (transposing)");
  };
  *description = std::string(kSwizzled ? "swizzled" : "cp_async") + " transposing " + std::to_string(sizeof(T)) +
                 "B elements, cp.async " + std::to_string(kVec) + "B, " + (kWord ? "word" : "element") + " stores, " +
                 std::to_string(Cfg::kTileM) + "x" + std::to_string(Cfg::kTileN) + " tiles, " +
                 std::to_string(kTransposeStages) + " stages, grid " + std::to_string(grid);
  return "";
}

template <class T, bool kSwizzled>
std::string transpose_launch_t(const NormalCopy& p, const CopyTuning& t, Launcher* launch, std::string* description) {
  constexpr int kE = sizeof(T);
  const auto src = reinterpret_cast<uintptr_t>(p.src), dst = reinterpret_cast<uintptr_t>(p.dst);
  const int vsrc = pow2_alignment({src, static_cast<uint64_t>(p.lds) * kE});
  if (vsrc < 4)
    return "cp.async moves 4, 8 or 16 bytes: the source and its column pitch (ld_src*elem_bytes) must be multiples "
           "of 4 bytes (here: " +
           std::to_string(vsrc) + ")";
  // 1- and 2-byte elements are stored as 8-byte words of consecutive columns (SmemCopyConfig::kWord).
  const bool word = kE >= 4 || pow2_alignment({dst, static_cast<uint64_t>(p.ldd) * kE}) >= 8;
  if constexpr (kE == 8) {
    if (vsrc >= 16) return transpose_launch<T, 16, kSwizzled, true>(p, t, launch, description);
    return transpose_launch<T, 8, kSwizzled, true>(p, t, launch, description);
  } else if constexpr (kE == 4) {
    if (vsrc >= 16) return transpose_launch<T, 16, kSwizzled, true>(p, t, launch, description);
    return transpose_launch<T, 4, kSwizzled, true>(p, t, launch, description);
  } else {
    if (vsrc >= 16)
      return word ? transpose_launch<T, 16, kSwizzled, true>(p, t, launch, description)
                  : transpose_launch<T, 16, kSwizzled, false>(p, t, launch, description);
    return word ? transpose_launch<T, 4, kSwizzled, true>(p, t, launch, description)
                : transpose_launch<T, 4, kSwizzled, false>(p, t, launch, description);
  }
}

// Predicted shared-memory traffic of transpose_launch<T, kVec, kSwizzled, *> over the whole problem.
template <class T, int kVec, bool kSwizzled>
std::vector<SmemTraffic> transpose_predict(const NormalCopy& p) {
  using Cfg = SmemCopyConfig<T, true, kVec, false>;
  const int64_t tiles = ((p.m + Cfg::kTileM - 1) / Cfg::kTileM) * ((p.n + Cfg::kTileN - 1) / Cfg::kTileN);
  std::vector<T> tile(Cfg::kTileM * Cfg::kTileN);
  const auto view = make_smem_view<Cfg, T, kSwizzled>(tile.data());  // (TILE_M,TILE_N)
  const TileCost g2s = tile_cost<typename Cfg::G2S, Cfg::kRepM, Cfg::kRepN>(view);
  const TileCost s2r = tile_cost<typename Cfg::S2R, Cfg::kReadRepM, Cfg::kReadRepN>(view);
  return {SmemTraffic{"cp.async " + std::to_string(kVec) + "B global->shared", false, g2s.instructions * tiles,
                      g2s.wavefronts * tiles, g2s.ideal * tiles, g2s.max_ways},
          SmemTraffic{"ld.shared " + std::to_string(sizeof(T)) + "B read-out (transposing)", true,
                      s2r.instructions * tiles, s2r.wavefronts * tiles, s2r.ideal * tiles, s2r.max_ways}};
}

template <class T, bool kSwizzled>
std::vector<SmemTraffic> transpose_predict_t(const NormalCopy& p) {
  constexpr int kE = sizeof(T);
  const int vsrc = pow2_alignment({reinterpret_cast<uintptr_t>(p.src), static_cast<uint64_t>(p.lds) * kE});
  if (vsrc < 4) return {};
  if constexpr (kE == 8) {
    return vsrc >= 16 ? transpose_predict<T, 16, kSwizzled>(p) : transpose_predict<T, 8, kSwizzled>(p);
  } else {
    return vsrc >= 16 ? transpose_predict<T, 16, kSwizzled>(p) : transpose_predict<T, 4, kSwizzled>(p);
  }
}

template <bool kSwizzled>
std::vector<SmemTraffic> transpose_predict_dispatch(const NormalCopy& p) {
  switch (p.elem_bytes) {
    case 1: return transpose_predict_t<uint8_t, kSwizzled>(p);
    case 2: return transpose_predict_t<uint16_t, kSwizzled>(p);
    case 4: return transpose_predict_t<uint32_t, kSwizzled>(p);
    default: return transpose_predict_t<uint64_t, kSwizzled>(p);
  }
}

template <bool kSwizzled>
std::string transpose_dispatch(const NormalCopy& p, const CopyTuning& t, Launcher* launch, std::string* description) {
  switch (p.elem_bytes) {
    case 1: return transpose_launch_t<uint8_t, kSwizzled>(p, t, launch, description);
    case 2: return transpose_launch_t<uint16_t, kSwizzled>(p, t, launch, description);
    case 4: return transpose_launch_t<uint32_t, kSwizzled>(p, t, launch, description);
    default: return transpose_launch_t<uint64_t, kSwizzled>(p, t, launch, description);
  }
}

}  // namespace

std::vector<SmemTraffic> predict_smem_transposed(const NormalCopy& p, bool swizzled) {
  return swizzled ? transpose_predict_dispatch<true>(p) : transpose_predict_dispatch<false>(p);
}

std::string make_smem_transposed_launch(const NormalCopy& p, bool swizzled, const CopyTuning& t, Launcher* launch,
                                        std::string* description) {
  return swizzled ? transpose_dispatch<true>(p, t, launch, description)
                  : transpose_dispatch<false>(p, t, launch, description);
}

}  // namespace tessera::kernel
