// include/tessera/kernel/epilogue/staged_epilogue.hpp -- the GEMM epilogue: accumulators (registers) ->
// fp32 staging tile (shared memory, in D's memory order) -> [split-K reduction] -> one pass that reads C,
// bias and residual, applies the activation and writes each element of D once, 16 bytes at a time.
//
// Why stage: a thread's accumulator fragment holds pairs of adjacent columns spread over 8 rows (the mma
// C layout), so storing from registers gives 4- or 8-byte stores for a row-major D and 2-byte strided
// stores for a column-major D.  Re-distributing the tile through shared memory lets every thread own
// V = 16 / sizeof(out) consecutive elements along D's contiguous dimension, whatever D's order: every
// store (and every load of C and the residual when their order matches D's) is one 16-byte access and a
// warp covers 512 contiguous bytes.
//
// Staging tile (fp32, lives in the block's dynamic shared memory after the main loop has drained):
//   D row-major:    [BLK_M][BLK_N + 8]   a row of D's tile is contiguous; +8 floats makes the fragment
//                                        writes (8 rows x 4 float2 per half-warp) hit 32 distinct banks
//   D column-major: [BLK_N][BLK_M + 4]   a column of D's tile is contiguous; +4 floats makes the
//                                        fragment writes (8 rows x 4 columns per warp) conflict-free
//
// Split-K (gridDim.z = splits > 1): each block of a tile writes its staged partial to
// partials[tile][split] (fp32, L2 only), then increments counters[tile].  The block that sees the
// count reach splits - 1 adds all partials in split order 0, 1, ... (so the result does not depend on
// which block came last), resets the counter to 0 for the next call, and runs the epilogue.
//
// Order of operations per element (all in fp32):  v = alpha * acc;  v += beta * C (only if beta != 0);
//   v += bias;  v = act(v);  v += residual;  D = cast(v)  (round to nearest even).
#pragma once

#include <cuda_bf16.h>  // __nv_bfloat16, conversions
#include <cuda_fp16.h>  // __half, conversions

#include <cstdint>  // int64_t, uint32_t

#include "tessera/arch/sm80_cp_async.hpp"          // cp_async_cg_16 (the inputs read ahead)
#include "tessera/kernel/fused/expr.hpp"          // ew::op (Relu, GeluTanh, Gelu, SiluApprox)
#include "tessera/kernel/numeric.hpp"             // Numeric
#include "tessera/kernel/epilogue/activations.hpp" // ActNone, ActEw, ActLeakyRelu, ActClamp
#include "tessera/kernel/epilogue/types.hpp"       // Params, Dtype

namespace tessera::epilogue {

#if defined(__CUDACC__)

// Element conversions and 16-byte packing for the output types: tessera::Numeric (kernel/numeric.hpp),
// seen through one uint4.
template <class T>
struct Elem {
  static constexpr int kVec = Numeric<T>::kVec;  // elements per 16 bytes
  __device__ __forceinline__ static float to_float(T v) { return Numeric<T>::to_float(v); }
  __device__ __forceinline__ static T from_float(float v) { return Numeric<T>::from_float(v); }
  __device__ __forceinline__ static void unpack(const uint4& w, float (&f)[kVec]) {
    const uint32_t r[4] = {w.x, w.y, w.z, w.w};
    Numeric<T>::unpack(r, f);
  }
  __device__ __forceinline__ static uint4 pack(const float (&f)[kVec]) {
    uint32_t r[4];
    Numeric<T>::pack(f, r);
    return make_uint4(r[0], r[1], r[2], r[3]);
  }
};

// Reads V elements of matrix X (type T) that are consecutive along D's contiguous dimension, starting at
// D-order coordinate (outer, inner); elements j >= valid read as 0.  When X has D's order, the V elements
// are contiguous in X (one 16-byte load if `vec` and all are valid); otherwise they are ld apart.
template <class T, int V>
__device__ __forceinline__ void load_along(float (&out)[V], const void* base, int64_t ld, bool same_order, bool vec,
                                           int outer, int inner, int valid) {
  const T* x = static_cast<const T*>(base);
  if (same_order) {
    const T* q = x + static_cast<int64_t>(outer) * ld + inner;
    if (vec && valid == V) {
      Elem<T>::unpack(*reinterpret_cast<const uint4*>(q), out);
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j) out[j] = j < valid ? Elem<T>::to_float(q[j]) : 0.f;
    }
  } else {
    const T* q = x + static_cast<int64_t>(inner) * ld + outer;
#pragma unroll
    for (int j = 0; j < V; ++j) out[j] = j < valid ? Elem<T>::to_float(q[static_cast<int64_t>(j) * ld]) : 0.f;
  }
}

