// Indirect access: the permutation, its inverse and the models on the host;
// gather and scatter against the host reference on the GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <vector>

#include "gpu.hpp"
#include "membench/indirect.hpp"

namespace membench {
namespace {

TEST(IndirectPermutation, IsABijectionOnEveryWidthAndItsInverseUndoesIt) {
  for (int bits = 0; bits <= 14; ++bits) {
    const std::uint32_t size = 1u << bits;
    std::vector<bool> hit(size, false);
    for (std::uint32_t x = 0; x < size; ++x) {
      const std::uint32_t y = permute_bits(x, bits);
      ASSERT_LT(y, size) << bits;
      ASSERT_FALSE(hit[y]) << "bits " << bits << ": " << y << " twice";
      hit[y] = true;
      ASSERT_EQ(unpermute_bits(y, bits), x) << bits;
    }
  }
  for (std::uint32_t x : {0u, 1u, 12345u, 0xFFFFFFFFu, 0x80000000u})
    EXPECT_EQ(unpermute_bits(permute_bits(x, 32), 32), x);
}

// Every window is permuted in place, a shorter last one over its own size,
// and the source of an index is its inverse.
TEST(IndirectPermutation, AnIndexArrayIsAPermutationThatKeepsEachWindowInPlace) {
  struct Shape {
    std::size_t n, window;
  };
  for (const Shape s : {Shape{1000, 256}, Shape{100, 1024}, Shape{4096, 4096}, Shape{777, 1}, Shape{33, 32}}) {
    std::set<std::size_t> seen;
    for (std::size_t i = 0; i < s.n; ++i) {
      const std::size_t j = indirect_index(i, s.n, s.window);
      ASSERT_LT(j, s.n);
      EXPECT_EQ(j / s.window, i / s.window) << "n " << s.n << " window " << s.window << " i " << i;
      EXPECT_EQ(indirect_source(j, s.n, s.window), i);
      seen.insert(j);
    }
    EXPECT_EQ(seen.size(), s.n) << "n " << s.n << " window " << s.window;
  }
  for (std::size_t i = 0; i < 100; ++i) EXPECT_EQ(indirect_index(i, 100, 1), i);  // window 1: the identity
}

// The permutation is random enough for the model: the lanes of a warp land
// in as many distinct sectors as 32 uniform draws would.
TEST(IndirectModel, TheLanesOfAWarpHitTheSectorsThatUniformDrawsWould) {
  for (const std::size_t window : {std::size_t{1} << 12, std::size_t{1} << 20}) {
    const int warps = 4096;
    const std::size_t n = std::max<std::size_t>(window, warps * 32);
    double sectors = 0;
    for (int w = 0; w < warps; ++w) {
      std::set<std::size_t> hit;
      for (int lane = 0; lane < 32; ++lane) hit.insert(indirect_index(std::size_t(w) * 32 + lane, n, window) / 8);
      sectors += static_cast<double>(hit.size());
    }
    EXPECT_NEAR(sectors / warps, indirect_lane_sectors(window), 0.01 * indirect_lane_sectors(window)) << window;
  }
}

TEST(IndirectModel, SectorsPerRequestFromTheIdentityToAWholeArray) {
  EXPECT_DOUBLE_EQ(indirect_lane_sectors(1), 4.0);
  EXPECT_DOUBLE_EQ(indirect_lane_sectors(32), 4.0);  // 32 of 32 elements: all 4 sectors
  // 64 elements in 8 sectors: a sector is missed with the chance C(56, 32) / C(64, 32).
  const double missed = std::exp(std::lgamma(57.0) + std::lgamma(33.0) - std::lgamma(25.0) - std::lgamma(65.0));
  EXPECT_NEAR(indirect_lane_sectors(64), 8 * (1 - missed), 1e-9);
  EXPECT_NEAR(indirect_lane_sectors(std::size_t{1} << 26), 32.0, 1e-3);
  EXPECT_GT(indirect_lane_sectors(256), 20.0);
  EXPECT_LT(indirect_lane_sectors(256), 32.0);
  const std::size_t n = std::size_t{1} << 26;
  const IndirectConfig gather{IndirectVariant::gather, n, n}, scatter{IndirectVariant::scatter, n, n};
  EXPECT_NEAR(indirect_load_sectors_per_request(gather), (4 + 32) / 2.0, 1e-3);
  EXPECT_DOUBLE_EQ(indirect_store_sectors_per_request(gather), 4.0);
  EXPECT_DOUBLE_EQ(indirect_load_sectors_per_request(scatter), 4.0);
  EXPECT_NEAR(indirect_store_sectors_per_request(scatter), 32.0, 1e-3);
  const IndirectConfig identity{IndirectVariant::gather, n, 1};
  EXPECT_DOUBLE_EQ(indirect_load_sectors_per_request(identity), 4.0);
  // A window larger than the array is the array.
  EXPECT_DOUBLE_EQ(indirect_load_sectors_per_request({IndirectVariant::gather, 64, 1 << 20}),
                   (4 + indirect_lane_sectors(64)) / 2);
}

TEST(IndirectModel, DramBytesAreExactWhereEachArrayMovesOnceAndABoundElsewhere) {
  const std::size_t n = std::size_t{1} << 26, l2 = std::size_t{60} << 20;
  const double a = 4.0 * n;
  for (const std::size_t window : {std::size_t{1}, std::size_t{1} << 20}) {
    const auto g = indirect_dram_traffic({IndirectVariant::gather, n, window}, l2);
    ASSERT_TRUE(g) << window;
    EXPECT_DOUBLE_EQ(g->read_bytes, 2 * a) << window;  // index and input, once each
    EXPECT_DOUBLE_EQ(g->write_bytes, a) << window;
  }
  // A scatter is exact only where one request writes each sector whole.
  const auto identity = indirect_dram_traffic({IndirectVariant::scatter, n, 32}, l2);
  ASSERT_TRUE(identity);
  EXPECT_DOUBLE_EQ(identity->write_bytes, a);
  EXPECT_FALSE(indirect_dram_traffic({IndirectVariant::scatter, n, 64}, l2));
  // A gather's window that does not fit in half the L2 has no exact model.
  EXPECT_TRUE(indirect_dram_traffic({IndirectVariant::gather, n, std::size_t{1} << 22}, l2));   // 16 MiB
  EXPECT_FALSE(indirect_dram_traffic({IndirectVariant::gather, n, std::size_t{1} << 23}, l2));  // 32 MiB
  // The bounds: every gathered float a 64-byte read; every scattered one a sector read and written.
  const DramTraffic g = indirect_dram_bound({IndirectVariant::gather, n, n}, l2);
  EXPECT_DOUBLE_EQ(g.read_bytes, a + n * 64.0);
  EXPECT_DOUBLE_EQ(g.write_bytes, a);
  const DramTraffic s = indirect_dram_bound({IndirectVariant::scatter, n, n}, l2);
  EXPECT_DOUBLE_EQ(s.read_bytes, 2 * a + n * 32.0);
  EXPECT_DOUBLE_EQ(s.write_bytes, n * 32.0);
  EXPECT_DOUBLE_EQ(indirect_bytes({IndirectVariant::scatter, 10, 1}), 120.0);
}

TEST(IndirectModel, TheL1AsksTheL2ForEverySectorAndWritesEveryScatteredLaneAlone) {
  const std::size_t n = std::size_t{1} << 26;
  const double a = 4.0 * n, warps = n / 32.0;
  EXPECT_DOUBLE_EQ(indirect_l2_read_bytes({IndirectVariant::gather, n, 1}), 2 * a);
  EXPECT_DOUBLE_EQ(indirect_l2_write_bytes({IndirectVariant::gather, n, n}), a);
  EXPECT_DOUBLE_EQ(indirect_l2_read_bytes({IndirectVariant::gather, n, n}), a + warps * indirect_lane_sectors(n) * 32);
  EXPECT_DOUBLE_EQ(indirect_l2_read_bytes({IndirectVariant::scatter, n, n}), 2 * a);
  EXPECT_NEAR(indirect_l2_write_bytes({IndirectVariant::scatter, n, n}), 8 * a, 1e-3 * a);  // 32 bytes a float
  EXPECT_DOUBLE_EQ(indirect_l2_write_bytes({IndirectVariant::scatter, n, 1}), a);
}

// Each run of `table` consecutive lookups reads every entry of the table
// once, in an order of its own.
TEST(IndirectLookup, EachRunOfTheTableIsAPermutationOfItsOwn) {
  for (const std::size_t table : {std::size_t{1}, std::size_t{8}, std::size_t{64}, std::size_t{1} << 12}) {
    std::vector<std::size_t> first;
    for (std::size_t run = 0; run < 4; ++run) {
      std::set<std::size_t> seen;
      std::vector<std::size_t> order;
      for (std::size_t k = 0; k < table; ++k) {
        const std::size_t j = lookup_index(run * table + k, table);
        ASSERT_LT(j, table);
        seen.insert(j);
        order.push_back(j);
      }
      EXPECT_EQ(seen.size(), table) << "table " << table << " run " << run;
      if (run == 0) first = order;
      if (run > 0 && table >= 64) { EXPECT_NE(order, first) << "table " << table << " run " << run; }
    }
  }
  EXPECT_EQ(lookup_index(std::size_t{1} << 33, std::size_t{1} << 32), lookup_index(0, std::size_t{1} << 32));
}

TEST(IndirectLookup, ItsModelsAreTheGathersOverTheTableWhichDramReadsOnce) {
  const std::size_t n = std::size_t{1} << 26, l2 = std::size_t{60} << 20;
  const double a = 4.0 * n, warps = n / 32.0;
  IndirectConfig c{IndirectVariant::lookup, n};
  c.table = std::size_t{1} << 22;  // 16 MiB
  EXPECT_EQ(indirect_input_floats(c), c.table);
  EXPECT_DOUBLE_EQ(indirect_bytes(c), 3 * a);
  EXPECT_DOUBLE_EQ(indirect_load_sectors_per_request(c), (4 + indirect_lane_sectors(c.table)) / 2);
  EXPECT_DOUBLE_EQ(indirect_store_sectors_per_request(c), 4.0);
  EXPECT_DOUBLE_EQ(indirect_l2_read_bytes(c), a + warps * indirect_lane_sectors(c.table) * 32);
  EXPECT_DOUBLE_EQ(indirect_l2_write_bytes(c), a);
  // Part of a table the L2 holds stays there between launches: DRAM reads it at most once.
  EXPECT_FALSE(indirect_dram_traffic(c, l2));
  const DramTraffic hot = indirect_dram_bound(c, l2);
  EXPECT_DOUBLE_EQ(hot.read_bytes, a + 4.0 * static_cast<double>(c.table));  // the index, and the table once
  EXPECT_DOUBLE_EQ(hot.write_bytes, a);
  c.table = std::size_t{1} << 28;  // 1 GiB: past the L2, the gather's bound
  EXPECT_DOUBLE_EQ(indirect_dram_bound(c, l2).read_bytes, a + static_cast<double>(n) * 64.0);
  c.n = 1024, c.table = 1 << 20;  // fewer lookups than the table's lines: each one a 64-byte read at most
  EXPECT_DOUBLE_EQ(indirect_dram_bound(c, l2).read_bytes, 4.0 * 1024 + 1024 * 64.0);
  // A table smaller than a warp: the warp touches every sector of it.
  EXPECT_DOUBLE_EQ(lookup_lane_sectors(16), 2.0);
  EXPECT_DOUBLE_EQ(lookup_lane_sectors(4), 1.0);
  EXPECT_DOUBLE_EQ(lookup_lane_sectors(32), 4.0);
  EXPECT_DOUBLE_EQ(lookup_lane_sectors(std::size_t{1} << 20), indirect_lane_sectors(std::size_t{1} << 20));
  IndirectPlan p;
  IndirectConfig bad{IndirectVariant::lookup, 1000};
  bad.table = 3;
  EXPECT_EQ(plan(bad, &p), cudaErrorInvalidValue);
  bad.table = 0;
  EXPECT_EQ(plan(bad, &p), cudaErrorInvalidValue);
}

// The L2 serves a table the L1 holds once an SM; one far past the L1 every
// lookup's sectors; nothing is claimed in between.
TEST(IndirectLookup, TheL2ServesATableTheL1HoldsOnceAnSm) {
  const std::size_t n = std::size_t{1} << 24, l1 = 256 << 10;
  const int sms = 132;
  IndirectConfig c{IndirectVariant::lookup, n};
  c.table = 1024;  // 4 KiB
  const auto held = lookup_l2_read_bytes(c, l1, sms);
  ASSERT_TRUE(held);
  EXPECT_DOUBLE_EQ(*held, 4.0 * n + sms * 4096.0);
  c.table = 3;  // part of a sector: the sector
  EXPECT_DOUBLE_EQ(*lookup_l2_read_bytes(c, l1, sms), 4.0 * n + sms * 32.0);
  c.table = l1 / 4;  // the L1 exactly, looked up eight times over by each SM
  EXPECT_FALSE(lookup_l2_read_bytes(c, l1, sms));
  c.n = std::size_t{1} << 30;
  EXPECT_TRUE(lookup_l2_read_bytes(c, l1, sms));
  c.table = l1 / 2;  // twice the L1: neither
  EXPECT_FALSE(lookup_l2_read_bytes(c, l1, sms));
  c.table = 8 * l1;  // 32 times the L1: every lookup from the L2
  EXPECT_DOUBLE_EQ(*lookup_l2_read_bytes(c, l1, sms), indirect_l2_read_bytes(c));
  c.table = 8 * l1 - 1;
  EXPECT_FALSE(lookup_l2_read_bytes(c, l1, sms));
  c.n = 1024 * sms * 8 - 1, c.table = 1024;  // too few lookups an SM to read the whole table
  EXPECT_FALSE(lookup_l2_read_bytes(c, l1, sms));
  c.n += 1;
  EXPECT_TRUE(lookup_l2_read_bytes(c, l1, sms));
}

// The lanes of a warp of lookups hit the sectors the model says.
TEST(IndirectLookup, TheLanesOfAWarpHitTheSectorsTheModelSays) {
  for (const std::size_t table : {std::size_t{16}, std::size_t{1} << 12, std::size_t{1} << 20}) {
    const int warps = 4096;
    double sectors = 0;
    for (int w = 0; w < warps; ++w) {
      std::set<std::size_t> hit;
      for (int lane = 0; lane < 32; ++lane) hit.insert(lookup_index(std::size_t(w) * 32 + lane, table) / 8);
      sectors += static_cast<double>(hit.size());
    }
    EXPECT_NEAR(sectors / warps, lookup_lane_sectors(table), 0.01 * lookup_lane_sectors(table)) << table;
  }
}

TEST(IndirectReference, AGatherReadsItsIndexAndAScatterItsSource) {
  const IndirectConfig g{IndirectVariant::gather, 1000, 256}, s{IndirectVariant::scatter, 1000, 256};
  for (std::size_t i : {0u, 17u, 999u}) {
    EXPECT_EQ(indirect_reference(g, i, 7), 2.0f * pattern_value(indirect_index(i, 1000, 256), 7));
    EXPECT_EQ(indirect_reference(s, i, 7), 2.0f * pattern_value(indirect_source(i, 1000, 256), 7));
  }
  IndirectPlan p;
  EXPECT_EQ(plan({IndirectVariant::gather, 1000, 3}, &p), cudaErrorInvalidValue);  // not a power of two
  EXPECT_EQ(plan({IndirectVariant::gather, 1000, 0}, &p), cudaErrorInvalidValue);
  EXPECT_EQ(plan({IndirectVariant::gather, kIndirectMaxElements + 1, 1}, &p), cudaErrorInvalidValue);
}

TEST(IndirectKernels, GatherAndScatterMatchTheHostReference) {
  MEMBENCH_REQUIRE_GPU();
  for (IndirectVariant v : {IndirectVariant::gather, IndirectVariant::scatter})
    for (const std::size_t window : {std::size_t{1}, std::size_t{64}, std::size_t{1} << 12, std::size_t{1} << 20}) {
      const IndirectConfig c{v, (std::size_t{1} << 18) + 77, window};  // a short last window
      IndirectPlan p;
      MEMBENCH_CUDA(plan(c, &p));
      DeviceBuffer<std::uint32_t> index(c.n);
      MEMBENCH_CUDA(fill_index(c, index.get(), nullptr));
      p.index = index.get();
      SCOPED_TRACE(std::string(kIndirectVariants(v)) + " window " + std::to_string(window));
      test::expect_output(
          c.n, c.n, 3, [&](const float* in, float* out) { return launch(p, in, out, nullptr); },
          [&](std::size_t i) { return indirect_reference(c, i, 3); });
    }
}

TEST(IndirectKernels, ALookupMatchesTheHostReference) {
  MEMBENCH_REQUIRE_GPU();
  for (const std::size_t table : {std::size_t{1}, std::size_t{16}, std::size_t{1} << 12, std::size_t{1} << 20}) {
    IndirectConfig c{IndirectVariant::lookup, (std::size_t{1} << 18) + 77};
    c.table = table;
    IndirectPlan p;
    MEMBENCH_CUDA(plan(c, &p));
    DeviceBuffer<std::uint32_t> index(c.n);
    MEMBENCH_CUDA(fill_index(c, index.get(), nullptr));
    p.index = index.get();
    SCOPED_TRACE("table " + std::to_string(table));
    test::expect_output(
        indirect_input_floats(c), c.n, 3, [&](const float* in, float* out) { return launch(p, in, out, nullptr); },
        [&](std::size_t i) { return indirect_reference(c, i, 3); });
  }
}

TEST(IndirectKernels, ALaunchWithoutItsIndexIsRefused) {
  IndirectPlan p;
  ASSERT_EQ(plan({IndirectVariant::gather, 1000, 1}, &p), cudaSuccess);
  EXPECT_EQ(launch(p, nullptr, nullptr, nullptr), cudaErrorInvalidValue);
}

}  // namespace
}  // namespace membench
