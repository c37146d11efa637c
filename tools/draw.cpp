// tools/draw.cpp -- pictures on the command line:
//   tessera layout draw <layout>                       (run_layout_draw, dispatched by `tessera layout`)
//   tessera tv draw --copy <thr> <val> | --tv <tv> --tile <shape> | --mma <shape> --operand A|B|C
//   tessera swizzle draw Sw<B,M,S> <layout> --elem-bytes N
// Each writes an SVG file (-o) or standard output.
#include "draw.hpp"

#include <cstdio>   // std::printf, std::fprintf
#include <cstring>  // std::strcmp
#include <string>   // std::string

#include "command.hpp"                   // TESSERA_COMMAND
#include "draw_args.hpp"                 // parse_args, write_output
#include "tessera/draw/svg.hpp"       // layout_grid, tv_grid, swizzle_grid, render
#include "tessera/atom/mma_sm80.hpp"     // the MMA fragment layouts
#include "tessera/layout.hpp"            // parse_layout, parse_swizzled
#include "tessera/tensor/tv_layout.hpp"  // make_tv_copy

namespace tessera::cli {

namespace {

bool wants_help(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) return true;
  return false;
}

int fail(const std::exception& e) {
  std::fprintf(stderr, "error: %s\n", e.what());
  return 1;
}

// ------------------------------------------------------------------ layout draw
void layout_draw_help() {
  std::printf(
      "usage: tessera layout draw <layout> [-o file.svg]\n\n"
      "Draws a rank-1 or rank-2 layout as a grid: cell (i,j) shows the index L(i,j), coloured by index mod 8.\n"
      "A swizzled layout Sw<B,M,S>o<layout> shows the swizzled index.  Without -o the SVG goes to standard output.\n\n"
      "example:\n"
      "  $ tessera layout draw '((2,4),8):((1,16),2)' -o layout.svg\n"
      "  $ tessera layout draw 'Sw<2,0,2>o(4,4):(4,1)' -o swizzled.svg\n");
}

}  // namespace

int run_layout_draw(int argc, char** argv) {
  if (wants_help(argc, argv) || argc < 2) {
    layout_draw_help();
    return argc < 2 ? 2 : 0;
  }
  try {
    ParsedArgs a = parse_args(argc, argv, {{"-o", 1}}, {});
    if (a.positional.size() != 1)
      throw std::invalid_argument(std::string("layout draw: expected 1 layout, got ") + std::to_string(a.positional.size()) +
                                  " arguments");
    LayoutParser probe(a.positional[0]);
    draw::Grid g;
    if (probe.at_swizzle()) {
      SwizzledLayout s = parse_swizzled(a.positional[0]);
      g = draw::layout_grid(s.layout, s.swizzle);
    } else {
      g = draw::layout_grid(parse_layout(a.positional[0]));
    }
    write_output(a.value_or("-o", "-"), draw::render(g));
  } catch (const std::exception& e) {
    return fail(e);
  }
  return 0;
}