template <class T>
__device__ __forceinline__ float load_bias(const Params& p, int i) {
  return p.bias_f32 ? static_cast<const float*>(p.bias)[i] : Elem<T>::to_float(static_cast<const T*>(p.bias)[i]);
}

// bias[i .. i + V) of type B, `valid` of them inside D (the rest read as 0): 16-byte loads when all are valid and
// the run is 16-byte aligned, else one element at a time.
template <class B, int V>
__device__ __forceinline__ void load_bias_run(float (&out)[V], const void* bias, int i, int valid) {
  constexpr int kPer = Elem<B>::kVec;  // elements per 16 bytes
  const B* b = static_cast<const B*>(bias) + i;
  if constexpr (V % kPer == 0) {
    if (valid == V && reinterpret_cast<uintptr_t>(b) % 16 == 0) {
#pragma unroll
      for (int j = 0; j < V; j += kPer) {
        float f[kPer];
        Elem<B>::unpack(*reinterpret_cast<const uint4*>(b + j), f);
#pragma unroll
        for (int t = 0; t < kPer; ++t) out[j + t] = f[t];
      }
      return;
    }
  }
#pragma unroll
  for (int j = 0; j < V; ++j) out[j] = j < valid ? Elem<B>::to_float(b[j]) : 0.f;
}

// The staged epilogue's functor (activations.hpp) of the activations without parameters that its fast path
// specialises (none, relu, gelu_tanh, silu): f(act) with that functor, and true; false (f not called) for the others.
// The one mapping the general loop (activate_run) and the fast path (StagedEpilogue::store_ahead_full) share, so that
// both give the same bits.
//   kGemm true (the GEMM kernels): gelu_tanh and silu in the hardware tanh's forms, ew::op::GeluTanhHw and SiluHw, the
//     fragment epilogue's -- one MUFU.TANH and 3-5 other instructions an element, where the forms below take 11-15 --
//     so that a GEMM's activation has one bound whichever kernel its plan picks.
//   kGemm false (gemm_epilogue_inplace, an elementwise op of its own, bound by memory): ew::op::GeluTanh and
//     SiluApprox, whose bound is relative to the result in the negative tail too.
template <bool kGemm = true, class F>
__device__ __forceinline__ bool with_common_activation(Activation a, F&& f) {
  switch (a) {
    case Activation::none: f(ActNone{}); return true;
    case Activation::relu: f(ActEw<ew::op::Relu>{}); return true;
    case Activation::gelu_tanh:
      if constexpr (kGemm) f(ActEw<ew::op::GeluTanhHw>{});
      else f(ActEw<ew::op::GeluTanh>{});
      return true;
    case Activation::silu:
      if constexpr (kGemm) f(ActEw<ew::op::SiluHw>{});
      else f(ActEw<ew::op::SiluApprox>{});
      return true;
    default: return false;
  }
}

// v = act(v) for V values, the activation picked once (kernel/fused's ew::op functors, as the fragment epilogue
// uses them; their error bounds are tests/kernel_gemm/activation_bound_test.cu's).  kGemm: with_common_activation's.
template <int V, bool kGemm = true>
__device__ __forceinline__ void activate_run(float (&v)[V], const Params& p) {
  auto each = [&](auto f) {
#pragma unroll
    for (int j = 0; j < V; ++j) v[j] = f(v[j]);
  };
  if (with_common_activation<kGemm>(p.act, each)) return;
  switch (p.act) {
    case Activation::gelu_erf: each(ActEw<ew::op::Gelu>{}); break;
    case Activation::leaky_relu: each(ActLeakyRelu{p.act_p0}); break;
    case Activation::clamp: each(ActClamp{p.act_p0, p.act_p1}); break;
    default: break;  // (the common ones: above)
  }
}

