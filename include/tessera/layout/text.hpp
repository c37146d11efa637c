// tessera/layout/text.hpp -- the printed form of int tuples, layouts, tilers and swizzles
// (host only).  The form is CuTe's:
//
//     IntTuple := INT | '(' IntTuple (',' IntTuple)* ')'        8   (4,8)   ((2,2),8)   (4)
//     Layout   := IntTuple [':' IntTuple]                       (4,8):(8,1); a shape alone
//                                                                is the column-major layout
//     Tiler    := '<' Layout (',' Layout)* '>'                  <4,(2,2):(1,8)>  (n means n:1)
//     Swizzled := 'Sw<' INT ',' INT ',' INT '>o' Layout          Sw<3,3,3>o(8,64):(64,1)
//
// Input may contain spaces, and underscores in front of integers (CuTe prints a static 4
// as _4).  Malformed text raises LayoutError "column C: expected ..., found ... in "<excerpt>"".
// Limits (config.hpp): integers of magnitude <= 2^48, kMaxNodes nodes and kMaxDepth levels per
// int tuple, size and cosize <= 2^62.
#pragma once

#include <cctype>   // std::isdigit, std::isspace
#include <string>   // std::string
#include <variant>  // std::variant

#include "divide_product.hpp"  // Tiler
#include "swizzle.hpp"         // Swizzle, SwizzledLayout

namespace tessera {

// ---------------------------------------------------------------- printing
inline std::string to_string(const IntTuple& t) {
  if (t.is_leaf()) return std::to_string(t.value());
  std::string s = "(";
  for (int i = 0; i < t.rank(); ++i) {
    if (i) s += ',';
    s += to_string(t.get(i));
  }
  return s + ")";
}
inline std::string to_string(const Layout& l) { return to_string(l.shape) + ":" + to_string(l.stride); }
inline std::string to_string(const Tiler& t) {
  std::string s = "<";
  for (int i = 0; i < t.n; ++i) {
    if (i) s += ',';
    s += t.is_int[i] ? std::to_string(size(t.elem[i])) : to_string(t.elem[i]);
  }
  return s + ">";
}
inline std::string to_string(const Swizzle& sw) {
  return "Sw<" + std::to_string(sw.b) + "," + std::to_string(sw.m) + "," + std::to_string(sw.s) + ">";
}
inline std::string to_string(const SwizzledLayout& l) { return to_string(l.swizzle) + "o" + to_string(l.layout); }

// ---------------------------------------------------------------- quoting input in messages
// Error messages show where the text went wrong without echoing all of it: the column (counted
// in characters), the character found there, and a window of at most ~64 characters around it,
// with non-printable bytes escaped (\x07) and UTF-8 characters kept whole.
namespace detail {
// Length of the well-formed UTF-8 sequence starting at byte i of s (1 for ASCII, 2..4), or 0.
inline int utf8_length(const std::string& s, size_t i) {
  const auto b = [&](size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u; };
  const unsigned c = b(i);
  if (c < 0x80) return 1;
  int n = 0;
  unsigned lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c >= 0xE0 && c <= 0xEF) { n = 3; if (c == 0xE0) lo = 0xA0; if (c == 0xED) hi = 0x9F; }
  else if (c >= 0xF0 && c <= 0xF4) { n = 4; if (c == 0xF0) lo = 0x90; if (c == 0xF4) hi = 0x8F; }
  else return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (int k = 2; k < n; ++k)
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  return n;
}
// Code point of the well-formed UTF-8 sequence of n bytes at i.
inline unsigned utf8_code_point(const std::string& s, size_t i, int n) {
  unsigned c = static_cast<unsigned char>(s[i]) & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
  for (int k = 1; k < n; ++k) c = (c << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  return c;
}
inline std::string hex_byte(unsigned char c) {
  const char* d = "0123456789abcdef";
  return std::string("\\x") + d[c >> 4] + d[c & 15];
}
}  // namespace detail

// 1-based column of byte `pos`, counting each UTF-8 character (and each stray byte) once.
inline size_t text_column(const std::string& s, size_t pos) {
  size_t col = 1;
  for (size_t i = 0; i < pos && i < s.size(); ++col) {
    const int n = detail::utf8_length(s, i);
    i += n > 0 ? static_cast<size_t>(n) : 1;
  }
  return col;
}

// The character at byte `pos` as a message shows it: 'x', '\x07', 'é' (U+00E9), end of input.
inline std::string text_char_at(const std::string& s, size_t pos) {
  if (pos >= s.size()) return "end of input";
  const unsigned char c = static_cast<unsigned char>(s[pos]);
  std::string out;  // built by appending (GCC 12 warns falsely on "lit" + std::string&& at -O3)
  if (c >= 0x20 && c < 0x7F) {
    out.append(1, '\'').append(1, s[pos]).append(1, '\'');
  } else if (c < 0x80) {
    out.append(1, '\'').append(detail::hex_byte(c)).append(1, '\'');
  } else if (const int n = detail::utf8_length(s, pos); n == 0) {
    out.append("byte ").append(detail::hex_byte(c)).append(" (not UTF-8)");
  } else {
    const unsigned cp = detail::utf8_code_point(s, pos, n);
    std::string hex;
    for (int k = (cp > 0xFFFF ? 5 : 3); k >= 0; --k) hex += "0123456789ABCDEF"[(cp >> (4 * k)) & 15];
    out.append(1, '\'').append(s, pos, static_cast<size_t>(n)).append("' (U+").append(hex).append(1, ')');
  }
  return out;
}

// At most `window` bytes of s on each side of byte `pos`, quoted: printable ASCII and whole
// UTF-8 characters as they are, other bytes escaped, "..." where the text is cut, and the
// input's length when it is cut.
inline std::string text_excerpt(const std::string& s, size_t pos, size_t window = 32) {
  if (pos > s.size()) pos = s.size();
  size_t begin = pos > window ? pos - window : 0, end = s.size() - pos > window ? pos + window : s.size();
  while (begin > 0 && begin < pos && (static_cast<unsigned char>(s[begin]) & 0xC0) == 0x80) ++begin;
  std::string out = begin > 0 ? "\"..." : "\"";
  for (size_t i = begin; i < end;) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const int n = detail::utf8_length(s, i);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
      ++i;
    } else if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
      ++i;
    } else if (c >= 0x80 && n > 1) {
      out += s.substr(i, static_cast<size_t>(n));
      i += static_cast<size_t>(n);
    } else {
      out += detail::hex_byte(c);
      ++i;
    }
  }
  out += end < s.size() ? "...\"" : "\"";
  if (begin > 0 || end < s.size()) out += " (input of " + std::to_string(s.size()) + " bytes)";
  return out;
}

