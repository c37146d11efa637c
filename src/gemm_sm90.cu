// src/gemm_sm90.cu -- instantiation unit: the Hopper (sm_90a) tensor-core GEMM in bf16, operand majorness (K, K),
// (K, N) and (M, N), tiles 128x64, 128x128 and 128x256, and the decode tiles 128x16, 64x16 and 64x64, (K, K) only (12
// kernels; f16's are src/gemm_sm90_f16.cu, so that the two units compile in parallel).  Built for every target architecture; the kernels
// have code only for sm_90a.  The non-persistent kernels' trace buffer read by scripts/device/trace_gemm.cu is this
// unit's (_np).
#include "gemm_kernels.hpp"                          // the getters this unit defines
#include "gemm_sm90_info.hpp"                         // sm90_pick, sm90_pick_kk
#include "tessera/kernel/gemm_sm90/trace.hpp"        // TESSERA_GEMM_TRACE_ACCESS

namespace tessera::gemm_core {

KernelInfo sm90_bf16_wgmma128x16(Combo c) { return sm90_pick_kk<gemm_sm80::ElemBf16, 16>(c); }
KernelInfo sm90_bf16_wgmma128x64(Combo c) { return sm90_pick<gemm_sm80::ElemBf16, 64>(c); }
KernelInfo sm90_bf16_wgmma128x128(Combo c) { return sm90_pick<gemm_sm80::ElemBf16, 128>(c); }
KernelInfo sm90_bf16_wgmma128x256(Combo c) { return sm90_pick<gemm_sm80::ElemBf16, 256>(c); }
// The 64-row weight tiles (one consumer warpgroup), K-major A and B.
KernelInfo sm90_bf16_wgmma64x16(Combo c) { return sm90_pick_kk<gemm_sm80::ElemBf16, 16, 64>(c); }
KernelInfo sm90_bf16_wgmma64x64(Combo c) { return sm90_pick_kk<gemm_sm80::ElemBf16, 64, 64>(c); }

}  // namespace tessera::gemm_core

TESSERA_GEMM_TRACE_ACCESS(_np)
