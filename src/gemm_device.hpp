// src/gemm_device.hpp -- what the GEMM planner asks of the device (src/gemm_device.cpp): its facts (SMs, compute
// capability, shared memory, the tensor-core rate against DRAM bandwidth, which Hopper kernels this build holds), each
// kernel's occupancy and resident blocks, and whether this build holds a kernel's code -- all cached per device (and
// kernel), so that a plan after the first makes no device query.
#pragma once

#include <cstdint>  // int64_t

#include "gemm_internal.hpp"  // GemmStatus, KernelInfo

namespace tessera::gemm_detail {

struct DeviceFacts {
  int sms = 0;
  int cc = 0;                // major * 10 + minor
  int max_smem_optin = 0;    // bytes per block
  double mac_per_byte = 80;  // tensor-core MAC rate / DRAM bytes per second (both estimated from the device)
  double sm_macs_per_us = 1024.0 * 1500.0;  // tensor-core MACs of one SM in a microsecond
  bool decode_tile = false;  // compute capability 9.0 and this build holds the Hopper decode tile's code
  bool s8_tensor_cores = false;  // compute capability 9.0 and this build holds a Hopper s8 kernel's code (automatic math
                                 // for s8 operands: tensor_core here, dp4a elsewhere; planned_math)
};

// The current device's facts (and its index in *device_out).
GemmStatus device_facts(DeviceFacts* out, int* device_out);
// Blocks per SM of kernel `k` on device `dev` (0 when it cannot run there); sets its shared-memory limit.
GemmStatus occupancy(int dev, const DeviceFacts& f, const KernelInfo& k, int* blocks);
// Whether this build holds code of kernel `fn` for device `dev` (cudaFuncGetAttributes succeeds).
bool has_code(int dev, const void* fn);
// Blocks of a persistent kernel that can be resident at once: SMs x occupancy, or for a clustered kernel whole clusters
// only (cudaOccupancyMaxActiveClusters: a GPC with an odd number of free SMs leaves one idle).
GemmStatus resident_blocks(int dev, const DeviceFacts& f, const KernelInfo& k, int occ, int64_t* out);

}  // namespace tessera::gemm_detail
