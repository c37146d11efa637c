// tools/layout_cmd.cpp -- `tessera layout`: the layout calculator on the command line.
//
//   tessera layout <op> <args...> [--json]     one operation; --json prints {"op":..,"result":..}
//   tessera layout <op> --help                 that operation, with an example
//   tessera layout --batch [--json]            one line of output per line of input
//   tessera layout draw ...                    (tools/draw.cpp)
#include <cstdio>    // std::printf
#include <cstring>   // std::strcmp
#include <iostream>  // std::cin, std::getline
#include <set>       // std::set
#include <string>    // std::string
#include <vector>    // std::vector

#include "command.hpp"          // TESSERA_COMMAND
#include "draw.hpp"             // run_layout_draw
#include "layout_ops.hpp"       // apply_layout_op, show_layout, json_string
#include "tessera/layout.hpp"   // LayoutError, text_excerpt

namespace {

using tessera::cli::json_string;

std::vector<std::string> split_spaces(const std::string& a) {
  std::vector<std::string> args;
  size_t s = 0;
  while (s < a.size()) {
    size_t q = a.find(' ', s);
    if (q == std::string::npos) q = a.size();
    args.push_back(a.substr(s, q - s));
    s = q + 1;
  }
  return args;
}

// One operation as the help lists it: synopsis, summary, an example and its answer.
void print_op(const tessera::cli::LayoutOp& op) {
  std::string quoted;
  for (const std::string& a : split_spaces(op.example)) quoted += (quoted.empty() ? "'" : " '") + a + "'";
  std::string result;
  try {
    result = tessera::cli::apply_layout_op(op.name, split_spaces(op.example));
  } catch (const std::exception& e) {
    result = std::string("error: ") + e.what();
  }
  std::printf("  %-18s %-14s %s\n  %18s   $ tessera layout %s %s\n  %18s   %s\n\n", op.name, op.args, op.summary, "",
              op.name, quoted.c_str(), "", result.c_str());
}

void layout_help() {
  std::printf(
      "usage: tessera layout <op> <args...> [--json]  compute one operation and print the result\n"
      "       tessera layout <op> --help              explain one operation, with an example\n"
      "       tessera layout show <layout>            2-D table of indices (rank 1 or 2; Sw<B,M,S>o<layout> too)\n"
      "       tessera layout draw <layout> -o f.svg   SVG picture of the index grid (`tessera layout draw --help`)\n"
      "       tessera layout --batch [--json]         read lines op<TAB>arg1[<TAB>arg2] on stdin, print one\n"
      "                                               result line each (or `error: <message>`)\n\n"
      "--json prints each answer as one JSON object: {\"op\":\"size\",\"result\":\"32\"} or\n"
      "{\"op\":\"size\",\"error\":\"...\"} (the exit status is 1 on an error, as without --json).\n\n"
      "Text form (CuTe's):  shape:stride, e.g. (4,8):(8,1)  ((2,2),8):((1,16),2)  8:2;  a shape alone is\n"
      "column-major; spaces and CuTe's underscores (_4) are accepted.  Tilers: <4,(2,2):(1,8)> (an integer n\n"
      "means n:1).  Swizzles: Sw<B,M,S>o<layout>.  Quote arguments in the shell: they contain parentheses.\n"
      "Limits: integers up to 2^48 in magnitude, 64 nodes and 16 levels of nesting per shape or stride,\n"
      "sizes up to 2^62 (docs/LAYOUT.md, \"Limits\").\n\n"
      "operations (with an example):\n");
  for (const auto& op : tessera::cli::layout_ops()) print_op(op);
  std::printf("errors name the problem: e.g. `tessera layout composition '(6,4):(1,10)' 4:4` ->\n  error: %s\n",
              [] {
                try {
                  tessera::cli::apply_layout_op("composition", {"(6,4):(1,10)", "4:4"});
                } catch (const std::exception& e) {
                  static std::string m;
                  m = e.what();
                  return m.c_str();
                }
                return "";
              }());
}

void show_help() {
  std::printf("usage: tessera layout show <layout> [--json]\n\n"
              "A 2-D table of the indices of a rank-1 or rank-2 layout (at most 65536 elements): rows are mode 0,\n"
              "columns mode 1.  A swizzled layout Sw<B,M,S>o<layout> shows the swizzled indices.\n\n"
              "  $ tessera layout show '(4,8):(8,1)'\n%s",
              tessera::cli::show_layout("(4,8):(8,1)").c_str());
}

// The answer of one operation; throws with a message on any problem.
std::string answer(const std::string& op, const std::vector<std::string>& args) {
  if (op == "show") {
    if (args.size() != 1)
      throw std::invalid_argument("show: expected 1 argument (a layout), got " + std::to_string(args.size()));
    return tessera::cli::show_layout(args[0]);
  }
  return tessera::cli::apply_layout_op(op, args);
}

std::string json_line(const std::string& op, const std::string& key, const std::string& value) {
  const std::string shown_op = op.size() > 40 ? op.substr(0, 40) + "..." : op;
  return "{\"op\":" + json_string(shown_op) + ",\"" + key + "\":" + json_string(value) + "}";
}

int run_batch(bool json) {
  std::string line;
  while (std::getline(std::cin, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::vector<std::string> f = tessera::cli::split_tabs(line);
    const std::string op = f.empty() ? "" : f[0];
    try {
      if (op.empty()) throw std::invalid_argument("empty line: expected op<TAB>arg1[<TAB>arg2]");
      std::string out = answer(op, std::vector<std::string>(f.begin() + 1, f.end()));
      if (json) {
        std::printf("%s\n", json_line(op, "result", out).c_str());
      } else {
        for (char& c : out)
          if (c == '\n') c = ' ';
        std::printf("%s\n", out.c_str());
      }
    } catch (const std::exception& e) {
      std::string m = e.what();
      if (json) {
        std::printf("%s\n", json_line(op, "error", m).c_str());
      } else {
        for (char& c : m)
          if (c == '\n' || c == '\t') c = ' ';
        std::printf("error: %s\n", m.c_str());
      }
    }
  }
  std::fflush(stdout);
  return 0;
}

int run_layout(int argc, char** argv) {
  if (argc >= 2 && !std::strcmp(argv[1], "draw")) return tessera::cli::run_layout_draw(argc - 1, argv + 1);
  // Options start with "--" (or are -h); a layout or coordinate never does ("-1" is an argument).
  std::set<std::string> flags;
  std::vector<std::string> pos;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h") {
      flags.insert("--help");
      continue;
    }
    if (a.rfind("--", 0) != 0) {
      pos.push_back(a);
      continue;
    }
    if (a != "--help" && a != "--json" && a != "--batch") {
      std::fprintf(stderr, "layout: unknown option %s (options: --help, --json, --batch)\n",
                   tessera::text_excerpt(a, 0, 40).c_str());
      return 2;
    }
    if (!flags.insert(a).second) {
      std::fprintf(stderr, "layout: option '%s' given twice\n", a.c_str());
      return 2;
    }
  }
  const bool json = flags.count("--json") > 0;
  if (flags.count("--help")) {
    if (pos.empty() || flags.count("--batch")) {
      layout_help();
    } else if (pos[0] == "show") {
      show_help();
    } else if (const auto* op = tessera::cli::find_layout_op(pos[0])) {
      std::printf("usage: tessera layout %s %s [--json]\n\n", op->name, op->args);
      print_op(*op);
      std::printf("(`tessera layout --help` lists every operation and the text form.)\n");
    } else {
      std::fprintf(stderr, "layout: unknown operation %s (see `tessera layout --help`)\n",
                   tessera::text_excerpt(pos[0], 0, 40).c_str());
      return 2;
    }
    return 0;
  }
  if (flags.count("--batch")) {
    if (!pos.empty()) {
      std::fprintf(stderr, "layout: --batch reads its operations from standard input; unexpected argument %s\n",
                   tessera::text_excerpt(pos[0], 0, 40).c_str());
      return 2;
    }
    return run_batch(json);
  }
  if (pos.empty()) {
    layout_help();
    return 2;
  }
  const std::string op = pos[0];
  try {
    const std::string out = answer(op, std::vector<std::string>(pos.begin() + 1, pos.end()));
    if (json) {
      std::printf("%s\n", json_line(op, "result", out).c_str());
    } else {
      std::printf(op == "show" ? "%s" : "%s\n", out.c_str());
    }
  } catch (const std::exception& e) {
    if (json) {
      std::printf("%s\n", json_line(op, "error", e.what()).c_str());
    } else {
      std::fprintf(stderr, "error: %s\n", e.what());
    }
    return 1;
  }
  return 0;
}

}  // namespace

TESSERA_COMMAND("layout", "compute layout algebra: composition, complement, divide, product, show ...", run_layout);
