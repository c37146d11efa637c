// Uses the installed headers (the layout algebra, the element types, the GEMM registry's vocabulary) and the
// installed draw library, without CUDA.
#include <cstdio>
#include <string>

#include "tessera/draw/svg.hpp"
#include "tessera/dtype.hpp"                 // plain C++: no CUDA header behind it
#include "tessera/kernel/gemm/registry.hpp"  // likewise (its table is in the CUDA build's kernels library)
#include "tessera/layout.hpp"

static_assert(tessera::dtype_bytes(tessera::Dtype::e4m3) == 1 && tessera::dtype_bytes(tessera::Dtype::f32) == 4,
              "element sizes in a consumer");
static_assert(tessera::gemm_core::combo_bit(tessera::gemm_core::Combo::mn_mn) == 4u, "the registry's vocabulary in a consumer");

int main() {
  constexpr tessera::Layout kTile = tessera::make_layout_row_major(tessera::make_tuple(8, 16));
  static_assert(tessera::size(kTile) == 128, "compile-time algebra in a consumer");
  tessera::Layout l = tessera::parse_layout("(6,2):(8,2)");
  std::string r = tessera::to_string(tessera::composition(l, tessera::parse_layout("(4,3):(3,1)")));
  std::string svg = tessera::draw::render(tessera::draw::layout_grid(l));
  std::printf("%s, an SVG of %zu bytes\n", r.c_str(), svg.size());
  return r == "((2,2),3):((24,2),8)" && svg.find("<svg") != std::string::npos ? 0 : 1;
}
