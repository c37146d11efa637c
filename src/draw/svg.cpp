// src/draw/svg.cpp -- the SVG writer and the grid pictures of include/tessera/draw/svg.hpp.
#include "tessera/draw/svg.hpp"

#include <algorithm>  // std::max, std::find_if
#include <cmath>      // std::fmod, std::fabs
#include <cstdio>     // std::snprintf
#include <map>        // std::map
#include <stdexcept>  // std::invalid_argument

namespace tessera::draw {

namespace {

std::string escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  size_t p = 0;
  for (;;) {
    size_t q = s.find('\n', p);
    out.push_back(s.substr(p, q == std::string::npos ? std::string::npos : q - p));
    if (q == std::string::npos) break;
    p = q + 1;
  }
  return out;
}

void check_size(Int rows, Int cols) {
  if (rows <= 0 || cols <= 0) throw std::invalid_argument("draw: nothing to draw (an empty grid)");
  if (rows > kMaxCells || cols > kMaxCells || rows * cols > kMaxCells)
    throw std::invalid_argument(std::string("draw: ") + std::to_string(rows) + std::string(" x ") + std::to_string(cols) +
                                " cells; pictures hold at most " +
                                std::to_string(kMaxCells) + " (draw a smaller tile)");
}

// (rows, cols) of a rank-1 or rank-2 layout and the element at (r, c) as a 1-D coordinate.
void grid_shape(const Layout& l, Int& rows, Int& cols) {
  if (rank(l) > 2)
    throw std::invalid_argument(std::string("draw: layout ") + to_string(l) + std::string(" has rank ") + std::to_string(rank(l)) +
                                "; pictures are rank 1 or 2 (group the modes into two first)");
  rows = rank(l) == 2 ? product(l.shape.get(0)) : 1;
  cols = rank(l) == 2 ? product(l.shape.get(1)) : size(l);
}

}  // namespace

// ------------------------------------------------------------------ colours
std::string hsl(double h, double s, double l) {
  h = std::fmod(h, 360.0);
  if (h < 0) h += 360.0;
  double c = (1 - std::fabs(2 * l - 1)) * s, x = c * (1 - std::fabs(std::fmod(h / 60.0, 2.0) - 1)), m = l - c / 2;
  double r = 0, g = 0, b = 0;
  if (h < 60) { r = c; g = x; } else if (h < 120) { r = x; g = c; } else if (h < 180) { g = c; b = x; }
  else if (h < 240) { g = x; b = c; } else if (h < 300) { r = x; b = c; } else { r = c; b = x; }
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", static_cast<int>((r + m) * 255 + 0.5),
                static_cast<int>((g + m) * 255 + 0.5), static_cast<int>((b + m) * 255 + 0.5));
  return buf;
}
std::string thread_color(Int thread) {
  // golden-angle hues; three lightness levels so that threads 32 apart still differ
  double h = std::fmod(static_cast<double>(thread % 32) * 137.508, 360.0);
  double l = 0.82 - 0.1 * static_cast<double>((thread / 32) % 3);
  return hsl(h, 0.65, l);
}
std::string bank_color(int bank) { return hsl(bank * 360.0 / 32.0, 0.6, 0.78); }
std::string index_color(Int index) { return hsl(static_cast<double>(((index % 8) + 8) % 8) * 45.0, 0.55, 0.82); }

