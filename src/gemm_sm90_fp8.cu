// src/gemm_sm90_fp8.cu -- instantiation unit: the Hopper (sm_90a) tensor-core GEMM with FP8 operands (GemmSm90 on
// ElemF8: wgmma m64nNk32, K tiles of 128 one-byte elements), the 128 x 128 and 128 x 64 tiles and the 128 x 16 decode
// tile, A and B each e4m3 or e5m2 (12 kernels), K-major A and B only.  Built for every target architecture; the kernels have code
// only for sm_90a.
#include "gemm_kernels.hpp"    // the getters this unit defines
#include "gemm_sm90_info.hpp"  // sm90_pick_kk

namespace tessera::gemm_core {

namespace {
template <bool kAE5M2, bool kBE5M2, int kBN>
KernelInfo sm90_f8(Combo c) {
  return sm90_pick_kk<gemm_sm90::ElemF8<kAE5M2, kBE5M2>, kBN>(c);
}
}  // namespace

KernelInfo sm90_e4m3_e4m3_wgmma128x128(Combo c) { return sm90_f8<false, false, 128>(c); }
KernelInfo sm90_e4m3_e5m2_wgmma128x128(Combo c) { return sm90_f8<false, true, 128>(c); }
KernelInfo sm90_e5m2_e4m3_wgmma128x128(Combo c) { return sm90_f8<true, false, 128>(c); }
KernelInfo sm90_e5m2_e5m2_wgmma128x128(Combo c) { return sm90_f8<true, true, 128>(c); }
KernelInfo sm90_e4m3_e4m3_wgmma128x64(Combo c) { return sm90_f8<false, false, 64>(c); }
KernelInfo sm90_e4m3_e5m2_wgmma128x64(Combo c) { return sm90_f8<false, true, 64>(c); }
KernelInfo sm90_e5m2_e4m3_wgmma128x64(Combo c) { return sm90_f8<true, false, 64>(c); }
KernelInfo sm90_e5m2_e5m2_wgmma128x64(Combo c) { return sm90_f8<true, true, 64>(c); }
KernelInfo sm90_e4m3_e4m3_wgmma128x16(Combo c) { return sm90_f8<false, false, 16>(c); }
KernelInfo sm90_e4m3_e5m2_wgmma128x16(Combo c) { return sm90_f8<false, true, 16>(c); }
KernelInfo sm90_e5m2_e4m3_wgmma128x16(Combo c) { return sm90_f8<true, false, 16>(c); }
KernelInfo sm90_e5m2_e5m2_wgmma128x16(Combo c) { return sm90_f8<true, true, 16>(c); }

}  // namespace tessera::gemm_core
