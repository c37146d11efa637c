// include/tessera/kernel/gemm_sm90/persistent_kernel.hpp -- the persistent Hopper GEMM (sm_90a): TMA loads
// into an mbarrier ring shared by a cluster, two consumer warpgroups issuing wgmma, and the fused epilogue
// straight from registers.  The cooperative schedule: both consumer warpgroups on one tile; docs/GEMM.md draws it over
// time.
//
//   block        384 threads, one block per SM, persistent: gridDim.x = min(cluster units, resident
//                clusters) x kClusterM; cluster c takes units c, c + C, c + 2C, ... of the tile scheduler
//                (kernel/gemm/scheduler.hpp: grouped tile order, split-K units), block rank r of the
//                cluster tile row kClusterM * tm + r.
//   warpgroup 0  producer (setmaxnreg 40): one thread issues, per K tile, the
//                TMA loads of a stage after waiting for the stage to be empty: its own A box and its part of B,
//                multicast to the cluster.
//                TMA-store epilogue: warps 1 and 2 are the store warps of consumers 0 and 1.
//   warpgroups 1, 2  consumers (setmaxnreg 232): 128 fp32 accumulators per
//                thread, both on one 128 x 256 unit (rows 0-63, 64-127; one wgmma m64n256k16 per 16-wide K step).
//                FP8 operands (ElemF8, K-major A and B): K tiles of 128 one-byte elements (the same 128-byte stage
//                rows), one wgmma m64n256k32 per 32-wide K step; with promoted accumulation (the default,
//                Params::fp8_fast_accum clear) each K tile is issued as two m64n128k32 groups, one per half of the
//                unit's columns, that sum from zero into 64 registers of partial sums, which the consumer adds to the
//                half's accumulators in fp32 once the group completes; consumer 1 starts each unit once consumer 0
//                has issued its first group, so that one consumer's group runs while the other waits and adds.
//                The per-tensor scales multiply the accumulators after the main loop.
//   ring         kStages stages of A and B as TMA writes them with the 128-byte swizzle (the layouts
//                kTileA / kTileB, atom/smem_sm90.hpp)
//                full[s]  (count 1): the producer's arrive.expect_tx(stage bytes); the TMA bytes, the
//                         peers' multicast parts included, complete it
//                empty[s] (count 4 x consumers per unit x kClusterM): one arrive per consumer warp of every
//                         block of the cluster once its wgmma on stage s are complete
//   epilogue     tessera/kernel/epilogue/fragment_epilogue.hpp on the accumulator fragment, whose
//                (thread, value) -> (m, n) map is the wgmma atom's C layout (atom/mma_sm90.hpp).
//                16-bit D (p.d_tma): a 64 x 64 piece at a time (slot_col) into an 8 KB swizzled staging slot
//                (stmatrix): the consumer's two staging buffers, or (the unit's third and fourth tiles) its own A
//                rows and its quarter of the B rows of the unit's last ring stage (kRingSlot, kRingSlot3), each
//                handed through named barriers (staged / free)
//                to the consumer's store warp, which issues the TMA store, waits until it has read the slot
//                (cp.async.bulk.wait_group.read) and frees it or releases the ring stage; the consumer goes
//                on to the next chunk and then to the next unit's main loop meanwhile.  (The cooperative kernel
//                compiled for the bare GEMM packs D after the drain and stages it during the next unit's main
//                loop instead: stage_deferred, through the two buffers, the block's last unit finished in registers
//                and staged through the free ring, stage_last_in_ring.  It also runs alpha, a bias of D's type and
//                relu, applied after the drain before the pack, and gelu_tanh / silu and a residual through TMA: then
//                the consumer packs
//                x = alpha acc + bias as f16 and the store warp applies the activation and the residual box it
//                loads into buffer 1 on each staged slot before storing it (Epi::finishes,
//                PersistentStoreWarps::store_tiles_finishing); its bias is
//                copied into shared memory (sh.bias[c], cp.async completing on bias_full[c]) when its unit starts, so
//                the epilogue reads no global memory.  The host launches the general kernel only for the other menus,
//                whose body reads C, the bias and the residual from global memory.)  Otherwise D is stored from
//                registers.
//                Split-K units and stream-K pieces first exchange their partial sums through the workspace
//                (persistent_partials.hpp): the split that completes the count, or the piece holding the tile's
//                K tile 0, adds them in a fixed order (deterministic) and stores D.
//
// Out-of-bounds parts of a box (M, N or K beyond the matrix) arrive as zeros; the epilogue stores only
// inside D.  Requires (checked by the host): 16-bit A and B with K-major A and B, or an N-major B (kBNMajor:
// boxes of 64 N x 64 K, read transposed), or also an M-major A (kAMMajor); or FP8 A and B, K-major both; base
// addresses 16-byte aligned, A's and B's rows a multiple of 16 bytes.  The kernel compiled for the bare GEMM
// (kBareOnly) exists for 16-bit operands (its D is of the operands' type) and 8-bit ones (its D bf16, per-tensor scales
// applied after the drain -- INT8's after the conversion -- and channel ones before the pack).  FP8's promoted loop
// there runs each unit's K tile 0 straight into the accumulators and stages the previous unit's packed D meanwhile,
// in the registers its partial sums take from K tile 1 on (persistent_consumer.hpp).
#pragma once

