// tests/kernel_fused/test_quantize_host.cpp -- tessera::fused::quantize's host-only checks (they run without a GPU):
// the reference encoder (quantize_reference.hpp) against cuda_fp8.h's host conversion, the s8 rounding and the scale
// rule against the library's, the argument errors, the scale shapes, workspaces and plans.
#include <cuda_fp8.h>  // __nv_cvt_float_to_fp8 (host emulation), the cross-check of the reference encoder

#include <algorithm>    // std::min, std::max
#include <cfloat>       // FLT_MAX
#include <cmath>        // std::frexp, std::ldexp, std::nearbyint, std::fabs, std::isnan, std::isinf, std::nextafter
#include <cstring>      // std::memcpy
#include <functional>   // std::function
#include <limits>       // std::numeric_limits
#include <string>       // std::string
#include <type_traits>  // std::is_same_v
#include <vector>       // std::vector

#include "quantize_reference.hpp"      // the host reference
#include "tessera/host/quantize.hpp"  // quantize, QuantizeArgs, quantize_scale_shape, plan_quantize

#include <gtest/gtest.h>

namespace {

using namespace tessera;
using namespace tessera::test::quant_ref;
using fused::QuantizeArgs;
using fused::QuantScale;

// ---- host-only: these run without a GPU ----

// The reference encoder agrees with cuda_fp8.h's host conversion (satfinite) on every bf16 value and on values
// around every FP8 rounding boundary.
TEST(QuantizeReference, Fp8EncoderMatchesCudaFp8) {
  int bad = 0;
  auto check = [&](float v) {
    for (Dtype t : {Dtype::e4m3, Dtype::e5m2}) {
      const uint8_t want = __nv_cvt_float_to_fp8(v, __NV_SATFINITE, t == Dtype::e4m3 ? __NV_E4M3 : __NV_E5M2);
      const uint8_t got = ref_fp8(v, t);
      const bool ok = q_is_nan(want, t) ? q_is_nan(got, t) : got == want;
      if (!ok && bad++ < 10)
        ADD_FAILURE() << dtype_name(t) << "(" << v << ") = 0x" << std::hex << int(got) << ", cuda_fp8.h says 0x"
                      << int(want) << std::dec;
    }
  };
  for (uint32_t b = 0; b < 0x10000u; ++b) {
    const uint32_t fb = b << 16;
    float v;
    std::memcpy(&v, &fb, sizeof v);
    check(v);
  }
  // Every FP8 value, its neighbours and the midpoints between consecutive values (ties to even), both signs.
  for (Dtype t : {Dtype::e4m3, Dtype::e5m2}) {
    for (int b = 0; b < 0x7F; ++b) {
      const double v = q_value(static_cast<uint8_t>(b), t), step = q_step(static_cast<uint8_t>(b), t);
      for (double d : {0.0, 0.5, 0.25, 0.75}) {
        const float f = static_cast<float>(v + d * step);
        check(f);
        check(-f);
        check(std::nextafter(f, 0.0f));
        check(std::nextafter(f, 1e30f));
      }
    }
  }
  EXPECT_EQ(bad, 0);
}

TEST(QuantizeReference, S8Rounding) {
  EXPECT_EQ(ref_s8(0.5f), 0);
  EXPECT_EQ(ref_s8(1.5f), 2);
  EXPECT_EQ(ref_s8(2.5f), 2);
  EXPECT_EQ(static_cast<int8_t>(ref_s8(-2.5f)), -2);
  EXPECT_EQ(ref_s8(127.49f), 127);
  EXPECT_EQ(ref_s8(1e30f), 127);
  EXPECT_EQ(static_cast<int8_t>(ref_s8(-1e30f)), -127);
  EXPECT_EQ(ref_s8(std::numeric_limits<float>::quiet_NaN()), 0);
}

// The library's s8 conversion (quant_s8_bits: the kernels' clamp, rounding addition and NaN select, run on the host)
// agrees with the reference's rounding on every bf16 value, on the ties n + 0.5 and their fp32 neighbours, and on
// every 251st fp32 bit pattern (all 2^32 patterns agreed when it was written; too slow to run each time).
TEST(QuantizeReference, S8ConversionMatches) {
  int64_t bad = 0;
  auto check = [&](float v) {
    const auto got = static_cast<uint8_t>(fused::quant_s8_bits(v) & 0xffu);
    if (got != ref_s8(v) && ++bad <= 10)
      ADD_FAILURE() << "v = " << v << " (bits 0x" << std::hex << bits_of(v) << std::dec << "): got "
                    << int(static_cast<int8_t>(got)) << ", expected " << int(static_cast<int8_t>(ref_s8(v)));
  };
  auto float_of = [](uint32_t b) {
    float v;
    std::memcpy(&v, &b, sizeof v);
    return v;
  };
  const float inf = std::numeric_limits<float>::infinity();
  for (uint32_t b = 0; b < 0x10000u; ++b) check(float_of(b << 16));
  for (int n = -300; n <= 300; ++n) {
    const float tie = static_cast<float>(n) + 0.5f;
    check(tie);
    check(std::nextafter(tie, -inf));
    check(std::nextafter(tie, inf));
  }
  for (float v : {0.0f, -0.0f, 1e-45f, -1e-45f, 127.0f, -127.0f, 0x1p22f, -0x1p22f, 0x1.8p23f, -0x1.8p23f, 0x1p24f,
                  -0x1p24f, FLT_MAX, -FLT_MAX, inf, -inf, std::numeric_limits<float>::quiet_NaN(),
                  -std::numeric_limits<float>::quiet_NaN()})
    check(v);
  for (uint64_t b = 0; b < (uint64_t(1) << 32); b += 251) check(float_of(static_cast<uint32_t>(b)));
  EXPECT_EQ(bad, 0);
}

// The kernels' in-range s8 conversion (the rounding addition without the clamp and the NaN select) gives the full
// conversion's byte for every |v| < 127.5: every 11th fp32 pattern of magnitude below 127.5 (about 2e8 values, both
// signs), the ties n + 0.5 and their neighbours, and the bounds; and the group test admits exactly
// the groups whose largest product is below 127.5, refusing NaN and infinite products.
TEST(QuantizeReference, S8InRangeConversionMatches) {
  int64_t bad = 0;
  auto check = [&](float v) {
    const auto full = static_cast<uint8_t>(fused::quant_s8_bits(v) & 0xffu);
    const auto fast = static_cast<uint8_t>(fused::quant_s8_in_range(v) & 0xffu);
    if (fast != full && ++bad <= 10)
      ADD_FAILURE() << "v = " << v << " (bits 0x" << std::hex << bits_of(v) << std::dec << "): in-range "
                    << int(static_cast<int8_t>(fast)) << ", full " << int(static_cast<int8_t>(full));
  };
  const uint32_t limit = bits_of(127.5f);  // magnitudes below it
  for (uint32_t b = 0; b < limit; b += 11) {
    float v;
    std::memcpy(&v, &b, sizeof v);
    check(v);
    check(-v);
  }
  for (int n = -128; n <= 127; ++n) {
    const float tie = static_cast<float>(n) + 0.5f;
    for (float v : {tie, std::nextafter(tie, -1e9f), std::nextafter(tie, 1e9f)})
      if (std::fabs(v) < 127.5f) check(v);
  }
  for (float v : {0.0f, -0.0f, 127.0f, -127.0f, std::nextafter(127.5f, 0.0f), -std::nextafter(127.5f, 0.0f)}) check(v);
  EXPECT_EQ(bad, 0);

  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(fused::quant_s8_group_in_range(3.0f, 127.0f / 3.0f));
  EXPECT_TRUE(fused::quant_s8_group_in_range(0.0f, 1.0f));
  EXPECT_TRUE(fused::quant_s8_group_in_range(std::nextafter(127.5f, 0.0f), 1.0f));
  EXPECT_FALSE(fused::quant_s8_group_in_range(127.5f, 1.0f));
  EXPECT_FALSE(fused::quant_s8_group_in_range(1e30f, 1.0f));
  EXPECT_FALSE(fused::quant_s8_group_in_range(inf, 0.0f));  // inf * 0 = NaN
  EXPECT_FALSE(fused::quant_s8_group_in_range(nan, 1.0f));
  EXPECT_FALSE(fused::quant_s8_group_in_range(1.0f, inf));
  // The rule's own factors: a finite non-zero amax with its inv is always in range.
  for (float amax : {1e-30f, 1e-3f, 0.75f, 1.0f, 3.0f, 1e10f, 3e38f}) {
    const fused::ScaleInv si = fused::quant_scale(amax, 127.0f);
    EXPECT_TRUE(fused::quant_s8_group_in_range(amax, si.inv)) << "amax " << amax;
  }
}

// The library's scale rule (quantize.hpp, used on the host and the device) is the one written out above.
TEST(QuantizeReference, ScaleRuleMatches) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (Dtype t : kQTypes) {
    for (float amax : {0.0f, 1.0f, 3.0f, 448.0f, 1e-30f, 1e-36f, 1.3e-36f, 1e-37f, 1e-45f, 1e30f, FLT_MAX, inf, nan,
                       0.1f, 7.0e-3f, 65504.0f}) {
      const fused::ScaleInv lib = fused::quant_scale(amax, fused::quant_max(t));
      const RefScale ref = ref_scale(amax, t);
      if (std::isnan(ref.scale)) {
        EXPECT_TRUE(std::isnan(lib.scale) && std::isnan(lib.inv)) << dtype_name(t) << " amax " << amax;
      } else {
        EXPECT_EQ(bits_of(lib.scale), bits_of(ref.scale)) << dtype_name(t) << " amax " << amax;
        EXPECT_EQ(bits_of(lib.inv), bits_of(ref.inv)) << dtype_name(t) << " amax " << amax;
      }
    }
  }
  EXPECT_EQ(fused::quant_scale(0.0f, 448.0f).scale, 1.0f);
  EXPECT_EQ(fused::quant_scale(1e-37f, 448.0f).inv, FLT_MAX);
  EXPECT_EQ(fused::quant_scale(inf, 448.0f).inv, 0.0f);
  EXPECT_EQ(fused::quant_max(Dtype::e4m3), 448.0f);
  EXPECT_EQ(fused::quant_max(Dtype::e5m2), 57344.0f);
  EXPECT_EQ(fused::quant_max(Dtype::s8), 127.0f);
}

