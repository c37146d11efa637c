// include/tessera/kernel/gemm_sm90/persistent_consumer.hpp -- the persistent Hopper GEMM's consumer warpgroups,
// GemmSm90Persistent::consume (kernel/gemm_sm90/persistent_kernel.hpp declares it and includes this file after the
// class; not included on its own).  Consumer warpgroup c takes its 64 rows of every unit the scheduler gives the block:
// the unit's main loop (wgmma from the ring's stages, FP8's promoted accumulation and block scales where asked), then
// its epilogue (PersistentEpilogue, the store warps, the split-K / stream-K partial sums).
// kPromoted: FP8's promoted accumulation (below); kBlockScales: with block scales (Params::scale_a_blocks /
// scale_b_blocks).
#pragma once

#if defined(__CUDACC__) && defined(TESSERA_ARCH_SM90A)

namespace tessera::gemm_sm90 {

template <class Elem, bool kBNMajor, bool kAMMajor, int kClusterM>
template <bool kBareOnly, bool kPromoted, bool kBlockScales>
__device__ __forceinline__ void GemmSm90Persistent<Elem, kBNMajor, kAMMajor, kClusterM>::consume(
    SharedStorage& sh, const gemm_core::TileScheduler& sched, const Params& p, int c) {
  const int thread = static_cast<int>(threadIdx.x) % 128;
  float acc[kHalves][Atom::kValuesC];
#pragma unroll
  for (int h = 0; h < kHalves; ++h)
#pragma unroll
    for (int i = 0; i < Atom::kValuesC; ++i) acc[h][i] = 0.f;
  // INT8 (kInt): the main loop's accumulators are s32 registers (the wgmma's own type), converted into acc once the
  // unit's main loop has drained; kept apart so that no float / integer moves sit between the wgmma (ptxas then
  // serialised them, C7514).  `macc` is the array the main loop accumulates into.
  [[maybe_unused]] uint32_t iacc[kInt ? kHalves : 1][kInt ? Atom::kValuesC : 1];
  auto& macc = pick_acc<kInt>(iacc, acc);

  // The bare cooperative kernel stages a unit's D during the next unit's main loop: after the drain the fragment is
  // packed into 16-bit pairs (pk: 64 registers beside the 128 accumulators), and slot j goes to the store warp at
  // that loop's K tile 2 j (16 j where the store warp finishes the menu: Epi::defer_log2), in the shadow of the wgmma
  // in flight, instead of with the tensor cores idle.
  constexpr bool kDefer = kBareOnly;
  [[maybe_unused]] uint32_t pk[Atom::kValuesC / 2];
  [[maybe_unused]] bool pending = false;  // pk holds a unit's D whose slots are not all staged
  int s = 0;  // ring position, continued across units (the producer fills the ring in unit order)
  uint32_t phase = 0;
  // The bare kernel's unit state in one word (one register across the main loop and the epilogue): bit kBiasBit, the
  // phase of sh.bias_full[c] (the count of stage_bias calls, mod 2); bit Epi::kParkedBit, this warp parked pk as bf16
  // rather than f16 (Epi::pack_deferred); bit Epi::kLastBit, the unit is the block's last.
  [[maybe_unused]] uint32_t phases = 0;
  const int rank = kClusterM > 1 ? static_cast<int>(arch::cluster_ctarank()) : 0;
  // The ring's shared::cta addresses, worked out once: stage 0 in 16-byte units (the wgmma descriptors' start
  // addresses, arch::smem_desc16), this consumer's A rows in a stage (cooperative: 64 rows = one 8 KB box further per
  // consumer), and the full and empty barriers of stage 0.  A K tile then adds offsets (converting generic pointers
  // there costs the dynamic shared memory's 1 KB rounding, the conversion, and a shift and mask per wgmma, which
  // ptxas recomputes every K tile rather than keep).  In 32 bits: `sh` is the dynamic shared memory rounded up to
  // 1 KB, and the shared window's base is aligned far beyond that, so the rounding commutes with the conversion.  A
  // shared::cta address carries the block's rank in its cluster from bit 24 up, which the descriptor's 14-bit start
  // field must not see: the mask.
  const uint32_t sh_u32 = (shared_u32(smem_raw_base()) + 1023u) & ~1023u;
  const uint32_t ring16 = ((sh_u32 + static_cast<uint32_t>(offsetof(SharedStorage, stage))) / 16) & 0x3FFFu;
  // (This consumer's A offset through a shuffle from lane 0: ptxas then knows it is the same in every lane and keeps
  // the A descriptors in uniform registers; derived from the thread index, it builds them in vector registers and
  // moves them over at every wgmma.)
  const uint32_t a_c16 = static_cast<uint32_t>(__shfl_sync(0xffffffffu, c * (kBoxBytes / 16), 0));
  const uint32_t full0 = static_cast<uint32_t>(arch::fresh(static_cast<int>(sh_u32 + static_cast<uint32_t>(offsetof(SharedStorage, full)))));
  const uint32_t empty0 = full0 + static_cast<uint32_t>(offsetof(SharedStorage, empty) - offsetof(SharedStorage, full));
  // The bare cooperative kernel works out the next unit's place while this unit's last wgmma drain (off the path
  // between one unit's epilogue and the next main loop); the general kernel at the unit's start, so that no unit's
  // place is live across its main loop and epilogue (kept, ptxas spilled it: 72 / 26 bytes).
  constexpr bool kAhead = kBareOnly;
  gemm_core::TileWork w_next{};
  // (The general kernel counts its items afresh at every unit, from an opaque copy of its worker, so that the count
  // is not kept across its epilogue body, where ptxas spilled the unit state instead; the bare kernel once.)
  const int items = sched.items(worker());
  auto items_now = [&] { return kBareOnly ? items : sched.items(arch::fresh(worker())); };
  if (kAhead && items > 0) w_next = sched.item(worker(), 0);
  for (int v = 0; v < items_now(); ++v) {
    gemm_core::TileWork w = kAhead ? w_next : sched.item(worker(), v);
    w.tm = w.tm * kClusterM + rank;  // this block's tile row (may lie past M in the last cluster row)
    const bool tr = thread == 0;
    if (tr) TTRACE(1 + c, v, 0, TCLK());
    unsigned long long fsum = 0;
    [[maybe_unused]] unsigned long long ssum = 0;  // (probe) the deferred staging's cycles in this main loop
    [[maybe_unused]] unsigned long long fwsum = 0;  // (probe) of which waiting for the store warp to free a buffer
    // The bare kernel's menus (Epi::pack_deferred) with a bias the consumers add (defer_bias: every unit, or the
    // block's last alone where the store warps add it): the unit's bias words into sh.bias[c] now, a main loop before
    // the drain reads them (no global load in the consumers' epilogue; edges clipped).
    if constexpr (kDefer) {
      phases = (phases & ~(1u << Epi::kLastBit)) | (v + 1 == items ? 1u << Epi::kLastBit : 0u);
      if (defer_bias(p, w, phases)) Epi::stage_bias(p, sh, c, consumer_m0(w.tm, c), w.tn * kBN);
    }

    // ---- main loop: one K tile per stage; one group of wgmma stays in flight ----
    // (The ring position and its phase as loop-local copies, and the trip count as an opaque count-down (a plain
    // one is turned back into kt < k_tiles): the originals live across the epilogue, where ptxas keeps them in
    // stack slots, and the loop would otherwise load and store them there every K tile.)
    int ls = arch::fresh(s);
    uint32_t lphase = static_cast<uint32_t>(arch::fresh(static_cast<int>(phase)));
    // FP8: the per-tensor scales, read now (the loads' latency hidden by the main loop) and applied after it.
    [[maybe_unused]] float scale_ab = 1.f;
    if constexpr (kF8) {
      scale_ab = fp8_tensor_scale(p);  // (channel scales: per epilogue chunk, fp8_channel_scale)
    }
    if constexpr (kPromoted) {
      // Promoted accumulation: per K tile and half of the unit's columns, one group of four m64n128k32 that sums the
      // tile's 128 products from zero (scale-d 0) into `part`; once it completes, part is added to the half's
      // accumulators in fp32.  The tensor cores' own sums then span 128 products whatever K is.  Nothing stays in
      // flight across a group; the other consumer warpgroup's wgmma keep the tensor cores busy through the waits and
      // the adds.  A K tile's stage is released once its second group completes, but the unit's last (the post-loop
      // release, which leaves it to the store warp where it holds staging slot 2, as the other loop does).
      // Block scales (kBlockScales: p.scale_a_blocks / scale_b_blocks): each group's sum times its rows' A scales and
      // its half's B block scale (a half is one 128-wide block of B) as it is added.  The loads are issued before the
      // group's wgmma and read after it.  (ptxas spills 36 / 40 bytes in this copy.  The next K tile's scales by
      // cp.async into shared memory instead, read from there after the group, measured slower: 0.66-0.68 of
      // cuBLASLt's block-scaled GEMM against 0.72-0.79, 57c1e3b; docs/PERF.md, forty-second section.)
      static_assert(kBN / 2 == kGemmScaleBlock && kBK == kGemmScaleBlock,
                    "gemm_sm90 persistent: an FP8 group's columns are one B scale block, and a K tile one K block");
      // The bare kernel (kDefer) runs the unit's K tile 0 straight into the accumulators instead: both halves' groups
      // sum its 128 products from zero there (scale-d 0 at the first wgmma), which is the promoted value acc = 0 + part
      // bit for bit, with no wait between the groups.  `part` is not used meanwhile, so the previous unit's D, packed
      // into pk after its drain (the same registers: pk dies at the staging, part is defined afresh after it), is
      // staged during that K tile -- all four slots, in the shadow of its eight wgmma -- and no epilogue store keeps
      // the tensor cores idle.  (Block scales never reach the bare kernel: the host's bare_kernel_scales.)
      float part[HalfAtom::kValuesC];
      [[maybe_unused]] const int row_lo = consumer_m0(w.tm, c) + HalfAtom::c_thread(thread).row;
      int left = w.k_tiles;
      if constexpr (kDefer) {
        static_assert(!kBlockScales, "gemm_sm90 persistent: the bare kernel takes no block scales");
        arch::mbarrier_wait_parity(full0 + 8u * static_cast<uint32_t>(ls), lphase);
        if (tr) TTRACE(1 + c, v, 1, TCLK());
        const int s0 = ls;
        if (++ls == kStages) {
          ls = 0;
          lphase ^= 1u;
        }
        // The consumers out of phase at every unit, as in the general kernel: consumer 1 issues its K tile 0 once
        // consumer 0 has issued its own (fp8_offset_bare).  No epilogue barrier holds the bare kernel's consumers to
        // the same unit, so consumer 0 also waits, from its second unit on, until consumer 1 has issued the last group
        // of the unit before (fp8_follow_bare): neither can then arrive twice on a barrier before the other has taken
        // the first arrival (with units of fewer K tiles than the ring's stages consumer 0 could otherwise run a unit
        // ahead -- a barrier completed by one warpgroup, and the other's last wait never answered).
        if (c == 1) arch::named_barrier_sync(static_cast<uint32_t>(Barrier::fp8_offset_bare), 256);
        else if (v > 0) arch::named_barrier_sync(static_cast<uint32_t>(Barrier::fp8_follow_bare), 256);
        arch::wgmma_fence_operands(acc[0]);
        arch::wgmma_fence();
#pragma unroll
        for (int nh = 0; nh < 2; ++nh) {
          float (&ah)[HalfAtom::kValuesC] = *reinterpret_cast<float (*)[HalfAtom::kValuesC]>(&acc[0][nh * HalfAtom::kValuesC]);
#pragma unroll
          for (int ks = 0; ks < kBK / HalfAtom::kK; ++ks) {
            const uint32_t st16 = ring16 + static_cast<uint32_t>(s0) * (kStageBytes / 16);
            const uint64_t db = arch::smem_desc16(st16 + (kStageOffB + nh * (kBN / 2) * 128 + ks * kOpB.k_step) / 16, kOpB.desc);
            const uint64_t da = arch::smem_desc16(st16 + static_cast<uint32_t>(ks * kOpA.k_step / 16) + a_c16, kOpA.desc);
            HalfAtom::fma(ah, da, db, ks != 0 ? 1u : 0u);
          }
        }
        arch::wgmma_commit();
        if (c == 0) arch::named_barrier_arrive(static_cast<uint32_t>(Barrier::fp8_offset_bare), 256);
        else if (left == 1 && v + 1 < items) arch::named_barrier_arrive(static_cast<uint32_t>(Barrier::fp8_follow_bare), 256);
        if (pending) {
          const unsigned long long ts0 = TCLK();
#pragma unroll 1
          for (int j = 0; j < kSlots; ++j) Epi::stage_deferred(pk, p, sh, c, j, phases, fwsum);
          ssum += TCLK() - ts0;
        }
        pending = false;
#pragma unroll
        for (int i = 0; i < Atom::kValuesC / 2; ++i) pk[i] = 0u;  // dead until the next pack (ptxas cannot tell)
        arch::wgmma_wait<0>();
        arch::wgmma_fence_operands(acc[0]);
        if (left > 1 && arch::lane_id_now() == 0) release(empty0 + 8u * static_cast<uint32_t>(s0));
        left = arch::fresh(left - 1);
#pragma unroll
        for (int i = 0; i < HalfAtom::kValuesC; ++i) part[i] = 0.f;  // (its first wgmma ignores it: scale-d 0)
      } else {
#pragma unroll
        for (int i = 0; i < Atom::kValuesC; ++i) acc[0][i] = 0.f;  // (the other loop's first wgmma does it: scale-d 0)
      }
      for (; left > 0; left = arch::fresh(left - 1)) {
        arch::mbarrier_wait_parity(full0 + 8u * static_cast<uint32_t>(ls), lphase);
        if (left == w.k_tiles && tr) TTRACE(1 + c, v, 1, TCLK());
        [[maybe_unused]] const int kb = w.k_tile0 + (w.k_tiles - left);
        [[maybe_unused]] float fa_lo = 1.f, fa_hi = 1.f;
        if constexpr (kBlockScales) {
          fa_lo = fp8_block_scale_a(p, kb, row_lo);
          fa_hi = fp8_block_scale_a(p, kb, row_lo + 8);
        }
        if (++ls == kStages) {
          ls = 0;
          lphase ^= 1u;
        }
        auto st = [&] { return stage_before(ls, 1); };  // the K tile's stage (worked out where used, not kept: registers)
#pragma unroll
        for (int nh = 0; nh < 2; ++nh) {
          // The consumers out of phase: consumer 1 issues a unit's first group once consumer 0 has issued its own.
          // The tensor cores then run one consumer's group while the other waits and adds (in phase, both groups
          // ran interleaved and both consumers then waited and added with the tensor cores idle).
          const bool first = !kDefer && nh == 0 && left == w.k_tiles;
          if (first && c == 1) arch::named_barrier_sync(static_cast<uint32_t>(Barrier::fp8_offset), 256);
          [[maybe_unused]] float fb = 1.f;
          if constexpr (kBlockScales) fb = fp8_block_scale_b(p, kb, 2 * w.tn + nh);  // (read after the group)
          arch::wgmma_fence_operands(part);
          arch::wgmma_fence();
#pragma unroll
          for (int ks = 0; ks < kBK / HalfAtom::kK; ++ks) {
            // B rows nh * 128.. of the stage (K-major: 128 bytes a row), A as in the other loop
            const uint32_t st16 = ring16 + static_cast<uint32_t>(st()) * (kStageBytes / 16);
            const uint64_t db = arch::smem_desc16(st16 + (kStageOffB + nh * (kBN / 2) * 128 + ks * kOpB.k_step) / 16, kOpB.desc);
            const uint64_t da = arch::smem_desc16(st16 + static_cast<uint32_t>(ks * kOpA.k_step / 16) + a_c16, kOpA.desc);
            HalfAtom::fma(part, da, db, ks != 0 ? 1u : 0u);
          }
          arch::wgmma_commit();
          if (first && c == 0) arch::named_barrier_arrive(static_cast<uint32_t>(Barrier::fp8_offset), 256);
          if (kDefer && c == 1 && nh == 1 && left == 1 && v + 1 < items)  // (the bare kernel: the unit's last group)
            arch::named_barrier_arrive(static_cast<uint32_t>(Barrier::fp8_follow_bare), 256);
          arch::wgmma_wait<0>();
          arch::wgmma_fence_operands(part);
          if (nh == 1 && arch::lane_id_now() == 0 && left > 1) release(empty0 + 8u * static_cast<uint32_t>(st()));
          if constexpr (kBlockScales) {
            if (nh == 0) fp8_promote<HalfAtom, 0>(acc[0], part, fa_lo * fb, fa_hi * fb);
            else fp8_promote<HalfAtom, HalfAtom::kValuesC>(acc[0], part, fa_lo * fb, fa_hi * fb);
          } else {
#pragma unroll
            for (int i = 0; i < HalfAtom::kValuesC; ++i) acc[0][nh * HalfAtom::kValuesC + i] += part[i];
          }
        }
      }
    } else {
      if constexpr (kInt) {
        // (The wgmma read their accumulators ("+r"): without a definition here the previous unit's s32 sums would
        // stay live through its epilogue beside the fp32 ones -- ptxas spilled 17.5 KB.  The unit's first wgmma ignores
        // them (scale-d 0).)
#pragma unroll
        for (int h = 0; h < kHalves; ++h)
#pragma unroll
          for (int i = 0; i < Atom::kValuesC; ++i) iacc[h][i] = 0u;
      }
      for (int kt = 0, left = w.k_tiles; left > 0; ++kt, left = arch::fresh(left - 1)) {
        const unsigned long long tf0 = TCLK();
        arch::mbarrier_wait_parity(full0 + 8u * static_cast<uint32_t>(ls), lphase);
        if (kt == 0) { if (tr) TTRACE(1 + c, v, 1, TCLK()); } else fsum += TCLK() - tf0;
        const uint32_t st16 = ring16 + static_cast<uint32_t>(ls) * (kStageBytes / 16);  // stage ls, 16-byte units
#pragma unroll
        for (int h = 0; h < kHalves; ++h) arch::wgmma_fence_operands(macc[h]);
        arch::wgmma_fence();
#pragma unroll
        for (int ks = 0; ks < kBK / Atom::kK; ++ks) {  // 16 (FP8: 32) K-elements per wgmma: 32 bytes along a K-major
                                                       // row, 16 rows of 128 bytes in an MN-major box
          const uint64_t db = arch::smem_desc16(st16 + (kStageOffB + ks * kOpB.k_step) / 16, kOpB.desc);
#pragma unroll
          for (int h = 0; h < kHalves; ++h) {
            // rows 64r..64r+63 of A: 64 K-major rows of 128 bytes = one MN-major box = 8 KB further
            const uint64_t da = arch::smem_desc16(st16 + static_cast<uint32_t>(ks * kOpA.k_step / 16) + a_c16, kOpA.desc);
            Atom::fma(macc[h], da, db, (kt | ks) != 0 ? 1u : 0u);
          }
        }
        arch::wgmma_commit();
        if constexpr (kDefer) {
          const int dl = Epi::defer_log2(p), kd = kt - Epi::defer_offset(p, c);
          if (pending && kd >= 0 && kd < (kSlots << dl) && (kd & ((1 << dl) - 1)) == 0) {
            const unsigned long long ts0 = TCLK();
            Epi::stage_deferred(pk, p, sh, c, kd >> dl, phases, fwsum);
            ssum += TCLK() - ts0;
          }
        }
        arch::wgmma_wait<kInFlight>();  // K tile kt - kInFlight is complete: release its stage
#pragma unroll
        for (int h = 0; h < kHalves; ++h) arch::wgmma_fence_operands(macc[h]);
        if (kt >= kInFlight && arch::lane_id_now() == 0) release(empty0 + 8u * static_cast<uint32_t>(stage_before(ls, kInFlight)));
        if (++ls == kStages) {
          ls = 0;
          lphase ^= 1u;
        }
      }
    }
    s = ls;
    phase = lphase;
    if constexpr (kDefer && !kPromoted) {  // a loop of a few K tiles: the previous unit's slots it did not stage, beside
                                           // the drain (the promoted loop staged them all at its K tile 0)
      const int dl = Epi::defer_log2(p), kd = w.k_tiles - Epi::defer_offset(p, c);
      if (pending)
        for (int j = kd > 0 ? (kd + (1 << dl) - 1) >> dl : 0; j < kSlots; ++j) Epi::stage_deferred(pk, p, sh, c, j, phases, fwsum);
      pending = false;
      // INT8: pk's words are dead from here to the next pack (every slot is staged), which ptxas cannot tell from
      // `pending`; defined afresh here, they leave their registers to the conversion of the s32 sums below (kept,
      // ptxas spilled 196 bytes there).
      if constexpr (kInt) {
#pragma unroll
        for (int i = 0; i < Atom::kValuesC / 2; ++i) pk[i] = 0u;
      }
    }
    if (tr) { TTRACE(1 + c, v, 2, fsum); TTRACE(1 + c, v, 3, TCLK()); }
    if (kDefer && tr) {  // (+ 1: a stamp of 0 reads as absent)
      TTRACE(1 + c, v, 8, ssum + 1);
      TTRACE(1 + c, v, 14, fwsum + 1);
    }
    if (kAhead && v + 1 < items) w_next = sched.item(worker(), v + 1);
    if constexpr (kDefer) {  // every copy of stage_bias is waited for in its unit (so the phases stay in step)
      if (defer_bias(p, w, phases)) {
        arch::mbarrier_wait_parity(&sh.bias_full[c], (phases >> kBiasBit) & 1u);
        phases ^= 1u << kBiasBit;
      }
    }
    arch::wgmma_wait<0>();
    if (tr) TTRACE(1 + c, v, 4, TCLK());
#pragma unroll
    for (int h = 0; h < kHalves; ++h) arch::wgmma_fence_operands(macc[h]);
    if constexpr (kF8) {  // D = (scale_a A)(scale_b B) = scale_a scale_b (A B), before split-K or stream-K partial sums
      // (channel scales: in the epilogue's chunks, after split-K and stream-K sums -- PersistentEpilogue)
      if constexpr (kInt) {
        // INT8: the s32 sums to fp32 (exact below 2^24 in magnitude, rounded to nearest above) times the scales, in
        // place (each result in its own sum's register), then moved over bit for bit: the registers of the two
        // arrays can then be the same ones (converted into fresh registers, the bare kernel spilled 196 bytes beside
        // its 64 packed words).
#pragma unroll
        for (int h = 0; h < kHalves; ++h)
#pragma unroll
          for (int i = 0; i < Atom::kValuesC; ++i)
            iacc[h][i] = __float_as_uint(static_cast<float>(static_cast<int32_t>(iacc[h][i])) * scale_ab);
#pragma unroll
        for (int h = 0; h < kHalves; ++h)
#pragma unroll
          for (int i = 0; i < Atom::kValuesC; ++i) acc[h][i] = __uint_as_float(iacc[h][i]);
      } else {
#pragma unroll
        for (int h = 0; h < kHalves; ++h)
#pragma unroll
          for (int i = 0; i < Atom::kValuesC; ++i) acc[h][i] *= scale_ab;
      }
    }
    // The unit's last stage holds staging slot 2 when this consumer stores D through TMA (store_tiles releases it).
    const bool ring_slot = !kDefer && p.d_tma && w.stores && consumer_m0(w.tm, c) < p.m;
    // Slot 3 lies in this unit's last ring stage (B rows): this consumer writes it once no consumer warp reads the
    // stage any more.  Every unit arrives, so the barrier's phase is the count of units this warpgroup took.
    if (!kDefer && p.d_tma && arch::lane_id_now() == 0) (void)arch::mbarrier_arrive(&sh.drained);
    static_assert(kInFlight == 1, "gemm_sm90 persistent: the stage released after the drain is the last one (kRingSlot)");
    if (arch::lane_id_now() == 0) {  // the last min(k_tiles, kInFlight) stages, in order
      for (int d = w.k_tiles < kInFlight ? w.k_tiles : kInFlight; d >= 1; --d)
        if (!(ring_slot && d == 1)) release(sh, stage_before(s, d));
    }
    // Every phase of `drained` is waited for by this consumer: before slot 3 in a unit it stores, otherwise here.  A
    // warpgroup that went on unchecked could reach its next unit's drain (units of a few K tiles) before the other
    // had arrived for this one, and its arrivals would complete the wrong phase.
    if (!kDefer && p.d_tma && !ring_slot)
      arch::mbarrier_wait_parity(&sh.drained, drained_parity(v));
    if (w.tm >= p.tiles_m) continue;  // a cluster's spare block past M: nothing to store

    // ---- epilogue ----
    using Partials = PersistentPartials<GemmSm90Persistent>;
    // (The bare kernels run only unsplit plans -- the host launches them with D through TMA, which split-K does not
    // use -- so they carry no split-K reduction: about 4k unrolled FADD and 1k LDG of code.)
    if constexpr (!kBareOnly) {
      if (sched.splits > 1 && !Partials::reduce_split_k(acc, p, w, sh, c, thread)) continue;
    }
    if (w.partial >= 0) {  // a stream-K piece after K tile 0: its partial sums for the tile's head
      Partials::publish(acc, p, w, c, thread_now());
      continue;
    }
    if (w.peers > 0) Partials::add_peers(acc, p, w, worker(), c, thread_now());
    if constexpr (kDefer) {  // D = A B in the operands' type: staged during the next main loop (or below)
      if (consumer_m0(w.tm, c) < p.m) {
        if (tr) TTRACE(1 + c, v, 7, TCLK());
        if constexpr (kF8) {  // 8-bit channel scales (the general kernel applies them per epilogue chunk), by halves
          // (ptxas: 8 / 16 bytes of spill stores / loads in this kernel, two words of unit state reloaded once per
          // unit; by quarters 20 / 12)
          fp8_channel_scale<Atom, 0, Epilogue::kChunk>(acc[0], p, consumer_m0(w.tm, c), w.tn * kBN, thread_now());
          fp8_channel_scale<Atom, Epilogue::kChunk, Epilogue::kChunk>(acc[0], p, consumer_m0(w.tm, c), w.tn * kBN, thread_now());
        }
        Epi::pack_deferred(acc[0], p, sh, c, pk, phases);
        pending = true;
        if (tr) TTRACE(1 + c, v, 5, TCLK());  // (the probe's "epilogue": the drain's end to D packed)
      }
      continue;
    }
    if constexpr (!kBareOnly) {  // (the bare kernel's units went on above)
      Epi::epilogue_unit(acc, p, consumer_m0(w.tm, c), w.tn * kBN, sh, c, thread_now(), v, ring_tile(sh, stage_before(s, 1), c),
                         drained_parity(v));
      if (tr) TTRACE(1 + c, v, 5, TCLK());
    }
  }
  if constexpr (kDefer) {  // the last unit's D, through the ring, free once both consumers have drained
    arch::named_barrier_sync(static_cast<uint32_t>(Barrier::drained_both), 256);
    if (thread_now() == 0) TTRACE(1 + c, 7, 9, TCLK());
    if (pending) Epi::stage_last_in_ring(acc[0], p, sh, c);
  }
}

}  // namespace tessera::gemm_sm90

#endif  // __CUDACC__ && TESSERA_ARCH_SM90A