#include <cuda.h>  // CUtensorMap

#include <cstddef>      // offsetof
#include <cstdint>      // uintptr_t, uint16_t
#include <type_traits>  // std::is_same_v, std::conditional_t, std::integral_constant

#include "tessera/arch/sm90_cluster.hpp"                    // cluster_ctarank, cluster_sync, multicast loads
#include "tessera/arch/sm90_stmatrix.hpp"                   // stmatrix (through the epilogue)
#include "tessera/arch/sm90_mbarrier.hpp"                   // mbarrier_init, mbarrier_wait_parity, ...
#include "tessera/arch/sm90_tma.hpp"                        // tma_load_2d, tma_store_2d, bulk groups
#include "tessera/arch/sm90_warpgroup.hpp"                  // setmaxnreg_inc/dec, named_barrier_sync
#include "tessera/arch/sm90_wgmma.hpp"                      // wgmma_fence/commit/wait, smem_desc
#include "tessera/atom/mma_sm90.hpp"                        // WgmmaSm90
#include "tessera/atom/smem_sm90.hpp"                       // SmemTileSm90, sw128_tile
#include "tessera/kernel/epilogue/fragment_epilogue.hpp"    // FragmentEpilogue
#include "tessera/kernel/gemm/scheduler.hpp"                // TileScheduler
#include "tessera/kernel/gemm_sm80/config.hpp"              // Params, ElemBf16, ElemF16
#include "tessera/kernel/gemm_sm90/elem.hpp"                // ElemF8, WgmmaAtomFor
#include "tessera/kernel/gemm_sm90/fp8_scales.hpp"          // fp8_tensor_scale
#include "tessera/kernel/gemm_sm90/persistent_epilogue.hpp"     // PersistentEpilogue (the unit's epilogue)
#include "tessera/kernel/gemm_sm90/persistent_partials.hpp"     // PersistentPartials (split-K, stream-K)
#include "tessera/kernel/gemm_sm90/persistent_store_warps.hpp"  // PersistentStoreWarps
#include "tessera/kernel/gemm_sm90/trace.hpp"                  // TTRACE, TCLK, TGLOBAL (the timeline probe)

namespace tessera::gemm_sm90 {

using gemm_sm80::Params;

// 128 x 256 tiles shared by both consumer warpgroups (rows 0-63 and 64-127, one m64n256k16 atom each); the epilogue
// does not overlap a main loop, but the producer keeps loading the next unit during it, and the bare kernel stages D
// during the next main loop.  (A ping-pong schedule, each warpgroup a whole tile and its epilogue during the other's
// main loop, needs 128 x 128 tiles for its registers, which read 1.5 times the L2 bytes per multiply-add of
// 128 x 256 and ran at 0.80 of cuBLAS: docs/PERF.md, thirteenth session.)
//
// kClusterM = 2: blocks run in clusters of 2 along M (tiles (2i, n) and (2i + 1, n)): B's box is loaded
// half by each block and multicast to both, so each block reads a third less from L2 (128 x 256: 16 KB of
// A + 16 KB of B per K tile instead of 16 + 32).  A stage of either block is then written by both
// producers, so it is free only when the consumers of both blocks have released it: every consumer warp
// arrives on the empty barrier of its own block and of its peer.
template <class Elem, bool kBNMajor = false, bool kAMMajor = false, int kClusterM = 2>
struct GemmSm90Persistent {
  // ---- preconditions ----
  static constexpr bool kF8 = Elem::kBytes == 1;  // 8-bit operands: FP8, or INT8 (kInt)
  static constexpr bool kInt = kElemInt<Elem>;   // s8 x s8 -> s32: exact, never promoted
  static constexpr bool kPromotable = kF8 && !kInt;
  static_assert(Elem::kBytes == 2 || (kF8 && !kBNMajor && !kAMMajor),
                "gemm_sm90 persistent: 16-bit operands (bf16 or f16), or FP8 ones K-major (wgmma reads 8-bit operands only so)");
  static_assert(!kAMMajor || kBNMajor, "gemm_sm90 persistent: an M-major A comes with an N-major B (the host transposes (M, K))");
  static_assert(kClusterM == 1 || kClusterM == 2 || kClusterM == 4, "gemm_sm90 persistent: clusters of 1, 2 or 4 blocks along M");

