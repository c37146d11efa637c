// tests/kernel_gemm/atom_device_test.cu -- one warp, one mma.sync per atom: the fragments are built from
// the atom's layouts (tessera::Layout data of tessera/atom/mma_sm80.hpp) and the product is compared with
// the host's, so the layouts the analysers read are checked against the hardware.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "common/gpu.hpp"
#include "tessera/atom/mma_sm80.hpp"

namespace {

using namespace tessera;

template <class Atom>
__global__ void one_mma(const uint32_t* a, const uint32_t* b, float* c) {
  const int lane = threadIdx.x;
  uint32_t ra[4], rb[2];
  for (int i = 0; i < 4; ++i) ra[i] = a[lane * 4 + i];
  for (int i = 0; i < 2; ++i) rb[i] = b[lane * 2 + i];
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  Atom::fma(acc, ra, rb);
  for (int i = 0; i < 4; ++i) c[lane * 4 + i] = acc[i];
}

enum class Kind { bf16, f16, tf32 };

uint32_t bits_of(Kind k, double v) {
  if (k == Kind::bf16) { __nv_bfloat16 h = __float2bfloat16_rn(static_cast<float>(v)); uint16_t u; std::memcpy(&u, &h, 2); return u; }
  if (k == Kind::f16) { __half h = __float2half_rn(static_cast<float>(v)); uint16_t u; std::memcpy(&u, &h, 2); return u; }
  const float f = static_cast<float>(v);
  uint32_t u; std::memcpy(&u, &f, 4); return u;
}
// Values exactly representable in the operand type (tf32: 11 significant bits).
double representable(Kind k, double v) {
  if (k == Kind::bf16) return __bfloat162float(__float2bfloat16_rn(static_cast<float>(v)));
  if (k == Kind::f16) return __half2float(__float2half_rn(static_cast<float>(v)));
  return std::ldexp(std::round(std::ldexp(v, 10)), -10);  // |v| < 1: multiples of 2^-10 have <= 11 bits
}

template <class Atom>
void check_atom(Kind kind) {
  constexpr int M = Atom::kM, N = Atom::kN, K = Atom::kK;
  std::mt19937 rng(7 + static_cast<int>(kind));
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> A(M * K), B(K * N);
  for (double& x : A) x = representable(kind, u(rng));
  for (double& x : B) x = representable(kind, u(rng));
  // Registers per lane from the layouts: value v of a 16-bit operand goes to register v / 2, half v % 2.
  const bool half_words = kind != Kind::tf32;
  std::vector<uint32_t> ra(32 * 4, 0), rb(32 * 2, 0);
  for (int lane = 0; lane < 32; ++lane) {
    for (int v = 0; v < Atom::kValuesA; ++v) {
      const Int idx = Atom::kALayout(make_tuple(lane, v));  // m + 16 k
      const uint32_t bits = bits_of(kind, A[(idx % M) * K + idx / M]);
      if (half_words) ra[lane * 4 + v / 2] |= bits << (16 * (v % 2));
      else ra[lane * 4 + v] = bits;
    }
    for (int v = 0; v < Atom::kValuesB; ++v) {
      const Int idx = Atom::kBLayout(make_tuple(lane, v));  // n + 8 k
      const uint32_t bits = bits_of(kind, B[(idx / N) * N + idx % N]);
      if (half_words) rb[lane * 2 + v / 2] |= bits << (16 * (v % 2));
      else rb[lane * 2 + v] = bits;
    }
  }
  uint32_t *da = nullptr, *db = nullptr;
  float* dc = nullptr;
  CUDA_OK(cudaMalloc(&da, ra.size() * 4));
  CUDA_OK(cudaMalloc(&db, rb.size() * 4));
  CUDA_OK(cudaMalloc(&dc, 32 * 4 * 4));
  CUDA_OK(cudaMemcpy(da, ra.data(), ra.size() * 4, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(db, rb.data(), rb.size() * 4, cudaMemcpyHostToDevice));
  one_mma<Atom><<<1, 32>>>(da, db, dc);
  CUDA_OK(cudaGetLastError());
  std::vector<float> c(32 * 4);
  CUDA_OK(cudaMemcpy(c.data(), dc, c.size() * 4, cudaMemcpyDeviceToHost));
  cudaFree(da); cudaFree(db); cudaFree(dc);
  std::vector<int> seen(M * N, 0);
  for (int lane = 0; lane < 32; ++lane)
    for (int v = 0; v < 4; ++v) {
      const Int idx = Atom::kCLayout(make_tuple(lane, v));  // m + 16 n
      const int m = static_cast<int>(idx % M), n = static_cast<int>(idx / M);
      double ref = 0, mag = 0;
      for (int k = 0; k < K; ++k) { ref += A[m * K + k] * B[k * N + n]; mag += std::fabs(A[m * K + k] * B[k * N + n]); }
      EXPECT_NEAR(c[lane * 4 + v], ref, 1e-6 * (1 + mag)) << Atom::kName << " lane " << lane << " value " << v << " (m " << m << ", n " << n << ")";
      ++seen[idx];
    }
  for (int s : seen) EXPECT_EQ(s, 1);
}

TEST(MmaAtomDevice, Bf16) { TESSERA_REQUIRE_SM(80); check_atom<atom::MmaSm80_16x8x16_F32BF16>(Kind::bf16); }
TEST(MmaAtomDevice, F16) { TESSERA_REQUIRE_SM(80); check_atom<atom::MmaSm80_16x8x16_F32F16>(Kind::f16); }
TEST(MmaAtomDevice, Tf32) { TESSERA_REQUIRE_SM(80); check_atom<atom::MmaSm80_16x8x8_F32TF32>(Kind::tf32); }

}  // namespace
