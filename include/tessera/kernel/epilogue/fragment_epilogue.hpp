// include/tessera/kernel/epilogue/fragment_epilogue.hpp -- the fused GEMM epilogue applied to an
// accumulator fragment in registers, stored straight to D (no shared memory, no block barrier):
//
//   D(m,n) = act(alpha * acc(m,n) + beta * C(m,n) + bias) + R(m,n),  cast to D's type, one store.
//
// The fragment is one accumulator of an MMA atom (a kernel with several atoms per warpgroup calls it once
// per atom, which also bounds the registers live at a time); which (m, n) each register holds is the
// atom's C layout (Atom::c_thread / Atom::c_value, e.g. atom/mma_sm90.hpp).  Every step is one pass over
// the fragment's registers, chosen once per fragment by uniform run-time tests, never per element:
//   scale     alpha != 1
//   C         beta != 0; C's type and order picked once (a switch outside the pass)
//   bias      none / per row / per column / scalar, f32 or D's type
//   act       a switch on the activation picks one specialised pass (ActEw<GeluTanhHw>, ...): the
//             functors are the elementwise vocabulary of kernel/fused (ew::op)
//   residual  like C
//   store     D's type and order picked once
// Each pass has a fast form for a whole tile of a row-major matrix whose base and leading dimension
// allow 2-element accesses (pairs of adjacent columns: 4 bytes for 16-bit types, 8 for fp32, with no
// bounds tests), and an element form for edge tiles and other orders (every access tested against M, N).
//
// D leaves either straight from registers (`store`), or, for a 16-bit D (row- or column-major), 64 columns at
// a time through a 128-byte-swizzled shared-memory tile written with stmatrix (`stage_sw128`) that the kernel
// hands to a TMA store (kernel/gemm_sm90/persistent_kernel.hpp): then the edges are the TMA unit's bounds.
#pragma once

#include <cuda_bf16.h>  // __nv_bfloat16, __nv_bfloat162
#include <cuda_fp16.h>  // __half, __half2

#include <cstdint>      // int64_t, uintptr_t
#include <type_traits>  // std::integral_constant
#include <utility>      // std::integer_sequence

#include "tessera/arch/ld_st.hpp"              // ld_shared_u16 / u32 / v4, st_shared_v4
#include "tessera/arch/sm75_ldmatrix.hpp"      // ldmatrix_x4 (load_packed_sw128)
#include "tessera/arch/sm90_stmatrix.hpp"      // stmatrix_x4
#include "tessera/atom/smem_sm90.hpp"           // SmemTileSm90, sw128_tile
#include "tessera/kernel/epilogue/activations.hpp"  // ActNone, ActEw, ActLeakyRelu, ActClamp
#include "tessera/kernel/epilogue/types.hpp"  // Params, Dtype, Activation
#include "tessera/layout/static_layout.hpp"     // static_layout
#include "tessera/kernel/numeric.hpp"         // Numeric (conversions, pack2 / unpack2)
#include "tessera/kernel/fused/expr.hpp"      // ew::op (Relu, GeluTanhHw, GeluHw, SiluHw)

