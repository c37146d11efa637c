// Uses the installed headers at run time and at compile time.
#include <cstdio>

#include "tessera/layout.hpp"

int consumer_kernel_tile_size();  // kernel.cu

int main() {
  constexpr tessera::Layout kTile = tessera::make_layout_row_major(tessera::make_tuple(8, 16));
  static_assert(tessera::size(kTile) == 128, "compile-time algebra in a consumer");
  tessera::Layout l = tessera::parse_layout("(6,2):(8,2)");
  std::string r = tessera::to_string(tessera::composition(l, tessera::parse_layout("(4,3):(3,1)")));
  std::printf("%s %d\n", r.c_str(), consumer_kernel_tile_size());
  return r == "((2,2),3):((24,2),8)" && consumer_kernel_tile_size() == 4096 ? 0 : 1;
}
