// tessera/analysis/access.hpp -- what one warp instruction touches: instruction models and the
// expansion of (memory layout, element size, TV layout, instruction) into per-lane byte ranges.
// Host only.
//
// Inputs of every analysis:
//   memory   element index -> element offset: a Layout, optionally swizzled (Sw<B,M,S>o L, the
//            swizzle applied to the element offset).  Its domain is the tile; an element index
//            is the 1-D (column-major) coordinate in the layout's shape.
//   elem     bytes per element.
//   tv       (thread, value) -> element index: which elements each thread accesses, in the
//            order it accesses them.  With `tile` set, tv covers one tile of that shape and the
//            pattern repeats over every tile of the memory layout (as partition_S does).
//   inst     the instruction: W bytes per thread and access, which lanes give addresses, how
//            the shared-memory pipeline splits the warp into phases.
//
// Expansion: each thread's values (tile repetitions after its own values) are cut into groups
// of W/elem consecutive values; group g of warp w is one instruction.  A group must be W/elem
// consecutive elements in memory starting at a W-aligned address -- else the instruction cannot
// move it, and the expansion reports which thread, which values and which offsets.
//
// Instruction models (NVIDIA sm_80 / sm_90 shared memory: 32 banks of 4 bytes):
//   ld.8|16|32  st.8|16|32     32 lanes, one phase of 32 lanes
//   ld.64  st.64               32 lanes, two phases of 16 lanes (half warps)
//   ld.128 st.128              32 lanes, four phases of 8 lanes (quarter warps)
//   ldmatrix.x1|x2|x4[.trans]  8N lanes give one 16-byte row address each; one phase per 8x8
//                              matrix (lanes 8i..8i+7 give the rows of matrix i)
//   cp.async.4|8|16            32 lanes; global side as a load of that width, shared side as a
//                              store of that width (phases as ld/st of the same width)
#pragma once

#include <algorithm>  // std::max
#include <array>      // std::array
#include <optional>   // std::optional
#include <stdexcept>  // std::invalid_argument
#include <string>     // std::string
#include <vector>     // std::vector

#include "tessera/layout.hpp"           // Layout, Swizzle, SwizzledLayout, parse_*
#include "tessera/tensor/tv_layout.hpp"  // tv_tidfrg

namespace tessera::analysis {

// Bad input: the message names the argument and what was expected.
struct AnalysisError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// The analysers enumerate every element they look at: a memory layout, or the (thread, value)
// pairs of an access pattern repeated over the tile, may hold at most this many elements (a
// 1024x1024 tile); larger ones are reported as "too large to analyze" before any work is done.
inline constexpr Int kMaxAnalyzedElements = Int(1) << 20;

// Throws AnalysisError "<what>: too large to analyze: N elements, limit L" when a x b exceeds
// kMaxAnalyzedElements (the product is formed without overflow).
inline void check_analyzed_size(const std::string& what, Int a, Int b = 1) {
  Int n = 0;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &n) || n > kMaxAnalyzedElements)
    throw AnalysisError(what + ": too large to analyze: " +
                        (n > 0 && a > 0 && b > 0 ? std::to_string(n) : std::to_string(a) + " x " + std::to_string(b)) +
                        " elements, limit " + std::to_string(kMaxAnalyzedElements));
}

// ------------------------------------------------------------------ memory layouts
// element index -> element offset; the swizzle (if any) acts on the offset.
struct MemoryLayout {
  Layout layout;
  std::optional<Swizzle> swizzle;

  Int operator()(Int i) const {
    Int off = layout(i);
    return swizzle ? (*swizzle)(off) : off;
  }
  Int size() const { return tessera::size(layout); }
  std::string text() const { return swizzle ? to_string(SwizzledLayout{*swizzle, layout}) : to_string(layout); }
};

// "Sw<B,M,S>o<layout>" or "<layout>".
inline MemoryLayout parse_memory_layout(const std::string& text) {
  LayoutParser probe(text);
  if (probe.at_swizzle()) {
    SwizzledLayout s = parse_swizzled(text);
    return MemoryLayout{s.layout, s.swizzle};
  }
  return MemoryLayout{parse_layout(text), std::nullopt};
}

// ------------------------------------------------------------------ instructions
enum class Space { Shared, Global };

