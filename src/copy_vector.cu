// src/copy_vector.cu -- the auto-vectorizing straight copy: the vector width comes from
// max_common_vector of the source and destination byte layouts and from the pointers' alignment.
#include <string>  // std::string

#include "tessera/kernel/copy/copy_2d.hpp"  // copy_vector_kernel
#include "tessera/kernel/copy/launch.hpp"   // NormalCopy, ByteRows, Launcher
#include "tessera/layout.hpp"               // make_layout, max_common_vector

namespace tessera::kernel {

ByteRows byte_rows(const NormalCopy& p) {
  ByteRows r;
  const int64_t e = p.elem_bytes;
  r.m = p.m;
  r.n = p.n * e;
  r.lds = p.lds * e;
  r.ldd = p.ldd * e;
  // The two tensors as layouts over bytes, contiguous mode first: (N*E, M):(1, lds*E) and
  // (N*E, M):(1, ldd*E).  The common vector is the run of bytes, in row-major element order, that is
  // contiguous in both; when both are dense it is the whole matrix (coalesce merges the modes).
  const Layout src_bytes = make_layout(make_tuple(Int(r.n), Int(r.m)), make_tuple(Int(1), Int(r.lds)));
  const Layout dst_bytes = make_layout(make_tuple(Int(r.n), Int(r.m)), make_tuple(Int(1), Int(r.ldd)));
  r.common = max_common_vector(src_bytes, dst_bytes);
  if (r.common >= r.m * r.n) {  // both contiguous: one row of m*n bytes
    r.flattened = r.m > 1;
    r.n = r.m * r.n;
    r.m = 1;
    r.lds = r.ldd = r.n;
  }
  const auto src = reinterpret_cast<uintptr_t>(p.src), dst = reinterpret_cast<uintptr_t>(p.dst);
  int v = r.m > 1 ? pow2_alignment({src, dst, static_cast<uint64_t>(r.lds), static_cast<uint64_t>(r.ldd)})
                  : pow2_alignment({src, dst});
  while (v > 1 && v > r.common) v /= 2;  // never wider than the contiguous run both tensors share
  r.vector = v;
  return r;
}

namespace {

template <int kVec, int kUnroll, bool kRows1, bool kHints>
std::string vector_launch(const NormalCopy& p, const ByteRows& b, const CopyTuning& t, Launcher* launch,
                          std::string* description) {
  using Cfg = VectorCopyConfig<kVec, kUnroll, kRows1, kHints>;
  Copy2dArgs<uint8_t> a{static_cast<const uint8_t*>(p.src), b.lds, static_cast<uint8_t*>(p.dst), b.ldd, b.m, b.n, 0, 0};
  a.tiles_n = (b.n + Cfg::kTileN - 1) / Cfg::kTileN;
  a.num_tiles = ((b.m + Cfg::kTileM - 1) / Cfg::kTileM) * a.tiles_n;
  void (*k)(Copy2dArgs<uint8_t>) = &copy_vector_kernel<kVec, kUnroll, kRows1, kHints>;
  // NOTES: by default the vector kernel launches one CTA per tile rather than a persistent grid.
  // Measured on the H100 (docs/PERF.md, bench/results/copy_large.json): one CTA per tile reaches
  // 99.1% / 99.9% / 99.6% of cudaMemcpy D2D at 256 MiB / 1 GiB / 4 GiB, the persistent grid
  // 93.6-94.0% (its fewer, longer-lived CTAs keep less independent work in flight per SM).
  const int requested = t.ctas_per_sm == 0 ? -1 : t.ctas_per_sm;
  int64_t grid = persistent_grid(reinterpret_cast<const void*>(k), Cfg::kThreads, 0, a.num_tiles, requested);
  if constexpr (kRows1) balance_ranges(b.n, t, &grid, &a.chunk);
  *launch = [a, grid, k](cudaStream_t s) {
    k<<<static_cast<unsigned>(grid), Cfg::kThreads, 0, s>>>(a);
    check_launch("copy_vector_kernel");
  };
  *description = "vector " + std::to_string(kVec) + "B x" + std::to_string(kUnroll) + (kHints ? " nc/cs" : "") +
                 (b.flattened ? ", flattened" : "") + ", " + std::to_string(b.m) + " x " + std::to_string(b.n) +
                 " bytes, " + std::to_string(Cfg::kTileM) + "x" + std::to_string(Cfg::kTileN) + "-byte tiles, " +
                 (a.chunk ? "balanced ranges of " + std::to_string(a.chunk) + " bytes, " : std::string()) + "grid " +
                 std::to_string(grid);
  return "";
}

template <int kVec, int kUnroll>
std::string vector_launch_rows(const NormalCopy& p, const ByteRows& b, bool hints, const CopyTuning& t,
                               Launcher* launch, std::string* description) {
  if constexpr (kVec >= 4) {
    if (hints)
      return b.m == 1 ? vector_launch<kVec, kUnroll, true, true>(p, b, t, launch, description)
                      : vector_launch<kVec, kUnroll, false, true>(p, b, t, launch, description);
  }
  return b.m == 1 ? vector_launch<kVec, kUnroll, true, false>(p, b, t, launch, description)
                  : vector_launch<kVec, kUnroll, false, false>(p, b, t, launch, description);
}

}  // namespace

std::string make_vector_launch(const NormalCopy& p, const CopyTuning& t, Launcher* launch, std::string* description) {
  if (p.transposed)
    return "vector needs src and dst of the same majorness; a transposing copy must stage through shared memory "
           "(use cp_async or swizzled)";
  const ByteRows b = byte_rows(p);
  const bool hints = t.hints != 0;
  const int unroll = t.unroll ? t.unroll : 4;
  switch (b.vector) {
    case 16:
      switch (unroll) {
        case 1: return vector_launch_rows<16, 1>(p, b, hints, t, launch, description);
        case 2: return vector_launch_rows<16, 2>(p, b, hints, t, launch, description);
        case 8: return vector_launch_rows<16, 8>(p, b, hints, t, launch, description);
        default: return vector_launch_rows<16, 4>(p, b, hints, t, launch, description);
      }
    case 8: return vector_launch_rows<8, 4>(p, b, hints, t, launch, description);
    case 4: return vector_launch_rows<4, 4>(p, b, hints, t, launch, description);
    case 2: return vector_launch_rows<2, 4>(p, b, hints, t, launch, description);
    default: return vector_launch_rows<1, 4>(p, b, hints, t, launch, description);
  }
}

}  // namespace tessera::kernel
