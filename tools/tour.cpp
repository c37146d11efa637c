// tools/tour.cpp -- `tessera tour` (a walk through the layout algebra, its pictures and its
// analysis; no GPU needed) and `tessera main` (the main job: the benchmark scorecard where a GPU
// is present, run by `tessera-gpu` (tools/main_job.cpp); the tour elsewhere).
#include <cstdio>   // std::printf
#include <cstring>  // std::strcmp
#include <stdexcept>  // std::invalid_argument
#include <string>   // std::string
#include <vector>   // std::vector

#include "command.hpp"         // TESSERA_COMMAND, gpu_executable, gpu_present, exec_gpu
#include "draw_args.hpp"       // parse_args
#include "layout_ops.hpp"      // apply_layout_op, show_layout
#include "tessera/analysis/smem.hpp"  // analyze_smem
#include "tessera/layout.hpp"  // parse_swizzled, Swizzle

namespace {

void section(const char* title) { std::printf("\n== %s\n", title); }

// Prints `$ tessera layout <op> <args>` and its answer (or its error), then a note.
void step(const char* op, std::vector<std::string> args, const char* note) {
  std::string shown = std::string("tessera layout ") + op;
  for (auto& a : args) shown += " '" + a + "'";
  std::printf("\n   $ %s\n", shown.c_str());
  try {
    std::printf("   %s\n", tessera::cli::apply_layout_op(op, args).c_str());
  } catch (const std::exception& e) {
    std::printf("   error: %s\n", e.what());
  }
  if (note && *note) std::printf("   %s\n", note);
}

void show(const char* text) {
  std::printf("\n   $ tessera layout show '%s'\n", text);
  const std::string table = tessera::cli::show_layout(text);
  size_t p = 0;
  while (p < table.size()) {  // indent every line
    size_t q = table.find('\n', p);
    if (q == std::string::npos) q = table.size();
    std::printf("   %s\n", table.substr(p, q - p).c_str());
    p = q + 1;
  }
}

// `tessera analyze smem` of an ldmatrix.x4 read of a (128,64) bf16 tile, in one line.
void ldmatrix_conflicts(const char* memory) {
  namespace an = tessera::analysis;
  std::printf("\n   $ tessera analyze smem --layout '%s' --elem-bytes 2 --inst ldmatrix.x4 \\\n"
              "         --tv '((16,2),8):((1,128),16)' --tile '<16,16>'\n",
              memory);
  an::AccessPattern p;
  p.memory = an::parse_memory_layout(memory);
  p.elem_bytes = 2;
  p.tv = tessera::parse_layout("((16,2),8):((1,128),16)");
  p.tile = tessera::parse_tiler("<16,16>");
  const an::SmemReport r = an::analyze_smem(p, an::find_instruction("ldmatrix.x4"));
  std::printf("   ... total: %lld instructions, %lld wavefronts (ideal %lld), %lld bank conflicts, at most %d-way\n",
              static_cast<long long>(r.instructions), static_cast<long long>(r.wavefronts),
              static_cast<long long>(r.ideal), static_cast<long long>(r.conflicts), r.max_ways);
}

// The 16-byte bank group (0..7) of each 16-byte unit of an (8,64) bf16 tile: rows are rows of the
// tile, columns its eight 16-byte units.  ldmatrix reads one unit from each of 8 rows: where a
// column holds one group eight times, those eight reads queue in the same banks.
void bank_group_table(const char* text) {
  const tessera::SwizzledLayout l = tessera::parse_swizzled(text);
  std::printf("\n   %s, bf16: bank group (16 bytes = 4 banks) of unit u of row r\n", text);
  std::printf("        u:");
  for (int u = 0; u < 8; ++u) std::printf(" %d", u);
  std::printf("\n");
  for (int r = 0; r < 8; ++r) {
    std::printf("   row %d: ", r);
    for (int u = 0; u < 8; ++u) {
      const tessera::Int offset = l(tessera::make_tuple(r, 8 * u));  // element offset of the unit
      std::printf(" %lld", static_cast<long long>((offset * 2 / 16) % 8));
    }
    std::printf("\n");
  }
}

int tour_help() {
  std::printf("usage: tessera tour\n\n"
              "A walk through the layout algebra: what a layout is, the order of 1-D indices, each operation,\n"
              "the pictures (`layout draw`, `tv draw`, `swizzle draw`) and the bank-conflict analysis.  Every\n"
              "step is a `tessera` command you can run yourself.  Needs no GPU.\n");
  return 0;
}

int run_tour(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) return tour_help();
    std::fprintf(stderr, "tour: unknown argument '%.40s' (the tour takes none; see `tessera tour --help`)\n", argv[i]);
    return 2;
  }
  std::printf(
      "Tessera layout tour\n===================\n"
      "A layout is Shape:Stride, a function from coordinates to offsets: the offset of a coordinate is\n"
      "its inner product with the stride.  Every line starting with $ is a command you can run.\n");

  section("1. A layout is a function: (4,8):(8,1) is a 4x8 row-major tile, element (i,j) at 8i+j");
  show("(4,8):(8,1)");

  section("2. One-dimensional indices run colexicographically: the LEFTMOST mode fastest");
  std::printf("   Every layout also takes a single index i in [0, size).  It is split into a coordinate\n"
              "   with mode 0 varying fastest (colexicographic order, Fortran's and CuTe's order, not C's):\n"
              "   in shape (4,8), i = r + 4c.  The table of (4,8):(1,4) shows that index in each cell:\n");
  show("(4,8):(1,4)");
  step("idx2crd", {"(4,8):(8,1)", "5"}, "index 5 is coordinate (5 mod 4, 5 div 4) = (1,1) ...");
  step("values", {"(4,8):(8,1)"},
       "... so the row-major tile read in index order walks DOWN the columns: 0,8,16,24, then 1,9,...");
  step("crd2idx", {"((2,2),8):((1,16),2)", "((1,0),3)"},
       "modes nest: a coordinate may itself be a tuple, and each nested mode is again colexicographic.");

  section("3. The operations, each with what it means");
  step("coalesce", {"(2,(1,6)):(1,(6,2))"},
       "coalesce: the same function with the fewest modes (here 12 contiguous offsets).");
  step("composition", {"(6,2):(8,2)", "(4,3):(3,1)"},
       "composition A o B: c -> A(B(c)); B chooses which coordinates of A to visit, in which order.");
  step("composition", {"(6,4):(1,10)", "4:4"},
       "an inadmissible composition is an error naming the condition, never a wrong layout.");
  step("complement", {"4:2", "24"},
       "complement: the offsets of [0,24) that 4:2 does not reach, as a layout; (4:2, it) covers\n"
       "   [0,24) exactly once.");
  step("zipped_divide", {"(8,6):(1,8)", "<2,3>"},
       "divide: split an 8x6 matrix into 2x3 tiles: mode 0 walks inside a tile, mode 1 over the tiles.");
  step("blocked_product", {"(2,2):(1,2)", "(3,2):(1,3)"},
       "product: repeat a 2x2 block over a 3x2 grid of blocks.");
  step("right_inverse", {"(4,8):(8,1)"}, "right inverse: which coordinate sits at offset k (L(R(k)) = k).");
  step("left_inverse", {"(2,2):(1,1)"},
       "a left inverse exists only for an injective layout: here two coordinates share an offset.");
  step("max_common_vector", {"(4,8):(1,4)", "32:1"},
       "contiguous elements two layouts agree on: the widest vector a copy between them may use.");

  section("4. Swizzles: Sw<B,M,S> XORs B bits of the row into the column");
  show("Sw<3,3,3>o(8,8):(64,8)");

  section("5. Pictures (SVG): layouts, thread-value layouts, banks");
  std::printf("   $ tessera layout draw '(4,8):(8,1)' -o layout.svg              the index grid of a layout\n"
              "   $ tessera tv draw --mma m16n8k16 --operand A -o mma_a.svg      which thread holds which element\n"
              "   $ tessera swizzle draw 'Sw<3,3,3>' '(8,64):(64,1)' --elem-bytes 2 -o banks.svg\n"
              "   (docs/gallery/ shows every picture with its command; each command has --help)\n");

  section("6. Bank conflicts of a swizzled tile");
  std::printf("   Shared memory has 32 banks of 4 bytes.  ldmatrix reads 8 rows of 16 bytes at once; when the 8\n"
              "   rows' units lie in the same bank group, the reads are serialised (an 8-way conflict).\n");
  bank_group_table("Sw<0,3,3>o(8,64):(64,1)");
  std::printf("   Without a swizzle, column u is group u in every row: reading unit 0 of 8 rows is 8-way.\n");
  bank_group_table("Sw<3,3,3>o(8,64):(64,1)");
  std::printf("   With Sw<3,3,3>, row r's unit u moves to group u XOR r: every column holds all 8 groups.\n");
  std::printf("\n   The analyser counts it for a whole 128x64 tile read with ldmatrix.x4:\n");
  ldmatrix_conflicts("(128,64):(64,1)");
  ldmatrix_conflicts("Sw<3,3,3>o(128,64):(64,1)");
  std::printf("   An ldmatrix.x4 needs 4 wavefronts (one per 8x8 matrix); without the swizzle each of them takes\n"
              "   8 (the 8-way column of the first table), with it 1.\n");
  std::printf("   (add --svg banks.svg for the picture of banks x wavefronts of one instruction)\n");

  std::printf("\nMore: `tessera layout --help` lists every operation with an example; `tessera --help` lists\n"
              "the commands (with a GPU: `tessera main` for the benchmark scorecard).\n");
  return 0;
}

