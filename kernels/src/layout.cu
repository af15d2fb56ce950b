#include "launch_utils.cuh"
#include "layout_kernels.cuh"
#include "membench/layout.hpp"
#include "membench/models.hpp"

namespace membench {

const std::vector<LayoutVariant>& layout_variants() {
  static const std::vector<LayoutVariant> all = {LayoutVariant::aos, LayoutVariant::soa};
  return all;
}

std::string to_string(LayoutVariant v) { return v == LayoutVariant::aos ? "aos" : "soa"; }

namespace {
template <int FIELDS>
cudaError_t launch_aos(const float* in, float* out, std::size_t n, cudaStream_t stream) {
  const auto grid = static_cast<unsigned>(detail::ceil_div(n, kLayoutBlock));
  kernels::aos_scale<FIELDS><<<grid, kLayoutBlock, 0, stream>>>(reinterpret_cast<const Particle*>(in),
                                                                 reinterpret_cast<Particle*>(out), n);
  return detail::last_launch_error();
}

template <int FIELDS>
cudaError_t launch_soa(const float* in, float* out, std::size_t n, cudaStream_t stream) {
  const auto grid = static_cast<unsigned>(detail::ceil_div(n, kLayoutBlock));
  kernels::soa_scale<FIELDS><<<grid, kLayoutBlock, 0, stream>>>(in, out, n);
  return detail::last_launch_error();
}
}  // namespace

cudaError_t launch_layout_aos(const float* in, float* out, std::size_t n, int fields, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  switch (fields) {
    case 1: return launch_aos<1>(in, out, n, stream);
    case 2: return launch_aos<2>(in, out, n, stream);
    case 3: return launch_aos<3>(in, out, n, stream);
    case 4: return launch_aos<4>(in, out, n, stream);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t launch_layout_soa(const float* in, float* out, std::size_t n, int fields, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  switch (fields) {
    case 1: return launch_soa<1>(in, out, n, stream);
    case 2: return launch_soa<2>(in, out, n, stream);
    case 3: return launch_soa<3>(in, out, n, stream);
    case 4: return launch_soa<4>(in, out, n, stream);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t launch_layout(LayoutVariant v, const float* in, float* out, std::size_t n, int fields,
                          cudaStream_t stream) {
  return v == LayoutVariant::aos ? launch_layout_aos(in, out, n, fields, stream)
                                 : launch_layout_soa(in, out, n, fields, stream);
}

double layout_bytes(std::size_t n, int fields) {
  return 2.0 * sizeof(float) * static_cast<double>(n) * fields;
}

int layout_sectors_per_request(LayoutVariant v) {
  const std::size_t lane_stride = v == LayoutVariant::aos ? sizeof(Particle) : sizeof(float);
  return sectors_per_request(sizeof(float), lane_stride);
}

double layout_dram_efficiency(LayoutVariant v, int fields) {
  // A warp's loads of the different fields of AoS hit the same sectors (the
  // later ones in L1), so DRAM moves all 16 bytes of every element once.
  if (v == LayoutVariant::aos) return static_cast<double>(fields) / kLayoutFields;
  return 1.0;
}

}  // namespace membench
