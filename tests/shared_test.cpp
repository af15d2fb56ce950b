// Shared-memory experiment: the bank-conflict model on the host (the
// conflict degrees and the wide-access rule), every kernel on the GPU.
#include <gtest/gtest.h>

#include <numeric>
#include <set>

#include "gpu.hpp"
#include "membench/platform/pattern.hpp"
#include "membench/platform/verify.hpp"
#include "membench/shared.hpp"

namespace membench {
namespace {

TEST(ConflictModel, ColumnReadsAndPadding) {
  // tile[32][32] read by column: word stride 32, every lane in bank ty.
  EXPECT_EQ(conflict_ways(32, 4), 32);
  // tile[32][33]: stride 33 = 1 mod 32, all 32 banks distinct.
  EXPECT_EQ(conflict_ways(33, 4), 1);
  EXPECT_EQ(conflict_ways(1, 4), 1);
  EXPECT_EQ(conflict_ways(2, 4), 2);
  EXPECT_EQ(conflict_ways(16, 4), 16);
}

TEST(ConflictModel, OneWordForTheWholeWarpIsBroadcastNotAConflict) {
  // Stride 0: the exception to gcd(S, 32), which would say 32 ways.
  for (int width : {4, 8, 16}) EXPECT_EQ(conflict_ways(0, width), 1) << width;
  // Served together across phases: one wavefront, two for 16-byte loads (half warps), where distinct
  // words need one per 128 bytes (1, 2, 4).
  EXPECT_EQ(conflict_wavefronts(0, 4), 1);
  EXPECT_EQ(conflict_wavefronts(0, 8), 1);
  EXPECT_EQ(conflict_wavefronts(0, 16), 2);
  EXPECT_LT(conflict_wavefronts(0, 16), conflict_wavefronts(1, 16));
  EXPECT_EQ(conflict_smem_bytes(0, 16), 16u);
  // Every lane expects the one word's sum.
  EXPECT_EQ(conflict_degree_expected(0, 0, 8, 3), conflict_degree_expected(31, 0, 8, 3));
  EXPECT_EQ(conflict_degree_expected(5, 0, 8, 3), 3 * (small_int_value(0) + small_int_value(1)));
}

TEST(ConflictModel, FourByteWordsAreGcdOfStrideAnd32) {
  for (int s = 1; s <= 130; ++s) EXPECT_EQ(conflict_ways(s, 4), std::gcd(s, 32)) << "stride " << s;
}

TEST(ConflictModel, WideAccessesAreServedInHalfAndQuarterWarps) {
  // 8-byte accesses: 16 lanes per 128-byte phase, so ways = gcd(S, 16);
  // 16-byte accesses: 8 lanes per phase, ways = gcd(S, 8).
  for (int s = 1; s <= 64; ++s) {
    EXPECT_EQ(conflict_ways(s, 8), std::gcd(s, 16)) << "stride " << s;
    EXPECT_EQ(conflict_ways(s, 16), std::gcd(s, 8)) << "stride " << s;
  }
  // A conflict-free request still needs one wavefront per 128 bytes.
  EXPECT_EQ(conflict_wavefronts(1, 4), 1);
  EXPECT_EQ(conflict_wavefronts(1, 8), 2);
  EXPECT_EQ(conflict_wavefronts(1, 16), 4);
  EXPECT_EQ(conflict_wavefronts(8, 16), 32);  // every quarter-warp on 4 banks x 8 deep
}

TEST(ConflictModel, MatrixVariants) {
  EXPECT_EQ(shared_conflict_ways({SharedVariant::row, 64}), 1);
  EXPECT_EQ(shared_conflict_ways({SharedVariant::column, 64, 0}), 32);
  EXPECT_EQ(shared_conflict_ways({SharedVariant::column, 64, 1}), 1);
  EXPECT_EQ(shared_conflict_ways({SharedVariant::column, 64, 2}), 2);
  EXPECT_EQ(shared_conflict_ways({SharedVariant::column, 64, 8}), 8);
  EXPECT_EQ(shared_conflict_ways({SharedVariant::swizzle, 64}), 1);
  SharedConfig degree{SharedVariant::conflict_degree};
  degree.stride = 12;
  degree.width = 8;
  EXPECT_EQ(shared_conflict_ways(degree), 4);  // gcd(12, 16)
}

SharedConfig tiled(int tile, int pad, int n = 4096) {
  SharedConfig c{SharedVariant::column_tile, n, pad};
  c.tile = tile;
  return c;
}

// One float of padding fixes the column read of a 32- or 64-wide tile and
// more gains nothing (a pad of 32 is a stride of 64, as bad as none); a
// 16-wide tile puts two rows in a warp, and there one float leaves the read
// two-way and makes the row stores two-way: no pad is conflict-free on both.
TEST(ConflictModel, WherePaddingHelpsAndWhereItDoesNot) {
  EXPECT_EQ(shared_conflict_ways(tiled(32, 0)), 32);
  EXPECT_EQ(shared_conflict_ways(tiled(32, 1)), 1);
  EXPECT_EQ(shared_conflict_ways(tiled(32, 32)), 32);
  EXPECT_EQ(shared_conflict_ways(tiled(32, 2)), 2);
  EXPECT_EQ(shared_conflict_ways(tiled(64, 0)), 32);
  EXPECT_EQ(shared_conflict_ways(tiled(64, 1)), 1);
  EXPECT_EQ(shared_conflict_ways(tiled(16, 0)), 8);  // 16 lanes a row on 2 banks, two rows: 4 banks of 8
  EXPECT_EQ(shared_conflict_ways(tiled(16, 1)), 2);  // lanes (0, 0) and (15, 1): words 0 and 256
  EXPECT_EQ(shared_conflict_ways(tiled(16, 2)), 1);
  EXPECT_EQ(tile_store_conflict_ways(tiled(16, 0)), 1);
  for (int pad : {1, 2, 4, 8, 16})
    EXPECT_EQ(tile_store_conflict_ways(tiled(16, pad)), 2) << pad;  // the second row wraps onto the first's banks
  for (int pad : SharedPads::values) {
    EXPECT_EQ(tile_store_conflict_ways(tiled(32, pad)), 1) << pad;  // a warp stores one row
    EXPECT_EQ(tile_store_conflict_ways(tiled(64, pad)), 1) << pad;
  }
  EXPECT_EQ(tile_smem_bytes(tiled(64, 32)), 64u * 96 * 4);
  EXPECT_EQ(tile_smem_bytes(tiled(16, 0)), 16u * 16 * 4);
  long long same_bank[32], spread[32];
  for (int l = 0; l < 32; ++l) same_bank[l] = 32LL * l, spread[l] = l;
  EXPECT_EQ(bank_ways(same_bank), 32);
  EXPECT_EQ(bank_ways(spread), 1);
}

TEST(SharedBytes, MatrixAndConflictDegree) {
  EXPECT_DOUBLE_EQ(shared_bytes({SharedVariant::row, 4096}, 0), 2.0 * 4 * 4096.0 * 4096.0);
  SharedConfig degree{SharedVariant::conflict_degree};
  degree.width = 16;
  degree.reps = 100;
  EXPECT_DOUBLE_EQ(shared_bytes(degree, 10), 10.0 * kConflictBlock * 100 * 16);
  EXPECT_EQ(conflict_smem_bytes(33, 16), (31u * 33 + 1) * 16);
  EXPECT_EQ(shared_input_floats(degree), 0u);
  EXPECT_EQ(shared_input_floats({SharedVariant::column, 100}), 10000u);
}

TEST(SharedReference, RowCopiesColumnAndSwizzleTranspose) {
  // A 4 x 4 matrix: out[r][c] = 2 in[r][c] for row, 2 in[c][r] for the transposes.
  constexpr std::uint32_t seed = 9;
  const auto in = [](std::size_t r, std::size_t c) { return pattern_value(r * 4 + c, seed); };
  for (std::size_t r = 0; r < 4; ++r) {
    for (std::size_t c = 0; c < 4; ++c) {
      const std::size_t i = r * 4 + c;
      EXPECT_EQ(shared_reference({SharedVariant::row, 4}, i, seed), 2.0f * in(r, c));
      EXPECT_EQ(shared_reference({SharedVariant::column, 4, 1}, i, seed), 2.0f * in(c, r)) << r << "," << c;
      EXPECT_EQ(shared_reference({SharedVariant::swizzle, 4}, i, seed), 2.0f * in(c, r));
    }
  }
  EXPECT_NE(shared_reference({SharedVariant::column, 4}, 1, seed), shared_reference({SharedVariant::row, 4}, 1, seed));
}

TEST(SharedLaunch, RefusesBadShapesBeforeAnyCudaCall) {
  SharedPlan planned;
  for (int side : {0, -4}) EXPECT_EQ(plan({SharedVariant::row, side}, &planned), cudaErrorInvalidValue) << side;
  EXPECT_EQ(plan({SharedVariant::column, 64, 3}, &planned), cudaErrorInvalidValue);  // pad 3 is not built
  SharedConfig degree{SharedVariant::conflict_degree};
  degree.stride = -1;  // 0 is the broadcast, a stride it measures
  EXPECT_EQ(plan(degree, &planned), cudaErrorInvalidValue);
  degree.stride = 1;
  degree.reps = 0;
  EXPECT_EQ(plan(degree, &planned), cudaErrorInvalidValue);
  SharedPlan unplanned;
  EXPECT_EQ(plan({SharedVariant::row, 0}, &unplanned), cudaErrorInvalidValue);
  EXPECT_EQ(launch(unplanned, nullptr, nullptr, nullptr), cudaErrorInvalidValue);
}

TEST(ConflictPattern, NoShortPeriodSoAWrongLaneCannotVerifyByLuck) {
  // The values lanes read must not repeat with a short period, or a kernel
  // reading the wrong word could still produce the expected sum.
  for (std::uint64_t period = 1; period <= 1024; ++period) {
    int same = 0;
    for (std::uint64_t i = 0; i < 4096; ++i) same += small_int_value(i) == small_int_value(i + period);
    EXPECT_LT(same, 4096 / 4) << "period " << period;
  }
  // At every stride of the default sweep but 0 (one word for all: the broadcast), the 32 lanes expect many
  // different sums.
  for (int width : ConflictWidths::values)
    for (int stride = 1; stride <= 33; ++stride) {
      std::set<float> sums;
      for (std::size_t lane = 0; lane < 32; ++lane) sums.insert(conflict_degree_expected(lane, stride, width, 1));
      EXPECT_GE(sums.size(), 6u) << "stride " << stride << " width " << width;
    }
}

TEST(ConflictDegreeReference, SumsWhatTheLaneReads) {
  // Lane 1 at stride 3, 8-byte accesses: words 6 and 7, read 10 times.
  const float one = small_int_value(6) + small_int_value(7);
  EXPECT_EQ(conflict_degree_expected(1, 3, 8, 10), 10 * one);
  EXPECT_EQ(conflict_degree_expected(33, 3, 8, 10), 10 * one);  // lane 1 of the next warp
}

class SharedKernels : public ::testing::Test {
 protected:
  void SetUp() override { MEMBENCH_REQUIRE_GPU(); }