namespace tessera::epilogue {

#if defined(__CUDACC__)

// (The activations as functors: kernel/epilogue/activations.hpp.)

namespace frag_detail {

// A compile-time int usable as an index in device code.
template <int V>
struct Const {
  static constexpr int value = V;
  __host__ __device__ constexpr operator int() const { return V; }
};

template <int N, class F>
__device__ __forceinline__ void static_for(F&& f) {
  [&]<int... I>(std::integer_sequence<int, I...>) { (f(Const<I>{}), ...); }(
      std::make_integer_sequence<int, N>{});
}

// Two adjacent elements of type T (Numeric<T>'s conversions): one 4-byte access for 16-bit types, 8 for fp32.
template <class T>
struct Pair {
  static_assert(sizeof(T) == 2, "Pair: 16-bit types here; fp32 below");
  __device__ __forceinline__ static void load(const void* p, float& a, float& b) {
    Numeric<T>::unpack2(*static_cast<const uint32_t*>(p), a, b);
  }
  __device__ __forceinline__ static void store(void* p, float a, float b) { *static_cast<uint32_t*>(p) = Numeric<T>::pack2(a, b); }
  __device__ __forceinline__ static uint32_t pack(float a, float b) { return Numeric<T>::pack2(a, b); }
  __device__ __forceinline__ static void unpack(uint32_t w, float& a, float& b) { Numeric<T>::unpack2(w, a, b); }
  __device__ __forceinline__ static float load1(const void* p) { return Numeric<T>::to_float(*static_cast<const T*>(p)); }
  __device__ __forceinline__ static void store1(void* p, float a) { *static_cast<T*>(p) = Numeric<T>::from_float(a); }
};
template <>
struct Pair<float> {
  __device__ __forceinline__ static void load(const void* p, float& a, float& b) {
    const float2 f = *static_cast<const float2*>(p);
    a = f.x; b = f.y;
  }
  __device__ __forceinline__ static void store(void* p, float a, float b) { *static_cast<float2*>(p) = make_float2(a, b); }
  __device__ __forceinline__ static float load1(const void* p) { return *static_cast<const float*>(p); }
  __device__ __forceinline__ static void store1(void* p, float a) { *static_cast<float*>(p) = a; }
};

// 2-element accesses along a row of a row-major matrix are legal: base and ld keep pairs aligned.
__device__ __forceinline__ bool pairs_ok(const void* base, int64_t ld, int bytes) {
  return reinterpret_cast<uintptr_t>(base) % (2 * bytes) == 0 && ld % 2 == 0;
}

// 4 x 4 transpose of 32-bit words among the 4 lanes of a quad (lanes 4g .. 4g+3, t = lane % 4): word jj of
// lane t becomes word t of lane jj.  Two butterfly rounds; every lane of the warp takes part.
__device__ __forceinline__ void quad_transpose(uint32_t (&w)[4], int t) {
#pragma unroll
  for (int m = 1; m <= 2; m <<= 1) {
#pragma unroll
    for (int a = 0; a < 4; ++a) {
      if (a & m) continue;
      const int b = a | m;
      const uint32_t send = (t & m) ? w[a] : w[b];
      const uint32_t got = __shfl_xor_sync(0xffffffffu, send, m);
      if (t & m) w[a] = got;
      else w[b] = got;
    }
  }
}

}  // namespace frag_detail

// The epilogue of an Atom::kM x Atom::kN tile held as one atom fragment by the Atom::kThreads threads of
// a warpgroup.  `thread` is the thread's index in its warpgroup.
// GeluErf: the functor of the gelu_erf pass (ew::op::GeluHw, branch-free, or ew::op::Gelu, libm's erfcf): which one
// spills less depends on the kernel around it (kernel/gemm_sm90/persistent_kernel.hpp picks per schedule).
template <class Atom, class GeluErf = ew::op::GeluHw>
struct FragmentEpilogue {
  static constexpr int kV = Atom::kValuesC;  // registers per thread
  static constexpr int kTileM = Atom::kM, kTileN = Atom::kN;
  using Acc = float[kV];
  static_assert(kV % 2 == 0, "fragment epilogue: values come in pairs of adjacent columns");

  // Registers are visited in chunks of kChunk (the passes run chunk by chunk, which bounds the loads in
  // flight and the registers they need).
  static constexpr int kChunk = kV < 64 ? kV : 64;
  static_assert(kV % kChunk == 0 && kChunk % 2 == 0, "fragment epilogue: chunks of whole pairs");

  // Visits registers kFirst .. kFirst + kChunk - 1 with their (row, column) inside the tile: f(i, row, col),
  // i a constant.
  template <int kFirst, class F>
  __device__ __forceinline__ static void for_each(int thread, F&& f) {
    const auto ct = Atom::c_thread(thread);
    frag_detail::static_for<kChunk>([&](auto ii) {
      constexpr int i = kFirst + decltype(ii)::value;
      constexpr auto cv = Atom::template c_value<i>();
      f(frag_detail::Const<i>{}, ct.row + cv.row, ct.col + cv.col);
    });
  }
  // Visits register pairs (i, i + 1) that hold columns (col, col + 1) of one row.
  template <int kFirst, class F>
  __device__ __forceinline__ static void for_each_pair(int thread, F&& f) {
    const auto ct = Atom::c_thread(thread);
    frag_detail::static_for<kChunk / 2>([&](auto ip) {
      constexpr int i = kFirst + 2 * decltype(ip)::value;
      constexpr auto cv = Atom::template c_value<i>();
      constexpr auto cv1 = Atom::template c_value<i + 1>();
      static_assert(cv1.row == cv.row && cv1.col == cv.col + 1, "fragment epilogue: registers i, i+1 are adjacent columns");
      f(frag_detail::Const<i>{}, ct.row + cv.row, ct.col + cv.col);
    });
  }

  // The quad property of the atom's C layout, checked on the layout itself: lane t of a quad holds columns
  // 2t, 2t + 1 (registers i, i + 1) of each 8-column block j, rows r and r + 8 in registers 4j + {0,1} and
  // 4j + {2,3}; lane / 4 and the warp move rows only.  Then four lanes' words of four blocks j0 .. j0+3
  // transpose (quad_transpose) into 8 contiguous columns per lane: one 16-byte access instead of four
  // 4-byte ones, so that a warp touches each 32-byte sector of a row once per instruction.
  static constexpr bool quad_rows() {
    for (int t = 0; t < Atom::kThreads; ++t) {
      const auto c = Atom::c_thread(t);
      if (c.col != 2 * (t % 4)) return false;
    }
    for (int i = 0; i < kV; ++i) {
      const auto c = Atom::split(Atom::kValueMode(i));
      if (c.row != 8 * ((i >> 1) & 1) || c.col != 8 * (i >> 2) + (i & 1)) return false;
    }
    return kV % 32 == 0;
  }
  static constexpr bool kQuadRows = quad_rows();
  // The row-pair property, checked on the layout: lanes l and l ^ 4 (l / 4 even) hold rows r and r + 1 of the same
  // columns.  A column-major D then may leave in pairs of adjacent rows (store with kRowPairStores): the two lanes swap
  // one value of each column pair, and each writes one column's two rows -- one 2-element access where there were two.
  // Opt-in: in the persistent kernel the shuffles of the accumulators made ptxas serialise its wgmma (C7514).
  static constexpr bool row_pairs() {
    for (int t = 0; t < Atom::kThreads; ++t) {
      if ((t / 4) % 2 != 0) continue;
      const auto a = Atom::c_thread(t), b = Atom::c_thread(t ^ 4);
      if (b.row != a.row + 1 || b.col != a.col) return false;
    }
    return true;
  }
  static constexpr bool kRowPairs = row_pairs();

