// src/gemm_sm90_persistent.hpp -- the persistent Hopper GEMM's KernelInfo per element type and operand order.
// persistent_info is defined in gemm_sm90_persistent_info.hpp and instantiated by one unit per kernel pair
// (src/gemm_sm90_persistent_<type>_coop_<order>.cu: the general kernel and the bare one; FP8, one unit per operand
// pair, src/gemm_sm90_persistent_<A>_<B>_coop_kk.cu), so that the units compile in parallel; the getters of gemm_kernels.hpp (src/gemm_sm90_persistent.cu) see this declaration only.  Not
// installed.
#pragma once

#include "gemm_kernels.hpp"                     // KernelInfo, Combo, the getters
#include "tessera/kernel/gemm_sm80/config.hpp"  // ElemBf16, ElemF16
#include "tessera/kernel/gemm_sm90/elem.hpp"    // ElemF8

namespace tessera::gemm_core {

template <class Elem, bool kBNMajor, bool kAMMajor>
KernelInfo persistent_info();

}  // namespace tessera::gemm_core
