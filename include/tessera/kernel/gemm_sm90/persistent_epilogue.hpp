// include/tessera/kernel/gemm_sm90/persistent_epilogue.hpp -- a unit's epilogue in the persistent Hopper GEMM
// (kernel/gemm_sm90/persistent_kernel.hpp): the consumer's fragment through the fused epilogue
// (kernel/epilogue/fragment_epilogue.hpp) into D, from registers or through the staging slots that the store warps
// (persistent_store_warps.hpp) hand to the TMA unit (the general kernel); and the bare cooperative kernel's menus, its
// bias staged during the main loop and its deferred staging.  K is the GemmSm90Persistent instantiation: its shared
// storage, barriers, staging slots and ring helpers are the ones described there.
#pragma once

#include <cstdint>      // uint32_t
#include <type_traits>  // std::integral_constant

#include "tessera/arch/config.hpp"                        // TESSERA_ARCH_SM90A
#include "tessera/arch/sm80_cp_async.hpp"                 // cp_async_ca_zfill, cp_async_mbarrier_arrive_noinc
#include "tessera/arch/sm90_mbarrier.hpp"                 // mbarrier_wait_parity
#include "tessera/arch/sm90_tma.hpp"                      // fence_proxy_async_shared_cta
#include "tessera/arch/sm90_warpgroup.hpp"                // named_barrier_sync / arrive
#include "tessera/kernel/epilogue/fragment_epilogue.hpp"  // FragmentEpilogue, ActEw
#include "tessera/kernel/gemm_sm80/config.hpp"            // Params
#include "tessera/kernel/gemm_sm90/fp8_scales.hpp"        // fp8_channel_scale
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
  using ElemT = typename K::ElemT;
  static constexpr int kBM = K::kBM, kBN = K::kBN, kHalves = K::kHalves, kSlots = K::kSlots;
  static constexpr int kRingSlot = K::kRingSlot, kRingSlot3 = K::kRingSlot3;
  static constexpr uint32_t kHandoffThreads = K::kHandoffThreads;
  template <class Op>
  using ActEw = epilogue::ActEw<Op>;

  // ---- the bare cooperative kernel's deferred staging (K::consume stages a unit's D during the next main loop) ----
  // The menus that kernel runs (the host launches it for these alone, gemm.cu; KernelInfo::bare_menus): D of the
  // operands' type through TMA, beta = 0, any alpha, a bias of D's type per column or per row (4-byte aligned) or none,
  // no activation, relu, gelu_tanh or silu, and a residual through TMA (p.r_tma) or none.  The work splits in two:
  //   consumer    after the drain, x = alpha acc + bias in fp32 (the bias from sh.bias[c], which stage_bias copied
  //               during the main loop; where the store warp finishes the menu, alpha acc alone: store_bias) -- and,
  //               unless the store warp finishes the menu, the activation -- packed into pk as 16-bit pairs; staged
  //               during the next unit's main loop;
  //   store warp  (finishes(p): a residual, or gelu_tanh / silu) act(x [+ bias]) [+ residual] on the staged tile in
  //               shared memory, in D's type, the bias read from global memory (its line prefetched into L1 before
  //               the slot is staged), then the TMA store (persistent_store_warps.hpp,
  //               FragmentEpilogue::finish_staged_sw128).  The tensor cores do not wait for that activation, the bias,
  //               the residual or its loads.
  // The block's last unit has no main loop after it to hide the store warp's pass: its consumers finish the whole unit
  // in registers (the residual read from the ring, which is free by then), bit kLastBit of `phases`
  // (stage_last_in_ring).  For the other units: without finishes(p), pk is D.  With it, alpha acc is
  // parked as f16 pairs -- 2^-11 of its magnitude from the fp32 value, an eighth of a bf16 D's own rounding of
  // alpha acc + bias where bias and product do not cancel -- except in a warp where some value passes f16's range,
  // whose values are parked as bf16 (bit kParkedBit of consume's `phases`, and the warp's byte in sh.parked[c]).
  // (The host launches this kernel with a residual only through TMA, so the residual menus are exactly p.r_tma.)
  __device__ __forceinline__ static bool finishes(const Params& p) {
    return p.r_tma || p.ep.act == Activation::gelu_tanh || p.ep.act == Activation::silu;
  }
  // The menus whose bias the store warps add (finishes(p)): the consumers add it only to the block's last unit, so the
  // drain -- the tensor cores idle -- does not carry it.
  __device__ __forceinline__ static bool store_bias(const Params& p) { return finishes(p) && p.ep.bias_along != epilogue::kBiasNone; }
  // Whether the consumers add a bias to the unit whose `phases` (consume's word, bit kLastBit set) these are: the one
  // condition under which K::consume stages it in shared memory (K::defer_bias) and pack_deferred reads it there.
  __device__ __forceinline__ static bool consumer_bias(const Params& p, uint32_t phases) {
    return p.ep.bias_along != epilogue::kBiasNone && (!store_bias(p) || ((phases >> kLastBit) & 1u));
  }
  // A unit's bias as the store warps read it for the staging tile at (m0, n): its first value bias[e_base], `lim` of
  // them from there inside D, along the columns (`cols`) or the rows (PersistentStoreWarps::prefetch_bias, finish_slot).
  struct BiasSpan {
    int e_base, lim;
    bool cols;
  };
  __device__ __forceinline__ static BiasSpan bias_span(const Params& p, int m0, int n) {
    const bool cols = p.ep.bias_along == epilogue::kBiasAlongN;
    const int e_base = cols ? n : m0;
    return {e_base, (cols ? p.n : p.m) - e_base, cols};
  }
  // Where slot j is staged in the next main loop: at K tile j << defer_log2 (2 j, or 16 j where the store warp has a
  // slot to finish before its store can free the buffer: several thousand cycles, as its shared-memory accesses wait
  // behind wgmma's operand reads; docs/PERF.md).
  __device__ __forceinline__ static int defer_log2(const Params& p) { return finishes(p) ? 4 : 1; }
  // Consumer c stages its slots defer_offset K tiles later than that (half the spacing for consumer 1), so that the two
  // warpgroups do not stage at the same K tile: at each staging K tile the other one's wgmma keep the tensor cores fed.
  __device__ __forceinline__ static int defer_offset(const Params& p, int c) { return c << (defer_log2(p) - 1); }
  // The buffer slot j is staged in: j % 2, or 0 where the store warp finishes the menu (buffer 1 then holds the slot's
  // residual box, if any).
  __device__ __forceinline__ static int defer_buffer(const Params& p, int j) { return finishes(p) ? 0 : j % 2; }
  // In consume's `phases` (beside K::kBiasBit): kParkedBit, this warp parked pk as bf16; kLastBit, the unit is the
  // block's last (set at the unit's start: one word across the main loop, not another register).
  static constexpr int kParkedBit = 2, kLastBit = 3;
  // After the drain: the fragment of a unit, alpha and the bias applied, into pk (the block's last unit: left in acc).
  __device__ __forceinline__ static void pack_deferred(float (&acc)[Atom::kValuesC], const Params& p, SharedStorage& sh, int c,
                                                       uint32_t (&pk)[Atom::kValuesC / 2], uint32_t& phases) {
    static_assert(Atom::kValuesC == 2 * Epilogue::kChunk, "gemm_sm90 persistent: the fragment is two chunks");
    constexpr int kC = Epilogue::kChunk;
    const epilogue::Params& e = p.ep;
    if (e.alpha != 1.f) {
#pragma unroll
      for (int i = 0; i < Atom::kValuesC; ++i) acc[i] *= e.alpha;
    }
    const bool last = (phases >> kLastBit) & 1u;
    if (consumer_bias(p, phases)) {  // (otherwise the store warp adds it: store_bias)
      const int thread = K::thread_now();
      auto half = [&](auto hc) {
        constexpr int kF = decltype(hc)::value * kC;
        if (e.bias_along == epilogue::kBiasAlongN) Epilogue::template add_bias_columns_smem<ElemT, kF>(acc, sh.bias[c], thread);
        else Epilogue::template add_bias_rows_smem<ElemT, kF>(acc, sh.bias[c], thread);
      };
      half(std::integral_constant<int, 0>{});
      half(std::integral_constant<int, 1>{});
    }
    if (last) {  // the block's last unit: x stays in acc, in fp32 (stage_last_in_ring)
      // (pk written, though no one reads it: otherwise its old words stay live into the block's end, and ptxas spilled
      // around the bias add.)
#pragma unroll
      for (int i = 0; i < Atom::kValuesC / 2; ++i) pk[i] = 0u;
      return;
    }
    if (!finishes(p)) {  // D packed, the activation applied here: relu or none (gelu_tanh and silu finish on the store warps)
      if (e.act == Activation::relu) {
        Epilogue::template activate<0>(acc, ActEw<ew::op::Relu>{});
        Epilogue::template activate<kC>(acc, ActEw<ew::op::Relu>{});
      }
      Epilogue::template pack_pairs<ElemT>(acc, pk);
      return;
    }
    Epilogue::template pack_pairs<__half>(acc, pk);
    // The largest |x| of the thread's pairs (an f16 inf once one overflowed), over four independent chains.
    __half2 big[4];
#pragma unroll
    for (int q = 0; q < 4; ++q) big[q] = __habs2(numeric_detail::as_pair<__half2>(pk[q]));
#pragma unroll
    for (int k = 4; k < Atom::kValuesC / 2; ++k) big[k % 4] = __hmax2(big[k % 4], __habs2(numeric_detail::as_pair<__half2>(pk[k])));
    const __half2 top = __hmax2(__hmax2(big[0], big[1]), __hmax2(big[2], big[3]));
    const bool over = __hisinf(__low2half(top)) || __hisinf(__high2half(top));
    if (__any_sync(0xffffffffu, over)) {
      Epilogue::template pack_pairs<__nv_bfloat16>(acc, pk);
      phases |= 1u << kParkedBit;
    } else {
      phases &= ~(1u << kParkedBit);
    }
  }
  // The menu's activation on the whole fragment, in fp32.
  __device__ __forceinline__ static void activate(float (&acc)[Atom::kValuesC], const Params& p) {
    auto half = [&](auto hc) {
      constexpr int kF = decltype(hc)::value * Epilogue::kChunk;
      switch (p.ep.act) {
        case Activation::relu: Epilogue::template activate<kF>(acc, ActEw<ew::op::Relu>{}); break;
        case Activation::gelu_tanh: Epilogue::template activate<kF>(acc, ActEw<ew::op::GeluTanhHw>{}); break;
        case Activation::silu: Epilogue::template activate<kF>(acc, ActEw<ew::op::SiluHw>{}); break;
        default: break;
      }
    };
    half(std::integral_constant<int, 0>{});
    half(std::integral_constant<int, 1>{});
  }
  // Slot j of the packed fragment pk (words 16 j .. 16 j + 15: columns 64 j .. 64 j + 63 of the consumer's 64 rows) into
  // its buffer (defer_buffer) once store warp c has freed it (its store of the slot that last used it has read it),
  // then handed to that warp (persistent_store_warps.hpp, store_tiles<true>).  With finishes(p) each warp first says
  // how its rows come (byte `warp` of sh.parked[c]: the store warp reads it after the staged barrier, and the
  // buffer's next write waits for the free one): parked as f16 (0) or bf16 (1).  (The block's last unit goes through
  // stage_last_in_ring.)  free_wait: the timeline probe's count of the cycles spent waiting for the free barrier.
  __device__ __forceinline__ static void stage_deferred(const uint32_t (&pk)[Atom::kValuesC / 2], const Params& p, SharedStorage& sh,
                                                        int c, int j, uint32_t phases,
                                                        [[maybe_unused]] unsigned long long& free_wait) {
    const int b = defer_buffer(p, j);
    auto one = [&](auto jc) {
      constexpr int kJ = decltype(jc)::value;
      unsigned char* tile = sh.d.tile[c][b];
      [[maybe_unused]] const unsigned long long t0 = TCLK();
      arch::named_barrier_sync(K::free_bar(c, b), kHandoffThreads);
      free_wait += TCLK() - t0;  // (the timeline probe; 0 otherwise)
      const int thread = K::thread_now(), warp = thread / 32, lane = thread % 32;
      if (finishes(p) && lane == 0) {  // this warp's byte (the others' are theirs)
        atomicAnd(&sh.parked[c], ~(0xffu << (8 * warp)));
        atomicOr(&sh.parked[c], ((phases >> kParkedBit) & 1u) << (8 * warp));
      }
      if (p.ep.d_row_major) Epilogue::template stage_packed_sw128<kJ * Epilogue::kStageWords, false>(pk, tile, thread);
      else Epilogue::template stage_packed_sw128<kJ * Epilogue::kStageWords, true>(pk, tile, thread);
      arch::fence_proxy_async_shared_cta();  // the shared-memory writes are visible to the TMA unit
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
  // The block's last unit, once no consumer reads the ring any more (the block's tail: no main loop follows, and
  // through the two buffers each slot after the second would wait for the store of the slot before it), from x = alpha
  // acc + bias in fp32, which pack_deferred left in acc (bit kLastBit): the whole unit in registers, every value
  // independent of the others.  With a residual (p.r_tma) the consumer first says that the ring is free to its store
  // warp (staged barrier of buffer 1, unused by those menus), which loads the unit's four residual boxes into ring
  // stage 2 c + 1 at once (rfull[c], one phase: an even count of phases before it) while the activation runs here; each
  // slot's box is then read in the accumulator's order (ldmatrix, the inverse of the staging's stmatrix) and added.  D
  // is staged into ring stage 2 c (four slots) and handed over on buffer 0's staged barrier.
  // The ring stages of the last unit: consumer c's slots, and its residual boxes (the store warp's loads).
  __device__ __forceinline__ static constexpr int last_slots_stage(int c) { return 2 * c; }
  __device__ __forceinline__ static constexpr int last_boxes_stage(int c) { return 2 * c + 1; }
  __device__ __forceinline__ static void stage_last_in_ring(float (&acc)[Atom::kValuesC], const Params& p, SharedStorage& sh, int c) {
    static_assert(K::kStages >= 4 && sizeof(Stage) >= 4 * Epilogue::kStageTile.bytes(), "the last unit takes two ring stages a consumer");
    if (p.r_tma) arch::named_barrier_arrive(K::staged_bar(c, 1), kHandoffThreads);  // the ring is free
    activate(acc, p);
    const int thread = K::thread_now();
    if (thread == 0) TTRACE(1 + c, 7, 10, TCLK());
    unsigned char* slots = reinterpret_cast<unsigned char*>(&sh.stage[last_slots_stage(c)]);
    const unsigned char* boxes = reinterpret_cast<const unsigned char*>(&sh.stage[last_boxes_stage(c)]);
    if (p.r_tma) {
      arch::mbarrier_wait_parity(&sh.rfull[c], 0u);  // the four boxes
      if (thread == 0) TTRACE(1 + c, 7, 11, TCLK());
    }
    auto one = [&](auto jc, auto trans, auto res) {
      constexpr int kJ = decltype(jc)::value;
      constexpr bool kT = decltype(trans)::value;
      constexpr int kW = Epilogue::kStageWords;
      const int off = kJ * Epilogue::kStageTile.bytes();
      uint32_t w[kW];
      if constexpr (decltype(res)::value) Epilogue::template load_packed_sw128<0, kT>(w, boxes + off, thread);
#pragma unroll
      for (int k = 0; k < kW; ++k) {  // registers 2 (kJ kW + k), + 1: the pair the word holds
        float r0 = 0.f, r1 = 0.f;
        if constexpr (decltype(res)::value) epilogue::frag_detail::Pair<ElemT>::unpack(w[k], r0, r1);
        w[k] = epilogue::frag_detail::Pair<ElemT>::pack(acc[2 * (kJ * kW + k)] + r0, acc[2 * (kJ * kW + k) + 1] + r1);
      }
      Epilogue::template stage_packed_sw128<0, kT>(w, slots + off, thread);
    };
    auto all = [&](auto trans, auto res) {
      one(std::integral_constant<int, 0>{}, trans, res);
      one(std::integral_constant<int, 1>{}, trans, res);
      one(std::integral_constant<int, 2>{}, trans, res);
      one(std::integral_constant<int, 3>{}, trans, res);
    };
    auto order = [&](auto res) {
      if (p.ep.d_row_major) all(std::false_type{}, res);
      else all(std::true_type{}, res);
    };
    if (p.r_tma) order(std::true_type{});
    else order(std::false_type{});
    if (thread == 0) TTRACE(1 + c, 7, 12, TCLK());
    arch::fence_proxy_async_shared_cta();  // the shared-memory writes are visible to the TMA unit
    arch::named_barrier_arrive(K::staged_bar(c, 0), kHandoffThreads);
  }
  // FragmentEpilogue::finish_staged_sw128 for the menu of p (the activation and D's order picked here; with kResidual
  // the residual's box at rtile) on a whole staged slot, by the calling store warp.  (Without a residual the store
  // warps finish gelu_tanh and silu alone: finishes.)
  // The bias (store_bias(p)) is added here, from global memory: the staging tile's at (m0, n).
  template <bool kResidual>
  __device__ __forceinline__ static void finish_slot(const Params& p, uint32_t tile, uint32_t rtile, uint32_t parked, int m0, int n) {
    const int lane = static_cast<int>(arch::lane_id_now());
    const BiasSpan bs = bias_span(p, m0, n);
    auto run = [&](auto act) {
      auto go = [&](auto trans) {
        if (store_bias(p))
          Epilogue::template finish_staged_sw128<ElemT, decltype(trans)::value, kResidual, true>(tile, rtile, parked, act, lane, 0, 4,
                                                                                                  p.ep.bias, bs.e_base, bs.lim, bs.cols);
        else Epilogue::template finish_staged_sw128<ElemT, decltype(trans)::value, kResidual>(tile, rtile, parked, act, lane, 0, 4);
      };
      if (p.ep.d_row_major) go(std::false_type{});
      else go(std::true_type{});
    };
    if constexpr (kResidual) {
      switch (p.ep.act) {
        case Activation::relu: run(ActEw<ew::op::Relu>{}); break;
        case Activation::gelu_tanh: run(ActEw<ew::op::GeluTanhHw>{}); break;
        case Activation::silu: run(ActEw<ew::op::SiluHw>{}); break;
        default: run(epilogue::ActNone{}); break;
      }
    } else {
      if (p.ep.act == Activation::gelu_tanh) run(ActEw<ew::op::GeluTanhHw>{});
      else run(ActEw<ew::op::SiluHw>{});
    }
  }

  // The general kernel's epilogue of this warpgroup's part of a unit at (m0, n0) (64 x 256), one chunk of 64 registers
  // (Epilogue::kChunk) at a time: the passes, then D from registers or, with p.d_tma, through the staging tiles that
  // store warp c hands to the TMA unit.  One call site: the passes are compiled once.  `unit` (the warpgroup's
  // local unit index) only feeds the timeline probe; `dph` is the drained barrier's phase of this unit (slot 3).
  static constexpr int kConsumerRows = K::kConsumerRows;  // rows of D one consumer stores per unit
  __device__ __forceinline__ static void epilogue_unit(float (&acc)[kHalves][Atom::kValuesC], const Params& p, int m0, int n0,
                                                       SharedStorage& sh, int c, int thread, [[maybe_unused]] int unit,
                                                       unsigned char* ring, uint32_t dph) {
    if (p.d_tma && m0 >= p.m) return;  // rows past M: nothing to store (the register path tests each row)
    if (thread == 0) TTRACE(1 + c, unit, 15, TCLK());  // probe: event 15 = the unit's epilogue entered
    const bool full = m0 + kConsumerRows <= p.m && n0 + kBN <= p.n;
    epilogue_chunk<0>(acc[0], p, m0, n0, full, sh, c, thread, ring, dph);
  }

  // ---- the bare cooperative kernel's bias, staged during the main loop ----
  // The unit's bias for consumer c into sh.bias[c]: its kBN columns from n0, or its kConsumerRows rows from m0, as 4-byte
  // words, one cp.async per thread, then one cp.async.mbarrier.arrive.noinc per thread on sh.bias_full[c] (count 128),
  // for which the consumer waits as its last wgmma drain (every unit that staged, so the phases stay in step).  The
  // named barrier first: every warp of the warpgroup is past the previous unit's reads of sh.bias[c] (a warp may reach
  // this unit's start while another still reads them).  The copy runs beside the main loop, so pack_deferred reads
  // shared memory, and no global load of the epilogue is in flight when its fences and barriers come.
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
  // The general kernel's passes on registers kFirst .. kFirst + 63 (compute_chunk: C, the bias and the residual read
  // from global memory), then D: two staging tiles through TMA, or stores from registers.
  template <int kFirst>
  __device__ __forceinline__ static void epilogue_chunk(float (&acc)[Atom::kValuesC], const Params& p, int m0, int n0, bool full,
                                                        SharedStorage& sh, int c, int thread, unsigned char* ring, uint32_t dph) {
    if constexpr (K::kF8) fp8_channel_scale<Atom, kFirst, Epilogue::kChunk>(acc, p, m0, n0, thread);  // (FP8 channel scales)
    Epilogue::template compute_chunk<kFirst>(acc, p.ep, m0, n0, full, thread);
    if (p.d_tma) {
      static_assert(Epilogue::kChunk == 64, "gemm_sm90 persistent: a register chunk is two staging tiles");
      // staging tiles (slots) kFirst / 32 and + 1, 64 columns (32 registers) each
      store_tma_tile<kFirst>(acc, p, sh, c, thread, kFirst / 32, ring, dph);
      store_tma_tile<kFirst + 32>(acc, p, sh, c, thread, kFirst / 32 + 1, ring, dph);
    } else {
      Epilogue::dispatch_type(p.ep.d_type, [&](auto t) {
        Epilogue::template store<decltype(t), kFirst>(acc, p.ep, m0, n0, full, thread);
      });
    }
    if constexpr (kFirst + Epilogue::kChunk < Atom::kValuesC)
      epilogue_chunk<kFirst + Epilogue::kChunk>(acc, p, m0, n0, full, sh, c, thread, ring, dph);
  }
  // The staging tile of D from registers kFirst .. kFirst + 31 (64 columns) in slot `slot`: stmatrix into its
  // buffer once store warp c has freed it (slot 2, in the ring stage `ring`, is free once this warpgroup's wgmma
  // are complete; slot 3, the B rows after it, once `drained` completes: phase `dph`), then handed to that warp (a
  // staged barrier; the warp knows the tile's place, store_tiles).
  template <int kFirst>
  __device__ __forceinline__ static void store_tma_tile(float (&acc)[Atom::kValuesC], const Params& p, SharedStorage& sh,
                                                        int c, int thread, int slot, unsigned char* ring, uint32_t dph) {
    const int b = slot == 1 ? 1 : 0;
    unsigned char* tile = slot == kRingSlot ? ring : slot == kRingSlot3 ? ring + sizeof(Stage::a) : sh.d.tile[c][b];
    if (slot == kRingSlot3) {
      // B rows of the last stage: free once every consumer warp's wgmma of the unit are complete.
      arch::mbarrier_wait_parity(&sh.drained, dph);
    } else if (slot != kRingSlot) {
      // Free: the store that last read it (of this unit or the previous one) is past its reads.
      arch::named_barrier_sync(K::free_bar(c, b), kHandoffThreads);
    }
    Epilogue::template stage_sw128_as<kFirst>(acc, p.ep.d_type, p.ep.d_row_major, tile, thread);
    arch::fence_proxy_async_shared_cta();  // the stmatrix writes are visible to the TMA unit
    arch::named_barrier_arrive(slot == kRingSlot ? K::staged_ring_bar(c) : slot == kRingSlot3 ? K::staged_ring3_bar(c) : K::staged_bar(c, b),
                               kHandoffThreads);
  }
#endif  // __CUDACC__ && TESSERA_ARCH_SM90A
};

}  // namespace tessera::gemm_sm90
