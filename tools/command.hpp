// tools/command.hpp -- how a subcommand of `tessera` registers itself.
//
// Each tools/*.cpp file defines its commands with TESSERA_COMMAND; main.cpp
// dispatches on argv[1].  A command returns the process exit status.
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

}  // namespace tessera::cli

#define TESSERA_CLI_CAT2(a, b) a##b
#define TESSERA_CLI_CAT(a, b) TESSERA_CLI_CAT2(a, b)
// TESSERA_COMMAND("name", "summary", function)
#define TESSERA_COMMAND(name, summary, fn) \
  static ::tessera::cli::Registrar TESSERA_CLI_CAT(tessera_cmd_, __LINE__){::tessera::cli::Command{name, summary, fn}}
