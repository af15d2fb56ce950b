// N consecutive floats as one register vector (float, float2, float4): the
// type a kernel loads and stores in one instruction, its lanes, and their sum.
#pragma once

#include <cuda_runtime.h>

namespace membench::kernels {

template <int N>
struct FloatVector;
template <>
struct FloatVector<1> {
  using type = float;
  __device__ static float sum(float v) { return v; }
};
template <>
struct FloatVector<2> {
  using type = float2;
  __device__ static float sum(float2 v) { return v.x + v.y; }
};
template <>
struct FloatVector<4> {
  using type = float4;
  __device__ static float sum(float4 v) { return (v.x + v.y) + (v.z + v.w); }
};

// Lane q of a vector of N floats (q a compile-time constant after unrolling).
template <int N>
__device__ __forceinline__ float& lane(typename FloatVector<N>::type& v, int q) {
  return reinterpret_cast<float*>(&v)[q];
}

}  // namespace membench::kernels
