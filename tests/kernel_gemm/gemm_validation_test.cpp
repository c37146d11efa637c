// tests/kernel_gemm/gemm_validation_test.cpp -- host tests (no GPU needed): tessera::gemm and
// gemm_validate reject bad arguments before launching anything, with a message naming the argument.
// The pointers are fake (never dereferenced): validation must fail before any device access.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "tessera/host/gemm.hpp"

namespace {

using namespace tessera;

void* fake(uintptr_t gib) { return reinterpret_cast<void*>(gib << 30); }  // distinct, far apart, 16-byte aligned

GemmArgs good() {
  GemmArgs g;
  g.m = 100; g.n = 80; g.k = 60;
  g.a = GemmMatrix{fake(1), Dtype::bf16, MatrixOrder::row_major, 0};
  g.b = GemmMatrix{fake(2), Dtype::bf16, MatrixOrder::row_major, 0};
  g.d = GemmOutput{fake(3), Dtype::bf16, MatrixOrder::row_major, 0};
  return g;
}

// Expects both gemm_validate and gemm to fail with `code` and a message containing every `needle`.
void expect_error(const GemmArgs& g, GemmError code, std::initializer_list<const char*> needles) {
  for (int which = 0; which < 2; ++which) {
    const GemmStatus st = which == 0 ? gemm_validate(g) : gemm(g, nullptr);
    EXPECT_FALSE(st.ok());
    EXPECT_EQ(st.code, code) << st.message;
    for (const char* n : needles) EXPECT_NE(st.message.find(n), std::string::npos) << "message: " << st.message << "\nexpected: " << n;
  }
}

TEST(GemmValidation, GoodArgumentsPass) { EXPECT_TRUE(gemm_validate(good()).ok()) << gemm_validate(good()).message; }

TEST(GemmValidation, Sizes) {
  GemmArgs g = good(); g.m = 0;
  expect_error(g, GemmError::invalid_argument, {"'m'", "0", "m >= 1"});
  g = good(); g.n = -3;
  expect_error(g, GemmError::invalid_argument, {"'n'", "-3"});
  g = good(); g.k = int64_t(1) << 33;
  expect_error(g, GemmError::invalid_argument, {"'k'", "2147483647"});
}

TEST(GemmValidation, NullPointers) {
  GemmArgs g = good(); g.a.data = nullptr;
  expect_error(g, GemmError::invalid_argument, {"'a.data'", "null", "100 x 60"});
  g = good(); g.b.data = nullptr;
  expect_error(g, GemmError::invalid_argument, {"'b.data'"});
  g = good(); g.d.data = nullptr;
  expect_error(g, GemmError::invalid_argument, {"'d.data'"});
  g = good(); g.beta = 0.5f;  // C is needed now
  expect_error(g, GemmError::invalid_argument, {"'c.data'", "beta != 0"});
  g = good(); g.beta = 0.f; g.c.data = nullptr;  // and not needed here
  EXPECT_TRUE(gemm_validate(g).ok());
}

TEST(GemmValidation, LeadingDimensions) {
  GemmArgs g = good(); g.a.ld = 59;  // row-major 100 x 60 needs ld >= 60
  expect_error(g, GemmError::invalid_argument, {"'a.ld'", "59", "row-major 100 x 60", ">= 60"});
  g = good(); g.b.order = MatrixOrder::col_major; g.b.ld = 50;  // column-major 60 x 80 needs ld >= 60
  expect_error(g, GemmError::invalid_argument, {"'b.ld'", "column-major 60 x 80", ">= 60"});
  g = good(); g.d.ld = -1;
  expect_error(g, GemmError::invalid_argument, {"'d.ld'", "-1"});
  g = good(); g.a.ld = 61; g.b.ld = 4096; g.d.ld = 81;  // larger is fine
  EXPECT_TRUE(gemm_validate(g).ok());
}

TEST(GemmValidation, Types) {
  GemmArgs g = good(); g.b.type = Dtype::f16;
  expect_error(g, GemmError::invalid_argument, {"'a.type'", "'b.type'", "same type"});
  g = good(); g.math = GemmMath::tensor_core; g.a.type = g.b.type = Dtype::f32;
  expect_error(g, GemmError::invalid_argument, {"'math'", "tensor_core", "tf32"});
  g = good(); g.math = GemmMath::tf32;
  expect_error(g, GemmError::invalid_argument, {"'math'", "tf32", "bf16"});
  g = good(); g.a.type = static_cast<Dtype>(7);
  expect_error(g, GemmError::invalid_argument, {"'a.type'", "7"});
  g = good(); g.beta = 1.f; g.c = GemmMatrix{fake(4), Dtype::f32, MatrixOrder::row_major, 0};
  expect_error(g, GemmError::invalid_argument, {"'c.type'", "f32", "D's type (bf16)"});
  g = good(); g.residual = GemmMatrix{fake(4), Dtype::f16, MatrixOrder::row_major, 0};
  expect_error(g, GemmError::invalid_argument, {"'residual.type'"});
  g = good(); g.d.type = Dtype::f32;  // bf16 inputs, f32 output: fine
  EXPECT_TRUE(gemm_validate(g).ok());
}

// s32 is a Dtype that no GEMM kernel takes yet: refused for every matrix and for the bias, with the argument and the
// type named.  The 8-bit types (FP8, s8) are operands only (GemmValidation.Fp8*, Int8Operands): refused as D, C, the
// residual and the bias.
TEST(GemmValidation, TypesNotBuiltYet) {
  for (Dtype t : {Dtype::e4m3, Dtype::e5m2, Dtype::s8, Dtype::s32}) {
    const std::string name = dtype_name(t);
    SCOPED_TRACE(name);
    GemmArgs g = good();
    if (!tessera::is_8bit_operand(t)) {
      g.a.type = g.b.type = t;
      expect_error(g, GemmError::invalid_argument, {"argument 'a.type' is ", name.c_str(), "no GEMM kernel is built for"});
      g = good(); g.b.type = t;
      expect_error(g, GemmError::invalid_argument, {"argument 'b.type' is ", name.c_str(), "no GEMM kernel is built for"});
    }
    g = good(); g.d.type = t;
    expect_error(g, GemmError::invalid_argument, {"argument 'd.type' is ", name.c_str(), "expected bf16, f16 or f32"});
    g = good(); g.beta = 1.f; g.c = GemmMatrix{fake(4), t, MatrixOrder::row_major, 0};
    expect_error(g, GemmError::invalid_argument, {"argument 'c.type' is ", name.c_str(), "expected bf16, f16 or f32"});
    g = good(); g.residual = GemmMatrix{fake(4), t, MatrixOrder::row_major, 0};
    expect_error(g, GemmError::invalid_argument, {"argument 'residual.type' is ", name.c_str(), "expected bf16, f16 or f32"});
    g = good(); g.bias_mode = BiasMode::per_column; g.bias = fake(6); g.bias_size = 80; g.bias_type = t;
    expect_error(g, GemmError::invalid_argument, {"argument 'bias_type' is ", name.c_str(), "expected f32 or D's type (bf16)"});
    // The epilogue on its own validates the same way.
    g = good(); g.d.type = t;
    const GemmStatus st = gemm_epilogue_inplace(g, nullptr);
    EXPECT_EQ(st.code, GemmError::invalid_argument) << st.message;
    EXPECT_NE(st.message.find("tessera::gemm_epilogue_inplace: argument 'd.type' is " + name), std::string::npos) << st.message;
  }
  GemmArgs g = good(); g.bias_mode = BiasMode::scalar; g.bias = fake(6); g.bias_size = 1; g.bias_type = static_cast<Dtype>(9);
  expect_error(g, GemmError::invalid_argument, {"'bias_type'", "9"});
}

// ---- FP8 operands (e4m3, e5m2): K-major A and B, 16-byte bases and leading dimensions, scales, accumulation ----

// FP8 arguments that pass: A row-major, B column-major, every leading dimension a multiple of 16 (96 x 80 x 64,
// packed: lda = ldb = 64, and D's 80).
GemmArgs good_fp8(Dtype ta = Dtype::e4m3, Dtype tb = Dtype::e4m3) {
  GemmArgs g = good();
  g.m = 96; g.n = 80; g.k = 64;
  g.a = GemmMatrix{fake(1), ta, MatrixOrder::row_major, 0};
  g.b = GemmMatrix{fake(2), tb, MatrixOrder::col_major, 0};
  return g;
}

TEST(GemmValidation, Fp8GoodArgumentsPass) {
  for (Dtype ta : {Dtype::e4m3, Dtype::e5m2})
    for (Dtype tb : {Dtype::e4m3, Dtype::e5m2}) {
      SCOPED_TRACE(std::string(dtype_name(ta)) + " x " + dtype_name(tb));
      GemmArgs g = good_fp8(ta, tb);
      EXPECT_TRUE(gemm_validate(g).ok()) << gemm_validate(g).message;
      for (Dtype out : {Dtype::bf16, Dtype::f16, Dtype::f32})
        for (MatrixOrder od : {MatrixOrder::row_major, MatrixOrder::col_major}) {
          g = good_fp8(ta, tb); g.d.type = out; g.d.order = od;
          EXPECT_TRUE(gemm_validate(g).ok()) << gemm_validate(g).message;
        }
      g = good_fp8(ta, tb);  // scales (4-byte aligned), fast accumulation, the one FP8 tile, math named
      g.scale_a = static_cast<const float*>(fake(7)); g.scale_b = reinterpret_cast<const float*>(static_cast<char*>(fake(7)) + 4);
      g.fp8_accum = GemmFp8Accum::fast; g.tile = GemmTile::wgmma128x128; g.math = GemmMath::tensor_core;
      EXPECT_TRUE(gemm_validate(g).ok()) << gemm_validate(g).message;
      g = good_fp8(ta, tb);  // any K with padded rows; m = n = 1
      g.m = 1; g.n = 1; g.k = 60; g.a.ld = 64; g.b.ld = 64; g.d.ld = 0;
      EXPECT_TRUE(gemm_validate(g).ok()) << gemm_validate(g).message;
      g = good_fp8(ta, tb);  // the epilogue menu as with any operands
      g.beta = 0.5f; g.c = GemmMatrix{fake(4), Dtype::bf16, MatrixOrder::col_major, 0};
      g.bias_mode = BiasMode::per_row; g.bias = fake(6); g.bias_size = 96; g.bias_type = Dtype::f32;
      g.activation = Activation::gelu_tanh; g.residual = GemmMatrix{fake(5), Dtype::bf16, MatrixOrder::row_major, 0};
      g.split_k = 3;
      EXPECT_TRUE(gemm_validate(g).ok()) << gemm_validate(g).message;
    }
}

TEST(GemmValidation, Fp8OperandOrders) {
  GemmArgs g = good_fp8(); g.a.order = MatrixOrder::col_major;  // (lda = m = 96: a multiple of 16 either way)
  expect_error(g, GemmError::invalid_argument, {"'a.order'"});
  g = good_fp8(Dtype::e5m2, Dtype::e5m2); g.b.order = MatrixOrder::row_major;  // (ldb = n = 80)
  expect_error(g, GemmError::invalid_argument, {"'b.order'"});
  g = good_fp8(Dtype::e4m3, Dtype::e5m2); g.a.order = MatrixOrder::col_major; g.b.order = MatrixOrder::row_major;
  expect_error(g, GemmError::invalid_argument, {"'a.order'"});
}

TEST(GemmValidation, Fp8LeadingDimensions) {
  GemmArgs g = good_fp8(); g.k = 60;  // packed rows of 60 bytes
  expect_error(g, GemmError::invalid_argument, {"'a.ld'"});
  g.a.ld = 64;
  expect_error(g, GemmError::invalid_argument, {"'b.ld'"});
  g.b.ld = 80;
  EXPECT_TRUE(gemm_validate(g).ok()) << gemm_validate(g).message;
  g = good_fp8(); g.a.ld = 72;  // >= k, not a multiple of 16
  expect_error(g, GemmError::invalid_argument, {"'a.ld'"});
  g = good_fp8(Dtype::e5m2, Dtype::e4m3); g.b.ld = 100;
  expect_error(g, GemmError::invalid_argument, {"'b.ld'"});
  g = good_fp8(); g.d.ld = 81;  // D's leading dimension is free (as with any operands)
  EXPECT_TRUE(gemm_validate(g).ok()) << gemm_validate(g).message;
}

TEST(GemmValidation, Fp8Alignment) {
  for (int off : {1, 4, 8}) {
    SCOPED_TRACE(off);
    GemmArgs g = good_fp8(); g.a.data = static_cast<char*>(fake(1)) + off;  // element-aligned (1 byte), not 16
    expect_error(g, GemmError::invalid_argument, {"'a.data'"});
    g = good_fp8(); g.b.data = static_cast<char*>(fake(2)) + off;
    expect_error(g, GemmError::invalid_argument, {"'b.data'"});
  }
  GemmArgs g = good_fp8(); g.a.data = static_cast<char*>(fake(1)) + 32;  // 16-byte aligned, not 128: fine
  EXPECT_TRUE(gemm_validate(g).ok()) << gemm_validate(g).message;
}

TEST(GemmValidation, Fp8Scales) {
  GemmArgs g = good(); g.scale_a = static_cast<const float*>(fake(7));  // bf16 operands take no scales
  expect_error(g, GemmError::invalid_argument, {"'scale_a'"});
  g = good(); g.scale_b = static_cast<const float*>(fake(7));
  expect_error(g, GemmError::invalid_argument, {"'scale_b'"});
  g = good(); g.a.type = g.b.type = Dtype::f32; g.scale_a = static_cast<const float*>(fake(7));
  expect_error(g, GemmError::invalid_argument, {"'scale_a'"});
  g = good_fp8(); g.scale_a = reinterpret_cast<const float*>(static_cast<char*>(fake(7)) + 2);  // not 4-byte aligned
  expect_error(g, GemmError::invalid_argument, {"'scale_a'"});
  g = good_fp8(); g.scale_b = reinterpret_cast<const float*>(static_cast<char*>(fake(7)) + 1);
  expect_error(g, GemmError::invalid_argument, {"'scale_b'"});
  g = good_fp8(); g.scale_a = static_cast<const float*>(fake(7));  // one scale alone: the other is 1
  EXPECT_TRUE(gemm_validate(g).ok()) << gemm_validate(g).message;
}

// Channel scales (GemmScale::channel): FP8 only, a pointer needed, the mode in range; each operand independently.
TEST(GemmValidation, Fp8ChannelScales) {
  GemmArgs g = good(); g.scale_a_mode = tessera::GemmScale::channel;  // bf16 operands
  expect_error(g, GemmError::invalid_argument, {"'scale_a_mode'"});
  g = good(); g.scale_b_mode = tessera::GemmScale::channel;
  expect_error(g, GemmError::invalid_argument, {"'scale_b_mode'"});
  g = good_fp8(); g.scale_a_mode = tessera::GemmScale::channel;  // no pointer
  expect_error(g, GemmError::invalid_argument, {"'scale_a_mode'", "null", "M floats"});
  g = good_fp8(); g.scale_b_mode = tessera::GemmScale::channel;
  expect_error(g, GemmError::invalid_argument, {"'scale_b_mode'", "null", "N floats"});
  g = good_fp8(); g.scale_b = static_cast<const float*>(fake(7)); g.scale_b_mode = static_cast<tessera::GemmScale>(5);
  expect_error(g, GemmError::invalid_argument, {"'scale_b_mode'", "5"});
  g = good_fp8(); g.scale_a = static_cast<const float*>(fake(7)); g.scale_a_mode = tessera::GemmScale::channel;
  EXPECT_TRUE(gemm_validate(g).ok()) << gemm_validate(g).message;  // A per row, B none (1)
  g.scale_b = static_cast<const float*>(fake(8)); g.scale_b_mode = tessera::GemmScale::channel;
  EXPECT_TRUE(gemm_validate(g).ok()) << gemm_validate(g).message;
  g.scale_b_mode = tessera::GemmScale::tensor;  // A per row, B per tensor
  EXPECT_TRUE(gemm_validate(g).ok()) << gemm_validate(g).message;
}

// Block scales (GemmScale::block): FP8 only, a pointer needed, promoted accumulation only; each operand independently.
TEST(GemmValidation, Fp8BlockScales) {
  GemmArgs g = good(); g.scale_b_mode = tessera::GemmScale::block;  // bf16 operands
  expect_error(g, GemmError::invalid_argument, {"'scale_b_mode'"});
  g = good_fp8(); g.scale_a_mode = tessera::GemmScale::block;  // no pointer
  expect_error(g, GemmError::invalid_argument, {"'scale_a_mode'", "null", "ceil(K / 128) x M"});
  g = good_fp8(); g.scale_b_mode = tessera::GemmScale::block;
  expect_error(g, GemmError::invalid_argument, {"'scale_b_mode'", "null", "128 x 128"});
  g = good_fp8(); g.scale_a = static_cast<const float*>(fake(7)); g.scale_a_mode = tessera::GemmScale::block;
  g.fp8_accum = GemmFp8Accum::fast;
  expect_error(g, GemmError::invalid_argument, {"'scale_a_mode'", "fast", "promoted"});
  g.fp8_accum = GemmFp8Accum::promoted;
  EXPECT_TRUE(gemm_validate(g).ok()) << gemm_validate(g).message;  // A by blocks, B none (1)
  g.scale_b = static_cast<const float*>(fake(8)); g.scale_b_mode = tessera::GemmScale::block;
  EXPECT_TRUE(gemm_validate(g).ok()) << gemm_validate(g).message;
  g.scale_a_mode = tessera::GemmScale::channel;  // A per row, B by blocks
  EXPECT_TRUE(gemm_validate(g).ok()) << gemm_validate(g).message;
}

TEST(GemmValidation, Fp8Accumulation) {
  GemmArgs g = good(); g.fp8_accum = GemmFp8Accum::fast;  // bf16 operands
  expect_error(g, GemmError::invalid_argument, {"'fp8_accum'"});
  g = good_fp8(); g.fp8_accum = static_cast<GemmFp8Accum>(7);
  expect_error(g, GemmError::invalid_argument, {"'fp8_accum'", "7"});
  g = good(); g.fp8_accum = static_cast<GemmFp8Accum>(7);
  expect_error(g, GemmError::invalid_argument, {"'fp8_accum'"});
  g = good(); g.fp8_accum = GemmFp8Accum::promoted;  // the default: fine with any operands
  EXPECT_TRUE(gemm_validate(g).ok()) << gemm_validate(g).message;
}

TEST(GemmValidation, Fp8Types) {
  for (Dtype f8 : {Dtype::e4m3, Dtype::e5m2})
    for (Dtype other : {Dtype::bf16, Dtype::f16, Dtype::f32}) {
      SCOPED_TRACE(std::string(dtype_name(f8)) + " with " + dtype_name(other));
      GemmArgs g = good_fp8(f8, other);  // an FP8 type mixed with a wider one, either way round
      expect_error(g, GemmError::invalid_argument, {"'a.type'", "'b.type'"});
      g = good_fp8(other, f8);
      expect_error(g, GemmError::invalid_argument, {"'a.type'", "'b.type'"});
    }
  for (GemmMath m : {GemmMath::fp32_exact, GemmMath::tf32}) {
    GemmArgs g = good_fp8(); g.math = m;
    expect_error(g, GemmError::invalid_argument, {"'math'"});
  }
  GemmArgs g = good_fp8(); g.tile = GemmTile::simt128x128;  // the FFMA tile computes fp32_exact only
  expect_error(g, GemmError::invalid_argument, {"'tile'"});
  g = good_fp8(); g.d.type = Dtype::e4m3;  // FP8 operands, FP8 D: D is stored as bf16, f16 or f32 only
  expect_error(g, GemmError::invalid_argument, {"'d.type'", "e4m3"});
}

// INT8 operands (s8 x s8, s32 accumulation): the 8-bit rules (K-major, TMA alignment) and scales (tensor, channel);
// not mixed with other types, no block scales, no fast accumulation (the sums are exact).
TEST(GemmValidation, Int8Operands) {
  GemmArgs g = good_fp8(); g.a.type = g.b.type = Dtype::s8;
  EXPECT_TRUE(gemm_validate(g).ok()) << gemm_validate(g).message;
  g.scale_a = static_cast<const float*>(fake(7)); g.scale_a_mode = tessera::GemmScale::channel;
  EXPECT_TRUE(gemm_validate(g).ok()) << gemm_validate(g).message;
  g.scale_a_mode = tessera::GemmScale::block;
  expect_error(g, GemmError::invalid_argument, {"'scale_a_mode'", "block", "s8"});
  g = good_fp8(); g.a.type = g.b.type = Dtype::s8; g.fp8_accum = GemmFp8Accum::fast;
  expect_error(g, GemmError::invalid_argument, {"'fp8_accum'", "s8"});
  g = good_fp8(); g.a.type = Dtype::s8;  // s8 x e4m3
  expect_error(g, GemmError::invalid_argument, {"'a.type'", "'b.type'"});
  g = good_fp8(); g.a.type = g.b.type = Dtype::s8; g.a.order = MatrixOrder::col_major;
  expect_error(g, GemmError::invalid_argument, {"'a.order'", "K-major"});
  g = good_fp8(); g.a.type = g.b.type = Dtype::s8; g.d.type = Dtype::s8;
  expect_error(g, GemmError::invalid_argument, {"'d.type'", "s8"});
}

// GemmMath::dp4a (INT8 on CUDA cores): s8 operands only, with the 8-bit rules and scales of the tensor-core path; the
// dp4a tile computes dp4a alone (forced with automatic math it implies dp4a), and the tensor-core tiles do not compute it.
TEST(GemmValidation, Dp4a) {
  const auto s8 = [] {
    GemmArgs g = good_fp8(); g.a.type = g.b.type = Dtype::s8;
    return g;
  };
  GemmArgs g = s8(); g.math = GemmMath::dp4a;
  EXPECT_TRUE(gemm_validate(g).ok()) << gemm_validate(g).message;
  g.tile = GemmTile::dp4a128x128; g.split_k = 3;  // forced, split
  EXPECT_TRUE(gemm_validate(g).ok()) << gemm_validate(g).message;
  g = s8(); g.tile = GemmTile::dp4a128x128;  // automatic math with the dp4a tile: dp4a
  EXPECT_TRUE(gemm_validate(g).ok()) << gemm_validate(g).message;
  g = s8(); g.math = GemmMath::dp4a;  // channel scales (A rows, B columns) and the epilogue menu
  g.scale_a = static_cast<const float*>(fake(7)); g.scale_a_mode = tessera::GemmScale::channel;
  g.scale_b = static_cast<const float*>(fake(8)); g.scale_b_mode = tessera::GemmScale::channel;
  g.beta = 0.5f; g.c = GemmMatrix{fake(4), Dtype::bf16, MatrixOrder::col_major, 0};
  g.bias_mode = BiasMode::per_column; g.bias = fake(6); g.bias_size = 80; g.activation = Activation::silu;
  g.d.type = Dtype::f32; g.c.type = Dtype::f32;
  EXPECT_TRUE(gemm_validate(g).ok()) << gemm_validate(g).message;
  // Other operand types.
  for (Dtype t : {Dtype::bf16, Dtype::f16, Dtype::f32}) {
    SCOPED_TRACE(dtype_name(t));
    g = good(); g.a.type = g.b.type = t; g.math = GemmMath::dp4a;
    expect_error(g, GemmError::invalid_argument, {"argument 'math' is dp4a", dtype_name(t), "s8"});
  }
  for (Dtype t : {Dtype::e4m3, Dtype::e5m2}) {
    SCOPED_TRACE(dtype_name(t));
    g = good_fp8(t, t); g.math = GemmMath::dp4a;
    expect_error(g, GemmError::invalid_argument, {"argument 'math' is dp4a", dtype_name(t), "s8"});
  }
  // s8 with the f32 maths names the s8 ones.
  for (GemmMath m : {GemmMath::tf32, GemmMath::fp32_exact}) {
    g = s8(); g.math = m;
    expect_error(g, GemmError::invalid_argument, {"'math'", "s8", "dp4a"});
  }
  // Tiles: the dp4a tile with other operands or the tensor-core math; a tensor-core tile with dp4a.
  g = good(); g.tile = GemmTile::dp4a128x128;  // bf16 (tensor_core)
  expect_error(g, GemmError::invalid_argument, {"argument 'tile' is dp4a128x128x64", "tensor_core"});
  g = s8(); g.math = GemmMath::tensor_core; g.tile = GemmTile::dp4a128x128;
  expect_error(g, GemmError::invalid_argument, {"argument 'tile' is dp4a128x128x64", "tensor_core"});
  g = s8(); g.math = GemmMath::dp4a; g.tile = GemmTile::cooperative128x256;
  expect_error(g, GemmError::invalid_argument, {"argument 'tile' is coop128x256x64", "dp4a"});
  g = s8(); g.math = GemmMath::dp4a; g.tile = GemmTile::simt128x128;
  expect_error(g, GemmError::invalid_argument, {"argument 'tile' is simt128x128x8", "dp4a"});
  // The 8-bit rules hold for dp4a as for the tensor cores: K-major, 16-byte bases and rows, no block scales.
  g = s8(); g.math = GemmMath::dp4a; g.a.order = MatrixOrder::col_major;
  expect_error(g, GemmError::invalid_argument, {"'a.order'", "K-major"});
  g = s8(); g.math = GemmMath::dp4a; g.b.order = MatrixOrder::row_major;
  expect_error(g, GemmError::invalid_argument, {"'b.order'", "K-major"});
  g = s8(); g.math = GemmMath::dp4a; g.k = 60;  // rows of 60 bytes
  expect_error(g, GemmError::invalid_argument, {"'a.ld'"});
  g = s8(); g.math = GemmMath::dp4a; g.b.data = static_cast<char*>(fake(2)) + 4;
  expect_error(g, GemmError::invalid_argument, {"'b.data'", "16-byte"});
  g = s8(); g.math = GemmMath::dp4a; g.scale_b = static_cast<const float*>(fake(8)); g.scale_b_mode = tessera::GemmScale::block;
  expect_error(g, GemmError::invalid_argument, {"'scale_b_mode'", "block", "s8"});
  g = s8(); g.math = GemmMath::dp4a; g.fp8_accum = GemmFp8Accum::fast;
  expect_error(g, GemmError::invalid_argument, {"'fp8_accum'", "s8"});
  // A value past the enum is still named.
  g = s8(); g.math = static_cast<GemmMath>(5);
  expect_error(g, GemmError::invalid_argument, {"argument 'math' is 5"});
}

TEST(GemmValidation, Alignment) {
  GemmArgs g = good(); g.a.data = static_cast<char*>(fake(1)) + 1;  // odd address for a 2-byte type
  expect_error(g, GemmError::invalid_argument, {"'a.data'", "aligned", "2 bytes"});
  g = good(); g.a.data = static_cast<char*>(fake(1)) + 2;  // 2-byte aligned, not 16: accepted (slower path)
  EXPECT_TRUE(gemm_validate(g).ok());
  g = good(); g.workspace = static_cast<char*>(fake(5)) + 4; g.workspace_bytes = 1024;
  expect_error(g, GemmError::invalid_argument, {"'workspace'", "16-byte"});
}

TEST(GemmValidation, ScalarsAndActivations) {
  GemmArgs g = good(); g.alpha = std::numeric_limits<float>::quiet_NaN();
  expect_error(g, GemmError::invalid_argument, {"'alpha'", "finite"});
  g = good(); g.beta = std::numeric_limits<float>::infinity(); g.c = g.a;
  expect_error(g, GemmError::invalid_argument, {"'beta'", "finite"});
  g = good(); g.activation = Activation::clamp; g.clamp_lo = 1.f; g.clamp_hi = -1.f;
  expect_error(g, GemmError::invalid_argument, {"'clamp_lo'", "'clamp_hi'", "clamp_lo <= clamp_hi"});
  g = good(); g.activation = Activation::clamp; g.clamp_lo = std::nanf("");
  expect_error(g, GemmError::invalid_argument, {"'clamp_lo'"});
  g = good(); g.activation = Activation::leaky_relu; g.leaky_relu_slope = std::numeric_limits<float>::infinity();
  expect_error(g, GemmError::invalid_argument, {"'leaky_relu_slope'", "finite"});
  g = good(); g.activation = static_cast<Activation>(42);
  expect_error(g, GemmError::invalid_argument, {"'activation'", "42"});
}

TEST(GemmValidation, Bias) {
  GemmArgs g = good(); g.bias_mode = BiasMode::per_column; g.bias_size = 80;
  expect_error(g, GemmError::invalid_argument, {"'bias'", "null", "80 values"});
  g.bias = fake(6); g.bias_size = 100;  // per column means n = 80 values
  expect_error(g, GemmError::invalid_argument, {"'bias_size'", "100", "per_column", "80"});
  g.bias_mode = BiasMode::per_row;  // per row: m = 100 values
  EXPECT_TRUE(gemm_validate(g).ok());
  g.bias_mode = BiasMode::scalar;
  expect_error(g, GemmError::invalid_argument, {"'bias_size'", "scalar", "1 values"});
  g.bias_size = 1; g.bias_type = Dtype::f16;  // neither f32 nor D's type
  expect_error(g, GemmError::invalid_argument, {"'bias_type'", "f16"});
  g.bias_type = Dtype::bf16;
  EXPECT_TRUE(gemm_validate(g).ok());
}

TEST(GemmValidation, Overlaps) {
  GemmArgs g = good(); g.d.data = static_cast<char*>(fake(1)) + 64;  // inside A
  expect_error(g, GemmError::invalid_argument, {"'d'", "'a'", "overlap"});
  g = good(); g.beta = 1.f; g.c = GemmMatrix{g.d.data, Dtype::bf16, MatrixOrder::row_major, 0};  // in place: fine
  EXPECT_TRUE(gemm_validate(g).ok());
  g.c.order = MatrixOrder::col_major; g.c.ld = 100;  // same memory, other order: rejected
  expect_error(g, GemmError::invalid_argument, {"'c'", "'d'", "alias"});
}

TEST(GemmValidation, TilesAndSplits) {
  GemmArgs g = good(); g.tile = GemmTile::simt128x128;
  expect_error(g, GemmError::invalid_argument, {"'tile'", "simt128x128x8", "tensor_core"});
  g = good(); g.a.type = g.b.type = Dtype::f32; g.math = GemmMath::tf32; g.tile = GemmTile::t128x256;
  expect_error(g, GemmError::invalid_argument, {"'tile'", "128x256x64", "tf32"});
  g = good(); g.split_k = -1;
  expect_error(g, GemmError::invalid_argument, {"'split_k'", "-1"});
  g = good(); g.workspace = nullptr; g.workspace_bytes = 64;
  expect_error(g, GemmError::invalid_argument, {"'workspace'", "null", "64"});
}

}  // namespace
