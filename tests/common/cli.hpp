// tests/common/cli.hpp -- run a command line and keep its exit status and output (stdout and stderr).
#pragma once

#include <sys/wait.h>  // WIFEXITED, WEXITSTATUS

#include <array>   // std::array
#include <cstdio>  // popen, pclose, fread
#include <string>  // std::string

namespace tessera::test {

struct CliRun {
  int status = -1;  // exit status; -1 when it did not exit normally
  std::string out;  // stdout and stderr
};

// Runs `command` through the shell with stderr joined to stdout.
inline CliRun run_command(const std::string& command) {
  CliRun r;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

inline bool has(const CliRun& r, const std::string& s) { return r.out.find(s) != std::string::npos; }

}  // namespace tessera::test
