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
// as _4).  Malformed text raises LayoutError "column C: expected ..., found ...".
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

// ---------------------------------------------------------------- parsing
class LayoutParser {
 public:
  explicit LayoutParser(std::string text) : s_(std::move(text)) {}

  IntTuple int_tuple() {
    skip_space();
    if (peek() == '(') {
      ++p_;
      IntTuple t = IntTuple::empty_tuple();
      skip_space();
      if (peek() == ')') fail("an integer or '('");
      for (;;) {
        IntTuple e = int_tuple();
        if (t.nodes + e.nodes > IntTuple::kMaxNodes)
          fail_msg("over capacity: a shape or stride holds at most " + std::to_string(IntTuple::kMaxNodes) +
                   " nodes (integers plus tuples)");
        t.push_back(e);
        skip_space();
        if (peek() == ',') { ++p_; continue; }
        if (peek() == ')') { ++p_; break; }
        fail("',' or ')'");
      }
      return t;
    }
    return IntTuple::leaf(integer());
  }

  Int integer() {
    skip_space();
    while (peek() == '_') ++p_;
    bool neg = false;
    if (peek() == '-') { neg = true; ++p_; }
    while (peek() == '_') ++p_;
    if (!std::isdigit(static_cast<unsigned char>(peek()))) fail("an integer");
    Int v = 0;
    size_t start = p_;
    while (std::isdigit(static_cast<unsigned char>(peek()))) {
      if (v > (Int(1) << 48)) {
        p_ = start;
        fail_msg("integer too large (at most 2^48)");
      }
      v = v * 10 + (s_[p_++] - '0');
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
    sw.b = static_cast<int>(integer());
    skip_space(); expect(',');
    sw.m = static_cast<int>(integer());
    skip_space(); expect(',');
    sw.s = static_cast<int>(integer());
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
    std::string found = p_ < s_.size() ? "'" + std::string(1, s_[p_]) + "'" : "end of input";
    fail_msg("expected " + expected + ", found " + found);
  }
  [[noreturn]] void fail_msg(const std::string& msg) {
    throw LayoutError("column " + std::to_string(p_ + 1) + ": " + msg + " in \"" + s_ + "\"");
  }
  // Rejects layouts whose size or cosize does not fit the index type.
  Layout checked(const Layout& l, size_t start) {
    Int size = 1, co = 1;
    for (int k = 0; k < l.shape.nodes; ++k) {
      if (l.shape.arity[k] >= 0) continue;
      Int s = l.shape.val[k], d = l.stride.val[k];
      Int term = 0;
      if (s < 1) { p_ = start; fail_msg("shape " + std::to_string(s) + " is not positive; every extent must be >= 1"); }
      if (__builtin_mul_overflow(size, s, &size) || size > (Int(1) << 62) ||
          __builtin_mul_overflow(s > 0 ? s - 1 : 0, d < 0 ? -d : d, &term) || __builtin_add_overflow(co, term, &co) ||
          co > (Int(1) << 62)) {
        p_ = start;
        fail_msg("layout too large: its size or cosize exceeds 2^62");
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