namespace {

// ------------------------------------------------------------------ tv draw
void tv_help() {
  std::printf(
      "usage: tessera tv draw --copy <thr> <val> [--atom-values N] [-o file.svg]\n"
      "       tessera tv draw --tv <tv> --tile <(M,N)> [-o file.svg]\n"
      "       tessera tv draw --mma m16n8k16|m16n8k8 --operand A|B|C [-o file.svg]\n\n"
      "Draws a thread-value layout over its tile: cell (m,n) shows the thread T and value V that hold it\n"
      "(CuTe's print_latex of a tiled copy or MMA), coloured by thread.\n"
      "  --copy thr val     make_tiled_copy(atom, thr, val): thr maps (m,n) thread coordinates to thread\n"
      "                     indices, val the values of one thread; the tile is their raked product\n"
      "  --atom-values N    values per copy instruction (must divide size(val); default 1)\n"
      "  --tv tv --tile s   a TV layout (thread, value) -> m + M*n over a tile of shape s = (M,N)\n"
      "  --mma ... --operand   the mma.sync fragments of the PTX ISA: A is (M,K), B is (N,K), C is (M,N)\n\n"
      "examples:\n"
      "  $ tessera tv draw --copy '(32,8):(8,1)' '(1,8)' --atom-values 8 -o copy.svg\n"
      "  $ tessera tv draw --mma m16n8k16 --operand A -o mma_a.svg\n"
      "  $ tessera tv draw --tv '((16,2),8):((1,128),16)' --tile '(16,16)' -o ldmatrix.svg\n");
}

int run_tv(int argc, char** argv) {
  if (argc < 2 || wants_help(argc, argv)) {
    tv_help();
    return argc < 2 ? 2 : 0;
  }
  try {
    if (std::strcmp(argv[1], "draw") != 0)
      throw std::invalid_argument("tv: unknown subcommand '" + std::string(argv[1]) + "' (expected: draw)");
    ParsedArgs a = parse_args(argc - 1, argv + 1,
                              {{"-o", 1}, {"--copy", 2}, {"--atom-values", 1}, {"--tv", 1}, {"--tile", 1},
                               {"--mma", 1}, {"--operand", 1}, {"--title", 1}},
                              {});
    if (!a.positional.empty()) throw std::invalid_argument("tv draw: unexpected argument '" + a.positional[0] + "'");
    int modes = a.has("--copy") + a.has("--tv") + a.has("--mma");
    if (modes != 1) throw std::invalid_argument("tv draw: give exactly one of --copy, --tv, --mma");
    Layout tv;
    Int tm = 0, tn = 0;
    std::string title;
    if (a.has("--copy")) {
      Layout thr = parse_layout(a.options.at("--copy")[0]), val = parse_layout(a.options.at("--copy")[1]);
      Int av = a.integer("--atom-values", 1);
      TVCopy c = make_tv_copy(copy_atom_vector(av), thr, val);
      if (c.tiler.n != 2)
        throw std::invalid_argument("--copy: thread and value layouts of rank 2 give a 2-D tile; got a tile of rank " +
                                    std::to_string(c.tiler.n));
      tv = c.tv;
      tm = size(c.tiler.elem[0]);
      tn = size(c.tiler.elem[1]);
      title = std::string("tiled copy: thr ") + to_string(thr) + std::string(" x val ") + to_string(val) + std::string(" -> tile (") + std::to_string(tm) +
              std::string(",") + std::to_string(tn) + std::string("), ") + std::to_string(size(thr)) + " threads";
    } else if (a.has("--tv")) {
      tv = parse_layout(a.value("--tv"));
      IntTuple tile = parse_int_tuple(a.value("--tile"));
      if (tile.rank() != 2 || !tile.is_tuple())
        throw std::invalid_argument(std::string("--tile: expected a 2-D shape (M,N), got ") + to_string(tile));
      tm = product(tile.get(0));
      tn = product(tile.get(1));
      title = std::string("TV layout over a (") + std::to_string(tm) + std::string(",") + std::to_string(tn) + ") tile";
    } else {
      std::string shape = a.value("--mma"), op = a.value_or("--operand", "");
      if (op != "A" && op != "B" && op != "C")
        throw std::invalid_argument("--operand: expected A, B or C, got '" + op + "'");
      if (shape == "m16n8k16") {
        using F = atom::Sm80Frag16x8x16;
        tv = op == "A" ? F::kALayout : op == "B" ? F::kBLayout : F::kCLayout;
        tm = op == "B" ? F::kN : F::kM;
        tn = op == "C" ? F::kN : F::kK;
      } else if (shape == "m16n8k8") {
        using F = atom::MmaSm80_16x8x8_F32TF32;
        tv = op == "A" ? F::kALayout : op == "B" ? F::kBLayout : F::kCLayout;
        tm = op == "B" ? F::kN : F::kM;
        tn = op == "C" ? F::kN : F::kK;
      } else {
        throw std::invalid_argument("--mma: expected m16n8k16 or m16n8k8, got '" + shape + "'");
      }
      const char* axes = op == "A" ? "(M,K)" : op == "B" ? "(N,K)" : "(M,N)";
      title = "mma.sync." + shape + " operand " + op + " " + axes + ": 32 threads (PTX ISA fragment layout)";
    }
    draw::Grid g = draw::tv_grid(tv, tm, tn, a.value_or("--title", title));
    write_output(a.value_or("-o", "-"), draw::render(g));
  } catch (const std::exception& e) {
    return fail(e);
  }
  return 0;
}

// ------------------------------------------------------------------ swizzle draw
void swizzle_help() {
  std::printf(
      "usage: tessera swizzle draw Sw<B,M,S> <layout> --elem-bytes N [-o file.svg]\n"
      "       tessera swizzle draw 'Sw<B,M,S>o<layout>' --elem-bytes N [-o file.svg]\n\n"
      "Draws which shared-memory bank each element of a swizzled layout falls in: cell (i,j) shows the\n"
      "element offset Sw(L(i,j)) and its bank ((offset * N / 4) mod 32), coloured by bank.\n\n"
      "example (bf16 rows of 64 elements, the 128-byte swizzle):\n"
      "  $ tessera swizzle draw 'Sw<3,3,3>' '(8,64):(64,1)' --elem-bytes 2 -o swizzle.svg\n");
}

int run_swizzle(int argc, char** argv) {
  if (argc < 2 || wants_help(argc, argv)) {
    swizzle_help();
    return argc < 2 ? 2 : 0;
  }
  try {
    if (std::strcmp(argv[1], "draw") != 0)
      throw std::invalid_argument("swizzle: unknown subcommand '" + std::string(argv[1]) + "' (expected: draw)");
    ParsedArgs a = parse_args(argc - 1, argv + 1, {{"-o", 1}, {"--elem-bytes", 1}}, {});
    if (!a.has("--elem-bytes")) throw std::invalid_argument("--elem-bytes: missing (bytes per element, e.g. 2 for bf16)");
    int eb = static_cast<int>(a.integer("--elem-bytes", 0));
    if (eb <= 0 || eb > 16) throw std::invalid_argument(std::string("--elem-bytes: expected 1 to 16, got ") + std::to_string(eb));
    SwizzledLayout s;
    if (a.positional.size() == 1) {
      s = parse_swizzled(a.positional[0]);
    } else if (a.positional.size() == 2) {
      s = parse_swizzled(a.positional[0] + "o" + a.positional[1]);
    } else {
      throw std::invalid_argument("swizzle draw: expected Sw<B,M,S> and a layout, got " +
                                  std::to_string(a.positional.size()) + " arguments");
    }
    write_output(a.value_or("-o", "-"), draw::render(draw::swizzle_grid(s.swizzle, s.layout, eb)));
  } catch (const std::exception& e) {
    return fail(e);
  }
  return 0;
}

}  // namespace

}  // namespace tessera::cli

TESSERA_COMMAND("tv", "draw thread-value layouts of tiled copies and MMA fragments (tv draw ...)",
                tessera::cli::run_tv);
TESSERA_COMMAND("swizzle", "draw the shared-memory banks of a swizzled layout (swizzle draw ...)",
                tessera::cli::run_swizzle);