template <class F>
void expect_argument_error(F&& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "expected ArgumentError mentioning '" << needle << "'";
  } catch (const fused::ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << "message: " << e.what();
  }
}

// Fake device addresses: the checks never dereference them.
QuantizeArgs fake_args() {
  QuantizeArgs a;
  a.x = reinterpret_cast<const void*>(uintptr_t{1} << 32);
  a.q = reinterpret_cast<void*>((uintptr_t{1} << 32) + (uintptr_t{1} << 28));
  a.scale = reinterpret_cast<float*>((uintptr_t{1} << 32) + (uintptr_t{1} << 29));
  a.rows = 256;
  a.cols = 1024;
  a.mode = QuantScale::row;
  return a;
}

TEST(QuantizeArgs, RejectsBadArguments) {
  auto with = [](auto edit) {
    QuantizeArgs a = fake_args();
    edit(a);
    return [a] { fused::quantize(a); };
  };
  expect_argument_error(with([](QuantizeArgs& a) { a.rows = -1; }), "'rows' is -1");
  expect_argument_error(with([](QuantizeArgs& a) { a.cols = -3; }), "'cols' is -3");
  expect_argument_error(with([](QuantizeArgs& a) { a.cols = int64_t{1} << 32; }), "'cols'");
  expect_argument_error(with([](QuantizeArgs& a) { a.x_type = Dtype::e4m3; }), "'x_type' is e4m3; expected bf16, f16 or f32");
  expect_argument_error(with([](QuantizeArgs& a) { a.x_type = static_cast<Dtype>(42); }), "'x_type' is the invalid value 42");
  expect_argument_error(with([](QuantizeArgs& a) { a.q_type = Dtype::bf16; }), "'q_type' is bf16; expected e4m3, e5m2 or s8");
  expect_argument_error(with([](QuantizeArgs& a) { a.q_type = Dtype::s32; }), "'q_type' is s32");
  expect_argument_error(with([](QuantizeArgs& a) { a.mode = static_cast<QuantScale>(9); }), "'mode' has the invalid value 9");
  expect_argument_error(with([](QuantizeArgs& a) { a.ld_x = 1000; }), "'ld_x' is 1000; expected 0 (= cols) or >= cols = 1024");
  expect_argument_error(with([](QuantizeArgs& a) { a.ld_q = -1; }), "'ld_q' is -1");
  expect_argument_error(with([](QuantizeArgs& a) { a.x = nullptr; }), "'x' is null");
  expect_argument_error(with([](QuantizeArgs& a) { a.q = nullptr; }), "'q' is null");
  expect_argument_error(with([](QuantizeArgs& a) { a.scale = nullptr; }), "'scale' is null; mode row writes it");
  expect_argument_error(with([](QuantizeArgs& a) { a.scale = nullptr; a.mode = QuantScale::tensor_given; }),
                        "mode tensor_given reads it");
  expect_argument_error(with([](QuantizeArgs& a) { a.x = static_cast<const char*>(a.x) + 1; }), "'x' must be aligned to 2");
  expect_argument_error(with([](QuantizeArgs& a) { a.x_type = Dtype::f32; a.x = static_cast<const char*>(a.x) + 2; }),
                        "'x' must be aligned to 4");
  expect_argument_error(with([](QuantizeArgs& a) { a.scale = reinterpret_cast<float*>(reinterpret_cast<char*>(a.scale) + 2); }),
                        "'scale' must be aligned to 4");
  expect_argument_error(with([](QuantizeArgs& a) { a.amax = reinterpret_cast<float*>(reinterpret_cast<char*>(a.scale) + 4098); }),
                        "'amax' must be aligned to 4");
  // scale sizes of the block modes: 256 x 1024 needs 256 x 8 (1x128) and 2 x 8 (128x128) scales.
  expect_argument_error(with([](QuantizeArgs& a) { a.mode = QuantScale::block_1x128; a.scale_elems = 2047; }),
                        "'scale_elems' is 2047; mode block_1x128 of a 256 x 1024 x needs 256 x 8 = 2048 scales");
  expect_argument_error(with([](QuantizeArgs& a) { a.mode = QuantScale::block_128x128; a.scale_elems = 15; }),
                        "needs 2 x 8 = 16 scales");
  expect_argument_error(with([](QuantizeArgs& a) { a.mode = QuantScale::row; a.scale_elems = 255; }), "needs 256 x 1 = 256");
  expect_argument_error(with([](QuantizeArgs& a) { a.scale_elems = -1; }), "'scale_elems' is -1");
  // overlaps
  expect_argument_error(with([](QuantizeArgs& a) { a.q = const_cast<void*>(a.x); }), "'x' and 'q' overlap");
  expect_argument_error(with([](QuantizeArgs& a) { a.scale = static_cast<float*>(a.q) + 4; }), "'scale' and 'q' overlap");
  expect_argument_error(with([](QuantizeArgs& a) { a.scale = static_cast<float*>(const_cast<void*>(a.x)) + 8; }),
                        "'scale' and 'x' overlap");
  expect_argument_error(with([](QuantizeArgs& a) { a.amax = a.scale + 100; }), "'amax' and 'scale' overlap");
  // workspace
  expect_argument_error(with([](QuantizeArgs& a) {
                          a.mode = QuantScale::tensor;
                          a.workspace = a.scale + 4096;
                          a.workspace_bytes = 8;
                        }),
                        "'workspace_bytes' is 8; mode tensor needs 16");
  expect_argument_error(with([](QuantizeArgs& a) {
                          a.mode = QuantScale::tensor;
                          a.workspace = reinterpret_cast<char*>(a.scale + 4096) + 1;
                          a.workspace_bytes = 64;
                        }),
                        "'workspace' must be aligned to 4");
  // too many CTAs
  expect_argument_error(with([](QuantizeArgs& a) {
                          a.rows = int64_t{1} << 32;  // one CTA per row of 4096
                          a.cols = 4096;
                          a.q = reinterpret_cast<void*>(uintptr_t{1} << 50);
                          a.scale = reinterpret_cast<float*>(uintptr_t{1} << 60);
                        }),
                        "CTAs");
}

