// scripts/device/fp8_promote_rate.cu -- the ceiling of FP8 main loops with promoted accumulation, with operands
// resident in shared memory (no loads, no barriers; or fed, below): how many multiply-adds a cycle one SM's tensor
// cores retire when one or two consumer warpgroups run a K tile (128 one-byte elements: four wgmma k32 steps) in each
// of these shapes:
//   fast256   a 64 x 256 unit per warpgroup, the four m64n256k32 accumulating in place (no promotion)
//   prom_ss   the persistent kernel's promoted loop: per half of the 256 columns, four m64n128k32 into 64 partial
//             sums, wait, add them to the half's accumulators (A read from shared memory twice a K tile)
//   prom_rs   the same with A in registers (ldmatrix once a K tile, then register-A wgmma for both halves); the next
//             K tile's A is loaded once the second half's group has completed, before its partial sums are added
//   dbuf128   a 64 x 128 unit, partial sums double-buffered: a K tile's group runs while the previous one is added
//   dbuf144   the same on a 64 x 144 unit (72 accumulators + 2 x 72 partial sums)
//   dbuf64q   a 64 x 256 unit (128 accumulators) summed a quarter of its columns at a time, the quarters' partial
//             sums double-buffered (2 x 32): each K tile four groups of four m64n64k32, one always in flight while
//             the previous quarter is added (A read from shared memory four times a K tile)
//   dbuf96h   a 64 x 192 unit (96 accumulators) summed half its columns at a time, the halves' partial sums
//             double-buffered (2 x 48): each K tile two groups of four m64n96k32, one always in flight (the 128 x 192
//             unit's loop; its B multicast to a cluster pair, it reads 28 KB of L2 a K tile and block: 36.5 bytes a
//             cycle at full rate, within the fed bound of about 38)
//   dbuf64q_rs the same as dbuf64q with A from registers (ldmatrix once a K tile, read by all four quarters; the
//             next K tile's loaded once the last quarter's group has completed), as the persistent kernel's
//             experiment scripts/device/experiments/fp8_rs_quarter.patch
// Each with the two warpgroups in phase (lag 0) or the second started `lag` cycles after the first; for prom_ss also
// a sweep of the lag, and the phase set by a named barrier as a kernel would set it: warpgroup 1 issues its first
// group once warpgroup 0's first group has completed (sync 1), or before each K tile's first group once warpgroup 0's
// has completed (sync every).  "+ bulk": a third warpgroup keeps two 24 KB bulk copies from an L2-resident buffer
// into shared memory in flight meanwhile (about the rate at which the GEMM's TMA loads fill its stages), since
// operand reads from shared memory compete with those writes: the promoted loop reads A twice a K tile.
// "+ tma": instead, one thread of the third warpgroup loads the GEMM's stages through tensor maps as the kernel's
// producer does -- per K tile a 128-row box of A and a box of B's unit rows (256, 192, 144 or 128) of 128 bytes in the
// 128-byte swizzle, from an 8 MB L2-resident matrix, 3 stages of 48 KB (4 of the smaller ones) -- and paced as the
// kernel's: K tile n is loaded once the consumers have finished K tile n - stages (warpgroup 0 counts its K tiles in
// shared memory), so that the loads run at the loop's rate, not L2's.
//
//   nvcc -std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -I include scripts/device/fp8_promote_rate.cu -lcuda -o /tmp/fp8pr && /tmp/fp8pr [tma | fed]
//
// "+ fed" (`fed [blocks] [stages]`): the consumers' operands are the stages themselves, through the kernel's full /
// empty barriers, alone or in clusters with multicast loads (run_fed, rate_kernel's kFed).
//
// The register lists of the instructions Tessera does not wrap (m64n144k32, m64n96k32, and the register-A forms) are
// spelled out below.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <string>
#include <type_traits>

#include "tessera/arch/sm90_cluster.hpp"
#include "tessera/arch/sm90_mbarrier.hpp"
#include "tessera/arch/sm90_tma.hpp"
#include "tessera/arch/sm90_tma_desc.hpp"
#include "tessera/arch/sm90_warpgroup.hpp"
#include "tessera/arch/sm90_wgmma.hpp"
#include "tessera/atom/smem_sm90.hpp"

namespace {

constexpr int kKTiles = 512;
constexpr int kBulkRegion = 48 * 1024;  // two 24 KB buffers the helper's bulk copies write (or its TMA stages)
constexpr int kBulkBytes = 24 * 1024;
constexpr int kTmaCapacity = 144 * 1024;  // the TMA stages: 3 of 48 or 40 KB, 4 of 34 or 32 KB
constexpr int kSmem = kBulkRegion + kTmaCapacity + 128;  // + the helper's mbarriers and the K tile count
constexpr int kMatRows = 16384, kMatCols = 512;  // the TMA source: 8 MB of bytes, L2-resident
constexpr size_t kSrcBytes = 16u << 20;
constexpr uint64_t kDesc = tessera::atom::sw128_tile(128, 1).wgmma_desc_fields(true);

// D (64 x 144) += A (64 x 32, shared) * B (32 x 144, shared), e4m3 x e4m3.
__device__ __forceinline__ void ss_n144(float (&d)[72], uint64_t da, uint64_t db, uint32_t scale_d) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %74, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n144k32.f32.e4m3.e4m3 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71}, %72, %73, p, 1, 1;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71])
               : "l"(da), "l"(db), "r"(scale_d));
}
// D (64 x 128) += A (64 x 32, registers: four b32 of four e4m3 each) * B (32 x 128, shared), e4m3 x e4m3.
__device__ __forceinline__ void rs_n128(float (&d)[64], const uint32_t (&a)[4], uint64_t db, uint32_t scale_d) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, {%64, %65, %66, %67}, %68, p, 1, 1;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d));
}

