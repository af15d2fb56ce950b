// __global__ bodies of the global-memory experiment. See global.hpp.
#pragma once

#include <cstddef>

namespace membench::kernels {

__global__ void coalesced_scale(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}

__global__ void strided_scale(const float* __restrict__ in, float* __restrict__ out, std::size_t n,
                              std::size_t stride) {
  const std::size_t i = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) * stride;
  if (i < n) out[i] = 2.0f * in[i];
}

template <int VEC>
struct VectorOf;
template <>
struct VectorOf<1> {
  using type = float;
};
template <>
struct VectorOf<2> {
  using type = float2;
};
template <>
struct VectorOf<4> {
  using type = float4;
};

__device__ __forceinline__ float twice(float v) { return 2.0f * v; }
__device__ __forceinline__ float2 twice(float2 v) { return make_float2(2.0f * v.x, 2.0f * v.y); }
__device__ __forceinline__ float4 twice(float4 v) {
  return make_float4(2.0f * v.x, 2.0f * v.y, 2.0f * v.z, 2.0f * v.w);
}

// Grid-stride over VEC-float vectors; each trip issues ILP independent loads
// before the first store, so ILP x VEC x 4 bytes per thread are in flight.
template <int VEC, int ILP>
__global__ void vectorized_scale(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
  using V = typename VectorOf<VEC>::type;
  const V* __restrict__ vin = reinterpret_cast<const V*>(in);
  V* __restrict__ vout = reinterpret_cast<V*>(out);
  const std::size_t vectors = n / VEC;
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;

  std::size_t i = first;
  for (; i + (ILP - 1) * step < vectors; i += ILP * step) {
    V v[ILP];
#pragma unroll
    for (int k = 0; k < ILP; ++k) v[k] = vin[i + k * step];
#pragma unroll
    for (int k = 0; k < ILP; ++k) vout[i + k * step] = twice(v[k]);
  }
  for (; i < vectors; i += step) vout[i] = twice(vin[i]);

  // The last n % VEC floats, one per thread of the first block(s).
  const std::size_t tail = vectors * VEC + first;
  if (tail < n) out[tail] = 2.0f * in[tail];
}

}  // namespace membench::kernels