  // BLK_K: one 128-byte swizzle row, 64 16-bit or 128 FP8 elements
  static constexpr int kBM = 128, kBN = 256, kBK = 128 / Elem::kBytes;
  static constexpr int kStages = 4;  // 48 KB a stage
  static constexpr int kInFlight = 1;  // wgmma groups (K tiles) a consumer keeps in flight
  static_assert(kInFlight < kStages, "gemm_sm90 persistent: the ring must hold the K tiles in flight and one more");
  static constexpr int kThreads = 384;
  // setmaxnreg moves registers between the warpgroups of the block, whose pool is what the launch gave it: kThreads x
  // the kernel's register count, which __launch_bounds__(kThreads, 1) caps at 65,536 / kThreads rounded down to a
  // multiple of 8 (168: 64,512 registers).  A split over that pool makes setmaxnreg.inc wait forever (a hang, not an
  // error).  The producer warpgroup (its producer thread and store warps) fits in 40 (ptxas: no spills), and the bare
  // cooperative kernel's
  // consumers need the 232 to keep their bookkeeping out of local memory (at 224 ptxas spilled 44 / 28 bytes of it,
  // docs/PERF.md).
  static constexpr int kLaunchRegs = 65536 / kThreads / 8 * 8;
  static constexpr int kProducerRegs = 40, kConsumerRegs = 232;
  static_assert(128 * kProducerRegs + 256 * kConsumerRegs <= kThreads * kLaunchRegs,
                "gemm_sm90 persistent: the warpgroups' registers fit the block's pool (setmaxnreg.inc would wait forever)");
  static constexpr bool kF16 = std::is_same_v<Elem, gemm_sm80::ElemF16>;
  using Atom = typename WgmmaAtomFor<Elem, kBN, kAMMajor ? 1 : 0, kBNMajor ? 1 : 0>::type;
  // FP8's promoted accumulation issues each K tile as two groups of m64n128k32, one per half of the unit's columns:
  // their fragment is the first or second half of the m64n256 fragment (values 0-63: columns 0-127).
  using HalfAtom = typename WgmmaAtomFor<Elem, kBN / 2, kAMMajor ? 1 : 0, kBNMajor ? 1 : 0>::type;
  // FP8's promotion interval is one K tile: 128 products, as cuBLASLt's FP8 GEMM (its D bit for bit); two K tiles ran
  // 14% faster but summed 30 times less accurately (1.2e-3 of sum |a b| against 3.7e-5 at K = 16,384; docs/PERF.md,
  // forty-first section, 3241aba).
  static_assert(HalfAtom::kValuesC * 2 == Atom::kValuesC, "gemm_sm90 persistent: two half-width atoms make the unit's fragment");
  static constexpr int kSlices = 2;                         // consumer warpgroups sharing one unit
  static constexpr int kHalves = kBM / Atom::kM / kSlices;  // atoms stacked along M per consumer (1)
  // gelu_erf: branch-free (ew::op::GeluHw): ptxas spilled 536 / 466 bytes (bf16, (K, K), general kernel) with libm's
  // erfcf, 100 / 50 with GeluHw (docs/PERF.md).
  using Epilogue = epilogue::FragmentEpilogue<Atom, ew::op::GeluHw>;
  // D through shared memory and TMA stores (p.d_tma): per consumer warpgroup two (64, 64) 16-bit staging tiles
  // (Epilogue::kStageTile), 64 columns = 32 registers each.
  // A consumer's unit leaves as four staging tiles (slots 0-3) of 64 x 64: its 64 rows x 256 columns (slot j at column
  // 64 j).  Its accumulators are two halves of 64 registers (Epilogue::kChunk), each two slots: columns 0-127 and
  // 128-255 of the m64n256 atom.
  static constexpr int kSlots = 4;
  __host__ __device__ static constexpr int slot_col(int j) { return 64 * j; }
  static constexpr atom::SmemTileSm90::Box kBoxD = Epilogue::kStageTile.tma_box();
  // An MN-major operand arrives as boxes of 64 M (N) elements x 64 K rows, 8 KB each, side by side (and 64 rows of a
  // K-major tile are as many bytes).
  static constexpr int kBoxBytes = 64 * 128;
  // B as each block loads it: kBN / kClusterM rows (K-major; one box) or that many columns (N-major boxes).
  static constexpr int kClusterBlocks = kClusterM;
  static constexpr int kBNPerBlock = kBN / kClusterM;
  static_assert(kBNPerBlock % 64 == 0, "gemm_sm90 persistent: each block loads whole 64-wide boxes of B");

