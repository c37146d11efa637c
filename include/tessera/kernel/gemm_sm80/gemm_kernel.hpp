// include/tessera/kernel/gemm_sm80/gemm_kernel.hpp -- the Ampere tensor-core GEMM with a fused epilogue:
//   D = act(alpha * A B + beta * C + bias) + residual,  fp32 accumulation in registers, D written once.
//
// Instructions: cp.async (global -> shared, 16 bytes, zero-fill), ldmatrix / ldmatrix.trans (shared ->
// registers), mma.sync m16n8k16 (bf16, f16) or m16n8k8 (tf32).  Runs on sm_80 and later (sm_90 too).
//
// Structure of one block (BLK_M x BLK_N tile of D, a range of K tiles when split-K):
//   1. setup     tile coordinates from the grouped rasterization, K range of this split
//   2. prologue  cp.async the first kStages-1 K tiles of A and B into shared-memory stages
//   3. mainloop  per K tile: per k-step, ldmatrix the next k-step's fragments (double buffer) while the
//                tensor cores multiply the current one; at k-step 0 issue the cp.async of the K tile
//                kStages-1 ahead into the stage freed one K tile ago; one barrier per K tile
//   4. epilogue  accumulators -> fp32 staging tile in D's order -> split-K reduction -> one pass
//                (tessera/kernel/epilogue/staged_epilogue.hpp)
//
// Residues: any M, N, K >= 1.  A row or K index outside the matrix is zero-filled in shared memory
// (cp.async with src-size 0), so partial tiles multiply zeros; the epilogue stores only inside D.
// Alignment: when an operand's base or leading dimension does not allow 16-byte copies (Params::a_vec /
// b_vec false), or a 16-byte unit straddles the edge of the matrix, that unit is copied element by
// element through registers instead (slower, same result).
//
// NOTES:
//   * BLK_K = 128 bytes, so one shared-memory row of a K-major tile is one swizzle period of 8 units, and
//     the k-steps of a K tile are 4 for every element type (4 x k16 for 16-bit, 4 x k8 for tf32).
//   * The wait before the barrier of K tile kt guarantees that K tile kt+1 has landed: committed groups =
//     (kStages-1) + (kt+1), at most kStages-2 pending.  Every iteration commits a group, empty or not.
//   * The stage overwritten at k-step 0 of K tile kt is the one read during K tile kt-1; its last
//     ldmatrix happened before the barrier at the end of K tile kt-1.
#pragma once

#include <cuda_runtime.h>  // __global__, dim3

#include <cstdint>      // uint32_t, int64_t
#include <type_traits>  // std::conditional_t

#include "tessera/arch/sm75_ldmatrix.hpp"                // ldmatrix_x4, ldmatrix_x4_trans
#include "tessera/arch/sm80_cp_async.hpp"                // cp_async_cg_16, cp_async_commit, cp_async_wait
#include "tessera/arch/sm80_mma.hpp"                     // cvt_rna_tf32
#include "tessera/atom/tiled_mma.hpp"                    // TiledMma
#include "tessera/kernel/epilogue/staged_epilogue.hpp"   // StagedEpilogue
#include "tessera/kernel/gemm_sm80/config.hpp"           // Params, Major, element traits, tiles
#include "tessera/kernel/gemm_sm80/smem_layout.hpp"      // SmemKMajor, SmemMNMajor

namespace tessera::gemm_sm80 {

template <class Elem, class Tile, Major kAMajor, Major kBMajor>
struct GemmSm80 {
  using Atom = typename Elem::Atom;
  using Storage = typename Elem::Storage;
  static constexpr int kBytes = Elem::kBytes;
  static constexpr int kUnit = 16 / kBytes;   // elements per 16-byte unit
  static constexpr int kBK = 128 / kBytes;    // BLK_K
  static constexpr int kBM = Tile::kBM, kBN = Tile::kBN, kStages = Tile::kStages;
  using Mma = atom::TiledMma<Atom, Tile::kWarpsM, Tile::kWarpsN, kBM / Tile::kWarpsM, kBN / Tile::kWarpsN>;
  static constexpr int kThreads = Mma::kThreads;
  static constexpr int kMT = Mma::kAtomsM, kNT = Mma::kAtomsN;  // atoms per warp tile
  static constexpr int kKSteps = kBK / Atom::kK;                 // mma k-steps per K tile
  static constexpr bool Elem_is_tf32 = Elem::kTf32;
  static constexpr bool kAMajorIsMn = kAMajor == Major::mn, kBMajorIsMn = kBMajor == Major::mn;

