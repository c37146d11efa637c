// tests/layout/random_layouts.hpp -- random layouts for property tests: ranks 1-4, nesting up
// to depth 3, extents 1-8 (size-1 modes included), and column-major, row-major, permuted,
// gapped, broadcast (stride-0) and arbitrary strides.
#pragma once

#include <algorithm>  // std::shuffle
#include <random>     // std::mt19937_64
#include <vector>     // std::vector

#include "tessera/layout.hpp"

namespace tessera::test {

class LayoutGen {
 public:
  explicit LayoutGen(uint64_t seed) : rng_(seed) {}

  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  // A random shape with at most `max_leaves` leaves and product <= max_size.
  IntTuple shape(int max_depth = 3, int max_leaves = 6, Int max_size = 4096) {
    int leaves = 0;
    Int sz = 1;
    return shape_rec(max_depth, max_leaves, max_size, leaves, sz, true);
  }

  // Strides for `shape` in one of the styles listed above.
  IntTuple strides(const IntTuple& shape, bool allow_broadcast = true) {
    Leaves s = leaves(shape);
    std::vector<Int> d(s.n);
    int style = uniform(0, allow_broadcast ? 5 : 4);
    std::vector<int> order(s.n);
    for (int i = 0; i < s.n; ++i) order[i] = i;
    if (style == 1) std::reverse(order.begin(), order.end());
    if (style == 2 || style == 3 || style == 4) std::shuffle(order.begin(), order.end(), rng_);
    Int cur = 1;
    for (int k = 0; k < s.n; ++k) {
      int i = order[k];
      if (style == 4) {
        d[i] = uniform(0, 40);  // arbitrary
        continue;
      }
      if (style == 3 && uniform(0, 2) == 0) cur *= uniform(2, 3);  // gap
      d[i] = cur;
      cur *= s[i];
    }
    if (style == 5)  // broadcast some modes of a compact layout
      for (int i = 0; i < s.n; ++i) d[i] = uniform(0, 2) == 0 ? 0 : d[i];
    Leaves dl;
    for (Int x : d) dl.push(x);
    int pos = 0;
    return unflatten_like(shape, dl, &pos);
  }

  Layout layout(int max_depth = 3, int max_leaves = 6, Int max_size = 4096, bool allow_broadcast = true) {
    IntTuple s = shape(max_depth, max_leaves, max_size);
    return Layout{s, strides(s, allow_broadcast)};
  }

  // An injective layout (compact, permuted or gapped strides), no broadcast.
  Layout injective_layout(int max_leaves = 5, Int max_size = 1024) {
    IntTuple s = shape(2, max_leaves, max_size);
    Leaves l = leaves(s);
    std::vector<int> order(l.n);
    for (int i = 0; i < l.n; ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng_);
    std::vector<Int> d(l.n);
    Int cur = 1;
    for (int i : order) {
      if (uniform(0, 3) == 0) cur *= uniform(2, 3);
      d[i] = cur;
      cur *= l[i];
    }
    Leaves dl;
    for (Int x : d) dl.push(x);
    int pos = 0;
    return Layout{s, unflatten_like(s, dl, &pos)};
  }

  std::mt19937_64& rng() { return rng_; }

 private:
  IntTuple shape_rec(int depth_left, int max_leaves, Int max_size, int& leaves_used, Int& sz, bool top) {
    bool make_tuple_node = top ? uniform(0, 3) != 0 : (depth_left > 0 && uniform(0, 2) == 0);
    if (!make_tuple_node || depth_left == 0 || leaves_used >= max_leaves) {
      Int cap = max_size / sz;
      Int v = cap <= 1 ? 1 : std::min<Int>(uniform(1, 8), cap);
      if (uniform(0, 7) == 0) v = 1;
      sz *= v;
      ++leaves_used;
      return IntTuple::leaf(v);
    }
    int r = uniform(1, top ? 4 : 3);
    IntTuple t = IntTuple::empty_tuple();
    for (int i = 0; i < r && leaves_used < max_leaves; ++i)
      t.push_back(shape_rec(depth_left - 1, max_leaves, max_size, leaves_used, sz, false));
    if (t.rank() == 0) t.push_back(IntTuple::leaf(1));
    return t;
  }
  std::mt19937_64 rng_;
};

}  // namespace tessera::test