  // Visits the 16-byte groups of a chunk: f(i0, h, row, col) with registers i0 + 4 jj + {0, 1} (jj = 0..3) of
  // rows `row`, and this lane's 8 columns after the transpose starting at `col`.
  template <int kFirst, class F>
  __device__ __forceinline__ static void for_each_quad_group(int thread, F&& f) {
    static_assert(kQuadRows && kFirst % 16 == 0 && kChunk % 16 == 0, "fragment epilogue: quad groups need the quad layout");
    const auto ct = Atom::c_thread(thread);
    const int t = thread % 4;
    frag_detail::static_for<kChunk / 8>([&](auto g) {
      constexpr int h = decltype(g)::value & 1;
      constexpr int i0 = kFirst + 16 * (decltype(g)::value >> 1) + 2 * h;  // register of block j0, row half h
      constexpr auto cv = Atom::template c_value<i0>();
      f(frag_detail::Const<i0>{}, ct.row + cv.row, cv.col + 8 * t);
    });
  }

  // acc += scale * X(m0 + row, n0 + col) for a whole tile of a row-major 16-bit matrix X whose base and ld
  // allow 16-byte accesses: one 16-byte load per quad group (all of them issued first), transposed among the quad's
  // lanes.
  static constexpr int kQuadGroups = kChunk / 8;
  // The index (0 .. kQuadGroups - 1) of the quad group whose first register is i (counted from the chunk's first),
  // the inverse of for_each_quad_group's i0 = 16 (g / 2) + 2 (g % 2).
  __host__ __device__ static constexpr int quad_group(int i) { return i / 16 * 2 + i % 16 / 2; }
  template <class T, int kFirst>
  __device__ __forceinline__ static void add_matrix_quad(Acc& acc, const void* x, int64_t ld, float scale, int m0, int n0,
                                                         int thread) {
    static_assert(sizeof(T) == 2 && kQuadRows, "fragment epilogue: 16-byte quad accesses need a 16-bit type and the quad layout");
    using P = frag_detail::Pair<T>;
    const T* q = static_cast<const T*>(x) + static_cast<int64_t>(m0) * ld + n0;
    uint4 v[kQuadGroups];
    for_each_quad_group<kFirst>(thread, [&](auto i0, int r, int c) {
      constexpr int g = quad_group(decltype(i0)::value - kFirst);
      v[g] = *reinterpret_cast<const uint4*>(q + static_cast<int64_t>(r) * ld + c);
    });
    for_each_quad_group<kFirst>(thread, [&](auto i0, int, int) {
      constexpr int g = quad_group(decltype(i0)::value - kFirst);
      uint32_t w[4] = {v[g].x, v[g].y, v[g].z, v[g].w};
      frag_detail::quad_transpose(w, thread % 4);
#pragma unroll
      for (int jj = 0; jj < 4; ++jj) {
        float a, b;
        P::unpack(w[jj], a, b);
        acc[i0 + 4 * jj] = fmaf(scale, a, acc[i0 + 4 * jj]);
        acc[i0 + 4 * jj + 1] = fmaf(scale, b, acc[i0 + 4 * jj + 1]);
      }
    });
  }

  // acc += scale * X(m0 + row, n0 + col) for a matrix X of type T.  `vec`: 16-byte accesses are legal.
  template <class T, int kFirst>
  __device__ __forceinline__ static void add_matrix(Acc& acc, const void* x, int64_t ld, bool row_major, bool vec,
                                                    float scale, const Params& p, int m0, int n0, bool full, int thread) {
    using P = frag_detail::Pair<T>;
    const T* base = static_cast<const T*>(x);
    if constexpr (sizeof(T) == 2 && kQuadRows) {
      if (full && row_major && vec) {
        add_matrix_quad<T, kFirst>(acc, x, ld, scale, m0, n0, thread);
        return;
      }
    }
    if (full && row_major && frag_detail::pairs_ok(x, ld, sizeof(T))) {
      const T* q = base + static_cast<int64_t>(m0) * ld + n0;
      for_each_pair<kFirst>(thread, [&](auto i, int r, int c) {
        float a, b;
        P::load(q + static_cast<int64_t>(r) * ld + c, a, b);
        acc[i] = fmaf(scale, a, acc[i]);
        acc[i + 1] = fmaf(scale, b, acc[i + 1]);
        if constexpr ((decltype(i)::value - kFirst) % 32 == 30) __syncwarp();  // at most 16 loads in flight (no spills)
      });
    } else {
      for_each<kFirst>(thread, [&](auto i, int r, int c) {
        const int gm = m0 + r, gn = n0 + c;
        if (gm < p.m && gn < p.n) {
          const int64_t off = row_major ? static_cast<int64_t>(gm) * ld + gn : static_cast<int64_t>(gn) * ld + gm;
          acc[i] = fmaf(scale, P::load1(base + off), acc[i]);
        }
        if constexpr ((decltype(i)::value - kFirst) % 16 == 15) __syncwarp();  // at most 16 loads in flight (no spills)
      });
    }
  }

