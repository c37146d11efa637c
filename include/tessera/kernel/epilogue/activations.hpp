// include/tessera/kernel/epilogue/activations.hpp -- the GEMM epilogues' activations as functors, one vocabulary with
// kernel/fused's ew::op: the fragment epilogue (fragment_epilogue.hpp) and the staged one (staged_epilogue.hpp) pick one
// per pass and apply it element by element.
#pragma once

namespace tessera::epilogue {

#if defined(__CUDACC__)
struct ActNone { __device__ __forceinline__ float operator()(float v) const { return v; } };
template <class Op>
struct ActEw { __device__ __forceinline__ float operator()(float v) const { return Op::apply(v); } };
struct ActLeakyRelu {
  float slope;
  __device__ __forceinline__ float operator()(float v) const { return v >= 0.f ? v : slope * v; }
};
struct ActClamp {
  float lo, hi;
  __device__ __forceinline__ float operator()(float v) const { return fminf(fmaxf(v, lo), hi); }
};
#endif  // __CUDACC__

}  // namespace tessera::epilogue
