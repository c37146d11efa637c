// Tensor layer on the host: mixed layouts, slicing, local_tile, local_partition, identity
// tensors, fragments and recast.  Every check compares against an independent formula.
#include <gtest/gtest.h>

#include <numeric>  // std::iota
#include <random>   // std::mt19937
#include <set>      // std::set
#include <vector>   // std::vector

#include "tessera/layout.hpp"
#include "tessera/tensor/tensor.hpp"

namespace {

using namespace tessera;

TEST(MixedLayout, StaticEvaluationMatchesLayout) {
  constexpr Layout kL = make_layout(make_tuple(make_tuple(2, 4), 3), make_tuple(make_tuple(12, 1), 4));
  MixedLayout<kL> m;
  for (int i = 0; i < size(kL); ++i) EXPECT_EQ(m(i), kL(Int(i))) << i;
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 3; ++b) EXPECT_EQ(m(a, b), kL(make_tuple(a, b)));
  static_assert(MixedLayout<kL>::kIsStatic, "a layout without symbols is static");
  static_assert(MixedLayout<kL>{}(5) == kL(Int(5)), "evaluation is constexpr");
  static_assert(sizeof(Tensor<float*, MixedLayout<kL>>) == sizeof(float*), "a static layout costs no storage");
}

TEST(MixedLayout, RunTimeRowMajor) {
  auto l = make_row_major(7, 5, 9);
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 5; ++j) EXPECT_EQ(l(i, j), i * 9 + j);
  // 1-D coordinate: column-major over (7,5)
  for (int x = 0; x < 35; ++x) EXPECT_EQ(l(x), (x % 7) * 9 + x / 7);
  EXPECT_EQ(l.size(), 35);
  EXPECT_EQ(to_string(l.value()), "(7,5):(9,1)");
}

TEST(MixedLayout, RandomLayoutsAgreeWithTheAlgebra) {
  // (s0,(s1,s2)):(d0,(d1,d2)) with run-time s0,s1 and d0,d2 against the concrete layout.
  constexpr Layout kP = Layout{
      make_tuple(sym::dynamic_shape(0), make_tuple(sym::dynamic_shape(1), 3)),
      make_tuple(sym::dynamic_stride(0), make_tuple(5, sym::dynamic_stride(1, 2)))};
  std::mt19937 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    Int s0 = 1 + rng() % 6, s1 = 1 + rng() % 5, d0 = rng() % 40, d2 = rng() % 30;
    auto m = make_mixed_layout<kP>(s0, s1, d0, d2);
    Layout concrete = make_layout(make_tuple(s0, make_tuple(s1, 3)), make_tuple(d0, make_tuple(5, 2 * d2)));
    EXPECT_EQ(m.value(), concrete);
    for (Int i = 0; i < size(concrete); ++i) ASSERT_EQ(m(i), concrete(i)) << to_string(concrete) << " i=" << i;
    for (Int a = 0; a < s0; ++a)
      for (Int b = 0; b < s1 * 3; ++b) ASSERT_EQ(m(a, b), concrete(make_tuple(a, b)));
  }
}

TEST(Tensor, ElementAccessAndSlicing) {
  std::vector<int> buf(64);
  std::iota(buf.begin(), buf.end(), 0);
  constexpr Layout kL = make_layout(make_tuple(4, 8), make_tuple(1, 4));  // (4,8):(1,4)
  auto t = make_tensor<kL>(buf.data());
  EXPECT_EQ(t(2, 3), 2 + 12);
  EXPECT_EQ(t[13], 13);
  auto col = t(_, 3);  // (4):(1) at offset 12
  static_assert(decltype(col.layout)::kProfile == make_layout(make_tuple(4), make_tuple(1)),
                "slicing keeps the kept modes as a tuple");
  for (int i = 0; i < 4; ++i) EXPECT_EQ(col(i), 12 + i);
  auto row = t(1, _);  // (8):(4) at offset 1
  for (int j = 0; j < 8; ++j) EXPECT_EQ(row(j), 1 + 4 * j);
  auto all = t(_);
  static_assert(decltype(all.layout)::kProfile == kL, "t(_) is t");
  t(3, 7) = -1;
  EXPECT_EQ(buf[3 + 28], -1);
}

TEST(Tensor, NestedSliceLiftsKeptModes) {
  std::vector<int> buf(256);
  std::iota(buf.begin(), buf.end(), 0);
  // ((2,4),(3,5)):((1,2),(8,24))
  constexpr Layout kL =
      make_layout(make_tuple(make_tuple(2, 4), make_tuple(3, 5)), make_tuple(make_tuple(1, 2), make_tuple(8, 24)));
  auto t = make_tensor<kL>(buf.data());
  auto s = t(make_coord(_, 1), make_coord(2, _));  // keeps 2:1 and 5:24 -> (2,5):(1,24) at 2 + 16
  static_assert(decltype(s.layout)::kProfile == make_layout(make_tuple(2, 5), make_tuple(1, 24)),
                "kept parts of nested modes are lifted to the top level");
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 5; ++b) EXPECT_EQ(s(a, b), 18 + a + 24 * b);
}