enum Variant { kFast256, kPromSS, kPromRS, kDbuf128, kDbuf144, kDbuf64q, kDbuf64qRs, kDbuf96h };
constexpr const char* kNames[] = {"fast256", "prom_ss", "prom_rs", "dbuf128", "dbuf144", "dbuf64q", "dbuf64q_rs", "dbuf96h"};
constexpr int kUnitN[] = {256, 256, 256, 128, 144, 256, 256, 192};

// D (64 x 96) += A (64 x 32, shared) * B (32 x 96, shared), e4m3 x e4m3.
__device__ __forceinline__ void ss_n96(float (&d)[48], uint64_t da, uint64_t db, uint32_t scale_d) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %50, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n96k32.f32.e4m3.e4m3 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47}, %48, %49, p, 1, 1;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47])
               : "l"(da), "l"(db), "r"(scale_d));
}

// D (64 x 64) += A (64 x 32, registers) * B (32 x 64, shared), e4m3 x e4m3.
__device__ __forceinline__ void rs_n64(float (&d)[32], const uint32_t (&a)[4], uint64_t db, uint32_t scale_d) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, p, 1, 1;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d));
}

// Warpgroup 0's count of finished K tiles (the TMA helper's pacing), n: every thread of the warpgroup stores it (the
// same value: no divergent branch in the loop; with thread 0 alone storing, the quarter-width loops ran 11-13% slower).
__device__ __forceinline__ void tick_to(volatile int* prog, int wg, int n) {
  if (wg == 0) *prog = n;
}

using tessera::arch::smem_desc;
using tessera::arch::wgmma_commit;
using tessera::arch::wgmma_fence;
using tessera::arch::wgmma_fence_operands;
using tessera::arch::wgmma_wait;

// A: 128 rows of 128 bytes (warpgroup w reads rows 64 w ..); B: 256 rows at 16 KB.  K step ks: 32 bytes along the row.
__device__ __forceinline__ uint64_t desc_a(const unsigned char* smem, int wg, int ks) {
  return smem_desc(smem + wg * 8192 + ks * 32, kDesc);
}
__device__ __forceinline__ uint64_t desc_b(const unsigned char* smem, int row0, int ks) {
  return smem_desc(smem + 16384 + row0 * 128 + ks * 32, kDesc);
}

// The register-A fragment of K step ks (PTX ISA, wgmma register fragment of A for 8-bit types: the bytes of the
// 16-bit fragment): ldmatrix.x4 of the warp's 16 rows, bytes 32 ks .. 32 ks + 31 of each, in the 128-byte swizzle.
__device__ __forceinline__ void load_a(uint32_t (&a)[4], const unsigned char* smem, int wg, int ks) {
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
  const int row = 16 * warp + (lane % 8) + 8 * ((lane / 8) % 2), chunk = 2 * ks + lane / 16;
  const int r = wg * 64 + row;
  const unsigned char* p = smem + r * 128 + ((chunk ^ (r % 8)) * 16);
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
               : "r"(addr));
}

template <int kN>
__device__ __forceinline__ void add(float (&acc)[kN], const float (&p)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) acc[i] += p[i];
}

// dbuf96h: half h's group of the K tile at `t` (B rows 96 h ..) into p, committed; a complete half's sums into acc.
__device__ __forceinline__ void half96_group(float (&p)[48], const unsigned char* t, int wg, int h) {
  wgmma_fence_operands(p);
  wgmma_fence();
#pragma unroll
  for (int ks = 0; ks < 4; ++ks) ss_n96(p, desc_a(t, wg, ks), desc_b(t, 96 * h, ks), ks > 0 ? 1u : 0u);
  wgmma_commit();
}
__device__ __forceinline__ void half96_add(float (&acc)[96], float (&p)[48], int h) {
  wgmma_fence_operands(p);
#pragma unroll
  for (int i = 0; i < 48; ++i) acc[48 * h + i] += p[i];
}

