// tools/tour.cpp -- `tessera tour` (a short walk through the layout algebra) and
// `tessera main` (the main job: the benchmark suite with a GPU, the tour without one).
#include <cuda_runtime.h>  // cudaGetDeviceCount

#include <cstdio>   // std::printf
#include <cstring>  // std::strcmp
#include <string>   // std::string
#include <vector>   // std::vector

#include "bench_common.hpp"   // suites
#include "command.hpp"        // TESSERA_COMMAND, registry
#include "layout_ops.hpp"     // apply_layout_op, show_layout

namespace {

void step(const char* title, const char* op, std::vector<std::string> args, const char* note) {
  std::string shown = std::string("tessera layout ") + op;
  for (auto& a : args) shown += " '" + a + "'";
  std::printf("\n-- %s\n   $ %s\n", title, shown.c_str());
  try {
    std::printf("   %s\n", tessera::cli::apply_layout_op(op, args).c_str());
  } catch (const std::exception& e) {
    std::printf("   error: %s\n", e.what());
  }
  if (note && *note) std::printf("   %s\n", note);
}

int run_tour(int, char**) {
  std::printf(
      "Tessera layout tour\n===================\n"
      "A layout is Shape:Stride, a function from coordinates to offsets.  Every line below is a\n"
      "`tessera layout` command you can run yourself.\n");
  std::printf("\n-- A 4x8 row-major tile: element (i,j) sits at 8i+j\n   $ tessera layout show '(4,8):(8,1)'\n");
  std::printf("%s", tessera::cli::show_layout("(4,8):(8,1)").c_str());
  step("Coalesce: the same function with fewer modes", "coalesce", {"(2,(1,6)):(1,(6,2))"},
       "12 contiguous offsets: one mode of stride 1.");
  step("Composition A o B: B picks coordinates of A", "composition", {"(6,2):(8,2)", "(4,3):(3,1)"},
       "result(c) = A(B(c)) for every c in B's domain.");
  step("An inadmissible composition is an error, never a wrong layout", "composition", {"(6,4):(1,10)", "4:4"}, "");
  step("Complement: the rest of [0,24) that 4:2 does not reach", "complement", {"4:2", "24"},
       "(4:2, complement) together enumerate [0,24) exactly once.");
  step("Tiling a 8x6 matrix into 2x3 tiles", "zipped_divide", {"(8,6):(1,8)", "<2,3>"},
       "mode 0 walks inside a tile, mode 1 over the 4x2 tiles.");
  step("Repeating a 2x2 block over a 3x2 grid", "blocked_product", {"(2,2):(1,2)", "(3,2):(1,3)"}, "");
  step("Inverse: which element sits at offset k", "right_inverse", {"(4,8):(8,1)"}, "");
  step("Widest common vector of two layouts (copy vectorization)", "max_common_vector", {"(4,8):(1,4)", "32:1"},
       "32 elements are contiguous in both: a copy may use the widest vector that alignment allows.");
  std::printf("\n-- Swizzle<3,3,3>: eight rows of 64 bf16 -- the first 16 bytes of each row land in a different\n"
              "   16-byte bank group, so a column read by ldmatrix has no bank conflicts\n"
              "   $ tessera layout show 'Sw<3,3,3>o(8,8):(64,8)'\n");
  std::printf("%s", tessera::cli::show_layout("Sw<3,3,3>o(8,8):(64,8)").c_str());
  std::printf("\nMore: `tessera layout --help` lists every operation with an example; `tessera --help` lists\n"
              "the commands (with a GPU: `tessera bench all`).\n");
  return 0;
}

int run_main(int argc, char** argv) {
  if (argc > 1 && (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h"))) {
    std::printf("usage: tessera main [--json DIR] [--quick]\n\n"
                "The main job: with a CUDA GPU present, every benchmark suite (as `tessera bench all`,\n"
                "writing JSON under DIR, default bench/results/latest); without one, the layout tour.\n");
    return 0;
  }
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    std::printf("No CUDA GPU present: running the layout tour (benchmarks need a GPU).\n\n");
    return run_tour(argc, argv);
  }
  std::string json = "bench/results/latest";
  std::vector<std::string> args = {"bench", "all"};
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--json") && i + 1 < argc) {
      json = argv[++i];
    } else {
      args.push_back(argv[i]);
    }
  }
  std::string mk = "mkdir -p '" + json + "'";
  if (std::system(mk.c_str()) != 0) {
    std::fprintf(stderr, "main: cannot create '%s'\n", json.c_str());
    return 1;
  }
  args.push_back("--json");
  args.push_back(json);
  std::vector<char*> av;
  for (auto& a : args) av.push_back(a.data());
  for (auto& c : tessera::cli::registry())
    if (c.name == "bench") return c.run(static_cast<int>(av.size()), av.data());
  std::fprintf(stderr, "main: the bench command is missing from this build\n");
  return 1;
}

}  // namespace

TESSERA_COMMAND("tour", "a short walk through the layout algebra (runs without a GPU)", run_tour);
TESSERA_COMMAND("main", "the main job: benchmark suite with a GPU, layout tour without", run_main);
