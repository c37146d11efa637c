// include/tessera/kernel/gemm_sm90/persistent_epilogue.hpp -- a unit's epilogue in the persistent Hopper GEMM
// (kernel/gemm_sm90/persistent_kernel.hpp): the consumer's fragment through the fused epilogue
// (kernel/epilogue/fragment_epilogue.hpp) into D, from registers or through the staging slots that the store warps
// (persistent_store_warps.hpp) hand to the TMA unit; the specialised straight-line bodies of the common menus; the
// bare kernel's body; and the bare cooperative kernel's deferred staging.  K is the GemmSm90Persistent instantiation:
// its shared storage, barriers, staging slots and ring helpers are the ones described there.
#pragma once

#include <cstdint>      // uint32_t
#include <type_traits>  // std::integral_constant

#include "tessera/arch/config.hpp"                        // TESSERA_ARCH_SM90A
#include "tessera/arch/sm80_cp_async.hpp"                 // cp_async_ca_zfill, cp_async_mbarrier_arrive_noinc
#include "tessera/arch/sm90_mbarrier.hpp"                 // mbarrier_wait_parity
#include "tessera/arch/sm90_tma.hpp"                      // fence_proxy_async_shared_cta
#include "tessera/arch/sm90_warpgroup.hpp"                // named_barrier_sync / arrive
#include "tessera/kernel/epilogue/fragment_epilogue.hpp"  // FragmentEpilogue, ActNone, ActEw
#include "tessera/kernel/gemm_sm80/config.hpp"            // Params
#include "tessera/kernel/gemm_sm90/trace.hpp"             // TTRACE, TCLK (the timeline probe)

namespace tessera::gemm_sm90 {

template <class K>
struct PersistentEpilogue {
#if defined(__CUDACC__) && defined(TESSERA_ARCH_SM90A)
  using Params = gemm_sm80::Params;
  using SharedStorage = typename K::SharedStorage;
  using Stage = typename K::Stage;
  using Atom = typename K::Atom;
  using Epilogue = typename K::Epilogue;
  using Phases = typename K::Phases;
  using ElemT = typename K::ElemT;
  static constexpr int kBM = K::kBM, kBN = K::kBN, kHalves = K::kHalves, kSlots = K::kSlots;
  static constexpr int kRingSlot = K::kRingSlot, kRingSlot3 = K::kRingSlot3;
  static constexpr Dtype kElemType = K::kElemType;
  static constexpr uint32_t kHandoffThreads = K::kHandoffThreads;

