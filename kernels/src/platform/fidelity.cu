#include "membench/platform/fidelity.hpp"
#include "platform/launch_utils.cuh"

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

__device__ __forceinline__ std::uint64_t global_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ unsigned sm_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

__global__ void clock_stamp(ClockStamp* stamp) {
  if (sm_id() != 0) return;
  const std::uint64_t ns = global_ns();
  const long long cycles = clock64();
  stamp->cycles = cycles;
  stamp->nanoseconds = ns;
}

__global__ void spin(long long spin_ns) {
  const std::uint64_t t0 = global_ns();
  while (static_cast<long long>(global_ns() - t0) < spin_ns) {}
}

}  // namespace kernels

namespace {
constexpr int kFlushBlock = 256;
}

cudaError_t plan_l2_flush(const float* scratch, std::size_t count, float* sink, FlushPlan* plan) {
  plan->scratch = scratch;
  plan->count = count;
  plan->sink = sink;
  return detail::resident_grid(kernels::l2_flush, kFlushBlock, 0, &plan->grid);
}

cudaError_t launch_l2_flush(const FlushPlan& p, cudaStream_t stream) {
  kernels::l2_flush<<<p.grid, kFlushBlock, 0, stream>>>(reinterpret_cast<const float4*>(p.scratch), p.count / 4,
                                                        p.sink);
  return detail::last_launch_error();
}

cudaError_t launch_clock_stamp(ClockStamp* stamp, int sm_count, cudaStream_t stream) {
  if (sm_count < 1) return cudaErrorInvalidValue;
  kernels::clock_stamp<<<static_cast<unsigned>(sm_count), 1, 0, stream>>>(stamp);
  return detail::last_launch_error();
}

cudaError_t launch_spin(long long ns, cudaStream_t stream) {
  kernels::spin<<<1, 1, 0, stream>>>(ns);
  return detail::last_launch_error();
}

double clock_mhz(const ClockStamp& start, const ClockStamp& stop) {
  if (start.nanoseconds == 0 || stop.nanoseconds <= start.nanoseconds || stop.cycles <= start.cycles) return 0.0;
  const double ns = static_cast<double>(stop.nanoseconds - start.nanoseconds);
  return static_cast<double>(stop.cycles - start.cycles) / ns * 1e3;
}

bool is_throttled(double measured_mhz, double peak_mhz, double threshold) {
  return peak_mhz > 0 && measured_mhz > 0 && measured_mhz < threshold * peak_mhz;
}

}  // namespace membench
