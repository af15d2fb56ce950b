// The global-memory experiment's kernels and launcher. See global.hpp.
#include <algorithm>
#include <cstdint>

#include "float_vector.cuh"
#include "membench/global.hpp"
#include "platform/launch_utils.cuh"

namespace membench {

namespace kernels {

__global__ void coalesced_scale(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}

// One address a warp: every lane reads its warp's first element, and writes its own.
__global__ void broadcast_scale(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i & ~std::size_t{31}];
}

// Both strided geometries run this kernel; they differ only in the grid.
__global__ void strided_scale(const float* __restrict__ in, float* __restrict__ out, std::size_t n,
                              std::size_t stride) {
  const std::size_t i = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) * stride;
  if (i < n) out[i] = 2.0f * in[i];
}

__device__ __forceinline__ float twice(float v) { return 2.0f * v; }
__device__ __forceinline__ float2 twice(float2 v) { return make_float2(2.0f * v.x, 2.0f * v.y); }
__device__ __forceinline__ float4 twice(float4 v) {
  return make_float4(2.0f * v.x, 2.0f * v.y, 2.0f * v.z, 2.0f * v.w);
}

// Grid-stride over VEC-float vectors; each trip issues ILP independent loads
// before the first store, so ILP x VEC x 4 bytes per thread are in flight.
template <int VEC, int ILP>
__global__ void vectorized_scale(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
  using V = typename FloatVector<VEC>::type;
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

}  // namespace kernels

namespace {

using detail::ceil_div;

bool is_strided(GlobalVariant v) { return v == GlobalVariant::strided || v == GlobalVariant::strided_full_grid; }

cudaError_t check(const GlobalConfig& c) {
  if (is_strided(c.variant) && c.stride == 0) return cudaErrorInvalidValue;
  if (c.variant == GlobalVariant::vectorized && (!VectorWidths::contains(c.vec) || !IlpDepths::contains(c.ilp)))
    return cudaErrorInvalidValue;
  return cudaSuccess;
}

// The typed launches a plan points at.
cudaError_t run_coalesced(const GlobalPlan& p, const float* in, float* out, cudaStream_t s) {
  if (p.config.n == 0) return cudaSuccess;
  kernels::coalesced_scale<<<p.shape.grid, p.shape.block, 0, s>>>(in, out, p.config.n);
  return cudaGetLastError();
}

cudaError_t run_broadcast(const GlobalPlan& p, const float* in, float* out, cudaStream_t s) {
  if (p.config.n == 0) return cudaSuccess;
  kernels::broadcast_scale<<<p.shape.grid, p.shape.block, 0, s>>>(in, out, p.config.n);
  return cudaGetLastError();
}

cudaError_t run_strided(const GlobalPlan& p, const float* in, float* out, cudaStream_t s) {
  if (p.config.n == 0) return cudaSuccess;
  kernels::strided_scale<<<p.shape.grid, p.shape.block, 0, s>>>(in, out, p.config.n, p.config.stride);
  return cudaGetLastError();
}

template <int VEC, int ILP>
cudaError_t run_vectorized(const GlobalPlan& p, const float* in, float* out, cudaStream_t s) {
  const auto misaligned = [](const void* ptr) { return reinterpret_cast<std::uintptr_t>(ptr) % 16 != 0; };
  if (p.config.n == 0) return cudaSuccess;
  if (misaligned(in) || misaligned(out)) return cudaErrorMisalignedAddress;
  kernels::vectorized_scale<VEC, ILP><<<p.shape.grid, p.shape.block, 0, s>>>(in, out, p.config.n);
  return cudaGetLastError();
}

cudaError_t run_memcpy(const GlobalPlan& p, const float* in, float* out, cudaStream_t s) {
  return cudaMemcpyAsync(out, in, p.config.n * sizeof(float), cudaMemcpyDeviceToDevice, s);
}

template <int VEC, int ILP>
cudaError_t plan_vectorized(const GlobalConfig& c, GlobalPlan* p) {
  const auto kernel = kernels::vectorized_scale<VEC, ILP>;
  unsigned grid = 0;
  if (c.persistent) {
    const cudaError_t rc = detail::resident_grid(kernel, kGlobalBlock, 0, &grid);
    if (rc != cudaSuccess) return rc;
  } else {
    grid = static_cast<unsigned>(std::max<std::size_t>(1, ceil_div(c.n / VEC, std::size_t{kGlobalBlock} * ILP)));
  }
  p->shape = detail::shape_of(kernel, grid, kGlobalBlock);
  p->run = run_vectorized<VEC, ILP>;
  return cudaSuccess;
}

}  // namespace