struct Instruction {
  std::string name;
  int bytes = 4;            // bytes one lane moves per access (W)
  int address_lanes = 32;   // lanes that give an address
  int phase_lanes = 32;     // lanes served together by the shared-memory pipeline
  bool is_store = false;    // the shared-memory side writes (st.*, cp.async)
  bool shared_only = false;  // ldmatrix: shared memory only
  bool async_copy = false;  // cp.async: global read + shared write
};

inline const std::vector<Instruction>& instructions() {
  static const std::vector<Instruction> all = [] {
    std::vector<Instruction> v;
    for (int b : {1, 2, 4, 8, 16}) {
      int phase = b <= 4 ? 32 : 128 / b;
      v.push_back(Instruction{"ld." + std::to_string(8 * b), b, 32, phase, false, false, false});
      v.push_back(Instruction{"st." + std::to_string(8 * b), b, 32, phase, true, false, false});
    }
    for (int n : {1, 2, 4}) {
      for (const char* t : {"", ".trans"})
        v.push_back(Instruction{"ldmatrix.x" + std::to_string(n) + t, 16, 8 * n, 8, false, true, false});
    }
    for (int b : {4, 8, 16}) {
      int phase = b <= 4 ? 32 : 128 / b;
      v.push_back(Instruction{"cp.async." + std::to_string(b), b, 32, phase, true, false, true});
    }
    return v;
  }();
  return all;
}

inline std::string instruction_names() {
  std::string s;
  for (const auto& i : instructions()) s += (s.empty() ? "" : ", ") + i.name;
  return s;
}

inline const Instruction& find_instruction(const std::string& name) {
  for (const auto& i : instructions())
    if (i.name == name) return i;
  throw AnalysisError("unknown instruction '" + name + "'; expected one of: " + instruction_names());
}

// ------------------------------------------------------------------ access patterns
struct AccessPattern {
  MemoryLayout memory;
  int elem_bytes = 4;
  Layout tv;                  // (thread, value) -> element index (of the tile when `tile` is set)
  std::optional<Tiler> tile;  // repeat tv over the memory layout in tiles of this shape
  Int base_bytes = 0;         // byte address of element offset 0
};

struct LaneAccess {
  bool active = false;
  Int addr = 0;  // byte address
  int bytes = 0;
};

// One warp instruction: lanes [0, address_lanes) active.
struct WarpInstruction {
  int warp = 0;   // group of address_lanes consecutive threads of the TV layout
  int group = 0;  // value group (W/elem consecutive values of each thread)
  std::array<LaneAccess, 32> lanes{};
};

namespace detail {

// (thread, value) -> element index over the whole memory layout (tile repetitions appended to
// the values); rows of the result: thread, columns: value.
struct ThreadValues {
  Int threads = 0;
  Int values = 0;
  std::vector<Int> index;  // threads * values, index[t * values + v]
};

inline ThreadValues thread_values(const AccessPattern& p) {
  if (rank(p.tv) != 2)
    throw AnalysisError("--tv: a TV layout has rank 2 (thread, value), got " + to_string(p.tv) + " of rank " +
                        std::to_string(rank(p.tv)));
  ThreadValues r;
  Layout domain = make_layout(p.memory.layout.shape);  // element index = column-major coordinate
  Layout f;  // (thread, value, rest)
  Int tile_size = p.memory.size();
  if (p.tile) {
    tile_size = 1;
    for (int i = 0; i < p.tile->n; ++i) tile_size *= size(p.tile->elem[i]);
    try {
      f = tv_tidfrg(domain, p.tv, *p.tile);
    } catch (const LayoutError& e) {
      throw AnalysisError(std::string("--tile: cannot tile the memory layout ") + p.memory.text() + ": " + e.what());
    }
  } else {
    f = make_layout_of(mode(p.tv, 0), mode(p.tv, 1), make_layout(1, 0));
  }
  // every TV index must lie in the tile
  check_analyzed_size("--tv " + to_string(p.tv), size(p.tv));
  for (Int i = 0; i < size(p.tv); ++i) {
    Int x = p.tv(i);
    if (x < 0 || x >= tile_size)
      throw AnalysisError("--tv: the TV layout " + to_string(p.tv) + " reaches element index " + std::to_string(x) +
                          ", outside the tile of " + std::to_string(tile_size) + " elements");
  }
  r.threads = size(mode(f, 0));
  Int vals = size(mode(f, 1)), rest = size(mode(f, 2));
  check_analyzed_size("access pattern over " + p.memory.text() + " (threads x values x tiles)", r.threads,
                      mul_checked(vals, rest));
  r.values = vals * rest;
  r.index.resize(static_cast<size_t>(r.threads * r.values));
  Layout ft = mode(f, 0), fv = mode(f, 1), fr = mode(f, 2);
  for (Int t = 0; t < r.threads; ++t)
    for (Int q = 0; q < rest; ++q)
      for (Int v = 0; v < vals; ++v) r.index[t * r.values + q * vals + v] = ft(t) + fv(v) + fr(q);
  return r;
}

}  // namespace detail

