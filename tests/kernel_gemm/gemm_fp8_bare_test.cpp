// tests/kernel_gemm/gemm_fp8_bare_test.cpp -- the persistent Hopper GEMM's bare-menus kernel with FP8 operands (part of
// gemm_fp8_test; the harness, the float64 reference and the skip without an sm_90 GPU as in gemm_fp8_test.cpp): the
// menus and scales the host launches it for, and its D against the general kernel's.
#include <cmath>    // std::isfinite
#include <utility>  // std::pair
#include <vector>

#include "gemm_8bit_common.hpp"  // TESSERA_REQUIRE_SM90_FP8, fp8_case, upload_product (and gemm_device_common.hpp)

namespace {

using namespace tessera::test::gemm_device;
using tessera::GemmFp8Accum;

constexpr Dtype E4 = Dtype::e4m3, E5 = Dtype::e5m2;
const std::pair<Dtype, Dtype> kFp8Pairs[] = {{E4, E4}, {E4, E5}, {E5, E4}, {E5, E5}};  // (A, B)
constexpr GemmTile kFp8Coop = GemmTile::cooperative128x256;

// 1. The bare-menus kernel with FP8 operands (the host launches it for bf16 D through TMA, per-tensor, channel or no
// scales, beta 0, a bf16 bias along N or M or none, no activation or relu, no residual): each unit's K tile 0 summed
// straight into the accumulators while the previous unit's D, packed, is staged.  Shapes of several units per block
// (132 SMs: 200-1000 units) with units of 1, 2, 3 and 4 K tiles (the ring holds 4) and longer ones, residues in M, N
// and K, both orders of D, every pair, promoted and fast accumulation, and the stream-K tail.
TEST(GemmFp8, BareKernelMenus) {
  TESSERA_REQUIRE_SM90_FP8();
  struct Case {
    Shape s;
    int menu;    // 0 bare, 1 bias along N + relu, 2 bias along M, 3 alpha alone, 4 alpha + bias along N
    int scales;  // 0 none, 1 per tensor, 2 channel (A rows, B columns), 3 channel A, tensor B
  } cases[] = {{{2048, 4096, 512}, 0, 1},  {{4096, 4096, 256}, 0, 0},  {{1000, 2056, 520}, 1, 2}, {{2304, 3000, 384}, 2, 1},
               {{1999, 4104, 128}, 3, 3},  {{4096, 2048, 640}, 4, 2},  {{3000, 4096, 1024}, 0, 1}, {{2056, 4096, 2048}, 1, 1},
               {{2600, 2100, 96}, 0, 1},   {{520, 400, 4096}, 2, 0}};
  int i = 0;
  for (const Case& c : cases)
    for (GemmFp8Accum acc : {GemmFp8Accum::promoted, GemmFp8Accum::fast}) {
      ++i;
      if (acc == GemmFp8Accum::fast && i % 4 != 2) continue;  // (fast on a few: its loop is the bf16 kernel's)
      const auto [ta, tb] = kFp8Pairs[i % 4];
      GemmCase cs = fp8_case(c.s.m, c.s.n, c.s.k, ta, tb);
      cs.tile = kFp8Coop;
      cs.fp8_accum = acc;
      if (c.scales == 1) { cs.scale_a = 0.37f; cs.scale_b = 1.9f; }
      if (c.scales == 2) { cs.scale_a_rows = true; cs.scale_b_cols = true; }
      if (c.scales == 3) { cs.scale_a_rows = true; cs.scale_b = 1.9f; }
      if (c.menu >= 3) cs.alpha = 0.75f;
      cs.out = Dtype::bf16;
      cs.od = i % 3 == 1 ? C : R;
      if (i % 5 == 2) {
        cs.stream_k = GemmStreamK::on;
        cs.workspace = true;
      }
      cs.bias = c.menu == 1 || c.menu == 4 ? BiasMode::per_column : c.menu == 2 ? BiasMode::per_row : BiasMode::none;
      cs.bias_type = Dtype::bf16;  // (D's type: the bare-menus kernel's bias)
      cs.act = c.menu == 1 ? Activation::relu : Activation::none;
      const tessera::GemmPlan plan = run_gemm_case(cs);
      if (::testing::Test::HasFailure()) return;
      EXPECT_EQ(plan.tile, kFp8Coop) << cs.str() << "\n  plan: " << plan.str();
      EXPECT_EQ(plan.split_k, 1) << cs.str() << "\n  plan: " << plan.str();
    }
}

// 2. The bare-menus kernel's D equals the general kernel's value for value: the same plan (the persistent tile,
// no stream-K tail) once bare (the bare kernel) and once with beta 0.5 and a C of zeros (the general kernel: beta 0
// only in the bare one), every pair, promoted and fast, per-tensor and channel scales, both orders of D.  The promoted
// loop's K tile 0 summed straight into the accumulators is the promoted sum of that K tile added to zero.
TEST(GemmFp8, BareKernelMatchesGeneral) {
  TESSERA_REQUIRE_SM90_FP8();
  int i = 0;
  for (const Shape& s : {Shape{2304, 2304, 768}, Shape{1000, 1096, 1040}, Shape{4096, 1024, 128}})
    for (GemmFp8Accum acc : {GemmFp8Accum::promoted, GemmFp8Accum::fast}) {
      ++i;
      const auto [ta, tb] = kFp8Pairs[i % 4];
      GemmCase cs = fp8_case(s.m, s.n, s.k, ta, tb);
      cs.out = Dtype::bf16;
      cs.od = i % 2 ? C : R;
      Mat A, B, D;
      tessera::test::DeviceBuffers db;
      tessera::GemmArgs g = upload_product(cs, A, B, D, db);
      g.tile = kFp8Coop;
      g.split_k = 1;
      g.stream_k = GemmStreamK::off;
      g.fp8_accum = acc;
      if (i % 3 == 1) {
        g.scale_a_mode = g.scale_b_mode = tessera::GemmScale::channel;
        float* sa = static_cast<float*>(db.alloc(static_cast<size_t>(s.m) * sizeof(float)));
        float* sb = static_cast<float*>(db.alloc(static_cast<size_t>(s.n) * sizeof(float)));
        ASSERT_TRUE(sa != nullptr && sb != nullptr);
        std::vector<float> va(static_cast<size_t>(s.m)), vb(static_cast<size_t>(s.n));
        for (size_t r = 0; r < va.size(); ++r) va[r] = 0.25f + 0.01f * static_cast<float>(r % 97);
        for (size_t c = 0; c < vb.size(); ++c) vb[c] = 1.5f - 0.01f * static_cast<float>(c % 89);
        CUDA_OK(cudaMemcpy(sa, va.data(), va.size() * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemcpy(sb, vb.data(), vb.size() * sizeof(float), cudaMemcpyHostToDevice));
        g.scale_a = sa;
        g.scale_b = sb;
      } else if (i % 3 == 2) {
        float* sc = static_cast<float*>(db.alloc(2 * sizeof(float)));
        ASSERT_NE(sc, nullptr);
        const float v[2] = {0.37f, 1.9f};
        CUDA_OK(cudaMemcpy(sc, v, sizeof(v), cudaMemcpyHostToDevice));
        g.scale_a = sc;
        g.scale_b = sc + 1;
      }
      void* zeros = db.alloc(D.bytes.size());
      ASSERT_NE(zeros, nullptr);
      CUDA_OK(cudaMemset(zeros, 0, D.bytes.size()));
      std::vector<unsigned char> out[2];
      for (int general = 0; general < 2; ++general) {
        if (general) {
          g.beta = 0.5f;
          g.c = {zeros, g.d.type, g.d.order, g.d.ld};
        }
        CUDA_OK(cudaMemcpy(D.dev, D.bytes.data(), D.bytes.size(), cudaMemcpyHostToDevice));  // poison
        const tessera::GemmStatus st = tessera::gemm(g, nullptr);
        ASSERT_TRUE(st.ok()) << st.message << "\n  case: " << cs.str();
        CUDA_OK(cudaDeviceSynchronize());
        out[general].resize(D.bytes.size());
        CUDA_OK(cudaMemcpy(out[general].data(), D.dev, D.bytes.size(), cudaMemcpyDeviceToHost));
      }
      int bad = 0;
      for (int64_t r = 0; r < s.m && bad < 8; ++r)
        for (int64_t c = 0; c < s.n && bad < 8; ++c) {
          const double bare = tessera::test::load_elem(cs.out, out[0].data(), D.index(r, c));
          const double gen = tessera::test::load_elem(cs.out, out[1].data(), D.index(r, c));
          if (!(std::isfinite(bare) && bare == gen)) {
            ++bad;
            ADD_FAILURE() << cs.str() << (acc == GemmFp8Accum::fast ? " fast" : " promoted") << ": D(" << r << "," << c
                          << ") bare kernel " << bare << ", general kernel " << gen;
          }
        }
    }
}

}  // namespace
