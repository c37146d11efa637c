// include/tessera/kernel/gemm_sm80/instantiate.hpp -- helpers of the instantiation units src/gemm_sm80_*.cu:
// taking a kernel's address instantiates it; its KernelInfo records what the launcher needs.  Include
// from .cu files only.
#pragma once

#include "tessera/kernel/gemm/kernel_info.hpp"       // KernelInfo, Combo
#include "tessera/kernel/gemm_sm80/gemm_kernel.hpp"  // GemmSm80, gemm_sm80_kernel

namespace tessera::gemm_sm80 {

// What the launcher needs of kernel `fn`, whose block is described by K (kThreads, kSmemBytes, kBM, kBN,
// kBK, kStages).
template <class K>
gemm_core::KernelInfo kernel_info_of(const void* fn, int min_blocks) {
  gemm_core::KernelInfo info;
  info.fn = fn;
  info.threads = K::kThreads;
  info.smem_bytes = K::kSmemBytes;
  info.block_m = K::kBM;
  info.block_n = K::kBN;
  info.block_k = K::kBK;
  info.stages = K::kStages;
  info.min_blocks = min_blocks;
  return info;
}

template <class Elem, class Tile, Major kA, Major kB>
gemm_core::KernelInfo make_kernel_info() {
  return kernel_info_of<GemmSm80<Elem, Tile, kA, kB>>(reinterpret_cast<const void*>(&gemm_sm80_kernel<Elem, Tile, kA, kB>),
                                                       Tile::kMinBlocks);
}

// The three majorness combinations of one (element, tile).
template <class Elem, class Tile>
gemm_core::KernelInfo make_kernel_info(gemm_core::Combo c) {
  switch (c) {
    case gemm_core::Combo::kk: return make_kernel_info<Elem, Tile, Major::k, Major::k>();
    case gemm_core::Combo::k_mn: return make_kernel_info<Elem, Tile, Major::k, Major::mn>();
    case gemm_core::Combo::mn_mn: return make_kernel_info<Elem, Tile, Major::mn, Major::mn>();
  }
  return {};
}

// Decode tiles (BLK_M = 16) have no M-major A: (K, K) and (K, N) only.
template <class Elem, class Tile>
gemm_core::KernelInfo make_kernel_info_k_major_a(gemm_core::Combo c) {
  switch (c) {
    case gemm_core::Combo::kk: return make_kernel_info<Elem, Tile, Major::k, Major::k>();
    case gemm_core::Combo::k_mn: return make_kernel_info<Elem, Tile, Major::k, Major::mn>();
    case gemm_core::Combo::mn_mn: return {};
  }
  return {};
}

}  // namespace tessera::gemm_sm80
