// __global__ bodies of the layout experiment. See layout.hpp.
#pragma once

#include <cstddef>

#include "membench/layout.hpp"

namespace membench::kernels {

// One element per thread; the field loads are separate 4-byte accesses (the
// struct is only 4-byte aligned), each spanning 512 bytes across a warp.
template <int FIELDS>
__global__ void aos_scale(const Particle* __restrict__ in, Particle* __restrict__ out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i].x = 2.0f * in[i].x;
  if constexpr (FIELDS > 1) out[i].y = 2.0f * in[i].y;
  if constexpr (FIELDS > 2) out[i].z = 2.0f * in[i].z;
  if constexpr (FIELDS > 3) out[i].w = 2.0f * in[i].w;
}

template <int FIELDS>
__global__ void soa_scale(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
#pragma unroll
  for (int f = 0; f < FIELDS; ++f) out[f * n + i] = 2.0f * in[f * n + i];
}

}  // namespace membench::kernels