  using SmemA = std::conditional_t<kAMajor == Major::k, SmemKMajor<kBM, kBytes>, SmemMNMajor<kBM, kBytes>>;
  using SmemB = std::conditional_t<kBMajor == Major::k, SmemKMajor<kBN, kBytes>, SmemMNMajor<kBN, kBytes>>;
  static constexpr int kStageElemsA = kBM * kBK;  // (BLK_M,BLK_K)
  static constexpr int kStageElemsB = kBN * kBK;  // (BLK_N,BLK_K)
  static constexpr int kPipeBytes = kStages * (kStageElemsA + kStageElemsB) * kBytes;
  using Epi = epilogue::StagedEpilogue<kBM, kBN, kThreads>;
  static constexpr int kSmemBytes = kPipeBytes > Epi::kSmemBytes ? kPipeBytes : Epi::kSmemBytes;

  // ---- preconditions ----
  static_assert(Tile::kThreads == kThreads, "tile config and tiled MMA disagree on the thread count");
  static_assert(kKSteps % 2 == 0, "the fragment double buffer alternates by k-step parity: k-steps per K tile must be even");
  static_assert(kStages >= 2 && kStages <= 8, "the cp.async pipeline needs 2..8 stages (wait_group takes 0..7)");
  static_assert(kAMajor == Major::k || kBM % (128 / kBytes) == 0,
                "an M-major A tile needs BLK_M to be a multiple of 128 bytes of elements (one swizzle atom)");
  static_assert(kBMajor == Major::k || kBN % (128 / kBytes) == 0,
                "an N-major B tile needs BLK_N to be a multiple of 128 bytes of elements (one swizzle atom)");
  static_assert(kSmemBytes <= 227 * 1024, "shared memory per block exceeds what any sm_80/sm_90 GPU offers");

#if defined(__CUDACC__)
  // ---------------------------------------------------------------------------------------------------
  // global -> shared: one 16-byte unit
  // ---------------------------------------------------------------------------------------------------
  // Copies the unit at (line, first contiguous index) of operand x into dst.  `valid` = elements of the
  // unit inside the matrix (<= 0: none), line_ok = the line is inside the matrix.
  __device__ __forceinline__ static void copy_unit(Storage* dst, const Storage* x, int64_t line, int cont, int64_t ld,
                                                   bool line_ok, int valid, bool vec) {
    if (line_ok && valid >= kUnit && vec) {
      arch::cp_async_cg_16(dst, x + line * ld + cont, true);
    } else if (!line_ok || valid <= 0) {
      arch::cp_async_cg_16(dst, x, false);  // src-size 0: zero-fill, nothing read
    } else {
      const Storage* src = x + line * ld + cont;
      uint32_t w[4];
      if constexpr (kBytes == 2) {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const uint32_t lo = 2 * i < valid ? src[2 * i] : 0u;
          const uint32_t hi = 2 * i + 1 < valid ? src[2 * i + 1] : 0u;
          w[i] = lo | (hi << 16);
        }
      } else {
#pragma unroll
        for (int i = 0; i < 4; ++i) w[i] = i < valid ? src[i] : 0u;
      }
      *reinterpret_cast<uint4*>(dst) = make_uint4(w[0], w[1], w[2], w[3]);
    }
  }

  // One operand's (kRows, BLK_K) tile of one stage.  K-major: a line is one row (M or N index) of 8
  // units along K; MN-major: a line is one K index of kRows / kUnit units along M or N.  Consecutive
  // threads take consecutive units of a line, so a warp reads whole 128-byte segments.
  template <Major kMajor, int kRows, class Smem>
  struct Loader {
    static constexpr int kUnitsPerLine = kMajor == Major::k ? kBK / kUnit : kRows / kUnit;
    static constexpr int kLines = kMajor == Major::k ? kRows : kBK;
    static constexpr int kUnits = kLines * kUnitsPerLine;
    static_assert(kUnits % kThreads == 0, "loader: the units of a tile must divide evenly among the threads");
    static_assert(kThreads % kUnitsPerLine == 0, "loader: a line's units must not straddle a thread step");
    static constexpr int kPerThread = kUnits / kThreads;
    static constexpr int kLineStep = kThreads / kUnitsPerLine;

