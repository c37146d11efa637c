// tessera/analysis/vector.hpp -- the widest legal vector for a copy between two layouts.  Host only.
//
// A copy src -> dst over the same domain may move n elements per instruction when it can cut
// the domain into chunks of n elements that are consecutive in *both* layouts, each chunk
// starting at an offset that is a multiple of n in both (so that the n*elem-byte access is
// aligned once the base pointers are), and n*elem is at most the widest access (16 bytes).
// Chunks follow the destination's offsets: chunk c holds the elements the destination stores at
// offsets [c*n, c*n+n).
//
// widest_vector tries n = 1, 2, 4, ... and reports the largest legal one and what stops the next:
// the 16-byte limit, a break in contiguity (with the coordinate), an unaligned chunk start, or a
// base address alignment.  For unswizzled layouts the algebra's max_common_vector(src, dst)
// (the number of leading elements on which both agree) is reported alongside; the contiguity part
// of this analysis never exceeds it.
#pragma once

#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include "tessera/analysis/access.hpp"  // MemoryLayout, AnalysisError

namespace tessera::analysis {

struct VectorReport {
  Int elements = 1;                    // widest legal vector, in elements
  Int bytes = 0;                       // elements * elem_bytes
  Int contiguous = 1;                  // widest power of two with contiguity alone (ignoring alignment and the limit)
  std::optional<Int> max_common;       // the algebra's max_common_vector (unswizzled layouts only)
  std::string limit;                   // why elements*2 is not legal
};

namespace detail {

struct OffsetIndex {
  Int lo = 0;
  std::vector<Int> coord;  // coordinate stored at offset lo + i, or -1
};

inline OffsetIndex index_offsets(const MemoryLayout& l, const char* which) {
  Int n = l.size();
  check_analyzed_size(std::string(which) + " " + l.text(), n);
  Int lo = 0, hi = 0;
  for (Int x = 0; x < n; ++x) {
    Int o = l(x);
    lo = x == 0 || o < lo ? o : lo;
    hi = x == 0 || o > hi ? o : hi;
  }
  if (hi - lo + 1 > (Int(1) << 26))
    throw AnalysisError(std::string(which) + ": offsets span " + std::to_string(hi - lo + 1) +
                        " elements; the vector analysis handles at most 2^26");
  OffsetIndex r{lo, std::vector<Int>(static_cast<size_t>(hi - lo + 1), -1)};
  for (Int x = 0; x < n; ++x) {
    Int& slot = r.coord[static_cast<size_t>(l(x) - lo)];
    if (slot >= 0)
      throw AnalysisError(std::string(which) + ": layout " + l.text() + " is not injective (coordinates " +
                          std::to_string(slot) + " and " + std::to_string(x) + " share offset " +
                          std::to_string(l(x)) + "); a copy destination must be");
    slot = x;
  }
  return r;
}

// Empty string when chunks of n are consecutive in both layouts; else the reason.
inline std::string contiguity_break(const MemoryLayout& src, const OffsetIndex& di, Int n) {
  Int starts = 0;
  for (size_t i = 0; i < di.coord.size(); ++i) {
    Int x = di.coord[i];
    Int off = di.lo + static_cast<Int>(i);
    if (x < 0 || ((off % n) + n) % n != 0) continue;
    ++starts;
    Int s0 = src(x);
    for (Int j = 1; j < n; ++j) {
      size_t k = i + static_cast<size_t>(j);
      if (k >= di.coord.size() || di.coord[k] < 0)
        return "dst offsets " + std::to_string(off) + ".." + std::to_string(off + n - 1) + " are not all written";
      Int y = di.coord[k];
      if (src(y) != s0 + j)
        return "src is not contiguous where dst is: coordinates " + std::to_string(x) + " and " + std::to_string(y) +
               " are at dst offsets " + std::to_string(off) + ", " + std::to_string(off + j) + " but src offsets " +
               std::to_string(s0) + ", " + std::to_string(src(y));
    }
  }
  if (starts * n != src.size()) return "dst offsets do not split into whole chunks of " + std::to_string(n);
  return "";
}

inline std::string alignment_break(const MemoryLayout& src, const OffsetIndex& di, Int n) {
  for (size_t i = 0; i < di.coord.size(); ++i) {
    Int x = di.coord[i];
    Int off = di.lo + static_cast<Int>(i);
    if (x < 0 || ((off % n) + n) % n != 0) continue;
    Int s = src(x);
    if (((s % n) + n) % n != 0)
      return "src offset " + std::to_string(s) + " (coordinate " + std::to_string(x) + ") is not a multiple of " +
             std::to_string(n) + " elements";
  }
  return "";
}

}  // namespace detail

// Widest legal vector (in elements) for copying src -> dst; base pointers aligned to
// src_align / dst_align bytes; at most max_bytes per access.
inline VectorReport widest_vector(const MemoryLayout& src, const MemoryLayout& dst, int elem_bytes,
                                  Int src_align = 16, Int dst_align = 16, int max_bytes = 16) {
  if (elem_bytes <= 0) throw AnalysisError("--elem-bytes: must be positive, got " + std::to_string(elem_bytes));
  if (src.size() != dst.size())
    throw AnalysisError("--src/--dst: layouts of " + std::to_string(src.size()) + " and " + std::to_string(dst.size()) +
                        " elements; a copy needs the same domain");
  if (src_align <= 0 || dst_align <= 0) throw AnalysisError("--src-align/--dst-align: alignments must be positive");
  detail::OffsetIndex di = detail::index_offsets(dst, "--dst");
  VectorReport r;
  if (!src.swizzle && !dst.swizzle) r.max_common = max_common_vector(src.layout, dst.layout);
  // contiguity alone
  for (Int n = 2; n <= src.size() && src.size() % n == 0; n *= 2) {
    if (!detail::contiguity_break(src, di, n).empty()) break;
    r.contiguous = n;
  }
  // legality
  for (Int n = 2;; n *= 2) {
    std::string why;
    if (n * elem_bytes > max_bytes) {
      why = std::to_string(n * elem_bytes) + " bytes exceed the widest access (" + std::to_string(max_bytes) + " bytes)";
    } else if (src.size() % n != 0) {
      why = std::to_string(src.size()) + " elements do not split into chunks of " + std::to_string(n);
    } else if (std::string c = detail::contiguity_break(src, di, n); !c.empty()) {
      why = c;
    } else if (std::string a = detail::alignment_break(src, di, n); !a.empty()) {
      why = a;
    } else if (src_align % (n * elem_bytes) != 0) {
      why = "src base alignment " + std::to_string(src_align) + " bytes < " + std::to_string(n * elem_bytes);
    } else if (dst_align % (n * elem_bytes) != 0) {
      why = "dst base alignment " + std::to_string(dst_align) + " bytes < " + std::to_string(n * elem_bytes);
    }
    if (!why.empty()) {
      r.limit = why;
      break;
    }
    r.elements = n;
  }
  r.bytes = r.elements * elem_bytes;
  return r;
}

}  // namespace tessera::analysis
