// __global__ bodies of the async-copy experiment. See async.hpp.
//
// Every kernel walks the tiles of [0, n) grid-stride: block b takes tiles
// b, b + grid, b + 2 grid, ... Its j-th tile is `block_tile(j)`.
#pragma once

#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>

#include <cstddef>
#include <cstdint>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda/ptx>

#include "membench/async.hpp"

namespace membench::kernels {

namespace cg = cooperative_groups;

struct TileSpan {
  std::size_t base;  // first element
  int count;         // elements in this tile (< TILE only for the last one)
};

template <int TILE>
__device__ __forceinline__ TileSpan block_tile(std::size_t j, std::size_t n) {
  const std::size_t tile = blockIdx.x + j * gridDim.x;
  const std::size_t base = tile * TILE;
  const std::size_t left = n - base;
  return {base, static_cast<int>(left < TILE ? left : TILE)};
}

template <int TILE>
__device__ __forceinline__ std::size_t tiles_of_block(std::size_t n) {
  const std::size_t tiles = (n + TILE - 1) / TILE;
  return tiles > blockIdx.x ? (tiles - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
}

// The compute phase on one tile: element j comes from shared memory when
// j < from_shared, else straight from global memory (the bulk copy's sub-16-
// byte tail). Each thread runs TILE / 256 independent FMA chains.
template <int TILE>
__device__ __forceinline__ void compute_tile(const float* tile_smem, const float* __restrict__ src,
                                             float* __restrict__ dst, int count, int from_shared, int fmas,
                                             float a, float b) {
  constexpr int kPer = TILE / kAsyncBlock;
  float v[kPer];
#pragma unroll
  for (int p = 0; p < kPer; ++p) {
    const int j = threadIdx.x + p * kAsyncBlock;
    v[p] = j < from_shared ? tile_smem[j] : (j < count ? src[j] : 0.0f);
  }
  for (int k = 0; k < fmas; ++k) {
#pragma unroll
    for (int p = 0; p < kPer; ++p) v[p] = fmaf(v[p], a, b);
  }
#pragma unroll
  for (int p = 0; p < kPer; ++p) {
    const int j = threadIdx.x + p * kAsyncBlock;
    if (j < count) dst[j] = v[p];
  }
}

// Plain loads into shared memory, barrier, compute, barrier.
template <int TILE>
__global__ void async_sync(const float* __restrict__ in, float* __restrict__ out, std::size_t n, int fmas,
                           float a, float b) {
  extern __shared__ __align__(128) float smem[];
  constexpr int kPer = TILE / kAsyncBlock;
  const std::size_t mine = tiles_of_block<TILE>(n);
  for (std::size_t j = 0; j < mine; ++j) {
    const TileSpan t = block_tile<TILE>(j, n);
#pragma unroll
    for (int p = 0; p < kPer; ++p) {
      const int e = threadIdx.x + p * kAsyncBlock;
      if (e < t.count) smem[e] = in[t.base + e];
    }
    __syncthreads();
    compute_tile<TILE>(smem, in + t.base, out + t.base, t.count, t.count, fmas, a, b);
    __syncthreads();
  }
}

// The study's single-stage version: the block copies a tile with
// cg::memcpy_async, waits for it, computes.
template <int TILE>
__global__ void async_memcpy_async(const float* __restrict__ in, float* __restrict__ out, std::size_t n, int fmas,
                                   float a, float b) {
  extern __shared__ __align__(128) float smem[];
  auto block = cg::this_thread_block();
  const std::size_t mine = tiles_of_block<TILE>(n);
  for (std::size_t j = 0; j < mine; ++j) {
    const TileSpan t = block_tile<TILE>(j, n);
    if (t.count == TILE)
      cg::memcpy_async(block, smem, in + t.base, cuda::aligned_size_t<16>(sizeof(float) * TILE));
    else
      cg::memcpy_async(block, smem, in + t.base, sizeof(float) * t.count);
    cg::wait(block);
    compute_tile<TILE>(smem, in + t.base, out + t.base, t.count, t.count, fmas, a, b);
    block.sync();
  }
}

// cuda::pipeline with STAGES buffers: while tile i is computed, the copies of
// tiles i + 1 .. i + STAGES - 1 are in flight; consumer_wait waits only for
// the stage being consumed. The one-stage schedule runs on two slots (one
// copy in flight all the same): compute-sanitizer synccheck reports "missing
// wait" inside libcu++'s one-slot pipeline on the H200.
template <int STAGES>
inline constexpr int kPipelineSlots = STAGES < 2 ? 2 : STAGES;

template <int TILE, int STAGES>
__global__ void async_pipeline(const float* __restrict__ in, float* __restrict__ out, std::size_t n, int fmas,
                               float a, float b) {
  extern __shared__ __align__(128) float smem[];
  // The pipeline's shared state has a constructor; the pipeline initialises
  // it itself (make_pipeline), so the static-init warning does not apply.
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, kPipelineSlots<STAGES>> state;
#pragma nv_diag_default static_var_with_dynamic_init
  auto block = cg::this_thread_block();
  auto pipe = cuda::make_pipeline(block, &state);
  const std::size_t mine = tiles_of_block<TILE>(n);

  auto fetch = [&](std::size_t j) {
    const TileSpan t = block_tile<TILE>(j, n);
    float* buffer = smem + (j % kPipelineSlots<STAGES>)*TILE;
    pipe.producer_acquire();
    if (t.count == TILE)
      cuda::memcpy_async(block, buffer, in + t.base, cuda::aligned_size_t<16>(sizeof(float) * TILE), pipe);
    else
      cuda::memcpy_async(block, buffer, in + t.base, sizeof(float) * t.count, pipe);
    pipe.producer_commit();
  };

  for (std::size_t j = 0; j + 1 < STAGES && j < mine; ++j) fetch(j);
  for (std::size_t i = 0; i < mine; ++i) {
    if (i + STAGES - 1 < mine) fetch(i + STAGES - 1);
    pipe.consumer_wait();
    const TileSpan t = block_tile<TILE>(i, n);
    compute_tile<TILE>(smem + (i % kPipelineSlots<STAGES>)*TILE, in + t.base, out + t.base, t.count, t.count, fmas, a,
                       b);
    pipe.consumer_release();
  }
}

// Hopper's bulk-copy engine: one thread issues cp.async.bulk for a whole tile,
// completing on that stage's mbarrier; everyone waits on the barrier's phase.
// Same schedule as async_pipeline. The last (< 16-byte) part of a ragged
// final tile is read straight from global memory.
template <int TILE, int STAGES>
__global__ void async_bulk(const float* __restrict__ in, float* __restrict__ out, std::size_t n, int fmas,
                           float a, float b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ __align__(128) float smem[];
  __shared__ __align__(8) std::uint64_t full[STAGES];
  const std::size_t mine = tiles_of_block<TILE>(n);
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) cuda::ptx::mbarrier_init(&full[s], 1);
  }
  __syncthreads();