TEST(Tensor, RunTimeLayoutSlicing) {
  std::vector<int> buf(100);
  std::iota(buf.begin(), buf.end(), 0);
  Layout l = parse_layout("(4,(2,3)):(10,(1,3))");
  auto t = make_tensor(buf.data(), l);
  EXPECT_EQ(t(2, 5), 20 + 1 + 6);
  auto s = t(_, make_coord(1, _));
  EXPECT_EQ(to_string(s.layout), "(4,3):(10,3)");
  EXPECT_EQ(s(3, 2), 30 + 1 + 6);
  EXPECT_THROW(t(_, make_coord(1, _, 2)), LayoutError);
}

TEST(Tensor, LocalTileOfRunTimeMatrix) {
  // A row-major (M,K) matrix with a padded leading dimension, K not a multiple of the tile.
  const int M = 70, K = 45, ld = 48;
  std::vector<int> a(M * ld);
  std::iota(a.begin(), a.end(), 0);
  auto mA = make_tensor(make_gmem_ptr(a.data()), make_row_major(M, K, ld));
  for (int bm = 0; bm < 3; ++bm) {
    auto gA = local_tile<make_tiler(32, 16)>(mA, make_coord(bm, _));  // (32,16,k)
    static_assert(rank(decltype(gA.layout)::kProfile) == 3, "(BLK_M,BLK_K,k)");
    EXPECT_EQ(size<2>(gA), 3);  // ceil(45/16)
    EXPECT_EQ(size<0>(gA), 32);
    for (int k = 0; k < 3; ++k)
      for (int i = 0; i < 32; ++i)
        for (int j = 0; j < 16; ++j) {
          int m = bm * 32 + i, kk = k * 16 + j;
          if (m >= M || kk >= K) continue;
          ASSERT_EQ(gA(i, j, k), m * ld + kk) << bm << " " << k << " " << i << " " << j;
        }
  }
  // one tile, fully indexed
  auto g = local_tile<make_tiler(32, 16)>(mA, make_coord(1, 2));  // (32,16)
  EXPECT_EQ(g(3, 4), (32 + 3) * ld + 32 + 4);
}

TEST(Tensor, LocalPartitionByThreadLayout) {
  std::vector<int> s(128 * 32);
  std::iota(s.begin(), s.end(), 0);
  constexpr Layout kSmem = make_layout_row_major(make_tuple(128, 32));  // (128,32):(32,1)
  constexpr Layout kThr = make_layout(make_tuple(32, 8), make_tuple(8, 1));  // thread t: (t/8, t%8)
  auto sA = make_tensor<kSmem>(s.data());
  std::set<int> seen;
  for (int t = 0; t < 256; ++t) {
    auto tAsA = local_partition<kThr>(sA, t);  // (4,4)
    static_assert(decltype(tAsA.layout)::kProfile == make_layout(make_tuple(4, 4), make_tuple(1024, 8)),
                  "thread partition (128/32, 32/8) strided by the thread layout's shape");
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        int m = t / 8 + 32 * i, n = t % 8 + 8 * j;
        ASSERT_EQ(tAsA(i, j), m * 32 + n);
        seen.insert(tAsA(i, j));
      }
  }
  EXPECT_EQ(seen.size(), 128u * 32u);
}

TEST(Tensor, OuterAndInnerPartition) {
  std::vector<int> s(128 * 32);
  std::iota(s.begin(), s.end(), 0);
  constexpr Layout kSmem = make_layout_row_major(make_tuple(128, 32));
  constexpr Layout kThr = make_layout(make_tuple(32, 8), make_tuple(8, 1));
  auto sA = make_tensor<kSmem>(s.data());
  auto o = outer_partition<make_tiler(32, 8)>(sA, make_coord(3, 5));  // (4,4)
  auto l = local_partition<kThr>(sA, 3 * 8 + 5);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      EXPECT_EQ(o(i, j), (3 + 32 * i) * 32 + 5 + 8 * j);
      EXPECT_EQ(&o(i, j), &l(i, j));
    }
  auto in = inner_partition<make_tiler(32, 8)>(sA, make_coord(2, 3));  // the (32,8) tile at (2,3)
  EXPECT_EQ(in(0, 0), 64 * 32 + 24);
  EXPECT_EQ(in(31, 7), (64 + 31) * 32 + 31);
}