  // The operand tiles in shared memory as layouts (atom/smem_sm90.hpp): TMA writes them, wgmma reads them,
  // and the host's boxes come from them (kBoxA / kBoxB through KernelInfo).
  //   A K-major: one tile of BLK_M rows x 64 K;  A M-major: BLK_M / 64 boxes of 64 K rows x 64 M
  //   B K-major: this block's BLK_N / cluster rows x 64 K;  B N-major: boxes of 64 K rows x 64 N
  static constexpr atom::SmemTileSm90 kTileA = atom::sw128_tile(kAMMajor ? kBK : kBM, Elem::kBytes);
  static constexpr atom::SmemTileSm90 kTileB = atom::sw128_tile(kBNMajor ? kBK : kBNPerBlock, Elem::kBytes);
  static_assert(kTileA.matches_hw_sw128() && kTileB.matches_hw_sw128(),
                "gemm_sm90 persistent: the stage layouts must place every element where the 128-byte TMA/wgmma swizzle does");
  static_assert(kTileA.tma_swizzle_bytes() == 128 && kTileB.tma_swizzle_bytes() == 128,
                "gemm_sm90 persistent: the tensor maps use CU_TENSOR_MAP_SWIZZLE_128B");
  static_assert(kTileA.bytes() == kBoxBytes * (kAMMajor ? 1 : kBM / 64) && (!kAMMajor || kTileA.row_elems() == 64),
                "gemm_sm90 persistent: A's tile is BLK_M rows of one 128-byte row each, or 64-wide M-major boxes");
  static constexpr atom::SmemTileSm90::Box kBoxA = kTileA.tma_box(), kBoxB = kTileB.tma_box();
  // The wgmma descriptors' fields (an MN-major operand: boxes kBoxBytes apart along M or N) and the step between
  // the 16-element K steps, from the same layouts.
  static constexpr atom::SmemTileSm90::WgmmaOperand kOpA = kTileA.wgmma_operand(!kAMMajor, kBoxBytes, kBK, Atom::kK);
  static constexpr atom::SmemTileSm90::WgmmaOperand kOpB = kTileB.wgmma_operand(!kBNMajor, kBoxBytes, kBK, Atom::kK);
  // A K-major operand's wgmma steps 32 bytes along its rows (16 16-bit or 32 FP8 elements: the atom's K).
  static_assert((kAMMajor || kOpA.k_step == Atom::kK * Elem::kBytes) && (kBNMajor || kOpB.k_step == Atom::kK * Elem::kBytes),
                "gemm_sm90 persistent: the descriptors step one wgmma's K (Atom::kK elements) at a time");
  static_assert(kOpA.desc != 0 && kOpB.desc != 0,
                "gemm_sm90 persistent: the stage tiles give wgmma descriptors (128-byte swizzle, evenly spaced K steps)");

  using StageElem = std::conditional_t<kF8, uint8_t, uint16_t>;  // an operand element's bytes
  struct Stage {
    alignas(1024) StageElem a[kBM * kBK];  // (BLK_M, BLK_K) 128-byte swizzled: 128 bytes of K a row
    alignas(1024) StageElem b[kBN * kBK];  // (BLK_N, BLK_K) 128-byte swizzled
  };
  struct DStage {
    alignas(1024) unsigned char tile[2][2][Epilogue::kStageTile.bytes()];  // [consumer][buffer]
  };
  // A consumer's rows of D per unit (its 64 of the 128), and the bytes of one unit's 16-bit bias as a consumer's
  // epilogue reads it: kBN columns or its rows, whichever is more.
  static constexpr int kConsumerRows = Atom::kM;
  static constexpr int kBiasBytes = 2 * (kBN > kConsumerRows ? kBN : kConsumerRows);
  struct SharedStorage {
    Stage stage[kStages];
    DStage d;
    uint64_t full[kStages];
    uint64_t empty[kStages];
    uint64_t rfull[2];     // the bare kernel's residual through TMA (p.r_tma): the slot's box is in consumer c's buffer 1
    uint64_t drained;      // every consumer warp's wgmma of the unit are complete (slot 3 is free)
    uint64_t bias_full[2];  // consumer c's bias words of its unit have landed in bias[c] (count 128: one
                            // cp.async.mbarrier.arrive.noinc per thread of the warpgroup)
    int last[2];  // split-K: this warpgroup's unit completes its tile
    // The bare kernel's menus that the store warps finish (Epi::finishes): byte w, how consumer c's warp w staged its
    // slot in buffer 0 (Epi::stage_deferred: 0 f16, 1 bf16).  Written and read with shared-memory atomics: the hand-off is ordered
    // by the staged and free named barriers, whose arrive / sync pairs compute-sanitizer's racecheck does not model.
    uint32_t parked[2];
    // The bias of a unit of the bare kernel's menus (persistent_epilogue.hpp, stage_bias): consumer c's columns (kBN)
    // or rows (its kConsumerRows) in D's 16-bit type, copied at the unit's start.
    alignas(16) unsigned char bias[2][kBiasBytes];
  };
  static constexpr int kStageBytes = static_cast<int>(sizeof(Stage));
  static constexpr int kStageOffB = static_cast<int>(offsetof(Stage, b));  // B's tile in a stage (bytes)
  static_assert(kStageBytes % 16 == 0 && kStageOffB % 16 == 0 && kBoxBytes % 16 == 0 && kOpA.k_step % 16 == 0 &&
                    kOpB.k_step % 16 == 0,
                "gemm_sm90 persistent: the descriptors' start addresses step in whole 16-byte units");
  static_assert(sizeof(SharedStorage) + 1024 <= 227 * 1024, "gemm_sm90 persistent: the shared storage fits the 227 KB a block may have");
  static_assert(offsetof(Stage, b) == sizeof(Stage::a), "gemm_sm90 persistent: a stage's B rows follow its A rows (kRingSlot3)");
  static_assert(kStageBytes == (kBM + kBN) * kBK * Elem::kBytes, "gemm_sm90 persistent: a stage is exactly the A tile and the B tile");
  static_assert(sizeof(Stage::a) == static_cast<size_t>(kTileA.bytes() * (kAMMajor ? kBM / 64 : 1)) &&
                    sizeof(Stage::b) == static_cast<size_t>(kTileB.bytes() * (kBNMajor ? kBN / 64 : kClusterM)),
                "gemm_sm90 persistent: the stage buffers hold exactly the tiles the boxes fill");
  static constexpr int kSmemBytes = static_cast<int>(sizeof(SharedStorage)) + 1024;  // + slack to align to 1024

