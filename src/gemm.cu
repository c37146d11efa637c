// src/gemm.cu -- tessera::gemm: validation, normalisation, planning (tile + split-K) and launch.
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
#include <cuda_runtime.h>  // cudaLaunchKernel, device queries

#include <algorithm>  // std::max, std::min
#include <cinttypes>  // PRId64
#include <cstdarg>   // va_list
#include <cmath>      // std::isfinite, std::isnan
#include <cstdio>     // std::snprintf
#include <cstring>    // std::memset
#include <map>        // std::map
#include <mutex>      // std::mutex
#include <string>     // std::string
#include <utility>    // std::pair

#include "tessera/host/gemm.hpp"                   // the API
#include "tessera/kernel/gemm_sm80/config.hpp"     // Params
#include "tessera/kernel/gemm_sm80/dispatch.hpp"   // KernelInfo, kernel_bf16 ...

namespace tessera {
namespace {

using gemm_sm80::Combo;
using gemm_sm80::KernelInfo;
using gemm_sm80::TileId;

constexpr int64_t kIntMax = 2147483647;

std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char* f, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, f);
  std::vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}

GemmStatus fail(GemmError code, const std::string& msg) { return GemmStatus{code, "tessera::gemm: " + msg}; }
GemmStatus invalid(const std::string& msg) { return fail(GemmError::invalid_argument, msg); }

const char* order_name(MatrixOrder o) { return o == MatrixOrder::row_major ? "row-major" : "column-major"; }
bool is_row_major(MatrixOrder o) { return o == MatrixOrder::row_major; }

// Leading dimension in effect (0 = packed) for a rows x cols matrix.
int64_t effective_ld(int64_t ld, MatrixOrder o, int64_t rows, int64_t cols) {
  return ld != 0 ? ld : (is_row_major(o) ? cols : rows);
}

bool valid_dtype(Dtype t) { return t == Dtype::bf16 || t == Dtype::f16 || t == Dtype::f32; }
bool valid_order(MatrixOrder o) { return o == MatrixOrder::row_major || o == MatrixOrder::col_major; }

// Checks one matrix: pointer, type, order, ld, alignment.  `name` e.g. "a".
GemmStatus check_matrix(const char* name, const void* data, Dtype type, MatrixOrder order, int64_t ld, int64_t rows,
                        int64_t cols) {
  if (!data) return invalid(fmt("argument '%s.data' is null; expected a device pointer to a %" PRId64 " x %" PRId64 " matrix", name, rows, cols));
  if (!valid_dtype(type)) return invalid(fmt("argument '%s.type' is %d; expected Dtype::bf16, f16 or f32", name, static_cast<int>(type)));
  if (!valid_order(order)) return invalid(fmt("argument '%s.order' is %d; expected row_major or col_major", name, static_cast<int>(order)));
  if (ld < 0) return invalid(fmt("argument '%s.ld' is %" PRId64 "; expected 0 (packed) or a positive leading dimension", name, ld));
  const int64_t need = is_row_major(order) ? cols : rows;
  const int64_t eff = effective_ld(ld, order, rows, cols);
  if (eff < need)
    return invalid(fmt("argument '%s.ld' is %" PRId64 "; %s is %s %" PRId64 " x %" PRId64 ", so ld must be >= %" PRId64, name, ld,
                       name, order_name(order), rows, cols, need));
  const int64_t outer = is_row_major(order) ? rows : cols;
  if (eff > 0 && outer > 1 && eff > (int64_t(1) << 62) / outer)
    return invalid(fmt("argument '%s.ld' is %" PRId64 "; ld * %" PRId64 " overflows 64-bit indexing", name, eff, outer));
  const int bytes = dtype_bytes(type);
  if (reinterpret_cast<uintptr_t>(data) % bytes != 0)
    return invalid(fmt("argument '%s.data' (%p) is not aligned to its element size (%d bytes for %s)", name, data, bytes,
                       dtype_name(type)));
  return {};
}

// Byte range [first, last) that a matrix's elements can touch.
std::pair<uintptr_t, uintptr_t> byte_range(const void* data, Dtype t, MatrixOrder o, int64_t ld, int64_t rows, int64_t cols) {
  const int64_t outer = is_row_major(o) ? rows : cols, inner = is_row_major(o) ? cols : rows;
  const int64_t eff = effective_ld(ld, o, rows, cols);
  const uintptr_t first = reinterpret_cast<uintptr_t>(data);
  return {first, first + static_cast<uintptr_t>(((outer - 1) * eff + inner) * dtype_bytes(t))};
}
bool ranges_overlap(std::pair<uintptr_t, uintptr_t> a, std::pair<uintptr_t, uintptr_t> b) {
  return a.first < b.second && b.first < a.second;
}