// How the bias varies in D's memory order: 0 none, 1 along the contiguous (inner) dimension, 2 along
// the outer dimension, 3 a scalar.
__device__ __forceinline__ int bias_dim_in_d_order(const Params& p) {
  if (p.bias_along == kBiasNone) return 0;
  if (p.bias_along == kBiasScalar) return 3;
  return ((p.bias_along == kBiasAlongN) == p.d_row_major) ? 1 : 2;
}

// Everything after alpha * acc for V elements of D that are consecutive in D's order, with the inputs already read
// (c: C's V values, read only when beta != 0; b: the bias of each element, read when bias_dim != 0; r: the residual's,
// read when there is one), starting at (outer go, inner gi), `valid` of them inside D: + beta * C, + bias, activation,
// + residual, cast, store (16 bytes when legal).  kGemm: with_common_activation's.
template <class T, int V, bool kGemm = true>
__device__ __forceinline__ void finish_loaded(float (&v)[V], const Params& p, int bias_dim, const float (&c)[V],
                                              const float (&b)[V], const float (&r)[V], int go, int gi, int valid) {
  if (p.beta != 0.f) {
#pragma unroll
    for (int j = 0; j < V; ++j) v[j] = fmaf(p.beta, c[j], v[j]);
  }
  if (bias_dim != 0) {
#pragma unroll
    for (int j = 0; j < V; ++j) v[j] += b[j];
  }
  activate_run<V, kGemm>(v, p);
  if (p.residual) {
#pragma unroll
    for (int j = 0; j < V; ++j) v[j] += r[j];
  }
  T* q = static_cast<T*>(p.d) + static_cast<int64_t>(go) * p.ldd + gi;
  if (p.d_vec && valid == V) {
    *reinterpret_cast<uint4*>(q) = Elem<T>::pack(v);
  } else {
#pragma unroll
    for (int j = 0; j < V; ++j)
      if (j < valid) q[j] = Elem<T>::from_float(v[j]);
  }
}

// The same, reading C, the bias and the residual from global memory here.
template <class T, int V, bool kGemm = true>
__device__ __forceinline__ void finish_vector(float (&v)[V], const Params& p, bool rm, int bias_dim, int go, int gi,
                                              int valid) {
  float c[V] = {}, b[V] = {}, r[V] = {};
  if (p.beta != 0.f) load_along<T, V>(c, p.c, p.ldc, p.c_row_major == rm, p.c_vec, go, gi, valid);
  if (bias_dim == 1) {
    if (p.bias_f32) load_bias_run<float, V>(b, p.bias, gi, valid);
    else load_bias_run<T, V>(b, p.bias, gi, valid);
  } else if (bias_dim != 0) {
    const float s = load_bias<T>(p, bias_dim == 2 ? go : 0);
#pragma unroll
    for (int j = 0; j < V; ++j) b[j] = s;
  }
  if (p.residual) load_along<T, V>(r, p.residual, p.ldr, p.r_row_major == rm, p.r_vec, go, gi, valid);
  finish_loaded<T, V, kGemm>(v, p, bias_dim, c, b, r, go, gi, valid);
}

#endif  // __CUDACC__

// The staged epilogue of a BLK_M x BLK_N block tile computed by kThreads threads.  kAheadMats: the matrices the
// read-ahead buffer holds (2: C and the residual; 1: one of them, for a kernel whose shared memory has room for one).
template <int kBlockM, int kBlockN, int kThreads, int kAheadMats = 2>
struct StagedEpilogue {
  static constexpr int kTileM = kBlockM, kTileN = kBlockN;
  static constexpr int kRowStride = kBlockN + 8;  // floats per staged row, D row-major
  static constexpr int kColStride = kBlockM + 4;  // floats per staged column, D column-major
  static constexpr int kSmemFloats =
      kBlockM * kRowStride > kBlockN * kColStride ? kBlockM * kRowStride : kBlockN * kColStride;
  static constexpr int kSmemBytes = kSmemFloats * 4;
  static constexpr int kTileFloats = kBlockM * kBlockN;  // one split-K partial

