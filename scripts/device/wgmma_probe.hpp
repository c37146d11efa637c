// scripts/device/wgmma_probe.hpp -- what the device probes wgmma_overlap.cu and smem_contention.cu share: one K tile
// of the cooperative GEMM's tensor-core work on operands resident in shared memory (a warpgroup's 64 x 256 unit, four
// m64n256k16 steps of 16 K, A and B in the 128-byte-swizzled K-major layout the kernel's TMA writes).
#pragma once

#include <cstdint>

#include "tessera/arch/sm90_wgmma.hpp"
#include "tessera/atom/mma_sm90.hpp"
#include "tessera/atom/smem_sm90.hpp"

namespace probe {

using Atom = tessera::atom::WgmmaSm90<256, false, 0, 0>;
constexpr tessera::atom::SmemTileSm90 kTile = tessera::atom::sw128_tile(64, 2);
constexpr uint64_t kDesc = kTile.wgmma_desc_fields(true);

// Issues and commits one K tile: the four steps as one wgmma group on `acc` (A's 64 rows at `a`, B's 256 at `b`).
__device__ __forceinline__ void issue_k_tile(float (&acc)[Atom::kValuesC], const unsigned char* a, const unsigned char* b) {
  tessera::arch::wgmma_fence_operands(acc);
  tessera::arch::wgmma_fence();
#pragma unroll
  for (int ks = 0; ks < 4; ++ks) {
    const uint64_t db = tessera::arch::smem_desc(b + ks * kTile.wgmma_k_offset_bytes(true, 16), kDesc);
    const uint64_t da = tessera::arch::smem_desc(a + ks * kTile.wgmma_k_offset_bytes(true, 16), kDesc);
    Atom::fma(acc, da, db, 1u);
  }
  tessera::arch::wgmma_commit();
}

}  // namespace probe