// ------------------------------------------------------------------ rendering
std::string render(const Grid& g) {
  check_size(g.rows, g.cols);
  const bool labelled = static_cast<Int>(g.rows) * g.cols <= kMaxLabelledCells;
  size_t max_chars = 1;
  int max_lines = 1;
  if (labelled)
    for (const Cell& c : g.cells) {
      auto lines = split_lines(c.label);
      max_lines = std::max<int>(max_lines, static_cast<int>(lines.size()));
      for (auto& s : lines) max_chars = std::max(max_chars, s.size());
    }
  const double font = 11.0;
  const double cw = labelled ? std::max(26.0, 7.0 * static_cast<double>(max_chars) + 10.0) : 10.0;
  const double ch = labelled ? (max_lines == 1 ? 20.0 : 32.0) : 10.0;
  const int header_every = labelled ? 1 : 8;
  // left margin: the widest row header; width: the grid, the legend, and the title lines
  size_t row_label_chars = std::to_string(g.rows).size();
  for (const auto& l : g.row_labels) row_label_chars = std::max(row_label_chars, l.size());
  const std::string axis = g.row_axis + "\u2193 " + g.col_axis + "\u2192";
  const size_t axis_chars = g.row_axis.size() + g.col_axis.size() + 3;
  const double left = 16 + 6.5 * static_cast<double>(std::max({row_label_chars, axis_chars, size_t(5)}));
  const double top = 78;
  const double grid_w = cw * g.cols, grid_h = ch * g.rows;
  // legend: rows of swatches under the grid
  const double sw = 14, legend_item_w = 150;
  const int per_row = std::max(1, static_cast<int>((std::max(grid_w, 600.0)) / legend_item_w));
  const int legend_rows = g.legend.empty() ? 0 : static_cast<int>((g.legend.size() + per_row - 1) / per_row);
  const double legend_top = top + grid_h + 30;
  const double text_w = std::max(9.2 * static_cast<double>(g.title.size()), 6.7 * static_cast<double>(g.subtitle.size()));
  const double width = left + std::max({grid_w, per_row * legend_item_w, text_w}) + 30;
  const double height = legend_top + (legend_rows ? 22.0 + legend_rows * 20.0 : 0.0) + 20;

  std::string o;
  o += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  o += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width) + "\" height=\"" + num(height) +
       "\" viewBox=\"0 0 " + num(width) + " " + num(height) + "\" font-family=\"DejaVu Sans Mono, monospace\">\n";
  o += std::string("<title>") + escape(g.title) + "</title>\n";
  o += "<rect x=\"0\" y=\"0\" width=\"" + num(width) + "\" height=\"" + num(height) + "\" fill=\"#ffffff\"/>\n";
  o += "<text class=\"title\" x=\"" + num(left) + std::string("\" y=\"24\" font-size=\"15\" font-weight=\"bold\">") + escape(g.title) +
       "</text>\n";
  o += "<text class=\"subtitle\" x=\"" + num(left) + "\" y=\"44\" font-size=\"11\" fill=\"#333333\">" +
       escape(g.subtitle) + "</text>\n";
  // axis names
  o += "<text class=\"axis\" x=\"" + num(left - 8) + "\" y=\"" + num(top - 8) +
       std::string("\" font-size=\"11\" text-anchor=\"end\" fill=\"#555555\">") + escape(axis) +
       "</text>\n";
  // headers
  o += "<g class=\"headers\" font-size=\"10\" fill=\"#555555\">\n";
  for (int c = 0; c < g.cols; c += header_every)
    o += "<text class=\"header\" x=\"" + num(left + cw * c + (labelled ? cw / 2 : 0)) + "\" y=\"" + num(top - 8) +
         "\" text-anchor=\"" + (labelled ? "middle" : "start") + std::string("\">") + std::to_string(c) + "</text>\n";
  for (int r = 0; r < g.rows; r += header_every)
    o += "<text class=\"header\" x=\"" + num(left - 8) + "\" y=\"" + num(top + ch * r + (labelled ? ch / 2 + 4 : 8)) +
         "\" text-anchor=\"end\">" +
         escape(static_cast<size_t>(r) < g.row_labels.size() ? g.row_labels[static_cast<size_t>(r)] : std::to_string(r)) +
         "</text>\n";
  o += "</g>\n";
  // cells
  o += "<g class=\"grid\" stroke=\"#444444\" stroke-width=\"" + std::string(labelled ? "0.6" : "0.2") + "\">\n";
  for (int r = 0; r < g.rows; ++r)
    for (int c = 0; c < g.cols; ++c) {
      const Cell& cell = g.cells[static_cast<size_t>(r * g.cols + c)];
      double x = left + cw * c, y = top + ch * r;
      o += "<rect class=\"cell\" x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(cw) + "\" height=\"" +
           num(ch) + "\" fill=\"" + (cell.fill.empty() ? "#eeeeee" : cell.fill) + "\">";
      if (!cell.tip.empty()) o += std::string("<title>") + escape(cell.tip) + "</title>";
      o += "</rect>\n";
    }
  o += "</g>\n";
  if (labelled) {
    o += "<g class=\"labels\" font-size=\"" + num(font) + "\" text-anchor=\"middle\" fill=\"#000000\">\n";
    for (int r = 0; r < g.rows; ++r)
      for (int c = 0; c < g.cols; ++c) {
        const Cell& cell = g.cells[static_cast<size_t>(r * g.cols + c)];
        auto lines = split_lines(cell.label);
        double x = left + cw * c + cw / 2;
        double y0 = top + ch * r + ch / 2 + 4 - 6.5 * (static_cast<double>(lines.size()) - 1);
        o += "<text class=\"label\" x=\"" + num(x) + "\" y=\"" + num(y0) + "\">";
        for (size_t i = 0; i < lines.size(); ++i)
          o += (i ? "<tspan x=\"" + num(x) + "\" dy=\"13\">" : std::string("<tspan>")) + escape(lines[i]) + "</tspan>";
        o += "</text>\n";
      }
    o += "</g>\n";
  }
  // legend
  if (!g.legend.empty()) {
    o += "<g class=\"legend\" font-size=\"11\">\n";
    o += "<text class=\"legend-title\" x=\"" + num(left) + "\" y=\"" + num(legend_top) + "\" font-weight=\"bold\">" +
         escape(g.legend_title) + "</text>\n";
    for (size_t i = 0; i < g.legend.size(); ++i) {
      double x = left + legend_item_w * static_cast<double>(i % per_row);
      double y = legend_top + 10 + 20.0 * static_cast<double>(i / per_row);
      o += "<rect class=\"swatch\" x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(sw) + "\" height=\"" +
           num(sw) + "\" fill=\"" + g.legend[i].fill + "\" stroke=\"#444444\" stroke-width=\"0.6\"/>\n";
      o += "<text class=\"legend-text\" x=\"" + num(x + sw + 5) + "\" y=\"" + num(y + 11) + "\">" +
           escape(g.legend[i].text) + "</text>\n";
    }
    o += "</g>\n";
  }
  o += "</svg>\n";
  return o;
}