  auto fetch = [&](std::size_t j) {
    if (threadIdx.x != 0) return;
    const TileSpan t = block_tile<TILE>(j, n);
    const std::uint32_t bytes = static_cast<std::uint32_t>(t.count / 4 * 4 * sizeof(float));
    std::uint64_t* bar = &full[j % STAGES];
    // Order this block's earlier generic-proxy reads of the buffer before the
    // async-proxy writes that overwrite it.
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
    (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                               cuda::ptx::space_shared, bar, bytes);
    if (bytes > 0)
      cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, smem + (j % STAGES) * TILE,
                               in + t.base, bytes, bar);
  };

  for (std::size_t j = 0; j + 1 < STAGES && j < mine; ++j) fetch(j);
  for (std::size_t i = 0; i < mine; ++i) {
    if (i + STAGES - 1 < mine) fetch(i + STAGES - 1);
    const auto parity = static_cast<std::uint32_t>((i / STAGES) & 1);
    while (!cuda::ptx::mbarrier_try_wait_parity(&full[i % STAGES], parity)) {
    }
    const TileSpan t = block_tile<TILE>(i, n);
    compute_tile<TILE>(smem + (i % STAGES) * TILE, in + t.base, out + t.base, t.count, t.count / 4 * 4, fmas, a,
                       b);
    __syncthreads();  // the buffer is free for the copy issued next iteration
  }
#elif defined(__CUDA_ARCH__)
  __trap();  // built without sm_90 code; the host refuses to launch this
#endif
}

}  // namespace membench::kernels