    // Tile origin (r0 along M/N, k0 along K) of operand x with `rows` M/N extent and `k` K extent.
    // A line is a row of x in memory (an M/N index when K-major, a K index when MN-major), `ld` apart.
    __device__ __forceinline__ static void load(Storage* s, const Storage* x, int64_t ld, bool vec, int rows, int k,
                                                int r0, int k0) {
      const int line0 = threadIdx.x / kUnitsPerLine;
      const int unit = threadIdx.x % kUnitsPerLine;
#pragma unroll
      for (int i = 0; i < kPerThread; ++i) {
        const int line = line0 + i * kLineStep;
        if constexpr (kMajor == Major::k) {
          const int gr = r0 + line, gk = k0 + unit * kUnit;
          copy_unit(s + Smem::unit_offset(line, unit), x, gr, gk, ld, gr < rows, k - gk, vec);
        } else {
          const int gk = k0 + line, gr = r0 + unit * kUnit;
          copy_unit(s + Smem::unit_offset(line, unit), x, gk, gr, ld, gk < k, rows - gr, vec);
        }
      }
    }
    // The same for a tile entirely inside x with 16-byte copies legal: no predicates, one base pointer.
    __device__ __forceinline__ static void load_full(Storage* s, const Storage* x, int64_t ld, int r0, int k0) {
      const int line0 = threadIdx.x / kUnitsPerLine;
      const int unit = threadIdx.x % kUnitsPerLine;
      const int line_origin = kMajor == Major::k ? r0 : k0, cont_origin = kMajor == Major::k ? k0 : r0;
      const Storage* src = x + static_cast<int64_t>(line_origin + line0) * ld + cont_origin + unit * kUnit;
      const int64_t step = kLineStep * ld;
#pragma unroll
      for (int i = 0; i < kPerThread; ++i)
        arch::cp_async_cg_16(s + Smem::unit_offset(line0 + i * kLineStep, unit), src + i * step, true);
    }
  };
  using LoaderA = Loader<kAMajor, kBM, SmemA>;
  using LoaderB = Loader<kBMajor, kBN, SmemB>;
#endif  // __CUDACC__

  // ---------------------------------------------------------------------------------------------------
  // shared -> registers: where each lane points ldmatrix (byte offsets inside one stage)
  // ---------------------------------------------------------------------------------------------------
  // The row a lane supplies for fragment i (mt for A, pair p for B) at k-step ks is split into a
  // per-thread part, computed once, and a compile-time part:
  //     offset(i, ks) = (base ^ x(i, ks)) + add(i, ks)
  // This is exact because the swizzle XORs the 16-byte unit index with (row % 8) and every term that
  // varies with i or ks touches unit bits that no other term sets (the warp tile is a power of two >= 16
  // and tile rows are 128 bytes).  tests/kernel_gemm/gemm_layout_test.cpp checks it against the plain
  // layout functions SmemKMajor::offset / SmemMNMajor::offset for every thread, i and ks.
  static constexpr int kRowBytes = 128;                 // one smem row of a K-major tile / of an MN-major atom
  static constexpr int kAtomBytes = kBK * kRowBytes;     // one (BLK_K, 128-byte) atom of an MN-major tile
  static_assert((Mma::kWarpTileM & (Mma::kWarpTileM - 1)) == 0 && (Mma::kWarpTileN & (Mma::kWarpTileN - 1)) == 0,
                "warp tiles must be powers of two: the ldmatrix address split relies on carry-free unit sums");