// ------------------------------------------------------------------ pictures
Grid layout_grid(const Layout& l, const std::optional<Swizzle>& sw) {
  Int rows = 0, cols = 0;
  grid_shape(l, rows, cols);
  check_size(rows, cols);
  Grid g;
  g.title = sw ? to_string(SwizzledLayout{*sw, l}) : to_string(l);
  g.subtitle = "cell (i,j) shows the index L(i,j); colour = index mod 8 (runs of 8 consecutive indices cycle once)";
  g.rows = static_cast<int>(rows);
  g.cols = static_cast<int>(cols);
  g.row_axis = "i";
  g.col_axis = "j";
  for (Int r = 0; r < rows; ++r)
    for (Int c = 0; c < cols; ++c) {
      Int x = rank(l) == 2 ? l(make_tuple(r, c)) : l(c);
      if (sw) x = (*sw)(x);
      g.cells.push_back(Cell{std::to_string(x), index_color(x),
                             std::string("(") + std::to_string(r) + std::string(",") + std::to_string(c) + std::string(") -> ") + std::to_string(x)});
    }
  g.legend_title = "index mod 8";
  for (int k = 0; k < 8; ++k) g.legend.push_back(LegendEntry{index_color(k), std::to_string(k) + " (mod 8)"});
  return g;
}