  // ---- the bare cooperative kernel's deferred staging (K::consume stages a unit's D during the next main loop) ----
  // The menus that kernel runs (the host launches it for these alone, gemm.cu; KernelInfo::bare_menus): D of the
  // operands' type through TMA, beta = 0, any alpha, a bias of D's type per column or per row (4-byte aligned) or none,
  // no activation, relu, gelu_tanh or silu, and a residual through TMA (p.r_tma) or none.  After the drain the consumer
  // applies them to its fragment in fp32 (the bias from sh.bias[c], which stage_bias copied during the main loop), as
  // the specialised bodies do, and packs D; the staging then runs in the next unit's main loop.  kMenuBare: D = A B,
  // packed as it is.
  static constexpr int kMenuBare = 0, kMenuFused = 1;
  __device__ __forceinline__ static int defer_menu(const Params& p) {
    const epilogue::Params& e = p.ep;
    return e.alpha != 1.f || e.bias_along != epilogue::kBiasNone || e.act != Activation::none || e.residual != nullptr
               ? kMenuFused
               : kMenuBare;
  }
  // After the drain: the fragment of a unit, through the menu, into pk as D's 16-bit pairs.  With a residual (p.r_tma)
  // the store warp has loaded slots 0-1's residual boxes into the two buffers (rfull[c][0..1], phase `rph`); the
  // consumer adds them after the first half's activation, hands the buffers back (staged barriers, "read"), and adds
  // slots 2-3's, which the store warp loads into the same buffers meanwhile (rfull[c][2..3]), after the second half's
  // (persistent_store_warps.hpp, store_tiles_deferred_residual).
  __device__ __forceinline__ static void pack_deferred(float (&acc)[Atom::kValuesC], const Params& p, SharedStorage& sh, int c,
                                                       uint32_t (&pk)[Atom::kValuesC / 2], uint32_t rph) {
    static_assert(Atom::kValuesC == 2 * Epilogue::kChunk, "gemm_sm90 persistent: the fragment is two chunks");
    constexpr int kC = Epilogue::kChunk;
    const epilogue::Params& e = p.ep;
    if (defer_menu(p) == kMenuFused) {
      const int thread = K::thread_now();
      auto half = [&](auto hc) {  // registers 64 h .. 64 h + 63: alpha, the bias, the activation
        constexpr int kF = decltype(hc)::value * kC;
        if (e.alpha != 1.f) {
#pragma unroll
          for (int i = kF; i < kF + kC; ++i) acc[i] *= e.alpha;
        }
        if (e.bias_along == epilogue::kBiasAlongN) Epilogue::template add_bias_columns_smem<ElemT, kF>(acc, sh.bias[c], thread);
        else if (e.bias_along == epilogue::kBiasAlongM) Epilogue::template add_bias_rows_smem<ElemT, kF>(acc, sh.bias[c], thread);
        switch (e.act) {
          case Activation::relu: Epilogue::template activate<kF>(acc, ActEw<ew::op::Relu>{}); break;
          case Activation::gelu_tanh: Epilogue::template activate<kF>(acc, ActEw<ew::op::GeluTanhHw>{}); break;
          case Activation::silu: Epilogue::template activate<kF>(acc, ActEw<ew::op::SiluHw>{}); break;
          default: break;
        }
        if (p.r_tma) {  // this half's two residual boxes, in buffers 0 and 1, then the buffers handed back
          constexpr int kR = decltype(hc)::value * 2;  // rfull[c][kR], [kR + 1]
          arch::mbarrier_wait_parity(&sh.rfull[c][kR], rph);
          arch::mbarrier_wait_parity(&sh.rfull[c][kR + 1], rph);
          if (e.d_row_major) {
            Epilogue::template add_sw128<ElemT, kF, false>(acc, sh.d.tile[c][0], thread);
            Epilogue::template add_sw128<ElemT, kF + 32, false>(acc, sh.d.tile[c][1], thread);
          } else {
            Epilogue::template add_sw128<ElemT, kF, true>(acc, sh.d.tile[c][0], thread);
            Epilogue::template add_sw128<ElemT, kF + 32, true>(acc, sh.d.tile[c][1], thread);
          }
          arch::named_barrier_arrive(K::staged_bar(c, decltype(hc)::value), kHandoffThreads);  // "read"
        }
      };
      half(std::integral_constant<int, 0>{});
      half(std::integral_constant<int, 1>{});
    }
    Epilogue::template pack_pairs<ElemT>(acc, pk);
  }
  // Slot j of the packed fragment pk (words 16 j .. 16 j + 15: columns 64 j .. 64 j + 63 of the consumer's 64 rows) into
  // buffer j % 2 once store warp c has freed it (its store of slot j - 2, or of the previous unit's slot j + 2, has read
  // it), then handed to that warp (persistent_store_warps.hpp, store_tiles<true>).
  __device__ __forceinline__ static void stage_deferred(const uint32_t (&pk)[Atom::kValuesC / 2], const Params& p, SharedStorage& sh,
                                                        int c, int j) {
    auto one = [&](auto jc) {
      constexpr int kJ = decltype(jc)::value, b = kJ % 2;
      unsigned char* tile = sh.d.tile[c][b];
      arch::named_barrier_sync(K::free_bar(c, b), kHandoffThreads);
      if (p.ep.d_row_major) Epilogue::template stage_packed_sw128<kJ * Epilogue::kStageWords, false>(pk, tile, K::thread_now());
      else Epilogue::template stage_packed_sw128<kJ * Epilogue::kStageWords, true>(pk, tile, K::thread_now());
      arch::fence_proxy_async_shared_cta();  // the stmatrix writes are visible to the TMA unit
      arch::named_barrier_arrive(K::staged_bar(c, b), kHandoffThreads);
    };
    static_assert(kSlots == 4 && Atom::kValuesC / 2 == kSlots * Epilogue::kStageWords, "gemm_sm90 persistent: four slots of 16 words");
    switch (j) {
      case 0: one(std::integral_constant<int, 0>{}); break;
      case 1: one(std::integral_constant<int, 1>{}); break;
      case 2: one(std::integral_constant<int, 2>{}); break;
      default: one(std::integral_constant<int, 3>{}); break;
    }
  }

