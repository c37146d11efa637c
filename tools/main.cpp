// tools/main.cpp -- entry point of the host `tessera` command: dispatch to a subcommand, and hand
// the GPU commands (bench, roofline) to `tessera-gpu`, the executable beside this one that links
// the kernels, cudart and cuBLAS.  This one links none of them, so a layout command starts and
// answers in milliseconds and builds without a CUDA toolkit.
#include <spawn.h>     // posix_spawn
#include <sys/wait.h>  // waitpid
#include <unistd.h>    // execv, readlink, access

#include <algorithm>  // std::sort
#include <cerrno>     // errno
#include <cstdio>     // std::printf
#include <cstdlib>    // std::getenv
#include <cstring>    // std::strcmp, std::strerror

#include "bench_suites.hpp"  // is_suite_name, suite_list
#include "command.hpp"       // registry, gpu_executable

#ifndef TESSERA_VERSION
#error "TESSERA_VERSION must be defined by the build (tools/CMakeLists.txt passes the project version)"
#endif

extern char** environ;

namespace tessera::cli {

std::vector<Command>& registry() {
  static std::vector<Command> commands;
  return commands;
}

namespace {
// The commands that tessera-gpu runs, for `tessera --help` and forwarding.
struct GpuCommand {
  const char* name;
  const char* summary;
};
constexpr GpuCommand kGpuCommands[] = {
    {"bench", "benchmark kernels against cudaMemcpy / cuBLAS / cuBLASLt in the same run"},
    {"roofline", "measure memory/compute ceilings and plot Tessera's kernels on a roofline"},
};
}  // namespace

std::string gpu_executable() {
  if (const char* env = std::getenv("TESSERA_GPU_EXE"); env && *env) return access(env, X_OK) == 0 ? env : "";
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return "";
  std::string path(self, static_cast<size_t>(n));
  path = path.substr(0, path.rfind('/') + 1) + "tessera-gpu";
  return access(path.c_str(), X_OK) == 0 ? path : "";
}

int exec_gpu(const std::vector<std::string>& args) {
  const std::string exe = gpu_executable();
  if (exe.empty()) {
    std::fprintf(stderr,
                 "tessera: '%s' runs on a GPU and needs `tessera-gpu`, which this build does not have%s\n",
                 args.empty() ? "" : args[0].c_str(),
                 TESSERA_WITH_CUDA ? " (build the tessera_gpu target)"
                                   : " (it was configured with TESSERA_WITH_CUDA=OFF: rebuild with a CUDA toolkit)");
    return 2;
  }
  std::vector<std::string> argv_s = {exe};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> av;
  for (auto& a : argv_s) av.push_back(a.data());
  av.push_back(nullptr);
  execv(exe.c_str(), av.data());
  std::fprintf(stderr, "tessera: cannot run '%s': %s\n", exe.c_str(), std::strerror(errno));
  return 2;
}

bool gpu_present() {
  const std::string exe = gpu_executable();
  if (exe.empty()) return false;
  std::string a0 = exe, a1 = "--probe-gpu";
  char* av[] = {a0.data(), a1.data(), nullptr};
  pid_t pid = 0;
  if (posix_spawn(&pid, exe.c_str(), nullptr, nullptr, av, environ) != 0) return false;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return false;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace tessera::cli

static void print_usage() {
  auto cmds = tessera::cli::registry();
  for (const auto& g : tessera::cli::kGpuCommands) cmds.push_back({g.name, std::string(g.summary) + " [GPU]", nullptr});
  std::sort(cmds.begin(), cmds.end(), [](auto& a, auto& b) { return a.name < b.name; });
  std::printf("usage: tessera <command> [args...]\n"
              "       tessera --version\n\n"
              "Tessera: a layout algebra for GPU kernels, its kernels, and tools to see and measure them.\n\n"
              "commands:\n");
  for (auto& c : cmds) std::printf("  %-10s %s\n", c.name.c_str(), c.summary.c_str());
  std::printf("\n`tessera <command> --help` explains a command with examples.  Commands marked [GPU] run\n"
              "`tessera-gpu` (built with CUDA%s).\n",
              TESSERA_WITH_CUDA ? "" : "; this build has none");
}

// An argument as it may be echoed in an error: at most 40 bytes, control characters as '?'.
static std::string printable(const char* arg) {
  std::string name = arg;
  if (name.size() > 40) name = name.substr(0, 40) + "...";
  for (char& c : name)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return name;
}

static int dispatch(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    if (argc > 2 && !std::strcmp(argv[1], "help")) {  // `tessera help <command>` = `tessera <command> --help`
      std::vector<std::string> redo = {argv[0], argv[2], "--help"};
      std::vector<char*> av;
      for (auto& a : redo) av.push_back(a.data());
      return dispatch(static_cast<int>(av.size()), av.data());
    }
    print_usage();
    return argc < 2 ? 2 : 0;
  }
  if (!std::strcmp(argv[1], "--version") || !std::strcmp(argv[1], "-V")) {
    if (argc > 2) {
      std::fprintf(stderr, "tessera: --version takes no arguments, got '%s'\n", argv[2]);
      return 2;
    }
    std::printf("tessera %s (%s)\n", TESSERA_VERSION, TESSERA_WITH_CUDA ? "with CUDA" : "without CUDA");
    return 0;
  }
  for (auto& c : tessera::cli::registry())
    if (c.name == argv[1]) return c.run(argc - 1, argv + 1);
  // `tessera bench SUITE`: an unknown suite is an error here, in a build with or without tessera-gpu.
  if (!std::strcmp(argv[1], "bench") && argc > 2 && argv[2][0] != '-' && std::strcmp(argv[2], "all") &&
      !tessera::bench::is_suite_name(argv[2])) {
    std::fprintf(stderr, "bench: unknown suite '%s'; known: %s\n", printable(argv[2]).c_str(),
                 tessera::bench::suite_list().c_str());
    return 2;
  }
  for (const auto& g : tessera::cli::kGpuCommands)
    if (!std::strcmp(g.name, argv[1])) return tessera::cli::exec_gpu(std::vector<std::string>(argv + 1, argv + argc));
  std::fprintf(stderr, "tessera: unknown command '%s' (see `tessera --help`)\n", printable(argv[1]).c_str());
  return 2;
}

int main(int argc, char** argv) { return dispatch(argc, argv); }
