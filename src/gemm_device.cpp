// src/gemm_device.cpp -- the device queries behind the GEMM planner (src/gemm_device.hpp), cached per device and kernel.
#include "gemm_device.hpp"

#include <cuda_runtime.h>  // device queries, occupancy

#include <map>      // std::map
#include <mutex>    // std::mutex
#include <utility>  // std::pair

namespace tessera::gemm_detail {

namespace {

std::mutex g_mutex;  // guards the caches below
std::map<int, DeviceFacts> g_devices;
std::map<std::pair<int, const void*>, int> g_occupancy;  // (device, kernel) -> blocks per SM (0: cannot run)
std::map<std::pair<int, const void*>, bool> g_has_code;  // (device, kernel) -> this build holds its code
std::map<std::pair<int, const void*>, int64_t> g_slots;  // (device, clustered kernel) -> resident blocks

}  // namespace

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
  // The Hopper decode tile runs here (what hopper_decode asks on every call: worked out once per device).
  if (f.cc == 90) {
    const GemmKernelEntry* d = gemm_core::find_gemm_kernel(GemmTile::wgmma128x16);
    const gemm_core::GemmKernelType* t = d ? d->type(GemmMath::tensor_core, Dtype::bf16) : nullptr;
    const void* fn = t ? t->get(Combo::kk).fn : nullptr;
    cudaFuncAttributes attr{};
    f.decode_tile = fn && cudaFuncGetAttributes(&attr, fn) == cudaSuccess;
    // The Hopper s8 kernels (tensor cores, K-major A and B): whether any of them has code here.
    for (const GemmKernelEntry& e : gemm_core::gemm_kernels()) {
      const gemm_core::GemmKernelType* s8 = e.arch == gemm_core::GemmArch::sm90 ? e.type(GemmMath::tensor_core, Dtype::s8) : nullptr;
      const void* s8_fn = s8 ? s8->get(Combo::kk).fn : nullptr;
      if (s8_fn && cudaFuncGetAttributes(&attr, s8_fn) == cudaSuccess) f.s8_tensor_cores = true;
    }
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
    if (e == cudaSuccess && k.fn_bare) e = cudaFuncSetAttribute(k.fn_bare, cudaFuncAttributeMaxDynamicSharedMemorySize, k.smem_bytes);
    if (e == cudaSuccess && k.fn_dealt) e = cudaFuncSetAttribute(k.fn_dealt, cudaFuncAttributeMaxDynamicSharedMemorySize, k.smem_bytes);
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

// Whether this build holds code of kernel `fn` for device `dev` (cudaFuncGetAttributes succeeds);
// cached per device and kernel, so a plan makes no such query after the first.
bool has_code(int dev, const void* fn) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const auto key = std::make_pair(dev, fn);
  auto it = g_has_code.find(key);
  if (it != g_has_code.end()) return it->second;
  cudaFuncAttributes attr{};
  const bool ok = cudaFuncGetAttributes(&attr, fn) == cudaSuccess;
  if (!ok) (void)cudaGetLastError();
  g_has_code[key] = ok;
  return ok;
}

// Blocks of a persistent kernel that can be resident at once: SMs x occupancy, or for a clustered kernel
// whole clusters only (cudaOccupancyMaxActiveClusters: a GPC with an odd number of free SMs leaves one
// idle).  Cached per device and kernel.
GemmStatus resident_blocks(int dev, const DeviceFacts& f, const KernelInfo& k, int occ, int64_t* out) {
  *out = static_cast<int64_t>(f.sms) * occ;
  if (k.cluster_m <= 1) return {};
  std::lock_guard<std::mutex> lock(g_mutex);
  const auto key = std::make_pair(dev, k.fn);
  auto it = g_slots.find(key);
  if (it != g_slots.end()) {
    *out = it->second;
    return {};
  }
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>(k.cluster_m * f.sms), 1, 1);
  cfg.blockDim = dim3(static_cast<unsigned>(k.threads), 1, 1);
  cfg.dynamicSmemBytes = static_cast<size_t>(k.smem_bytes);
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = static_cast<unsigned>(k.cluster_m);
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  int clusters = 0;
  const cudaError_t e = cudaOccupancyMaxActiveClusters(&clusters, k.fn, &cfg);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return fail(GemmError::cuda_error, fmt("querying the resident clusters of %d blocks failed: %s", k.cluster_m,
                                           cudaGetErrorString(e)));
  }
  *out = static_cast<int64_t>(clusters) * k.cluster_m;
  g_slots[key] = *out;
  return {};
}

}  // namespace tessera::gemm_detail