  static_assert(output_types_are(Dtype::bf16, Dtype::f16, Dtype::f32), "fragment epilogue: dispatch_type's cases are kOutputTypes");
  template <class F>
  __device__ __forceinline__ static void dispatch_type(Dtype t, F&& f) {
    switch (t) {
      case Dtype::bf16: f(__nv_bfloat16{}); break;
      case Dtype::f16: f(__half{}); break;
      case Dtype::f32: f(float{}); break;
      default: __trap();  // 8-bit and integer types: gemm_validate rejects them for D, C and the bias
    }
  }

  // acc += bias[n0 + col] for a bias along N of type T covering the whole tile, its pairs aligned.
  template <class T, int kFirst>
  __device__ __forceinline__ static void add_bias_columns(Acc& acc, const void* bias, int n0, int thread) {
    using P = frag_detail::Pair<T>;
    const T* b = static_cast<const T*>(bias) + n0;
    for_each_pair<kFirst>(thread, [&](auto i, int, int c) {  // registers i, i + 1: columns c, c + 1
      float x, y;
      P::load(b + c, x, y);
      acc[i] += x;
      acc[i + 1] += y;
    });
  }

  // acc += bias[col] for a 16-bit bias along N whose copy in shared memory `s` starts at the column of register 0 (the
  // Hopper kernels stage a unit's bias there during its main loop).  By the quad property (kQuadRows) registers
  // 4 j + {0, 1} and 4 j + {2, 3} share columns 8 j + 2 t, + 1: one 4-byte ld.shared per j, all issued before the first
  // add.
  template <class T, int kFirst>
  __device__ __forceinline__ static void add_bias_columns_smem(Acc& acc, const unsigned char* s, int thread) {
    static_assert(sizeof(T) == 2 && kQuadRows && kFirst % 4 == 0, "fragment epilogue: 16-bit pairs in the quad layout");
    constexpr int kWords = kChunk / 4;
    const auto ct = Atom::c_thread(thread);
    uint32_t w[kWords];
    frag_detail::static_for<kWords>([&](auto jj) {
      constexpr auto cv = Atom::template c_value<kFirst + 4 * decltype(jj)::value>();
      arch::ld_shared_u32(w[jj], s + 2 * (ct.col + cv.col));
    });
    frag_detail::static_for<kWords>([&](auto jj) {
      constexpr int i = kFirst + 4 * decltype(jj)::value;
      float x, y;
      Numeric<T>::unpack2(w[jj], x, y);
      acc[i] += x;
      acc[i + 1] += y;
      acc[i + 2] += x;
      acc[i + 3] += y;
    });
  }
  // acc += bias[row] for a 16-bit bias along M whose copy in shared memory `s` starts at the tile's first row: by the
  // quad property a thread's registers hold two rows, r (4 j + {0, 1}) and r + 8 (4 j + {2, 3}).
  template <class T, int kFirst>
  __device__ __forceinline__ static void add_bias_rows_smem(Acc& acc, const unsigned char* s, int thread) {
    static_assert(sizeof(T) == 2 && kQuadRows && kFirst % 4 == 0, "fragment epilogue: 16-bit values in the quad layout");
    const int r = Atom::c_thread(thread).row;
    uint16_t h0, h1;
    arch::ld_shared_u16(h0, s + 2 * r);
    arch::ld_shared_u16(h1, s + 2 * (r + 8));
    float b0, b1;  // (the words' low halves: row r, row r + 8)
    Numeric<T>::unpack2(static_cast<uint32_t>(h0) | static_cast<uint32_t>(h1) << 16, b0, b1);
#pragma unroll
    for (int i = kFirst; i < kFirst + kChunk; i += 4) {
      acc[i] += b0;
      acc[i + 1] += b0;
      acc[i + 2] += b1;
      acc[i + 3] += b1;
    }
  }

