// tessera/draw/svg.hpp -- SVG pictures of layouts, thread-value layouts, swizzle banks and bank conflicts.
//
// Every picture is a grid of cells with row and column headers, a title, a subtitle that says
// how to read it, and a legend.  Grids of up to kMaxLabelledCells cells carry a text label per
// cell; larger ones are drawn as colour only (with headers every 8 rows/columns), so that the
// picture stays a sensible size.  The pictures are plain SVG 1.1 (one <rect class="cell"> and,
// when labelled, one <text class="label"> per cell), readable in any browser.
#pragma once

#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include "tessera/analysis/smem.hpp"     // SmemInstructionResult, WarpInstruction
#include "tessera/layout.hpp"            // Layout, Swizzle
#include "tessera/tensor/tv_layout.hpp"  // TVCopy

namespace tessera::draw {

inline constexpr int kMaxLabelledCells = 4096;
inline constexpr int kMaxCells = 65536;

// One cell of a grid picture.
struct Cell {
  std::string label;   // may hold one '\n' for two lines
  std::string fill;    // "#rrggbb"
  std::string tip;     // tooltip (<title>)
};

struct LegendEntry {
  std::string fill;
  std::string text;
};

struct Grid {
  std::string title;
  std::string subtitle;  // how to read the picture
  int rows = 0;
  int cols = 0;
  std::vector<Cell> cells;  // row-major: cells[r * cols + c]
  std::vector<std::string> row_labels;  // row headers (default: the row numbers)
  std::string row_axis;     // e.g. "m"
  std::string col_axis;     // e.g. "n"
  std::vector<LegendEntry> legend;
  std::string legend_title;
};

// The SVG text of a grid picture.
std::string render(const Grid& g);

// Colours.
std::string hsl(double h, double s, double l);
std::string thread_color(Int thread);  // distinct colours for neighbouring threads
std::string bank_color(int bank);      // 32 hues in bank order
std::string index_color(Int index);    // 8 hues cycling with the index

// `tessera layout draw`: cell (i,j) shows L(i,j) (for a rank-1 layout, one row).
Grid layout_grid(const Layout& l, const std::optional<Swizzle>& sw = std::nullopt);
// `tessera tv draw`: cell (m,n) of a tile of shape (M,N) shows the thread and value that hold it.
Grid tv_grid(const Layout& tv, Int tile_m, Int tile_n, const std::string& title);
// `tessera swizzle draw`: cell (i,j) shows the element offset Sw(L(i,j)) and its bank.
Grid swizzle_grid(const Swizzle& sw, const Layout& l, int elem_bytes);
// `tessera analyze smem --svg`: banks (columns) x wavefronts (rows) of each phase of one
// instruction; a cell names the lane served in that bank in that wavefront.
Grid bank_grid(const analysis::WarpInstruction& wi, const analysis::Instruction& inst, const std::string& title);

}  // namespace tessera::draw