// ---------------------------------------------------------------------------------------------------
// device facts (cached per device) and kernel occupancy (cached per device and kernel)
// ---------------------------------------------------------------------------------------------------
struct DeviceFacts {
  int sms = 0;
  int cc = 0;                // major * 10 + minor
  int max_smem_optin = 0;    // bytes per block
  double mac_per_byte = 80;  // tensor-core MAC rate / DRAM bytes per second (both estimated from the device)
  double sm_macs_per_us = 1024.0 * 1500.0;  // tensor-core MACs of one SM in a microsecond
};

std::mutex g_mutex;
std::map<int, DeviceFacts> g_devices;
std::map<std::pair<int, const void*>, int> g_occupancy;  // (device, kernel) -> blocks per SM (0: cannot run)

GemmStatus device_facts(DeviceFacts* out, int* device_out) {
  int dev = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e != cudaSuccess) return fail(GemmError::cuda_error, fmt("cudaGetDevice failed: %s", cudaGetErrorString(e)));
  *device_out = dev;
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_devices.find(dev);
  if (it != g_devices.end()) {
    *out = it->second;
    return {};
  }
  DeviceFacts f;
  int major = 0, minor = 0, clock_khz = 0, mem_khz = 0, bus_bits = 0;
  const cudaError_t errs[] = {
      cudaDeviceGetAttribute(&f.sms, cudaDevAttrMultiProcessorCount, dev),
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev),
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev),
      cudaDeviceGetAttribute(&f.max_smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev),
  };
  for (cudaError_t x : errs)
    if (x != cudaSuccess) return fail(GemmError::cuda_error, fmt("device query failed: %s", cudaGetErrorString(x)));
  f.cc = major * 10 + minor;
  // Clock and memory figures only tune the cost model; a missing one keeps the default ratio.
  if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev) == cudaSuccess &&
      cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev) == cudaSuccess &&
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev) == cudaSuccess && clock_khz > 0 &&
      mem_khz > 0 && bus_bits > 0) {
    // mma.sync: 1024 16-bit MACs per SM per clock (Ampere's rate; what the sm80 path gets on Hopper too);
    // DRAM: double data rate over the bus.
    const double macs = 1024.0 * f.sms * clock_khz * 1e3;
    const double bytes = 2.0 * mem_khz * 1e3 * bus_bits / 8.0;
    f.mac_per_byte = macs / bytes;
    f.sm_macs_per_us = 1024.0 * clock_khz / 1e3;
  }
  (void)cudaGetLastError();
  g_devices[dev] = f;
  *out = f;
  return {};
}

// Blocks per SM of kernel `k` on device `dev` (0 when it cannot run there); sets its shared-memory limit.
GemmStatus occupancy(int dev, const DeviceFacts& f, const KernelInfo& k, int* blocks) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const auto key = std::make_pair(dev, k.fn);
  auto it = g_occupancy.find(key);
  if (it != g_occupancy.end()) {
    *blocks = it->second;
    return {};
  }
  int n = 0;
  if (k.smem_bytes <= f.max_smem_optin) {
    cudaError_t e = cudaFuncSetAttribute(k.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, k.smem_bytes);
    if (e == cudaSuccess) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, k.fn, k.threads, k.smem_bytes);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      return fail(GemmError::cuda_error, fmt("preparing the kernel (%d threads, %d bytes of shared memory) failed: %s",
                                             k.threads, k.smem_bytes, cudaGetErrorString(e)));
    }
  }
  g_occupancy[key] = n;
  *blocks = n;
  return {};
}

// ---------------------------------------------------------------------------------------------------
// normalised problem
// ---------------------------------------------------------------------------------------------------
struct Operand {
  const void* data = nullptr;
  int64_t ld = 0;
  bool k_major = true;
};

struct Problem {
  GemmMath math = GemmMath::tensor_core;
  Dtype in = Dtype::bf16;
  int64_t m = 0, n = 0, k = 0;
  Operand a, b;
  bool transposed = false;
  epilogue::Params ep;
};

