// src/gemm.cu -- tessera::gemm: the launch, and the typed overloads.
//
// Flow of one call:
//   1. validate   every argument, before anything touches the GPU (messages name the argument)
//   2. normalise  to the problem the kernels compute: operand majorness (A: K- or M-major, B: K- or
//                 N-major); the (M-major A, K-major B) case and decode-shaped problems with n <= 16 are
//                 computed transposed, D^T = B^T A^T (rows <-> columns of C, D, residual and bias)
//   3. plan       tile and split-K from a cost model over the kernels built for that (type, majorness):
//                 waves of blocks at the kernel's occupancy vs. bytes over memory bandwidth, with the
//                 ratio of tensor-core rate to bandwidth derived from the device's clocks, SM count and bus
//   4. launch     cudaLaunchKernel of the chosen instantiation (src/gemm_sm80_*.cu, src/gemm_simt_f32.cu)
//   (steps 1-3 live in gemm_validate.cu and gemm_plan.cu; src/gemm_internal.hpp lists the units)
#include <cuda_runtime.h>  // cudaLaunchKernel

#include <cstdint>    // SIZE_MAX, uintptr_t
#include <exception>  // std::exception

#include "gemm_internal.hpp"
#include "tessera/arch/sm90_tma_desc.hpp"  // make_tma_desc_2d