TEST(QuantizeArgs, ShapesWorkspacesPlans) {
  EXPECT_EQ(fused::quantize_scale_shape(QuantScale::tensor, 300, 1000).elems(), 1);
  EXPECT_EQ(fused::quantize_scale_shape(QuantScale::tensor_given, 300, 1000).elems(), 1);
  EXPECT_EQ(fused::quantize_scale_shape(QuantScale::row, 300, 1000).rows, 300);
  EXPECT_EQ(fused::quantize_scale_shape(QuantScale::block_1x128, 300, 1000).cols, 8);
  EXPECT_EQ(fused::quantize_scale_shape(QuantScale::block_1x128, 300, 1024).cols, 8);
  EXPECT_EQ(fused::quantize_scale_shape(QuantScale::block_1x128, 300, 1025).cols, 9);
  EXPECT_EQ(fused::quantize_scale_shape(QuantScale::block_128x128, 300, 1000).rows, 3);
  EXPECT_EQ(fused::quantize_scale_shape(QuantScale::block_128x128, 256, 1000).rows, 2);

  QuantizeArgs a = fake_args();
  EXPECT_EQ(fused::quantize_workspace_bytes(a), 0u);
  a.mode = QuantScale::tensor;
  EXPECT_EQ(fused::quantize_workspace_bytes(a), 16u);
  a.mode = QuantScale::tensor_given;
  EXPECT_EQ(fused::quantize_workspace_bytes(a), 0u);
  a.amax = a.scale + 16;
  EXPECT_EQ(fused::quantize_workspace_bytes(a), 16u);

  auto plan = [](QuantScale mode, Dtype xt, int64_t rows, int64_t cols, int64_t x_off = 0) {
    QuantizeArgs p = fake_args();
    p.mode = mode;
    p.x_type = xt;
    p.rows = rows;
    p.cols = cols;
    p.x = static_cast<const char*>(p.x) + x_off;
    return fused::plan_quantize(p).str();
  };
  EXPECT_EQ(plan(QuantScale::row, Dtype::bf16, 8192, 4096), "rows 128x4");
  EXPECT_EQ(plan(QuantScale::row, Dtype::bf16, 8192, 512), "rows 32x2 (8 rows/CTA)");
  EXPECT_EQ(plan(QuantScale::row, Dtype::bf16, 4096, 14336), "rows 512x4");
  EXPECT_EQ(plan(QuantScale::row, Dtype::bf16, 16, 65536), "rows 1024x8");
  EXPECT_EQ(plan(QuantScale::row, Dtype::bf16, 16, 65537), "row loop 1024");
  EXPECT_EQ(plan(QuantScale::row, Dtype::f32, 16, 32768), "rows 1024x8");
  EXPECT_EQ(plan(QuantScale::row, Dtype::f32, 16, 32769), "row loop 1024");
  EXPECT_EQ(plan(QuantScale::row, Dtype::bf16, 8192, 4096, 2), "rows 512x4");  // misaligned: one more vector
  EXPECT_EQ(plan(QuantScale::tensor, Dtype::bf16, 8192, 4096), "amax + quantize, rows 128x4");
  EXPECT_EQ(plan(QuantScale::tensor_given, Dtype::bf16, 2, 1 << 20), "rows 512x4 x 64 chunks");
  EXPECT_EQ(plan(QuantScale::block_1x128, Dtype::bf16, 4096, 14336), "rows 256x8");
  EXPECT_EQ(plan(QuantScale::block_1x128, Dtype::bf16, 8192, 4096), "rows 128x4");
  EXPECT_EQ(plan(QuantScale::block_1x128, Dtype::bf16, 2, 1 << 20), "rows 512x4 x 64 chunks");
  EXPECT_EQ(plan(QuantScale::block_1x128, Dtype::bf16, 4096, 14336, 2), "blocks scalar 1x128");
  EXPECT_EQ(plan(QuantScale::block_128x128, Dtype::bf16, 4096, 14336), "block 128x128");
  EXPECT_EQ(plan(QuantScale::block_128x128, Dtype::f16, 4096, 14335), "blocks scalar 128x128");  // rows misaligned
  QuantizeArgs empty = fake_args();
  empty.rows = 0;
  EXPECT_EQ(fused::plan_quantize(empty).kernels, 0);
}


}  // namespace
