// scripts/toolchain/if_constexpr_else_pragma.cu -- a front-end fault of nvcc 13.0 (V13.0.88) that cost the decode GEMM
// experiment a wrong result (docs/PERF.md, thirty-seventh section): in the instantiation where the branch of
// `if constexpr (...) { ... } else for (...) { ... }` is taken, the `#pragma unroll` loop that follows the statement is
// dropped -- at -O0 as at -O3 -- so k<1> below stores nothing from `acc`.  Braces around the else branch, a plain `if`,
// or no pragma on the following loop each avoid it.  Tessera's sources avoid the form (an else branch that is a bare
// loop); check a new toolkit with:
//   nvcc -std=c++20 -arch=sm_90a -ptx scripts/toolchain/if_constexpr_else_pragma.cu -o /tmp/x.ptx &&
//   awk '/.entry _Z1kILi1EEvPfi/,/^}/' /tmp/x.ptx | grep -c st.global      (9 when correct; 1 with the fault)
template <int R>
__global__ void k(float* out, int n) {
  float acc[2][4] = {};
  if constexpr (R > 0) {
    for (int i = 0; i < n; ++i) acc[0][0] += out[i + 64];
  } else
    for (int i = 0; i < n; ++i) {
      for (int u = 0; u < 2; ++u) acc[u][1] += 2.f * out[i + 64 + u];
    }

#pragma unroll
  for (int j = 0; j < 2; ++j)
#pragma unroll
    for (int i = 0; i < 4; ++i) out[threadIdx.x * 8 + j * 4 + i] = acc[j][i];
  __syncthreads();
  out[threadIdx.x + 32] += 1.f;
}
template __global__ void k<1>(float*, int);
template __global__ void k<0>(float*, int);