// Where a loop's K tiles come from (run_dbuf's feeds): stage(kt) is K tile kt's operands once they are there, and
// retire(kt) says that K tile kt's last group has completed (the K tiles in order).
// Resident: the operands resident in shared memory; a retired K tile counts for the TMA helper's pacing (+ tma).
struct Resident {
  const unsigned char* smem;
  volatile int* prog;
  int wg;
  __device__ const unsigned char* stage(int) const { return smem; }
  __device__ void retire(int kt) const { tick_to(prog, wg, kt + 1); }
};
// Fed (+ fed): the stages the helper loads, through full / empty barriers as the kernel's (rate_kernel's fed helper).
// A retired stage goes back to every block whose loads write into it: this one, and in clusters (kCluster, as
// rate_kernel's kFed) the peer that multicasts its half of B (rank ^ 1), 2 x 2 also the one that multicasts its half
// of A (rank ^ 2), four along M all four.
template <int kCluster>
struct Fed {
  const unsigned char* stages;
  int stage_bytes, nstages;
  uint64_t *full, *empty;
  int ws = 0, rs = 0;  // the ring positions of the next stage to wait for and to release
  uint32_t phase = 0;
  uint32_t rank = kCluster > 1 ? tessera::arch::cluster_ctarank() : 0u;
  __device__ const unsigned char* stage(int) {
    tessera::arch::mbarrier_wait_parity(&full[ws], phase);
    const unsigned char* b = stages + ws * stage_bytes;
    if (++ws == nstages) {
      ws = 0;
      phase ^= 1u;
    }
    return b;
  }
  __device__ void retire(int) {
    if (threadIdx.x % 32 == 0) {
      if constexpr (kCluster == 1) {
        (void)tessera::arch::mbarrier_arrive(&empty[rs]);
      } else if constexpr (kCluster == 5) {
#pragma unroll
        for (uint32_t r = 0; r < 4; ++r) tessera::arch::mbarrier_arrive_cluster(&empty[rs], r);
      } else {
        tessera::arch::mbarrier_arrive_cluster(&empty[rs], rank);
        tessera::arch::mbarrier_arrive_cluster(&empty[rs], rank ^ 1u);
        if constexpr (kCluster == 4) tessera::arch::mbarrier_arrive_cluster(&empty[rs], rank ^ 2u);
      }
    }
    if (++rs == nstages) rs = 0;
  }
};

// The double-buffered loops (dbuf128, dbuf144, dbuf96h) on a feed: a group always in flight while the previous one's
// sums are added.  (The exits inside the loop, each with its own wait for all groups: with the loop's test at its
// head, ptxas serialised every wgmma, C7514.)
template <Variant kV, class Feed>
__device__ float run_dbuf(Feed& feed, int wg) {
  float s = 0.f;
  if constexpr (kV == kDbuf96h) {  // two groups a K tile, one per half of the 192 columns
    float acc[96], p0[48], p1[48];
#pragma unroll
    for (int i = 0; i < 96; ++i) acc[i] = 0.f;
    const unsigned char* t = feed.stage(0);  // the K tile being issued
    half96_group(p0, t, wg, 0);
    for (int left = 2 * kKTiles - 1, kt = 0;; left -= 2, ++kt) {  // groups still to issue; half 0 of K tile kt in flight
      if (left == 0) { wgmma_wait<0>(); feed.retire(kt); half96_add(acc, p0, 0); break; }
      half96_group(p1, t, wg, 1);
      wgmma_wait<1>();
      half96_add(acc, p0, 0);
      if (left == 1) { wgmma_wait<0>(); feed.retire(kt); half96_add(acc, p1, 1); break; }
      t = feed.stage(kt + 1);
      half96_group(p0, t, wg, 0);
      wgmma_wait<1>();  // K tile kt's second half complete
      feed.retire(kt);
      half96_add(acc, p1, 1);
    }
#pragma unroll
    for (int i = 0; i < 96; ++i) s += acc[i];
  } else {  // one group a K tile
    constexpr int kR = kUnitN[kV] / 2;
    float acc[kR], p0[kR], p1[kR];
#pragma unroll
    for (int i = 0; i < kR; ++i) acc[i] = p0[i] = p1[i] = 0.f;
    auto group = [&](float (&p)[kR], int kt) {
      const unsigned char* t = feed.stage(kt);
      wgmma_fence_operands(p);
      wgmma_fence();
#pragma unroll
      for (int ks = 0; ks < 4; ++ks) {
        if constexpr (kV == kDbuf144) ss_n144(p, desc_a(t, wg, ks), desc_b(t, 0, ks), ks > 0 ? 1u : 0u);
        else tessera::arch::wgmma_m64n128k32_f8<false, false>(p, desc_a(t, wg, ks), desc_b(t, 0, ks), ks > 0 ? 1u : 0u);
      }
      wgmma_commit();
    };
    auto retire = [&](float (&p)[kR], int kt) {  // K tile kt's group complete: its stage back, its sums added
      feed.retire(kt);
      wgmma_fence_operands(p);
      add(acc, p);
    };
    group(p0, 0);
    for (int left = kKTiles - 1;; left -= 2) {
      const int t = kKTiles - left;  // the K tile to issue now
      if (left == 0) { wgmma_wait<0>(); retire(p0, t - 1); break; }
      group(p1, t);
      wgmma_wait<1>();
      retire(p0, t - 1);
      if (left == 1) { wgmma_wait<0>(); retire(p1, t); break; }
      group(p0, t + 1);
      wgmma_wait<1>();
      retire(p1, t);
    }
#pragma unroll
    for (int i = 0; i < kR; ++i) s += acc[i];
  }
  return s;
}

