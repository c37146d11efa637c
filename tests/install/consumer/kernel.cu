// A device function indexing through a compile-time layout from the installed headers.
#include "tessera/layout.hpp"

constexpr tessera::Layout kT = tessera::make_layout_row_major(tessera::make_tuple(64, 64));

__global__ void consumer_kernel(float* p) { p[tessera::static_layout<kT>(threadIdx.y, threadIdx.x)] = 1.f; }

// Host code in this file uses the function form: nvcc 13.0 fails on host references to
// StaticLayout<kT>::member when device code in the same file instantiates StaticLayout<kT>.
int consumer_kernel_tile_size() { return static_cast<int>(tessera::size(kT)) + 0 * tessera::static_layout<kT>(0, 0); }
