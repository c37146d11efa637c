// src/gemm_sm90_f16.cu -- instantiation unit: the Hopper (sm_90a) tensor-core GEMM in f16, operand majorness (K, K),
// (K, N) and (M, N), tiles 128x64, 128x128 and 128x256, and the decode tiles 128x16, 64x16 and 64x64, (K, K) only (12
// kernels; bf16's are src/gemm_sm90.cu).  Built for every target architecture; the kernels have code only for sm_90a.
#include "gemm_kernels.hpp"    // the getters this unit defines
#include "gemm_sm90_info.hpp"  // sm90_pick, sm90_pick_kk

namespace tessera::gemm_core {

KernelInfo sm90_f16_wgmma128x16(Combo c) { return sm90_pick_kk<gemm_sm80::ElemF16, 16>(c); }
KernelInfo sm90_f16_wgmma64x16(Combo c) { return sm90_pick_kk<gemm_sm80::ElemF16, 16, 64>(c); }
KernelInfo sm90_f16_wgmma64x64(Combo c) { return sm90_pick_kk<gemm_sm80::ElemF16, 64, 64>(c); }
KernelInfo sm90_f16_wgmma128x64(Combo c) { return sm90_pick<gemm_sm80::ElemF16, 64>(c); }
KernelInfo sm90_f16_wgmma128x128(Combo c) { return sm90_pick<gemm_sm80::ElemF16, 128>(c); }
KernelInfo sm90_f16_wgmma128x256(Combo c) { return sm90_pick<gemm_sm80::ElemF16, 256>(c); }

}  // namespace tessera::gemm_core
