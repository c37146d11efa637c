// include/tessera/arch/sm90_tma_desc.hpp -- host side of TMA: building a 2-D tensor map (CUtensorMap).
//
// The driver entry point cuTensorMapEncodeTiled is fetched through the runtime
// (cudaGetDriverEntryPointByVersion), so users need not link libcuda themselves.
// Rules the driver enforces (CUDA driver API, "Tensor Map Object Managment"), checked here first so that
// the error names the argument:
//   * global address 16-byte aligned (32 with interleave, unused here);
//   * every global stride but the innermost a multiple of 16 bytes and < 2^40;
//   * each box dimension in [1, 256]; box inner extent * element size a multiple of 16 bytes;
//   * with a swizzle mode, box inner extent * element size <= the swizzle span (32/64/128 bytes).
#pragma once

#include <cuda.h>          // CUtensorMap, CUtensorMapDataType, cuTensorMapEncodeTiled signature
#include <cuda_runtime.h>  // cudaGetDriverEntryPointByVersion

#include <cstdint>    // uint64_t
#include <stdexcept>  // std::invalid_argument, std::runtime_error
#include <string>     // std::string, std::to_string

namespace tessera::arch {

enum class TmaSwizzle { kNone = 0, k32B = 32, k64B = 64, k128B = 128 };
// How much the L2 fetches from DRAM on a miss of a box row: the line alone, 128 or 256 bytes
// (CU_TENSOR_MAP_L2_PROMOTION_NONE, _L2_128B, _L2_256B).
enum class TmaL2Promotion { kNone = 0, k128B = 128, k256B = 256 };

// The promotion for a GEMM operand with rows of `pitch_bytes`: 256 bytes when the rows start 128-byte aligned,
// 128 otherwise.  Measured on the H100 (docs/PERF.md): with rows of 6,000 bytes (K = 3000, bf16) every 128-byte
// box row spans two lines, and 256-byte promotion made the persistent GEMM's main loop 1.3x slower than
// 128-byte promotion; with rows a multiple of 64 bytes the two promotions ran alike.
inline TmaL2Promotion l2_promotion_for_pitch(uint64_t pitch_bytes) {
  return pitch_bytes % 128 == 0 ? TmaL2Promotion::k256B : TmaL2Promotion::k128B;
}

// A 2-D row-major view: `rows` x `cols` elements of `elem_bytes` bytes, row r at base + r*ld_elems.
// Box: box_rows x box_cols elements, placed in shared memory row-major (box_cols innermost).
inline CUtensorMap make_tma_desc_2d(const void* base, int elem_bytes, uint64_t rows, uint64_t cols,
                                    uint64_t ld_elems, uint32_t box_rows, uint32_t box_cols,
                                    TmaSwizzle swizzle = TmaSwizzle::kNone,
                                    TmaL2Promotion promotion = TmaL2Promotion::k256B) {
  auto fail = [](const std::string& m) { throw std::invalid_argument("make_tma_desc_2d: " + m); };
  CUtensorMapDataType dtype;
  switch (elem_bytes) {
    case 1: dtype = CU_TENSOR_MAP_DATA_TYPE_UINT8; break;
    case 2: dtype = CU_TENSOR_MAP_DATA_TYPE_UINT16; break;
    case 4: dtype = CU_TENSOR_MAP_DATA_TYPE_UINT32; break;
    case 8: dtype = CU_TENSOR_MAP_DATA_TYPE_UINT64; break;
    default: fail("elem_bytes must be 1, 2, 4 or 8, got " + std::to_string(elem_bytes));
  }
  if (reinterpret_cast<uintptr_t>(base) % 16 != 0) fail("base address must be 16-byte aligned");
  if (rows == 0 || cols == 0) fail("rows and cols must be positive");
  if (ld_elems < cols) fail("ld (" + std::to_string(ld_elems) + ") must be >= cols (" + std::to_string(cols) + ")");
  if ((ld_elems * elem_bytes) % 16 != 0)
    fail("row pitch ld*elem_bytes = " + std::to_string(ld_elems * elem_bytes) + " bytes must be a multiple of 16");
  if (rows >= (1ull << 32) || cols >= (1ull << 32)) fail("rows and cols must be < 2^32");
  if (box_rows < 1 || box_rows > 256 || box_cols < 1 || box_cols > 256)
    fail("box dimensions must be in [1, 256], got " + std::to_string(box_rows) + " x " + std::to_string(box_cols));
  if ((box_cols * elem_bytes) % 16 != 0)
    fail("box inner extent box_cols*elem_bytes = " + std::to_string(box_cols * elem_bytes) +
         " bytes must be a multiple of 16");
  CUtensorMapSwizzle sw = CU_TENSOR_MAP_SWIZZLE_NONE;
  if (swizzle != TmaSwizzle::kNone) {
    if (box_cols * elem_bytes > static_cast<uint32_t>(swizzle))
      fail("with a " + std::to_string(static_cast<int>(swizzle)) + "-byte swizzle the box inner extent may be at most " +
           std::to_string(static_cast<int>(swizzle)) + " bytes");
    sw = swizzle == TmaSwizzle::k32B ? CU_TENSOR_MAP_SWIZZLE_32B
         : swizzle == TmaSwizzle::k64B ? CU_TENSOR_MAP_SWIZZLE_64B
                                       : CU_TENSOR_MAP_SWIZZLE_128B;
  }

  using EncodeFn = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
  static EncodeFn encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult q{};
    cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q);
    if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !fn)
      throw std::runtime_error("make_tma_desc_2d: the driver does not provide cuTensorMapEncodeTiled (needs CUDA 12+)");
    return reinterpret_cast<EncodeFn>(fn);
  }();

  CUtensorMap map{};
  const cuuint64_t dims[2] = {cols, rows};
  const cuuint64_t strides[1] = {ld_elems * static_cast<uint64_t>(elem_bytes)};
  const cuuint32_t box[2] = {box_cols, box_rows};
  const cuuint32_t elem_strides[2] = {1, 1};
  CUresult r = encode(&map, dtype, 2, const_cast<void*>(base), dims, strides, box, elem_strides,
                      CU_TENSOR_MAP_INTERLEAVE_NONE, sw,
                      promotion == TmaL2Promotion::kNone   ? CU_TENSOR_MAP_L2_PROMOTION_NONE
                      : promotion == TmaL2Promotion::k128B ? CU_TENSOR_MAP_L2_PROMOTION_L2_128B
                                                           : CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw std::runtime_error("make_tma_desc_2d: cuTensorMapEncodeTiled failed with CUresult " + std::to_string(r) +
                             " (rows=" + std::to_string(rows) + " cols=" + std::to_string(cols) +
                             " ld=" + std::to_string(ld_elems) + " box=" + std::to_string(box_rows) + "x" +
                             std::to_string(box_cols) + " elem_bytes=" + std::to_string(elem_bytes) + ")");
  return map;
}

}  // namespace tessera::arch
