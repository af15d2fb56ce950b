#include <algorithm>
#include <cstdint>

#include "global_kernels.cuh"
#include "launch_utils.cuh"
#include "membench/global.hpp"
#include "membench/models.hpp"

namespace membench {

const std::vector<GlobalVariant>& global_variants() {
  static const std::vector<GlobalVariant> all = {GlobalVariant::coalesced, GlobalVariant::strided,
                                                 GlobalVariant::vectorized, GlobalVariant::memcpy};
  return all;
}

std::string to_string(GlobalVariant v) {
  switch (v) {
    case GlobalVariant::coalesced: return "coalesced";
    case GlobalVariant::strided: return "strided";
    case GlobalVariant::vectorized: return "vectorized";
    case GlobalVariant::memcpy: return "memcpy";
  }
  return "?";
}

cudaError_t launch_global_coalesced(const float* in, float* out, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  const auto grid = static_cast<unsigned>(detail::ceil_div(n, kGlobalBlock));
  kernels::coalesced_scale<<<grid, kGlobalBlock, 0, stream>>>(in, out, n);
  return detail::last_launch_error();
}

cudaError_t launch_global_strided(const float* in, float* out, std::size_t n, std::size_t stride,
                                  cudaStream_t stream) {
  if (stride == 0) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  const std::size_t threads = detail::ceil_div(n, stride);
  const auto grid = static_cast<unsigned>(detail::ceil_div(threads, kGlobalBlock));
  kernels::strided_scale<<<grid, kGlobalBlock, 0, stream>>>(in, out, n, stride);
  return detail::last_launch_error();
}

namespace {
template <int VEC, int ILP>
cudaError_t launch_vectorized(const float* in, float* out, std::size_t n, bool persistent, cudaStream_t stream) {
  unsigned grid = 0;
  if (persistent) {
    const cudaError_t rc = detail::resident_grid(kernels::vectorized_scale<VEC, ILP>, kGlobalBlock, 0, &grid);
    if (rc != cudaSuccess) return rc;
  } else {
    grid = static_cast<unsigned>(std::max<std::size_t>(1, detail::ceil_div(n / VEC, std::size_t{kGlobalBlock} * ILP)));
  }
  kernels::vectorized_scale<VEC, ILP><<<grid, kGlobalBlock, 0, stream>>>(in, out, n);
  return detail::last_launch_error();
}

template <int VEC>
cudaError_t dispatch_ilp(const float* in, float* out, std::size_t n, int ilp, bool persistent, cudaStream_t stream) {
  switch (ilp) {
    case 1: return launch_vectorized<VEC, 1>(in, out, n, persistent, stream);
    case 2: return launch_vectorized<VEC, 2>(in, out, n, persistent, stream);
    case 4: return launch_vectorized<VEC, 4>(in, out, n, persistent, stream);
    case 8: return launch_vectorized<VEC, 8>(in, out, n, persistent, stream);
    default: return cudaErrorInvalidValue;
  }
}
}  // namespace

bool vectorized_supported(int vec, int ilp) {
  const bool vec_ok = vec == 1 || vec == 2 || vec == 4;
  const bool ilp_ok = ilp == 1 || ilp == 2 || ilp == 4 || ilp == 8;
  return vec_ok && ilp_ok;
}

cudaError_t launch_global_vectorized(const float* in, float* out, std::size_t n, int vec, int ilp, int persistent,
                                     cudaStream_t stream) {
  if (!vectorized_supported(vec, ilp) || (persistent != 0 && persistent != 1)) return cudaErrorInvalidValue;
  const auto misaligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 != 0; };
  if (misaligned(in) || misaligned(out)) return cudaErrorMisalignedAddress;
  if (n == 0) return cudaSuccess;
  switch (vec) {
    case 1: return dispatch_ilp<1>(in, out, n, ilp, persistent == 1, stream);
    case 2: return dispatch_ilp<2>(in, out, n, ilp, persistent == 1, stream);
    default: return dispatch_ilp<4>(in, out, n, ilp, persistent == 1, stream);
  }
}

cudaError_t launch_global_memcpy(const float* in, float* out, std::size_t n, cudaStream_t stream) {
  return cudaMemcpyAsync(out, in, n * sizeof(float), cudaMemcpyDeviceToDevice, stream);
}

std::size_t global_elements_touched(GlobalVariant v, std::size_t n, std::size_t stride) {
  if (v == GlobalVariant::strided) return stride == 0 ? 0 : detail::ceil_div(n, stride);
  return n;
}

double global_bytes(GlobalVariant v, std::size_t n, std::size_t stride) {
  return 2.0 * sizeof(float) * static_cast<double>(global_elements_touched(v, n, stride));
}

int global_access_bytes(GlobalVariant v, int vec) {
  return v == GlobalVariant::vectorized ? vec * static_cast<int>(sizeof(float)) : static_cast<int>(sizeof(float));
}

std::size_t global_lane_stride_bytes(GlobalVariant v, std::size_t stride, int vec) {
  switch (v) {
    case GlobalVariant::strided: return stride * sizeof(float);
    case GlobalVariant::vectorized: return static_cast<std::size_t>(vec) * sizeof(float);
    default: return sizeof(float);
  }
}

}  // namespace membench