  // A (kAMajor == k, or 16-bit M-major), fragment mt: per-thread part.
  TESSERA_HD static constexpr uint32_t frag_a_base(int warp, int lane) {
    const int wm0 = Mma::warp_m(warp) * Mma::kWarpTileM, l7 = lane & 7;
    if (kAMajor == Major::k) {
      // row wm0 + (lane & 15), unit (lane >> 4) ^ (row & 7)
      return static_cast<uint32_t>((wm0 + (lane & 15)) * kRowBytes + ((((lane >> 4) & 1) ^ l7) << 4));
    } else {
      // ldmatrix.trans: matrix j = lane / 8 is k rows 8*(j/2) + [0,8) at m units 2*mt + (j & 1)
      const int j = lane >> 3;
      return static_cast<uint32_t>((wm0 / (kRowBytes / kBytes)) * kAtomBytes + (l7 + ((j >> 1) << 3)) * kRowBytes +
                                   ((((wm0 / kUnit) & 7) ^ (j & 1) ^ l7) << 4));
    }
  }
  TESSERA_HD static constexpr uint32_t frag_a_offset(uint32_t base, int mt, int ks) {
    if (kAMajor == Major::k) {
      return (base ^ static_cast<uint32_t>((2 * ks) << 4)) + static_cast<uint32_t>(mt * 16 * kRowBytes);
    } else {
      return (base ^ static_cast<uint32_t>(((2 * mt) & 7) << 4)) +
             static_cast<uint32_t>(((2 * mt) / 8) * kAtomBytes + ks * 16 * kRowBytes);
    }
  }
  // Reference: the same offset from the plain layout functions.
  TESSERA_HD static constexpr uint32_t frag_a_offset_ref(int warp, int lane, int mt, int ks) {
    const int wm0 = Mma::warp_m(warp) * Mma::kWarpTileM;
    if (kAMajor == Major::k) {
      return static_cast<uint32_t>(SmemA::unit_offset(wm0 + mt * 16 + (lane & 15), 2 * ks + (lane >> 4)) * kBytes);
    } else {
      const int j = lane >> 3;
      return static_cast<uint32_t>(
          SmemA::offset(ks * 16 + (lane & 7) + ((j >> 1) << 3), wm0 + mt * 16 + ((j & 1) << 3)) * kBytes);
    }
  }

  // B, fragment pair p (atoms 2p and 2p+1): per-thread part.
  TESSERA_HD static constexpr uint32_t frag_b_base(int warp, int lane) {
    const int wn0 = Mma::warp_n(warp) * Mma::kWarpTileN, l7 = lane & 7;
    const int khalf = (lane >> 3) & 1, nhalf = lane >> 4;
    if (kBMajor == Major::k) {
      // row wn0 + 8*nhalf + (lane & 7), unit khalf ^ (row & 7)
      return static_cast<uint32_t>((wn0 + (nhalf << 3) + l7) * kRowBytes + ((khalf ^ l7) << 4));
    } else {
      // ldmatrix.trans: k rows 8*khalf + [0,8) at n units 2*p + nhalf
      return static_cast<uint32_t>((wn0 / (kRowBytes / kBytes)) * kAtomBytes + (l7 + (khalf << 3)) * kRowBytes +
                                   ((((wn0 / kUnit) & 7) ^ nhalf ^ l7) << 4));
    }
  }
  TESSERA_HD static constexpr uint32_t frag_b_offset(uint32_t base, int p, int ks) {
    if (kBMajor == Major::k) {
      return (base ^ static_cast<uint32_t>((2 * ks) << 4)) + static_cast<uint32_t>(p * 16 * kRowBytes);
    } else {
      return (base ^ static_cast<uint32_t>(((2 * p) & 7) << 4)) +
             static_cast<uint32_t>(((2 * p) / 8) * kAtomBytes + ks * 16 * kRowBytes);
    }
  }
  TESSERA_HD static constexpr uint32_t frag_b_offset_ref(int warp, int lane, int p, int ks) {
    const int wn0 = Mma::warp_n(warp) * Mma::kWarpTileN;
    if (kBMajor == Major::k) {
      return static_cast<uint32_t>(
          SmemB::unit_offset(wn0 + p * 16 + (lane & 7) + ((lane >> 4) << 3), 2 * ks + ((lane >> 3) & 1)) * kBytes);
    } else {
      return static_cast<uint32_t>(
          SmemB::offset(ks * 16 + (lane & 7) + (((lane >> 3) & 1) << 3), wn0 + p * 16 + ((lane >> 4) << 3)) * kBytes);
    }
  }