bool vec16(const void* p, int64_t ld, int bytes) {
  return reinterpret_cast<uintptr_t>(p) % 16 == 0 && (ld * bytes) % 16 == 0;
}

GemmMath resolve_math(const GemmArgs& a) {
  if (a.math != GemmMath::automatic) return a.math;
  return a.a.type == Dtype::f32 ? GemmMath::fp32_exact : GemmMath::tensor_core;
}

bool tile_supports(GemmTile t, GemmMath m) {
  switch (t) {
    case GemmTile::automatic: return true;
    case GemmTile::t128x256: return m == GemmMath::tensor_core;
    case GemmTile::t128x128: return m == GemmMath::tensor_core || m == GemmMath::tf32;
    case GemmTile::t64x64: return m == GemmMath::tensor_core || m == GemmMath::tf32;
    case GemmTile::t16x128: return m == GemmMath::tensor_core;
    case GemmTile::simt128x128: return m == GemmMath::fp32_exact;
  }
  return false;
}

const char* math_name(GemmMath m) {
  switch (m) {
    case GemmMath::automatic: return "automatic";
    case GemmMath::tensor_core: return "tensor_core";
    case GemmMath::tf32: return "tf32";
    case GemmMath::fp32_exact: return "fp32_exact";
  }
  return "?";
}

const char* gemm_tile_name(GemmTile t) {
  switch (t) {
    case GemmTile::automatic: return "automatic";
    case GemmTile::t128x256: return "128x256x64";
    case GemmTile::t128x128: return "128x128x64";
    case GemmTile::t64x64: return "64x64x64";
    case GemmTile::t16x128: return "16x128x64";
    case GemmTile::simt128x128: return "simt128x128x8";
  }
  return "?";
}

TileId to_tile_id(GemmTile t) {
  switch (t) {
    case GemmTile::t128x256: return TileId::t128x256;
    case GemmTile::t128x128: return TileId::t128x128;
    case GemmTile::t64x64: return TileId::t64x64;
    case GemmTile::t16x128: return TileId::t16x128;
    default: return TileId::simt128x128;
  }
}
GemmTile to_gemm_tile(TileId t) {
  switch (t) {
    case TileId::t128x256: return GemmTile::t128x256;
    case TileId::t128x128: return GemmTile::t128x128;
    case TileId::t64x64: return GemmTile::t64x64;
    case TileId::t16x128: return GemmTile::t16x128;
    case TileId::simt128x128: return GemmTile::simt128x128;
  }
  return GemmTile::automatic;
}

// Steps 2: the problem the kernels compute.
Problem normalise(const GemmArgs& g) {
  Problem p;
  p.math = resolve_math(g);
  p.in = g.a.type;
  p.m = g.m;
  p.n = g.n;
  p.k = g.k;
  // A (m x k) is K-major when row-major; B (k x n) is K-major when column-major.
  p.a = Operand{g.a.data, effective_ld(g.a.ld, g.a.order, g.m, g.k), is_row_major(g.a.order)};
  p.b = Operand{g.b.data, effective_ld(g.b.ld, g.b.order, g.k, g.n), !is_row_major(g.b.order)};

  epilogue::Params& e = p.ep;
  e.alpha = g.alpha;
  e.beta = g.beta;
  e.d = g.d.data;
  e.d_type = g.d.type;
  e.ldd = effective_ld(g.d.ld, g.d.order, g.m, g.n);
  e.d_row_major = is_row_major(g.d.order);
  if (g.beta != 0.f) {
    e.c = g.c.data;
    e.ldc = effective_ld(g.c.ld, g.c.order, g.m, g.n);
    e.c_row_major = is_row_major(g.c.order);
  }
  if (g.residual.data) {
    e.residual = g.residual.data;
    e.ldr = effective_ld(g.residual.ld, g.residual.order, g.m, g.n);
    e.r_row_major = is_row_major(g.residual.order);
  }
  e.bias = g.bias_mode == BiasMode::none ? nullptr : g.bias;
  e.bias_along = g.bias_mode == BiasMode::none         ? epilogue::kBiasNone
                 : g.bias_mode == BiasMode::per_row    ? epilogue::kBiasAlongM
                 : g.bias_mode == BiasMode::per_column ? epilogue::kBiasAlongN
                                                       : epilogue::kBiasScalar;
  e.bias_f32 = g.bias_type == Dtype::f32;
  e.act = g.activation;
  e.act_p0 = g.activation == Activation::leaky_relu ? g.leaky_relu_slope : g.clamp_lo;
  e.act_p1 = g.clamp_hi;

  if (p.math != GemmMath::fp32_exact) {
    // (M-major A, K-major B) has no kernel of its own: transpose.  Decode-shaped problems with the small
    // extent in n and a K-major B become decode-shaped in m (the 16 x 128 tile wants a K-major A).
    const bool mk = !p.a.k_major && p.b.k_major;
    const bool decode_t = p.math == GemmMath::tensor_core && g.n <= 16 && g.m > 16 && p.b.k_major;
    if (mk || decode_t) {
      p.transposed = true;
      std::swap(p.m, p.n);
      std::swap(p.a, p.b);  // A' = B^T keeps B's majorness: K stays K, N becomes M'
      e.d_row_major = !e.d_row_major;
      e.c_row_major = !e.c_row_major;
      e.r_row_major = !e.r_row_major;
      if (e.bias_along == epilogue::kBiasAlongM) e.bias_along = epilogue::kBiasAlongN;
      else if (e.bias_along == epilogue::kBiasAlongN) e.bias_along = epilogue::kBiasAlongM;
    }
  }
  e.m = static_cast<int>(p.m);
  e.n = static_cast<int>(p.n);
  const int ob = dtype_bytes(e.d_type);
  e.d_vec = vec16(e.d, e.ldd, ob);
  e.c_vec = e.c && vec16(e.c, e.ldc, ob);
  e.r_vec = e.residual && vec16(e.residual, e.ldr, ob);
  return p;
}

