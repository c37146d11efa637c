// tools/gpu_main.cpp -- entry point of `tessera-gpu`, the GPU half of the `tessera` command: the
// benchmark suites (`bench`), `roofline`, and the benchmark run of the main job (`main`,
// tools/main_job.cpp).  The host `tessera` runs it for those commands (tools/main.cpp); it can
// also be run directly.
#include <cuda_runtime.h>  // cudaGetDeviceCount

#include <algorithm>  // std::sort
#include <cstdio>     // std::printf
#include <cstring>    // std::strcmp
#include <string>     // std::string

#include "command.hpp"  // registry, TESSERA_COMMAND

#ifndef TESSERA_VERSION
#error "TESSERA_VERSION must be defined by the build (tools/CMakeLists.txt passes the project version)"
#endif

namespace tessera::cli {
std::vector<Command>& registry() {
  static std::vector<Command> commands;
  return commands;
}
}  // namespace tessera::cli

int main(int argc, char** argv) {
  if (argc >= 2 && !std::strcmp(argv[1], "--probe-gpu")) {  // exit status 0 iff a CUDA device is present
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess && n > 0 ? 0 : 1;
  }
  if (argc >= 2 && !std::strcmp(argv[1], "--version")) {
    std::printf("tessera-gpu %s\n", TESSERA_VERSION);
    return 0;
  }
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    auto cmds = tessera::cli::registry();
    std::sort(cmds.begin(), cmds.end(), [](auto& a, auto& b) { return a.name < b.name; });
    std::printf("usage: tessera-gpu <command> [args...]   (usually run through `tessera <command>`)\n\ncommands:\n");
    for (auto& c : cmds) std::printf("  %-10s %s\n", c.name.c_str(), c.summary.c_str());
    return argc < 2 ? 2 : 0;
  }
  for (auto& c : tessera::cli::registry())
    if (c.name == argv[1]) return c.run(argc - 1, argv + 1);
  std::fprintf(stderr, "tessera-gpu: unknown command '%.40s' (see `tessera-gpu --help`)\n", argv[1]);
  return 2;
}
