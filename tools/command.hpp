// tools/command.hpp -- how a subcommand of `tessera` registers itself, and how the host command
// reaches the GPU one.
//
// Each tools/*.cpp file defines its commands with TESSERA_COMMAND; main.cpp (the host `tessera`)
// and gpu_main.cpp (`tessera-gpu`) dispatch on argv[1].  A command returns the process exit status.
#pragma once

#include <string>   // std::string
#include <vector>   // std::vector

namespace tessera::cli {

struct Command {
  std::string name;     // first word on the command line, e.g. "layout"
  std::string summary;  // one line for `tessera --help`
  int (*run)(int argc, char** argv);  // argv[0] is the command name
};

std::vector<Command>& registry();

struct Registrar {
  explicit Registrar(Command c) { registry().push_back(std::move(c)); }
};

// ---- host `tessera` only (defined in main.cpp) ----
// Path of the GPU executable `tessera-gpu` beside this one ("" when it is not there, e.g. in a
// build without CUDA).  TESSERA_GPU_EXE in the environment overrides it.
std::string gpu_executable();
// Runs `tessera-gpu <args...>` in place of this process; returns (with a message printed) only
// when it cannot be started.
int exec_gpu(const std::vector<std::string>& args);
// True when `tessera-gpu --probe-gpu` reports a CUDA device (false without tessera-gpu).
bool gpu_present();

}  // namespace tessera::cli

#define TESSERA_CLI_CAT2(a, b) a##b
#define TESSERA_CLI_CAT(a, b) TESSERA_CLI_CAT2(a, b)
// TESSERA_COMMAND("name", "summary", function)
#define TESSERA_COMMAND(name, summary, fn) \
  static ::tessera::cli::Registrar TESSERA_CLI_CAT(tessera_cmd_, __LINE__){::tessera::cli::Command{name, summary, fn}}
