// Hierarchy family: the random cycle and its chains, how a bandwidth launch
// covers the working set, the level model; on the GPU the read kernel
// against the host's sums and the chase against the cycle, over sizes that
// put the chunks below, at and above the grid.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "gpu.hpp"
#include "membench/chain.hpp"
#include "membench/hierarchy.hpp"

namespace membench {
namespace {

TEST(CycleOrder, VisitsEveryNodeOnce) {
  for (std::uint64_t n : {2ull, 3ull, 5ull, 64ull, 1000ull, 4097ull, 100003ull}) {
    const CycleOrder order(n, 7);
    std::vector<bool> seen(n, false);
    for (std::uint64_t j = 0; j < n; ++j) {
      const std::uint64_t k = order.node(j);
      ASSERT_LT(k, n);
      ASSERT_FALSE(seen[k]) << "node " << k << " twice, n " << n;
      seen[k] = true;
    }
  }
}

TEST(CycleOrder, IsNotSequential) {
  // Consecutive nodes of the cycle land far apart: a prefetcher has nothing to follow.
  const std::uint64_t n = 1 << 20;
  const CycleOrder order(n, kChaseKey);
  int near = 0;
  for (std::uint64_t j = 0; j + 1 < 4096; ++j) {
    const auto a = order.node(j), b = order.node(j + 1);
    near += (a > b ? a - b : b - a) < 64;
  }
  EXPECT_LT(near, 8);
}

TEST(BandwidthCoverage, ReadsAtLeastTheMinimumAndEveryChunk) {
  for (std::size_t ws : {kHierarchyChunkBytes, 3 * kHierarchyChunkBytes, std::size_t{64} << 20, std::size_t{4} << 30})
    for (unsigned grid : {1u, 7u, 924u}) {
      const BandwidthCoverage p = bandwidth_coverage({ws}, grid);
      EXPECT_GE(p.bytes, hierarchy_min_bytes(true));
      EXPECT_GE(p.bytes, static_cast<double>(ws));
      EXPECT_EQ(p.chunks, ws / kHierarchyChunkBytes);
      EXPECT_DOUBLE_EQ(p.bytes, static_cast<double>(p.steps) * grid * static_cast<double>(kHierarchyChunkBytes));
      // The starts are the set split evenly: each block's run reaches the
      // next start, so no chunk is left out.
      std::vector<std::uint64_t> starts;
      for (unsigned b = 0; b < grid; ++b) starts.push_back(p.first_chunk(b));
      std::sort(starts.begin(), starts.end());
      for (unsigned b = 0; b < grid; ++b) ASSERT_EQ(starts[b], std::uint64_t{b} * p.chunks / grid) << b;
      EXPECT_LE(p.chunks - starts.back(), p.steps);
      if (grid > 1) { EXPECT_LE(starts[1] - starts[0], p.steps); }
    }
}

TEST(BandwidthCoverage, ALaunchReadsAtLeastWhatItIsAskedFor) {
  for (bool persistent : {true, false})
    for (double min_bytes : {1.0, 1e6, 3e8, kHierarchyMinBytes}) {
      const BandwidthCoverage p = bandwidth_coverage({std::size_t{4} << 20, 16, persistent, min_bytes}, 924);
      EXPECT_GE(p.bytes, std::max(min_bytes, 4.0 * (1 << 20))) << min_bytes;
      // One step fewer a block (a block fewer, for short blocks) would fall short.
      const double less =
          persistent ? static_cast<double>(p.steps - 1) * p.grid : static_cast<double>(p.steps) * (p.grid - 1);
      EXPECT_LT(less * kHierarchyChunkBytes, std::max(min_bytes, 4.0 * (1 << 20))) << min_bytes;
    }
}

// A short-block launch ends in a wave of blocks finishing at scattered times;
// it must last hundreds of such waves for that drain to weigh ~0.1%. A
// resident grid is one wave of equal shares and needs no more than 8 GiB.
TEST(BandwidthCoverage, ShortBlocksReadHundredsOfWavesALaunch) {
  const unsigned resident = 8 * 132;  // blocks at once on an H200
  const BandwidthCoverage shorts = bandwidth_coverage({std::size_t{32} << 20, 16, false}, resident);
  EXPECT_GE(shorts.grid / resident, 400u);
  EXPECT_DOUBLE_EQ(shorts.bytes, kHierarchyShortMinBytes);
  const BandwidthCoverage resident_grid = bandwidth_coverage({std::size_t{32} << 20, 16, true}, resident);
  EXPECT_EQ(resident_grid.grid, resident);
  EXPECT_GE(resident_grid.bytes, kHierarchyMinBytes);
  EXPECT_LT(resident_grid.bytes, kHierarchyShortMinBytes);
  // An explicit minimum overrides either default.
  EXPECT_LT(bandwidth_coverage({std::size_t{32} << 20, 16, false, 1e9}, resident).bytes, 2e9);
}

TEST(BandwidthConfig, RefusesWidthsAndSetsNotBuilt) {
  std::string why;
  for (int width : HierarchyWidths::values)
    EXPECT_TRUE(bandwidth_config_supported({kHierarchyChunkBytes, width}, &why));
  EXPECT_FALSE(bandwidth_config_supported({kHierarchyChunkBytes, 12}, &why));
  EXPECT_EQ(why, "width must be one of 4,8,16");
  EXPECT_FALSE(bandwidth_config_supported({kHierarchyChunkBytes + 16, 16}, &why));
  EXPECT_NE(why.find("multiple of 16384"), std::string::npos) << why;
  BandwidthPlan p;
  EXPECT_EQ(plan(BandwidthConfig{kHierarchyChunkBytes, 2}, &p), cudaErrorInvalidValue);  // before any CUDA call
}

TEST(BandwidthCoverage, NeighbouringBlocksStartFarApart) {
  const BandwidthCoverage p = bandwidth_coverage({std::size_t{4} << 20}, 924);  // 256 chunks
  EXPECT_EQ(p.first_chunk(0), 0u);
  for (unsigned b = 0; b + 1 < 924; ++b) {
    const auto a = p.first_chunk(b), c = p.first_chunk(b + 1);
    const auto gap = a > c ? a - c : c - a;
    ASSERT_GE(std::min(gap, p.chunks - gap), 256u / 4) << "blocks " << b << " and " << b + 1;
  }
}

TEST(BandwidthCoverage, ShortBlocksReadTheSetFrontToBackAndEveryChunk) {
  for (std::size_t ws : {kHierarchyChunkBytes, 3 * kHierarchyChunkBytes, std::size_t{8} << 20, std::size_t{4} << 30}) {
    SCOPED_TRACE("working set " + std::to_string(ws));
    const BandwidthCoverage p = bandwidth_coverage({ws, 16, false}, 924);  // the resident grid plays no part
    EXPECT_FALSE(p.persistent);
    EXPECT_EQ(p.steps, kHierarchyShortSteps);
    EXPECT_EQ(p.chunks, ws / kHierarchyChunkBytes);
    EXPECT_GE(p.bytes, kHierarchyShortMinBytes);
    EXPECT_GE(p.bytes, static_cast<double>(ws));
    EXPECT_DOUBLE_EQ(p.bytes, static_cast<double>(p.steps) * p.grid * static_cast<double>(kHierarchyChunkBytes));
    // One block fewer would fall short of the minimum or of the set.
    EXPECT_LT(static_cast<double>(p.steps) * (p.grid - 1) * kHierarchyChunkBytes,
              std::max(kHierarchyShortMinBytes, static_cast<double>(ws)));
    // Block b takes up where block b - 1 stopped, wrapping at the end of the set.
    for (unsigned b = 0; b < std::min(p.grid, 5000u); ++b)
      ASSERT_EQ(p.first_chunk(b), b * kHierarchyShortSteps % p.chunks) << b;
  }
}

TEST(BandwidthReference, BlockSumsAddUpToTheChunksEachBlockRead) {
  const BandwidthConfig c{5 * kHierarchyChunkBytes};
  const auto sums = bandwidth_chunk_sums(c, 3);
  ASSERT_EQ(sums.size(), 5u);
  double direct = 0;
  for (std::size_t e = 0; e < kHierarchyChunkBytes / 4; ++e) direct += pattern_value(e, 3);
  EXPECT_EQ(sums[0], direct);
  for (unsigned grid : {2u, 5u, 13u}) {
    const BandwidthCoverage p = bandwidth_coverage(c, grid);
    double blocks = 0, by_chunk = 0;
    for (unsigned b = 0; b < grid; ++b) blocks += bandwidth_expected(p, sums, b);
    // Chunk k is read by every block whose run of `steps` from its start covers it.
    for (std::uint64_t k = 0; k < 5; ++k)
      for (unsigned b = 0; b < grid; ++b)
        for (std::uint64_t i = 0; i < p.steps; ++i)
          if ((p.first_chunk(b) + i) % 5 == k) by_chunk += sums[k];
    EXPECT_EQ(blocks, by_chunk) << grid;
  }
  // Short blocks: block b reads chunks 8b .. 8b + 7, modulo the set.
  const BandwidthCoverage p = bandwidth_coverage({c.working_set, c.width, false}, 13);
  for (unsigned b : {0u, 1u, 7u, p.grid - 1}) {
    double expected = 0;
    for (std::uint64_t i = 0; i < kHierarchyShortSteps; ++i) expected += sums[(b * kHierarchyShortSteps + i) % 5];
    EXPECT_EQ(bandwidth_expected(p, sums, b), expected) << b;
  }
}

TEST(HierarchyModel, LevelsAndCeilings) {
  DeviceInfo d;
  d.cc_major = 9;
  d.l1_bytes = 256 << 10;
  d.l2_bytes = 50 << 20;
  d.sm_count = 132;
  d.sm_clock_khz = 1980000;
  d.dram_peak_bytes_per_second = 4.8e12;
  EXPECT_EQ(level_holding(16 << 10, d), Level::l1);
  EXPECT_EQ(level_holding(256 << 10, d), Level::l1);
  EXPECT_EQ(level_holding(512 << 10, d), Level::l2);
  EXPECT_EQ(level_holding(50 << 20, d), Level::l2);
  EXPECT_EQ(level_holding(64 << 20, d), Level::dram);
  // L1: 128 bytes per SM per clock, 132 x 128 x 1.98e9 = 33.45408 TB/s; the L2 ceiling assumes half
  // that per SM (16.72704 TB/s); DRAM is the device's own peak.
  EXPECT_DOUBLE_EQ(level_read_ceiling(Level::l1, d).value(), 3.345408e13);
  EXPECT_DOUBLE_EQ(level_read_ceiling(Level::l2, d).value(), 1.672704e13);
  EXPECT_DOUBLE_EQ(level_read_ceiling(Level::dram, d).value(), 4.8e12);
  // Where the architecture facts have no L1 size, a set the L2 holds is at no known level;
  // where they have no L2 rate (Turing), the L2's ceiling is unknown and says which fact is missing.
  d.l1_bytes = 0;
  EXPECT_EQ(level_holding(16 << 10, d), std::nullopt);
  EXPECT_EQ(level_holding(64 << 20, d), Level::dram);
  d.cc_major = 7;
  d.cc_minor = 5;
  std::string why;
  EXPECT_EQ(level_read_ceiling(Level::l2, d, &why), std::nullopt);
  EXPECT_NE(why.find("l2_bytes_per_clock_per_sm"), std::string::npos) << why;
  EXPECT_NE(why.find("7.5"), std::string::npos) << why;
  EXPECT_TRUE(level_read_ceiling(Level::l1, d).has_value());
}

TEST(LatencyConfig, NodesWarmUpAndRefusals) {
  std::string why;
  EXPECT_TRUE(latency_config_supported({1 << 20, 128}, &why));
  EXPECT_EQ(latency_nodes({1 << 20, 128}), 8192u);
  EXPECT_FALSE(latency_config_supported({1 << 20, 12}, &why));
  EXPECT_NE(why.find("multiple of 8"), std::string::npos);
  EXPECT_FALSE(latency_config_supported({128, 128}, &why));
  EXPECT_NE(why.find("two strides"), std::string::npos);
  const std::size_t l2 = 50 << 20;
  EXPECT_EQ(latency_warm_up_launches({16 << 10, 128}, l2), 1);
  EXPECT_EQ(latency_warm_up_launches({std::size_t{32} << 20, 128}, l2), 4);  // 2^18 nodes, 2^16 per launch
  EXPECT_EQ(latency_warm_up_launches({std::size_t{1} << 30, 128}, l2), 1);   // DRAM: nothing to warm
  EXPECT_EQ(latency_warm_up_launches({std::size_t{64} << 20, 8}, l2), kChaseMaxWarmUp);
  // A chase of fewer steps (over a link) needs more launches to walk the cycle once, and ends elsewhere.
  EXPECT_EQ(latency_warm_up_launches({std::size_t{2} << 20, 128, false, kLinkChaseSteps}, l2),
            2);  // 2^14 nodes, 2^13 per launch
  EXPECT_FALSE(latency_config_supported({1 << 20, 128, false, 0}, &why));
  EXPECT_NE(why.find("one step"), std::string::npos) << why;
  const CycleOrder order(8192, kChaseKey);
  EXPECT_EQ(latency_expected({1 << 20, 128, true, 1000}), static_cast<double>(order.node(1000)));
  EXPECT_EQ(latency_expected({1 << 20, 128}), static_cast<double>(order.node(0)));  // 2^16 steps: eight laps
}

TEST(Placements, SetsUpToTwiceTheL1TakeTurnsOverCopiesEachOnItsOwnPages) {
  const std::size_t l1 = 256 << 10;
  EXPECT_EQ(l1_edge_placements(16 << 10, l1), kPlacements);
  EXPECT_EQ(l1_edge_placements(l1, l1), kPlacements);
  EXPECT_EQ(l1_edge_placements(2 * l1, l1), kPlacements);
  EXPECT_EQ(l1_edge_placements(2 * l1 + 128, l1), 1);
  EXPECT_EQ(l1_edge_placements(std::size_t{1} << 30, l1), 1);
  // Copy 0 at the start; the others each in a slot of their own, at offsets within the page that all differ,
  // in whole 4 KiB steps, and every copy inside the bytes the copies take.
  for (const std::size_t set : {std::size_t{16} << 10, 2 * l1, std::size_t{3} << 20, std::size_t{2} << 20}) {
    SCOPED_TRACE(set);
    EXPECT_EQ(placement_start(set, 0), 0u);
    std::set<std::size_t> offsets;
    for (int k = 0; k < kPlacements; ++k) {
      const std::size_t start = placement_start(set, k);
      offsets.insert(start % kPlacementPageBytes);
      EXPECT_EQ(start % kPlacementOffsetStep, 0u);
      if (k > 0) { EXPECT_GE(start, placement_start(set, k - 1) + set) << "copy " << k << " overlaps"; }
      EXPECT_LE(start + set, placements_bytes(set, kPlacements));
    }
    EXPECT_EQ(offsets.size(), static_cast<std::size_t>(kPlacements));
    EXPECT_EQ(placements_bytes(set, 1), set);
  }
}

class HierarchyKernels : public ::testing::Test {
 protected:
  void SetUp() override { MEMBENCH_REQUIRE_GPU(); }
};

TEST_F(HierarchyKernels, ReadSumsWhatEachBlockReadAtEveryWidth) {
  for (bool through_l1 : {true, false})
    for (bool persistent : {true, false})
      for (int width : HierarchyWidths::values)
        for (std::size_t ws :
             {kHierarchyChunkBytes, 3 * kHierarchyChunkBytes, std::size_t{1} << 20, std::size_t{64} << 20}) {
          SCOPED_TRACE("working set " + std::to_string(ws) + " width " + std::to_string(width) + " persistent " +
                       std::to_string(persistent) + " through_l1 " + std::to_string(through_l1));
          // 64 MiB a launch, not 8 GiB: quick under the sanitizers.
          const BandwidthConfig c{ws, width, persistent, 64.0 * (1 << 20), through_l1};
          BandwidthPlan planned;
          MEMBENCH_CUDA(membench::plan(c, &planned));
          const BandwidthCoverage plan = planned.coverage;
          EXPECT_EQ(plan.grid, planned.shape.grid);
          DeviceBuffer<float> in(ws / 4);
          DeviceBuffer<double> out(plan.grid);
          MEMBENCH_CUDA(launch_fill_pattern(in.get(), in.size(), 5, nullptr));
          MEMBENCH_CUDA(launch_poison(out.get(), out.bytes(), nullptr));
          MEMBENCH_CUDA(launch(planned, in.get(), out.get(), nullptr));
          MEMBENCH_CUDA(cudaDeviceSynchronize());
          const auto sums = bandwidth_chunk_sums(c, 5);
          const auto bad = first_mismatch(copy_to_host(out.get(), out.size()), [&](std::size_t b) {
            return bandwidth_expected(plan, sums, static_cast<unsigned>(b));
          });
          EXPECT_FALSE(bad) << describe(*bad, "partial");
        }
}

TEST_F(HierarchyKernels, TheReadKeepsEveryBlockTheMostSharedMemoryWouldFitAndPrefersTheL1) {
  BandwidthPlan planned;
  MEMBENCH_CUDA(membench::plan(BandwidthConfig{std::size_t{1} << 20, 16}, &planned));
  cudaFuncAttributes attributes{};
  MEMBENCH_CUDA(cudaFuncGetAttributes(&attributes, planned.shape.function));
  EXPECT_LT(attributes.preferredShmemCarveout, 50);
  int most = 0, sms = 0, device = 0;
  MEMBENCH_CUDA(cudaFuncSetAttribute(planned.shape.function, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
  MEMBENCH_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&most, planned.shape.function, kHierarchyBlock, 0));
  MEMBENCH_CUDA(cudaGetDevice(&device));
  MEMBENCH_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  EXPECT_EQ(planned.shape.grid, static_cast<unsigned>(most * sms));
  MEMBENCH_CUDA(membench::plan(BandwidthConfig{std::size_t{1} << 20, 16}, &planned));  // the L1 preferred again
  // Past the L1: another kernel (ld.global.cg), on as many blocks.
  BandwidthPlan past;
  MEMBENCH_CUDA(membench::plan(BandwidthConfig{std::size_t{1} << 20, 16, true, 0, false}, &past));
  EXPECT_NE(past.shape.function, planned.shape.function);
  EXPECT_EQ(past.shape.grid, planned.shape.grid);
}

TEST_F(HierarchyKernels, PointerChainFollowsTheCycle) {
  const LatencyConfig c{std::size_t{1} << 16, 64};
  const std::uint64_t nodes = latency_nodes(c);
  DeviceBuffer<std::uint64_t> chain(c.working_set / 8);
  MEMBENCH_CUDA(fill_chain(c, chain.get(), nullptr));
  const auto host = copy_to_host(chain.get(), chain.size());
  const CycleOrder order(nodes, kChaseKey);
  const auto base = reinterpret_cast<std::uintptr_t>(chain.get());
  for (std::uint64_t j = 0; j < nodes; ++j) {
    const std::uint64_t here = order.node(j), next = order.node((j + 1) % nodes);
    ASSERT_EQ(host[here * c.stride / 8], base + next * c.stride) << "node " << j << " of the cycle";
  }
}

TEST_F(HierarchyKernels, OffsetChainFollowsTheCycle) {
  const std::uint64_t nodes = 1000;
  DeviceBuffer<std::uint32_t> chain(nodes * 2);
  MEMBENCH_CUDA(launch_fill_offset_chain(chain.get(), nodes, 8, 11, nullptr));
  const auto host = copy_to_host(chain.get(), chain.size());
  const CycleOrder order(nodes, 11);
  for (std::uint64_t j = 0; j < nodes; ++j)
    ASSERT_EQ(host[order.node(j) * 2], order.node((j + 1) % nodes) * 8) << "node " << j << " of the cycle";
  EXPECT_EQ(launch_fill_offset_chain(chain.get(), std::uint64_t{1} << 30, 8, 11, nullptr), cudaErrorInvalidValue);
}

TEST_F(HierarchyKernels, ChaseEndsWhereTheCycleSaysAndTheNextLaunchGoesOn) {
  for (const LatencyConfig c : {LatencyConfig{256, 128}, LatencyConfig{std::size_t{1} << 16, 8},
                                LatencyConfig{std::size_t{3} << 20, 192}, LatencyConfig{std::size_t{64} << 20, 4096}}) {
    SCOPED_TRACE("working set " + std::to_string(c.working_set) + " stride " + std::to_string(c.stride));
    const std::uint64_t nodes = latency_nodes(c);
    const CycleOrder order(nodes, kChaseKey);
    DeviceBuffer<std::uint64_t> chain(c.working_set / 8);
    DeviceBuffer<double> state(1);
    MEMBENCH_CUDA(fill_chain(c, chain.get(), nullptr));
    MEMBENCH_CUDA(launch_poison(state.get(), state.bytes(), nullptr));
    for (std::uint64_t launches = 1; launches <= 3; ++launches) {
      MEMBENCH_CUDA(launch(test::planned<LatencyPlan>(c), chain.get(), state.get(), nullptr));
      MEMBENCH_CUDA(cudaDeviceSynchronize());
      const double got = copy_to_host(state.get(), 1)[0];
      if (launches == 1) { EXPECT_EQ(got, latency_expected(c)); }
      EXPECT_EQ(got, static_cast<double>(order.node(launches * kChaseSteps % nodes))) << launches << " launches";
    }
  }
}

}  // namespace
}  // namespace membench