  static_assert(kBlockM % 8 == 0 && kBlockN % 8 == 0,
                "staged epilogue: tile extents must be multiples of 8 (one 16-byte vector of a 16-bit D)");
  // (A tile narrower than 32 columns -- the decode tiles' -- leaves the bank pattern aside.)
  static_assert(kBlockN < 32 || kRowStride % 32 == 8,
                "staged epilogue: the row-major staging stride must be 8 mod 32 floats (conflict-free float2 writes)");

#if defined(__CUDACC__)
  // Staged position of (m, n) inside the tile.
  __device__ __forceinline__ static int offset(bool d_row_major, int m, int n) {
    return d_row_major ? m * kRowStride + n : n * kColStride + m;
  }
  // Stages v0 at (m, n) and v1 at (m, n + 1); n even.
  __device__ __forceinline__ static void stage_pair(float* s, bool d_row_major, int m, int n, float v0, float v1) {
    if (d_row_major) {
      *reinterpret_cast<float2*>(s + m * kRowStride + n) = make_float2(v0, v1);
    } else {
      s[n * kColStride + m] = v0;
      s[(n + 1) * kColStride + m] = v1;
    }
  }

  // ---- The epilogue's inputs read ahead ----
  // A kernel whose epilogue would otherwise wait for C, the bias and the residual after its main loop (their loads on
  // the tile's critical path: one round trip to DRAM per vector a thread stores) has threads that are idle during the
  // main loop copy them into a buffer of shared memory of its own (kAheadBytes, beside the stage ring) before it:
  //   [C: the tile's vectors, raw, 16 bytes each, in D's order][residual: the same][bias: fp32, one per line or column]
  // (kAheadMats 1: [C or the residual][bias] -- a menu with both reads neither ahead.)
  // Vector idx of the tile (outer o = idx / vecs, inner iv = idx % vecs, as store_as numbers them) sits at idx * 16.
  // Only whole vectors inside D of a 16-bit D whose C and residual allow 16-byte accesses in D's order are read ahead
  // (ahead_ok, ahead_vector); store_as reads any other vector from global memory as before.  The copies are cp.async:
  // the copying threads hold no registers for them and nothing waits for them before the epilogue.
  static_assert(kAheadMats == 1 || kAheadMats == 2, "staged epilogue: the read-ahead buffer holds one or two matrices");
  static constexpr int kAheadVec = 8;  // elements of a 16-bit D per 16 bytes
  static constexpr int kAheadMatrixBytes = kBlockM * kBlockN * 2;
  static constexpr int kAheadBiasFloats = kBlockM > kBlockN ? kBlockM : kBlockN;
  static constexpr int kAheadResidualOffset = kAheadMats == 2 ? kAheadMatrixBytes : 0;
  static constexpr int kAheadBiasOffset = kAheadMats * kAheadMatrixBytes;
  static constexpr int kAheadBytes = kAheadBiasOffset + 4 * kAheadBiasFloats;

#if defined(__CUDACC__)
  // Whether the epilogue of `p` reads anything ahead at all (the same answer in every thread).
  __device__ __forceinline__ static bool ahead_ok(const Params& p) {
    const bool rm = p.d_row_major;
    const bool need_c = p.beta != 0.f, need_r = p.residual != nullptr;
    if (p.d_type != Dtype::bf16 && p.d_type != Dtype::f16) return false;
    if (!need_c && !need_r && p.bias_along == kBiasNone) return false;
    if (kAheadMats < 2 && need_c && need_r) return false;
    return !(need_c && !(p.c_row_major == rm && p.c_vec)) && !(need_r && !(p.r_row_major == rm && p.r_vec));
  }
  // Whether the vector at D-order coordinate (go, gi) is read ahead (ahead_ok given): a whole vector inside D.
  __device__ __forceinline__ static bool ahead_vector(const Params& p, int go, int gi) {
    const bool rm = p.d_row_major;
    return go < (rm ? p.m : p.n) && gi + kAheadVec <= (rm ? p.n : p.m);
  }

