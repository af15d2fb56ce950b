// The indirect-access kernels, their index fill and launcher. See indirect.hpp.
#include <algorithm>
#include <cmath>

#include "membench/indirect.hpp"
#include "platform/launch_utils.cuh"

namespace membench {

namespace kernels {

// table 0: a permutation within windows; else a lookup's runs over the table.
__global__ void fill_indirect_index(std::uint32_t* index, std::size_t n, std::size_t window, std::size_t table) {
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    index[i] = static_cast<std::uint32_t>(table != 0 ? lookup_index(i, table) : indirect_index(i, n, window));
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

bool reads_through_index(IndirectVariant v) { return v != IndirectVariant::scatter; }

}  // namespace

cudaError_t plan(const IndirectConfig& c, IndirectPlan* p) {
  const bool lookup = c.variant == IndirectVariant::lookup;
  if (!power_of_two(lookup ? c.table : c.window) || c.n > kIndirectMaxElements) return cudaErrorInvalidValue;
  if (lookup && c.table > kIndirectMaxElements) return cudaErrorInvalidValue;
  p->config = c;
  const auto grid = static_cast<unsigned>(std::max<std::size_t>(1, detail::ceil_div(c.n, kIndirectBlock)));
  p->shape = detail::shape_of(reads_through_index(c.variant) ? kernels::gather_scale : kernels::scatter_scale, grid,
                              kIndirectBlock);
  return cudaSuccess;
}

cudaError_t fill_index(const IndirectConfig& c, std::uint32_t* index, cudaStream_t stream) {
  if (c.n == 0) return cudaSuccess;
  unsigned grid = 0;
  if (const cudaError_t rc = detail::resident_grid(kernels::fill_indirect_index, kIndirectBlock, 0, &grid);
      rc != cudaSuccess)
    return rc;
  const std::size_t table = c.variant == IndirectVariant::lookup ? c.table : 0;
  kernels::fill_indirect_index<<<grid, kIndirectBlock, 0, stream>>>(index, c.n, c.window, table);
  return cudaGetLastError();
}

cudaError_t launch(const IndirectPlan& p, const float* in, float* out, cudaStream_t stream) {
  if (p.index == nullptr && p.config.n > 0) return cudaErrorInvalidValue;
  if (p.config.n == 0) return cudaSuccess;
  if (reads_through_index(p.config.variant))
    kernels::gather_scale<<<p.shape.grid, p.shape.block, 0, stream>>>(in, p.index, out, p.config.n);
  else
    kernels::scatter_scale<<<p.shape.grid, p.shape.block, 0, stream>>>(in, p.index, out, p.config.n);
  return cudaGetLastError();
}

std::size_t indirect_input_floats(const IndirectConfig& c) {
  return c.variant == IndirectVariant::lookup ? c.table : c.n;
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

double lookup_lane_sectors(std::size_t table) {
  constexpr std::size_t kFloatsPerSector = kSectorBytes / 4;
  if (table >= static_cast<std::size_t>(kWarpSize)) return indirect_lane_sectors(table);
  return static_cast<double>(std::max<std::size_t>(1, table / kFloatsPerSector));
}

namespace {

std::size_t window_size(const IndirectConfig& c) { return std::min(c.window, c.n); }

// Sectors a warp's read through the index touches (the gather's, the lookup's).
double indexed_read_sectors(const IndirectConfig& c) {
  return c.variant == IndirectVariant::lookup ? lookup_lane_sectors(c.table) : indirect_lane_sectors(window_size(c));
}

}  // namespace

double indirect_load_sectors_per_request(const IndirectConfig& c) {
  const double coalesced = kWarpSize * 4.0 / kSectorBytes;
  const double indirect = reads_through_index(c.variant) ? indexed_read_sectors(c) : coalesced;
  return (coalesced + indirect) / 2;  // the index's request and the other load's, one each a warp
}

double indirect_store_sectors_per_request(const IndirectConfig& c) {
  return c.variant == IndirectVariant::scatter ? indirect_lane_sectors(window_size(c)) : kWarpSize * 4.0 / kSectorBytes;
}

double indirect_l2_read_bytes(const IndirectConfig& c) {
  const double floats = static_cast<double>(c.n), warps = floats / kWarpSize;
  const double indirect = reads_through_index(c.variant) ? warps * indexed_read_sectors(c) * kSectorBytes : 4 * floats;
  return 4 * floats + indirect;
}

double indirect_l2_write_bytes(const IndirectConfig& c) {
  const double floats = static_cast<double>(c.n), warps = floats / kWarpSize;
  return c.variant == IndirectVariant::scatter ? warps * indirect_lane_sectors(window_size(c)) * kSectorBytes
                                               : 4 * floats;
}

std::optional<double> lookup_l2_read_bytes(const IndirectConfig& c, std::size_t l1_bytes, int sms) {
  const double table_bytes = 4.0 * static_cast<double>(c.table), l1 = static_cast<double>(l1_bytes);
  if (table_bytes >= 32 * l1) return indirect_l2_read_bytes(c);
  const double lookups_per_sm = static_cast<double>(c.n) / std::max(sms, 1);
  if (table_bytes > l1 || lookups_per_sm < 8.0 * static_cast<double>(c.table)) return std::nullopt;
  const double table_sectors = std::ceil(table_bytes / kSectorBytes) * kSectorBytes;
  return 4.0 * static_cast<double>(c.n) + sms * table_sectors;  // the index, and the table once an SM
}

std::optional<DramTraffic> indirect_dram_traffic(const IndirectConfig& c, std::size_t l2_bytes) {
  if (c.variant == IndirectVariant::lookup) return std::nullopt;
  const double window_bytes = 4.0 * static_cast<double>(window_size(c));
  const bool exact = c.variant == IndirectVariant::gather ? window_bytes <= l2_bytes / 2.0
                                                          : window_size(c) <= static_cast<std::size_t>(kWarpSize);
  if (!exact) return std::nullopt;
  const AccessPattern coalesced{c.n, 4, 4};
  DramTraffic t = dram_read(coalesced);  // the index
  t += dram_read(coalesced);             // the input
  t += dram_write(coalesced);
  return t;
}

DramTraffic indirect_dram_bound(const IndirectConfig& c, std::size_t l2_bytes) {
  const AccessPattern coalesced{c.n, 4, 4};
  const double accesses = static_cast<double>(c.n);
  DramTraffic t = dram_read(coalesced);  // the index
  if (c.variant == IndirectVariant::lookup && 4.0 * static_cast<double>(c.table) <= l2_bytes / 2.0) {
    // A table half the L2 holds: each of its lines read at most once a launch.
    t.read_bytes += std::min(accesses * kDramReadBytes, dram_read({c.table, 4, 4}).read_bytes);
    t += dram_write(coalesced);
  } else if (reads_through_index(c.variant)) {
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
