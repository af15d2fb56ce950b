#include "membench/platform/pattern.hpp"
#include "platform/launch_utils.cuh"

namespace membench {

namespace kernels {
template <class T>
__global__ void fill_pattern(T* __restrict__ data, std::size_t n, std::uint32_t seed) {
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    data[i] = static_cast<T>(pattern_value(i, seed));
}
}  // namespace kernels

namespace {
template <class T>
cudaError_t fill(T* data, std::size_t n, std::uint32_t seed, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  constexpr int kBlock = 256;
  unsigned grid = 0;
  const cudaError_t rc = detail::resident_grid(kernels::fill_pattern<T>, kBlock, 0, &grid);
  if (rc != cudaSuccess) return rc;
  kernels::fill_pattern<T><<<grid, kBlock, 0, stream>>>(data, n, seed);
  return detail::last_launch_error();
}
}  // namespace

cudaError_t launch_fill_pattern(float* data, std::size_t n, std::uint32_t seed, cudaStream_t stream) {
  return fill(data, n, seed, stream);
}

cudaError_t launch_fill_pattern(double* data, std::size_t n, std::uint32_t seed, cudaStream_t stream) {
  return fill(data, n, seed, stream);
}

cudaError_t launch_poison(void* data, std::size_t bytes, cudaStream_t stream) {
  return cudaMemsetAsync(data, kPoisonByte, bytes, stream);
}

}  // namespace membench