cudaError_t plan(const GlobalConfig& c, GlobalPlan* p) {
  if (const cudaError_t rc = check(c); rc != cudaSuccess) return rc;
  p->config = c;
  const std::size_t threads =
      std::max<std::size_t>(1, c.variant == GlobalVariant::strided ? ceil_div(c.n, c.stride) : c.n);
  const auto grid = static_cast<unsigned>(ceil_div(threads, kGlobalBlock));
  switch (c.variant) {
    case GlobalVariant::coalesced:
      p->shape = detail::shape_of(kernels::coalesced_scale, grid, kGlobalBlock);
      p->run = run_coalesced;
      return cudaSuccess;
    case GlobalVariant::strided:
    case GlobalVariant::strided_full_grid:
      p->shape = detail::shape_of(kernels::strided_scale, grid, kGlobalBlock);
      p->run = run_strided;
      return cudaSuccess;
    case GlobalVariant::broadcast:
      p->shape = detail::shape_of(kernels::broadcast_scale, grid, kGlobalBlock);
      p->run = run_broadcast;
      return cudaSuccess;
    case GlobalVariant::memcpy:
      p->shape = KernelShape{};
      p->run = run_memcpy;
      return cudaSuccess;
    case GlobalVariant::vectorized:
      return VectorWidths::dispatch(
          c.vec,
          [&](auto vec) {
            return IlpDepths::dispatch(
                c.ilp, [&](auto ilp) { return plan_vectorized<decltype(vec)::value, decltype(ilp)::value>(c, p); },
                cudaErrorInvalidValue);
          },
          cudaErrorInvalidValue);
  }
  return cudaErrorInvalidValue;
}

cudaError_t launch(const GlobalConfig& c, const float* in, float* out, cudaStream_t stream) {
  GlobalPlan p;
  if (const cudaError_t rc = plan(c, &p); rc != cudaSuccess) return rc;
  return launch(p, in, out, stream);
}

bool global_writes(const GlobalConfig& c, std::size_t i) { return !is_strided(c.variant) || i % c.stride == 0; }

std::size_t global_source(const GlobalConfig& c, std::size_t i) {
  return c.variant == GlobalVariant::broadcast ? i & ~std::size_t{31} : i;
}

std::size_t global_elements_touched(const GlobalConfig& c) {
  if (is_strided(c.variant)) return c.stride == 0 ? 0 : ceil_div(c.n, c.stride);
  return c.n;
}

double global_bytes(const GlobalConfig& c) {
  return 2.0 * sizeof(float) * static_cast<double>(global_elements_touched(c));
}

int global_access_bytes(const GlobalConfig& c) {
  return c.variant == GlobalVariant::vectorized ? c.vec * static_cast<int>(sizeof(float))
                                                : static_cast<int>(sizeof(float));
}

std::size_t global_lane_stride_bytes(const GlobalConfig& c) {
  if (c.variant == GlobalVariant::broadcast) return 0;
  if (is_strided(c.variant)) return c.stride * sizeof(float);
  return static_cast<std::size_t>(global_access_bytes(c));
}

DramTraffic global_dram_traffic(const GlobalConfig& c) {
  if (c.variant == GlobalVariant::broadcast) {
    // Reads: one float every 32 (128 bytes apart), a lone read fetching its
    // DRAM unit; writes: the whole output, coalesced.
    DramTraffic t = dram_read({ceil_div(c.n, std::size_t{32}), sizeof(float), 32 * sizeof(float)});
    t += dram_write({c.n, sizeof(float), sizeof(float)});
    return t;
  }
  const AccessPattern pattern{global_elements_touched(c), sizeof(float),
                              is_strided(c.variant) ? c.stride * sizeof(float) : sizeof(float)};
  DramTraffic t = dram_read(pattern);
  t += dram_write(pattern);
  return t;
}

}  // namespace membench