// sync: 0 none, 1 warpgroup 1 waits for warpgroup 0's first group (prom_ss), 2 the same at every K tile.
template <Variant kV>
__device__ float run_loop(const unsigned char* smem, int wg, int sync, volatile int* prog) {
  float s = 0.f;
  int kdone = 0;  // K tiles finished (tick_to)
  if constexpr (kV == kFast256) {
    float acc[128];
#pragma unroll
    for (int i = 0; i < 128; ++i) acc[i] = 0.f;
    for (int kt = 0; kt < kKTiles; ++kt) {
      wgmma_fence_operands(acc);
      wgmma_fence();
#pragma unroll
      for (int ks = 0; ks < 4; ++ks)
        tessera::arch::wgmma_m64n256k32_f8<false, false>(acc, desc_a(smem, wg, ks), desc_b(smem, 0, ks), 1u);
      wgmma_commit();
      wgmma_wait<1>();
      wgmma_fence_operands(acc);
      tick_to(prog, wg, ++kdone);
    }
    wgmma_wait<0>();
    wgmma_fence_operands(acc);
#pragma unroll
    for (int i = 0; i < 128; ++i) s += acc[i];
  } else if constexpr (kV == kPromSS || kV == kPromRS) {
    float acc0[64], acc1[64], p[64];
#pragma unroll
    for (int i = 0; i < 64; ++i) acc0[i] = acc1[i] = 0.f;
    uint32_t a[4][4];
    if constexpr (kV == kPromRS) {
#pragma unroll
      for (int ks = 0; ks < 4; ++ks) load_a(a[ks], smem, wg, ks);
    }
    for (int kt = 0; kt < kKTiles; ++kt) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const bool gate = h == 0 && (sync == 2 || (sync == 1 && kt == 0));
        if (gate && wg == 1) tessera::arch::named_barrier_sync(1, 256);
        wgmma_fence_operands(p);
        wgmma_fence();
#pragma unroll
        for (int ks = 0; ks < 4; ++ks) {
          if constexpr (kV == kPromRS) rs_n128(p, a[ks], desc_b(smem, 128 * h, ks), ks > 0 ? 1u : 0u);
          else tessera::arch::wgmma_m64n128k32_f8<false, false>(p, desc_a(smem, wg, ks), desc_b(smem, 128 * h, ks), ks > 0 ? 1u : 0u);
        }
        wgmma_commit();
        wgmma_wait<0>();
        if (gate && wg == 0) tessera::arch::named_barrier_arrive(1, 256);
        if constexpr (kV == kPromRS) {
          if (h == 1) {  // the next K tile's A (the same resident tile here), under this half's adds
#pragma unroll
            for (int ks = 0; ks < 4; ++ks) load_a(a[ks], smem, wg, ks);
          }
        }
        wgmma_fence_operands(p);
        if (h == 0) add(acc0, p);
        else add(acc1, p);
      }
      tick_to(prog, wg, ++kdone);
    }
#pragma unroll
    for (int i = 0; i < 64; ++i) s += acc0[i] + acc1[i];
  } else if constexpr (kV == kDbuf64q || kV == kDbuf64qRs) {
    // dbuf64q_rs: A from registers, loaded once a K tile (the next K tile's once its last quarter has completed)
    constexpr bool kRs = kV == kDbuf64qRs;
    float acc[128], p0[32], p1[32];
    uint32_t a[4][4];
#pragma unroll
    for (int i = 0; i < 128; ++i) acc[i] = 0.f;
    auto load = [&] {
#pragma unroll
      for (int ks = 0; ks < 4; ++ks) load_a(a[ks], smem, wg, ks);
    };
    // quarter q's group (B rows 64 q ..) into p
    auto group = [&](float (&p)[32], auto qc) {
      constexpr int q = decltype(qc)::value;
      if constexpr (kRs) {
#pragma unroll
        for (int ks = 0; ks < 4; ++ks) wgmma_fence_operands(a[ks]);
      }
      wgmma_fence_operands(p);
      wgmma_fence();
#pragma unroll
      for (int ks = 0; ks < 4; ++ks) {
        if constexpr (kRs) rs_n64(p, a[ks], desc_b(smem, 64 * q, ks), ks > 0 ? 1u : 0u);
        else tessera::arch::wgmma_m64n64k32_f8<false, false>(p, desc_a(smem, wg, ks), desc_b(smem, 64 * q, ks), ks > 0 ? 1u : 0u);
      }
      wgmma_commit();
    };
    // a completed quarter's sums into its 32 accumulators (the m64n256 fragment's values 32 q .. 32 q + 31)
    auto add_q = [&](float (&p)[32], auto qc) {
      constexpr int q = decltype(qc)::value;
      wgmma_fence_operands(p);
#pragma unroll
      for (int i = 0; i < 32; ++i) acc[32 * q + i] += p[i];
    };
    using Q0 = std::integral_constant<int, 0>;
    using Q1 = std::integral_constant<int, 1>;
    using Q2 = std::integral_constant<int, 2>;
    using Q3 = std::integral_constant<int, 3>;
    // (An exit, with its wait for all groups, after every quarter: with fewer exits ptxas serialised the wgmma.)
    if constexpr (kRs) load();
    group(p0, Q0{});
    for (int left = 4 * kKTiles - 1;; left -= 4) {  // groups still to issue; quarter 0 of a K tile in flight
      if (left == 0) { wgmma_wait<0>(); add_q(p0, Q0{}); break; }
      group(p1, Q1{});
      wgmma_wait<1>();
      add_q(p0, Q0{});
      if (left == 1) { wgmma_wait<0>(); add_q(p1, Q1{}); break; }
      group(p0, Q2{});
      wgmma_wait<1>();
      add_q(p1, Q1{});
      if (left == 2) { wgmma_wait<0>(); add_q(p0, Q2{}); break; }
      group(p1, Q3{});
      wgmma_wait<1>();
      add_q(p0, Q2{});
      if (left == 3) { wgmma_wait<0>(); add_q(p1, Q3{}); break; }
      if constexpr (kRs) {
        wgmma_wait<0>();  // the last quarter complete: A's registers free
#pragma unroll
        for (int ks = 0; ks < 4; ++ks) wgmma_fence_operands(a[ks]);
        tick_to(prog, wg, ++kdone);
        load();
        group(p0, Q0{});
      } else {
        group(p0, Q0{});
        wgmma_wait<1>();
        tick_to(prog, wg, ++kdone);
      }
      add_q(p1, Q3{});
    }
#pragma unroll
    for (int i = 0; i < 128; ++i) s += acc[i];
  } else {
    Resident feed{smem, prog, wg};
    s = run_dbuf<kV>(feed, wg);
  }
  return s;
}

