// src/copy_scalar.cu -- instantiations of copy_scalar_kernel (one element per atom), element sizes
// 1/2/4/8, straight and transposing.
#include <string>  // std::string

#include "tessera/kernel/copy/copy_2d.hpp"  // copy_scalar_kernel
#include "tessera/kernel/copy/launch.hpp"   // NormalCopy, Launcher

namespace tessera::kernel {
namespace {

template <class T, bool kTransposed>
std::string scalar_launch(const NormalCopy& p, const CopyTuning& t, Launcher* launch, std::string* description) {
  using Cfg = ScalarCopyConfig<T, kTransposed>;
  Copy2dArgs<T> a{static_cast<const T*>(p.src), p.lds, static_cast<T*>(p.dst), p.ldd, p.m, p.n, 0, 0};
  a.tiles_n = (p.n + Cfg::kTileN - 1) / Cfg::kTileN;
  a.num_tiles = ((p.m + Cfg::kTileM - 1) / Cfg::kTileM) * a.tiles_n;
  void (*k)(Copy2dArgs<T>) = &copy_scalar_kernel<T, kTransposed>;
  const int64_t grid = persistent_grid(reinterpret_cast<const void*>(k), Cfg::kThreads, 0, a.num_tiles, t.ctas_per_sm);
  *launch = [a, grid, k](cudaStream_t s) {
    k<<<static_cast<unsigned>(grid), Cfg::kThreads, 0, s>>>(a);
    check_launch("copy_scalar_kernel");
  };
  *description = std::string("scalar ") + std::to_string(sizeof(T)) + "B elements" +
                 (kTransposed ? ", transposing" : "") + ", 32x32 tiles, grid " + std::to_string(grid);
  return "";
}

}  // namespace

std::string make_scalar_launch(const NormalCopy& p, const CopyTuning& t, Launcher* launch, std::string* description) {
  switch (p.elem_bytes * 2 + (p.transposed ? 1 : 0)) {
    case 2: return scalar_launch<uint8_t, false>(p, t, launch, description);
    case 3: return scalar_launch<uint8_t, true>(p, t, launch, description);
    case 4: return scalar_launch<uint16_t, false>(p, t, launch, description);
    case 5: return scalar_launch<uint16_t, true>(p, t, launch, description);
    case 8: return scalar_launch<uint32_t, false>(p, t, launch, description);
    case 9: return scalar_launch<uint32_t, true>(p, t, launch, description);
    case 16: return scalar_launch<uint64_t, false>(p, t, launch, description);
    case 17: return scalar_launch<uint64_t, true>(p, t, launch, description);
    default: return "unsupported element size";
  }
}

}  // namespace tessera::kernel