Grid tv_grid(const Layout& tv, Int tile_m, Int tile_n, const std::string& title) {
  if (rank(tv) != 2)
    throw std::invalid_argument(std::string("tv draw: a TV layout has rank 2 (thread, value), got ") + to_string(tv));
  check_size(tile_m, tile_n);
  const Int threads = size(mode(tv, 0)), values = size(mode(tv, 1)), tile = tile_m * tile_n;
  if (threads > kMaxCells * 64 || values > kMaxCells * 64 || threads * values > kMaxCells * 64)
    throw std::invalid_argument("tv draw: too large to draw: " + std::to_string(threads) + " threads x " +
                                std::to_string(values) + " values, limit " + std::to_string(kMaxCells * 64) + " pairs");
  std::vector<std::vector<std::pair<Int, Int>>> owner(static_cast<size_t>(tile));
  for (Int t = 0; t < threads; ++t)
    for (Int v = 0; v < values; ++v) {
      Int idx = tv(make_tuple(t, v));
      if (idx < 0 || idx >= tile)
        throw std::invalid_argument(std::string("tv draw: TV(") + std::to_string(t) + std::string(",") + std::to_string(v) + ") = " +
                                    std::to_string(idx) + std::string(" lies outside the (") + std::to_string(tile_m) + "," +
                                    std::to_string(tile_n) + ") tile");
      owner[static_cast<size_t>(idx)].push_back({t, v});
    }
  Grid g;
  g.title = title;
  g.subtitle = std::string("TV ") + to_string(tv) + ": cell (m,n) shows thread T and value V with TV(T,V) = m + " +
               std::to_string(tile_m) + "n; colour = thread";
  g.rows = static_cast<int>(tile_m);
  g.cols = static_cast<int>(tile_n);
  g.row_axis = "m";
  g.col_axis = "n";
  for (Int m = 0; m < tile_m; ++m)
    for (Int n = 0; n < tile_n; ++n) {
      const auto& o = owner[static_cast<size_t>(m + tile_m * n)];
      if (o.empty()) {
        g.cells.push_back(Cell{"-", "#f4f4f4", "not covered"});
        continue;
      }
      std::string label = std::string("T") + std::to_string(o[0].first) + std::string("\nV") + std::to_string(o[0].second);
      std::string tip = std::string("(") + std::to_string(m) + std::string(",") + std::to_string(n) + "):";
      for (auto [t, v] : o) tip += std::string(" T") + std::to_string(t) + std::string("/V") + std::to_string(v);
      if (o.size() > 1) label += std::string("+") + std::to_string(o.size() - 1);
      g.cells.push_back(Cell{label, thread_color(o[0].first), tip});
    }
  g.legend_title = "threads (+k: k more threads hold the same element)";
  Int shown = std::min<Int>(threads, 32);
  for (Int t = 0; t < shown; ++t) g.legend.push_back(LegendEntry{thread_color(t), std::string("T") + std::to_string(t)});
  if (threads > 32) g.legend.push_back(LegendEntry{"#ffffff", "T32.. lighter/darker shades"});
  return g;
}