// Helper thread: K tile n's whole stage (A's 128 rows, B's unit rows) into `d` through the two tensor maps, its bytes
// expected on `bar`; the rows a block reads from the L2-resident matrix follow its index `who` and n.
template <Variant kV>
__device__ __forceinline__ void load_stage(unsigned char* d, uint64_t* bar, int n, int who, const CUtensorMap* map_a,
                                           const CUtensorMap* map_b) {
  constexpr int kStageBytes = (128 + kUnitN[kV]) * 128;
  tessera::arch::mbarrier_arrive_expect_tx(bar, kStageBytes);
  const int32_t col = 128 * (n % 4), row = static_cast<int32_t>(((who * 61 + n) * 128) % (kMatRows - 256));
  tessera::arch::tma_load_2d(d, map_a, bar, col, row);
  tessera::arch::tma_load_2d(d + 128 * 128, map_b, bar, col, row);
}

__constant__ int g_fed_stages;  // + fed: stages in the ring (at most 4 and what kTmaCapacity holds)

// "+ fed" (bulk 3): the operands of each K tile are the stage the helper has loaded, through the kernel's protocol --
// each consumer waits for the stage's `full` barrier (the loads' transaction count) and, once the K tile's last group
// has completed, every one of its warps arrives on the stage's `empty` barrier, which the helper waits for before it
// loads the stage again.  The kernel's loops without its scheduler or epilogue: prom_ss, the double-buffered
// 64 x 128 / 64 x 144 loops and dbuf96h.  kCluster (the template argument of rate_kernel's fed instance): 1, each block
// loads its whole stage; 2, clusters of two along M, each block loading A and half of B multicast to both (the
// kernel's protocol); 4, 2 x 2 clusters (rank = m + 2 n), each block loading half of A multicast to its row's pair
// (rank ^ 2) and half of B to its column's (rank ^ 1); 5, clusters of four along M (as the kernel allows), A whole and
// a quarter of B multicast to all four.
template <Variant kV, int kCluster>
__device__ float run_fed(const unsigned char* stages, int wg, uint64_t* full, uint64_t* empty, int nstages) {
  static_assert(kV == kPromSS || kV == kDbuf128 || kV == kDbuf144 || kV == kDbuf96h,
                "fp8_promote_rate: + fed runs prom_ss, dbuf128, dbuf144, dbuf96h");
  Fed<kCluster> feed{stages, (128 + kUnitN[kV]) * 128, nstages, full, empty};
  float s = 0.f;
  if constexpr (kV == kPromSS) {
    float acc[2][64], p[64];
#pragma unroll
    for (int i = 0; i < 64; ++i) acc[0][i] = acc[1][i] = 0.f;
    for (int kt = 0; kt < kKTiles; ++kt) {
      const unsigned char* b = feed.stage(kt);
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        wgmma_fence_operands(p);
        wgmma_fence();
#pragma unroll
        for (int ks = 0; ks < 4; ++ks)
          tessera::arch::wgmma_m64n128k32_f8<false, false>(p, desc_a(b, wg, ks), desc_b(b, 128 * h, ks), ks > 0 ? 1u : 0u);
        wgmma_commit();
        wgmma_wait<0>();
        if (h == 1) feed.retire(kt);
        wgmma_fence_operands(p);
        add(acc[h], p);
      }
    }
#pragma unroll
    for (int i = 0; i < 64; ++i) s += acc[0][i] + acc[1][i];
  } else {
    s = run_dbuf<kV>(feed, wg);
  }
  return s;
}