namespace tessera {

using namespace gemm_detail;

namespace {

// A non-persistent Hopper kernel split in two: the two splits of a tile are one cluster (along z), which adds its
// sums through distributed shared memory instead of the workspace's write / fence / counter / read (bf16 on the H200:
// 128 x 4096^2 0.74-0.79 -> 0.92-0.93x cuBLAS, 64 x 8192^2 0.89 -> 0.95-0.96).  Not for more splits: clusters of four
// blocks of 217 KiB ran 8-15% slower than the workspace at four splits (docs/PERF.md, thirty-eighth session).  (The
// plan still asks for the workspace; the kernel leaves it untouched.)
bool cluster_pair(const Choice& c) { return c.entry->tma && !c.kernel.persistent && c.splits == 2; }

// Step 4 for a planned problem: `workspace` (`workspace_bytes` bytes, null when there is none) backs
// split-K; `zeroed`: its counters are known to be zero.
GemmStatus launch(const Problem& p, const Choice& c, void* workspace, size_t workspace_bytes, bool zeroed,
                  cudaStream_t stream) {
  if (c.splits > 1 && (!workspace || workspace_bytes < c.workspace))
    return fail(GemmError::insufficient_workspace,
                fmt("split_k %d with tile %s needs a workspace of %zu bytes (gemm_workspace_size); got %zu", c.splits,
                    c.entry->name, c.workspace, workspace ? workspace_bytes : size_t(0)));
  if (c.sk_tiles > 0 && (!workspace || workspace_bytes < c.workspace))
    return fail(GemmError::insufficient_workspace,
                fmt("stream_k (on) with tile %s needs a workspace of %zu bytes (gemm_workspace_size); got %zu",
                    c.entry->name, c.workspace, workspace ? workspace_bytes : size_t(0)));

  gemm_sm80::Params kp;
  kp.m = static_cast<int>(p.m);
  kp.n = static_cast<int>(p.n);
  kp.k = static_cast<int>(p.k);
  kp.a = p.a.data;
  kp.lda = p.a.ld;
  kp.b = p.b.data;
  kp.ldb = p.b.ld;
  const int eb = dtype_bytes(p.in);
  kp.a_vec = vec16(p.a.data, p.a.ld, eb);
  kp.b_vec = vec16(p.b.data, p.b.ld, eb);
  kp.a_kmajor = p.a.k_major;
  kp.b_kmajor = p.b.k_major;
  kp.tiles_m = c.tiles_m;
  kp.tiles_n = c.tiles_n;
  kp.group_m = c.group_m;  // (the planner's, at most tiles_m)
  kp.splits = c.splits;
  if (c.entry->tma) {  // the Hopper kernels' tile scheduler (a non-persistent one places its block by it)
    const int k_tiles = static_cast<int>((p.k + c.kernel.block_k - 1) / c.kernel.block_k);
    kp.sched = c.kernel.persistent ? gemm_core::persistent_scheduler(c.tiles_m, c.tiles_n, c.group_m, c.kernel.cluster_m,
                                                                     c.splits, k_tiles, c.sk_tiles, static_cast<int>(c.ctas))
                                   : gemm_core::TileScheduler(c.tiles_m, c.tiles_n, c.group_m, c.splits, k_tiles);
  }
  kp.ep = p.ep;
  kp.scale_a = p.scale_a;
  kp.scale_b = p.scale_b;
  kp.scale_a_rows = p.scale_a_rows;
  kp.scale_b_cols = p.scale_b_cols;
  kp.scale_a_blocks = p.scale_a_blocks;
  kp.scale_b_blocks = p.scale_b_blocks;
  kp.fp8_fast_accum = p.fp8_fast_accum;
  if (c.splits > 1 || c.sk_tiles > 0) {
    kp.counters = static_cast<int*>(workspace);
    // stream-K: one slot per block of the grid (c.ctas = workers x cluster_m)
    const int64_t counters = (c.sk_tiles > 0 ? c.ctas : c.tiles) * c.kernel.counters_per_tile;
    kp.partials = reinterpret_cast<float*>(static_cast<unsigned char*>(workspace) + counters_bytes(counters));
    if (!zeroed || counters > kFixedCounters) {  // beyond the fixed region, earlier partial sums may lie
      // The whole counter region, not only this plan's counters: later calls on this workspace may trust it.
      const cudaError_t e = cudaMemsetAsync(workspace, 0, counters_bytes(counters), stream);
      if (e != cudaSuccess) return fail(GemmError::cuda_error, fmt("cudaMemsetAsync of the split-K / stream-K counters failed: %s", cudaGetErrorString(e)));
    }
  }
  // A persistent kernel loops over tiles x splits units itself.
  const dim3 grid(static_cast<unsigned>(c.ctas), 1, c.kernel.persistent ? 1u : static_cast<unsigned>(c.splits));
  const dim3 block(static_cast<unsigned>(c.kernel.threads));
  CUtensorMap map_a{}, map_b{}, map_d{}, map_r{};
  // Every kernel whose operands come by TMA (the registry's `tma`: the Hopper kernels) takes (Params, map_a, map_b)
  // and a persistent one map_d and map_r as well; a launch reads as many arguments as the kernel has, so one array
  // serves both.
  void* kargs_sm80[] = {&kp};
  void* kargs_sm90[] = {&kp, &map_a, &map_b, &map_d, &map_r};
  void** kargs = kargs_sm80;
  if (c.entry->tma) {
    // Boxes of 128 (A) and BLK_N (B) rows x 64 K-elements (128 bytes, swizzled as the wgmma descriptors
    // expect).
    try {
      // The boxes come from the kernel's shared-memory layouts (KernelInfo::box_a / box_b, atom/smem_sm90.hpp):
      // K-major A: BLK_M rows (m) x 64 K-elements; M-major A: boxes of 64 K rows x 64 M-elements; K-major B:
      // BLK_N rows (BLK_N / cluster_m: each block of a cluster loads its part and multicasts it); N-major B:
      // boxes of 64 K rows x 64 N-elements.
      const KernelInfo& k = c.kernel;
      // L2 promotion by the rows' alignment (arch::l2_promotion_for_pitch): rows that do not start 128-byte aligned
      // fetch 128-byte lines; so does a streamed A whose blocks fill the SMs (Choice::stream_lines_128).
      const arch::TmaL2Promotion pa = c.stream_lines_128 ? arch::TmaL2Promotion::k128B
                                                         : arch::l2_promotion_for_pitch(static_cast<uint64_t>(p.a.ld) * eb);
      const arch::TmaL2Promotion pb = arch::l2_promotion_for_pitch(static_cast<uint64_t>(p.b.ld) * eb);
      // Short boxes (Choice::a_box_rows, b_box_rows: the planner's short_box_rows): the operand's own rows, not the tile's.
      kp.a_box_rows = c.a_box_rows;
      kp.b_box_rows = c.b_box_rows;
      map_a = p.a.k_major
                  ? arch::make_tma_desc_2d(p.a.data, eb, static_cast<uint64_t>(p.m), static_cast<uint64_t>(p.k),
                                           static_cast<uint64_t>(p.a.ld), kp.a_box_rows > 0 ? static_cast<unsigned>(kp.a_box_rows) : k.box_a[1],
                                           k.box_a[0], arch::TmaSwizzle::k128B, pa)
                  : arch::make_tma_desc_2d(p.a.data, eb, static_cast<uint64_t>(p.k), static_cast<uint64_t>(p.m),
                                           static_cast<uint64_t>(p.a.ld), k.box_a[1], k.box_a[0], arch::TmaSwizzle::k128B, pa);
      map_b = p.b.k_major
                  ? arch::make_tma_desc_2d(p.b.data, eb, static_cast<uint64_t>(p.n), static_cast<uint64_t>(p.k),
                                           static_cast<uint64_t>(p.b.ld), kp.b_box_rows > 0 ? static_cast<unsigned>(kp.b_box_rows) : k.box_b[1],
                                           k.box_b[0], arch::TmaSwizzle::k128B, pb)
                  : arch::make_tma_desc_2d(p.b.data, eb, static_cast<uint64_t>(p.k), static_cast<uint64_t>(p.n),
                                           static_cast<uint64_t>(p.b.ld), k.box_b[1], k.box_b[0], arch::TmaSwizzle::k128B, pb);
      // K tiles issued in pairs (Params::issue_pairs; gemm_detail::issue_pairs): the 16-bit 128 x 128 tile's ring of six
      // where the batch spans one or two tiles, a row's two 128-byte runs of K asked of memory together.  The pairs had
      // been measured faster on every ring of six or more (docs/PERF.md, sixty-fifth to sixty-seventh sections) against
      // a single-stage loop that their own loop over a run-time step had slowed by 4-15%; against the single-stage
      // loop written out apart (b32718e^'s) they lost 2-6% at the 4096^2 shapes on the 64- and 128-row tiles 16 and 64
      // wide and gained nothing elsewhere but on the 128 x 128 tile (128 x 14336 x 4096 36.3 -> 35.4-36.2 us on the H200,
      // sixty-ninth section).
      kp.issue_pairs = gemm_detail::issue_pairs(k.persistent, eb, k.stages, k.block_n, c.tiles_m, c.tiles_n);
      // D through TMA stores where the kernel can and D allows (16-bit, 16-byte aligned base and rows or
      // columns): boxes of 64 x 64 elements along D's contiguous dimension; the map's bounds clip the edges.
      const epilogue::Params& e = kp.ep;
      // Not with split-K: the kernel's store warps know which units store D only when every unit does.
      const bool d16 = e.d_type == Dtype::bf16 || e.d_type == Dtype::f16;  // the kernels stage D as bf16 or f16
      // The contiguous extent a whole number of 16-byte units too: a row of 7 elements in a pitch of 8 had its eighth
      // element written by the TMA store (H200, the FP8 test's m = 7 x n = 264 with a column-major D of ld 8), which
      // would clobber a padded or sliced D's neighbours.
      const int64_t d_inner = e.d_row_major ? p.n : p.m;
      // One split, or (the non-persistent kernels) the two splits of a cluster, each block storing half the tile's rows.
      kp.d_tma = k.tma_store && (kp.splits == 1 || cluster_pair(c)) && d16 && reinterpret_cast<uintptr_t>(e.d) % 16 == 0 && (e.ldd * 2) % 16 == 0 &&
                 (d_inner * 2) % 16 == 0;
      // A 16-bit M x N matrix of D's boxes (64 x 64 along its contiguous dimension), 128-byte swizzled.
      auto map_mn = [&](const void* x, bool row_major, int64_t ld) {
        const uint64_t m = static_cast<uint64_t>(p.m), n = static_cast<uint64_t>(p.n);
        return arch::make_tma_desc_2d(x, 2, row_major ? m : n, row_major ? n : m, static_cast<uint64_t>(ld), k.box_d[1],
                                      k.box_d[0], arch::TmaSwizzle::k128B);
      };
      if (kp.d_tma) map_d = map_mn(e.d, e.d_row_major, e.ldd);
      // The residual through TMA into the staging tiles (the same boxes as D's), where the residual has D's order
      // and its base and rows (or columns) are 16-byte aligned.
      kp.r_tma = kp.d_tma && k.persistent && e.residual != nullptr && e.d_row_major == e.r_row_major &&
                 reinterpret_cast<uintptr_t>(e.residual) % 16 == 0 && (e.ldr * 2) % 16 == 0;
      if (kp.r_tma) map_r = map_mn(e.residual, e.r_row_major, e.ldr);
    } catch (const std::exception& ex) {
      return fail(GemmError::cuda_error, fmt("building the TMA descriptors failed: %s", ex.what()));
    }
    kargs = kargs_sm90;
  }
  // The bare GEMM through TMA stores runs the kernel compiled for it alone, where there is one; so do the menus that
  // kernel also takes (KernelInfo::bare_menus: alpha, a bias of D's type along N or M, relu / gelu_tanh / silu, a
  // residual through TMA; FP8 operands without gelu_tanh, silu or a residual: bare_kernel_menu); 8-bit operands also
  // with per-tensor or channel scales (bare_kernel_scales).
  const void* fn = c.kernel.fn;
  {
    const epilogue::Params& e = kp.ep;
    const bool bias_aligned = e.bias_along == epilogue::kBiasNone || reinterpret_cast<uintptr_t>(e.bias) % 4 == 0;
    if (c.kernel.fn_bare && kp.d_tma && bare_kernel_menu(e, p.in) && bare_kernel_scales(p) &&
        (bare_epilogue(e) || (c.kernel.bare_menus && bias_aligned && (e.residual == nullptr || kp.r_tma))))
      fn = c.kernel.fn_bare;
  }
  // The GEMV's dealt grid (fewer blocks than groups of rows) runs the kernel that loops over groups.
  if (c.kernel.fn_dealt && c.ctas < c.tiles) fn = c.kernel.fn_dealt;
  // The other menus run the general kernel, whose body reads the residual from global memory (it ignores r_tma).
  if (fn != c.kernel.fn_bare) kp.r_tma = false;
  // (cluster_pair: the two K splits of a tile as one cluster.)
  kp.cluster_splits = cluster_pair(c);
  // Clusters: a persistent kernel's cluster_m blocks along M (B multicast), or the two K splits along z.
  const unsigned cluster_x = static_cast<unsigned>(c.kernel.cluster_m > 1 ? c.kernel.cluster_m : 1);
  const unsigned cluster_z = kp.cluster_splits ? static_cast<unsigned>(c.splits) : 1u;
  cudaError_t e;
  if (cluster_x > 1 || cluster_z > 1) {
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = static_cast<size_t>(c.kernel.smem_bytes);
    cfg.stream = stream;
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = cluster_x;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = cluster_z;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    e = cudaLaunchKernelExC(&cfg, fn, kargs);
  } else {
    e = cudaLaunchKernel(fn, grid, block, kargs, static_cast<size_t>(c.kernel.smem_bytes), stream);
  }
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return fail(GemmError::cuda_error, fmt("launch of the %s kernel failed: %s", c.entry->name,
                                           cudaGetErrorString(e)));
  }
  return {};
}

}  // namespace

