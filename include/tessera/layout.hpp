// tessera/layout.hpp -- the layout algebra: int tuples, layouts, coalesce, composition,
// complement, inverses, divides, products, swizzles, and (host) the text form.
#pragma once

#include "layout/config.hpp"          // Int, TESSERA_HD, LayoutError
#include "layout/int_tuple.hpp"       // IntTuple
#include "layout/layout.hpp"          // Layout, crd2idx, idx2crd
#include "layout/algebra.hpp"         // coalesce, filter, composition, complement, inverses
#include "layout/divide_product.hpp"  // Tiler, divides, products
#include "layout/swizzle.hpp"         // Swizzle, SwizzledLayout
#include "layout/static_layout.hpp"   // static_layout<L>: unrolled device evaluation
#include "layout/text.hpp"            // parse_layout, to_string (host functions)
