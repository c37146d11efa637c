// tools/layout_ops.cpp -- implementation of the layout calculator.
#include "layout_ops.hpp"

#include <cstdio>     // std::snprintf
#include <stdexcept>  // std::invalid_argument
#include <variant>    // std::visit

#include "tessera/layout.hpp"  // the algebra and its text form

namespace tessera::cli {

const std::vector<LayoutOp>& layout_ops() {
  static const std::vector<LayoutOp> ops = {
      {"size", "L", "(4,8):(8,1)", "number of elements in the domain"},
      {"cosize", "L", "(4,8):(8,2)", "1 + largest index (extent of the codomain)"},
      {"rank", "L", "((2,2),8):((1,16),2)", "number of top-level modes"},
      {"depth", "L", "((2,2),8):((1,16),2)", "nesting depth (0 for an integer layout)"},
      {"coalesce", "L", "(2,(1,6)):(1,(6,2))", "same function with the fewest modes"},
      {"filter", "L", "(4,2,3):(1,0,4)", "coalesce after dropping stride-0 and size-1 modes"},
      {"composition", "A B|<tiler>", "(6,2):(8,2) (4,3):(3,1)", "A o B: c -> A(B(c))"},
      {"complement", "L [cotarget]", "4:2 24", "layout of what L does not reach in [0,cotarget)"},
      {"right_inverse", "L", "(4,8):(8,1)", "largest R with L(R(i)) = i"},
      {"left_inverse", "L", "(4,8):(8,1)", "R with R(L(i)) = i"},
      {"logical_divide", "L T|<tiler>", "(8,6):(1,8) <2,3>", "(tile, rest) split of L by T"},
      {"zipped_divide", "L T|<tiler>", "(8,6):(1,8) <2,3>", "((tiles),(rests))"},
      {"tiled_divide", "L T|<tiler>", "(8,6):(1,8) <2,3>", "((tiles),rest0,rest1,...)"},
      {"flat_divide", "L T|<tiler>", "(8,6):(1,8) <2,3>", "(tile0,tile1,...,rest0,rest1,...)"},
      {"logical_product", "A B|<tiler>", "(2,2):(1,2) 3:1", "(A, copies of A arranged by B)"},
      {"zipped_product", "A B|<tiler>", "(2,2):(1,2) <3,2>", "((blocks),(repeats))"},
      {"tiled_product", "A B|<tiler>", "(2,2):(1,2) <3,2>", "((blocks),repeat0,repeat1,...)"},
      {"flat_product", "A B|<tiler>", "(2,2):(1,2) <3,2>", "(block0,...,repeat0,...)"},
      {"blocked_product", "A B", "(2,2):(1,2) (3,2):(1,3)", "B's grid of whole A blocks, by mode"},
      {"raked_product", "A B", "(2,2):(1,2) (3,2):(1,3)", "B's grid with A's elements interleaved"},
      {"max_common_vector", "A B", "(4,8):(1,4) 32:1", "number of contiguous elements A and B agree on"},
      {"max_common_layout", "A B", "(4,8):(1,4) 32:1", "layout of those elements"},
      {"values", "L|Sw<B,M,S>oL", "Sw<1,0,1>o(2,2):(1,2)", "L(0),L(1),...,L(size-1)"},
      {"idx2crd", "L i", "((2,2),3):((1,2),4) 7", "natural coordinate of 1-D index i"},
      {"crd2idx", "L c", "((2,2),3):((1,2),4) ((1,1),2)", "index of coordinate c (L(c))"},
  };
  return ops;
}

namespace {

void need_args(const std::string& op, const std::vector<std::string>& args, size_t lo, size_t hi) {
  if (args.size() < lo || args.size() > hi) {
    std::string want = lo == hi ? std::to_string(lo) : std::to_string(lo) + " or " + std::to_string(hi);
    throw std::invalid_argument(op + ": expected " + want + " argument" + (hi == 1 ? "" : "s") + ", got " +
                                std::to_string(args.size()));
  }
}

// Requires: coordinate c lies in the domain of `shape`: an integer is a 1-D index in
// [0, size(shape)); a tuple has the rank of the shape and each element lies in its mode.  (The
// algebra evaluates coordinates past the domain as CuTe does; the calculator rejects them, as
// idx2crd rejects indices outside [0, size).)
void check_coordinate(const IntTuple& c, const IntTuple& shape, const std::string& where) {
  const std::string at = where.empty() ? "" : " of mode " + where;
  if (c.is_leaf()) {
    const Int n = product(shape), v = c.value();
    if (v < 0 || v >= n)
      throw std::invalid_argument("crd2idx: coordinate " + std::to_string(v) + at + " is outside [0, " +
                                  std::to_string(n) + ")");
    return;
  }
  if (!shape.is_tuple() || c.rank() != shape.rank())
    throw std::invalid_argument("crd2idx: coordinate " + to_string(c) + at + " has rank " + std::to_string(c.rank()) +
                                " but the shape " + to_string(shape) + " has rank " + std::to_string(shape.rank()) +
                                (shape.is_leaf() ? " (an integer mode takes an integer coordinate)" : ""));
  for (int m = 0; m < c.rank(); ++m)
    check_coordinate(c.get(m), shape.get(m), where.empty() ? std::to_string(m) : where + "." + std::to_string(m));
}

// A word of the command line in a message: 'word', or a bounded, escaped excerpt of it.
std::string quote_word(const std::string& w) {
  bool plain = w.size() <= 40;
  for (char c : w) plain = plain && c >= 0x20 && c < 0x7f && c != '\'';
  return plain ? "'" + w + "'" : text_excerpt(w, 0, 40);
}

// `values` prints every L(i): at most 2^20 of them (a few megabytes of text).
void check_values_limit(Int n) {
  constexpr Int kLimit = Int(1) << 20;
  if (n > kLimit)
    throw std::invalid_argument("values: too large to list: " + std::to_string(n) + " elements, limit " +
                                std::to_string(kLimit));
}

template <class F>
std::string binary_layout_or_tiler(const std::string& a, const std::string& b, F f) {
  Layout l = parse_layout(a);
  auto t = parse_layout_or_tiler(b);
  return std::visit([&](const auto& tt) { return to_string(f(l, tt)); }, t);
}

}  // namespace

std::string apply_layout_op(const std::string& op, const std::vector<std::string>& args) {
  auto is = [&](const char* n) { return op == n; };
  if (is("size") || is("cosize") || is("rank") || is("depth")) {
    need_args(op, args, 1, 1);
    Layout l = parse_layout(args[0]);
    Int v = is("size") ? size(l) : is("cosize") ? cosize(l) : is("rank") ? rank(l) : depth(l);
    return std::to_string(v);
  }
  if (is("coalesce") || is("filter") || is("right_inverse") || is("left_inverse")) {
    need_args(op, args, 1, 2);
    Layout l = parse_layout(args[0]);
    if (is("coalesce")) return to_string(args.size() == 2 ? coalesce(l, parse_int_tuple(args[1])) : coalesce(l));
    need_args(op, args, 1, 1);
    if (is("filter")) return to_string(filter(l));
    if (is("right_inverse")) return to_string(right_inverse(l));
    return to_string(left_inverse(l));
  }
  if (is("composition")) {
    need_args(op, args, 2, 2);
    return binary_layout_or_tiler(args[0], args[1], [](const Layout& l, const auto& t) { return composition(l, t); });
  }
  if (is("complement")) {
    need_args(op, args, 1, 2);
    Layout l = parse_layout(args[0]);
    return to_string(args.size() == 1 ? complement(l) : complement(l, parse_int_tuple(args[1])));
  }
#define TESSERA_TILER_OP(NAME)                                                                                 \
  if (is(#NAME)) {                                                                                             \
    need_args(op, args, 2, 2);                                                                                 \
    return binary_layout_or_tiler(args[0], args[1], [](const Layout& l, const auto& t) { return NAME(l, t); }); \
  }
  TESSERA_TILER_OP(logical_divide)
  TESSERA_TILER_OP(zipped_divide)
  TESSERA_TILER_OP(tiled_divide)
  TESSERA_TILER_OP(flat_divide)
  TESSERA_TILER_OP(logical_product)
  TESSERA_TILER_OP(zipped_product)
  TESSERA_TILER_OP(tiled_product)
  TESSERA_TILER_OP(flat_product)
#undef TESSERA_TILER_OP
  if (is("blocked_product") || is("raked_product") || is("max_common_layout")) {
    need_args(op, args, 2, 2);
    Layout a = parse_layout(args[0]), b = parse_layout(args[1]);
    return to_string(is("blocked_product") ? blocked_product(a, b)
                     : is("raked_product") ? raked_product(a, b)
                                           : max_common_layout(a, b));
  }
  if (is("max_common_vector")) {
    need_args(op, args, 2, 2);
    return std::to_string(max_common_vector(parse_layout(args[0]), parse_layout(args[1])));
  }
  if (is("values")) {
    need_args(op, args, 1, 1);
    std::string out;
    LayoutParser probe(args[0]);
    if (probe.at_swizzle()) {
      SwizzledLayout sl = parse_swizzled(args[0]);
      Int n = size(sl.layout);
      check_values_limit(n);
      for (Int i = 0; i < n; ++i) out += (i ? "," : "") + std::to_string(sl(i));
    } else {
      Layout l = parse_layout(args[0]);
      Int n = size(l);
      check_values_limit(n);
      for (Int i = 0; i < n; ++i) out += (i ? "," : "") + std::to_string(l(i));
    }
    return out;
  }
  if (is("idx2crd")) {
    need_args(op, args, 2, 2);
    Layout l = parse_layout(args[0]);
    LayoutParser p(args[1]);
    Int i = p.integer();
    p.end();
    if (i < 0 || i >= size(l))
      throw std::invalid_argument("idx2crd: index " + std::to_string(i) + " is outside [0, " +
                                  std::to_string(size(l)) + ")");
    return to_string(idx2crd(i, l.shape));
  }
  if (is("crd2idx")) {
    need_args(op, args, 2, 2);
    Layout l = parse_layout(args[0]);
    IntTuple c = parse_int_tuple(args[1]);
    check_coordinate(c, l.shape, "");
    return std::to_string(l(c));
  }
  throw std::invalid_argument("unknown operation " + quote_word(op) + " (see `tessera layout --help`)");
}

const LayoutOp* find_layout_op(const std::string& name) {
  for (const LayoutOp& o : layout_ops())
    if (name == o.name) return &o;
  return nullptr;
}

std::string json_string(const std::string& text) {
  std::string o = "\"";
  const char* hex = "0123456789abcdef";
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const int n = detail::utf8_length(text, i);
    if (c == '"' || c == '\\') {
      o += '\\';
      o += static_cast<char>(c);
    } else if (c == '\n') {
      o += "\\n";
    } else if (c == '\t') {
      o += "\\t";
    } else if (c < 0x20 || c == 0x7f || (c >= 0x80 && n == 0)) {
      o += "\\u00";
      o += hex[c >> 4];
      o += hex[c & 15];
    } else if (c >= 0x80) {
      o += text.substr(i, static_cast<size_t>(n));
      i += static_cast<size_t>(n);
      continue;
    } else {
      o += static_cast<char>(c);
    }
    ++i;
  }
  return o + "\"";
}

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> f;
  size_t p = 0;
  for (;;) {
    const size_t q = line.find('\t', p);
    f.push_back(line.substr(p, q == std::string::npos ? std::string::npos : q - p));
    if (q == std::string::npos) break;
    p = q + 1;
  }
  return f;
}