// ---------------------------------------------------------------- parsing
// The parser reads without recursion: nesting is tracked on a bounded stack of open tuples, so
// deep or long input costs time linear in its length and constant stack, and nesting beyond
// kMaxDepth (or more than kMaxNodes nodes) is reported at the position where it happens.
class LayoutParser {
 public:
  explicit LayoutParser(std::string text) : s_(std::move(text)) {}

  IntTuple int_tuple() {
    skip_space();
    if (peek() != '(') return IntTuple::leaf(integer());
    IntTuple t;
    t.nodes = 0;
    int open[kMaxDepth] = {};  // node index of each open tuple
    int top = 0;
    auto add_node = [&](int arity, Int v) {
      if (t.nodes == kMaxNodes)
        fail_msg("over capacity: a shape or stride holds at most " + std::to_string(kMaxNodes) +
                 " nodes (integers plus tuples)");
      t.arity[t.nodes] = arity;
      t.val[t.nodes] = v;
      if (top > 0) ++t.arity[open[top - 1]];
      return t.nodes++;
    };
    for (;;) {
      skip_space();  // an element: '(' opens a tuple, else an integer
      if (peek() == '(') {
        if (top == kMaxDepth)
          fail_msg("over capacity: nesting deeper than " + std::to_string(kMaxDepth) +
                   " levels (an int tuple nests at most " + std::to_string(kMaxDepth) + " deep)");
        const int k = add_node(0, 0);
        open[top++] = k;
        ++p_;
        skip_space();
        if (peek() == ')') fail("an integer or '('");
        continue;
      }
      const size_t at = p_;
      const Int v = integer();
      const size_t after = p_;
      p_ = at;
      add_node(-1, v);
      p_ = after;
      for (;;) {  // after an element: ',' continues the open tuple, ')' closes it
        skip_space();
        if (peek() == ',') {
          ++p_;
          break;
        }
        if (peek() == ')') {
          ++p_;
          if (--top == 0) return t;
          continue;
        }
        fail("',' or ')'");
      }
    }
  }

  // An integer: optional '-', digits, CuTe's '_' prefix allowed; magnitude at most kMaxMagnitude.
  Int integer() {
    skip_space();
    const size_t start = p_;
    while (peek() == '_') ++p_;
    bool neg = false;
    if (peek() == '-') { neg = true; ++p_; }
    while (peek() == '_') ++p_;
    if (!std::isdigit(static_cast<unsigned char>(peek()))) fail("an integer");
    Int v = 0;
    bool too_large = false;
    while (std::isdigit(static_cast<unsigned char>(peek()))) {
      if (!too_large) v = v * 10 + (s_[p_] - '0');
      too_large = too_large || v > kMaxMagnitude;
      ++p_;
    }
    if (too_large) {
      p_ = start;
      fail_msg("integer too large: integers have magnitude at most 2^" + std::to_string(kMaxMagnitudeLog2) + " = " +
               std::to_string(kMaxMagnitude));
    }
    return neg ? -v : v;
  }

  Layout layout() {
    skip_space();
    size_t start = p_;
    IntTuple shape = int_tuple();
    skip_space();
    if (peek() == ':') {
      size_t colon = p_;
      ++p_;
      IntTuple stride = int_tuple();
      if (!congruent(shape, stride)) {
        p_ = colon;
        fail_msg("shape " + to_string(shape) + " and stride " + to_string(stride) +
                 " must have the same nesting");
      }
      return checked(Layout{shape, stride}, start);
    }
    Layout probe{shape, shape};  // check the extents before computing compact strides
    for (int k = 0; k < probe.stride.nodes; ++k) probe.stride.val[k] = 1;
    checked(probe, start);
    return checked(make_layout(shape), start);
  }

