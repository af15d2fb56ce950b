// The global-memory experiment's kernels and launcher. See global.hpp.
#include <algorithm>
#include <cstdint>

#include "float_vector.cuh"
#include "membench/global.hpp"
#include "membench/platform/cuda.hpp"
#include "membench/platform/models.hpp"
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

// The same strided read through the read-only data path, and through a texture.
__global__ void strided_readonly_scale(const float* __restrict__ in, float* __restrict__ out, std::size_t n,
                                       std::size_t stride) {
  const std::size_t i = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) * stride;
  if (i < n) out[i] = 2.0f * __ldg(in + i);
}

__global__ void strided_texture_scale(cudaTextureObject_t in, float* __restrict__ out, std::size_t n,
                                      std::size_t stride) {
  const std::size_t i = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) * stride;
  if (i < n) out[i] = 2.0f * tex1Dfetch<float>(in, static_cast<int>(i));
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

bool is_strided(GlobalVariant v) {
  return v == GlobalVariant::strided || v == GlobalVariant::strided_full_grid || v == GlobalVariant::strided_readonly ||
         v == GlobalVariant::strided_texture;
}

cudaError_t check(const GlobalConfig& c) {
  if (is_strided(c.variant) && c.stride == 0) return cudaErrorInvalidValue;
  if (c.variant == GlobalVariant::misaligned && c.offset > kGlobalMaxOffset) return cudaErrorInvalidValue;
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

cudaError_t run_misaligned(const GlobalPlan& p, const float* in, float* out, cudaStream_t s) {
  if (p.config.n == 0) return cudaSuccess;
  kernels::coalesced_scale<<<p.shape.grid, p.shape.block, 0, s>>>(in + p.config.offset, out, p.config.n);
  return cudaGetLastError();
}

cudaError_t run_readonly(const GlobalPlan& p, const float* in, float* out, cudaStream_t s) {
  if (p.config.n == 0) return cudaSuccess;
  kernels::strided_readonly_scale<<<p.shape.grid, p.shape.block, 0, s>>>(in, out, p.config.n, p.config.stride);
  return cudaGetLastError();
}

// A texture case launches with its texture (launch(plan, FloatTexture, ...)), never with a pointer.
cudaError_t run_needs_texture(const GlobalPlan&, const float*, float*, cudaStream_t) { return cudaErrorInvalidValue; }

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
  const std::size_t threads = std::max<std::size_t>(
      1, is_strided(c.variant) && c.variant != GlobalVariant::strided_full_grid ? ceil_div(c.n, c.stride) : c.n);
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
    case GlobalVariant::misaligned:
      p->shape = detail::shape_of(kernels::coalesced_scale, grid, kGlobalBlock);
      p->run = run_misaligned;
      return cudaSuccess;
    case GlobalVariant::strided_readonly:
      p->shape = detail::shape_of(kernels::strided_readonly_scale, grid, kGlobalBlock);
      p->run = run_readonly;
      return cudaSuccess;
    case GlobalVariant::strided_texture:
      p->shape = detail::shape_of(kernels::strided_texture_scale, grid, kGlobalBlock);
      p->run = run_needs_texture;
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

FloatTexture::FloatTexture(const float* in, std::size_t n) {
  cudaResourceDesc resource{};
  resource.resType = cudaResourceTypeLinear;
  resource.res.linear.devPtr = const_cast<float*>(in);
  resource.res.linear.desc = cudaCreateChannelDesc<float>();
  resource.res.linear.sizeInBytes = n * sizeof(float);
  cudaTextureDesc texture{};
  texture.readMode = cudaReadModeElementType;
  texture.filterMode = cudaFilterModePoint;
  texture.addressMode[0] = cudaAddressModeClamp;
  MEMBENCH_CUDA(cudaCreateTextureObject(&texture_, &resource, &texture, nullptr));
}

FloatTexture::~FloatTexture() {
  if (texture_ != 0) cudaDestroyTextureObject(texture_);
}

cudaError_t launch(const GlobalPlan& p, const FloatTexture& in, float* out, cudaStream_t stream) {
  if (p.config.variant != GlobalVariant::strided_texture) return cudaErrorInvalidValue;
  if (p.config.n == 0) return cudaSuccess;
  kernels::strided_texture_scale<<<p.shape.grid, p.shape.block, 0, stream>>>(in.get(), out, p.config.n,
                                                                             p.config.stride);
  return cudaGetLastError();
}

bool texture_holds(std::size_t n, std::string* why) {
  int device = 0, width = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&width, cudaDevAttrMaxTexture1DLinearWidth, device) != cudaSuccess)
    return *why = "cannot read the device's linear-texture width", false;
  if (n <= static_cast<std::size_t>(width)) return true;
  *why = "a linear texture holds at most " + std::to_string(width) + " elements here; n is " + std::to_string(n);
  return false;
}

std::size_t global_input_floats(const GlobalConfig& c) {
  return c.variant == GlobalVariant::misaligned ? c.n + c.offset : c.n;
}

double global_l2_read_bytes(const GlobalConfig& c) {
  const std::size_t stride = is_strided(c.variant) ? c.stride : 1;
  return touched_bytes({global_elements_touched(c), sizeof(float), stride * sizeof(float)}, kSectorBytes);
}

bool global_writes(const GlobalConfig& c, std::size_t i) { return !is_strided(c.variant) || i % c.stride == 0; }

std::size_t global_source(const GlobalConfig& c, std::size_t i) {
  if (c.variant == GlobalVariant::misaligned) return i + c.offset;
  return c.variant == GlobalVariant::broadcast ? i & ~std::size_t{31} : i;
}

std::size_t global_elements_touched(const GlobalConfig& c) {
  if (is_strided(c.variant)) return c.stride == 0 ? 0 : ceil_div(c.n, c.stride);
  return c.n;
}

double global_bytes(const GlobalConfig& c) {
  if (c.variant == GlobalVariant::broadcast)
    return sizeof(float) * static_cast<double>(c.n + ceil_div(c.n, std::size_t{kWarpSize}));
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

int global_sectors_per_request(const GlobalConfig& c) {
  if (c.variant != GlobalVariant::misaligned)
    return sectors_per_request(global_access_bytes(c), global_lane_stride_bytes(c));
  const std::size_t start = c.offset * sizeof(float) % kSectorBytes;
  return static_cast<int>(ceil_div(start + kWarpSize * sizeof(float), kSectorBytes));
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