  // Named barriers (0 is __syncthreads').  The TMA-store hand-off (p.d_tma) has two per staging
  // tile: staged (consumer c -> store warp c, the tile is written) and free (store warp -> consumer, the
  // tile's store has read it), 128 + 32 threads each.
  enum class Barrier : int { consumer0 = 1, consumer1 = 2, staged = 3, free = 7, staged_ring = 11, staged_ring3 = 13,
                             drained_both = 15,
                             fp8_offset = 15 /* the general kernel's promoted loop (drained_both is the bare kernel's) */,
                             fp8_offset_bare = 11, fp8_follow_bare = 12 /* the bare kernel's promoted loop (it stages
                                                                           no ring slots) */ };
  static constexpr uint32_t kHandoffThreads = 128 + 32;
  __device__ __forceinline__ static uint32_t staged_bar(int c, int b) { return static_cast<uint32_t>(static_cast<int>(Barrier::staged) + 2 * c + b); }
  __device__ __forceinline__ static uint32_t free_bar(int c, int b) { return static_cast<uint32_t>(static_cast<int>(Barrier::free) + 2 * c + b); }
  __device__ __forceinline__ static uint32_t staged_ring_bar(int c) { return static_cast<uint32_t>(static_cast<int>(Barrier::staged_ring) + c); }
  __device__ __forceinline__ static uint32_t staged_ring3_bar(int c) { return static_cast<uint32_t>(static_cast<int>(Barrier::staged_ring3) + c); }
  // A unit's four staging tiles per consumer (slots 0-3): slot 0 in buffer 0, slot 1 in buffer 1, slot 2 in the
  // consumer's own A rows of the unit's last ring stage (8 KB, read by no one else once its wgmma are complete), slot
  // 3 in its quarter of that stage's B rows (kRingSlot3: free once every consumer warp's wgmma of the unit are
  // complete, the `drained` barrier).  The consumer does not release that stage; its store warp does, once the
  // stores have read slots 2 and 3.  So no tile of a unit waits for a store of the same unit to read its buffer
  // (buffers 0 and 1 were read during the main loop).
  static constexpr int kRingSlot = 2;
  // (The bare kernel's slots pass through the two buffers -- where its store warps finish the menu, its slots through
  // buffer 0 and a residual's boxes through buffer 1: persistent_store_warps.hpp, store_tiles_finishing -- except the
  // block's last unit, through ring stages 2c and 2c + 1 (Epi::stage_last_in_ring).  The general kernel reads a
  // residual from global memory, whatever p.r_tma says.)
  static constexpr int kRingSlot3 = 3;
  // D's type in the bare kernel: the operands' (16-bit), bf16 for 8-bit operands.
  using ElemT = std::conditional_t<kF16, __half, __nv_bfloat16>;
  // A unit's epilogue: the general body, the staging slots, the bare kernel's menus and deferred staging
  // (persistent_epilogue.hpp).
  using Epi = PersistentEpilogue<GemmSm90Persistent>;

#if defined(__CUDACC__)
  template <bool kBareOnly = false>
  __device__ __forceinline__ static void run(const Params& p, const CUtensorMap* map_a, const CUtensorMap* map_b,
                                             const CUtensorMap* map_d, const CUtensorMap* map_r) {
#if defined(TESSERA_ARCH_SM90A)
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    // The 128-byte swizzle repeats every 1024 bytes: the stages start 1024-byte aligned.
    SharedStorage& sh = *reinterpret_cast<SharedStorage*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) &
                                                          ~static_cast<uintptr_t>(1023));
    // The scheduler hands out cluster tiles (kClusterM tile rows each); block rank r takes row kClusterM * tm + r.
    // The launch built it (persistent_scheduler, with its divisors' constants): the kernel reads it in place.
    const gemm_core::TileScheduler& sched = p.sched;
    const int wg = static_cast<int>(threadIdx.x) / 128;