Combo combo_of(const Problem& p) {
  if (p.a.k_major && p.b.k_major) return Combo::kk;
  if (p.a.k_major) return Combo::k_mn;
  return Combo::mn_mn;  // (M-major, K-major) was transposed away
}

KernelInfo kernel_for(const Problem& p, TileId t) {
  if (p.math == GemmMath::fp32_exact) return t == TileId::simt128x128 ? gemm_sm80::kernel_simt_f32() : KernelInfo{};
  if (t == TileId::simt128x128) return {};
  const Combo c = combo_of(p);
  if (p.math == GemmMath::tf32) return gemm_sm80::kernel_tf32(t, c);
  return p.in == Dtype::bf16 ? gemm_sm80::kernel_bf16(t, c) : gemm_sm80::kernel_f16(t, c);
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Workspace layout: [tiles counters (int), padded to 256 bytes][tiles * splits partial tiles (fp32)].
size_t counters_bytes(int64_t tiles) { return static_cast<size_t>((tiles * 4 + 255) / 256 * 256); }
size_t workspace_for(int64_t tiles, int splits, const KernelInfo& k) {
  if (splits <= 1) return 0;
  return counters_bytes(tiles) + static_cast<size_t>(tiles) * splits * k.block_m * k.block_n * sizeof(float);
}

struct Choice {
  KernelInfo kernel;
  TileId tile = TileId::t128x256;
  int splits = 1;
  int64_t tiles = 0;
  int tiles_m = 0, tiles_n = 0;
  int occupancy = 0;
  double cost = 0;
  size_t workspace = 0;
};

// Relative efficiency of each tensor-core tile (fraction of the mma.sync rate a full wave reaches).
double tile_efficiency(TileId t) {
  switch (t) {
    case TileId::t128x256: return 1.0;
    case TileId::t128x128: return 0.9;
    case TileId::t64x64: return 0.65;
    case TileId::t16x128: return 0.5;
    case TileId::simt128x128: return 1.0;
  }
  return 0.5;
}

// Cost (in MAC-time units of one SM) of running kernel k with `splits` K splits.
double plan_cost(const Problem& p, const DeviceFacts& f, const KernelInfo& k, TileId t, int occ, int64_t tiles,
                 int splits, int per_split) {
  const double slots = static_cast<double>(f.sms) * occ;
  const double blocks = static_cast<double>(tiles) * splits;
  const double waves = std::ceil(blocks / slots);
  const double block_macs = static_cast<double>(k.block_m) * k.block_n * per_split * k.block_k;
  // tf32 runs at half the 16-bit tensor-core rate; FFMA at about a sixteenth
  const double rate_scale = p.math == GemmMath::tf32 ? 2.0 : p.math == GemmMath::fp32_exact ? 16.0 : 1.0;
  const double t_compute = waves * block_macs * occ / tile_efficiency(t) * rate_scale;
  const int in_b = dtype_bytes(p.in), out_b = dtype_bytes(p.ep.d_type);
  const double bytes = static_cast<double>(p.m * p.k + p.k * p.n) * in_b + static_cast<double>(p.m) * p.n * out_b;
  // Bandwidth is only saturated while every slot holds a block: `busy` is the used share of slot-time.
  const double busy = blocks / (waves * slots);
  const double t_mem = bytes * f.mac_per_byte / f.sms / busy;
  // Split-K: the partial tiles are written and read after the main loop (not overlapped with it), and
  // the counter reset plus the fix-up's serial tail cost about 2 us.
  const double partial_bytes = splits > 1 ? blocks * k.block_m * k.block_n * 4.0 * 2.0 : 0.0;
  const double t_fix = partial_bytes * f.mac_per_byte / f.sms / busy + (splits > 1 ? 2.0 * f.sm_macs_per_us : 0.0);
  return std::max(t_compute, t_mem) + t_fix;
}

// Step 3.  `workspace_limit`: bytes available for split-K (SIZE_MAX: unlimited, for the size query).
GemmStatus choose(const GemmArgs& g, const Problem& p, size_t workspace_limit, Choice* out) {
  DeviceFacts f;
  int dev = 0;
  GemmStatus st = device_facts(&f, &dev);
  if (!st) return st;
  if (f.cc < 80)
    return fail(GemmError::unsupported, fmt("the GEMM kernels need a GPU of compute capability 8.0 or newer; device %d is %d.%d",
                                            dev, f.cc / 10, f.cc % 10));
  TileId tiles_all[] = {TileId::t128x256, TileId::t128x128, TileId::t64x64, TileId::t16x128, TileId::simt128x128};
  bool have = false;
  Choice best;
  std::string too_many_splits;
  for (TileId t : tiles_all) {
    if (g.tile != GemmTile::automatic && to_tile_id(g.tile) != t) continue;
    const KernelInfo k = kernel_for(p, t);
    if (!k.fn) continue;
    // The decode tile only for m <= 16 (unless forced); larger tiles not for m <= 16 when it exists.
    if (g.tile == GemmTile::automatic) {
      if (t == TileId::t16x128 && p.m > 16) continue;
      if (t != TileId::t16x128 && p.m <= 16 && kernel_for(p, TileId::t16x128).fn) continue;
    }
    int occ = 0;
    st = occupancy(dev, f, k, &occ);
    if (!st) return st;
    if (occ == 0) continue;
    const int64_t tm = ceil_div(p.m, k.block_m), tn = ceil_div(p.n, k.block_n), tiles = tm * tn;
    if (tiles > kIntMax) continue;  // blockIdx.x enumerates the tiles
    const int64_t k_tiles = ceil_div(p.k, k.block_k);
    int s_lo = 1, s_hi = 1;
    if (g.split_k > 0) {
      s_lo = s_hi = g.split_k;
    } else if (tiles < static_cast<int64_t>(f.sms) * occ) {
      // Split only when the tiles alone leave slots empty; at least 2 K tiles per split.
      s_hi = static_cast<int>(std::min<int64_t>({k_tiles / 2, 32, 65535}));
      if (s_hi < 1) s_hi = 1;
    }
    if (s_lo > k_tiles) {  // a forced split needs at least one K tile per split
      too_many_splits = fmt("argument 'split_k' is %d; K = %" PRId64 " has only %" PRId64 " K tiles of %d for the %s tile, "
                            "so at most %" PRId64 " splits",
                            g.split_k, g.k, k_tiles, k.block_k, gemm_sm80::tile_name(t), k_tiles);
      continue;
    }
    for (int s = s_lo; s <= s_hi; ++s) {
      const int per = static_cast<int>(ceil_div(k_tiles, s));  // longest K range
      const int s_eff = s;
      const size_t ws = workspace_for(tiles, s_eff, k);
      if (s_eff > 1 && ws > workspace_limit && g.split_k == 0) continue;
      const double cost = plan_cost(p, f, k, t, occ, tiles, s_eff, per);
      if (!have || cost < best.cost) {
        have = true;
        best.kernel = k;
        best.tile = t;
        best.splits = s_eff;
        best.tiles = tiles;
        best.tiles_m = static_cast<int>(tm);
        best.tiles_n = static_cast<int>(tn);
        best.occupancy = occ;
        best.cost = cost;
        best.workspace = ws;
      }
    }
  }
  if (!have) {
    if (!too_many_splits.empty()) return invalid(too_many_splits);
    if (g.tile != GemmTile::automatic)
      return fail(GemmError::unsupported,
                  fmt("tile %s is not built for this problem (math %s, %s operands, A %s-major, B %s-major after "
                      "normalisation%s) or cannot run on this device",
                      gemm_tile_name(g.tile), math_name(p.math), dtype_name(p.in), p.a.k_major ? "K" : "M",
                      p.b.k_major ? "K" : "N", p.transposed ? ", transposed" : ""));
    return fail(GemmError::unsupported, "no GEMM kernel can run this problem on this device");
  }
  *out = best;
  return {};
}

}  // namespace

