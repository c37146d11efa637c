// Compile-time misuse of the tensor layer must stop compilation with a message that names the
// rule.  Each case is compiled on its own (-DTESSERA_CASE=n) by tests/tensor/CMakeLists.txt, which
// expects the compiler to fail and to print the message.
#include "tessera/tensor/tv_layout.hpp"

using namespace tessera;

#if TESSERA_CASE == 1
// one run-time value missing
auto bad = make_mixed_layout<detail::dynamic_row_major_profile()>(4, 8);
#elif TESSERA_CASE == 2
// a TV partition of a tile whose extents are only known at run time
constexpr TVCopy kCopy = make_tv_copy(copy_atom_vector(1), make_layout(make_tuple(4, 8)), make_layout(make_tuple(1, 1)));
int bad(float* p, int m, int k) {
  auto t = make_tensor(p, make_row_major(m, k));
  auto part = partition_S<kCopy>(t, 0);
  return static_cast<int>(part.size());
}
#elif TESSERA_CASE == 3
// two coordinates for a rank-1 layout
constexpr Layout kL = make_layout(8, 1);
auto bad = MixedLayout<kL>{}(1, 2);
#elif TESSERA_CASE == 4
// a tiled copy whose value layout is not a multiple of the atom
constexpr TVCopy kBad = make_tv_copy(copy_atom_vector(8), make_layout(make_tuple(32, 8)), make_layout(make_tuple(1, 4)));
#elif TESSERA_CASE == 5
// recast to a wider type across an odd stride
float buf[64];
constexpr Layout kOdd = make_layout(make_tuple(8, 4), make_tuple(1, 9));
auto t = make_tensor<kOdd>(buf);
auto bad = recast<double>(t);
#endif
