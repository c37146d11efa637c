// The analysers against facts derived by hand (each test states the derivation).
#include <gtest/gtest.h>

#include <algorithm>  // std::shuffle
#include <random>     // std::mt19937
#include <string>     // std::string

#include "tessera/analysis/gmem.hpp"
#include "tessera/analysis/smem.hpp"
#include "tessera/analysis/vector.hpp"
#include "tessera/layout.hpp"
#include "tessera/tensor/tensor.hpp"  // local_partition, to tie the TV layouts to the tensor layer

namespace {

using namespace tessera;
using namespace tessera::analysis;

AccessPattern pattern(const std::string& memory, int elem, const std::string& tv, const char* tile = nullptr) {
  AccessPattern p;
  p.memory = parse_memory_layout(memory);
  p.elem_bytes = elem;
  p.tv = parse_layout(tv);
  if (tile) p.tile = parse_tiler(tile);
  return p;
}

// Expects `f` to throw AnalysisError whose message contains `needle`.
template <class F>
void expect_error(F f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "expected an error containing: " << needle;
  } catch (const AnalysisError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

// ldmatrix.x4 fragments of a 16x16 block: lane t gives the address of row t%16, columns
// 8*(t/16) .. +7.  As a TV layout over the (16,16) tile (index m + 16k):
//   ((16,2),8) : ((1,128),16)
// repeated over the 128x64 tile (8 x 4 blocks): 32 instructions for one warp.
constexpr const char* kLdmatrixTV = "((16,2),8):((1,128),16)";

// Known fact: a row-major 128x64 bf16 tile read as ldmatrix.x4 fragments conflicts.
// Rows are 128 bytes apart, so the 8 row addresses of one matrix fall into the same 4 banks:
// 8 wavefronts per matrix, 32 per instruction, 28 of them conflicts, 8-way.
TEST(SmemBankConflicts, LdmatrixRowMajorConflicts) {
  SmemReport r = analyze_smem(pattern("(128,64):(64,1)", 2, kLdmatrixTV, "<16,16>"), find_instruction("ldmatrix.x4"));
  EXPECT_EQ(r.instructions, 32);
  EXPECT_EQ(r.wavefronts, 32 * 32);
  EXPECT_EQ(r.ideal, 32 * 4);
  EXPECT_EQ(r.conflicts, 32 * 28);
  EXPECT_EQ(r.max_ways, 8);
  for (const auto& i : r.per_instruction) EXPECT_EQ(i.phase_wavefronts, (std::vector<int>{8, 8, 8, 8}));
}

// ... and none with Swizzle<3,3,3>: row r's 16-byte unit u moves to u ^ (r % 8), so the 8 rows
// of a matrix occupy 8 different 16-byte bank groups.
TEST(SmemBankConflicts, LdmatrixSwizzledConflictFree) {
  SmemReport r =
      analyze_smem(pattern("Sw<3,3,3>o(128,64):(64,1)", 2, kLdmatrixTV, "<16,16>"), find_instruction("ldmatrix.x4"));
  EXPECT_EQ(r.instructions, 32);
  EXPECT_EQ(r.wavefronts, 32 * 4);
  EXPECT_EQ(r.conflicts, 0);
  EXPECT_EQ(r.max_ways, 1);
}

// Known fact: a column access of a row-major float tile is 32-way conflicted: lane t reads
// row t of one column, word 32t + c, all in bank c.
TEST(SmemBankConflicts, ColumnOfRowMajorFloatTile) {
  // TV (32,32):(1,32): thread t -> row t, value v -> column v  (index m + 32n)
  SmemReport r = analyze_smem(pattern("(32,32):(32,1)", 4, "(32,32):(1,32)"), find_instruction("ld.32"));
  EXPECT_EQ(r.instructions, 32);
  EXPECT_EQ(r.max_ways, 32);
  EXPECT_EQ(r.wavefronts, 32 * 32);
  EXPECT_EQ(r.conflicts, 32 * 31);
}

// ... conflict-free with one float of padding per row: word 33t + c is in bank (t + c) % 32.
TEST(SmemBankConflicts, ColumnOfPaddedFloatTile) {
  SmemReport r = analyze_smem(pattern("(32,32):(33,1)", 4, "(32,32):(1,32)"), find_instruction("ld.32"));
  EXPECT_EQ(r.instructions, 32);
  EXPECT_EQ(r.max_ways, 1);
  EXPECT_EQ(r.wavefronts, 32);
  EXPECT_EQ(r.conflicts, 0);
  // the store of the same pattern behaves the same
  SmemReport w = analyze_smem(pattern("(32,32):(33,1)", 4, "(32,32):(1,32)"), find_instruction("st.32"));
  EXPECT_TRUE(w.is_store);
  EXPECT_EQ(w.conflicts, 0);
}

// 64-bit accesses go in two half-warp phases: 32 consecutive float2 = two phases of 128 bytes.
TEST(SmemBankConflicts, SixtyFourBitPhases) {
  SmemReport r = analyze_smem(pattern("64:1", 4, "(32,2):(2,1)"), find_instruction("ld.64"));
  EXPECT_EQ(r.instructions, 1);
  EXPECT_EQ(r.per_instruction[0].phase_wavefronts, (std::vector<int>{1, 1}));
  EXPECT_EQ(r.conflicts, 0);
  // every other float2 (stride 16 bytes): one half warp spans 256 bytes -> 2-way in each phase
  SmemReport s = analyze_smem(pattern("128:1", 4, "(32,2):(4,1)"), find_instruction("ld.64"));
  EXPECT_EQ(s.per_instruction[0].phase_wavefronts, (std::vector<int>{2, 2}));
  EXPECT_EQ(s.conflicts, 2);
  EXPECT_EQ(s.max_ways, 2);
}

// 128-bit accesses go in four quarter-warp phases.  Lanes 16 bytes apart: conflict-free (4
// wavefronts, the minimum); 32 bytes apart: each quarter warp spans 256 bytes, 2-way.
TEST(SmemBankConflicts, OneTwentyEightBitPhases) {
  SmemReport r = analyze_smem(pattern("128:1", 4, "(32,4):(4,1)"), find_instruction("ld.128"));
  EXPECT_EQ(r.per_instruction[0].phase_wavefronts, (std::vector<int>{1, 1, 1, 1}));
  EXPECT_EQ(r.conflicts, 0);
  SmemReport s = analyze_smem(pattern("256:1", 4, "(32,4):(8,1)"), find_instruction("ld.128"));
  EXPECT_EQ(s.per_instruction[0].phase_wavefronts, (std::vector<int>{2, 2, 2, 2}));
  EXPECT_EQ(s.wavefronts, 8);
  EXPECT_EQ(s.conflicts, 4);
}

// Broadcast and sub-word accesses: one word read by all lanes, or 32 bf16 in 16 words, take one
// wavefront.
TEST(SmemBankConflicts, BroadcastAndSubword) {
  SmemReport b = analyze_smem(pattern("1:1", 4, "(32,1):(0,0)"), find_instruction("ld.32"));
  EXPECT_EQ(b.wavefronts, 1);
  EXPECT_EQ(b.conflicts, 0);
  SmemReport h = analyze_smem(pattern("32:1", 2, "(32,1):(1,0)"), find_instruction("ld.16"));
  EXPECT_EQ(h.wavefronts, 1);
  // two lanes in the same bank but different words (stride 32 words): 2-way
  SmemReport c = analyze_smem(pattern("64:1", 4, "(32,1):(2,0)"), find_instruction("ld.32"));
  EXPECT_EQ(c.wavefronts, 2);
  EXPECT_EQ(c.max_ways, 2);
}

// ldmatrix.x1 and .x2 take 8 and 16 row addresses: one and two phases.
TEST(SmemBankConflicts, LdmatrixWidths) {
  // x1: an 8x8 bf16 matrix, rows 16 bytes apart (contiguous 128 bytes): one wavefront
  SmemReport x1 = analyze_smem(pattern("(8,8):(8,1)", 2, "(8,8):(1,8)"), find_instruction("ldmatrix.x1"));
  EXPECT_EQ(x1.instructions, 1);
  EXPECT_EQ(x1.wavefronts, 1);
  // x2 over (16,8) with rows 128 bytes apart (a row-major (16,64) tile): 8-way in each matrix
  SmemReport x2 = analyze_smem(pattern("(16,8):(64,1)", 2, "(16,8):(1,16)"), find_instruction("ldmatrix.x2"));
  EXPECT_EQ(x2.instructions, 1);
  EXPECT_EQ(x2.per_instruction[0].phase_wavefronts, (std::vector<int>{8, 8}));
  expect_error([] { analyze_smem(pattern("(8,8):(8,1)", 2, "(8,8):(1,8)"), find_instruction("ldmatrix.x2")); },
               "8 threads do not match ldmatrix.x2, which takes 16 addresses per warp");
}

// cp.async.16 writing a row-major bf16 (32,64) tile, 8 threads per row: each quarter warp
// writes one 128-byte row, conflict-free; its global side reads 4 lines, 16 sectors.
TEST(Analysis, CpAsyncBothSides) {
  AccessPattern p = pattern("(32,64):(64,1)", 2, "((8,32),8):((256,1),32)");
  SmemReport s = analyze_smem(p, find_instruction("cp.async.16"));
  EXPECT_TRUE(s.is_store);
  EXPECT_EQ(s.instructions, 8);
  EXPECT_EQ(s.conflicts, 0);
  GmemReport g = analyze_gmem(p, find_instruction("cp.async.16"));
  EXPECT_EQ(g.instructions, 8);
  EXPECT_EQ(g.sectors, 8 * 16);
  EXPECT_EQ(g.lines, 8 * 4);
  EXPECT_DOUBLE_EQ(g.efficiency, 1.0);
}

// Known fact: 32 lanes reading consecutive 4-byte words touch 4 sectors (one 128-byte line).
TEST(GmemCoalescing, ConsecutiveWordsTouchFourSectors) {
  GmemReport r = analyze_gmem(pattern("32:1", 4, "(32,1):(1,0)"), find_instruction("ld.32"));
  EXPECT_EQ(r.instructions, 1);
  EXPECT_EQ(r.sectors, 4);
  EXPECT_EQ(r.lines, 1);
  EXPECT_EQ(r.bytes, 128);
  EXPECT_DOUBLE_EQ(r.efficiency, 1.0);
  EXPECT_DOUBLE_EQ(r.sectors_per_request, 4.0);
}

TEST(GmemCoalescing, StridedMisalignedAndColumn) {
  // every other float: 256 bytes span, 8 sectors, half of them wasted
  GmemReport s = analyze_gmem(pattern("64:1", 4, "(32,1):(2,0)"), find_instruction("ld.32"));
  EXPECT_EQ(s.sectors, 8);
  EXPECT_DOUBLE_EQ(s.efficiency, 0.5);
  // shifted by one word: bytes 4..131 touch 5 sectors in 2 lines
  AccessPattern m = pattern("64:1", 4, "(32,1):(1,0)");
  m.base_bytes = 4;
  GmemReport ms = analyze_gmem(m, find_instruction("ld.32"));
  EXPECT_EQ(ms.sectors, 5);
  EXPECT_EQ(ms.lines, 2);
  // a column of a row-major 32x32 float matrix: 32 sectors in 32 lines, 1/8 useful
  GmemReport c = analyze_gmem(pattern("(32,32):(32,1)", 4, "(32,32):(1,32)"), find_instruction("ld.32"));
  EXPECT_EQ(c.sectors, 32 * 32);
  EXPECT_EQ(c.lines, 32 * 32);
  EXPECT_DOUBLE_EQ(c.efficiency, 0.125);
  // 128-bit loads of 512 consecutive bytes: 16 sectors, 4 lines
  GmemReport v = analyze_gmem(pattern("128:1", 4, "(32,4):(4,1)"), find_instruction("ld.128"));
  EXPECT_EQ(v.sectors, 16);
  EXPECT_EQ(v.lines, 4);
}

TEST(AnalysisErrors, BadInputNamesTheProblem) {
  expect_error([] { find_instruction("ld.96"); }, "unknown instruction 'ld.96'; expected one of: ld.8");
  // thread count not matching the instruction
  expect_error([] { analyze_smem(pattern("48:1", 4, "(24,2):(2,1)"), find_instruction("ld.32")); },
               "24 threads do not match ld.32");
  // element size not dividing the access
  expect_error([] { analyze_smem(pattern("32:1", 8, "(32,1):(1,0)"), find_instruction("ld.32")); },
               "an element of 8 bytes does not divide the 4-byte access of ld.32");
  // values of one access not contiguous
  expect_error([] { analyze_smem(pattern("(32,32):(1,32)", 4, "(32,4):(1,32)"), find_instruction("ld.128")); },
               "are not consecutive; a 16-byte ld.128 needs 4 consecutive elements");
  // values per thread not a multiple of the access
  expect_error([] { analyze_smem(pattern("96:1", 4, "(32,3):(3,1)"), find_instruction("ld.64")); },
               "each thread has 3 values, not a multiple of the 2 values");
  // misaligned vector access
  expect_error([] { analyze_smem(pattern("(32,5):(5,1)", 4, "(32,4):(1,32)"), find_instruction("ld.128")); },
               "is not aligned to the 16-byte ld.128");
  // TV reaching outside the memory layout
  expect_error([] { analyze_smem(pattern("32:1", 4, "(32,2):(1,32)"), find_instruction("ld.32")); },
               "reaches element index 32, outside the tile of 32 elements");
  // ldmatrix has no global form
  expect_error([] { analyze_gmem(pattern("(8,8):(8,1)", 2, "(8,8):(1,8)"), find_instruction("ldmatrix.x1")); },
               "reads shared memory only");
}

TEST(WidestVector, SwizzledAndPlain) {
  // gmem row-major bf16 (8,64) -> Sw<3,3,3> smem: 16-byte units stay whole: 8 elements
  VectorReport a = widest_vector(parse_memory_layout("(8,64):(64,1)"), parse_memory_layout("Sw<3,3,3>o(8,64):(64,1)"), 2);
  EXPECT_EQ(a.elements, 8);
  EXPECT_EQ(a.bytes, 16);
  EXPECT_NE(a.limit.find("exceed the widest access"), std::string::npos) << a.limit;
  // transposed copy: nothing is contiguous in both
  VectorReport t = widest_vector(parse_memory_layout("(8,64):(64,1)"), parse_memory_layout("(8,64):(1,8)"), 2);
  EXPECT_EQ(t.elements, 1);
  EXPECT_EQ(t.max_common, 1);
  // rows of 8 floats padded to 9: contiguous by 8, but odd row starts allow only scalars
  VectorReport p9 = widest_vector(parse_memory_layout("(8,8):(9,1)"), parse_memory_layout("(8,8):(8,1)"), 4);
  EXPECT_EQ(p9.contiguous, 8);
  EXPECT_EQ(p9.elements, 1);
  EXPECT_NE(p9.limit.find("src offset 9"), std::string::npos) << p9.limit;
  VectorReport p10 = widest_vector(parse_memory_layout("(8,8):(10,1)"), parse_memory_layout("(8,8):(8,1)"), 4);
  EXPECT_EQ(p10.elements, 2);
  // base alignment limits the width
  VectorReport al = widest_vector(parse_memory_layout("64:1"), parse_memory_layout("64:1"), 4, 8, 16);
  EXPECT_EQ(al.elements, 2);
  EXPECT_NE(al.limit.find("src base alignment 8 bytes"), std::string::npos) << al.limit;
  expect_error([] { widest_vector(parse_memory_layout("8:1"), parse_memory_layout("8:0"), 4); }, "is not injective");
  expect_error([] { widest_vector(parse_memory_layout("8:1"), parse_memory_layout("16:1"), 4); }, "same domain");
}

// Property: for random compact layouts of one shape, the contiguity found by enumeration is the
// largest power of two dividing the algebra's max_common_vector.
TEST(WidestVector, AgreesWithMaxCommonVector) {
  std::mt19937 rng(42);
  const Int extents[] = {1, 2, 3, 4, 8};
  for (int trial = 0; trial < 300; ++trial) {
    int r = 2 + static_cast<int>(rng() % 3);
    std::vector<Int> s(static_cast<size_t>(r));
    for (auto& x : s) x = extents[rng() % 5];
    auto compact = [&](std::vector<int> order) {
      std::vector<Int> d(static_cast<size_t>(r));
      Int cur = 1;
      for (int i : order) {
        d[static_cast<size_t>(i)] = cur;
        cur *= s[static_cast<size_t>(i)];
      }
      IntTuple sh = IntTuple::empty_tuple(), st = IntTuple::empty_tuple();
      for (int i = 0; i < r; ++i) {
        sh.push_back(IntTuple::leaf(s[static_cast<size_t>(i)]));
        st.push_back(IntTuple::leaf(d[static_cast<size_t>(i)]));
      }
      return MemoryLayout{Layout{sh, st}, std::nullopt};
    };
    std::vector<int> o1(static_cast<size_t>(r)), o2;
    for (int i = 0; i < r; ++i) o1[static_cast<size_t>(i)] = i;
    o2 = o1;
    std::shuffle(o1.begin(), o1.end(), rng);
    std::shuffle(o2.begin(), o2.end(), rng);
    MemoryLayout a = compact(o1), b = compact(o2);
    VectorReport v = widest_vector(a, b, 1, 1 << 20, 1 << 20, 1 << 20);
    ASSERT_TRUE(v.max_common.has_value());
    Int mcv = *v.max_common, p = 1;
    while (mcv % (2 * p) == 0) p *= 2;
    ASSERT_EQ(v.contiguous, p) << a.text() << " -> " << b.text() << " mcv " << mcv;
    ASSERT_EQ(v.elements, p) << a.text() << " -> " << b.text();
  }
}

// The kernel of tests/tensor/tensor_gpu_test.cu (first launch: one 64x32 float tile, 128 threads,
// ld = 35) stages the tile in a row-major (64,32) shared layout through local_partition with
// (16,8):(8,1) threads, and reads it back with (32,4):(1,32) threads.  Its TV layouts over the
// tile (index m + 64n) are derived here from local_partition itself, and the predictions are the
// counters Nsight Compute measured for that launch on an H100 (2026-11-22, docs/ANALYSIS.md):
//   shared st: 64 instructions, 256 wavefronts, 192 conflicts;  ld: 64, 2048, 1984
//   global ld: 64 requests, 480 sectors;                         st: 64 requests, 2048 sectors
TEST(MeasuredOnGpu, TensorGpuTestTileCopy) {
  constexpr Layout kTile = make_layout(make_tuple(64, 32));  // element index m + 64n
  std::vector<int> index(64 * 32);
  for (int i = 0; i < 64 * 32; ++i) index[static_cast<size_t>(i)] = i;
  auto tile = make_tensor<kTile>(index.data());
  constexpr Layout kThrRow = make_layout(make_tuple(16, 8), make_tuple(8, 1));
  constexpr Layout kThrCol = make_layout(make_tuple(32, 4), make_tuple(1, 32));
  const Layout tv_row = parse_layout("((8,16),(4,4)):((64,1),(16,512))");
  const Layout tv_col = parse_layout("((32,4),(2,8)):((1,64),(32,256))");
  for (int t = 0; t < 128; ++t) {
    auto pr = local_partition<kThrRow>(tile, t);  // (4,4)
    auto pc = local_partition<kThrCol>(tile, t);  // (2,8)
    for (int v = 0; v < 16; ++v) {
      ASSERT_EQ(pr(v), tv_row(make_tuple(t, v))) << t << " " << v;
      ASSERT_EQ(pc(v), tv_col(make_tuple(t, v))) << t << " " << v;
    }
  }
  AccessPattern st{parse_memory_layout("(64,32):(32,1)"), 4, tv_row, std::nullopt, 0};
  AccessPattern ld{parse_memory_layout("(64,32):(32,1)"), 4, tv_col, std::nullopt, 0};
  SmemReport s = analyze_smem(st, find_instruction("st.32")), l = analyze_smem(ld, find_instruction("ld.32"));
  EXPECT_EQ(s.instructions, 64);
  EXPECT_EQ(s.wavefronts, 256);
  EXPECT_EQ(s.conflicts, 192);
  EXPECT_EQ(l.instructions, 64);
  EXPECT_EQ(l.wavefronts, 2048);
  EXPECT_EQ(l.conflicts, 1984);
  AccessPattern gin{parse_memory_layout("(64,32):(35,1)"), 4, tv_row, std::nullopt, 0};
  AccessPattern gout{parse_memory_layout("(64,32):(35,1)"), 4, tv_col, std::nullopt, 0};
  GmemReport gl = analyze_gmem(gin, find_instruction("ld.32")), gs = analyze_gmem(gout, find_instruction("st.32"));
  EXPECT_EQ(gl.instructions, 64);
  EXPECT_EQ(gl.sectors, 480);
  EXPECT_EQ(gs.instructions, 64);
  EXPECT_EQ(gs.sectors, 2048);
}

}  // namespace
