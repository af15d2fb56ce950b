#include "launch_utils.cuh"
#include "membench/fidelity.hpp"

namespace membench {

namespace kernels {

__global__ void l2_flush(const float4* __restrict__ scratch, std::size_t count4, float* sink) {
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  float sum = 0.0f;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count4; i += step) {
    const float4 v = scratch[i];
    sum += (v.x + v.y) + (v.z + v.w);
  }
  if (sum == -1.0f) *sink = sum;  // never with zeroed scratch
}

__device__ __forceinline__ long long global_ns() {
  long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void clock_probe(ClockSample* sample, long long spin_ns) {
  const long long t0 = global_ns();
  const long long c0 = clock64();
  long long t = t0;
  while (t - t0 < spin_ns) t = global_ns();
  const long long c1 = clock64();
  sample->cycles = c1 - c0;
  sample->nanoseconds = t - t0;
}

}  // namespace kernels

cudaError_t launch_l2_flush(const float* scratch, std::size_t count, float* sink, cudaStream_t stream) {
  constexpr int kBlock = 256;
  unsigned grid = 0;
  const cudaError_t rc = detail::resident_grid(kernels::l2_flush, kBlock, 0, &grid);
  if (rc != cudaSuccess) return rc;
  kernels::l2_flush<<<grid, kBlock, 0, stream>>>(reinterpret_cast<const float4*>(scratch), count / 4, sink);
  return detail::last_launch_error();
}

cudaError_t launch_clock_probe(ClockSample* sample, long long spin_ns, cudaStream_t stream) {
  kernels::clock_probe<<<1, 1, 0, stream>>>(sample, spin_ns);
  return detail::last_launch_error();
}

double clock_mhz(const ClockSample& s) {
  if (s.nanoseconds <= 0) return 0.0;
  return static_cast<double>(s.cycles) / static_cast<double>(s.nanoseconds) * 1e3;
}

bool is_throttled(double measured_mhz, double peak_mhz) { return peak_mhz > 0 && measured_mhz < 0.9 * peak_mhz; }

}  // namespace membench