// Threads 0-255: the consumers (warpgroups 0, 1; `warpgroups` of them issue); threads 256-383: with `bulk` 1, one
// thread keeps two bulk copies in flight until the consumers are done; with `bulk` 2, one thread loads the GEMM's
// stages through the tensor maps, paced by warpgroup 0's K tiles.  The consumers take 232 registers, the helper 40.
template <Variant kV, int kFed = 0>
__global__ void __launch_bounds__(384, 1) rate_kernel(int warpgroups, int lag, int sync, int bulk, const unsigned char* src,
                                                      long long* out, float* sink, const __grid_constant__ CUtensorMap map_a,
                                                      const __grid_constant__ CUtensorMap map_b) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ volatile int done;
  uint64_t* bars = reinterpret_cast<uint64_t*>(smem + kBulkRegion + kTmaCapacity);
  volatile int* prog = reinterpret_cast<volatile int*>(bars + 8);  // (bars: + fed's 4 full and 4 empty barriers)
  for (int i = threadIdx.x; i < kBulkRegion / 4; i += blockDim.x)
    reinterpret_cast<uint32_t*>(smem)[i] = 0x38383838u ^ (i * 2654435761u & 0x07070707u);  // small e4m3 values
  if (threadIdx.x == 0) {
    done = 0;
    for (int b = 0; b < 4; ++b) tessera::arch::mbarrier_init(&bars[b], 1);
    // + fed's empty barriers: every consumer warp of each block whose loads write into this block's stages
    for (int b = 4; b < 8; ++b) tessera::arch::mbarrier_init(&bars[b], 4 * warpgroups * (kFed == 5 ? 4 : kFed == 4 ? 3 : kFed == 2 ? 2 : 1));
    *prog = 0;
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  tessera::arch::fence_proxy_async_shared_cta();
  __syncthreads();
  if constexpr (kFed > 1) tessera::arch::cluster_sync();  // the peers' barriers initialised before any multicast
  const int wg = threadIdx.x / 128;
  if (wg == 2) {
    tessera::arch::setmaxnreg_dec<40>();
    if constexpr (kFed > 0) {  // exactly the consumers' K tiles, each stage again once its empty barrier completes
      if (threadIdx.x == 256) {
        constexpr int kStageBytes = (128 + kUnitN[kV]) * 128, kHalfB = kUnitN[kV] / 2 * 128;
        const int stages = g_fed_stages;
        const uint32_t rank = kFed > 1 ? tessera::arch::cluster_ctarank() : 0u;
        const uint16_t self = static_cast<uint16_t>(1u << rank);
        for (int n = 0; n < kKTiles; ++n) {
          const int st = n % stages;
          if (n >= stages) tessera::arch::mbarrier_wait_parity(&bars[4 + st], static_cast<uint32_t>((n / stages - 1) & 1));
          unsigned char* d = smem + kBulkRegion + st * kStageBytes;
          constexpr int kBlocks = kFed == 5 ? 4 : kFed;  // blocks a cluster
          if constexpr (kFed == 1) {
            load_stage<kV>(d, &bars[st], n, static_cast<int>(blockIdx.x), &map_a, &map_b);
            continue;
          }
          const int32_t col = 128 * (n % 4), row = static_cast<int32_t>(((blockIdx.x / kBlocks * 61 + n) * 128) % (kMatRows - 256));
          tessera::arch::mbarrier_arrive_expect_tx(&bars[st], kStageBytes);  // (the peers' boxes count here too)
          if constexpr (kFed == 2) {  // A whole; half (rank) of B to both
            tessera::arch::tma_load_2d(d, &map_a, &bars[st], col, row);
            tessera::arch::tma_load_2d_multicast(d + 128 * 128 + rank * kHalfB, &map_b, &bars[st], col, row, 0x3);
          } else if constexpr (kFed == 5) {  // A whole; a quarter (rank) of B to all four
            tessera::arch::tma_load_2d(d, &map_a, &bars[st], col, row);
            tessera::arch::tma_load_2d_multicast(d + 128 * 128 + rank * (kHalfB / 2), &map_b, &bars[st], col, row, 0xF);
          } else {  // half (n = rank / 2) of A to the row's pair, half (m = rank % 2) of B to the column's pair
            const uint32_t m = rank & 1u, nn = rank >> 1;
            tessera::arch::tma_load_2d_multicast(d + nn * 64 * 128, &map_a, &bars[st], col, row,
                                                 static_cast<uint16_t>(self | (1u << (rank ^ 2u))));
            tessera::arch::tma_load_2d_multicast(d + 128 * 128 + m * kHalfB, &map_b, &bars[st], col, row,
                                                 static_cast<uint16_t>(self | (1u << (rank ^ 1u))));
          }
        }
      }
      __syncwarp();
      if constexpr (kFed > 1) tessera::arch::cluster_sync();  // no block leaves while a peer may still signal it
      return;
    }
    if (!bulk || threadIdx.x != 256) return;
    if (bulk == 2) {
      constexpr int kStageBytes = (128 + kUnitN[kV]) * 128, kStages = kTmaCapacity / kStageBytes;
      uint32_t phase[4] = {};
      auto issue = [&](int n) {
        const int st = n % kStages;
        load_stage<kV>(smem + kBulkRegion + st * kStageBytes, &bars[st], n, static_cast<int>(blockIdx.x), &map_a, &map_b);
      };
      int n = 0;
      for (; n < kStages; ++n) issue(n);
      for (; !done; ++n) {
        while (*prog < n - kStages + 1 && !done) {
        }
        const int st = n % kStages;
        tessera::arch::mbarrier_wait_parity(&bars[st], phase[st]);
        phase[st] ^= 1u;
        issue(n);
      }
      for (int k = n - kStages; k < n; ++k) {
        tessera::arch::mbarrier_wait_parity(&bars[k % kStages], phase[k % kStages]);
        phase[k % kStages] ^= 1u;
      }
      return;
    }
    uint32_t phase[2] = {0, 0};
    long long n = 0;
    const size_t slots = kSrcBytes / kBulkBytes;
    for (int b = 0; b < 2; ++b, ++n) {
      tessera::arch::mbarrier_arrive_expect_tx(&bars[b], kBulkBytes);
      tessera::arch::bulk_load(smem + kBulkRegion + b * kBulkBytes, src + ((blockIdx.x * 7 + n) % slots) * kBulkBytes, kBulkBytes, &bars[b]);
    }
    while (!done) {
      for (int b = 0; b < 2; ++b, ++n) {
        tessera::arch::mbarrier_wait_parity(&bars[b], phase[b]);
        phase[b] ^= 1u;
        tessera::arch::mbarrier_arrive_expect_tx(&bars[b], kBulkBytes);
        tessera::arch::bulk_load(smem + kBulkRegion + b * kBulkBytes, src + ((blockIdx.x * 7 + n) % slots) * kBulkBytes, kBulkBytes, &bars[b]);
      }
    }
    for (int b = 0; b < 2; ++b) tessera::arch::mbarrier_wait_parity(&bars[b], phase[b]);
    return;
  }
  tessera::arch::setmaxnreg_inc<232>();
  if (wg < warpgroups) {
    const long long t_start = clock64();
    if (wg == 1)
      while (clock64() - t_start < lag) {
      }
    const long long t0 = clock64();
    float s;
    if constexpr (kFed > 0) s = run_fed<kV, kFed>(smem + kBulkRegion, wg, bars, bars + 4, g_fed_stages);
    else s = run_loop<kV>(smem, wg, warpgroups == 2 ? sync : 0, prog);
    const long long t1 = clock64();
    if (threadIdx.x % 128 == 0) out[blockIdx.x * 2 + wg] = t1 - t0;
    if (s == 12345.f) *sink = s;
  }
  tessera::arch::named_barrier_sync(2, 256);
  if (threadIdx.x == 0) done = 1;
  if constexpr (kFed > 1) tessera::arch::cluster_sync();
}

