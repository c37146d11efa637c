// include/tessera/kernel/gemm_sm90/gemm_kernel.hpp -- the Hopper tensor-core GEMM (sm_90a): TMA loads,
// an mbarrier ring, warpgroup MMA (wgmma), and the same fused epilogue as the Ampere path.
//
//   block tile   128 x BLK_N x 64, BLK_N = 16, 64, 128 or 256 (16-bit A and B, both K-major), kStages = 6, 8, 6, 4
//                shared buffers of A (128 x 64) and B (BLK_N x 64), each stored as the TMA engine writes it with
//                a 128-byte swizzle: 18 / 24 / 32 / 48 KB per stage, 108 / 192 / 192 / 192 KB in all, one block per SM
//                (FP8: K tiles of 128 bytes, the same stage sizes; its 128 x 128 tile keeps 4 stages)
//   warpgroups   3 x 128 threads.  Warpgroup 0 is the producer: one thread issues, per K tile, the two
//                TMA loads of a stage after waiting for the stage to be free (with Params::issue_pairs, past the
//                ring's first round, K tiles 2j and 2j + 1 once both their stages are free).  Warpgroups 1 and 2 are
//                the consumers: rows 0-63 and 64-127 of the tile, BLK_N/2 fp32 accumulators per thread,
//                four wgmma m64nNk16 per K tile read straight from the swizzled stage; one K tile's
//                group stays in flight while the next stage is awaited.
//   ring         full[s]  (count 1): the producer's arrive.expect_tx(stage bytes); the TMA bytes complete it
//                empty[s] (count 2): one arrive per consumer warpgroup once its wgmma of stage s are done
//                Both are waited by parity; a fresh empty barrier counts as free (parity 1 passes).
//   epilogue     accumulators -> fp32 staging tile in D's order (the stage buffers, reused) -> split-K
//                reduction -> one pass applying alpha, beta*C, bias, activation, residual and storing D
//                (tessera/kernel/epilogue/staged_epilogue.hpp, shared with gemm_sm80): all 384 threads.  Tiles up
//                to 128 wide have that pass's C, bias and residual copied into shared memory of their own during
//                the main loop by the producer warpgroup's idle warps (StagedEpilogue::fetch_ahead), so that no
//                epilogue load waits on DRAM after it (the 16-bit 128 x 128 tile, whose six stages leave room for one
//                matrix: C or the residual, not both).
//                The bare GEMM (D = alpha * A @ B, 16-bit D leaving through TMA: p.d_tma; one split, or the
//                cluster's two) instead leaves from the consumers' registers: each 64-column chunk of a consumer's
//                64 rows is cast and written with stmatrix into a 128-byte-swizzled 64 x 64 tile (FragmentEpilogue::
//                stage_sw128, the stage buffers reused) and stored by one TMA store, whose bounds clip the edges.
//                With two splits block z stores rows 64 z.., having added the peer block's sums of them (its other
//                consumer warpgroup's, written to shared memory) through distributed shared memory.
//                The 16-wide decode tiles' bare GEMM (alpha alone, any D) leaves from the consumers' registers too,
//                stored straight to global memory (FragmentEpilogue::store); its two splits in a cluster push split
//                1's sums into split 0, which stores the whole tile.
//                The other menus of the 16- and 64-wide tiles' cluster pairs scatter: each block pushes the peer's
//                half of its sums from registers (st.async) and stages and stores its own half; the wider tiles'
//                pairs stage both halves and read the peer's half through distributed shared memory.  (The push and
//                the scatter: PairSums in pair_sums.hpp.)
//   64-row tiles 64 x 16 and 64 x 64 (kBM 64: decode problems, the weights as A; 16-bit, K-major A and B): one consumer
//                warpgroup (256 threads), 12 / 8 stages of 10 / 16 KB; empty[s] counts one arrive.  Their cluster
//                pairs push the bare GEMM as the 128-row tiles of the same width do (16 wide: alpha alone, any D; 64
//                wide: through TMA stores), and scatter the other menus.
//
// Out-of-bounds parts of a box (M, N or K beyond the matrix) arrive as zeros, so partial tiles multiply
// zeros; the epilogue stores only inside D.  Requires (checked by the host): K-major A and B, or
// (kBNMajor) an N-major B -- then B comes as BLK_N/64 boxes of 64 N x 64 K and wgmma reads it
// transposed (imm-trans-b) --, or (kAMMajor, with kBNMajor) also an M-major A likewise (imm-trans-a);
// base addresses 16-byte aligned, lda * 2 and ldb * 2 multiples of 16 bytes.  Launch with kThreads threads
// and kSmemBytes of dynamic shared memory, grid (tiles, 1, splits), like gemm_sm80.
#pragma once

#include <cuda.h>  // CUtensorMap

#include <cstdint>      // uintptr_t
#include <type_traits>  // std::is_same_v

#include "tessera/arch/sm90_cluster.hpp"               // cluster_sync, mbarrier_arrive_cluster, ld_shared_cluster_f32x4
#include "tessera/arch/sm90_mbarrier.hpp"              // mbarrier_init, mbarrier_wait_parity, ...
#include "tessera/arch/sm90_tma.hpp"                   // tma_load_2d, tma_prefetch_desc
#include "tessera/arch/sm90_wgmma.hpp"                 // smem_desc, wgmma_fence, ...
#include "tessera/atom/mma_sm90.hpp"                   // WgmmaSm90 (the MMA atom)
#include "tessera/atom/smem_sm90.hpp"                  // SmemTileSm90, sw128_tile (the stage tiles)
#include "tessera/arch/sm90_warpgroup.hpp"             // named_barrier_sync
#include "tessera/kernel/epilogue/fragment_epilogue.hpp"  // FragmentEpilogue (stage_sw128)
#include "tessera/kernel/epilogue/staged_epilogue.hpp"  // StagedEpilogue
#include "tessera/kernel/gemm_sm80/config.hpp"          // Params, ElemBf16, ElemF16
#include "tessera/kernel/gemm_sm90/elem.hpp"            // ElemF8, WgmmaAtomFor
#include "tessera/kernel/gemm_sm90/fp8_scales.hpp"      // fp8_tensor_scale, fp8_channel_scale
#include "tessera/kernel/gemm_sm90/pair_sums.hpp"       // PairSums, add_peer_lines (cluster pairs)
#include "tessera/kernel/gemm_sm90/register_store.hpp"  // RegisterStore (D from registers)
#include "tessera/kernel/gemm_sm90/trace.hpp"           // TTRACE, TCLK, TGLOBAL (the timeline probe)