  template <class T, int kFirst>
  __device__ __forceinline__ static void add_bias(Acc& acc, const Params& p, int m0, int n0, int thread) {
    const T* b = static_cast<const T*>(p.bias);
    using P = frag_detail::Pair<T>;
    if (p.bias_along == kBiasScalar) {
      const float v = P::load1(b);
      for_each<kFirst>(thread, [&](auto i, int, int) { acc[i] += v; });
    } else if (p.bias_along == kBiasAlongN) {
      if (n0 + kTileN <= p.n && reinterpret_cast<uintptr_t>(b) % (2 * sizeof(T)) == 0) {
        add_bias_columns<T, kFirst>(acc, p.bias, n0, thread);
      } else {
        for_each<kFirst>(thread, [&](auto i, int, int c) {
          const int gn = n0 + c;
          acc[i] += gn < p.n ? P::load1(b + gn) : 0.f;
        });
      }
    } else {
      for_each<kFirst>(thread, [&](auto i, int r, int) {
        const int gm = m0 + r;
        acc[i] += gm < p.m ? P::load1(b + gm) : 0.f;
      });
    }
  }

  template <int kFirst, class Act>
  __device__ __forceinline__ static void activate(Acc& acc, Act act) {
#pragma unroll
    for (int i = kFirst; i < kFirst + kChunk; ++i) acc[i] = act(acc[i]);
  }

  template <class T, int kFirst, bool kRowPairStores = false>
  __device__ __forceinline__ static void store(const Acc& acc, const Params& p, int m0, int n0, bool full, int thread) {
    using P = frag_detail::Pair<T>;
    T* base = static_cast<T*>(p.d);
    if constexpr (sizeof(T) == 2 && kQuadRows) {
      if (full && p.d_row_major && p.d_vec) {
        T* q = base + static_cast<int64_t>(m0) * p.ldd + n0;
        for_each_quad_group<kFirst>(thread, [&](auto i0, int r, int c) {
          uint32_t w[4];
#pragma unroll
          for (int jj = 0; jj < 4; ++jj) w[jj] = P::pack(acc[i0 + 4 * jj], acc[i0 + 4 * jj + 1]);
          frag_detail::quad_transpose(w, thread % 4);
          *reinterpret_cast<uint4*>(q + static_cast<int64_t>(r) * p.ldd + c) = make_uint4(w[0], w[1], w[2], w[3]);
        });
        return;
      }
    }
    if constexpr (kRowPairStores && kRowPairs) {
      if (full && !p.d_row_major && frag_detail::pairs_ok(p.d, p.ldd, sizeof(T))) {
        // Column-major D: the lane with the even row (r) keeps column c and takes its partner's (r + 1, c); the
        // partner keeps column c + 1 and takes (r, c + 1).
        T* q = base + static_cast<int64_t>(n0) * p.ldd + m0;
        const bool odd = ((thread / 4) & 1) != 0;
        for_each_pair<kFirst>(thread, [&](auto i, int r, int c) {
          const float got = __shfl_xor_sync(0xffffffffu, odd ? acc[i] : acc[i + 1], 4);
          if (odd) P::store(q + static_cast<int64_t>(c + 1) * p.ldd + (r - 1), got, acc[i + 1]);
          else P::store(q + static_cast<int64_t>(c) * p.ldd + r, acc[i], got);
        });
        return;
      }
    }
    if (full && p.d_row_major && frag_detail::pairs_ok(p.d, p.ldd, sizeof(T))) {
      T* q = base + static_cast<int64_t>(m0) * p.ldd + n0;
      for_each_pair<kFirst>(thread, [&](auto i, int r, int c) {
        P::store(q + static_cast<int64_t>(r) * p.ldd + c, acc[i], acc[i + 1]);
      });
    } else {
      for_each<kFirst>(thread, [&](auto i, int r, int c) {
        const int gm = m0 + r, gn = n0 + c;
        if (gm < p.m && gn < p.n)
          P::store1(base + (p.d_row_major ? static_cast<int64_t>(gm) * p.ldd + gn : static_cast<int64_t>(gn) * p.ldd + gm),
                    acc[i]);
      });
    }
  }

  // The whole epilogue of the tile at (m0, n0), chunk by chunk.
  __device__ __forceinline__ static void apply(Acc& acc, const Params& p, int m0, int n0, int thread) {
    const bool full = m0 + kTileM <= p.m && n0 + kTileN <= p.n;
    apply_from<0>(acc, p, m0, n0, full, thread);
  }

  template <int kFirst>
  __device__ __forceinline__ static void apply_from(Acc& acc, const Params& p, int m0, int n0, bool full, int thread) {
    apply_chunk<kFirst>(acc, p, m0, n0, full, thread);
    if constexpr (kFirst + kChunk < kV) apply_from<kFirst + kChunk>(acc, p, m0, n0, full, thread);
  }

  template <int kFirst>
  __device__ __forceinline__ static void apply_chunk(Acc& acc, const Params& p, int m0, int n0, bool full, int thread) {
    compute_chunk<kFirst>(acc, p, m0, n0, full, thread);
    dispatch_type(p.d_type, [&](auto t) { store<decltype(t), kFirst>(acc, p, m0, n0, full, thread); });
  }

