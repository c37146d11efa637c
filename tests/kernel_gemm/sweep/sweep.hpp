// tests/kernel_gemm/sweep/sweep.hpp -- the tile-configuration sweep (a tuning tool, built only on request:
// `cmake --build B --target gemm_tile_sweep`).  Each variant_*.cu instantiates one configuration of the
// sm80 kernel for bf16 with (A row-major, B row-major) and (A row-major, B column-major) operands and
// registers it here; sweep_main.cpp times all of them on the same data against each other and checks
// each result against tessera::gemm.
#pragma once

#include <string>
#include <vector>

#include "tessera/kernel/gemm/kernel_info.hpp"  // KernelInfo

namespace tessera::sweep {

struct Variant {
  std::string name;
  gemm_core::KernelInfo kk, kn;
};
std::vector<Variant>& variants();
struct Register {
  explicit Register(Variant v) { variants().push_back(std::move(v)); }
};

}  // namespace tessera::sweep
