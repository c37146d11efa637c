// tools/main.cpp -- entry point of the `tessera` command: dispatch to a subcommand.
#include <algorithm>  // std::sort
#include <cstdio>     // std::printf
#include <cstring>    // std::strcmp

#include "command.hpp"  // registry

namespace tessera::cli {
std::vector<Command>& registry() {
  static std::vector<Command> commands;
  return commands;
}
}  // namespace tessera::cli

static void print_usage() {
  auto cmds = tessera::cli::registry();
  std::sort(cmds.begin(), cmds.end(), [](auto& a, auto& b) { return a.name < b.name; });
  std::printf("usage: tessera <command> [args...]\n\n"
              "Tessera: a layout algebra for GPU kernels, its kernels, and tools to see and measure them.\n\n"
              "commands:\n");
  for (auto& c : cmds) std::printf("  %-10s %s\n", c.name.c_str(), c.summary.c_str());
  std::printf("\n`tessera <command> --help` explains a command with examples.\n");
}

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    print_usage();
    return argc < 2 ? 2 : 0;
  }
  for (auto& c : tessera::cli::registry())
    if (c.name == argv[1]) return c.run(argc - 1, argv + 1);
  std::fprintf(stderr, "tessera: unknown command '%s' (see `tessera --help`)\n", argv[1]);
  return 2;
}
