// The tiles every async kernel walks, how a tile moves between global and
// shared memory, and the copy engines' producer-consumer schedule: the
// device helpers of async.cu, apart so that file holds the kernels and their
// launcher.
#pragma once

#include <cooperative_groups.h>

#include <cstddef>
#include <cstdint>
#include <cuda/ptx>

#include "float_vector.cuh"
#include "membench/async.hpp"

namespace membench::kernels {

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

// Where element j of a tile lies, from the tile's first element: a 1-D
// tile is contiguous; a tma box is kTmaBoxCols-wide pieces of successive rows.
// kWhole: every tile is whole (tma's n is a whole number of box rows), so the
// compute phase needs no ragged end.
struct Contiguous {
  static constexpr bool kWhole = false;
  __device__ std::size_t operator()(int j) const { return static_cast<std::size_t>(j); }
};
struct BoxRows {
  static constexpr bool kWhole = true;
  __device__ std::size_t operator()(int j) const {
    return static_cast<std::size_t>(j / kTmaBoxCols) * kTmaRowFloats + j % kTmaBoxCols;
  }
};

// A thread's elements of a tile come in groups of kAsyncWidth<TILE>
// consecutive floats (4, or 2 for 512-float tiles), moved by one vector load
// or store: group g of thread t starts at element (t + g * kAsyncBlock) *
// width. A box row of a tma tile is kTmaBoxCols floats, so a group never
// spans two.
template <int TILE>
inline constexpr int kAsyncWidth = TILE / kAsyncBlock >= 4 ? 4 : TILE / kAsyncBlock;

// The compute phase on one tile: element j comes from shared memory when
// j < from_shared, else straight from global memory (the bulk copy's sub-16-
// byte tail). Each thread runs TILE / 256 independent FMA chains. A group
// wholly inside [0, from_shared) is one vector load from shared memory, one
// wholly inside [0, count) one vector store; the ragged end goes by element.
template <int TILE, class At = Contiguous>
__device__ __forceinline__ void compute_tile(const float* tile_smem, const float* __restrict__ src,
                                             float* __restrict__ dst, int count, int from_shared, int fmas, float a,
                                             float b, At at = {}) {
  constexpr int kPer = TILE / kAsyncBlock;
  constexpr int W = kAsyncWidth<TILE>;
  using V = typename FloatVector<W>::type;
  float v[kPer];
#pragma unroll
  for (int g = 0; g < kPer / W; ++g) {
    const int j = (threadIdx.x + g * kAsyncBlock) * W;
    if (At::kWhole || j + W <= from_shared) {
      V x = *reinterpret_cast<const V*>(tile_smem + j);
#pragma unroll
      for (int q = 0; q < W; ++q) v[g * W + q] = lane<W>(x, q);
    } else {
#pragma unroll
      for (int q = 0; q < W; ++q)
        v[g * W + q] = j + q < from_shared ? tile_smem[j + q] : (j + q < count ? src[at(j + q)] : 0.0f);
    }
  }
  for (int k = 0; k < fmas; ++k) {
#pragma unroll
    for (int p = 0; p < kPer; ++p) v[p] = fmaf(v[p], a, b);
  }
#pragma unroll
  for (int g = 0; g < kPer / W; ++g) {
    const int j = (threadIdx.x + g * kAsyncBlock) * W;
    if (At::kWhole || j + W <= count) {
      V x;
#pragma unroll
      for (int q = 0; q < W; ++q) lane<W>(x, q) = v[g * W + q];
      // An ordinary store (write-back), as an intrinsic: with a tma box's row
      // addressing the compiler split a plain vector store into four floats,
      // four times the store requests for the same bytes.
      __stwb(reinterpret_cast<V*>(dst + at(j)), x);
    } else {
#pragma unroll
      for (int q = 0; q < W; ++q)
        if (j + q < count) dst[at(j + q)] = v[g * W + q];
    }
  }
}

// The schedule of the copy engines (bulk and tma): a producer warp, the
// block's last (threads kAsyncBlock..+31), and kAsyncBlock consumer threads
// share STAGES buffers. One producer thread issues tile j into buffer
// j % STAGES once the consumers have released what it held (its `empty`
// barrier), and the copy completes on the buffer's `full` barrier; the
// consumers wait on `full`, compute the tile, and every consumer thread
// releases the buffer by arriving on `empty` after its own last read of it
// (each thread's release orders its reads, with no warp barrier standing in
// between, which racecheck can follow). No block-wide barrier inside the
// loop: the producer runs up to STAGES tiles ahead of the slowest consumer.
// issue(j, s) announces the bytes on full[s] and starts the copy; consume(i,
// s) computes.
template <int STAGES, class Issue, class Consume>
__device__ __forceinline__ void producer_consumer(std::size_t mine, std::uint64_t* full, std::uint64_t* empty,
                                                  Issue issue, Consume consume) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      cuda::ptx::mbarrier_init(&full[s], 1);
      cuda::ptx::mbarrier_init(&empty[s], kAsyncBlock);
    }
  }
  __syncthreads();
  auto wait = [](std::uint64_t* bar, std::uint32_t parity) {
    while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {}
  };
  if (threadIdx.x >= kAsyncBlock) {  // the producer warp; one thread issues
    if (threadIdx.x != kAsyncBlock) return;
    for (std::size_t j = 0; j < mine; ++j) {
      const int s = static_cast<int>(j % STAGES);
      if (j >= STAGES) wait(&empty[s], static_cast<std::uint32_t>((j / STAGES - 1) & 1));
      // Order the consumers' generic-proxy reads of the buffer (released to
      // this thread by `empty`) before the async-proxy writes that overwrite it.
      cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
      issue(j, s);
    }
    return;
  }
  for (std::size_t i = 0; i < mine; ++i) {
    const int s = static_cast<int>(i % STAGES);
    wait(&full[s], static_cast<std::uint32_t>((i / STAGES) & 1));
    consume(i, s);
    (void)cuda::ptx::mbarrier_arrive(&empty[s]);
  }
#endif
}

}  // namespace membench::kernels
