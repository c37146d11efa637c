// src/gemm_epilogue.cu -- tessera::gemm_epilogue_inplace: the GEMM epilogue as a kernel of its own,
// X = act(X + bias) [+ residual] in place (the unfused way: one more read and write of X after a GEMM).
// Same formulas and per-vector code as the fused epilogue (tessera/kernel/epilogue/staged_epilogue.hpp).
#include <cuda_runtime.h>  // cudaLaunchKernel

#include <algorithm>  // std::min
#include <cstdint>    // uintptr_t
#include <string>     // std::string

#include "tessera/host/gemm.hpp"                         // GemmArgs, GemmStatus
#include "tessera/kernel/epilogue/staged_epilogue.hpp"   // load_along, finish_vector

namespace tessera {
namespace {

// One thread per V consecutive elements along X's contiguous dimension.
template <class T>
__global__ void __launch_bounds__(256) epilogue_inplace_kernel(const epilogue::Params p) {
  constexpr int V = epilogue::Elem<T>::kVec;
  const bool rm = p.d_row_major;
  const int inner_ext = rm ? p.n : p.m, outer_ext = rm ? p.m : p.n;
  const int64_t vecs = (inner_ext + V - 1) / V;
  const int64_t total = vecs * outer_ext;
  const int bias_dim = epilogue::bias_dim_in_d_order(p);
  for (int64_t idx = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; idx < total;
       idx += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int go = static_cast<int>(idx / vecs);
    const int gi = static_cast<int>(idx - go * vecs) * V;
    const int valid = inner_ext - gi < V ? inner_ext - gi : V;
    float v[V];
    epilogue::load_along<T, V>(v, p.d, p.ldd, true, p.d_vec, go, gi, valid);
    epilogue::finish_vector<T, V, false>(v, p, rm, bias_dim, go, gi, valid);  // (the relative-bound activations)
  }
}

GemmStatus fail(GemmError c, const std::string& m) { return GemmStatus{c, "tessera::gemm_epilogue_inplace: " + m}; }

}  // namespace

GemmStatus gemm_epilogue_inplace(const GemmArgs& args, cudaStream_t stream) {
  // Validate through gemm_validate with stand-in operands: A and B are not used here.
  GemmArgs g = args;
  g.k = 1;
  g.alpha = 1.f;
  g.beta = 0.f;
  g.math = args.d.type == Dtype::f32 ? GemmMath::fp32_exact : GemmMath::tensor_core;
  g.tile = GemmTile::automatic;
  g.split_k = 0;
  g.workspace = nullptr;
  g.workspace_bytes = 0;
  alignas(16) static const unsigned char dummy[16] = {};  // never dereferenced: only validated as a pointer
  const Dtype in = args.d.type == Dtype::f32 ? Dtype::f32 : Dtype::bf16;
  g.a = GemmMatrix{nullptr, in, MatrixOrder::row_major, 0};
  g.b = g.a;
  // a and b must not overlap d in validation: point them at a host object that cannot overlap device memory.
  g.a.data = dummy;
  g.b.data = dummy;
  GemmStatus st = gemm_validate(g);
  if (!st) {
    st.message.replace(0, std::string("tessera::gemm").size(), "tessera::gemm_epilogue_inplace");
    return st;
  }
  epilogue::Params p;
  p.m = static_cast<int>(args.m);
  p.n = static_cast<int>(args.n);
  p.d = args.d.data;
  p.d_type = args.d.type;
  p.d_row_major = args.d.order == MatrixOrder::row_major;
  p.ldd = args.d.ld ? args.d.ld : (p.d_row_major ? args.n : args.m);
  const int ob = dtype_bytes(p.d_type);
  auto vec16 = [](const void* q, int64_t ld, int b) { return reinterpret_cast<uintptr_t>(q) % 16 == 0 && (ld * b) % 16 == 0; };
  p.d_vec = vec16(p.d, p.ldd, ob);
  if (args.residual.data) {
    p.residual = args.residual.data;
    p.r_row_major = args.residual.order == MatrixOrder::row_major;
    p.ldr = args.residual.ld ? args.residual.ld : (p.r_row_major ? args.n : args.m);
    p.r_vec = vec16(p.residual, p.ldr, ob);
  }
  p.bias = args.bias_mode == BiasMode::none ? nullptr : args.bias;
  p.bias_along = args.bias_mode == BiasMode::none         ? epilogue::kBiasNone
                 : args.bias_mode == BiasMode::per_row    ? epilogue::kBiasAlongM
                 : args.bias_mode == BiasMode::per_column ? epilogue::kBiasAlongN
                                                          : epilogue::kBiasScalar;
  p.bias_f32 = args.bias_type == Dtype::f32;
  p.act = args.activation;
  p.act_p0 = args.activation == Activation::leaky_relu ? args.leaky_relu_slope : args.clamp_lo;
  p.act_p1 = args.clamp_hi;

  int dev = 0, sms = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  if (e != cudaSuccess) return fail(GemmError::cuda_error, std::string("device query failed: ") + cudaGetErrorString(e));
  const int V = p.d_type == Dtype::f32 ? 4 : 8;
  const int64_t inner = p.d_row_major ? args.n : args.m, outer = p.d_row_major ? args.m : args.n;
  const int64_t work = (inner + V - 1) / V * outer;
  const int64_t blocks = std::min<int64_t>((work + 255) / 256, static_cast<int64_t>(sms) * 8);
  void* kargs[] = {&p};
  const void* fn = p.d_type == Dtype::bf16  ? reinterpret_cast<const void*>(&epilogue_inplace_kernel<__nv_bfloat16>)
                   : p.d_type == Dtype::f16 ? reinterpret_cast<const void*>(&epilogue_inplace_kernel<__half>)
                                            : reinterpret_cast<const void*>(&epilogue_inplace_kernel<float>);
  e = cudaLaunchKernel(fn, dim3(static_cast<unsigned>(blocks)), dim3(256), kargs, 0, stream);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return fail(GemmError::cuda_error, std::string("launch failed: ") + cudaGetErrorString(e));
  }
  return {};
}

}  // namespace tessera