  // Thread `t` of `nt` copies its share of the tile at (m0, n0)'s inputs into `buf` (cp.async for C and the residual,
  // then waits for its own copies: the block's next barrier publishes them).  Called only where ahead_ok(p).
  // (Only the tile's lines [line0, line1): a block that stores half the tile reads ahead that half.)
  __device__ static void fetch_ahead(unsigned char* buf, const Params& p, int m0, int n0, int t, int nt, int line0 = 0,
                                     int line1 = kBlockM > kBlockN ? kBlockM : kBlockN) {
    const bool rm = p.d_row_major;
    const int vecs = (rm ? kBlockN : kBlockM) / kAheadVec, outer_tile = rm ? kBlockM : kBlockN;
    const int inner0 = rm ? n0 : m0, outer0 = rm ? m0 : n0;
    const bool need_c = p.beta != 0.f, need_r = p.residual != nullptr;
    const int eb = 2;  // 16-bit C and residual (ahead_ok)
    const int l1 = line1 < outer_tile ? line1 : outer_tile;
    for (int idx = line0 * vecs + t; idx < l1 * vecs; idx += nt) {
      const int o = idx / vecs, go = outer0 + o, gi = inner0 + (idx - o * vecs) * kAheadVec;
      if (!ahead_vector(p, go, gi)) continue;
      if (need_c)
        arch::cp_async_cg_16(buf + idx * 16, static_cast<const unsigned char*>(p.c) + (static_cast<int64_t>(go) * p.ldc + gi) * eb);
      if (need_r)
        arch::cp_async_cg_16(buf + kAheadResidualOffset + idx * 16,
                             static_cast<const unsigned char*>(p.residual) + (static_cast<int64_t>(go) * p.ldr + gi) * eb);
    }
    arch::cp_async_commit();
    // The bias, as fp32: the tile's inner run (bias_dim 1), its outer run (2) or the scalar (3), inside D.
    const int bias_dim = bias_dim_in_d_order(p);
    if (bias_dim != 0) {
      float* sb = reinterpret_cast<float*>(buf + kAheadBiasOffset);
      const int base = bias_dim == 1 ? inner0 : bias_dim == 2 ? outer0 : 0;
      const int len = bias_dim == 1 ? (rm ? kBlockN : kBlockM) : bias_dim == 2 ? outer_tile : 1;
      const int ext = bias_dim == 1 ? (rm ? p.n : p.m) : bias_dim == 2 ? (rm ? p.m : p.n) : 1;
      for (int i = (bias_dim == 2 ? line0 : 0) + t; i < (bias_dim == 2 ? l1 : len) && base + i < ext; i += nt)
        sb[i] = p.d_type == Dtype::bf16 ? load_bias<__nv_bfloat16>(p, base + i) : load_bias<__half>(p, base + i);
    }
    arch::cp_async_wait_all();
  }

  // Vector idx (at D-order (o, iv) of the tile, global (go, gi)) from the read-ahead buffer, then the rest of
  // finish_vector.
  template <class T>
  __device__ __forceinline__ static void finish_ahead(float (&v)[kAheadVec], const Params& p, int bias_dim, const unsigned char* buf,
                                                      int idx, int o, int iv, int go, int gi) {
    constexpr int V = kAheadVec;
    float c[V] = {}, b[V] = {}, r[V] = {};
    if (p.beta != 0.f) Elem<T>::unpack(*reinterpret_cast<const uint4*>(buf + idx * 16), c);
    if (p.residual) Elem<T>::unpack(*reinterpret_cast<const uint4*>(buf + kAheadResidualOffset + idx * 16), r);
    const float* sb = reinterpret_cast<const float*>(buf + kAheadBiasOffset);
    if (bias_dim == 1) {
#pragma unroll
      for (int j = 0; j < V; ++j) b[j] = sb[iv * V + j];
    } else if (bias_dim != 0) {
      const float x = sb[bias_dim == 2 ? o : 0];
#pragma unroll
      for (int j = 0; j < V; ++j) b[j] = x;
    }
    finish_loaded<T, V>(v, p, bias_dim, c, b, r, go, gi, V);
  }
#endif  // __CUDACC__

