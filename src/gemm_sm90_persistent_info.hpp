// src/gemm_sm90_persistent_info.hpp -- the definition of persistent_info (src/gemm_sm90_persistent.hpp), for the
// instantiation units of the persistent Hopper GEMM alone (src/gemm_sm90_persistent_<type>_coop_<order>.cu): each
// instantiates it, and with it the two kernels of one element type and operand order.  Not installed.
#pragma once

#include "gemm_sm90_persistent.hpp"                        // the declaration
#include "tessera/kernel/gemm_sm80/instantiate.hpp"        // kernel_info_of
#include "tessera/kernel/gemm_sm90/persistent_kernel.hpp"  // GemmSm90Persistent, gemm_sm90_persistent_kernel
#include "tessera/kernel/gemm_sm90/trace.hpp"              // TESSERA_GEMM_TRACE_ACCESS

namespace tessera::gemm_core {

template <class Elem, bool kBNMajor, bool kAMMajor>
KernelInfo persistent_info() {
  using K = gemm_sm90::GemmSm90Persistent<Elem, kBNMajor, kAMMajor>;
  KernelInfo info = gemm_sm80::kernel_info_of<K>(
      reinterpret_cast<const void*>(&gemm_sm90::gemm_sm90_persistent_kernel<Elem, kBNMajor, kAMMajor>), 1);
  info.persistent = true;
  info.counters_per_tile = K::kSlices;
  info.stream_k = true;
  info.cluster_m = K::kClusterBlocks;
  info.box_a[0] = K::kBoxA.inner;
  info.box_a[1] = K::kBoxA.outer;
  info.box_b[0] = K::kBoxB.inner;
  info.box_b[1] = K::kBoxB.outer;
  info.tma_store = true;  // the box of D's staging tile (Epilogue::kStageTile)
  info.box_d[0] = K::kBoxD.inner;
  info.box_d[1] = K::kBoxD.outer;
  // The kernel compiled for the bare GEMM and its menus, whose D is of the operands' type (16-bit operands) or bf16
  // (8-bit operands, per-tensor or channel scales: gemm.cu, bare_kernel_menu / bare_kernel_scales).
  info.fn_bare = reinterpret_cast<const void*>(&gemm_sm90::gemm_sm90_persistent_kernel<Elem, kBNMajor, kAMMajor, true>);
  info.bare_menus = true;
  return info;
}

}  // namespace tessera::gemm_core
