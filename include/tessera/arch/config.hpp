// include/tessera/arch/config.hpp -- architecture feature macros, derived once from __CUDA_ARCH__.
//
// Every arch/ header includes this file and tests only these macros:
//   TESSERA_ARCH_SM75  ldmatrix                                  (__CUDA_ARCH__ >= 750)
//   TESSERA_ARCH_SM80  cp.async, mbarrier (arrive / test_wait)   (__CUDA_ARCH__ >= 800)
//   TESSERA_ARCH_SM90  stmatrix, TMA, mbarrier expect_tx, clusters (__CUDA_ARCH__ >= 900)
//   TESSERA_ARCH_SM90A the sm_90a feature set (wgmma, setmaxnreg)   (__CUDA_ARCH_FEAT_SM90_ALL)
// In the host compilation pass none of them is defined; device function bodies are not code-generated
// there, so the "#else" branches below only matter for a device pass that targets an older GPU.
//
// Failing loudly: a wrapper compiled for a GPU that lacks its instruction calls one of the functions
// below, which are declared and never defined.  If such a call survives into the device code (that is, a
// kernel for that target really uses the instruction), ptxas stops with
//   "Unresolved extern function 'tessera_error_<instruction>_requires_sm_XX'",
// naming the instruction and the architecture it needs.  Unused wrappers cost nothing.
#pragma once

#if defined(__CUDA_ARCH__)
#if __CUDA_ARCH__ >= 750
#define TESSERA_ARCH_SM75 1
#endif
#if __CUDA_ARCH__ >= 800
#define TESSERA_ARCH_SM80 1
#endif
#if __CUDA_ARCH__ >= 900
#define TESSERA_ARCH_SM90 1
#endif
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TESSERA_ARCH_SM90A 1
#endif
#endif

#if defined(__CUDACC__)
#define TESSERA_DEVICE_INLINE __device__ __forceinline__
#else
#define TESSERA_DEVICE_INLINE inline
#endif

#if defined(__CUDACC__)
// Declared, never defined (see the header comment).  extern "C" keeps the names readable in ptxas errors.
extern "C" __device__ void tessera_error_ldmatrix_requires_sm_75();
extern "C" __device__ void tessera_error_cp_async_requires_sm_80();
extern "C" __device__ void tessera_error_ld_st_requires_sm_80();
extern "C" __device__ void tessera_error_mbarrier_requires_sm_80();
extern "C" __device__ void tessera_error_mbarrier_tx_requires_sm_90();
extern "C" __device__ void tessera_error_stmatrix_requires_sm_90();
extern "C" __device__ void tessera_error_tma_requires_sm_90();
extern "C" __device__ void tessera_error_wgmma_requires_sm_90a();
#endif