// Expands the pattern into warp instructions.  Throws AnalysisError on a thread count that does
// not fit the instruction, an element size that does not divide the access, or a value group
// that is not W/elem consecutive, W-aligned elements.
inline std::vector<WarpInstruction> expand(const AccessPattern& p, const Instruction& inst) {
  const int e = p.elem_bytes, w = inst.bytes;
  if (e <= 0) throw AnalysisError("--elem-bytes: must be positive, got " + std::to_string(e));
  if (w % e != 0)
    throw AnalysisError("--elem-bytes: an element of " + std::to_string(e) + " bytes does not divide the " +
                        std::to_string(w) + "-byte access of " + inst.name);
  const Int k = w / e;  // values per access
  detail::ThreadValues tv = detail::thread_values(p);
  if (tv.threads % inst.address_lanes != 0)
    throw AnalysisError("--tv: " + std::to_string(tv.threads) + " threads do not match " + inst.name + ", which takes " +
                        std::to_string(inst.address_lanes) + " addresses per warp (give a multiple of " +
                        std::to_string(inst.address_lanes) + " threads)");
  if (tv.values % k != 0)
    throw AnalysisError("--tv: each thread has " + std::to_string(tv.values) + " values, not a multiple of the " +
                        std::to_string(k) + " values one " + inst.name + " access of " + std::to_string(e) +
                        "-byte elements moves");
  if (p.base_bytes % w != 0)
    throw AnalysisError("--base: address " + std::to_string(p.base_bytes) + " is not aligned to the " +
                        std::to_string(w) + "-byte access");
  const Int warps = tv.threads / inst.address_lanes, groups = tv.values / k;
  std::vector<WarpInstruction> out;
  out.reserve(static_cast<size_t>(warps * groups));
  for (Int wp = 0; wp < warps; ++wp)
    for (Int g = 0; g < groups; ++g) {
      WarpInstruction wi;
      wi.warp = static_cast<int>(wp);
      wi.group = static_cast<int>(g);
      for (int lane = 0; lane < inst.address_lanes; ++lane) {
        Int t = wp * inst.address_lanes + lane;
        const Int* idx = &tv.index[static_cast<size_t>(t * tv.values + g * k)];
        Int off0 = p.memory(idx[0]);
        for (Int j = 1; j < k; ++j) {
          Int off = p.memory(idx[j]);
          if (off != off0 + j)
            throw AnalysisError("thread " + std::to_string(t) + ", values " + std::to_string(g * k) + ".." +
                                std::to_string(g * k + k - 1) + ": element offsets " + std::to_string(off0) + ", ..., " +
                                std::to_string(off) + " (value " + std::to_string(g * k + j) +
                                ") are not consecutive; a " + std::to_string(w) + "-byte " + inst.name +
                                " needs " + std::to_string(k) + " consecutive elements");
        }
        Int addr = p.base_bytes + off0 * e;
        if (addr % w != 0)
          throw AnalysisError("thread " + std::to_string(t) + ", values " + std::to_string(g * k) + "..: byte address " +
                              std::to_string(addr) + " is not aligned to the " + std::to_string(w) + "-byte " +
                              inst.name);
        wi.lanes[static_cast<size_t>(lane)] = LaneAccess{true, addr, w};
      }
      out.push_back(wi);
    }
  return out;
}

}  // namespace tessera::analysis
