// tests/layout/constexpr_error.cpp -- must NOT compile: an inadmissible composition in a
// constant expression.  The test checks that the compiler's message names the condition.
#include "tessera/layout.hpp"

constexpr tessera::Layout kBad =
    tessera::composition(tessera::make_layout(tessera::make_tuple(6, 4), tessera::make_tuple(1, 10)),
                         tessera::make_layout(4, 4));
int main() { return static_cast<int>(kBad.shape.nodes); }