// ---------------------------------------------------------------------------------------------------
// public API
// ---------------------------------------------------------------------------------------------------
GemmStatus gemm_validate(const GemmArgs& g) {
  const char* dims[] = {"m", "n", "k"};
  const int64_t vals[] = {g.m, g.n, g.k};
  for (int i = 0; i < 3; ++i) {
    if (vals[i] < 1) return invalid(fmt("argument '%s' is %" PRId64 "; expected %s >= 1", dims[i], vals[i], dims[i]));
    if (vals[i] > kIntMax)
      return invalid(fmt("argument '%s' is %" PRId64 "; expected %s <= 2147483647", dims[i], vals[i], dims[i]));
  }
  GemmStatus st = check_matrix("a", g.a.data, g.a.type, g.a.order, g.a.ld, g.m, g.k);
  if (!st) return st;
  st = check_matrix("b", g.b.data, g.b.type, g.b.order, g.b.ld, g.k, g.n);
  if (!st) return st;
  st = check_matrix("d", g.d.data, g.d.type, g.d.order, g.d.ld, g.m, g.n);
  if (!st) return st;
  if (g.a.type != g.b.type)
    return invalid(fmt("arguments 'a.type' (%s) and 'b.type' (%s) differ; A and B must have the same type",
                       dtype_name(g.a.type), dtype_name(g.b.type)));
  switch (g.math) {
    case GemmMath::automatic: break;
    case GemmMath::tensor_core:
      if (g.a.type == Dtype::f32)
        return invalid("argument 'math' is tensor_core with f32 operands; tensor_core takes bf16 or f16 operands, use "
                       "GemmMath::tf32 or fp32_exact for f32");
      break;
    case GemmMath::tf32:
    case GemmMath::fp32_exact:
      if (g.a.type != Dtype::f32)
        return invalid(fmt("argument 'math' is %s with %s operands; %s takes f32 operands (use tensor_core for bf16/f16)",
                           math_name(g.math), dtype_name(g.a.type), math_name(g.math)));
      break;
    default: return invalid(fmt("argument 'math' is %d; expected a GemmMath value", static_cast<int>(g.math)));
  }
  if (!std::isfinite(g.alpha)) return invalid(fmt("argument 'alpha' is %g; expected a finite value", g.alpha));
  if (!std::isfinite(g.beta)) return invalid(fmt("argument 'beta' is %g; expected a finite value", g.beta));
  if (g.beta != 0.f) {
    st = check_matrix("c", g.c.data, g.c.type, g.c.order, g.c.ld, g.m, g.n);
    if (!st) {
      st.message += " (C is read because beta != 0)";
      return st;
    }
    if (g.c.type != g.d.type)
      return invalid(fmt("argument 'c.type' is %s; C must have D's type (%s)", dtype_name(g.c.type), dtype_name(g.d.type)));
  }
  if (g.residual.data) {
    st = check_matrix("residual", g.residual.data, g.residual.type, g.residual.order, g.residual.ld, g.m, g.n);
    if (!st) return st;
    if (g.residual.type != g.d.type)
      return invalid(fmt("argument 'residual.type' is %s; the residual must have D's type (%s)", dtype_name(g.residual.type),
                         dtype_name(g.d.type)));
  }
  switch (g.bias_mode) {
    case BiasMode::none: break;
    case BiasMode::per_column:
    case BiasMode::per_row:
    case BiasMode::scalar: {
      const int64_t need = g.bias_mode == BiasMode::per_column ? g.n : g.bias_mode == BiasMode::per_row ? g.m : 1;
      if (!g.bias)
        return invalid(fmt("argument 'bias' is null with bias_mode %s; expected a device pointer to %" PRId64 " values",
                           bias_mode_name(g.bias_mode), need));
      if (g.bias_type != Dtype::f32 && g.bias_type != g.d.type)
        return invalid(fmt("argument 'bias_type' is %s; expected f32 or D's type (%s)", dtype_name(g.bias_type),
                           dtype_name(g.d.type)));
      if (g.bias_size != need)
        return invalid(fmt("argument 'bias_size' is %" PRId64 "; a %s bias of this %" PRId64 " x %" PRId64
                           " problem has %" PRId64 " values (%s)",
                           g.bias_size, bias_mode_name(g.bias_mode), g.m, g.n, need,
                           g.bias_mode == BiasMode::per_column ? "n" : g.bias_mode == BiasMode::per_row ? "m" : "one"));
      if (reinterpret_cast<uintptr_t>(g.bias) % dtype_bytes(g.bias_type) != 0)
        return invalid(fmt("argument 'bias' (%p) is not aligned to its element size (%d bytes)", g.bias, dtype_bytes(g.bias_type)));
      break;
    }
    default: return invalid(fmt("argument 'bias_mode' is %d; expected a BiasMode value", static_cast<int>(g.bias_mode)));
  }
  switch (g.activation) {
    case Activation::none:
    case Activation::relu:
    case Activation::gelu_tanh:
    case Activation::gelu_erf:
    case Activation::silu: break;
    case Activation::leaky_relu:
      if (!std::isfinite(g.leaky_relu_slope))
        return invalid(fmt("argument 'leaky_relu_slope' is %g; expected a finite value", g.leaky_relu_slope));
      break;
    case Activation::clamp:
      if (std::isnan(g.clamp_lo) || std::isnan(g.clamp_hi) || !(g.clamp_lo <= g.clamp_hi))
        return invalid(fmt("arguments 'clamp_lo' (%g) and 'clamp_hi' (%g) must satisfy clamp_lo <= clamp_hi (no NaN)",
                           g.clamp_lo, g.clamp_hi));
      break;
    default: return invalid(fmt("argument 'activation' is %d; expected an Activation value", static_cast<int>(g.activation)));
  }
  // D must not overlap the inputs (C may be D itself, with the same order and ld).
  const auto rd = byte_range(g.d.data, g.d.type, g.d.order, g.d.ld, g.m, g.n);
  if (ranges_overlap(rd, byte_range(g.a.data, g.a.type, g.a.order, g.a.ld, g.m, g.k)))
    return invalid("arguments 'd' and 'a' overlap; D must not share memory with A");
  if (ranges_overlap(rd, byte_range(g.b.data, g.b.type, g.b.order, g.b.ld, g.k, g.n)))
    return invalid("arguments 'd' and 'b' overlap; D must not share memory with B");
  if (g.beta != 0.f && ranges_overlap(rd, byte_range(g.c.data, g.c.type, g.c.order, g.c.ld, g.m, g.n))) {
    const bool same = g.c.data == g.d.data && g.c.order == g.d.order &&
                      effective_ld(g.c.ld, g.c.order, g.m, g.n) == effective_ld(g.d.ld, g.d.order, g.m, g.n);
    if (!same)
      return invalid("arguments 'c' and 'd' overlap without being the same matrix; C may alias D only with the same "
                     "data pointer, order and ld");
  }
  if (g.residual.data &&
      ranges_overlap(rd, byte_range(g.residual.data, g.residual.type, g.residual.order, g.residual.ld, g.m, g.n)))
    return invalid("arguments 'residual' and 'd' overlap; the residual must not share memory with D");

  const GemmMath math = resolve_math(g);
  switch (g.tile) {
    case GemmTile::automatic:
    case GemmTile::t128x256:
    case GemmTile::t128x128:
    case GemmTile::t64x64:
    case GemmTile::t16x128:
    case GemmTile::simt128x128: break;
    default: return invalid(fmt("argument 'tile' is %d; expected a GemmTile value", static_cast<int>(g.tile)));
  }
  if (!tile_supports(g.tile, math))
    return invalid(fmt("argument 'tile' is %s, which does not run math %s", gemm_tile_name(g.tile), math_name(math)));
  if (g.split_k < 0 || g.split_k > 65535)
    return invalid(fmt("argument 'split_k' is %d; expected 0 (automatic) or 1..65535", g.split_k));
  if (g.workspace && reinterpret_cast<uintptr_t>(g.workspace) % 16 != 0)
    return invalid(fmt("argument 'workspace' (%p) must be 16-byte aligned", g.workspace));
  if (!g.workspace && g.workspace_bytes != 0)
    return invalid(fmt("argument 'workspace' is null but workspace_bytes is %zu", g.workspace_bytes));
  return {};
}