  void check(const SharedConfig& c) {
    SCOPED_TRACE(std::string(kSharedVariants(c.variant)) + " n=" + std::to_string(c.n) + " pad=" +
                 std::to_string(c.pad) + " stride=" + std::to_string(c.stride) + " width=" + std::to_string(c.width));
    std::size_t outputs = 0;
    MEMBENCH_CUDA(shared_output_floats(c, &outputs));
    ASSERT_GT(outputs, 0u);
    test::expect_output(
        shared_input_floats(c), outputs, 11,
        [&](const float* in, float* out) { return launch(test::planned<SharedPlan>(c), in, out, nullptr); },
        [&](std::size_t i) { return shared_reference(c, i, 11); });
  }

  // 4096 is the default side; the others leave ragged edge tiles.
  const std::vector<int> sides_ = {4096, 1000, 33, 31, 1};
};

TEST_F(SharedKernels, RowCopiesScaled) {
  for (int n : sides_) check({SharedVariant::row, n});
}

TEST_F(SharedKernels, ColumnTransposesForEveryPad) {
  for (int pad : SharedPads::values)
    for (int n : sides_) check({SharedVariant::column, n, pad});
}

TEST_F(SharedKernels, ColumnTileTransposesForEveryTileAndPad) {
  for (int tile : SharedTiles::values)
    for (int pad : {0, 1, 32})
      for (int n : {1000, 64, 31}) check(tiled(tile, pad, n));
  SharedPlan p;
  EXPECT_EQ(plan(tiled(48, 0), &p), cudaErrorInvalidValue);
  EXPECT_EQ(plan(tiled(16, 0, 16 * 65536), &p), cudaErrorInvalidValue);  // past the grid's y limit
}

TEST_F(SharedKernels, SwizzleTransposes) {
  for (int n : sides_) check({SharedVariant::swizzle, n});
}

TEST(SharedLaunch, RefusesUnsupportedPadAndSide) {
  SharedPlan refused;
  EXPECT_EQ(plan({SharedVariant::column, 2, 3}, &refused), cudaErrorInvalidValue);
  EXPECT_EQ(plan({SharedVariant::row, 0}, &refused), cudaErrorInvalidValue);
}

TEST_F(SharedKernels, ConflictDegreeSumsMatchTheReference) {
  for (int width : ConflictWidths::values)
    for (int stride : {0, 1, 2, 7, 13, 26, 32, 33, 96}) {
      SharedConfig c{SharedVariant::conflict_degree};
      c.stride = stride;
      c.width = width;
      c.reps = 64;
      check(c);
    }
}

}  // namespace
}  // namespace membench