int run_main(int argc, char** argv) {
  tessera::cli::ParsedArgs a;
  try {
    a = tessera::cli::parse_args(argc, argv, {{"--json", 1}, {"--repeats", 1}},
                                 {"--full", "--quick", "--no-progress", "--help", "-h"});
    if (!a.positional.empty())
      throw std::invalid_argument("unexpected argument '" + a.positional[0].substr(0, 40) + "'");
    if (a.has("--repeats")) {
      const long long n = a.integer("--repeats", 0);
      if (n < 1 || n > 100000) throw std::invalid_argument("--repeats expects 1..100000, got '" + a.value("--repeats") + "'");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "main: %s\n", e.what());
    return 2;
  }
  if (a.has("--help") || a.has("-h")) {
    std::printf(
        "usage: tessera main [--full] [--json DIR] [--quick] [--repeats N] [--no-progress]\n\n"
        "The main job (scripts/run.sh runs it).  Without a CUDA GPU: the layout tour.  With one: a scorecard,\n"
        "one line per kernel family -- copy, GEMM (bare, fused epilogues, decode shapes), row norms, fused\n"
        "chains, pipeline -- with Tessera's figure, the reference (cudaMemcpy, cuBLAS, cuBLASLt) measured in\n"
        "the same run, their ratio and the target.  Each suite runs a small set of cases; a progress line on\n"
        "stderr says how long the rest should take.  Written under DIR (default bench/results/latest):\n"
        "  scorecard.json  the scorecard, every record and the roofline measurements\n"
        "  report.md       the report, with gemm_ratio.png, copy_bandwidth.png and roofline.png (matplotlib)\n"
        "  log.txt         the suites' own tables\n\n"
        "  --full          the full sweeps instead (as `tessera bench all` and `tessera roofline`, printed in\n"
        "                  full, one JSON file per suite under DIR), then the same scorecard and report\n"
        "  --quick         a smoke run: 5 timed runs per case (with --full: each suite's --quick)\n"
        "  --repeats N     timed runs per case\n"
        "  --no-progress   no progress line\n\n"
        "`tessera scorecard FILE.json...` scores saved results again, without a GPU.\n"
        "example: tessera main --json /tmp/run1\n");
    return 0;
  }
  if (tessera::cli::gpu_executable().empty()) {
    std::printf("This tessera was built without its GPU part (tessera-gpu): running the layout tour.\n\n");
    return run_tour(1, argv);
  }
  if (!tessera::cli::gpu_present()) {
    std::printf("No CUDA GPU present: running the layout tour (benchmarks need a GPU).\n\n");
    return run_tour(1, argv);
  }
  return tessera::cli::exec_gpu(std::vector<std::string>(argv, argv + argc));
}

}  // namespace

TESSERA_COMMAND("tour", "a walk through the layout algebra, its pictures and analysis (no GPU needed)", run_tour);
TESSERA_COMMAND("main", "the main job: benchmark scorecard with a GPU, layout tour without", run_main);
