// include/tessera/kernel/copy/pipeline.hpp -- streaming through shared memory: synchronous loads vs an
// N-stage cp.async pipeline vs cuda::pipeline / cuda::memcpy_async (include from .cu files only).
//
// Every kernel computes y[i] = f^work(x[i]) with f(v) = v*a + b (one FMA), so `work` sets the
// arithmetic per element (2*work flop per 8 bytes moved) and shows when latency hiding matters.
// The data path is the same in all three: a tile of kTileFloats floats is brought into shared memory
// (one 16-byte chunk per thread per repetition), then each thread reads *other* threads' chunks back
// (a scalar read-out with its own thread mapping, hence the barrier), computes and stores.
//
//   pipeline_sync_kernel         ld.global -> registers -> st.shared; barrier; compute.  Nothing of
//                                the next tile is in flight while a tile is computed.
//   pipeline_cp_async_kernel     cp.async into kStages buffers, commit/wait_group: kStages-1 tiles in
//                                flight while one is computed (kStages = 1: load, wait, compute).
//   pipeline_cuda_kernel         the same with cuda::pipeline<thread_scope_block> and
//                                cuda::memcpy_async (libcu++), kStages stages.
// Tiles are walked persistently (tile blockIdx.x, +gridDim.x, ...); the grid size is chosen by the host.
#pragma once

#include <cooperative_groups.h>  // this_thread_block
#include <cuda/pipeline>         // cuda::pipeline, cuda::memcpy_async

#include "tessera/algorithm/copy.hpp"      // copy, Residue
#include "tessera/arch/sm80_cp_async.hpp"  // cp_async_commit, cp_async_wait
#include "tessera/atom/tiled_copy.hpp"     // TiledCopy, views