  // The epilogue of this warpgroup's part of a unit at (m0, n0) (64 x 256), one half (64 registers, Epilogue::kChunk;
  // half_col) at a time: the passes, then D from registers or, with
  // p.d_tma, through the staging tiles that store warp c hands to the TMA unit.  One call site per body: the passes
  // are compiled once.  `unit` (the warpgroup's local unit index) only feeds the timeline probe.
  static constexpr int kConsumerRows = K::kConsumerRows;  // rows of D one consumer stores per unit
  // `body`: unit_body(p, m0, n0), worked out by the consumer while the unit's last wgmma drain.
  template <bool kBareOnly>
  __device__ __forceinline__ static void epilogue_unit(float (&acc)[kHalves][Atom::kValuesC], const Params& p, int m0, int n0,
                                                       SharedStorage& sh, int c, int thread, [[maybe_unused]] int unit,
                                                       unsigned char* ring, Phases ph, [[maybe_unused]] int body) {
    if (p.d_tma && m0 >= p.m) return;  // rows past M: nothing to store (the register path tests each row)
    if (thread == 0) TTRACE(1 + c, unit, 15, TCLK());  // probe: event 15 = the unit's epilogue entered
    [[maybe_unused]] const bool full = m0 + kConsumerRows <= p.m && n0 + kBN <= p.n;
    // The kernel compiled for the bare GEMM through TMA alone (the host launches it only then): one body, whole or
    // partial tiles alike (the TMA store clips the edges), and none of the other bodies' code.
    if constexpr (kBareOnly) {
      if (p.ep.d_row_major) epilogue_bare<false>(acc, sh, c, thread, unit, ring, ph);
      else epilogue_bare<true>(acc, sh, c, thread, unit, ring, ph);
    } else {
      switch (body) {
        case 0: return epilogue_fast<ActNone, kNoBias, false>(acc, p, m0, n0, sh, c, thread, unit, ring, ph, ActNone{});
        case 1: return epilogue_fast<ActNone, kBiasCols, false>(acc, p, m0, n0, sh, c, thread, unit, ring, ph, ActNone{});
        case 2: return epilogue_fast<ActEw<ew::op::Relu>, kBiasCols, false>(acc, p, m0, n0, sh, c, thread, unit, ring, ph, {});
        case 3: return epilogue_fast<ActEw<ew::op::GeluTanhHw>, kBiasCols, false>(acc, p, m0, n0, sh, c, thread, unit, ring, ph, {});
        case 4: return epilogue_fast<ActEw<ew::op::SiluHw>, kBiasCols, false>(acc, p, m0, n0, sh, c, thread, unit, ring, ph, {});
        case 5: return epilogue_fast<ActNone, kBiasCols, true>(acc, p, m0, n0, sh, c, thread, unit, ring, ph, ActNone{});
        case 6: return epilogue_fast<ActEw<ew::op::Relu>, kBiasCols, true>(acc, p, m0, n0, sh, c, thread, unit, ring, ph, {});
        case 7: return epilogue_fast<ActEw<ew::op::GeluTanhHw>, kBiasCols, true>(acc, p, m0, n0, sh, c, thread, unit, ring, ph, {});
        case 8: return epilogue_fast<ActEw<ew::op::SiluHw>, kBiasCols, true>(acc, p, m0, n0, sh, c, thread, unit, ring, ph, {});
        case 9: return epilogue_fast<ActNone, kBiasRows, false>(acc, p, m0, n0, sh, c, thread, unit, ring, ph, ActNone{});
        case 10: return epilogue_fast<ActEw<ew::op::Relu>, kBiasRows, false>(acc, p, m0, n0, sh, c, thread, unit, ring, ph, {});
        case 11: return epilogue_fast<ActEw<ew::op::GeluTanhHw>, kBiasRows, false>(acc, p, m0, n0, sh, c, thread, unit, ring, ph, {});
        case 12: return epilogue_fast<ActEw<ew::op::SiluHw>, kBiasRows, false>(acc, p, m0, n0, sh, c, thread, unit, ring, ph, {});
        case 13: return epilogue_fast<ActNone, kBiasRows, true>(acc, p, m0, n0, sh, c, thread, unit, ring, ph, ActNone{});
        case 14: return epilogue_fast<ActEw<ew::op::Relu>, kBiasRows, true>(acc, p, m0, n0, sh, c, thread, unit, ring, ph, {});
        case 15: return epilogue_fast<ActEw<ew::op::GeluTanhHw>, kBiasRows, true>(acc, p, m0, n0, sh, c, thread, unit, ring, ph, {});
        case 16: return epilogue_fast<ActEw<ew::op::SiluHw>, kBiasRows, true>(acc, p, m0, n0, sh, c, thread, unit, ring, ph, {});
        default: break;
      }
      epilogue_chunk<0>(acc[0], p, m0, n0, full, sh, c, thread, ring, ph);
    }
  }
  // The second half's registers (64-127 of the atom) into the first's.
  __device__ __forceinline__ static void next_half(float (&acc)[kHalves][Atom::kValuesC]) {
    constexpr int kHalf = Epilogue::kChunk;
#pragma unroll
    for (int i = 0; i < kHalf; ++i) acc[0][i] = acc[0][i + kHalf];
  }

