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

// One thread's share of a tile copy: 16-byte pieces threadIdx.x,
// threadIdx.x + kAsyncBlock, ... each an async copy committed to `pipe`. The
// last piece of a ragged tile may be shorter.
__device__ __forceinline__ void copy_my_pieces(float* buffer, const float* __restrict__ src, int count,
                                               cuda::pipeline<cuda::thread_scope_thread>& pipe) {
  for (int piece = threadIdx.x; piece * 4 < count; piece += kAsyncBlock) {
    const int first = piece * 4;
    if (first + 4 <= count)
      cuda::memcpy_async(buffer + first, src + first, cuda::aligned_size_t<16>(16), pipe);
    else
      cuda::memcpy_async(buffer + first, src + first, sizeof(float) * (count - first), pipe);
  }
}

// cuda::pipeline with STAGES buffers: while tile i is computed, the copies of
// tiles i + 1 .. i + STAGES - 1 are in flight; consumer_wait waits only for
// the stage being consumed. The pipeline is thread-scoped: each thread
// commits its pieces of a tile as one stage (cp.async groups), and a block
// barrier after consumer_wait makes every thread's pieces visible. Threads
// commit a stage for every tile, empty past the end, so all agree on which
// stage is the oldest.
//
// Why not the block-scoped pipeline (pipeline_shared_state, stages completing
// on mbarriers)? On the H200, compute-sanitizer 13.0 synccheck reports
// "Missing wait" on its stage barriers and aborts the kernel (seen with one
// and with two stages); the thread-scoped form is synccheck-clean and issues
// the same 16-byte cp.async copies.
template <int TILE, int STAGES>
__global__ void async_pipeline(const float* __restrict__ in, float* __restrict__ out, std::size_t n, int fmas,
                               float a, float b) {
  extern __shared__ __align__(128) float smem[];
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  const std::size_t mine = tiles_of_block<TILE>(n);

  auto fetch = [&](std::size_t j) {
    pipe.producer_acquire();
    if (j < mine) {
      const TileSpan t = block_tile<TILE>(j, n);
      copy_my_pieces(smem + (j % STAGES) * TILE, in + t.base, t.count, pipe);
    }
    pipe.producer_commit();
  };

  for (std::size_t j = 0; j + 1 < STAGES; ++j) fetch(j);
  for (std::size_t i = 0; i < mine; ++i) {
    fetch(i + STAGES - 1);  // into the buffer computed last iteration
    pipe.consumer_wait();   // my pieces of tile i have landed
    __syncthreads();        // everyone's have
    const TileSpan t = block_tile<TILE>(i, n);
    compute_tile<TILE>(smem + (i % STAGES) * TILE, in + t.base, out + t.base, t.count, t.count, fmas, a, b);
    pipe.consumer_release();
    __syncthreads();  // buffer i % STAGES is free for the copy issued next iteration
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