const unsigned char* g_src = nullptr;
unsigned char* g_mat = nullptr;

int g_blocks = 132, g_stages = 4;  // the grid (one block an SM) and + fed's stages: `fp8pr fed [blocks] [stages]`

template <Variant kV, int kFed = 0>
void run(int warpgroups, int lag, int sync = 0, int bulk = 0) {
  long long* out;
  float* sink;
  cudaMalloc(&out, 132 * 2 * sizeof(long long));
  cudaMalloc(&sink, sizeof(float));
  cudaMemset(out, 0, 132 * 2 * sizeof(long long));
  if constexpr (kFed > 0) {
    const int stages = std::min(g_stages, std::min(4, kTmaCapacity / ((128 + kUnitN[kV]) * 128)));
    cudaMemcpyToSymbol(g_fed_stages, &stages, sizeof(int));
  }
  cudaFuncSetAttribute(rate_kernel<kV, kFed>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  using tessera::arch::TmaSwizzle;
  // (boxes: A 128 rows, or 64 in 2 x 2 clusters; B the unit's rows, half of them in clusters of two or 2 x 2, a quarter
  // in clusters of four along M)
  const CUtensorMap ma = tessera::arch::make_tma_desc_2d(g_mat, 1, kMatRows, kMatCols, kMatCols, kFed == 4 ? 64 : 128, 128, TmaSwizzle::k128B);
  const CUtensorMap mb = tessera::arch::make_tma_desc_2d(g_mat, 1, kMatRows, kMatCols, kMatCols,
                                                         kFed == 5 ? kUnitN[kV] / 4 : kFed > 1 ? kUnitN[kV] / 2 : kUnitN[kV], 128,
                                                         TmaSwizzle::k128B);
  for (int rep = 0; rep < 3; ++rep) {
    if constexpr (kFed > 1) {
      cudaLaunchConfig_t cfg{};
      cfg.gridDim = dim3(g_blocks);
      cfg.blockDim = dim3(384);
      cfg.dynamicSmemBytes = kSmem;
      cudaLaunchAttribute attr{};
      attr.id = cudaLaunchAttributeClusterDimension;
      attr.val.clusterDim.x = kFed == 5 ? 4 : kFed;
      attr.val.clusterDim.y = 1;
      attr.val.clusterDim.z = 1;
      cfg.attrs = &attr;
      cfg.numAttrs = 1;
      const cudaError_t le = cudaLaunchKernelEx(&cfg, rate_kernel<kV, kFed>, warpgroups, lag, sync, bulk, g_src, out, sink, ma, mb);
      if (le != cudaSuccess) {
        std::printf("%s: cluster launch: %s\n", kNames[kV], cudaGetErrorString(le));
        std::exit(1);
      }
    } else {
      rate_kernel<kV, kFed><<<g_blocks, 384, kSmem>>>(warpgroups, lag, sync, bulk, g_src, out, sink, ma, mb);
    }
  }
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::printf("%s: %s\n", kNames[kV], cudaGetErrorString(e));
    std::exit(1);
  }
  long long h[264];
  cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost);
  double mean = 0;
  for (int b = 0; b < g_blocks; ++b) {
    long long t = h[2 * b];
    for (int w = 1; w < warpgroups; ++w) t = h[2 * b + w] > t ? h[2 * b + w] : t;
    mean += t;
  }
  mean /= g_blocks;
  const double macs = 64.0 * kUnitN[kV] * 128.0 * kKTiles * warpgroups;  // per SM
  std::printf("%-8s %d wg lag %4d%-11s%-10s: %7.1f cycles a K tile a warpgroup, %7.1f MACs/cycle/SM (%5.1f%% of 4096)\n",
              kNames[kV], warpgroups, lag, sync == 1 ? " sync 1" : sync == 2 ? " sync every" : "", kFed == 5 ? " + fed x4" : kFed == 4 ? " + fed 2x2" : kFed == 2 ? " + fed x2" : kFed ? " + fed" : bulk == 2 ? " + tma" : bulk ? " + bulk" : "",
              mean / kKTiles, macs / mean, 100.0 * macs / mean / 4096.0);
  cudaFree(out);
  cudaFree(sink);
}