  // tf32 operands stored M/N-major are read one 32-bit element at a time (ldmatrix cannot transpose 32-bit
  // elements).  Element (m = wm0 + 16 mt + g + 8 hm, k = 8 ks + t + 4 hk) of A, split the same way:
  //   offset = (tf32_a_base(warp, lane, hk, hm) ^ x(mt)) + add(mt, ks)
  TESSERA_HD static constexpr uint32_t tf32_a_base(int warp, int lane, int hk, int hm) {
    const int wm0 = Mma::warp_m(warp) * Mma::kWarpTileM, g = lane >> 2, t = lane & 3, k7 = t + 4 * hk;
    return static_cast<uint32_t>((wm0 / 32) * kAtomBytes + k7 * kRowBytes + ((((2 * hm) | (g >> 2)) ^ k7) << 4) + (g & 3) * 4);
  }
  TESSERA_HD static constexpr uint32_t tf32_a_offset(uint32_t base, int mt, int ks) {
    return (base ^ static_cast<uint32_t>((4 * (mt & 1)) << 4)) + static_cast<uint32_t>((mt >> 1) * kAtomBytes + ks * 8 * kRowBytes);
  }
  TESSERA_HD static constexpr uint32_t tf32_a_offset_ref(int warp, int lane, int mt, int ks, int hk, int hm) {
    const int wm0 = Mma::warp_m(warp) * Mma::kWarpTileM;
    return static_cast<uint32_t>(SmemA::offset(ks * 8 + (lane & 3) + 4 * hk, wm0 + mt * 16 + (lane >> 2) + 8 * hm) * kBytes);
  }
  // Element (k = 8 ks + t + 4 hk, n = wn0 + 8 nt + g) of B.
  TESSERA_HD static constexpr uint32_t tf32_b_base(int warp, int lane, int hk) {
    const int wn0 = Mma::warp_n(warp) * Mma::kWarpTileN, g = lane >> 2, t = lane & 3, k7 = t + 4 * hk;
    return static_cast<uint32_t>((wn0 / 32) * kAtomBytes + k7 * kRowBytes + (((g >> 2) ^ k7) << 4) + (g & 3) * 4);
  }
  TESSERA_HD static constexpr uint32_t tf32_b_offset(uint32_t base, int nt, int ks) {
    return (base ^ static_cast<uint32_t>((2 * (nt & 3)) << 4)) + static_cast<uint32_t>((nt >> 2) * kAtomBytes + ks * 8 * kRowBytes);
  }
  TESSERA_HD static constexpr uint32_t tf32_b_offset_ref(int warp, int lane, int nt, int ks, int hk) {
    const int wn0 = Mma::warp_n(warp) * Mma::kWarpTileN;
    return static_cast<uint32_t>(SmemB::offset(ks * 8 + (lane & 3) + 4 * hk, wn0 + nt * 8 + (lane >> 2)) * kBytes);
  }
  static_assert(!Elem::kTf32 || kAMajor == Major::k || Mma::kWarpTileM % 32 == 0,
                "tf32 with an M-major A needs a warp tile M that is a multiple of 32 (one 128-byte atom)");
  static_assert(!Elem::kTf32 || kBMajor == Major::k || Mma::kWarpTileN % 32 == 0,
                "tf32 with an N-major B needs a warp tile N that is a multiple of 32 (one 128-byte atom)");

#if defined(__CUDACC__)
  // ---------------------------------------------------------------------------------------------------
  // shared -> registers: the fragments of k-step ks (see tessera/atom/mma_sm80.hpp for the maps)
  // ---------------------------------------------------------------------------------------------------
  __device__ __forceinline__ static uint32_t tf32_of(Storage bits) { return arch::cvt_rna_tf32(__uint_as_float(bits)); }