// K tiles that split 0 takes from split 1 when the pair pushes (GemmSm90::kPairLead): the 128 x 16 tile, the 128 x 64 one.
#ifndef TESSERA_PAIR_PUSH_LEAD
#define TESSERA_PAIR_PUSH_LEAD 2
#endif
#ifndef TESSERA_PAIR_PUSH_LEAD_64
#define TESSERA_PAIR_PUSH_LEAD_64 4
#endif
// 0: the 128 x 64 tile's pair shares its epilogue as before the push (a switch for measuring the two apart).
#ifndef TESSERA_PAIR_PUSH_64
#define TESSERA_PAIR_PUSH_64 1
#endif

namespace tessera::gemm_sm90 {

using gemm_sm80::Params;

// kBM_: 128 (two consumer warpgroups, rows 0-63 and 64-127) or 64 (the 64-row weight tiles of decode problems: one
// consumer warpgroup, 256 threads; 16-bit K-major A and B, BLK_N 16 or 64).
template <class Elem, int kBN_, bool kBNMajor = false, bool kAMMajor = false, int kBM_ = 128>
struct GemmSm90 {
  static constexpr int kBM = kBM_, kBN = kBN_;
  static constexpr int kConsumers = kBM / 64;  // consumer warpgroups, 64 rows each
  static_assert(kBM == 128 || (kBM == 64 && (kBN == 16 || kBN == 64) && !kBNMajor && !kAMMajor && Elem::kBytes == 2),
                "gemm_sm90: the 64-row tile is 16-bit, K-major, 16 or 64 wide");
  static constexpr bool kF8 = Elem::kBytes == 1;
  static constexpr int kBK = 128 / Elem::kBytes;  // one 128-byte swizzle row: 64 16-bit or 128 FP8 elements
  static_assert(kBN == 16 || kBN == 64 || kBN == 128 || kBN == 256,
                "gemm_sm90: BLK_N is 16, 64, 128 or 256 (one wgmma m64nNk16 / m64nNk32 per k-step)");
  static_assert(kBN >= 64 || (!kBNMajor && !kAMMajor), "gemm_sm90: the decode tile takes K-major A and B only");
  static_assert(!kF8 || (!kBNMajor && !kAMMajor), "gemm_sm90: FP8 operands are K-major (wgmma reads 8-bit operands only so)");
  // One atom per consumer warpgroup and K step: wgmma m64nNk16 (m64nNk32 for FP8) with N = BLK_N.
  using Atom = typename WgmmaAtomFor<Elem, kBN, kAMMajor ? 1 : 0, kBNMajor ? 1 : 0>::type;
  static constexpr int kAcc = Atom::kValuesC;  // fp32 accumulators per consumer thread (64 x BLK_N per warpgroup)
  // The narrow tile (small problems: a block's whole K range is a few dozen K tiles) keeps twice the stages in flight.
  // The decode tile (BLK_N 16: B is the batch, A the weights) streams A through 6 stages (108 KB in flight a block): a
  // ring of 12 (all the shared memory holds) ran 1-6% slower at three of issue 11's four weight shapes and alike at
  // 4096^2; 4 stages and fewer ran slower again (docs/PERF.md, forty-ninth section).
  // The 64-row tile's stages are half as large: 12 (16-wide, 120 KB) or 8 (64-wide, 128 KB) of them.
  // The 128 x 128 tile of 16-bit operands: 6 stages (192 KB), its read-ahead buffer then holding one matrix (kAheadMats).
  // At a batch of 128 its wgmmas hold a stage through most of each K tile; four left two to three in flight
  // (docs/PERF.md, sixty-seventh section).  FP8's 128 x 128 tile keeps four (not measured with six).
  static constexpr int kStages = kBM == 64 ? (kBN == 16 ? 12 : 8) : kBN == 16 ? 6 : kBN == 64 ? 8 : (kBN == 128 && !kF8) ? 6 : 4;
  static constexpr int kThreads = 128 * (1 + kConsumers);  // producer warpgroup + the consumer warpgroups
  static_assert(Elem::kBytes == 2 || Elem::kBytes == 1, "gemm_sm90: 16-bit (bf16, f16) or FP8 operands");
  // N-major B (M-major A) arrives as BLK_N/64 (BLK_M/64) boxes of (64 K rows x 64 N (M)) = 8 KB each,
  // side by side; consumer warpgroup w then reads A box w.
  static constexpr int kBoxBytesN = 64 * kBK * 2;
  // The operand tiles in shared memory as layouts (atom/smem_sm90.hpp), 128-byte swizzled: K-major operands one tile
  // of BLK rows x 64 K, MN-major ones 64-row boxes (64 K rows x 64 M or N).  TMA writes them, wgmma reads them; the
  // host's boxes (KernelInfo::box_a / box_b), the descriptors' fields, the K steps and the stage buffers come from them.
  static constexpr atom::SmemTileSm90 kTileA = atom::sw128_tile(kAMMajor ? kBK : kBM, Elem::kBytes);
  static constexpr atom::SmemTileSm90 kTileB = atom::sw128_tile(kBNMajor ? kBK : kBN, Elem::kBytes);
  static_assert(kTileA.matches_hw_sw128() && kTileB.matches_hw_sw128(), "gemm_sm90: the stage layouts must match the 128-byte swizzle");
  static_assert((!kAMMajor || kTileA.bytes() == kBoxBytesN) && (!kBNMajor || kTileB.bytes() == kBoxBytesN),
                "gemm_sm90: an MN-major operand's box is one 64-row tile");
  // A stage buffer holds the operand's tile (K-major) or its BLK / 64 boxes (MN-major): 16 KB of A, 1024-byte aligned.
  static constexpr int kTileBytesA = static_cast<int>(kTileA.bytes()) * (kAMMajor ? kBM / 64 : 1);
  static constexpr int kTileBytesB = static_cast<int>(kTileB.bytes()) * (kBNMajor ? kBN / 64 : 1);
  static constexpr int kStageBytes = kTileBytesA + kTileBytesB;
  static constexpr int kRingBytes = kStages * kStageBytes;
  // Consumer warpgroup w's 64 rows of A: rows 64 w.. of the K-major tile, whose offset is the layout's at (64 w, 0) (the
  // swizzle leaves rows that are multiples of 8 in place, so 64 w times one row's bytes), or M-major box w.
  static constexpr int kRowBytesA = static_cast<int>(kTileA.row_stride_elems()) * Elem::kBytes;
  static constexpr int kRowBytesB = static_cast<int>(kTileB.row_stride_elems()) * Elem::kBytes;
  static_assert(kAMMajor || kBM == 64 || (kTileA.offset_bytes(64, 0) == 64 * kRowBytesA && kTileA.offset_bytes(0, 0) == 0),
                "gemm_sm90: a consumer's rows of A start at the layout's offset of its first row");
  static constexpr atom::SmemTileSm90::Box kBoxA = kTileA.tma_box(), kBoxB = kTileB.tma_box();
  static constexpr atom::SmemTileSm90::WgmmaOperand kOpA = kTileA.wgmma_operand(!kAMMajor, kBoxBytesN, kBK, Atom::kK);
  static constexpr atom::SmemTileSm90::WgmmaOperand kOpB = kTileB.wgmma_operand(!kBNMajor, kBoxBytesN, kBK, Atom::kK);
  static_assert(kOpA.desc != 0 && kOpB.desc != 0, "gemm_sm90: the stage tiles give wgmma descriptors (128-byte swizzle, evenly spaced K steps)");
  static_assert(kTileBytesA % 16 == 0 && kTileBytesB % 16 == 0 && kBoxBytesN % 16 == 0 && kOpA.k_step % 16 == 0 &&
                    kOpB.k_step % 16 == 0,
                "gemm_sm90: the descriptors' start addresses step in whole 16-byte units");
  // The epilogue's inputs are read ahead into shared memory where the 227 KB a block may have hold it beside the ring
  // (the 16-, 64- and 128-wide tiles: 8.5, 32.5 and 64.5 KB for C and the residual; the 128 x 128 tile's ring of six
  // leaves room for one of them, 32.5 KB: kAheadMats 1; not the 256-wide tile's 128.5 KB).
  static constexpr bool ahead_fits(int mats) {
    using Two = epilogue::StagedEpilogue<kBM, kBN, kThreads, 2>;
    return kRingBytes + 2 * kStages * 8 + Two::kAheadBytes - (2 - mats) * Two::kAheadMatrixBytes + 1024 <= 232448;
  }
  static constexpr int kAheadMats = ahead_fits(2) || !ahead_fits(1) ? 2 : 1;  // (no read-ahead at all: the type as before)
  using Epi = epilogue::StagedEpilogue<kBM, kBN, kThreads, kAheadMats>;
  static_assert(Epi::kSmemBytes <= kRingBytes, "gemm_sm90: the staging tile reuses the stage buffers");
  static constexpr bool kAhead = ahead_fits(kAheadMats);
  // The bare GEMM's store: 64 x 64 16-bit tiles of D (FragmentEpilogue::kStageTile, the TMA box), BLK_N / 64 per
  // consumer warpgroup, in the stage buffers.
  using FragEpi = epilogue::FragmentEpilogue<Atom>;
  static constexpr int kDTiles = kBN / FragEpi::kStageCols;  // per consumer warpgroup
  static constexpr int kDTileBytes = static_cast<int>(FragEpi::kStageTile.bytes());
  static_assert(2 * kDTiles * kDTileBytes <= kRingBytes, "gemm_sm90: the D tiles reuse the stage buffers");
  static constexpr atom::SmemTileSm90::Box kBoxD = FragEpi::kStageTile.tma_box();
  static_assert(kDTiles > 0 || FragEpi::kRowPairs, "gemm_sm90: the decode tile's D leaves its registers in pairs of rows");
  // Layout of the dynamic shared memory: [stages of A][stages of B][full barriers][empty barriers][FP8: the phase
  // barrier and 8 bytes of padding][epilogue inputs read ahead (kAhead)].
  static constexpr int kBarrierOffset = kRingBytes;
  static constexpr int kAheadOffset = kRingBytes + 2 * kStages * 8 + (kF8 ? 16 : 0);
  // The two K splits of a tile in a cluster (p.cluster_splits), pushed (`push` in run): split 1 takes kPairLead K tiles
  // fewer than split 0, pushes its sums into split 0's shared memory (st.async, completed on split 0's `recv` barrier)
  // while split 0 runs its extra K tiles, and leaves; split 0 adds them to its registers and finishes the whole tile as
  // a one-split block.  The 128 x 16 tile receives into 8 KB of its own beside the read-ahead buffer.  The 128 x 64
  // tile (kRecvInRing), whose ring and read-ahead buffer fill the 227 KB, into the A slots of two of split 0's ring
  // stages that its main loop is done with: those of its K tiles nk - kStages and nk - kStages + 1, the first two of
  // its last window (never refilled); split 0's consumer warpgroups say so on split 1's `space` barrier as they
  // release the second (at once where those K tiles do not exist), and split 1 waits for it before pushing.  The bare
  // GEMM only: the other menus scatter (`scatter` in run: each block receives half the tile in the same slots), and
  // the wider tiles' pairs share the staged tile through distributed shared memory.
  static constexpr bool kRecvInRing = kBN == 64 && kBM == 128;
  static constexpr bool kPushPair = kBN == 16 || (kBN == 64 && TESSERA_PAIR_PUSH_64);
  static constexpr int kPairLead = kBN == 16 ? TESSERA_PAIR_PUSH_LEAD : TESSERA_PAIR_PUSH_LEAD_64;
  static constexpr int kRecvBytes = kConsumers * kAcc * 128 * 4;  // the consumer warpgroups' sums, thread by thread
  // (The 64-row tile's one consumer warpgroup cannot share a bare pair's rows as RegisterStore::finish does: its pairs push.)
  static_assert(kBM == 128 || kPushPair, "gemm_sm90: the 64-row tile's cluster pairs push");
  static_assert(!kRecvInRing || (kAcc * 128 * 4 <= kTileBytesA && kStages >= 3),
                "gemm_sm90: a consumer warpgroup's sums fit one stage's A slot, and the last window frees two stages in the loop");
  static constexpr int kAheadEnd = (kAheadOffset + (kAhead ? Epi::kAheadBytes : 0) + 15) / 16 * 16;
  static constexpr int kRecvOffset = kAheadEnd;  // (the 128 x 16 tile's buffer)
  static constexpr int kRecvBarOffset = kAheadEnd + (kPushPair && !kRecvInRing ? kRecvBytes : 0);  // `recv`, then `space`
  static constexpr int kSmemBytes = kRecvBarOffset + (kPushPair ? 16 : 0) + 1024;  // + slack to align the base to 1024
  static_assert(kSmemBytes <= 232448, "gemm_sm90: at most 227 KB of shared memory a block");
  static_assert(kAheadOffset % 16 == 0, "gemm_sm90: the read-ahead buffer takes 16-byte copies");

#if defined(__CUDACC__)
  using Pair = PairSums<GemmSm90>;  // the cluster pairs' sums after the main loop (pair_sums.hpp)
  using Store = RegisterStore<GemmSm90>;  // D from the registers through TMA stores (register_store.hpp)