std::string show_layout(const std::string& text) {
  LayoutParser probe(text);
  bool sw = probe.at_swizzle();
  SwizzledLayout sl = sw ? parse_swizzled(text) : SwizzledLayout{Swizzle{0, 0, 0}, parse_layout(text)};
  const Layout& l = sl.layout;
  if (rank(l) > 2)
    throw std::invalid_argument("show: layout has rank " + std::to_string(rank(l)) +
                                "; show draws rank 1 or 2 (group modes into two first)");
  Int rows = rank(l) == 2 ? product(l.shape.get(0)) : 1;
  Int cols = rank(l) == 2 ? product(l.shape.get(1)) : size(l);
  if (rows * cols > 65536) throw std::invalid_argument("show: layout has more than 65536 elements");
  size_t widest = 1;  // printed width of the widest index (with its sign)
  for (Int i = 0; i < rows * cols; ++i) widest = std::max(widest, std::to_string(sl(i)).size());
  int w = static_cast<int>(widest) + 1;
  int rw = static_cast<int>(std::to_string(rows).size());
  std::string out = sw ? to_string(sl) + "\n" : to_string(l) + "\n";
  auto pad = [](Int v, int width) {
    std::string s = std::to_string(v);
    return std::string(width > static_cast<int>(s.size()) ? width - s.size() : 0, ' ') + s;
  };
  out += std::string(rw + 3, ' ');
  for (Int j = 0; j < cols; ++j) out += " " + pad(j, w) + " ";
  out += "\n";
  std::string sep = std::string(rw + 2, ' ') + "+";
  for (Int j = 0; j < cols; ++j) sep += std::string(w + 1, '-') + "+";
  out += sep + "\n";
  for (Int i = 0; i < rows; ++i) {
    out += " " + pad(i, rw) + " |";
    for (Int j = 0; j < cols; ++j) {
      Int v = rank(l) == 2 ? sl(make_tuple(i, j)) : sl(j);
      out += pad(v, w) + " |";
    }
    out += "\n" + sep + "\n";
  }
  return out;
}

}  // namespace tessera::cli