  Tiler tiler() {
    skip_space();
    expect('<');
    Tiler t;
    for (;;) {
      if (t.n == Tiler::kMax) fail_msg("a tiler has at most " + std::to_string(Tiler::kMax) + " modes");
      skip_space();
      size_t save = p_;
      Layout e = layout();
      // a bare integer element (no ':' and no parentheses) stays an integer
      std::string txt = s_.substr(save, p_ - save);
      bool bare = txt.find(':') == std::string::npos && txt.find('(') == std::string::npos;
      if (bare) t.push(size(e)); else t.push(e);
      skip_space();
      if (peek() == ',') { ++p_; continue; }
      if (peek() == '>') { ++p_; break; }
      fail("',' or '>'");
    }
    return t;
  }

  SwizzledLayout swizzled() {
    skip_space();
    size_t start = p_;
    if (s_.compare(p_, 3, "Sw<") != 0) fail("'Sw<'");
    p_ += 3;
    Swizzle sw;
    sw.b = swizzle_parameter("B");
    skip_space(); expect(',');
    sw.m = swizzle_parameter("M");
    skip_space(); expect(',');
    sw.s = swizzle_parameter("S");
    skip_space(); expect('>');
    skip_space(); expect('o');
    try {
      sw.validate();
    } catch (const LayoutError& e) {
      p_ = start;
      fail_msg(e.what());
    }
    return SwizzledLayout{sw, layout()};
  }

  bool at_swizzle() {
    skip_space();
    return s_.compare(p_, 2, "Sw") == 0;
  }
  bool at_tiler() {
    skip_space();
    return peek() == '<';
  }
  void end() {
    skip_space();
    if (p_ != s_.size()) fail("end of input");
  }

 private:
  char peek() const { return p_ < s_.size() ? s_[p_] : '\0'; }
  void skip_space() {
    while (p_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[p_]))) ++p_;
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("'") + c + "'");
    ++p_;
  }
  [[noreturn]] void fail(const std::string& expected) {
    fail_msg("expected " + expected + ", found " + text_char_at(s_, p_));
  }
  [[noreturn]] void fail_msg(const std::string& msg) {
    throw LayoutError("column " + std::to_string(text_column(s_, p_)) + ": " + msg + " in " + text_excerpt(s_, p_));
  }
  // A parameter of Sw<B,M,S>: an integer small enough for the swizzle's checks (|x| <= 62).
  int swizzle_parameter(const char* name) {
    skip_space();
    const size_t start = p_;
    const Int v = integer();
    if (v < -62 || v > 62) {
      p_ = start;
      fail_msg(std::string("swizzle: ") + name + " = " + std::to_string(v) + " is out of range; B, M and |S| are at most 62");
    }
    return static_cast<int>(v);
  }
  // Rejects layouts whose size or cosize does not fit the index type.
  Layout checked(const Layout& l, size_t start) {
    Int size = 1, co = 1;
    for (int k = 0; k < l.shape.nodes; ++k) {
      if (l.shape.arity[k] >= 0) continue;
      Int s = l.shape.val[k], d = l.stride.val[k];
      Int term = 0;
      if (s < 1) { p_ = start; fail_msg("shape " + std::to_string(s) + " is not positive; every extent must be >= 1"); }
      if (__builtin_mul_overflow(size, s, &size) || size > kMaxSize ||
          __builtin_mul_overflow(s > 0 ? s - 1 : 0, d < 0 ? -d : d, &term) || __builtin_add_overflow(co, term, &co) ||
          co > kMaxSize) {
        p_ = start;
        fail_msg("layout too large: its size or cosize exceeds 2^62 (the limit of sizes)");
      }
    }
    return l;
  }
  std::string s_;
  size_t p_ = 0;
};

// Whole-string parsers: the text must hold exactly one value.
inline IntTuple parse_int_tuple(const std::string& s) {
  LayoutParser p(s);
  IntTuple t = p.int_tuple();
  p.end();
  return t;
}
inline Layout parse_layout(const std::string& s) {
  LayoutParser p(s);
  Layout l = p.layout();
  p.end();
  return l;
}
inline Tiler parse_tiler(const std::string& s) {
  LayoutParser p(s);
  Tiler t = p.tiler();
  p.end();
  return t;
}
inline SwizzledLayout parse_swizzled(const std::string& s) {
  LayoutParser p(s);
  SwizzledLayout l = p.swizzled();
  p.end();
  return l;
}
// A layout or a by-mode tiler, whichever the text is.
inline std::variant<Layout, Tiler> parse_layout_or_tiler(const std::string& s) {
  LayoutParser p(s);
  if (p.at_tiler()) {
    Tiler t = p.tiler();
    p.end();
    return t;
  }
  Layout l = p.layout();
  p.end();
  return l;
}

}  // namespace tessera
