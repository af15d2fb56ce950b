// __global__ bodies of the shared-memory experiment. See shared.hpp.
#pragma once

#include <cstddef>

#include "membench/pattern.hpp"
#include "membench/shared.hpp"

namespace membench::kernels {

// Both matrix kernels read a tile coalesced; `transposed_store` says where a
// thread's result goes. A warp is one row ty of the block (tx = 0..31).
__global__ void shared_row(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[kSharedTile][kSharedTile];
  const int x = blockIdx.x * kSharedTile + threadIdx.x;
  const int y = blockIdx.y * kSharedTile + threadIdx.y;
  const bool inside = x < n && y < n;
  if (inside) tile[threadIdx.y][threadIdx.x] = in[static_cast<std::size_t>(y) * n + x];
  __syncthreads();
  if (inside) out[static_cast<std::size_t>(y) * n + x] = 2.0f * tile[threadIdx.y][threadIdx.x];
}

// The warp reads column ty of the tile: word address tx * (32 + PAD) + ty,
// a stride of 32 + PAD words, so gcd(32 + PAD, 32) lanes share a bank.
template <int PAD>
__global__ void shared_column(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[kSharedTile][kSharedTile + PAD];
  const int x = blockIdx.x * kSharedTile + threadIdx.x;
  const int y = blockIdx.y * kSharedTile + threadIdx.y;
  if (x < n && y < n) tile[threadIdx.y][threadIdx.x] = in[static_cast<std::size_t>(y) * n + x];
  __syncthreads();
  const int out_x = blockIdx.y * kSharedTile + threadIdx.x;
  const int out_y = blockIdx.x * kSharedTile + threadIdx.y;
  if (out_x < n && out_y < n)
    out[static_cast<std::size_t>(out_y) * n + out_x] = 2.0f * tile[threadIdx.x][threadIdx.y];
}

// Element (r, c) of the tile is stored at column c ^ r: a row still spans all
// 32 banks, and so does a column, without a word of padding.
__global__ void shared_swizzle(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[kSharedTile][kSharedTile];
  const int x = blockIdx.x * kSharedTile + threadIdx.x;
  const int y = blockIdx.y * kSharedTile + threadIdx.y;
  if (x < n && y < n) tile[threadIdx.y][threadIdx.x ^ threadIdx.y] = in[static_cast<std::size_t>(y) * n + x];
  __syncthreads();
  const int out_x = blockIdx.y * kSharedTile + threadIdx.x;
  const int out_y = blockIdx.x * kSharedTile + threadIdx.y;
  if (out_x < n && out_y < n)
    out[static_cast<std::size_t>(out_y) * n + out_x] = 2.0f * tile[threadIdx.x][threadIdx.y ^ threadIdx.x];
}

// One shared load of WIDTH bytes that neither the compiler nor ptxas may
// drop, merge or hoist: `asm volatile` binds the compiler, `.volatile` ptxas
// (which would otherwise fold repeated loads of one address into one).
template <int WIDTH>
__device__ __forceinline__ float shared_load_sum(unsigned address);
template <>
__device__ __forceinline__ float shared_load_sum<4>(unsigned address) {
  float a;
  asm volatile("ld.volatile.shared.f32 %0, [%1];" : "=f"(a) : "r"(address) : "memory");
  return a;
}
template <>
__device__ __forceinline__ float shared_load_sum<8>(unsigned address) {
  float a, b;
  asm volatile("ld.volatile.shared.v2.f32 {%0, %1}, [%2];" : "=f"(a), "=f"(b) : "r"(address) : "memory");
  return a + b;
}
template <>
__device__ __forceinline__ float shared_load_sum<16>(unsigned address) {
  float a, b, c, d;
  asm volatile("ld.volatile.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(a), "=f"(b), "=f"(c), "=f"(d)
               : "r"(address)
               : "memory");
  return (a + b) + (c + d);
}

template <int WIDTH>
__global__ void conflict_degree(float* __restrict__ out, int stride, int reps) {
  extern __shared__ float words[];
  constexpr int kWords = WIDTH / 4;
  const int count = (31 * stride + 1) * kWords;
  for (int j = threadIdx.x; j < count; j += blockDim.x) words[j] = small_int_value(static_cast<unsigned>(j));
  __syncthreads();

  const int lane = threadIdx.x % 32;
  const unsigned address =
      static_cast<unsigned>(__cvta_generic_to_shared(words)) + static_cast<unsigned>(lane * stride * WIDTH);
  float sum = 0.0f;
#pragma unroll 8
  for (int r = 0; r < reps; ++r) sum += shared_load_sum<WIDTH>(address);
  out[static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = sum;
}

}  // namespace membench::kernels
