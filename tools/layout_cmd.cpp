// tools/layout_cmd.cpp -- `tessera layout`: the layout calculator on the command line.
#include <cstdio>    // std::printf
#include <cstring>   // std::strcmp
#include <iostream>  // std::cin, std::getline
#include <string>    // std::string
#include <vector>    // std::vector

#include "command.hpp"          // TESSERA_COMMAND
#include "draw.hpp"             // run_layout_draw
#include "layout_ops.hpp"       // apply_layout_op, show_layout
#include "tessera/layout.hpp"   // LayoutError

namespace {

void layout_help() {
  std::printf(
      "usage: tessera layout <op> <args...>      compute one operation and print the result\n"
      "       tessera layout show <layout>       2-D table of indices (rank 1 or 2; Sw<B,M,S>o<layout> too)\n"
      "       tessera layout draw <layout> -o f.svg  SVG picture of the index grid (`tessera layout draw --help`)\n"
      "       tessera layout --batch             read lines op<TAB>arg1[<TAB>arg2] on stdin, print one\n"
      "                                          result line each (or `error: <message>`)\n\n"
      "Text form (CuTe's):  shape:stride, e.g. (4,8):(8,1)  ((2,2),8):((1,16),2)  8:2;  a shape alone is\n"
      "column-major; spaces and CuTe's underscores (_4) are accepted.  Tilers: <4,(2,2):(1,8)> (an integer n\n"
      "means n:1).  Swizzles: Sw<B,M,S>o<layout>.  Quote arguments in the shell: they contain parentheses.\n\n"
      "operations (with an example):\n");
  for (const auto& op : tessera::cli::layout_ops()) {
    std::string ex = "tessera layout " + std::string(op.name) + " ";
    std::string a = op.example;
    // quote each space-separated argument
    std::string quoted;
    size_t p = 0;
    while (p < a.size()) {
      size_t q = a.find(' ', p);
      if (q == std::string::npos) q = a.size();
      quoted += (quoted.empty() ? "'" : " '") + a.substr(p, q - p) + "'";
      p = q + 1;
    }
    std::string result;
    try {
      std::vector<std::string> args;
      size_t s = 0;
      while (s < a.size()) {
        size_t q = a.find(' ', s);
        if (q == std::string::npos) q = a.size();
        args.push_back(a.substr(s, q - s));
        s = q + 1;
      }
      result = tessera::cli::apply_layout_op(op.name, args);
    } catch (const std::exception& e) {
      result = std::string("error: ") + e.what();
    }
    std::printf("  %-18s %-14s %s\n  %18s   $ %s%s\n  %18s   %s\n\n", op.name, op.args, op.summary, "", ex.c_str(),
                quoted.c_str(), "", result.c_str());
  }
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

int run_batch() {
  std::string line;
  int errors = 0;
  while (std::getline(std::cin, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::vector<std::string> f = tessera::cli::split_tabs(line);
    try {
      if (f.empty() || f[0].empty()) throw std::invalid_argument("empty line: expected op<TAB>arg1[<TAB>arg2]");
      std::vector<std::string> args(f.begin() + 1, f.end());
      std::string out = f[0] == "show" ? tessera::cli::show_layout(args.size() == 1 ? args[0] : "") : tessera::cli::apply_layout_op(f[0], args);
      for (char& c : out)
        if (c == '\n') c = ' ';
      std::printf("%s\n", out.c_str());
    } catch (const std::exception& e) {
      std::string m = e.what();
      for (char& c : m)
        if (c == '\n' || c == '\t') c = ' ';
      std::printf("error: %s\n", m.c_str());
      ++errors;
    }
  }
  std::fflush(stdout);
  return 0;
}

int run_layout(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    layout_help();
    return argc < 2 ? 2 : 0;
  }
  if (!std::strcmp(argv[1], "--batch")) return run_batch();
  if (!std::strcmp(argv[1], "draw")) return tessera::cli::run_layout_draw(argc - 1, argv + 1);
  std::string op = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  try {
    if (op == "show") {
      if (args.size() != 1) throw std::invalid_argument("show: expected 1 argument (a layout), got " + std::to_string(args.size()));
      std::printf("%s", tessera::cli::show_layout(args[0]).c_str());
    } else {
      std::printf("%s\n", tessera::cli::apply_layout_op(op, args).c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace

TESSERA_COMMAND("layout", "compute layout algebra: composition, complement, divide, product, show ...", run_layout);