  // Split-K: called by all threads after the tile is staged (and a barrier).  Returns true in the block
  // that must finish the tile (its staged tile then holds the sum over all splits), false in the others.
  // Only the part of the tile inside D (valid_m x valid_n, whole float4 along the contiguous dimension)
  // travels through the workspace: a decode tile with one valid row moves 1/16 of the tile.
  __device__ static bool reduce_split_k(float* s, bool d_row_major, float* partials, int* counters, int tile,
                                        int split, int splits, int valid_m, int valid_n) {
    __shared__ int s_is_last;
    const int inner = d_row_major ? kBlockN : kBlockM;  // contiguous extent of the staged tile
    const int stride = d_row_major ? kRowStride : kColStride;
    const int outer_valid = d_row_major ? valid_m : valid_n;
    const int inner_quads = ((d_row_major ? valid_n : valid_m) + 3) / 4;
    const int quads_per_line = inner / 4;
    const int quads = outer_valid * inner_quads;  // valid quads, enumerated line by line
    float4* mine = reinterpret_cast<float4*>(partials + (static_cast<int64_t>(tile) * splits + split) * kTileFloats);
    for (int q = threadIdx.x; q < quads; q += kThreads) {
      const int o = q / inner_quads, i = 4 * (q - o * inner_quads);
      __stcg(mine + o * quads_per_line + i / 4, *reinterpret_cast<const float4*>(s + o * stride + i));
    }
    __threadfence();  // make this block's partial visible device-wide before the count says so
    __syncthreads();
    if (threadIdx.x == 0) s_is_last = atomicAdd(counters + tile, 1) == splits - 1;
    __syncthreads();
    if (!s_is_last) return false;
    __threadfence();  // order the partial reads after observing the final count
    const float4* all = reinterpret_cast<const float4*>(partials + static_cast<int64_t>(tile) * splits * kTileFloats);
    constexpr int kTileQuads = kTileFloats / 4;
    for (int q = threadIdx.x; q < quads; q += kThreads) {
      const int o = q / inner_quads, i = 4 * (q - o * inner_quads);
      float4* st = reinterpret_cast<float4*>(s + o * stride + i);
      const float4 own = *st;
      const int qi = o * quads_per_line + i / 4;
      // Sum in split order 0, 1, ... (deterministic); four loads in flight at a time.
      float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
      int k = 0;
      for (; k + 4 <= splits; k += 4) {
        float4 v[4];
#pragma unroll
        for (int j = 0; j < 4; ++j) v[j] = k + j == split ? own : __ldcg(all + static_cast<int64_t>(k + j) * kTileQuads + qi);
#pragma unroll
        for (int j = 0; j < 4; ++j) { acc.x += v[j].x; acc.y += v[j].y; acc.z += v[j].z; acc.w += v[j].w; }
      }
      for (; k < splits; ++k) {
        const float4 v = k == split ? own : __ldcg(all + static_cast<int64_t>(k) * kTileQuads + qi);
        acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
      }
      *st = acc;
    }
    if (threadIdx.x == 0) counters[tile] = 0;  // ready for the next call on this workspace
    __syncthreads();
    return true;
  }

  static_assert(output_types_are(Dtype::bf16, Dtype::f16, Dtype::f32), "staged epilogue: store's cases are kOutputTypes");
  // Reads the staged tile (origin (m0, n0) in D) and writes D; `ahead`: the tile's inputs read ahead (fetch_ahead's
  // buffer, published by a barrier), or null.  Only the tile's lines (rows of a row-major D, columns of a column-major
  // one) [line0, line1): the two blocks of a tile split in a cluster store half each.
  __device__ static void store(const float* s, const Params& p, int m0, int n0, const unsigned char* ahead = nullptr,
                               int line0 = 0, int line1 = kBlockM > kBlockN ? kBlockM : kBlockN) {
    switch (p.d_type) {
      case Dtype::bf16: store_as<__nv_bfloat16>(s, p, m0, n0, ahead, line0, line1); break;
      case Dtype::f16: store_as<__half>(s, p, m0, n0, ahead, line0, line1); break;
      case Dtype::f32: store_as<float>(s, p, m0, n0, nullptr, line0, line1); break;
      default: __trap();  // 8-bit and integer types: gemm_validate rejects them for D
    }
  }

  // alpha * the V staged values at src (16-byte aligned); kAlphaOne: alpha is 1, its multiply left out (x * 1 is x
  // exactly: the same bits).
  template <int V, bool kAlphaOne = false>
  __device__ __forceinline__ static void load_staged(float (&v)[V], const float* src, float alpha) {
#pragma unroll
    for (int j = 0; j < V; j += 4) {
      const float4 q = *reinterpret_cast<const float4*>(src + j);
      if constexpr (kAlphaOne) {
        v[j] = q.x; v[j + 1] = q.y; v[j + 2] = q.z; v[j + 3] = q.w;
      } else {
        v[j] = q.x * alpha; v[j + 1] = q.y * alpha; v[j + 2] = q.z * alpha; v[j + 3] = q.w * alpha;
      }
    }
  }