  // Every pass but the store: acc holds D's values (in fp32) for registers kFirst .. kFirst + kChunk - 1.
  template <int kFirst>
  __device__ __forceinline__ static void compute_chunk(Acc& acc, const Params& p, int m0, int n0, bool full, int thread) {
    if (p.alpha != 1.f) {
#pragma unroll
      for (int i = kFirst; i < kFirst + kChunk; ++i) acc[i] *= p.alpha;
    }
    if (p.beta != 0.f)
      dispatch_type(p.d_type, [&](auto t) {
        add_matrix<decltype(t), kFirst>(acc, p.c, p.ldc, p.c_row_major, p.c_vec, p.beta, p, m0, n0, full, thread);
      });
    if (p.bias_along != kBiasNone) {
      if (p.bias_f32) add_bias<float, kFirst>(acc, p, m0, n0, thread);
      else dispatch_type(p.d_type, [&](auto t) { add_bias<decltype(t), kFirst>(acc, p, m0, n0, thread); });
    }
    switch (p.act) {
      case Activation::none: break;
      case Activation::relu: activate<kFirst>(acc, ActEw<ew::op::Relu>{}); break;
      case Activation::gelu_tanh: activate<kFirst>(acc, ActEw<ew::op::GeluTanhHw>{}); break;
      case Activation::gelu_erf: activate<kFirst>(acc, ActEw<GeluErf>{}); break;
      case Activation::silu: activate<kFirst>(acc, ActEw<ew::op::SiluHw>{}); break;
      case Activation::leaky_relu: activate<kFirst>(acc, ActLeakyRelu{p.act_p0}); break;
      case Activation::clamp: activate<kFirst>(acc, ActClamp{p.act_p0, p.act_p1}); break;
    }
    if (p.residual)
      dispatch_type(p.d_type, [&](auto t) {
        add_matrix<decltype(t), kFirst>(acc, p.residual, p.ldr, p.r_row_major, p.r_vec, 1.f, p, m0, n0, full, thread);
      });
  }

  // ---- D through shared memory: registers kFirst .. kFirst + 31 (64 columns) into a (64, 64) tile ----
  // The stmatrix property of the atom's C layout, checked on the layout: on top of the quad property, lane l
  // of warp w holds rows 16 w + l / 4 (+ 8): the 8 x 8 block (row half h, column block j) of a warp is one
  // stmatrix matrix whose thread t holds (row t / 4, columns 2 (t % 4), +1) in registers 4 j + 2 h, +1.
  static constexpr bool stmatrix_rows() {
    if (!kQuadRows || Atom::kM != 64 || Atom::kThreads != 128) return false;
    for (int t = 0; t < Atom::kThreads; ++t)
      if (Atom::c_thread(t).row != 16 * (t / 32) + (t % 32) / 4) return false;
    return true;
  }
  static constexpr bool kStmatrixRows = stmatrix_rows();
  // The staging tile: 64 rows of 64 16-bit elements, 128-byte swizzled (the TMA store's box and swizzle).
  static constexpr atom::SmemTileSm90 kStageTile = atom::sw128_tile(64, 2);
  static_assert(kStageTile.matches_hw_sw128(), "fragment epilogue: the staging tile must match the TMA 128-byte swizzle");
  static constexpr int kStageCols = static_cast<int>(kStageTile.row_elems());  // 64 columns = 32 registers
  static constexpr int kStageWords = Atom::kM * kStageCols / (2 * Atom::kThreads);  // words of two 16-bit values a thread stages (16)

