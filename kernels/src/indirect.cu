// The indirect-access kernels, their index fill and launcher. See indirect.hpp.
#include <algorithm>
#include <cmath>

#include "membench/indirect.hpp"
#include "platform/launch_utils.cuh"

namespace membench {

namespace kernels {

__global__ void fill_indirect_index(std::uint32_t* index, std::size_t n, std::size_t window) {
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    index[i] = static_cast<std::uint32_t>(indirect_index(i, n, window));
}

__global__ void gather_scale(const float* __restrict__ in, const std::uint32_t* __restrict__ index,
                             float* __restrict__ out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[index[i]];
}

__global__ void scatter_scale(const float* __restrict__ in, const std::uint32_t* __restrict__ index,
                              float* __restrict__ out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[index[i]] = 2.0f * in[i];
}

}  // namespace kernels

namespace {

bool power_of_two(std::size_t w) { return w != 0 && (w & (w - 1)) == 0; }

}  // namespace

cudaError_t plan(const IndirectConfig& c, IndirectPlan* p) {
  if (!power_of_two(c.window) || c.n > kIndirectMaxElements) return cudaErrorInvalidValue;
  p->config = c;
  const auto grid = static_cast<unsigned>(std::max<std::size_t>(1, detail::ceil_div(c.n, kIndirectBlock)));
  p->shape = detail::shape_of(c.variant == IndirectVariant::gather ? kernels::gather_scale : kernels::scatter_scale,
                              grid, kIndirectBlock);
  return cudaSuccess;
}

cudaError_t fill_index(const IndirectConfig& c, std::uint32_t* index, cudaStream_t stream) {
  if (c.n == 0) return cudaSuccess;
  unsigned grid = 0;
  if (const cudaError_t rc = detail::resident_grid(kernels::fill_indirect_index, kIndirectBlock, 0, &grid);
      rc != cudaSuccess)
    return rc;
  kernels::fill_indirect_index<<<grid, kIndirectBlock, 0, stream>>>(index, c.n, c.window);
  return cudaGetLastError();
}

cudaError_t launch(const IndirectPlan& p, const float* in, float* out, cudaStream_t stream) {
  if (p.index == nullptr && p.config.n > 0) return cudaErrorInvalidValue;
  if (p.config.n == 0) return cudaSuccess;
  if (p.config.variant == IndirectVariant::gather)
    kernels::gather_scale<<<p.shape.grid, p.shape.block, 0, stream>>>(in, p.index, out, p.config.n);
  else
    kernels::scatter_scale<<<p.shape.grid, p.shape.block, 0, stream>>>(in, p.index, out, p.config.n);
  return cudaGetLastError();
}

double indirect_bytes(const IndirectConfig& c) { return 3.0 * 4.0 * static_cast<double>(c.n); }

double indirect_lane_sectors(std::size_t size) {
  constexpr int kFloatsPerSector = kSectorBytes / 4;
  if (size <= static_cast<std::size_t>(kWarpSize)) return kWarpSize / kFloatsPerSector;
  // A sector is missed by all 32 draws (without replacement) from `size`
  // elements with the chance C(size - 8, 32) / C(size, 32).
  double missed = 1.0;
  const double s = static_cast<double>(size);
  for (int k = 0; k < kWarpSize; ++k) missed *= std::max(0.0, (s - kFloatsPerSector - k) / (s - k));
  return s / kFloatsPerSector * (1.0 - missed);
}

namespace {

std::size_t window_size(const IndirectConfig& c) { return std::min(c.window, c.n); }

}  // namespace

double indirect_load_sectors_per_request(const IndirectConfig& c) {
  const double coalesced = kWarpSize * 4.0 / kSectorBytes;
  const double indirect = c.variant == IndirectVariant::gather ? indirect_lane_sectors(window_size(c)) : coalesced;
  return (coalesced + indirect) / 2;  // the index's request and the other load's, one each a warp
}

double indirect_store_sectors_per_request(const IndirectConfig& c) {
  return c.variant == IndirectVariant::scatter ? indirect_lane_sectors(window_size(c)) : kWarpSize * 4.0 / kSectorBytes;
}

double indirect_l2_read_bytes(const IndirectConfig& c) {
  const double floats = static_cast<double>(c.n), warps = floats / kWarpSize;
  const double indirect =
      c.variant == IndirectVariant::gather ? warps * indirect_lane_sectors(window_size(c)) * kSectorBytes : 4 * floats;
  return 4 * floats + indirect;
}

double indirect_l2_write_bytes(const IndirectConfig& c) {
  const double floats = static_cast<double>(c.n), warps = floats / kWarpSize;
  return c.variant == IndirectVariant::scatter ? warps * indirect_lane_sectors(window_size(c)) * kSectorBytes
                                               : 4 * floats;
}

std::optional<DramTraffic> indirect_dram_traffic(const IndirectConfig& c, std::size_t l2_bytes) {
  const bool gather = c.variant == IndirectVariant::gather;
  const double window_bytes = 4.0 * static_cast<double>(window_size(c));
  const bool exact = gather ? window_bytes <= l2_bytes / 2.0 : window_size(c) <= static_cast<std::size_t>(kWarpSize);
  if (!exact) return std::nullopt;
  const AccessPattern coalesced{c.n, 4, 4};
  DramTraffic t = dram_read(coalesced);  // the index
  t += dram_read(coalesced);             // the input
  t += dram_write(coalesced);
  return t;
}

DramTraffic indirect_dram_bound(const IndirectConfig& c) {
  const AccessPattern coalesced{c.n, 4, 4};
  const double accesses = static_cast<double>(c.n);
  DramTraffic t = dram_read(coalesced);  // the index
  if (c.variant == IndirectVariant::gather) {
    t.read_bytes += accesses * kDramReadBytes;
    t += dram_write(coalesced);
  } else {
    t += dram_read(coalesced);
    t.read_bytes += accesses * kSectorBytes;
    t.write_bytes += accesses * kSectorBytes;
  }
  return t;
}

}  // namespace membench