namespace tessera::kernel {

struct PipelineArgs {
  const float* x;
  float* y;
  Int n;
  int work;  // FMAs per element
  float a, b;
  Int num_tiles;
};

struct PipelineConfig {
  static constexpr int kThreads = 256;
  // Load side: (1,256) threads x (1,4) floats = one 16-byte chunk per thread, 2 repetitions.
  static constexpr Layout kLoadThr = make_layout_row_major(make_tuple(Int(1), Int(kThreads)));
  static constexpr Layout kLoadVal = make_layout_row_major(make_tuple(Int(1), Int(4)));
  static constexpr int kLoadRep = 2;
  using G2S = TiledCopy<Sm80CpAsyncCg16, float, kLoadThr, kLoadVal>;
  using G2R = TiledCopy<UniversalCopy<128>, float, kLoadThr, kLoadVal>;
  using R2S = G2R;
  // Read-out side: (1,256) threads x 1 float, 8 repetitions: thread t reads floats t, t+256, ...
  static constexpr Layout kReadVal = make_layout_row_major(make_tuple(Int(1), Int(1)));
  static constexpr int kReadRep = 8;
  using S2R = TiledCopy<UniversalCopy<32>, float, kLoadThr, kReadVal>;
  using R2G = S2R;
  static constexpr int kTileFloats = kLoadRep * G2S::kTileN;  // 2048 floats = 8 KB
  static_assert(kTileFloats == kReadRep * S2R::kTileN, "PipelineConfig: load and read-out must cover the same tile");
  static constexpr Layout kSmem = make_layout_row_major(make_tuple(Int(1), Int(kTileFloats)));  // (1,TILE)
};

TESSERA_DEVICE_INLINE float pipeline_work(float v, int work, float a, float b) {
  for (int i = 0; i < work; ++i) v = fmaf(v, a, b);
  return v;
}

// Reads the tile out of shared memory (each thread its own read-out values), computes, stores.
TESSERA_DEVICE_INLINE void pipeline_consume(const PipelineArgs& p, const float* stage, Int tile) {
  using Cfg = PipelineConfig;
  const ThrCopy thr = Cfg::S2R::get_slice(threadIdx.x);
  const Int n0 = tile * Cfg::kTileFloats;
  Fragment<float, Cfg::kReadRep> rY;
  copy<1, Cfg::kReadRep>(typename Cfg::S2R{}, thr.partition_S(StaticView<const float, Cfg::kSmem>{stage}), rY,
                         Residue{1, Cfg::kTileFloats});
#pragma unroll
  for (int j = 0; j < Cfg::kReadRep; ++j) rY.v[j] = pipeline_work(rY.v[j], p.work, p.a, p.b);
  copy<1, Cfg::kReadRep>(typename Cfg::R2G{}, rY, thr.partition_D(RowMajorView<float>{p.y, 0}.tile(0, n0)),
                         Residue{1, p.n - n0});
}

__global__ void __launch_bounds__(256) pipeline_sync_kernel(PipelineArgs p) {
  using Cfg = PipelineConfig;
  __shared__ __align__(128) float smem[Cfg::kTileFloats];  // (1,TILE)
  const ThrCopy thr = Cfg::G2R::get_slice(threadIdx.x);
  for (Int tile = blockIdx.x; tile < p.num_tiles; tile += gridDim.x) {
    const Int n0 = tile * Cfg::kTileFloats;
    Fragment<float, Cfg::kLoadRep * Cfg::G2R::kValues> rX;
    copy<1, Cfg::kLoadRep>(typename Cfg::G2R{}, thr.partition_S(RowMajorView<const float>{p.x, 0}.tile(0, n0)), rX,
                           Residue{1, p.n - n0});
    copy<1, Cfg::kLoadRep>(typename Cfg::R2S{}, rX, thr.partition_D(StaticView<float, Cfg::kSmem>{smem}),
                           Residue{1, p.n - n0});
    __syncthreads();
    pipeline_consume(p, smem, tile);
    __syncthreads();
  }
}

template <int kStages>
__global__ void __launch_bounds__(256) pipeline_cp_async_kernel(PipelineArgs p) {
  using Cfg = PipelineConfig;
  static_assert(kStages >= 1 && kStages <= 4, "pipeline_cp_async_kernel: kStages must be 1..4");
  __shared__ __align__(128) float smem[kStages][Cfg::kTileFloats];  // kStages x (1,TILE)
  const ThrCopy thr = Cfg::G2S::get_slice(threadIdx.x);
  auto load = [&](Int tile, int stage) {
    if (tile < p.num_tiles) {
      const Int n0 = tile * Cfg::kTileFloats;
      copy<1, Cfg::kLoadRep>(typename Cfg::G2S{}, thr.partition_S(RowMajorView<const float>{p.x, 0}.tile(0, n0)),
                             thr.partition_D(StaticView<float, Cfg::kSmem>{smem[stage]}), Residue{1, p.n - n0});
    }
    arch::cp_async_commit();
  };
  Int tile = blockIdx.x;
  for (int s = 0; s < kStages - 1; ++s) load(tile + Int(s) * gridDim.x, s);
  for (int it = 0; tile < p.num_tiles; ++it, tile += gridDim.x) {
    load(tile + Int(kStages - 1) * gridDim.x, (it + kStages - 1) % kStages);
    arch::cp_async_wait<kStages - 1>();
    __syncthreads();
    pipeline_consume(p, smem[it % kStages], tile);
    __syncthreads();
  }
  arch::cp_async_wait_all();
}

template <int kStages>
__global__ void __launch_bounds__(256) pipeline_cuda_kernel(PipelineArgs p) {
  using Cfg = PipelineConfig;
  static_assert(kStages >= 1 && kStages <= 4, "pipeline_cuda_kernel: kStages must be 1..4");
  __shared__ __align__(128) float smem[kStages][Cfg::kTileFloats];  // kStages x (1,TILE)
  // The shared state lives in raw shared storage: a __shared__ object with a constructor is not
  // initialised; cuda::make_pipeline initialises the state collectively.
  using State = cuda::pipeline_shared_state<cuda::thread_scope_block, kStages>;
  __shared__ __align__(alignof(State)) unsigned char state_raw[sizeof(State)];
  auto block = cooperative_groups::this_thread_block();
  auto pipe = cuda::make_pipeline(block, reinterpret_cast<State*>(state_raw));
  const ThrCopy thr = Cfg::G2S::get_slice(threadIdx.x);

  // Each thread copies its own 16-byte chunks of the tile (the same TV layout as the cp.async kernel).
  auto load = [&](Int tile, int stage) {
    pipe.producer_acquire();
    if (tile < p.num_tiles) {
      const Int n0 = tile * Cfg::kTileFloats;
      static_for<Cfg::kLoadRep>([&](auto r_) {
        constexpr int r = decltype(r_)::value;
        const int off = thr.n + r * Cfg::G2S::kTileN;  // first float of the chunk in the tile
        const Int left = p.n - n0 - off;
        if (left >= 4) {
          cuda::memcpy_async(&smem[stage][off], p.x + n0 + off, cuda::aligned_size_t<16>(16), pipe);
        } else if (left > 0) {
          cuda::memcpy_async(&smem[stage][off], p.x + n0 + off, static_cast<size_t>(left) * sizeof(float), pipe);
        }
      });
    }
    pipe.producer_commit();
  };
  Int tile = blockIdx.x;
  for (int s = 0; s < kStages - 1; ++s) load(tile + Int(s) * gridDim.x, s);
  for (int it = 0; tile < p.num_tiles; ++it, tile += gridDim.x) {
    load(tile + Int(kStages - 1) * gridDim.x, (it + kStages - 1) % kStages);
    pipe.consumer_wait();  // the oldest stage, copied by every thread of the block, has landed
    pipeline_consume(p, smem[it % kStages], tile);
    pipe.consumer_release();
  }
}

}  // namespace tessera::kernel