  // A: kMT fragments of the warp's rows.  sA = this stage's A tile; base = frag_a_base(warp, lane).
  __device__ __forceinline__ static void load_frag_a(uint32_t (&fa)[kMT][4], const Storage* sA, int ks, uint32_t base,
                                                     int wm0, int lane) {
    const unsigned char* s = reinterpret_cast<const unsigned char*>(sA);
    if constexpr (kAMajor == Major::k) {
      // ldmatrix x4: matrices (rows 0-7,k lo) (rows 8-15,k lo) (rows 0-7,k hi) (rows 8-15,k hi) = a0..a3
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt) {
        arch::ldmatrix_x4(fa[mt], s + frag_a_offset(base, mt, ks));
        if constexpr (Elem::kTf32) {
#pragma unroll
          for (int j = 0; j < 4; ++j) fa[mt][j] = tf32_of(fa[mt][j]);
        }
      }
    } else if constexpr (!Elem::kTf32) {
      // ldmatrix x4 .trans from (K, M) storage; transposed, thread t receives (m = t/4, k = 2(t%4), +1)
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt) arch::ldmatrix_x4_trans(fa[mt], s + frag_a_offset(base, mt, ks));
    } else {
      // tf32 from (K, M) storage: load a0..a3 = (g,t) (g+8,t) (g,t+4) (g+8,t+4) one by one; `base` is unused,
      // the four per-thread parts tf32_a_base(., ., hk, hm) are recomputed here (hoisted by the compiler).
      (void)base; (void)wm0;
      const int warp = static_cast<int>(threadIdx.x) / 32;
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
        for (int j = 0; j < 4; ++j)
          fa[mt][j] = tf32_of(*reinterpret_cast<const Storage*>(s + tf32_a_offset(tf32_a_base(warp, lane, j >> 1, j & 1), mt, ks)));
    }
  }

  // B: kNT fragments of the warp's columns, loaded in pairs (atoms 2p, 2p+1).
  __device__ __forceinline__ static void load_frag_b(uint32_t (&fb)[kNT][2], const Storage* sB, int ks, uint32_t base,
                                                     int wn0, int lane) {
    const unsigned char* s = reinterpret_cast<const unsigned char*>(sB);
    if constexpr (kBMajor == Major::k || !Elem::kTf32) {
      // K-major: ldmatrix x4, matrices (n lo,k lo) (n lo,k hi) (n hi,k lo) (n hi,k hi);
      // N-major: ldmatrix x4 .trans, matrices (k lo,n lo) (k hi,n lo) (k lo,n hi) (k hi,n hi).
      // Either way registers 0,1 are b0,b1 of atom 2p and registers 2,3 those of atom 2p+1.
#pragma unroll
      for (int p = 0; p < kNT / 2; ++p) {
        uint32_t r[4];
        if constexpr (kBMajor == Major::k) {
          arch::ldmatrix_x4(r, s + frag_b_offset(base, p, ks));
        } else {
          arch::ldmatrix_x4_trans(r, s + frag_b_offset(base, p, ks));
        }
        if constexpr (Elem::kTf32) {
#pragma unroll
          for (int j = 0; j < 4; ++j) r[j] = tf32_of(r[j]);
        }
        fb[2 * p][0] = r[0]; fb[2 * p][1] = r[1];
        fb[2 * p + 1][0] = r[2]; fb[2 * p + 1][1] = r[3];
      }
    } else {
      // tf32 from (K, N) storage: b0 = (k t, n g), b1 = (k t+4, n g), one by one.
      (void)base; (void)wn0;
      const int warp = static_cast<int>(threadIdx.x) / 32;
#pragma unroll
      for (int nt = 0; nt < kNT; ++nt)
#pragma unroll
        for (int j = 0; j < 2; ++j)
          fb[nt][j] = tf32_of(*reinterpret_cast<const Storage*>(s + tf32_b_offset(tf32_b_base(warp, lane, j), nt, ks)));
    }
  }

  // ---------------------------------------------------------------------------------------------------
  // the block
  // ---------------------------------------------------------------------------------------------------
  __device__ static void run(const Params& p) {
    extern __shared__ __align__(128) unsigned char smem_raw[];
    Storage* sA = reinterpret_cast<Storage*>(smem_raw);  // (BLK_M,BLK_K,kStages)
    Storage* sB = sA + kStages * kStageElemsA;           // (BLK_N,BLK_K,kStages)

    // ---- setup ----
    int tm, tn;
    grouped_tile(static_cast<int>(blockIdx.x), p.tiles_m, p.tiles_n, p.group_m, tm, tn);
    const int m0 = tm * kBM, n0 = tn * kBN;
    const int split = static_cast<int>(blockIdx.z);
    const int k_tiles = (p.k + kBK - 1) / kBK;
    // split z takes K tiles [z * k_tiles / splits, (z+1) * k_tiles / splits): non-empty for splits <= k_tiles
    const int kt0 = static_cast<int>(static_cast<int64_t>(split) * k_tiles / p.splits);
    const int nk = static_cast<int>(static_cast<int64_t>(split + 1) * k_tiles / p.splits) - kt0;
    const Storage* gA = static_cast<const Storage*>(p.a);
    const Storage* gB = static_cast<const Storage*>(p.b);
    const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
    const int wm0 = Mma::warp_m(warp) * Mma::kWarpTileM;
    const int wn0 = Mma::warp_n(warp) * Mma::kWarpTileN;

    float acc[kMT][kNT][4];  // (MMA_M,MMA_N,4) fp32 accumulators
#pragma unroll
    for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
      for (int nt = 0; nt < kNT; ++nt)
#pragma unroll
        for (int i = 0; i < 4; ++i) acc[mt][nt][i] = 0.f;

    // Tiles entirely inside A / B (the common case) skip the per-unit predicates.
    const bool a_full = p.a_vec && m0 + kBM <= p.m, b_full = p.b_vec && n0 + kBN <= p.n;
    auto load_stage = [&](int stage, int kt) {
      const int k0 = kt * kBK;
      if (a_full && k0 + kBK <= p.k) LoaderA::load_full(sA + stage * kStageElemsA, gA, p.lda, m0, k0);
      else LoaderA::load(sA + stage * kStageElemsA, gA, p.lda, p.a_vec, p.m, p.k, m0, k0);
      if (b_full && k0 + kBK <= p.k) LoaderB::load_full(sB + stage * kStageElemsB, gB, p.ldb, n0, k0);
      else LoaderB::load(sB + stage * kStageElemsB, gB, p.ldb, p.b_vec, p.n, p.k, n0, k0);
    };

    // ---- prologue: K tiles 0 .. kStages-2 in flight ----
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) {
      if (s < nk) load_stage(s, kt0 + s);
      arch::cp_async_commit();
    }
    arch::cp_async_wait<kStages - 2>();
    __syncthreads();

    uint32_t fa[2][kMT][4];  // A fragments, double-buffered over k-steps
    uint32_t fb[2][kNT][2];  // B fragments
    int read_stage = 0, write_stage = kStages - 1;
    const uint32_t a_base = frag_a_base(warp, lane);
    const uint32_t b_base = frag_b_base(warp, lane);
    load_frag_a(fa[0], sA, 0, a_base, wm0, lane);
    load_frag_b(fb[0], sB, 0, b_base, wn0, lane);

    // ---- mainloop ----
    for (int kt = 0; kt < nk; ++kt) {
#pragma unroll
      for (int ks = 0; ks < kKSteps; ++ks) {
        if (ks == kKSteps - 1) {
          // K tile kt+1 has landed and every warp is done reading the stage that k-step 0 refills next.
          arch::cp_async_wait<kStages - 2>();
          __syncthreads();
          read_stage = read_stage + 1 == kStages ? 0 : read_stage + 1;
        }
        const int ks_next = (ks + 1) % kKSteps;
        load_frag_a(fa[(ks + 1) & 1], sA + read_stage * kStageElemsA, ks_next, a_base, wm0, lane);
        load_frag_b(fb[(ks + 1) & 1], sB + read_stage * kStageElemsB, ks_next, b_base, wn0, lane);
        if (ks == 0) {
          if (kt + kStages - 1 < nk) load_stage(write_stage, kt0 + kt + kStages - 1);
          arch::cp_async_commit();
          write_stage = write_stage + 1 == kStages ? 0 : write_stage + 1;
        }
#pragma unroll
        for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
          for (int nt = 0; nt < kNT; ++nt) Atom::fma(acc[mt][nt], fa[ks & 1][mt], fb[ks & 1][nt]);
      }
    }
    arch::cp_async_wait<0>();
    __syncthreads();  // the pipeline's shared memory becomes the staging tile

    // ---- epilogue ----
    float* stage = reinterpret_cast<float*>(smem_raw);  // staging tile, D's order
    const bool rm = p.ep.d_row_major;
#pragma unroll
    for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
      for (int nt = 0; nt < kNT; ++nt) {
        // accumulator values (g, 2t) (g, 2t+1) (g+8, 2t) (g+8, 2t+1) of atom (mt, nt)
        const int r = wm0 + mt * 16 + (lane >> 2), c = wn0 + nt * 8 + 2 * (lane & 3);
        Epi::stage_pair(stage, rm, r, c, acc[mt][nt][0], acc[mt][nt][1]);
        Epi::stage_pair(stage, rm, r + 8, c, acc[mt][nt][2], acc[mt][nt][3]);
      }
    __syncthreads();
    gemm_sm80::finish_tile<Epi>(stage, p, tm, tn, split);
  }
#endif  // __CUDACC__
};

#if defined(__CUDACC__)
template <class Elem, class Tile, Major kAMajor, Major kBMajor>
__global__ void __launch_bounds__(Tile::kThreads, Tile::kMinBlocks) gemm_sm80_kernel(const Params p) {
  GemmSm80<Elem, Tile, kAMajor, kBMajor>::run(p);
}
#endif

}  // namespace tessera::gemm_sm80