    if (threadIdx.x == 0) {
      TTRACE(0, 7, 7, TCLK());
      TTRACE(0, 7, 6, TGLOBAL());
      arch::tma_prefetch_desc(map_a);
      arch::tma_prefetch_desc(map_b);
      if (p.d_tma) arch::tma_prefetch_desc(map_d);
      if (kBareOnly && p.r_tma) arch::tma_prefetch_desc(map_r);
      for (int s = 0; s < kStages; ++s) {
        arch::mbarrier_init(&sh.full[s], 1);
        arch::mbarrier_init(&sh.empty[s], 4 * kSlices * kClusterM);  // every consumer warp of the cluster
      }
      for (int c = 0; c < 2; ++c) arch::mbarrier_init(&sh.rfull[c], 1);
      arch::mbarrier_init(&sh.drained, 4 * kSlices);
      arch::mbarrier_init(&sh.bias_full[0], 128);
      arch::mbarrier_init(&sh.bias_full[1], 128);
      arch::fence_mbarrier_init();
      TTRACE(0, 7, 8, TCLK());
      // The block's first item's first stages, before the cluster barrier: every stage is empty at the start, and B is
      // loaded whole by each block (no multicast, which needs the peers' barriers), so nothing waits for the peers.
      arch::fence_proxy_async_shared_cta();  // the initialised barriers are visible to the TMA unit
      issue_early(sh, sched, map_a, map_b);
    }
    // The peers' barriers exist before anyone arrives on them or multicasts into their block.  The relaxed arrival:
    // fence_mbarrier_init has published them, and the release form's MEMBAR.ALL.GPU would hold thread 0 (and so every
    // thread of the cluster) until its early loads have landed (scripts/device/cluster_barrier_probe.cu measures it).
    // (The block's barrier first orders thread 0's shared-memory writes for its own block.)
    __syncthreads();
    if constexpr (kClusterM > 1) {
      arch::cluster_arrive_relaxed();
      arch::cluster_wait();
    }
    if (threadIdx.x == 0) TTRACE(0, 7, 9, TCLK());

    if (wg == 0) {
      arch::setmaxnreg_dec<kProducerRegs>();
      if (threadIdx.x == 0) TTRACE(0, 7, 10, TCLK());
      if (threadIdx.x == 0) produce(sh, sched, map_a, map_b);
      // Warps 1 and 2 issue the TMA stores of consumers 0 and 1 (the consumers go on while they run).
      if (p.d_tma && (threadIdx.x / 32 == 1 || threadIdx.x / 32 == 2))
        PersistentStoreWarps<GemmSm90Persistent>::template store_tiles<kBareOnly>(
            sh, sched, p, static_cast<int>(threadIdx.x) / 32 - 1, map_d, map_r);
    } else {
      arch::setmaxnreg_inc<kConsumerRegs>();
      if (threadIdx.x == 128) TTRACE(0, 7, 12, TCLK());
      // FP8: the promoted and the fast accumulation are two copies of the consumer, chosen once (one body taking
      // either loop per unit: ptxas serialised every wgmma, C7515).
      // Block scales take a third copy of the promoted loop: with their loads in the one copy, the per-tensor loop ran
      // 12% slower (ptxas spilled 36 bytes; docs/PERF.md, forty-second section).
      // (The bare kernel has no block-scaled copy: the host launches it without block scales, bare_kernel_scales.)
      constexpr bool kBlockCopy = kPromotable && !kBareOnly;
      if (kBlockCopy && !p.fp8_fast_accum && (p.scale_a_blocks || p.scale_b_blocks))
        consume<kBareOnly, kBlockCopy, kBlockCopy>(sh, sched, p, wg - 1);
      else if (kPromotable && !p.fp8_fast_accum) consume<kBareOnly, kPromotable>(sh, sched, p, wg - 1);
      else consume<kBareOnly, false>(sh, sched, p, wg - 1);
    }
    // No block leaves while its peer may still write into its shared memory or arrive on its barriers.
    __syncwarp();  // the producer's lane 0 rejoins its warp: the cluster barrier is warp-aligned
    if constexpr (kClusterM > 1) arch::cluster_sync();
    if (threadIdx.x == 0) { TTRACE(0, 7, 5, TGLOBAL()); TTRACE(0, 7, 4, TCLK()); }
#else
    (void)p; (void)map_a; (void)map_b; (void)map_d; (void)map_r;  // built for sm_90a only; the host never launches it elsewhere
#endif
  }