TEST(Tensor, IdentityTensorPredication) {
  const int M = 50, N = 37;
  auto cA = make_identity_tensor(M, N);
  EXPECT_EQ(cA(7, 9), (IdentityCoord<2>{{7, 9}}));
  constexpr Layout kThr = make_layout(make_tuple(8, 4), make_tuple(4, 1));
  int inside = 0;
  for (int bm = 0; bm < 2; ++bm)
    for (int bn = 0; bn < 2; ++bn) {
      auto gC = local_tile<make_tiler(32, 32)>(cA, make_coord(bm, bn));  // (32,32) of coordinates
      for (int t = 0; t < 32; ++t) {
        auto tC = local_partition<kThr>(gC, t);  // (4,8)
        for (int i = 0; i < 4; ++i)
          for (int j = 0; j < 8; ++j) {
            IdentityCoord<2> c = tC(i, j);
            int m = bm * 32 + t / 4 + 8 * i, n = bn * 32 + t % 4 + 4 * j;
            ASSERT_EQ(c[0], m);
            ASSERT_EQ(c.get<1>(), n);
            inside += (c[0] < M && c[1] < N);
          }
      }
    }
  EXPECT_EQ(inside, M * N);
  // a static identity tensor folds to constants
  constexpr auto kId = make_identity_tensor<make_tuple(4, 6)>();
  static_assert(kId(3, 5).get<0>() == 3 && kId(3, 5).get<1>() == 5, "static identity tensors are constexpr");
}

TEST(Tensor, FragmentsOwnTheirStorage) {
  constexpr Layout kL = make_layout(make_tuple(4, 2), make_tuple(1, 4));
  auto f = make_fragment<float, kL>();
  static_assert(sizeof(f) == 8 * sizeof(float), "a fragment is exactly its registers");
  for (int i = 0; i < 8; ++i) f[i] = float(i);
  EXPECT_EQ(f(1, 1), 5.0f);
  auto col = f(_, 1);  // a view into the fragment
  col(2) = 42.0f;
  EXPECT_EQ(f(2, 1), 42.0f);
  std::vector<int> buf(64);
  constexpr Layout kStrided = make_layout(make_tuple(2, 3), make_tuple(16, 2));
  auto t = make_tensor<kStrided>(buf.data());
  auto r = make_fragment_like<double>(t);
  static_assert(decltype(r.layout)::kProfile == make_layout(make_tuple(2, 3)), "compact column-major");
  static_assert(sizeof(r) == 6 * sizeof(double), "six registers");
}

TEST(Tensor, Recast) {
  alignas(16) float buf[64];
  std::iota(buf, buf + 64, 0.0f);
  constexpr Layout kL = make_layout(make_tuple(8, 4), make_tuple(1, 16));  // (8,4):(1,16) floats
  auto t = make_tensor<kL>(buf);
  auto v = recast<double>(t);  // (4,4):(1,8) doubles
  static_assert(decltype(v.layout)::kProfile == make_layout(make_tuple(4, 4), make_tuple(1, 8)), "widened by 2");
  EXPECT_EQ(reinterpret_cast<float*>(&v(1, 2))[0], buf[2 + 32]);
  auto h = recast<short>(t);  // (16,4):(1,32)
  static_assert(decltype(h.layout)::kProfile == make_layout(make_tuple(16, 4), make_tuple(1, 32)), "narrowed by 2");
  // run-time layouts: an odd stride cannot be widened
  EXPECT_THROW(detail::recast_layout(parse_layout("(8,4):(1,9)"), 4, 8), LayoutError);
  EXPECT_THROW(detail::recast_layout(parse_layout("(3,4):(1,8)"), 4, 8), LayoutError);
  EXPECT_EQ(to_string(detail::recast_layout(parse_layout("(8,4):(1,8)"), 2, 16)), "(1,4):(1,1)");
}

TEST(Tensor, DividesOnTensors) {
  std::vector<int> buf(48);
  constexpr Layout kL = make_layout(make_tuple(8, 6), make_tuple(1, 8));
  auto t = make_tensor<kL>(buf.data());
  auto z = zipped_divide<make_tiler(2, 3)>(t);
  static_assert(decltype(z.layout)::kProfile == zipped_divide(kL, make_tiler(2, 3)), "the algebra's zipped_divide");
  auto td = tiled_divide<make_tiler(2, 3)>(t);
  static_assert(decltype(td.layout)::kProfile == tiled_divide(kL, make_tiler(2, 3)), "the algebra's tiled_divide");
  auto fd = flat_divide<make_tiler(2, 3)>(t);
  static_assert(decltype(fd.layout)::kProfile == flat_divide(kL, make_tiler(2, 3)), "the algebra's flat_divide");
  // run-time divide of a run-time extent: (M,N) by <4,8> -> ((4,8),(ceil(M/4),ceil(N/8)))
  auto mA = make_tensor(buf.data(), make_col_major(10, 17));
  auto zA = zipped_divide<make_tiler(4, 8)>(mA);
  EXPECT_EQ(to_string(zA.layout_value()), "((4,8),(3,3)):((1,10),(4,80))");
}

}  // namespace