std::string GemmPlan::str() const {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s %s split %d%s, %" PRId64 " tiles, %d block%s/SM, %d threads, %d B smem, workspace %zu B",
                math == GemmMath::fp32_exact ? "simt" : math == GemmMath::tf32 ? "tc-tf32" : "tc",
                math == GemmMath::tf32 ? (tile == GemmTile::t128x128 ? "128x128x32" : "64x64x32") : gemm_tile_name(tile),
                split_k, transposed ? " (transposed)" : "", grid_tiles, blocks_per_sm, blocks_per_sm == 1 ? "" : "s",
                threads, smem_bytes, workspace_bytes);
  return buf;
}

namespace {
GemmStatus plan_impl(const GemmArgs& g, size_t ws_limit, Problem* prob, Choice* choice) {
  GemmStatus st = gemm_validate(g);
  if (!st) return st;
  *prob = normalise(g);
  return choose(g, *prob, ws_limit, choice);
}

void fill_plan(const Problem& p, const Choice& c, GemmPlan* plan) {
  plan->tile = to_gemm_tile(c.tile);
  plan->math = p.math;
  plan->split_k = c.splits;
  plan->transposed = p.transposed;
  plan->grid_tiles = c.tiles;
  plan->blocks_per_sm = c.occupancy;
  plan->threads = c.kernel.threads;
  plan->smem_bytes = c.kernel.smem_bytes;
  plan->workspace_bytes = c.workspace;
}
}  // namespace

