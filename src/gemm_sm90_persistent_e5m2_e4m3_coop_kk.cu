// src/gemm_sm90_persistent_e5m2_e4m3_coop_kk.cu -- instantiation unit: the persistent Hopper GEMM, cooperative 128x256 tiles, FP8
// operands A e5m2 x B e4m3, K-major A and B: the general kernel and the bare-menus one (bf16 D).
// One operand pair a unit: the general kernel carries three copies of its consumer (fast, promoted, promoted with
// block scales) and the bare one two (fast, promoted); two pairs in one unit made it the build's longest by twice.
// Code only for sm_90a.
#include "gemm_sm90_persistent_info.hpp"

namespace tessera::gemm_core {

template KernelInfo persistent_info<gemm_sm90::ElemF8<true, false>, false, false>();

}  // namespace tessera::gemm_core
