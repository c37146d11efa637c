// tools/json_read.hpp -- a small JSON reader for the files the `tessera` command writes itself
// (bench/results/*.json, roofline and scorecard documents), so that saved results can be scored
// again without a GPU (`tessera scorecard`).
//
// parse() reads a whole document (RFC 8259: objects, arrays, strings with escapes, numbers, true,
// false, null) into a tree of Values.  Every value remembers where it lies in the text
// ([begin, end) byte offsets), so that a part of one document can be copied into another verbatim.
// Malformed input is an error that names the line and column, never a partial tree.
#pragma once

#include <cstddef>  // size_t
#include <string>   // std::string
#include <utility>  // std::pair
#include <vector>   // std::vector

namespace tessera::json {

struct Value {
  enum class Kind { null, boolean, number, string, array, object };
  Kind kind = Kind::null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Value> items;                           // array elements
  std::vector<std::pair<std::string, Value>> fields;  // object members, in document order
  size_t begin = 0, end = 0;                          // the value's bytes in the parsed text

  bool is_object() const { return kind == Kind::object; }
  bool is_array() const { return kind == Kind::array; }
  // The member `key` of an object (the last one if repeated); nullptr when absent or not an object.
  const Value* find(const std::string& key) const;
  // The string member `key`, or `fallback` when it is absent or not a string.
  std::string text(const std::string& key, const std::string& fallback = "") const;
  // The number member `key`, or `fallback` when it is absent or not a number.
  double num(const std::string& key, double fallback = 0) const;
};

// Parses a JSON document (one value, surrounded by optional white space).
// Requires: nesting at most 64 levels deep.
// Throws std::invalid_argument("json: line L, column C: <what was expected>") on malformed input.
Value parse(const std::string& text);

}  // namespace tessera::json