GemmStatus gemm(const GemmArgs& g, cudaStream_t stream) {
  Problem p;
  Choice c;
  const GemmStatus st = plan_impl(g, g.workspace ? g.workspace_bytes : 0, &p, &c);
  if (!st) return st;
  return launch(p, c, g.workspace, g.workspace_bytes, g.workspace_zeroed, stream);
}

GemmStatus gemm(const GemmArgs& g, cudaStream_t stream, GemmWorkspaceAlloc alloc, void* ctx) {
  if (!alloc || g.workspace) return gemm(g, stream);
  Problem p;
  Choice c;
  GemmStatus st = plan_impl(g, SIZE_MAX, &p, &c);
  if (!st) return st;
  void* ws = nullptr;
  bool zeroed = false;
  if (c.splits > 1 || c.sk_tiles > 0) {  // split-K partial sums, or the stream-K tail's flags and partial tiles
    ws = alloc(c.workspace, ctx, &zeroed);
    if (ws && reinterpret_cast<uintptr_t>(ws) % 16 != 0)
      return invalid(fmt("the workspace allocator returned %p, which is not 16-byte aligned", ws));
    if (!ws) {  // no memory: the best plan without a workspace (a forced split_k > 1 or stream_k on fails in launch())
      st = plan_impl(g, 0, &p, &c);
      if (!st) return st;
    }
  }
  return launch(p, c, ws, ws ? c.workspace : 0, ws && zeroed, stream);
}