GemmStatus gemm_plan(const GemmArgs& g, GemmPlan* plan) {
  if (!plan) return invalid("argument 'plan' is null");
  Problem p;
  Choice c;
  GemmStatus st = plan_impl(g, g.workspace ? g.workspace_bytes : 0, &p, &c);
  if (!st) return st;
  fill_plan(p, c, plan);
  return {};
}

size_t gemm_workspace_size(const GemmArgs& g) {
  Problem p;
  Choice c;
  if (!plan_impl(g, SIZE_MAX, &p, &c)) return 0;
  return c.workspace;
}

GemmStatus gemm(const GemmArgs& g, cudaStream_t stream) {
  Problem p;
  Choice c;
  GemmStatus st = plan_impl(g, g.workspace ? g.workspace_bytes : 0, &p, &c);
  if (!st) return st;
  if (c.splits > 1 && (!g.workspace || g.workspace_bytes < c.workspace))
    return fail(GemmError::insufficient_workspace,
                fmt("split_k %d with tile %s needs a workspace of %zu bytes (gemm_workspace_size); got %zu", c.splits,
                    gemm_tile_name(to_gemm_tile(c.tile)), c.workspace, g.workspace ? g.workspace_bytes : size_t(0)));

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
  kp.group_m = std::min(8, c.tiles_m);
  kp.splits = c.splits;
  kp.ep = p.ep;
  if (c.splits > 1) {
    kp.counters = static_cast<int*>(g.workspace);
    kp.partials = reinterpret_cast<float*>(static_cast<unsigned char*>(g.workspace) + counters_bytes(c.tiles));
    if (!g.workspace_zeroed) {
      const cudaError_t e = cudaMemsetAsync(g.workspace, 0, static_cast<size_t>(c.tiles) * sizeof(int), stream);
      if (e != cudaSuccess) return fail(GemmError::cuda_error, fmt("cudaMemsetAsync of the split-K counters failed: %s", cudaGetErrorString(e)));
    }
  }
  const dim3 grid(static_cast<unsigned>(c.tiles), 1, static_cast<unsigned>(c.splits));
  const dim3 block(static_cast<unsigned>(c.kernel.threads));
  void* kargs[] = {&kp};
  const cudaError_t e = cudaLaunchKernel(c.kernel.fn, grid, block, kargs, static_cast<size_t>(c.kernel.smem_bytes), stream);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return fail(GemmError::cuda_error, fmt("launch of the %s kernel failed: %s", gemm_tile_name(to_gemm_tile(c.tile)),
                                           cudaGetErrorString(e)));
  }
  return {};
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