  __device__ __forceinline__ static void run(const Params& p, const CUtensorMap* map_a, const CUtensorMap* map_b,
                                             const CUtensorMap* map_d) {
#if defined(TESSERA_ARCH_SM90A)
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    // The 128-byte swizzle pattern repeats every 1024 bytes: align the ring to 1024.
    unsigned char* smem = reinterpret_cast<unsigned char*>(
        (reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~static_cast<uintptr_t>(1023));
    unsigned char* sA = smem;                          // kStages x (128 x 64) 16-bit, swizzled
    unsigned char* sB = smem + kStages * kTileBytesA;  // kStages x (128 x 64) 16-bit, swizzled
    uint64_t* full = reinterpret_cast<uint64_t*>(smem + kBarrierOffset);
    uint64_t* empty = full + kStages;

    // The block's unit: tile blockIdx.x of the grouped order, split blockIdx.z (its K tiles [kt0, kt0 + nk)), from the
    // scheduler the launch built (Params::sched: divisions by its constants, no division sequence on the device).
    const gemm_core::TileWork unit = p.sched.work(static_cast<int>(blockIdx.x) * p.sched.splits + static_cast<int>(blockIdx.z));
    const int tm = unit.tm, tn = unit.tn;
    const int m0 = tm * kBM, n0 = tn * kBN;
    const int split = static_cast<int>(blockIdx.z);
    int kt0 = unit.k_tile0, nk = unit.k_tiles;
    const int wg = static_cast<int>(threadIdx.x) / 128;
    // The pushed pair's uneven split: kPairLead of split 1's K tiles (the scheduler's k_per) go to split 0, at least
    // one staying with split 1.  The bare GEMM only, which split 0 finishes from its registers: through TMA stores
    // (the 64-wide tiles, p.d_tma), or, for the 16-wide decode tiles (no TMA store of D: kDTiles 0), alpha alone in any
    // D, straight to global memory.  A fused menu's staged epilogue is issue-bound in its store pass, and split 0 alone
    // over the whole tile ran slower than the pair sharing it (bias+GELU 0.975 / 0.982 of cuBLASLt against 0.985 /
    // 0.986, H200; docs/PERF.md, fifty-fifth section); so did the decode tile's push finished by the staged store
    // (batches of 2-8 against 4096^2 weights 4-5% slower than the pair sharing it, fifty-eighth section).
    // (bare_tma has no short-circuits: every parameter it reads is loaded with the scheduler's, in one round of
    // constant cache misses at the block's start, instead of one round per branch -- the first loads wait for it.)
    const bool push = kPushPair && (p.cluster_splits & (kDTiles == 0 ? plain_menu(p.ep) : bare_tma(p)));
    // The scattered pair (kPushPair tiles, the menus the push leaves, with the two K splits in a cluster): each block
    // owns half the tile's lines (line0 / line1 below), pushes its sums of the peer's half into the peer's receiving
    // slots and adds the peer's sums of its own half to its registers -- st.async from registers, where the wider
    // tiles' pairs stage both halves, meet at a cluster barrier and read the peer's half through distributed shared
    // memory (about 14 bytes a cycle for the pair) -- then stages and stores its half.  Measured against that exchange
    // on the H200 (in one process, the decode set, two calls): bias+SiLU+residual over the bare GEMM 0.965-0.971 ->
    // 0.980-0.985 (geomean), 128 x 4096^2 0.88-0.89 -> 0.93-0.97 (docs/PERF.md, sixty-third section).
    const bool scatter = kPushPair && p.cluster_splits && !push;
    int nk_first = 0;  // (push) split 0's K tiles
    if (push) {
      const int lead = p.sched.k_per - 1 < kPairLead ? (p.sched.k_per > 1 ? p.sched.k_per - 1 : 0) : kPairLead;
      nk_first = p.sched.k_per + (p.sched.k_rem > 0 ? 1 : 0) + lead;
      if (split == 0) nk += lead;
      else { kt0 += lead; nk -= lead; }
    }
    uint64_t* recv = reinterpret_cast<uint64_t*>(smem + kRecvBarOffset);
    uint64_t* space = recv + 1;
    // (Where the pairs' sums land: PairSums::recv_base_at, pair_sums.hpp.)
    // The K tile whose release by split 0's consumers frees both slots (kRecvInRing; -1: free from the start, where
    // those K tiles do not exist; kNoTile: no signal).
    constexpr int kNoTile = -0x40000000;
    const int space_tile =
        kRecvInRing && ((push && split == 0) || scatter) ? (nk - kStages + 1 < -1 ? -1 : nk - kStages + 1) : kNoTile;

    // A stage's bytes: the tile's, less the rows a short box leaves out (p.a_box_rows, p.b_box_rows: K-major operands
    // whose one tile is taller than the matrix; the rows past it, never written, feed only rows / columns of the sum
    // that are not stored).
    const uint32_t stage_tx = static_cast<uint32_t>(kStageBytes) -
                              (p.a_box_rows > 0 ? static_cast<uint32_t>((kBM - p.a_box_rows) * kRowBytesA) : 0u) -
                              (p.b_box_rows > 0 ? static_cast<uint32_t>((kBN - p.b_box_rows) * kRowBytesB) : 0u);
    // K tile `it` of the block's range into its stage: the stage's byte count on its full barrier, then the boxes.
    auto issue = [&](int it) {
      const int s = it % kStages;
      arch::mbarrier_arrive_expect_tx(&full[s], stage_tx);
      const int k0 = (kt0 + it) * kBK;
      if constexpr (kAMMajor) {
        for (int j = 0; j < kBM / 64; ++j)
          arch::tma_load_2d(sA + s * kTileBytesA + j * kBoxBytesN, map_a, &full[s], m0 + 64 * j, k0);
      } else {
        arch::tma_load_2d(sA + s * kTileBytesA, map_a, &full[s], k0, m0);
      }
      if constexpr (kBNMajor) {
        for (int j = 0; j < kBN / 64; ++j)
          arch::tma_load_2d(sB + s * kTileBytesB + j * kBoxBytesN, map_b, &full[s], n0 + 64 * j, k0);
      } else {
        arch::tma_load_2d(sB + s * kTileBytesB, map_b, &full[s], k0, n0);
      }
    };
    // The ring's first stages are issued by the thread that initialises the barriers, before the block's barrier:
    // every stage is empty at the start, and the block's set-up (the other threads' way to the barrier, the epilogue's
    // read-ahead) then overlaps the first loads' latency instead of preceding it.
    const int early = nk < kStages ? nk : kStages;
    if (threadIdx.x == 0) {
      TTRACE(0, 7, 7, TCLK());
      TTRACE(0, 7, 6, TGLOBAL());
      // The operands' descriptors fetched while the barriers are set up (the first loads' descriptor reads hit).
      arch::tma_prefetch_desc(map_a);
      arch::tma_prefetch_desc(map_b);
      for (int s = 0; s < kStages; ++s) {
        arch::mbarrier_init(&full[s], 1);
        arch::mbarrier_init(&empty[s], kConsumers);
      }
      if constexpr (kF8) arch::mbarrier_init(empty + kStages, 1);  // the consumers' phase (the promoted loop)
      if (push || scatter) {
        arch::mbarrier_init(recv, 1);
        // The peer's sums: the whole tile's (push, split 0), or those of this block's half (scatter).
        if (push && split == 0) arch::mbarrier_arrive_expect_tx(recv, static_cast<uint32_t>(kRecvBytes));
        if (scatter) arch::mbarrier_arrive_expect_tx(recv, static_cast<uint32_t>(kRecvBytes / 2));
        if (kRecvInRing) arch::mbarrier_init(space, kConsumers);  // the peer's consumer warpgroups (push: in split 1)
      }
      arch::fence_mbarrier_init();
      arch::fence_proxy_async_shared_cta();  // the initialised barriers are visible to the TMA unit
      for (int it = 0; it < early; ++it) issue(it);
      TTRACE(0, 0, 3, TCLK());
      if (p.d_tma) arch::tma_prefetch_desc(map_d);
    }
    __syncthreads();
    // The pair's first barrier: each block's `recv` and `space` initialised before the peer stores or arrives on them.
    // The arrival is the relaxed one (thread 0's fence_mbarrier_init publishes the barriers): the release form's
    // MEMBAR.ALL.GPU waits for the loads the thread has in flight, the ring's first stages here (4.5k cycles at a
    // block's start on the H200, scripts/device/cluster_barrier_probe.cu; docs/PERF.md, fifty-fifth section), and with
    // it the barrier held the consumers' start back by 2.4-3.4k cycles (fifty-fourth section).  Relaxed, the whole
    // barrier took 700 cycles in the probe, well inside the first stages' 5k.  Every thread waits here, at one place:
    // with the waits at each thread's first use of the peer instead (split 0's consumers in the main loop, the others
    // after it), compute-sanitizer's racecheck did not finish a 200 x 136 x 600 problem in 230 s.
    if (push || scatter) {
      arch::cluster_arrive_relaxed();
      arch::cluster_wait();
    }

    float acc[kAcc];
#pragma unroll
    for (int i = 0; i < kAcc; ++i) acc[i] = 0.f;

    // The epilogue's C, bias and residual: warps 1-3 of the producer warpgroup, idle through the main loop, copy them
    // into shared memory of their own now (StagedEpilogue::fetch_ahead; tiles up to 128 wide), so that no load of the
    // epilogue waits on DRAM after the main loop.  Only the block that will store D reads them, and only what it stores:
    // with the splits in a cluster each block its half of the tile's lines (split 0 the first half); with the workspace
    // any split may finish the tile, so the whole tile.
    const bool ahead = kAhead && !bare_tma(p) && Epi::ahead_ok(p.ep) && !(push && split == 1);
    if (ahead && wg == 0 && threadIdx.x >= 32) {
      const int lines = p.ep.d_row_major ? kBM : kBN, half = (lines + 1) / 2;
      const bool pair = p.cluster_splits && !push;
      const int l0 = pair ? split * half : 0, l1 = pair ? l0 + half : lines;
      Epi::fetch_ahead(smem + kAheadOffset, p.ep, m0, n0, static_cast<int>(threadIdx.x) - 32, 96, l0, l1);
    }

    if (wg == 0) {
      // ---- producer: one thread drives the copy engine ----
      if (threadIdx.x == 0) {
        TTRACE(0, 0, 0, TCLK());
        unsigned long long wsum = 0;
        // (p.issue_pairs: K tiles in twos, each pair's two stages awaited before either is issued, so that each row's
        // two 128-byte runs of K are asked of memory together; kStages is even, so a pair never wraps the ring, and at
        // least 4: a step must leave the consumers the stage they hold until the next one is full, or the producer
        // waits on it for ever -- six tiles at a time on a ring of six hung, docs/PERF.md, sixty-sixth section.)
        // Two loops, each written out: one loop over a run-time step (inner loops over the step's tiles) ran the
        // single-stage case 4-15% slower at batches of 16-128 (128 x 8192^2 41.9 -> 46.6-47.1 us on the H200,
        // docs/PERF.md, sixty-ninth section).
        if (p.issue_pairs && kStages % 2 == 0 && kStages >= 4) {
          for (int it = early; it < nk; it += 2) {  // (it even: early is kStages here, or the loop does not run)
            const int s = it % kStages;             // s + 1 is in the same round of the ring
            const uint32_t parity = (static_cast<uint32_t>(it / kStages) & 1u) ^ 1u;
            const bool two = it + 1 < nk;
            const unsigned long long tw0 = TCLK();
            arch::mbarrier_wait_parity(&empty[s], parity);
            if (two) arch::mbarrier_wait_parity(&empty[s + 1], parity);
            wsum += TCLK() - tw0;
            issue(it);
            if (two) issue(it + 1);
          }
        } else {
          for (int it = early; it < nk; ++it) {
            const int s = it % kStages;
            const uint32_t round = static_cast<uint32_t>(it / kStages);
            const unsigned long long tw0 = TCLK();
            arch::mbarrier_wait_parity(&empty[s], (round & 1u) ^ 1u);
            wsum += TCLK() - tw0;
            issue(it);
          }
        }
        TTRACE(0, 0, 1, wsum);
        TTRACE(0, 0, 2, TCLK());
      }
    } else {
      // ---- consumers: warpgroup 1 rows 0-63, warpgroup 2 rows 64-127 ----
      // K tile `it` is issued, then the group of K tile it-1 is waited for and its stage released:
      // one group stays in flight while the next full barrier is awaited.
      const int row0 = (wg - 1) * 64;
      // The ring's shared::cta addresses, worked out once (as the persistent kernel's consumers do): the stage
      // buffers in 16-byte units for the wgmma descriptors (arch::smem_desc16; the mask drops the block's rank in its
      // cluster, from bit 24 up), this warpgroup's rows of A, and the full barriers.
      // (The warpgroup's offset through a shuffle from lane 0: ptxas then knows it is the same in every lane and keeps
      // the descriptors in uniform registers; from the thread index it builds them in vector registers and moves them
      // over at every wgmma.)
      const uint32_t a16 = ((static_cast<uint32_t>(__cvta_generic_to_shared(sA)) / 16) & 0x3FFFu) +
                           static_cast<uint32_t>(__shfl_sync(0xffffffffu, (kAMMajor ? (row0 / 64) * kBoxBytesN : row0 * kRowBytesA) / 16, 0));
      const uint32_t b16 = (static_cast<uint32_t>(__cvta_generic_to_shared(sB)) / 16) & 0x3FFFu;
      const uint32_t full_u32 = static_cast<uint32_t>(__cvta_generic_to_shared(full));
      int prev = -1;
      const bool tracer = threadIdx.x % 128 == 0;
      if (tracer) TTRACE(wg, 0, 0, TCLK());
      // This warpgroup has released K tile t (-1: the start): where that frees the pushed sums' slots, it says so on
      // the peer's `space` barrier (push: split 0's, on split 1's).
      const uint32_t space_u32 = static_cast<uint32_t>(__cvta_generic_to_shared(space));
      auto released = [&](int t) {
        if (t == space_tile && threadIdx.x % 128 == 0) arch::mbarrier_arrive_cluster(space_u32, static_cast<uint32_t>(1 - split));
      };
      released(-1);
      unsigned long long fwait = 0;
      // K tile `it`, in stage s, into d: its wgmma as one group (16 (FP8: 32) K-elements each: 32 bytes along a K-major
      // row, 16 rows of 128 bytes in an MN-major box); `fresh`: the first with scale-d 0, the tile's sum from zero.
      auto mma_stage = [&](float (&d)[kAcc], int s, bool fresh) {
        // K-major A: rows row0.. of the (128 x 64) box; M-major A: box row0/64.  Both start 8 KB * (wg-1) in.
        const uint32_t sa16 = a16 + static_cast<uint32_t>(s * (kTileBytesA / 16));
        const uint32_t sb16 = b16 + static_cast<uint32_t>(s * (kTileBytesB / 16));
        arch::wgmma_fence_operands(d);
        arch::wgmma_fence();
#pragma unroll
        for (int ks = 0; ks < kBK / Atom::kK; ++ks) {
          const uint64_t da = arch::smem_desc16(sa16 + static_cast<uint32_t>(ks * kOpA.k_step / 16), kOpA.desc);
          const uint64_t db = arch::smem_desc16(sb16 + static_cast<uint32_t>(ks * kOpB.k_step / 16), kOpB.desc);
          Atom::fma(d, da, db, fresh && ks == 0 ? 0u : 1u);
        }
        arch::wgmma_commit();
      };
      // FP8: the per-tensor scales, read now (their loads' latency hidden by the main loop) and applied to the
      // accumulators after it: D = (scale_a A)(scale_b B) = scale_a scale_b (A B).
      float scale_ab = 1.f;
      bool promoted = false;
      if constexpr (kF8) {
        scale_ab = fp8_tensor_scale(p);  // (channel scales: after the loop, fp8_channel_scale)
        promoted = !p.fp8_fast_accum;
      }
      if (promoted) {
        // Promoted accumulation: each K tile's four wgmma (128 deep) sum from zero into `part`, and part is added to acc
        // in fp32 registers once they complete.  The tensor cores' own sums then span 128 products, whatever K is.
        // (The wait for the tile's group before the adds leaves no group in flight across stages; the other consumer
        // warpgroup's wgmma run meanwhile.)
        // The consumers out of phase: warpgroup 2 issues its first group once warpgroup 1 has issued its own (an
        // mbarrier of count 1 that warpgroup 1's first thread arrives on; a named barrier doing the same made
        // compute-sanitizer's racecheck report hazards in the split-K epilogue, docs/PERF.md, forty-first section), so
        // that the tensor cores run one's group while the other waits and adds.
        // Block scales (p.scale_a_blocks / scale_b_blocks): the K tile's sum times its rows' A scales and its B block's
        // scale as it is added (the tile's columns lie in one 128-wide block of B: kBN <= 128); their loads are issued
        // before the tile's wgmma and read after them.  Without block scales the factors are 1 (fp8_promote).
        static_assert(!kF8 || (kBN <= kGemmScaleBlock && kBK == kGemmScaleBlock),
                      "gemm_sm90: an FP8 tile spans one B scale block along N, and a K tile is one scale block");
        // (Two copies of the loop, with and without block scales: with their loads in the one loop, the per-tensor
        // 128 x 128 kernel ran 17% slower at 2048^3.)
        uint64_t* phase_bar = empty + kStages;
        float part[kAcc];
        auto promoted_loop = [&](auto blocks_c) {
          constexpr bool kBlocks = decltype(blocks_c)::value;
          [[maybe_unused]] const int row_lo = m0 + row0 + Atom::c_thread(static_cast<int>(threadIdx.x) % 128).row;
          for (int it = 0; it < nk; ++it) {
            const int s = it % kStages;
            arch::mbarrier_wait_parity(full_u32 + 8u * static_cast<uint32_t>(s), static_cast<uint32_t>(it / kStages) & 1u);
            if (it == 0 && wg == 2) arch::mbarrier_wait_parity(phase_bar, 0u);
            [[maybe_unused]] float fb = 1.f, fa_lo = 1.f, fa_hi = 1.f;
            if constexpr (kBlocks) {
              fb = fp8_block_scale_b(p, kt0 + it, n0 / kGemmScaleBlock);
              fa_lo = fp8_block_scale_a(p, kt0 + it, row_lo);
              fa_hi = fp8_block_scale_a(p, kt0 + it, row_lo + 8);
            }
            mma_stage(part, s, true);
            if (it == 0 && wg == 1 && threadIdx.x == 128) (void)arch::mbarrier_arrive(phase_bar);
            arch::wgmma_wait<0>();
            arch::wgmma_fence_operands(part);
            if (threadIdx.x % 128 == 0) (void)arch::mbarrier_arrive(&empty[s]);
            released(it);
            if constexpr (kBlocks) {
              fp8_promote<Atom>(acc, part, fa_lo * fb, fa_hi * fb);
            } else {
#pragma unroll
              for (int i = 0; i < kAcc; ++i) acc[i] += part[i];
            }
          }
        };
        if (p.scale_a_blocks || p.scale_b_blocks) promoted_loop(std::true_type{});
        else promoted_loop(std::false_type{});
      } else {
        for (int it = 0; it < nk; ++it) {
          const int s = it % kStages;
          const unsigned long long tf0 = TCLK();
          arch::mbarrier_wait_parity(full_u32 + 8u * static_cast<uint32_t>(s), static_cast<uint32_t>(it / kStages) & 1u);
          if (it == 0) {
            if (tracer) TTRACE(wg, 0, 1, TCLK());
          } else {
            fwait += TCLK() - tf0;
          }
          mma_stage(acc, s, false);
          arch::wgmma_wait<1>();
          arch::wgmma_fence_operands(acc);
          if (prev >= 0 && threadIdx.x % 128 == 0) (void)arch::mbarrier_arrive(&empty[prev]);
          if (it > 0) released(it - 1);
          prev = s;
        }
      }
      if (tracer) {
        TTRACE(wg, 0, 2, fwait);
        TTRACE(wg, 0, 3, TCLK());
      }
      arch::wgmma_wait<0>();
      arch::wgmma_fence_operands(acc);
      if (tracer) TTRACE(wg, 0, 4, TCLK());
      if constexpr (kF8) {
#pragma unroll
        for (int i = 0; i < kAcc; ++i) acc[i] *= scale_ab;
        fp8_channel_scale<Atom>(acc, p, m0 + row0, n0, static_cast<int>(threadIdx.x) % 128);
      }
    }
    __syncthreads();  // every stage consumed: the ring becomes the staging tile

    if (push && Pair::push(acc, smem, recv, space, split, wg, nk_first)) return;  // (split 1 leaves)

    // The scattered pair: the lines of the tile this block stores, [line0, line1) (rows of a row-major D, columns of a
    // column-major one; split 0 the first half), and whether quad q of this consumer thread's sums (acc[4q .. 4q + 3]:
    // rows r and r + 8, columns 8q + 2 (lane % 4) and the next) lies in them.
    const bool rm = p.ep.d_row_major;
    const int lines = rm ? kBM : kBN, half_lines = (lines + 1) / 2;
    const int line0 = split * half_lines, line1 = line0 + half_lines < lines ? line0 + half_lines : lines;
    // (rows_mine: this thread's rows -- 16 of a warp -- lie in this block's half; a row-major D's halves split warps.)
    const bool rows_mine = ((wg - 1) * 64 + ((static_cast<int>(threadIdx.x) % 128) / 32) * 16 < kBM / 2) == (split == 0);
    auto mine = [&](int q) { return Pair::quad_mine(q, rm, rows_mine, split); };
    if (scatter) Pair::scatter(acc, p, smem, recv, space, split, wg, nk, rm, rows_mine);

    // ---- epilogue ----
    // The bare GEMM's D from the consumers' registers through TMA stores (the same answer in every thread: p.d_tma,
    // 16-bit D, aligned; one split, or the two splits of a cluster).  The fused menus take the staged epilogue below
    // (the same menus applied in registers from the inputs read ahead ran 3-8% slower on the H200: docs/PERF.md,
    // fiftieth section).
    // The 16-wide decode tiles (no TMA store of D: kDTiles 0) with alpha alone, one split or a pushed pair's split 0: D
    // straight from the consumers' registers (FragmentEpilogue::store: column-major D, the decode plans' transposed one,
    // in pairs of rows where the tile is whole, else element by element), no staging tile and no block barrier.  With the pair
    // pushed, batches of 2-8 against 4096^2 weights ran 10-12% faster than the pair sharing the staged epilogue, 2-3%
    // against 8192^2; a batch of 16 alike at 4096^2 and 2% faster at 8192^2 (H200; docs/PERF.md, fifty-eighth section).
    if constexpr (kDTiles == 0) {
      if (plain_menu(p.ep) & ((p.splits == 1) | push)) {
        if (wg > 0) {
          const int thread = static_cast<int>(threadIdx.x) % 128;
          const int mw = m0 + (wg - 1) * 64;
          if (p.ep.alpha != 1.f) {
#pragma unroll
            for (int i = 0; i < kAcc; ++i) acc[i] *= p.ep.alpha;
          }
          const bool full = mw + 64 <= p.ep.m && n0 + kBN <= p.ep.n;
          FragEpi::dispatch_type(p.ep.d_type, [&](auto t) { FragEpi::template store<decltype(t), 0, true>(acc, p.ep, mw, n0, full, thread); });
          if (thread == 0) {
            TTRACE(wg, 0, 5, TCLK());
            TTRACE(0, 7, 5, TGLOBAL());
            TTRACE(0, 7, 4, TCLK());
          }
        }
        if (push) arch::cluster_wait();  // (the pushed pair's second barrier)
        return;
      }
    }
    if constexpr (kDTiles > 0) {
      if (bare_tma(p)) {
        Store::finish(acc, p, smem, split, m0, n0, map_d, wg, p.cluster_splits && !push);
        if (push) arch::cluster_wait();  // (the pushed pair's second barrier)
        return;
      }
    }
    float* stage = reinterpret_cast<float*>(smem);
    if (wg > 0) {
      const int warp = (static_cast<int>(threadIdx.x) % 128) / 32, lane = static_cast<int>(threadIdx.x) % 32;
      const int r = (wg - 1) * 64 + warp * 16 + lane / 4;
#pragma unroll
      for (int j = 0; j < kBN / 8; ++j) {
        if (scatter && !mine(j)) continue;  // (the scattered pair: this block's half only)
        const int c = j * 8 + 2 * (lane % 4);
        Epi::stage_pair(stage, rm, r, c, acc[4 * j + 0], acc[4 * j + 1]);
        Epi::stage_pair(stage, rm, r + 8, c, acc[4 * j + 2], acc[4 * j + 3]);
      }
    }
    __syncthreads();
    if (threadIdx.x == 128 || threadIdx.x == 256) TTRACE(wg, 0, 6, TCLK());
    // (A pushed pair never gets here: it pushes the bare GEMM only, which left above.)
    if (scatter) {
      Epi::store(stage, p.ep, m0, n0, ahead ? smem + kAheadOffset : nullptr, line0, line1);
      arch::cluster_wait();
    } else if (p.cluster_splits) {
      // The tile's two K splits are this cluster's blocks (rank = split, p.splits == 2): once both have staged, each adds
      // the other's half of the tile's lines to its own through distributed shared memory (split 0's partial first:
      // the same sum in both, and in every run) and stores those lines of D -- the epilogue shared by the pair.  The
      // second barrier keeps each block's shared memory alive until the other has read it.
      arch::cluster_sync();
      if (threadIdx.x == 128 || threadIdx.x == 256) TTRACE(wg, 0, 9, TCLK());
      add_peer_lines<Epi, kThreads>(stage, rm, split, line0, line1);
      if (threadIdx.x == 128 || threadIdx.x == 256) TTRACE(wg, 0, 10, TCLK());
      // This block has read the peer's half: it says so (the peer may leave once both have), and waits for the peer's
      // word only after its own stores, at the end -- its shared memory must stay until the peer has read it.  The
      // block's own barrier orders the sums' writes before the store pass reads them.
      // (The relaxed arrival: it stands only for the reads of the peer's half, whose values are in this block's sums
      // already; the release form adds a MEMBAR.ALL.GPU.)
      __syncthreads();
      arch::cluster_arrive_relaxed();
      if (threadIdx.x == 128 || threadIdx.x == 256) TTRACE(wg, 0, 11, TCLK());
      Epi::store(stage, p.ep, tm * kBM, tn * kBN, ahead ? smem + kAheadOffset : nullptr, line0, line1);
      arch::cluster_wait();
    } else {
      gemm_sm80::finish_tile<Epi>(stage, p, tm, tn, split, ahead ? smem + kAheadOffset : nullptr);
    }
    if (threadIdx.x == 128 || threadIdx.x == 256) TTRACE(wg, 0, 5, TCLK());
    if (threadIdx.x == 0) {
      TTRACE(0, 7, 5, TGLOBAL());
      TTRACE(0, 7, 4, TCLK());
    }
#else
    (void)p; (void)map_a; (void)map_b; (void)map_d;  // built for sm_90a only; the host never launches it elsewhere
#endif
  }

#if defined(TESSERA_ARCH_SM90A)
  // alpha and nothing else: no C, bias, activation or residual.
  // (Both without short-circuits, `&`: read at the block's start, their parameters are loaded at once.)
  __device__ __forceinline__ static bool plain_menu(const epilogue::Params& e) {
    return (e.beta == 0.f) & (e.bias_along == epilogue::kBiasNone) & (e.act == Activation::none) & (e.residual == nullptr);
  }
  // D = alpha * A @ B and nothing else, through TMA stores (p.d_tma).
  __device__ __forceinline__ static bool bare_tma(const Params& p) { return p.d_tma & plain_menu(p.ep); }

  // The exchange buffer of the cluster's two splits (RegisterStore::finish): one consumer warpgroup's sums, thread by
  // thread, after both warpgroups' D tiles in the (drained) ring.
  static constexpr int kXchgOffset = 2 * kDTiles * kDTileBytes;
  static_assert(kDTiles == 0 || kXchgOffset + kAcc * 128 * 4 <= kRingBytes, "gemm_sm90: the exchange buffer lies in the ring");
#endif
#endif  // __CUDACC__
};

#if defined(__CUDACC__)
template <class Elem, int kBN, bool kBNMajor, bool kAMMajor, int kBM = 128>
__global__ void __launch_bounds__(GemmSm90<Elem, kBN, kBNMajor, kAMMajor, kBM>::kThreads, 1)
    gemm_sm90_kernel(const Params p, const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                     const __grid_constant__ CUtensorMap map_d) {
  GemmSm90<Elem, kBN, kBNMajor, kAMMajor, kBM>::run(p, &map_a, &map_b, &map_d);
}
#endif

}  // namespace tessera::gemm_sm90