  // A whole tile with nothing but alpha and the cast, 16-byte stores: the loop's shape known at compile time (the
  // general loop below tests every flag per vector and is bound by instruction issue).
  template <class T, bool kRm>
  __device__ static void store_plain(const float* s, const Params& p, int m0, int n0, int line0, int line1) {
    constexpr int V = Elem<T>::kVec;
    constexpr int kInner = kRm ? kBlockN : kBlockM, kOuter = kRm ? kBlockM : kBlockN;
    constexpr int kStride = kRm ? kRowStride : kColStride;
    constexpr int kVecs = kInner / V;
    const int inner0 = kRm ? n0 : m0, outer0 = kRm ? m0 : n0;
    T* d = static_cast<T*>(p.d);
    const float alpha = p.alpha;
    const int end = (line1 < kOuter ? line1 : kOuter) * kVecs;
#pragma unroll 4
    for (int idx = line0 * kVecs + static_cast<int>(threadIdx.x); idx < end; idx += kThreads) {
      const int o = idx / kVecs, iv = idx % kVecs;
      float v[V];
      load_staged<V>(v, s + o * kStride + iv * V, alpha);
      *reinterpret_cast<uint4*>(d + static_cast<int64_t>(outer0 + o) * p.ldd + inner0 + iv * V) = Elem<T>::pack(v);
    }
  }

  // The common fused menus on a whole tile, its inputs read ahead: the loop's shape known at compile time but for D's
  // order (two constant shapes), the activation Act picked once, and per vector only what the menu asks for -- the
  // general loop below spends about 350 instructions a vector on index arithmetic, bounds and order tests and the
  // per-vector switch, which made the staged pass of a 128 x 128 tile issue-bound (about 5,900 cycles; H200,
  // docs/PERF.md, fifty-second section).  Called where ahead_ok(p), p.d_vec, and the tile lies inside D.
  // kAlphaOne: alpha is 1 (load_staged's; 8 instructions a vector fewer).
  template <class T, class Act, bool kAlphaOne>
  __device__ static void store_ahead_full(const float* s, const Params& p, int m0, int n0, const unsigned char* buf,
                                          int line0, int line1) {
    constexpr int V = kAheadVec;
    static_assert(Elem<T>::kVec == V, "staged epilogue: the read-ahead fast path stores 16-bit D");
    static_assert(kFastShape, "staged epilogue: the read-ahead fast path's vectors a line are a power of two");
    constexpr int kLogM = __builtin_ctz(kBlockM / V), kLogN = __builtin_ctz(kBlockN / V);
    const bool rm = p.d_row_major;
    const int lg = rm ? kLogN : kLogM, outer_tile = rm ? kBlockM : kBlockN, stride = rm ? kRowStride : kColStride;
    const int inner0 = rm ? n0 : m0, outer0 = rm ? m0 : n0;
    const int bias_dim = bias_dim_in_d_order(p);
    const bool has_c = p.beta != 0.f, has_r = p.residual != nullptr;
    const float alpha = p.alpha, beta = p.beta;
    const float* sb = reinterpret_cast<const float*>(buf + kAheadBiasOffset);
    T* d = static_cast<T*>(p.d) + static_cast<int64_t>(outer0) * p.ldd + inner0;
    const int64_t ldd = p.ldd;
    const int end = (line1 < outer_tile ? line1 : outer_tile) << lg;
    for (int idx = (line0 << lg) + static_cast<int>(threadIdx.x); idx < end; idx += kThreads) {
      const int o = idx >> lg, iv = idx & ((1 << lg) - 1);
      float v[V];
      load_staged<V, kAlphaOne>(v, s + o * stride + iv * V, alpha);
      if (has_c) {
        float c[V];
        Elem<T>::unpack(*reinterpret_cast<const uint4*>(buf + idx * 16), c);
#pragma unroll
        for (int j = 0; j < V; ++j) v[j] = fmaf(beta, c[j], v[j]);
      }
      if (bias_dim == 1) {
        const float4 b0 = *reinterpret_cast<const float4*>(sb + iv * V), b1 = *reinterpret_cast<const float4*>(sb + iv * V + 4);
        v[0] += b0.x; v[1] += b0.y; v[2] += b0.z; v[3] += b0.w;
        v[4] += b1.x; v[5] += b1.y; v[6] += b1.z; v[7] += b1.w;
      } else if (bias_dim != 0) {
        const float x = sb[bias_dim == 2 ? o : 0];
#pragma unroll
        for (int j = 0; j < V; ++j) v[j] += x;
      }
#pragma unroll
      for (int j = 0; j < V; ++j) v[j] = Act{}(v[j]);
      if (has_r) {
        float r[V];
        Elem<T>::unpack(*reinterpret_cast<const uint4*>(buf + kAheadResidualOffset + idx * 16), r);
#pragma unroll
        for (int j = 0; j < V; ++j) v[j] += r[j];
      }
      *reinterpret_cast<uint4*>(d + static_cast<int64_t>(o) * ldd + iv * V) = Elem<T>::pack(v);
    }
  }
  // Tiles whose lines hold a power of two of 16-byte vectors (the fast path's index arithmetic).
  static constexpr bool kFastShape = kBlockM % kAheadVec == 0 && kBlockN % kAheadVec == 0 &&
                                     ((kBlockM / kAheadVec) & (kBlockM / kAheadVec - 1)) == 0 &&
                                     ((kBlockN / kAheadVec) & (kBlockN / kAheadVec - 1)) == 0;