Grid swizzle_grid(const Swizzle& sw, const Layout& l, int elem_bytes) {
  if (elem_bytes <= 0) throw std::invalid_argument("swizzle draw: --elem-bytes must be positive");
  sw.validate();
  Int rows = 0, cols = 0;
  grid_shape(l, rows, cols);
  check_size(rows, cols);
  Grid g;
  g.title = to_string(SwizzledLayout{sw, l}) + std::string(", ") + std::to_string(elem_bytes) + "-byte elements";
  g.subtitle = "cell (i,j) shows the element offset Sw(L(i,j)) and its shared-memory bank (4-byte banks, 32 of them); "
               "colour = bank";
  g.rows = static_cast<int>(rows);
  g.cols = static_cast<int>(cols);
  g.row_axis = "i";
  g.col_axis = "j";
  for (Int r = 0; r < rows; ++r)
    for (Int c = 0; c < cols; ++c) {
      Int off = sw(rank(l) == 2 ? l(make_tuple(r, c)) : l(c));
      int bank = static_cast<int>(((off * elem_bytes) / 4) % 32);
      g.cells.push_back(Cell{std::to_string(off) + std::string("\nb") + std::to_string(bank), bank_color(bank),
                             std::string("(") + std::to_string(r) + std::string(",") + std::to_string(c) + std::string(") offset ") + std::to_string(off) +
                                 std::string(", byte ") + std::to_string(off * elem_bytes) + std::string(", bank ") + std::to_string(bank)});
    }
  g.legend_title = "banks";
  for (int b = 0; b < 32; ++b) g.legend.push_back(LegendEntry{bank_color(b), std::string("bank ") + std::to_string(b)});
  return g;
}

Grid bank_grid(const analysis::WarpInstruction& wi, const analysis::Instruction& inst, const std::string& title) {
  // per phase: bank -> distinct words (in order) -> lanes
  struct Slot {
    Int word;
    std::vector<int> lanes;
  };
  std::vector<std::vector<std::vector<Slot>>> phases;  // phase -> bank -> slots
  for (int lo = 0; lo < 32; lo += inst.phase_lanes) {
    std::vector<std::vector<Slot>> banks(32);
    bool any = false;
    for (int lane = lo; lane < lo + inst.phase_lanes && lane < 32; ++lane) {
      const auto& a = wi.lanes[static_cast<size_t>(lane)];
      if (!a.active) continue;
      any = true;
      for (Int w = a.addr / 4; w <= (a.addr + a.bytes - 1) / 4; ++w) {
        auto& slots = banks[static_cast<size_t>(w % 32)];
        auto it = std::find_if(slots.begin(), slots.end(), [&](const Slot& s) { return s.word == w; });
        if (it == slots.end()) {
          slots.push_back(Slot{w, {lane}});
        } else if (it->lanes.back() != lane) {
          it->lanes.push_back(lane);
        }
      }
    }
    if (any) phases.push_back(std::move(banks));
  }
  Grid g;
  g.title = title;
  g.subtitle = "columns: the 32 banks; rows: the wavefronts of each phase (p = phase, w = wavefront); a cell names "
               "the lane whose word the bank serves then (+k: k more lanes share the word)";
  g.cols = 32;
  g.row_axis = "p.w";
  g.col_axis = "bank";
  int total_rows = 0;
  for (auto& ph : phases) {
    size_t depth = 1;
    for (auto& b : ph) depth = std::max(depth, b.size());
    for (size_t w = 0; w < depth; ++w) {
      g.row_labels.push_back(std::to_string(&ph - phases.data()) + std::string(".") + std::to_string(w));
      for (int b = 0; b < 32; ++b) {
        const auto& slots = ph[static_cast<size_t>(b)];
        if (w >= slots.size()) {
          g.cells.push_back(Cell{"", "#f4f4f4", "idle"});
          continue;
        }
        const Slot& s = slots[w];
        std::string label = std::string("L") + std::to_string(s.lanes[0]);
        if (s.lanes.size() > 1) label += std::string("+") + std::to_string(s.lanes.size() - 1);
        std::string tip = "bank " + std::to_string(b) + ", word " + std::to_string(s.word) + ", lanes";
        for (int l : s.lanes) {
          tip += ' ';
          tip += std::to_string(l);
        }
        g.cells.push_back(Cell{label, thread_color(s.lanes[0]), tip});
      }
      ++total_rows;
    }
  }
  g.rows = total_rows;
  g.legend_title = "lanes";
  for (int l = 0; l < 32; ++l) g.legend.push_back(LegendEntry{thread_color(l), std::string("lane ") + std::to_string(l)});
  return g;
}

}  // namespace tessera::draw
