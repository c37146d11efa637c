// tools/json_read.cpp -- the JSON reader of json_read.hpp: a recursive-descent parser.
#include "json_read.hpp"

#include <cstdlib>    // std::strtod
#include <stdexcept>  // std::invalid_argument

namespace tessera::json {

const Value* Value::find(const std::string& key) const {
  if (kind != Kind::object) return nullptr;
  const Value* found = nullptr;
  for (const auto& [k, v] : fields)
    if (k == key) found = &v;
  return found;
}

std::string Value::text(const std::string& key, const std::string& fallback) const {
  const Value* v = find(key);
  return v && v->kind == Kind::string ? v->string : fallback;
}

double Value::num(const std::string& key, double fallback) const {
  const Value* v = find(key);
  return v && v->kind == Kind::number ? v->number : fallback;
}

namespace {

constexpr int kMaxDepth = 64;

class Parser {
 public:
  explicit Parser(const std::string& t) : t_(t) {}

  Value document() {
    Value v = value(0);
    skip_space();
    if (pos_ != t_.size()) fail("end of input after the value");
    return v;
  }

 private:
  const std::string& t_;
  size_t pos_ = 0;

  [[noreturn]] void fail(const std::string& expected) const {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < pos_ && i < t_.size(); ++i) {
      if (t_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    std::string found = pos_ < t_.size() ? "'" + std::string(1, t_[pos_]) + "'" : "end of input";
    if (pos_ < t_.size() && static_cast<unsigned char>(t_[pos_]) < 0x20) found = "a control character";
    throw std::invalid_argument("json: line " + std::to_string(line) + ", column " + std::to_string(col) +
                                ": expected " + expected + ", found " + found);
  }

  void skip_space() {
    while (pos_ < t_.size() && (t_[pos_] == ' ' || t_[pos_] == '\t' || t_[pos_] == '\n' || t_[pos_] == '\r')) ++pos_;
  }

  bool take(char c) {
    if (pos_ < t_.size() && t_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  void word(const char* w) {
    for (const char* p = w; *p; ++p)
      if (!take(*p)) fail(std::string("'") + w + "'");
  }

  Value value(int depth) {
    if (depth >= kMaxDepth) fail("at most " + std::to_string(kMaxDepth) + " levels of nesting");
    skip_space();
    Value v;
    v.begin = pos_;
    if (pos_ >= t_.size()) fail("a value");
    const char c = t_[pos_];
    if (c == '{') {
      v.kind = Value::Kind::object;
      ++pos_;
      skip_space();
      if (!take('}')) {
        do {
          skip_space();
          if (pos_ >= t_.size() || t_[pos_] != '"') fail("a member name in double quotes");
          std::string key = string();
          skip_space();
          if (!take(':')) fail("':' after a member name");
          v.fields.emplace_back(std::move(key), value(depth + 1));
          skip_space();
        } while (take(','));
        if (!take('}')) fail("',' or '}' in an object");
      }
    } else if (c == '[') {
      v.kind = Value::Kind::array;
      ++pos_;
      skip_space();
      if (!take(']')) {
        do {
          v.items.push_back(value(depth + 1));
          skip_space();
        } while (take(','));
        if (!take(']')) fail("',' or ']' in an array");
      }
    } else if (c == '"') {
      v.kind = Value::Kind::string;
      v.string = string();
    } else if (c == 't') {
      word("true");
      v.kind = Value::Kind::boolean;
      v.boolean = true;
    } else if (c == 'f') {
      word("false");
      v.kind = Value::Kind::boolean;
    } else if (c == 'n') {
      word("null");
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      v.kind = Value::Kind::number;
      v.number = number();
    } else {
      fail("a value");
    }
    v.end = pos_;
    return v;
  }

  // RFC 8259 number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
  double number() {
    const size_t start = pos_;
    auto digits = [&] {
      const size_t d = pos_;
      while (pos_ < t_.size() && t_[pos_] >= '0' && t_[pos_] <= '9') ++pos_;
      if (pos_ == d) fail("a digit");
    };
    take('-');
    if (!take('0')) digits();
    if (take('.')) digits();
    if (take('e') || take('E')) {
      if (!take('+')) take('-');
      digits();
    }
    return std::strtod(t_.substr(start, pos_ - start).c_str(), nullptr);
  }

  unsigned hex4() {
    unsigned u = 0;
    for (int i = 0; i < 4; ++i) {
      if (pos_ >= t_.size()) fail("four hexadecimal digits after \\u");
      const char h = t_[pos_];
      const int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
      if (d < 0) fail("four hexadecimal digits after \\u");
      u = u * 16 + static_cast<unsigned>(d);
      ++pos_;
    }
    return u;
  }

  static void append_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  std::string string() {
    ++pos_;  // the opening quote
    std::string out;
    while (true) {
      if (pos_ >= t_.size()) fail("'\"' to close the string");
      const char c = t_[pos_];
      if (static_cast<unsigned char>(c) < 0x20) fail("a character of the string (control characters must be escaped)");
      ++pos_;
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= t_.size()) fail("an escape after '\\'");
      const char e = t_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00 && pos_ + 1 < t_.size() && t_[pos_] == '\\' && t_[pos_ + 1] == 'u') {
            pos_ += 2;
            const unsigned low = hex4();
            if (low < 0xDC00 || low >= 0xE000) fail("a low surrogate after a high surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          append_utf8(out, cp);
          break;
        }
        default:
          --pos_;
          fail("one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u");
      }
    }
  }
};

}  // namespace

Value parse(const std::string& text) { return Parser(text).document(); }

}  // namespace tessera::json
