// The hierarchy family's kernels and launchers. See hierarchy.hpp.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "block_sum.cuh"
#include "float_vector.cuh"
#include "membench/chain.hpp"
#include "membench/hierarchy.hpp"
#include "membench/platform/pattern.hpp"
#include "membench/platform/verify.hpp"
#include "platform/launch_utils.cuh"

namespace membench {

namespace kernels {

// Every float a block reads is a multiple of 1/4 under 257. Each of a
// thread's float accumulators (one per load of a chunk) takes at most 4 of
// them per chunk and is folded into a double after every run of kFoldEvery
// chunks, long before its sum could reach 2^22 (where quarters stop being
// exact in float): the whole sum is exact. The fold sits outside the loop
// over a run's chunks, so that loop is only loads, adds and the wrap; two
// chunks per trip of it keep 2 x 64 / W loads of W bytes in flight. At 32
// registers a thread, 8 blocks fill an SM's 64K registers and 2048 threads;
// 4-byte loads (16 a chunk) take 40, and 6 blocks. !kThroughL1: every load
// is ld.global.cg, which the L1 does not keep.
template <int W, bool kThroughL1>
__global__ void __maxnreg__(W == 4 ? 40 : 32) hierarchy_read(const typename FloatVector<W / 4>::type* __restrict__ in,
                                                             double* __restrict__ partial, BandwidthCoverage cover) {
  using V = typename FloatVector<W / 4>::type;
  constexpr int U = 64 / W;                 // loads per thread per chunk
  constexpr std::uint64_t kFoldEvery = 64;  // well inside the bound (1024)
  constexpr std::uint64_t kChunkVectors = kHierarchyChunkBytes / W;
  double total = 0.0;
  const std::uint64_t chunks = cover.chunks;
  std::uint64_t chunk = cover.first_chunk(blockIdx.x);
  for (std::uint64_t done = 0; done < cover.steps; done += kFoldEvery) {
    const std::uint64_t run = cover.steps - done < kFoldEvery ? cover.steps - done : kFoldEvery;
    float acc[U] = {};
#pragma unroll 2
    for (std::uint64_t i = 0; i < run; ++i) {
      const V* base = in + chunk * kChunkVectors + threadIdx.x;
      V x[U];
#pragma unroll
      for (int k = 0; k < U; ++k) x[k] = kThroughL1 ? base[k * kHierarchyBlock] : __ldcg(base + k * kHierarchyBlock);
#pragma unroll
      for (int k = 0; k < U; ++k) acc[k] += FloatVector<W / 4>::sum(x[k]);
      if (++chunk == chunks) chunk = 0;
    }
#pragma unroll
    for (int k = 0; k < U; ++k) total += acc[k];
  }
  store_block_sum<kHierarchyBlock>(total, partial);
}

// One thread, `steps` dependent loads; see launch(LatencyConfig).
template <bool kThroughL1>
__global__ void hierarchy_chase(const std::uint64_t* chain, double* state, std::uint64_t nodes, std::uint64_t stride,
                                std::uint64_t head, std::uint64_t steps) {
  const double at = state[0];
  const std::uint64_t start = at >= 0.0 && at < static_cast<double>(nodes) ? static_cast<std::uint64_t>(at) : head;
  const char* base = reinterpret_cast<const char*>(chain);
  const unsigned long long* p = reinterpret_cast<const unsigned long long*>(base + start * stride);
#pragma unroll 16
  for (std::uint64_t k = 0; k < steps; ++k)
    p = reinterpret_cast<const unsigned long long*>(kThroughL1 ? __ldca(p) : __ldcg(p));
  state[0] = static_cast<double>((reinterpret_cast<const char*>(p) - base) / stride);
}

}  // namespace kernels

// ---- bandwidth -----------------------------------------------------------------

bool bandwidth_config_supported(const BandwidthConfig& c, std::string* why) {
  if (c.working_set >= kHierarchyChunkBytes && c.working_set % kHierarchyChunkBytes == 0 &&
      HierarchyWidths::contains(c.width))
    return true;
  if (why != nullptr)
    *why = HierarchyWidths::contains(c.width)
               ? "working_set must be a positive multiple of " + std::to_string(kHierarchyChunkBytes) + " bytes"
               : "width must be one of " + HierarchyWidths::joined();
  return false;
}

namespace {
// The read for W-byte loads, through the L1 or past it.
template <int W>
auto read_of(bool through_l1) {
  return through_l1 ? kernels::hierarchy_read<W, true> : kernels::hierarchy_read<W, false>;
}

const void* read_kernel(int width, bool through_l1) {
  return HierarchyWidths::dispatch(
      width, [&](auto w) { return reinterpret_cast<const void*>(read_of<decltype(w)::value>(through_l1)); },
      static_cast<const void*>(nullptr));
}
}  // namespace

BandwidthCoverage bandwidth_coverage(const BandwidthConfig& c, unsigned grid) {
  BandwidthCoverage p;
  p.persistent = c.persistent;
  p.chunks = std::max<std::uint64_t>(1, c.working_set / kHierarchyChunkBytes);
  const double min_bytes = c.min_bytes > 0 ? c.min_bytes : hierarchy_min_bytes(c.persistent);
  const double chunk_reads = std::max(std::ceil(min_bytes / kHierarchyChunkBytes), static_cast<double>(p.chunks));
  if (c.persistent) {
    p.grid = std::max(grid, 1u);
    p.steps = static_cast<std::uint64_t>(std::ceil(chunk_reads / p.grid));
  } else {
    p.steps = kHierarchyShortSteps;
    p.grid = static_cast<unsigned>(std::ceil(chunk_reads / static_cast<double>(p.steps)));
  }
  p.bytes = static_cast<double>(p.steps) * p.grid * kHierarchyChunkBytes;
  p.spread = std::max(1u, static_cast<unsigned>(0.618 * p.grid));
  while (std::gcd(p.spread, p.grid) != 1) ++p.spread;
  return p;
}

cudaError_t plan(const BandwidthConfig& c, BandwidthPlan* p) {
  if (!bandwidth_config_supported(c, nullptr)) return cudaErrorInvalidValue;
  const void* kernel = read_kernel(c.width, c.through_l1);
  cudaError_t rc = detail::prefer_l1(kernel, kHierarchyBlock);
  if (rc != cudaSuccess) return rc;
  unsigned grid = 0;
  if ((rc = detail::resident_grid(kernel, kHierarchyBlock, 0, &grid)) != cudaSuccess) return rc;
  p->config = c;
  p->coverage = bandwidth_coverage(c, grid);
  p->shape = detail::shape_of(kernel, p->coverage.grid, kHierarchyBlock);
  return cudaSuccess;
}

cudaError_t launch(const BandwidthPlan& p, const float* in, double* partial, cudaStream_t stream) {
  const BandwidthCoverage& cover = p.coverage;
  return HierarchyWidths::dispatch(
      p.config.width,
      [&](auto w) {
        constexpr int W = decltype(w)::value;
        using V = typename kernels::FloatVector<W / 4>::type;
        const auto read = read_of<W>(p.config.through_l1);
        read<<<p.shape.grid, p.shape.block, 0, stream>>>(reinterpret_cast<const V*>(in), partial, cover);
        return cudaGetLastError();
      },
      cudaErrorInvalidValue);
}

std::vector<double> bandwidth_chunk_sums(const BandwidthConfig& c, std::uint32_t seed) {
  return pattern_chunk_sums(c.working_set / kHierarchyChunkBytes, kHierarchyChunkBytes / sizeof(float), seed);
}

double bandwidth_expected(const BandwidthCoverage& plan, const std::vector<double>& chunk_sums, unsigned block) {
  double sum = 0;
  std::uint64_t chunk = plan.first_chunk(block);
  for (std::uint64_t i = 0; i < plan.steps; ++i) {
    sum += chunk_sums[chunk];
    if (++chunk == plan.chunks) chunk = 0;
  }
  return sum;
}

// ---- latency -------------------------------------------------------------------

bool latency_config_supported(const LatencyConfig& c, std::string* why) {
  auto refuse = [&](const std::string& reason) {
    if (why != nullptr) *why = reason;
    return false;
  };
  if (c.stride < 8 || c.stride % 8 != 0) return refuse("stride must be a positive multiple of 8 bytes");
  if (c.working_set / c.stride < 2) return refuse("the working set must hold at least two strides");
  if (c.steps == 0) return refuse("a chase takes at least one step");
  return true;
}

std::uint64_t latency_nodes(const LatencyConfig& c) { return c.stride == 0 ? 0 : c.working_set / c.stride; }

cudaError_t fill_chain(const LatencyConfig& c, std::uint64_t* chain, cudaStream_t stream) {
  if (!latency_config_supported(c, nullptr)) return cudaErrorInvalidValue;
  return launch_fill_pointer_chain(chain, latency_nodes(c), c.stride, kChaseKey, stream);
}

cudaError_t plan(const LatencyConfig& c, LatencyPlan* p) {
  if (!latency_config_supported(c, nullptr)) return cudaErrorInvalidValue;
  p->config = c;
  p->shape = c.through_l1 ? detail::shape_of(kernels::hierarchy_chase<true>, 1, 1)
                          : detail::shape_of(kernels::hierarchy_chase<false>, 1, 1);
  p->nodes = latency_nodes(c);
  p->head = CycleOrder(p->nodes, kChaseKey).node(0);
  return cudaSuccess;
}

cudaError_t launch(const LatencyPlan& p, const std::uint64_t* chain, double* state, cudaStream_t stream) {
  if (p.nodes == 0) return cudaErrorInvalidValue;  // not planned
  const auto chase = p.config.through_l1 ? kernels::hierarchy_chase<true> : kernels::hierarchy_chase<false>;
  chase<<<1, 1, 0, stream>>>(chain, state, p.nodes, p.config.stride, p.head, p.config.steps);
  return cudaGetLastError();
}

double latency_expected(const LatencyConfig& c) {
  const std::uint64_t nodes = latency_nodes(c);
  return static_cast<double>(CycleOrder(nodes, kChaseKey).node(c.steps % nodes));
}

int latency_warm_up_launches(const LatencyConfig& c, std::size_t l2_bytes) {
  if (c.working_set > 2 * l2_bytes) return 1;
  const auto laps = detail::ceil_div(latency_nodes(c), std::max<std::uint64_t>(c.steps, 1));
  return static_cast<int>(std::clamp<std::uint64_t>(laps, 1, kChaseMaxWarmUp));
}

// ---- placements ----------------------------------------------------------------

int l1_edge_placements(std::size_t working_set, std::size_t l1_bytes) {
  return working_set <= 2 * l1_bytes ? kPlacements : 1;
}

namespace {

// Bytes from one copy's slot to the next: the working set in whole pages,
// and one page more for the offset.
std::size_t placement_slot_bytes(std::size_t working_set) {
  return (detail::ceil_div(working_set, kPlacementPageBytes) + 1) * kPlacementPageBytes;
}

}  // namespace

std::size_t placement_start(std::size_t working_set, int k) {
  if (k <= 0) return 0;
  // Knuth's multiplicative hash, its high bits mixed down: offsets spread over the page.
  std::uint32_t h = static_cast<std::uint32_t>(k) * 2654435761u;
  h ^= h >> 16;
  const std::size_t offset = h % (kPlacementPageBytes / kPlacementOffsetStep) * kPlacementOffsetStep;
  return static_cast<std::size_t>(k) * placement_slot_bytes(working_set) + offset;
}

std::size_t placements_bytes(std::size_t working_set, int copies) {
  return copies <= 1 ? working_set : static_cast<std::size_t>(copies) * placement_slot_bytes(working_set);
}

// ---- the model -----------------------------------------------------------------

std::optional<Level> level_holding(std::size_t working_set, const DeviceInfo& d) {
  if (working_set > d.l2_bytes) return Level::dram;
  if (d.l1_bytes == 0) return std::nullopt;
  return working_set <= d.l1_bytes ? Level::l1 : Level::l2;
}

std::optional<Fact> level_ceiling_fact(Level level) {
  if (level == Level::dram) return std::nullopt;
  return level == Level::l1 ? Fact::l1_bytes_per_clock : Fact::l2_bytes_per_clock_per_sm;
}

std::optional<double> level_read_ceiling(Level level, const DeviceInfo& d, std::string* why) {
  const auto fact = level_ceiling_fact(level);
  if (!fact) return d.dram_peak_bytes_per_second;
  const auto per_clock = arch_fact(d.cc_major, d.cc_minor, *fact);
  if (!per_clock) {
    if (why != nullptr) *why = unknown_fact(d.cc_major, d.cc_minor, *fact);
    return std::nullopt;
  }
  return per_clock->value * d.sm_count * d.sm_clock_khz * 1e3;
}

}  // namespace membench