// ---- typed overloads ----
namespace {
GemmArgs packed_args(int64_t m, int64_t n, int64_t k, const void* a, const void* b, void* d, Dtype t) {
  GemmArgs g;
  g.m = m;
  g.n = n;
  g.k = k;
  g.a = GemmMatrix{a, t, MatrixOrder::row_major, 0};
  g.b = GemmMatrix{b, t, MatrixOrder::row_major, 0};
  g.d = GemmOutput{d, t, MatrixOrder::row_major, 0};
  return g;
}
}  // namespace

GemmStatus gemm(int64_t m, int64_t n, int64_t k, const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* d,
                cudaStream_t stream) {
  return gemm(packed_args(m, n, k, a, b, d, Dtype::bf16), stream);
}
GemmStatus gemm(int64_t m, int64_t n, int64_t k, const __half* a, const __half* b, __half* d, cudaStream_t stream) {
  return gemm(packed_args(m, n, k, a, b, d, Dtype::f16), stream);
}
GemmStatus gemm(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* d, cudaStream_t stream) {
  return gemm(packed_args(m, n, k, a, b, d, Dtype::f32), stream);
}
GemmStatus gemm_bias_act(int64_t m, int64_t n, int64_t k, const __nv_bfloat16* a, const __nv_bfloat16* b,
                         const __nv_bfloat16* bias, Activation act, __nv_bfloat16* d, cudaStream_t stream) {
  GemmArgs g = packed_args(m, n, k, a, b, d, Dtype::bf16);
  g.bias_mode = BiasMode::per_column;
  g.bias = bias;
  g.bias_type = Dtype::bf16;
  g.bias_size = n;
  g.activation = act;
  return gemm(g, stream);
}
GemmStatus gemm_bias_act(int64_t m, int64_t n, int64_t k, const __half* a, const __half* b, const __half* bias,
                         Activation act, __half* d, cudaStream_t stream) {
  GemmArgs g = packed_args(m, n, k, a, b, d, Dtype::f16);
  g.bias_mode = BiasMode::per_column;
  g.bias = bias;
  g.bias_type = Dtype::f16;
  g.bias_size = n;
  g.activation = act;
  return gemm(g, stream);
}

}  // namespace tessera
