// The on-GPU memory hierarchy, level by level: the read bandwidth and the
// dependent-load latency of a working set of any size, from a few KiB (held
// in every SM's L1) through the L2 to many GiB (DRAM, past the TLB's reach).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "membench/platform/arch_facts.hpp"
#include "membench/platform/device_info.hpp"
#include "membench/platform/int_list.hpp"
#include "membench/platform/kernel_shape.hpp"
#include "membench/platform/pattern.hpp"  // MEMBENCH_HOST_DEVICE

namespace membench {

// ---- bandwidth: the whole grid reads the working set, over and over ----------

inline constexpr int kHierarchyBlock = 256;
// A chunk (a block-step): 64 bytes from every thread of a block, as 64 /
// width loads of `width` bytes each (float, float2 or float4), thread t's
// k-th at vector t + k x kHierarchyBlock of the chunk.
inline constexpr std::size_t kHierarchyChunkBytes = std::size_t{kHierarchyBlock} * 64;
// Bytes a launch reads, at least.
// - A resident grid: 8 GiB, about a millisecond from the L2. Its blocks start
//   together and, with equal shares, end together.
// - Short blocks: 128 GiB, over 10 ms from the L2. Their launch ends in a wave
//   of blocks that finish at scattered times, the SMs partly idle for about
//   half a block's life (8 blocks of 256 KiB an SM: some 30 us from an H200's
//   L2). That is about 1.5% of a millisecond, and 0.1% of 128 GiB's time.
inline constexpr double kHierarchyMinBytes = double(std::size_t{1} << 33);
inline constexpr double kHierarchyShortMinBytes = double(std::size_t{1} << 37);
constexpr double hierarchy_min_bytes(bool persistent) {
  return persistent ? kHierarchyMinBytes : kHierarchyShortMinBytes;
}
// A short block's chunks (persistent = false): 1 KiB from each thread. Each
// block ends in its sum (a barrier, then a reduction); 16 chunks, not 8,
// halve how often the SMs stop issuing loads for it, and the L2's output is
// the busier for it.
inline constexpr std::uint64_t kHierarchyShortSteps = 16;
using HierarchyWidths = IntList<4, 8, 16>;  // bytes per load

struct BandwidthConfig {
  std::size_t working_set = 0;  // bytes, a multiple of kHierarchyChunkBytes
  int width = 16;               // bytes per load, one of HierarchyWidths
  bool persistent = true;       // a resident grid; false: many short blocks
  double min_bytes = 0;         // read per launch, at least; 0: hierarchy_min_bytes(persistent)
  bool through_l1 = true;       // loads may hit in the L1; false: each goes past it (ld.global.cg)
};

// How a launch covers the working set: block b reads `steps` consecutive
// chunks (wrapping at the end) from its own starting chunk.
// - Persistent: a resident grid, each block through about the whole set. The
//   starts are the set split evenly among the blocks, handed out in the order
//   b x spread mod grid, with spread about 0.618 x grid and prime to it, so
//   blocks with neighbouring numbers (which the GPU may put on one SM) start
//   far apart. A chunk is then read again only after the SM, and the GPU,
//   have read about the whole set in between. Not always: two blocks on one
//   SM can fall into step, the one behind riding the other's misses, and
//   then part of the reads never reach the L2 (ncu counts fewer L2 sectors
//   than the loads ask for: the ncu check's l2_read_bytes says where).
// - Not persistent: kHierarchyShortSteps chunks a block, block b from chunk
//   b x steps on, as many blocks as the reads take. The blocks run in about
//   their order, so the GPU reads the set front to back, again and again.
// Either way the level that holds the set serves every read after the
// first. A launch reads at least min_bytes, and every chunk at least once.
struct BandwidthCoverage {
  unsigned grid = 0;
  unsigned spread = 1;
  bool persistent = true;
  std::uint64_t chunks = 0;
  std::uint64_t steps = 0;  // chunks each block reads
  double bytes = 0;         // read per launch
  MEMBENCH_HOST_DEVICE std::uint64_t first_chunk(unsigned block) const {
    return persistent ? static_cast<std::uint64_t>(block) * spread % grid * chunks / grid : block * steps % chunks;
  }
};
bool bandwidth_config_supported(const BandwidthConfig& c, std::string* why);
// grid: the resident grid a persistent launch takes (ignored otherwise).
BandwidthCoverage bandwidth_coverage(const BandwidthConfig& c, unsigned grid);

// The read's launch worked out once: the kernel on the coverage's grid, with
// as much of the unified L1 as cache as keeps every block that fits on an SM
// (the least shared memory that holds them), and how it covers the set.
// cudaErrorInvalidValue, before any CUDA call, for a working set that is not
// a whole number of chunks.
struct BandwidthPlan {
  BandwidthConfig config;
  KernelShape shape;
  BandwidthCoverage coverage;
};
cudaError_t plan(const BandwidthConfig& c, BandwidthPlan* plan);
// partial[b] = the exact sum of everything block b read (input: the float pattern).
cudaError_t launch(const BandwidthPlan& p, const float* in, double* partial, cudaStream_t stream);

// Host reference: each chunk's sum (computed on all host cores), then block b's partial sum.
std::vector<double> bandwidth_chunk_sums(const BandwidthConfig& c, std::uint32_t seed);
double bandwidth_expected(const BandwidthCoverage& plan, const std::vector<double>& chunk_sums, unsigned block);

// ---- latency: one thread chases a random cyclic chain through it --------------

inline constexpr std::uint64_t kChaseSteps = std::uint64_t{1} << 16;  // dependent loads per launch
// Over a link (host memory, ~1 us a load) a launch takes fewer, so that it
// lasts milliseconds rather than tenths of a second.
inline constexpr std::uint64_t kLinkChaseSteps = std::uint64_t{1} << 13;
inline constexpr std::uint32_t kChaseKey = 0x1A7E;
inline constexpr int kChaseMaxWarmUp = 64;  // launches

struct LatencyConfig {
  std::size_t working_set = 0;        // bytes
  std::size_t stride = 128;           // bytes between nodes (a multiple of 8)
  bool through_l1 = true;             // loads may hit in the L1; false: each goes past it (ld.global.cg)
  std::uint64_t steps = kChaseSteps;  // dependent loads per launch
};

bool latency_config_supported(const LatencyConfig& c, std::string* why);
std::uint64_t latency_nodes(const LatencyConfig& c);
// The input: node k at byte k x stride holds the address of the next node
// of the cycle (CycleOrder(nodes, kChaseKey)).
cudaError_t fill_chain(const LatencyConfig& c, std::uint64_t* chain, cudaStream_t stream);
// One thread takes c.steps dependent 8-byte loads (ld.global.ca, so an L1
// hit is possible; ld.global.cg, past the L1, when !through_l1). It starts where the previous launch stopped, kept as a
// node index in state[0] (anything else, such as the poison before the
// first launch, starts at the head), so successive launches walk the whole
// cycle instead of its first c.steps nodes.
struct LatencyPlan {
  LatencyConfig config;
  KernelShape shape;
  std::uint64_t nodes = 0;
  std::uint64_t head = 0;  // the node a chase starts from when state[0] holds none
};
cudaError_t plan(const LatencyConfig& c, LatencyPlan* plan);
cudaError_t launch(const LatencyPlan& p, const std::uint64_t* chain, double* state, cudaStream_t stream);
// Where the first launch stops: the index of node (c.steps mod nodes).
double latency_expected(const LatencyConfig& c);
// Launches that walk the whole cycle once before timing, when it can fit in
// the caches (up to twice the L2); one otherwise. At most kChaseMaxWarmUp.
int latency_warm_up_launches(const LatencyConfig& c, std::size_t l2_bytes);

// ---- placements: near the L1's size, where a set lies within its page ------------

// Near the L1's size, where a working set starts within its 2 MiB page
// decides which of its lines share an L1 set, and so how many of its loads
// hit: the hypothesis is that a chase's time per load then moves with where
// the allocator put the chain (another binary, another sequence of
// allocations before it) by more than a run's noise, and elsewhere not at
// all. Up to twice the L1 a chase takes turns over kPlacements copies of
// its chain, copy 0 at the allocation's start and each other one at an
// offset of its own within its page (whole 4 KiB, drawn once by a fixed
// hash), a copy a launch, so that the copies' spread shows how far another
// allocation's value may lie. A read of the whole set by the whole grid
// was given copies in the same way, and they agreed: what moves its
// bandwidth from one process to the next is not where the set lies, and it
// takes no turns.
inline constexpr int kPlacements = 8;
inline constexpr std::size_t kPlacementPageBytes = std::size_t{2} << 20;
inline constexpr std::size_t kPlacementOffsetStep = std::size_t{4} << 10;
// The copies of a working set a case takes turns over: kPlacements up to
// twice the L1 (l1_bytes), else 1.
int l1_edge_placements(std::size_t working_set, std::size_t l1_bytes);
// Where copy k starts, in bytes from the allocation's start: its own slot
// of whole pages (the working set and a page to move in), plus its offset
// within the page (0 for copy 0).
std::size_t placement_start(std::size_t working_set, int k);
// The bytes that hold `copies` copies.
std::size_t placements_bytes(std::size_t working_set, int copies);

// ---- the model -----------------------------------------------------------------

// The level that holds a working set: the smallest one it fits in; nullopt
// for a set the L2 holds where the L1's size is not known (d.l1_bytes 0).
enum class Level { l1 = 1, l2 = 2, dram = 3 };
std::optional<Level> level_holding(std::size_t working_set, const DeviceInfo& d);

// The level's read bandwidth ceiling. DRAM: the theoretical peak from the
// memory clock and bus width. L1 and L2: the architecture facts' bytes per
// SM per clock x SMs x the peak SM clock. No attribute gives the L2's slice
// count or clock, so its figure is a ceiling. nullopt, with the fact the
// table lacks for this compute capability in `why`, where unknown.
std::optional<double> level_read_ceiling(Level level, const DeviceInfo& d, std::string* why = nullptr);
// The architecture fact a level's ceiling rests on (none for DRAM's).
std::optional<Fact> level_ceiling_fact(Level level);

}  // namespace membench