  // ---- specialised epilogues: the common menus as straight-line code ----
  // The general epilogue tests each pass at run time and carries code for every type, order and activation;
  // its taken path jumps through a large body, and the warps stall on instruction fetch (ncu: no_instruction
  // was the first stall reason of the epilogue).  A unit whose tile is whole, with D of the operands' type (either
  // order), leaving through TMA, beta = 0, and either nothing else (case 0), a per-column bias of D's type, one of
  // four activations and an optional row-major residual (cases 1-8), or a per-row bias of D's type and one of four
  // activations (cases 9-12: a column-major A makes the host compute D^T, whose rows are D's columns), runs one of
  // these bodies instead: the passes fixed at compile time, one loop iteration per half of the fragment (the second
  // half's registers moved into the first), so that each body is about a thousand instructions.  -1: the general
  // epilogue.
  using ActNone = epilogue::ActNone;
  template <class Op>
  using ActEw = epilogue::ActEw<Op>;
  static constexpr int kNoBias = 0, kBiasCols = 1, kBiasRows = 2;  // epilogue_fast's bias: none, along N, along M
  __device__ __forceinline__ static int specialised(const Params& p, bool full) {
    const epilogue::Params& e = p.ep;
    if (!p.d_tma || !full || e.d_type != kElemType || e.beta != 0.f) return -1;
    if (e.bias_along == epilogue::kBiasNone)
      return e.alpha == 1.f && e.act == Activation::none && e.residual == nullptr ? 0 : -1;
    if (e.bias_f32 || (e.bias_along != epilogue::kBiasAlongN && e.bias_along != epilogue::kBiasAlongM)) return -1;
    if (reinterpret_cast<uintptr_t>(e.bias) % 4 != 0) return -1;  // (stage_bias copies 4-byte words)
    // A residual only arriving through TMA in the staging tiles (p.r_tma).
    if (e.residual != nullptr && !p.r_tma) return -1;
    int act = 0;
    switch (e.act) {
      case Activation::none: act = 0; break;
      case Activation::relu: act = 1; break;
      case Activation::gelu_tanh: act = 2; break;
      case Activation::silu: act = 3; break;
      default: return -1;
    }
    if (e.bias_along == epilogue::kBiasAlongM) return (e.residual != nullptr ? 13 : 9) + act;
    return 1 + act + (e.residual != nullptr ? 4 : 0);
  }
  // The body of the unit of this consumer at (m0, n0): specialised(p, full).  Cases 1-16 have a bias, whose words are
  // in sh.bias[c] when the body starts: the consumer asks at the unit's start (stage_bias) and again before its drain
  // (for the wait and for epilogue_unit's switch; the parameters' loads then run in the drain's shadow).
  __device__ __forceinline__ static int unit_body(const Params& p, int m0, int n0) {
    return specialised(p, m0 + kConsumerRows <= p.m && n0 + kBN <= p.n);
  }
  // The unit's bias for consumer c into sh.bias[c]: its kBN columns from n0, or its kConsumerRows rows from m0, as 4-byte
  // words, one cp.async per thread, then one cp.async.mbarrier.arrive.noinc per thread on sh.bias_full[c] (count 128),
  // for which the consumer waits as its last wgmma drain (every unit that staged, so the phases stay in step).  The
  // named barrier first: every warp of the warpgroup is past the previous unit's reads of sh.bias[c] (a warp may reach
  // this unit's start while another still reads them).  The copy runs beside the main loop, so the epilogue (a
  // specialised body, or the bare cooperative kernel's pack_deferred) reads shared memory, and no global load of the
  // epilogue is in flight when its fences and barriers come.
  __device__ __forceinline__ static void stage_bias(const Params& p, SharedStorage& sh, int c, int m0, int n0) {
    static_assert(kBN * 2 <= K::kBiasBytes && kConsumerRows * 2 <= K::kBiasBytes && kBN % 2 == 0 && kConsumerRows % 2 == 0,
                  "gemm_sm90 persistent: a unit's bias fits sh.bias");
    static_assert(kBN / 2 <= 128 && kConsumerRows / 2 <= 128, "gemm_sm90 persistent: one bias word per thread");
    arch::named_barrier_sync(static_cast<uint32_t>(c == 0 ? K::Barrier::consumer0 : K::Barrier::consumer1), 128);
    const int thread = K::thread_now();
    const bool cols = p.ep.bias_along == epilogue::kBiasAlongN;
    const int words = (cols ? kBN : kConsumerRows) / 2;
    // Clipped at D's edge (the bare cooperative kernel stages edge units too): the bytes past N (M) are zero-filled
    // and not read.  (The bias's base is 4-byte aligned, so each source word is.)
    const int e = (cols ? n0 : m0) + 2 * thread, left = (cols ? p.n : p.m) - e;
    const unsigned char* src = static_cast<const unsigned char*>(p.ep.bias) + (left > 0 ? 2 * static_cast<int64_t>(e) : 0);
    if (thread < words) arch::cp_async_ca_zfill<4>(sh.bias[c] + 4 * thread, src, left >= 2 ? 4u : left == 1 ? 2u : 0u);
    arch::cp_async_mbarrier_arrive_noinc(&sh.bias_full[c]);
  }
  template <class Act, int kBias, bool kResidual>
  __device__ __forceinline__ static void epilogue_fast(float (&acc)[kHalves][Atom::kValuesC], const Params& p, int m0, int n0,
                                                       SharedStorage& sh, int c, int thread, [[maybe_unused]] int unit,
                                                       unsigned char* ring, Phases ph, Act act) {
    constexpr int kHalf = Epilogue::kChunk;  // registers of one half
    static_assert(kHalf == 64 && kHalves * Atom::kValuesC == 2 * kHalf, "gemm_sm90 persistent: two halves of two staging tiles each");
    if (thread == 0) TTRACE(1 + c, unit, 14, TCLK());  // probe: event 14 = the specialised body entered
#pragma unroll 1
    for (int half = 0; half < 2; ++half) {
      // registers 0 .. kHalf - 1 of acc[0] hold rows [m0, m0 + 64) x columns [nh, nh + 128)
      const int nh = n0 + K::half_col(half);
      if constexpr (kBias != kNoBias) {  // (case 0 has alpha = 1)
        if (p.ep.alpha != 1.f) {
#pragma unroll
          for (int i = 0; i < kHalf; ++i) acc[0][i] *= p.ep.alpha;
        }
        // (from sh.bias[c], stage_bias: the unit's columns from n0, or the consumer's rows from m0)
        if constexpr (kBias == kBiasCols) Epilogue::template add_bias_columns_smem<ElemT, 0>(acc[0], sh.bias[c] + 2 * (nh - n0), thread);
        else Epilogue::template add_bias_rows_smem<ElemT, 0>(acc[0], sh.bias[c], thread);
      }
      // probe: events 8 + 3 half, 9 + 3 half, 10 + 3 half = this half's bias added, activation done, both tiles staged
      if (thread == 0) TTRACE(1 + c, unit, 8 + 3 * half, TCLK());
      Epilogue::template activate<0>(acc[0], act);
      if (thread == 0) TTRACE(1 + c, unit, 9 + 3 * half, TCLK());
      // (The residual, kResidual, waits in the staging tiles: stage_tma_tile adds it.)  One proxy fence for the half's
      // two tiles, then both handed over.
      // probe: event 6 = the fourth staging tile's buffer was free
      stage_tma_tile<0, kResidual>(acc[0], p, sh, c, thread, 2 * half, ring, ph, kResidual);
      stage_tma_tile<32, kResidual>(acc[0], p, sh, c, thread, 2 * half + 1, ring, ph, kResidual, half == 1 ? unit : -1, 6);
      arch::fence_proxy_async_shared_cta();  // the stmatrix writes are visible to the TMA unit
      hand_over(c, 2 * half);
      hand_over(c, 2 * half + 1);
      if (thread == 0) TTRACE(1 + c, unit, 10 + 3 * half, TCLK());
      if (half == 0) next_half(acc);
    }
  }
  // The bare GEMM's epilogue in the kernel compiled for it alone: D = A B in the operands' type, kTrans for a
  // column-major D.  Every slot's registers are fixed at compile time (no loop over the halves, so no register moves
  // between them), and one proxy fence covers two slots: slots 0 and 1 (the consumer's buffers, once the previous
  // unit's stores have read them), then slots 2 and 3 (the unit's last ring stage; slot 3 once `drained` completes).
  template <bool kTrans>
  __device__ __forceinline__ static void epilogue_bare(float (&acc)[kHalves][Atom::kValuesC], SharedStorage& sh, int c, int thread,
                                                       [[maybe_unused]] int unit, unsigned char* ring, Phases ph) {
    static_assert(kHalves * Atom::kValuesC == kSlots * 32, "gemm_sm90 persistent: 32 registers per staging slot");
    // slot j: registers 32 (j % (Atom::kValuesC / 32)) .. + 31 of the atom j / (Atom::kValuesC / 32)
    auto stage = [&](auto jc, unsigned char* tile) {
      constexpr int j = decltype(jc)::value, kPer = Atom::kValuesC / 32;
      Epilogue::template stage_sw128<ElemT, 32 * (j % kPer), kTrans>(acc[j / kPer], tile, thread);
    };
    if (thread == 0) TTRACE(1 + c, unit, 7, TCLK());
    arch::named_barrier_sync(K::free_bar(c, 0), kHandoffThreads);
    stage(std::integral_constant<int, 0>{}, sh.d.tile[c][0]);
    arch::named_barrier_sync(K::free_bar(c, 1), kHandoffThreads);
    stage(std::integral_constant<int, 1>{}, sh.d.tile[c][1]);
    arch::fence_proxy_async_shared_cta();  // the stmatrix writes are visible to the TMA unit
    arch::named_barrier_arrive(K::staged_bar(c, 0), kHandoffThreads);
    arch::named_barrier_arrive(K::staged_bar(c, 1), kHandoffThreads);
    stage(std::integral_constant<int, 2>{}, ring);
    arch::mbarrier_wait_parity(&sh.drained, ph.d);  // slot 3: B rows of the last stage
    if (thread == 0) TTRACE(1 + c, unit, 6, TCLK());
    stage(std::integral_constant<int, 3>{}, ring + sizeof(Stage::a));
    arch::fence_proxy_async_shared_cta();
    arch::named_barrier_arrive(K::staged_ring_bar(c), kHandoffThreads);
    arch::named_barrier_arrive(K::staged_ring3_bar(c), kHandoffThreads);
  }
  // The general body reads the residual from global memory; with p.r_tma the store warp still loads it into the
  // staging tiles (its protocol does not depend on the unit's body), so the staging waits for those loads.
  template <int kFirst>
  __device__ __forceinline__ static void epilogue_chunk(float (&acc)[Atom::kValuesC], const Params& p, int m0, int n0, bool full,
                                                        SharedStorage& sh, int c, int thread, unsigned char* ring, Phases ph) {
    Epilogue::template compute_chunk<kFirst>(acc, p.ep, m0, n0, full, thread);
    if (p.d_tma) {
      static_assert(Epilogue::kChunk == 64, "gemm_sm90 persistent: a register chunk is two staging tiles");
      // staging tiles (slots) kFirst / 32 and + 1, 64 columns (32 registers) each
      store_tma_tile<kFirst, false>(acc, p, sh, c, thread, kFirst / 32, ring, ph, p.r_tma);
      store_tma_tile<kFirst + 32, false>(acc, p, sh, c, thread, kFirst / 32 + 1, ring, ph, p.r_tma);
    } else {
      Epilogue::dispatch_type(p.ep.d_type, [&](auto t) {
        Epilogue::template store<decltype(t), kFirst>(acc, p.ep, m0, n0, full, thread);
      });
    }
    if constexpr (kFirst + Epilogue::kChunk < Atom::kValuesC)
      epilogue_chunk<kFirst + Epilogue::kChunk>(acc, p, m0, n0, full, sh, c, thread, ring, ph);
  }
  // The staging tile of D from registers kFirst .. kFirst + 31 (64 columns) in slot `slot`: stmatrix into its
  // buffer once store warp c has freed it (slot 2, in the ring stage `ring`, is free once this warpgroup's wgmma
  // are complete; slot 3, the B rows after it, once `drained` completes), then handed to that warp (a staged
  // barrier; the warp knows the tile's place, store_tiles).
  // `rt` (p.r_tma): the tile holds the residual (slot 3 in the ring stage, kRingSlot3) once rfull says so; kAddR adds
  // it to the fragment (add_sw128) before D is staged in place.
  template <int kFirst, bool kAddR>
  __device__ __forceinline__ static void store_tma_tile(float (&acc)[Atom::kValuesC], const Params& p, SharedStorage& sh,
                                                        int c, int thread, int slot, unsigned char* ring, Phases ph, bool rt) {
    stage_tma_tile<kFirst, kAddR>(acc, p, sh, c, thread, slot, ring, ph, rt);
    arch::fence_proxy_async_shared_cta();  // the stmatrix writes are visible to the TMA unit
    hand_over(c, slot);
  }
  // Slot `slot` to store warp c (the staged barrier it waits on); the writes are fenced (proxy) before.
  __device__ __forceinline__ static void hand_over(int c, int slot) {
    arch::named_barrier_arrive(slot == kRingSlot ? K::staged_ring_bar(c) : slot == kRingSlot3 ? K::staged_ring3_bar(c) : K::staged_bar(c, slot == 1 ? 1 : 0),
                               kHandoffThreads);
  }
  // store_tma_tile's first part: the slot's buffer free (or the residual in it, added), then the stmatrix writes.
  template <int kFirst, bool kAddR>
  __device__ __forceinline__ static void stage_tma_tile(float (&acc)[Atom::kValuesC], const Params& p, SharedStorage& sh,
                                                        int c, int thread, int slot, unsigned char* ring, Phases ph, bool rt,
                                                        [[maybe_unused]] int tr_unit = -1, [[maybe_unused]] int tr_ev = 0) {
    const int b = slot == 1 ? 1 : 0;
    unsigned char* tile = slot == kRingSlot ? ring : slot == kRingSlot3 ? ring + sizeof(Stage::a) : sh.d.tile[c][b];
    if (rt) {
      arch::mbarrier_wait_parity(&sh.rfull[c][slot], ph.r);
      if constexpr (kAddR) Epilogue::template add_sw128_as<kFirst>(acc, p.ep.d_type, p.ep.d_row_major, tile, thread);
    } else if (slot == kRingSlot3) {
      // B rows of the last stage: free once every consumer warp's wgmma of the unit are complete.
      arch::mbarrier_wait_parity(&sh.drained, ph.d);
    } else if (slot != kRingSlot) {
      // Free: the store that last read it (of this unit or the previous one) is past its reads.
      arch::named_barrier_sync(K::free_bar(c, b), kHandoffThreads);
    }
    if (tr_unit >= 0 && thread == 0) TTRACE(1 + c, tr_unit, tr_ev, TCLK());
    Epilogue::template stage_sw128_as<kFirst>(acc, p.ep.d_type, p.ep.d_row_major, tile, thread);
  }
#endif  // __CUDACC__ && TESSERA_ARCH_SM90A
};

}  // namespace tessera::gemm_sm90