template <Variant kV>
void run_all() {
  run<kV>(1, 0);
  run<kV>(2, 0);
  run<kV>(2, 150);
  run<kV>(2, 400);
  run<kV>(2, 0, 0, 1);
  run<kV>(2, 400, 0, 1);
}

}  // namespace

// `fp8pr tma`: each loop alone, two in phase, + bulk and + tma; `fp8pr fed [blocks] [stages]`: the loops that run_fed
// has, + tma and + fed (alone and in each cluster shape), on `blocks` SMs (132) with at most `stages` stages (4);
// without an argument the whole set (lags, phase).
int main(int argc, char** argv) {
  unsigned char* src;
  cudaMalloc(&src, kSrcBytes);
  cudaMemset(src, 1, kSrcBytes);
  g_src = src;
  cudaMalloc(&g_mat, static_cast<size_t>(kMatRows) * kMatCols);
  cudaMemset(g_mat, 0x38, static_cast<size_t>(kMatRows) * kMatCols);
  if (argc > 1 && std::string(argv[1]) == "fed") {
    if (argc > 2) g_blocks = std::atoi(argv[2]);
    if (argc > 3) g_stages = std::atoi(argv[3]);
    if (g_blocks < 1 || g_blocks > 132 || g_stages < 2) {  // (one stage: the double-buffered loops hold two, a deadlock)
      std::fprintf(stderr, "fp8pr fed: blocks must be 1-132 (got %d) and stages at least 2 (got %d)\n", g_blocks, g_stages);
      return 2;
    }
    std::printf("fed: %d blocks, at most %d stages%s\n", g_blocks, g_stages,
                g_blocks % 4 != 0 ? " (the clustered runs skipped: the blocks are not a multiple of 4)" : "");
    auto fed = [](auto v) {
      constexpr Variant kV = decltype(v)::value;
      run<kV>(2, 0, 0, 2);
      run<kV, 1>(1, 0, 0, 3);
      run<kV, 1>(2, 0, 0, 3);
      if (g_blocks % 4 != 0) return;
      run<kV, 2>(2, 0, 0, 3);
      run<kV, 4>(2, 0, 0, 3);
      // (a quarter of B a 1 KB multiple, where the 128-byte swizzle's pattern starts: not dbuf144's 36 rows)
      if constexpr (kUnitN[kV] / 4 * 128 % 1024 == 0) run<kV, 5>(2, 0, 0, 3);
    };
    fed(std::integral_constant<Variant, kPromSS>{});
    fed(std::integral_constant<Variant, kDbuf128>{});
    fed(std::integral_constant<Variant, kDbuf144>{});
    fed(std::integral_constant<Variant, kDbuf96h>{});
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "tma") {
    auto four = [](auto v) {
      constexpr Variant kV = decltype(v)::value;
      run<kV>(1, 0);
      run<kV>(2, 0);
      run<kV>(2, 0, 0, 1);
      run<kV>(2, 0, 0, 2);
    };
    four(std::integral_constant<Variant, kFast256>{});
    four(std::integral_constant<Variant, kPromSS>{});
    run<kPromSS>(2, 0, 1, 2);
    four(std::integral_constant<Variant, kDbuf64q>{});
    four(std::integral_constant<Variant, kDbuf64qRs>{});
    four(std::integral_constant<Variant, kDbuf144>{});
    four(std::integral_constant<Variant, kDbuf128>{});
    four(std::integral_constant<Variant, kDbuf96h>{});
    return 0;
  }
  run_all<kFast256>();
  run_all<kPromSS>();
  for (int lag = 50; lag <= 600; lag += 50) run<kPromSS>(2, lag);
  run<kPromSS>(2, 0, 1);
  run<kPromSS>(2, 0, 2);
  run<kPromSS>(2, 0, 1, 1);
  run_all<kPromRS>();
  run<kPromRS>(2, 0, 1, 1);
  run_all<kDbuf128>();
  run_all<kDbuf144>();
  run_all<kDbuf64q>();
  run_all<kDbuf64qRs>();
  run_all<kDbuf96h>();
  return 0;
}
