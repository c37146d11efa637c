// tools/layout_ops.hpp -- the layout calculator behind `tessera layout`: one operation
// on text arguments, one line of text back (the format of the layout-cases files).
#pragma once

#include <string>  // std::string
#include <vector>  // std::vector

namespace tessera::cli {

struct LayoutOp {
  const char* name;
  const char* args;     // argument synopsis
  const char* example;  // an example invocation's arguments
  const char* summary;
};

// All operations, in the order `--help` lists them.
const std::vector<LayoutOp>& layout_ops();

// Applies operation `op` to its text arguments; returns the printed result.
// Throws tessera::LayoutError (bad text or inadmissible operation) or std::invalid_argument
// (unknown op, wrong number of arguments) with a message naming the problem.
std::string apply_layout_op(const std::string& op, const std::vector<std::string>& args);

// 2-D table of a rank-1 or rank-2 layout (or Sw<..>o layout), as CuTe's print_layout.
std::string show_layout(const std::string& text);

// The tab-separated fields of one `--batch` line (op<TAB>arg1[<TAB>arg2]); an empty line gives one
// empty field.
std::vector<std::string> split_tabs(const std::string& line);

// The operation named `name`, or nullptr.
const LayoutOp* find_layout_op(const std::string& name);

// `text` as a JSON string literal (quotes included): '"', '\\' and control characters escaped,
// bytes that are not UTF-8 written as \u00XX, so the output is always valid JSON.
std::string json_string(const std::string& text);

}  // namespace tessera::cli