  // Writes D's values of registers kFirst .. kFirst + 31 (columns 64 c .. 64 c + 63 of the fragment, c =
  // kFirst / 32) as type T into `tile` (1024-byte aligned, kStageTile): row-major, tile(m, n), or with
  // kTrans column-major, tile(n, m) (stmatrix .trans): packed (pack_pairs), then stage_packed_sw128.
  template <class T, int kFirst, bool kTrans = false>
  __device__ __forceinline__ static void stage_sw128(const Acc& acc, unsigned char* tile, int thread) {
    static_assert(kFirst % 32 == 0, "fragment epilogue: a staging tile is 32 registers from a multiple of 32");
    uint32_t pk[kStageWords];
    pack_pairs<T, kFirst>(acc, pk);
    stage_packed_sw128<0, kTrans>(pk, tile, thread);
  }
  // D's values of registers kFirst .. as 16-bit pairs of type T, the words stmatrix stores: pk[k] = (acc[kFirst + 2 k],
  // acc[kFirst + 2 k + 1]) for every word of pk.  A fragment packed this way needs half the registers, and
  // stage_packed_sw128 stages it later (the bare cooperative kernel stages a unit's D during the next unit's main loop).
  template <class T, int kFirst = 0, int kWords>
  __device__ __forceinline__ static void pack_pairs(const Acc& acc, uint32_t (&pk)[kWords]) {
    static_assert(kFirst + 2 * kWords <= kV, "fragment epilogue: the pairs lie inside the fragment");
    frag_detail::static_for<kWords>([&](auto kk) {
      constexpr int k = decltype(kk)::value;
      pk[k] = frag_detail::Pair<T>::pack(acc[kFirst + 2 * k], acc[kFirst + 2 * k + 1]);
    });
  }
  // The four x4 matrix accesses of a thread's 16 staged words, in order: f(i, addr) for words pk[i .. i + 3] (column
  // blocks j, j + 1 of the chunk at word kFirstWord, i = kFirstWord + 2 j), addr the row this lane gives (lane l: row
  // l % 8 of matrix l / 8; with kTrans tile(n, m)).  The swizzle spreads a matrix's 8 rows of 16 bytes over all 32
  // banks: no bank conflicts.  stage_packed_sw128 and load_packed_sw128 share it, so a staged tile reads back into the
  // words that staged it.
  template <int kFirstWord, bool kTrans, int kWords, class Byte, class F>
  __device__ __forceinline__ static void for_each_packed_x4(Byte* tile, int thread, F&& f) {
    static_assert(kStmatrixRows && kFirstWord % kStageWords == 0 && kFirstWord + kStageWords <= kWords,
                  "fragment epilogue: staging needs the stmatrix layout and 16 words from a multiple of 16");
    const int lane = thread % 32;
    const int q = lane / 8;                                                // the matrix this lane addresses
    const int m = Atom::c_thread(thread & ~31).row + 8 * (q & 1);          // its first row
    constexpr Swizzle kSw = kStageTile.tile.swizzle;
    constexpr Layout kLayout = kStageTile.tile.layout;
    frag_detail::static_for<4>([&](auto jp) {
      constexpr int j = 2 * decltype(jp)::value;                          // column blocks j, j + 1 of this chunk
      const int n = 8 * (j + (q >> 1));                                    // its first column
      const Int off = kTrans ? kSw(static_layout<kLayout>(n + lane % 8, m)) : kSw(static_layout<kLayout>(m + lane % 8, n));
      f(std::integral_constant<int, kFirstWord + 2 * j>{}, tile + off * 2);
    });
  }
  // stage_sw128 of packed words: pk[kFirstWord .. kFirstWord + 15] (registers 2 kFirstWord .. + 31) into `tile`: four
  // stmatrix.x4 per warp, each two column blocks x two row halves.
  template <int kFirstWord, bool kTrans, int kWords>
  __device__ __forceinline__ static void stage_packed_sw128(const uint32_t (&pk)[kWords], unsigned char* tile, int thread) {
    for_each_packed_x4<kFirstWord, kTrans, kWords>(tile, thread, [&](auto ic, unsigned char* addr) {
      constexpr int i = decltype(ic)::value;
      const uint32_t r[4] = {pk[i], pk[i + 1], pk[i + 2], pk[i + 3]};
      if constexpr (kTrans) arch::stmatrix_x4_trans(addr, r);
      else arch::stmatrix_x4(addr, r);
    });
  }
  // The inverse of stage_packed_sw128 (ldmatrix [.trans] at the same addresses): a 16-bit matrix that TMA loaded into a
  // tile of kStageTile's layout, read into pk[kFirstWord .. kFirstWord + 15] in the accumulator's (thread, value) order.
  template <int kFirstWord, bool kTrans, int kWords>
  __device__ __forceinline__ static void load_packed_sw128(uint32_t (&pk)[kWords], const unsigned char* tile, int thread) {
    for_each_packed_x4<kFirstWord, kTrans, kWords>(tile, thread, [&](auto ic, const unsigned char* addr) {
      constexpr int i = decltype(ic)::value;
      uint32_t r[4];
      if constexpr (kTrans) arch::ldmatrix_x4_trans(r, addr);
      else arch::ldmatrix_x4(r, addr);
      pk[i] = r[0]; pk[i + 1] = r[1]; pk[i + 2] = r[2]; pk[i + 3] = r[3];
    });
  }