  template <class T>
  __device__ static void store_as(const float* s, const Params& p, int m0, int n0, const unsigned char* ahead, int line0,
                                  int line1) {
    constexpr int V = Elem<T>::kVec;
    const bool rm = p.d_row_major;
    if (p.beta == 0.f && p.bias_along == kBiasNone && p.act == Activation::none && !p.residual && p.d_vec &&
        m0 + kBlockM <= p.m && n0 + kBlockN <= p.n) {
      if (rm) store_plain<T, true>(s, p, m0, n0, line0, line1);
      else store_plain<T, false>(s, p, m0, n0, line0, line1);
      return;
    }
    const int inner_tile = rm ? kBlockN : kBlockM;
    const int outer_tile = rm ? kBlockM : kBlockN;
    const int stride = rm ? kRowStride : kColStride;
    const int inner0 = rm ? n0 : m0, outer0 = rm ? m0 : n0;
    const int inner_ext = rm ? p.n : p.m, outer_ext = rm ? p.m : p.n;
    const int vecs = inner_tile / V;
    const int bias_dim = bias_dim_in_d_order(p);
    const int first = line0 * vecs + static_cast<int>(threadIdx.x), end = (line1 < outer_tile ? line1 : outer_tile) * vecs;
    if constexpr (V == kAheadVec) {
      if (ahead && ahead_ok(p)) {
        // A whole tile of a menu with one of the common activations: the fast path.  (Its bias reads the buffer's
        // run as fp32 pairs of float4: 16-byte aligned, kAheadBiasOffset and iv * V * 4 being multiples of 16.)
        if constexpr (kFastShape) {
          if (p.d_vec && m0 + kBlockM <= p.m && n0 + kBlockN <= p.n &&
              with_common_activation(p.act, [&](auto op) {
                if (p.alpha == 1.f) store_ahead_full<T, decltype(op), true>(s, p, m0, n0, ahead, line0, line1);
                else store_ahead_full<T, decltype(op), false>(s, p, m0, n0, ahead, line0, line1);
              }))
            return;
        }
        for (int idx = first; idx < end; idx += kThreads) {
          const int o = idx / vecs, iv = idx - o * vecs;
          const int go = outer0 + o, gi = inner0 + iv * V;
          if (go >= outer_ext || gi >= inner_ext) continue;
          float v[V];
          load_staged<V>(v, s + o * stride + iv * V, p.alpha);
          if (ahead_vector(p, go, gi)) finish_ahead<T>(v, p, bias_dim, ahead, idx, o, iv, go, gi);
          else finish_vector<T, V>(v, p, rm, bias_dim, go, gi, inner_ext - gi < V ? inner_ext - gi : V);
        }
        return;
      }
    }
    for (int idx = first; idx < end; idx += kThreads) {
      const int o = idx / vecs, iv = idx - o * vecs;
      const int go = outer0 + o, gi = inner0 + iv * V;
      if (go >= outer_ext || gi >= inner_ext) continue;
      const int valid = inner_ext - gi < V ? inner_ext - gi : V;

      float v[V];
      load_staged<V>(v, s + o * stride + iv * V, p.alpha);
      finish_vector<T, V>(v, p, rm, bias_dim, go, gi, valid);
    }
  }
#endif  // __CUDACC__
};

}  // namespace tessera::epilogue
