#include <cmath>
#include <string>

#include "async_kernels.cuh"
#include "launch_utils.cuh"
#include "membench/async.hpp"

namespace membench {

const std::vector<AsyncVariant>& async_variants() {
  static const std::vector<AsyncVariant> all = {AsyncVariant::sync, AsyncVariant::memcpy_async,
                                                AsyncVariant::pipeline, AsyncVariant::bulk};
  return all;
}

std::string to_string(AsyncVariant v) {
  switch (v) {
    case AsyncVariant::sync: return "sync";
    case AsyncVariant::memcpy_async: return "memcpy_async";
    case AsyncVariant::pipeline: return "pipeline";
    case AsyncVariant::bulk: return "bulk";
  }
  return "?";
}

namespace {

template <class List>
bool contains(const List& list, int value) {
  for (int x : list)
    if (x == value) return true;
  return false;
}

template <class List>
std::string join(const List& list) {
  std::string s;
  for (int x : list) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

bool multi_stage(AsyncVariant v) { return v == AsyncVariant::pipeline || v == AsyncVariant::bulk; }

template <int TILE, int STAGES>
cudaError_t launch_kernel(AsyncVariant v, const float* in, float* out, std::size_t n, int fmas,
                          cudaStream_t stream) {
  using Kernel = void (*)(const float*, float*, std::size_t, int, float, float);
  Kernel kernel = nullptr;
  switch (v) {
    case AsyncVariant::sync: kernel = kernels::async_sync<TILE>; break;
    case AsyncVariant::memcpy_async: kernel = kernels::async_memcpy_async<TILE>; break;
    case AsyncVariant::pipeline: kernel = kernels::async_pipeline<TILE, STAGES>; break;
    case AsyncVariant::bulk: kernel = kernels::async_bulk<TILE, STAGES>; break;
  }
  const std::size_t smem = async_smem_bytes({v, TILE, STAGES, 0});
  cudaError_t rc = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  if (rc != cudaSuccess) return rc;
  unsigned grid = 0;
  rc = detail::resident_grid(kernel, kAsyncBlock, smem, &grid);
  if (rc != cudaSuccess) return rc;
  const std::size_t tiles = detail::ceil_div(n, TILE);
  if (tiles < grid) grid = static_cast<unsigned>(tiles);
  kernel<<<grid, kAsyncBlock, smem, stream>>>(in, out, n, fmas, kAsyncFmaA, kAsyncFmaB);
  return detail::last_launch_error();
}

template <int TILE>
cudaError_t dispatch_stages(const AsyncConfig& c, const float* in, float* out, std::size_t n, cudaStream_t s) {
  const int fmas = c.flops / 2;
  if (!multi_stage(c.variant)) return launch_kernel<TILE, 1>(c.variant, in, out, n, fmas, s);
  switch (c.stages) {
    case 1: return launch_kernel<TILE, 1>(c.variant, in, out, n, fmas, s);
    case 2: return launch_kernel<TILE, 2>(c.variant, in, out, n, fmas, s);
    case 3: return launch_kernel<TILE, 3>(c.variant, in, out, n, fmas, s);
    case 4: return launch_kernel<TILE, 4>(c.variant, in, out, n, fmas, s);
    case 6: return launch_kernel<TILE, 6>(c.variant, in, out, n, fmas, s);
    case 8: return launch_kernel<TILE, 8>(c.variant, in, out, n, fmas, s);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace

bool async_config_supported(const AsyncConfig& c, std::string* why) {
  auto refuse = [&](const std::string& reason) {
    if (why != nullptr) *why = reason;
    return false;
  };
  if (!contains(kAsyncTiles, c.tile)) return refuse("tile must be one of " + join(kAsyncTiles));
  if (multi_stage(c.variant) && !contains(kAsyncStages, c.stages))
    return refuse("stages must be one of " + join(kAsyncStages));
  if (c.flops < 0 || c.flops > kAsyncMaxFlops || c.flops % 2 != 0)
    return refuse("flops must be even and within 0.." + std::to_string(kAsyncMaxFlops));
  return true;
}

bool async_variant_available(AsyncVariant v, std::string* why) {
  if (v != AsyncVariant::bulk) return true;
  int device = 0;
  int major = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) {
    if (why != nullptr) *why = "no CUDA device";
    return false;
  }
  if (major < 9) {
    if (why != nullptr) *why = "the bulk-copy engine needs compute capability 9.0 or newer";
    return false;
  }
  cudaFuncAttributes attr{};
  if (cudaFuncGetAttributes(&attr, kernels::async_bulk<1024, 1>) != cudaSuccess) {
    if (why != nullptr) *why = "no machine code for the bulk kernel on this device";
    return false;
  }
  if (attr.binaryVersion < 90) {
    if (why != nullptr)
      *why = "this binary holds no sm_90 code for the bulk kernel (built for sm_" + std::to_string(attr.binaryVersion) +
             "); rebuild with CMAKE_CUDA_ARCHITECTURES=90";
    return false;
  }
  return true;
}

std::size_t async_smem_bytes(const AsyncConfig& c) {
  int buffers = 1;
  if (c.variant == AsyncVariant::pipeline || c.variant == AsyncVariant::bulk) buffers = c.stages;
  return static_cast<std::size_t>(buffers) * c.tile * sizeof(float);
}

cudaError_t launch_async(const AsyncConfig& c, const float* in, float* out, std::size_t n, cudaStream_t stream) {
  if (!async_config_supported(c, nullptr)) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  if (c.variant == AsyncVariant::bulk && !async_variant_available(c.variant, nullptr)) return cudaErrorNotSupported;
  switch (c.tile) {
    case 512: return dispatch_stages<512>(c, in, out, n, stream);
    case 1024: return dispatch_stages<1024>(c, in, out, n, stream);
    case 2048: return dispatch_stages<2048>(c, in, out, n, stream);
    default: return dispatch_stages<4096>(c, in, out, n, stream);
  }
}

float async_reference(float x, int flops) {
  // x + (flops / 2) * 1/2: exact while the sum stays below 2^22 (inputs are
  // multiples of 1/4 under 257 and flops <= 65536).
  return x + static_cast<float>(flops / 2) * kAsyncFmaB;
}

float async_reference_chain(float x, int flops) {
  for (int k = 0; k < flops / 2; ++k) x = std::fma(x, kAsyncFmaA, kAsyncFmaB);
  return x;
}

double async_bytes(std::size_t n) { return 2.0 * sizeof(float) * static_cast<double>(n); }

double async_flops(std::size_t n, int flops) { return static_cast<double>(n) * flops; }

}  // namespace membench