  // The second half of a deferred epilogue, on a staged tile (kStageTile: 64 x 64 16-bit values, tile(m, n), or with
  // kTrans tile(n, m); shared::cta addresses) in place: x -> act(x) [+ R] in fp32, written back as TD, for the rows (m)
  // of staging warps w0 .. w1 - 1 (16 each), by one warp.  x was staged as f16 pairs, except where byte w of `parked`
  // is 1: bf16 pairs.  With kResidual, R is a 16-bit matrix of type TD that TMA loaded into a tile of the same layout
  // at `rtile`, so one offset addresses both.  A warp's part is 4 steps of 16 bytes a lane (4 rows, or with kTrans 2
  // columns of 16 rows: 512 contiguous bytes once swizzled, 4 wavefronts, no bank conflicts), kBatch steps loaded
  // before any is used (beside wgmma a shared load waits hundreds of cycles: docs/PERF.md): two without a residual or
  // a bias, one with either (the store warps have 40 registers).  Generic loads and stores: the caller fences them against the
  // TMA unit.
  // With kBias, x + B before the activation, B a vector of TD in global memory along the tile's columns (`cols`) or rows:
  // the tile's first one is bias[e_base] (4-byte aligned pairs from there), and `lim` of them lie inside D.
  template <class TD, bool kTrans, bool kResidual, bool kBias = false, class Act>
  __device__ __forceinline__ static void finish_staged_sw128(uint32_t tile, uint32_t rtile, uint32_t parked, Act act, int lane,
                                                             int w0, int w1, const void* bias = nullptr, int e_base = 0, int lim = 0,
                                                             bool cols = true) {
    static_assert(sizeof(TD) == 2 && kStageTile.row_elems() == 64 && kStmatrixRows,
                  "fragment epilogue: 64 x 64 16-bit staged tiles, 16 rows a staging warp");
    constexpr Swizzle kSw = kStageTile.tile.swizzle;
    constexpr Layout kLayout = kStageTile.tile.layout;
    constexpr int kBatch = kResidual || kBias ? 1 : 2;
#pragma unroll 1
    for (int it = 4 * w0; it < 4 * w1; it += kBatch) {  // steps it .. it + kBatch - 1: warp it / 4's rows
      const int w = it / 4;
      const bool bf = (parked >> (8 * w)) & 0xffu;
      uint32_t off[kBatch], x[kBatch][4], r[kResidual ? 4 : 1], b[kBias ? kBatch : 1][4];
#pragma unroll
      for (int q = 0; q < kBatch; ++q) {
        const int t = (it % 4 + q) * 32 + lane;  // 16 bytes of warp w's rows
        const int m = kTrans ? 16 * w + 8 * (t % 2) : 16 * w + t / 8;
        const int n = kTrans ? t / 2 : 8 * (t % 8);
        off[q] = 2u * static_cast<uint32_t>(kTrans ? kSw(static_layout<kLayout>(n, m)) : kSw(static_layout<kLayout>(m, n)));
        arch::ld_shared_v4_u32(x[q], tile + off[q]);
        // The chunk's 8 values lie along one column (kTrans) or one row: a bias along that direction gives 8 values
        // (pairs from `cols ? n : m`), the other one value for all 8.
        if constexpr (kBias) chunk_bias(b[q], bias, e_base, lim, cols != kTrans, cols ? n : m);
      }
      if constexpr (kResidual) arch::ld_shared_v4_u32(r, rtile + off[0]);
#pragma unroll
      for (int q = 0; q < kBatch; ++q) {
#pragma unroll
        for (int i = 0; i < 4; ++i) {  // a word at a time
          float x0, x1;
          if (bf) frag_detail::Pair<__nv_bfloat16>::unpack(x[q][i], x0, x1);
          else frag_detail::Pair<__half>::unpack(x[q][i], x0, x1);
          if constexpr (kBias) {
            float b0, b1;
            frag_detail::Pair<TD>::unpack(b[q][i], b0, b1);
            x0 += b0;
            x1 += b1;
          }
          x0 = act(x0);
          x1 = act(x1);
          if constexpr (kResidual) {
            float r0, r1;
            frag_detail::Pair<TD>::unpack(r[i], r0, r1);
            x0 += r0;
            x1 += r1;
          }
          x[q][i] = frag_detail::Pair<TD>::pack(x0, x1);
        }
        arch::st_shared_v4_u32(tile + off[q], x[q]);
      }
    }
  }

  // finish_staged_sw128's bias words of one chunk (16-bit values bias[e_base + e]): with `vec` the pairs at e0, e0 + 2,
  // e0 + 4, e0 + 6 (a value at or past `lim` reads as 0: D's edge), otherwise the value at e0 in both halves of every word.
  __device__ __forceinline__ static void chunk_bias(uint32_t (&b)[4], const void* bias, int e_base, int lim, bool vec, int e0) {
    const uint16_t* v16 = static_cast<const uint16_t*>(bias) + e_base;
    if (vec) {
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const int e = e0 + 2 * k;
        b[k] = e + 2 <= lim ? *reinterpret_cast<const uint32_t*>(v16 + e) : e < lim ? static_cast<uint32_t>(v16[e]) : 0u;
      }
    } else {
      const uint32_t v = e0 < lim ? static_cast<uint32_t>(v16[e0]) : 0u;
#pragma unroll
      for (int k = 0; k < 4; ++k) b[k] = v | (v << 16);
    }
  }

  // stage_sw128 with D's type (f16, else bf16) and order picked at run time.
  template <int kFirst>
  __device__ __forceinline__ static void stage_sw128_as(const Acc& acc, Dtype d_type, bool row_major, unsigned char* tile,
                                                        int thread) {
    if (row_major) {
      if (d_type == Dtype::f16) stage_sw128<__half, kFirst, false>(acc, tile, thread);
      else stage_sw128<__nv_bfloat16, kFirst, false>(acc, tile, thread);
    } else {
      if (d_type == Dtype::f16) stage_sw128<__half, kFirst, true>(acc, tile, thread);
      else stage_sw128<__nv_bfloat16, kFirst, true>(acc, tile, thread);
    }
  }
};

#endif  // __CUDACC__

}  // namespace tessera::epilogue