#if defined(TESSERA_ARCH_SM90A)
  // ---- producer: one thread drives the copy engine for every unit of this block ----
  // Stage s's loads of K offset k0 for the block's tile at (m0, n0): the stage's bytes on its full barrier, A, and B --
  // this block's part (columns [n0 + rank * kBNPerBlock, +kBNPerBlock)) to every block of the cluster, or (kWholeB)
  // every part to this block alone.
  template <bool kWholeB>
  __device__ __forceinline__ static void load_stage(SharedStorage& sh, int s, const CUtensorMap* map_a, const CUtensorMap* map_b,
                                                    int m0, int n0, int k0, int rank) {
    arch::mbarrier_arrive_expect_tx(&sh.full[s], kStageBytes);
    Stage& st = sh.stage[s];
    if constexpr (kAMMajor) {
      for (int j = 0; j < kBM / 64; ++j)
        arch::tma_load_2d(reinterpret_cast<unsigned char*>(st.a) + j * kBoxBytes, map_a, &sh.full[s], m0 + 64 * j, k0);
    } else {
      arch::tma_load_2d(st.a, map_a, &sh.full[s], k0, m0);
    }
    auto b_box = [&](void* dst, int c0, int c1) {
      if constexpr (kWholeB) arch::tma_load_2d(dst, map_b, &sh.full[s], c0, c1);
      else load_b(dst, map_b, &sh.full[s], c0, c1);
    };
    for (int r = kWholeB ? 0 : rank; r < (kWholeB ? kClusterM : rank + 1); ++r) {
      const int nb = r * kBNPerBlock;
      if constexpr (kBNMajor) {
        for (int j = nb / 64; j < (nb + kBNPerBlock) / 64; ++j) b_box(reinterpret_cast<unsigned char*>(st.b) + j * kBoxBytes, n0 + 64 * j, k0);
      } else {
        b_box(reinterpret_cast<unsigned char*>(st.b) + nb * 128, k0, n0 + nb);
      }
    }
  }

  // The first early_tiles(item 0) stages of the block's first item, B whole (load_stage<true>: no multicast, which
  // needs the peers' barriers), loaded by this block alone.  Thread 0, before the cluster barrier.
  __device__ __forceinline__ static int early_tiles(const gemm_core::TileWork& w) { return w.k_tiles < kStages ? w.k_tiles : kStages; }
  __device__ __forceinline__ static void issue_early(SharedStorage& sh, const gemm_core::TileScheduler& sched, const CUtensorMap* map_a,
                                                    const CUtensorMap* map_b) {
    if (sched.items(worker()) == 0) return;
    const gemm_core::TileWork w = sched.item(worker(), 0);
    const int rank = kClusterM > 1 ? static_cast<int>(arch::cluster_ctarank()) : 0;
    for (int s = 0; s < early_tiles(w); ++s)
      load_stage<true>(sh, s, map_a, map_b, (w.tm * kClusterM + rank) * kBM, w.tn * kBN, (w.k_tile0 + s) * kBK, rank);
    TTRACE(0, 7, 13, TCLK());
  }

  // (The first item starts after its early_tiles, which issue_early loaded: the ring position and phase after them.)
  __device__ __forceinline__ static void produce(SharedStorage& sh, const gemm_core::TileScheduler& sched, const CUtensorMap* map_a,
                                 const CUtensorMap* map_b) {
    int s = 0;
    uint32_t phase = 0;
    const int rank = kClusterM > 1 ? static_cast<int>(arch::cluster_ctarank()) : 0;
    int pl = 0;
    for (int v = 0, n = sched.items(worker()); v < n; ++v, ++pl) {
      const gemm_core::TileWork w = sched.item(worker(), v);
      const int m0 = (w.tm * kClusterM + rank) * kBM, n0 = w.tn * kBN;
      if (v == 0) TTRACE(0, 7, 11, TCLK());
      TTRACE(0, pl, 0, TCLK());
      unsigned long long wsum = 0;
      int kt = 0;
      if (v == 0) {
        kt = early_tiles(w);
        s = kt == kStages ? 0 : kt;
        phase = kt == kStages ? 1u : 0u;
      }
      for (; kt < w.k_tiles; ++kt) {
        const unsigned long long tw0 = TCLK();
        arch::mbarrier_wait_parity(&sh.empty[s], phase ^ 1u);  // first round: a fresh barrier passes
        wsum += TCLK() - tw0;
        if (kt == 0) TTRACE(0, pl, 3, TCLK());
        load_stage<false>(sh, s, map_a, map_b, m0, n0, (w.k_tile0 + kt) * kBK, rank);
        if (++s == kStages) {
          s = 0;
          phase ^= 1u;
        }
      }
      TTRACE(0, pl, 1, wsum);
      TTRACE(0, pl, 2, TCLK());
    }
  }

  // The first row of D that cooperative consumer c stores in the block's tile row tm.  The store warp, the consumer's
  // ring-slot test and its epilogue all use this one formula: they must agree on which units store D (rows inside
  // M), or a staged / free barrier waits forever.
  __device__ __forceinline__ static int consumer_m0(int tm, int c) { return tm * kBM + Atom::kM * c; }
  // The phase of sh.drained for the block's unit v (its local index): the count of units before it.
  __device__ __forceinline__ static uint32_t drained_parity(int v) { return static_cast<uint32_t>(v & 1); }
  // The dynamic shared memory as it starts (`run` rounds it up to 1 KB for SharedStorage), and a pointer's shared::cta
  // address.
  __device__ __forceinline__ static const void* smem_raw_base() {
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    return smem_raw;
  }
  __device__ __forceinline__ static uint32_t shared_u32(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
  // The ring stage d positions before position s (d <= kStages): stage s - 1 holds the last K tile issued.
  __device__ __forceinline__ static int stage_before(int s, int d) { return s >= d ? s - d : s - d + kStages; }
  // Slot 2 of consumer c: its 64 rows of A in ring stage s (K-major: 64 rows of 128 bytes; M-major: its own box).
  __device__ __forceinline__ static unsigned char* ring_tile(SharedStorage& sh, int s, int c) {
    static_assert(Epilogue::kStageTile.bytes() == kBoxBytes && Atom::kM == 64, "gemm_sm90 persistent: a staging tile is one 64-row A box");
    return reinterpret_cast<unsigned char*>(sh.stage[s].a) + c * kBoxBytes;
  }

  // This block's worker (its cluster) and the workers of the grid (kernel/gemm/scheduler.hpp: the worker's
  // items are its whole units, then its stream-K pieces).
  __device__ __forceinline__ static int worker() { return static_cast<int>(blockIdx.x) / kClusterM; }
  __device__ __forceinline__ static void load_b(void* dst, const CUtensorMap* map, uint64_t* bar, int c0, int c1) {
    if constexpr (kClusterM > 1) arch::tma_load_2d_multicast(dst, map, bar, c0, c1, static_cast<uint16_t>((1u << kClusterM) - 1));
    else arch::tma_load_2d(dst, map, bar, c0, c1);
  }
  // Releases stage s: one arrival per warp on this block's empty barrier and on each peer's.
  __device__ __forceinline__ static void release(SharedStorage& sh, int s) {
    release(static_cast<uint32_t>(__cvta_generic_to_shared(&sh.empty[s])));
  }
  // The same from the empty barrier's shared::cta address.
  __device__ __forceinline__ static void release(uint32_t empty_u32) {
    if constexpr (kClusterM > 1) {
#pragma unroll
      for (int r = 0; r < kClusterM; ++r) arch::mbarrier_arrive_cluster(empty_u32, static_cast<uint32_t>(r));
    } else {
      (void)arch::mbarrier_arrive(empty_u32);
    }
  }

  // The main loop's accumulator array: the integer one (INT8) or the float one.
  template <bool kIntAcc, class I, class F>
  __device__ __forceinline__ static auto& pick_acc(I& i, F& f) {
    if constexpr (kIntAcc) return i;
    else return f;
  }

  // ---- consumers: warpgroup c takes its 64 rows of every unit (persistent_consumer.hpp) ----
  // kPromoted: FP8's promoted accumulation; kBlockScales: with block scales (Params::scale_a_blocks / scale_b_blocks).
  template <bool kBareOnly, bool kPromoted, bool kBlockScales = false>
  __device__ __forceinline__ static void consume(SharedStorage& sh, const gemm_core::TileScheduler& sched, const Params& p, int c);

  static constexpr int kBiasBit = 1;  // consume's `phases` (Epi::kParkedBit and Epi::kLastBit are the others)
  // The bare cooperative kernel stages a unit's bias (Epi::stage_bias) and waits for it (before the drain) under this
  // one condition, so that the copies and the waits stay in step (recomputed at both places rather than kept live
  // across the main loop): every unit whose bias pack_deferred adds (Epi::consumer_bias: where the store warps add it,
  // the block's last unit alone; bit Epi::kLastBit of `phases` is set before both places).
  __device__ __forceinline__ static bool defer_bias(const Params& p, const gemm_core::TileWork& w, uint32_t phases) {
    return w.partial < 0 && Epi::consumer_bias(p, phases);
  }

  // The thread's index in its warpgroup, read again from %tid.x: the epilogue's addresses are then computed
  // where they are used instead of being kept live across the main loop (which cost 252 / 640 bytes of
  // spills in the cooperative kernel).
  __device__ __forceinline__ static int thread_now() { return static_cast<int>(arch::tid_x_now() % 128u); }

#endif  // TESSERA_ARCH_SM90A
#endif  // __CUDACC__
};

}  // namespace tessera::gemm_sm90

#include "tessera/kernel/gemm_sm90/persistent_consumer.hpp"  // GemmSm90Persistent::consume

namespace tessera::gemm_sm90 {

#if defined(__CUDACC__)
template <class Elem, bool kBNMajor, bool kAMMajor, bool kBareOnly = false>
__global__ void __launch_bounds__(GemmSm90Persistent<Elem, kBNMajor, kAMMajor>::kThreads, 1)
    // launched with a cluster dimension of GemmSm90Persistent<...>::kClusterM along x
    gemm_sm90_persistent_kernel(const __grid_constant__ Params p, const __grid_constant__ CUtensorMap map_a,
                                const __grid_constant__ CUtensorMap map_b, const __grid_constant__ CUtensorMap map_d,
                                const __grid_constant__ CUtensorMap map_r) {
  GemmSm90Persistent<Elem, kBNMajor, kAMMajor>::template run<kBareOnly>(p, &map_a, &map_b, &map_d, &map_r);
}
#endif

}  // namespace tessera::gemm_sm90
