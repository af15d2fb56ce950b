// Shared-memory experiment: the bank-conflict model on the host (the study's
// numbers and the wide-access rule), every kernel on the GPU.
#include <gtest/gtest.h>

#include <numeric>

#include "gpu.hpp"
#include "membench/pattern.hpp"
#include "membench/shared.hpp"
#include "membench/verify.hpp"

namespace membench {
namespace {

TEST(ConflictModel, StudyNumbers) {
  // tile[32][32] read by column: word stride 32, every lane in bank ty.
  EXPECT_EQ(conflict_ways(32, 4), 32);
  // tile[32][33]: stride 33 = 1 mod 32, all 32 banks distinct.
  EXPECT_EQ(conflict_ways(33, 4), 1);
  EXPECT_EQ(conflict_ways(1, 4), 1);
  EXPECT_EQ(conflict_ways(2, 4), 2);
  EXPECT_EQ(conflict_ways(16, 4), 16);
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
  EXPECT_EQ(shared_variant_conflict_ways(SharedVariant::row, 0), 1);
  EXPECT_EQ(shared_variant_conflict_ways(SharedVariant::column, 0), 32);
  EXPECT_EQ(shared_variant_conflict_ways(SharedVariant::column, 1), 1);
  EXPECT_EQ(shared_variant_conflict_ways(SharedVariant::column, 2), 2);
  EXPECT_EQ(shared_variant_conflict_ways(SharedVariant::column, 8), 8);
  EXPECT_EQ(shared_variant_conflict_ways(SharedVariant::swizzle, 0), 1);
}

TEST(SharedBytes, MatrixAndConflictDegree) {
  EXPECT_DOUBLE_EQ(shared_matrix_bytes(4096), 2.0 * 4 * 4096.0 * 4096.0);
  EXPECT_DOUBLE_EQ(conflict_degree_bytes(10, 16, 100), 10.0 * kConflictBlock * 100 * 16);
  EXPECT_EQ(conflict_smem_bytes(33, 16), (31u * 33 + 1) * 16);
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

  template <class Launch>
  void check_matrix(int n, bool transposed, Launch&& launch) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const std::size_t count = static_cast<std::size_t>(n) * n;
    DeviceBuffer<float> in(count), out(count);
    MEMBENCH_CUDA(launch_fill_pattern(in.get(), count, 11, nullptr));
    MEMBENCH_CUDA(launch_poison(out.get(), out.bytes(), nullptr));
    MEMBENCH_CUDA(launch(in.get(), out.get(), n));
    MEMBENCH_CUDA(cudaDeviceSynchronize());
    const auto side = static_cast<std::size_t>(n);
    const auto bad = first_mismatch(copy_to_host(out.get(), count), [&](std::size_t i) {
      return 2.0f * pattern_value(transposed ? (i % side) * side + i / side : i, 11);
    });
    EXPECT_FALSE(bad) << describe(*bad, "out");
  }

  // 4096 is the study's size; the others leave ragged edge tiles.
  const std::vector<int> sides_ = {4096, 1000, 33, 31, 1};
};

TEST_F(SharedKernels, RowCopiesScaled) {
  for (int n : sides_)
    check_matrix(n, false, [](const float* in, float* out, int side) { return launch_shared_row(in, out, side, nullptr); });
}

TEST_F(SharedKernels, ColumnTransposesForEveryPad) {
  for (int pad : kSharedPads) {
    SCOPED_TRACE("pad=" + std::to_string(pad));
    for (int n : sides_)
      check_matrix(n, true, [pad](const float* in, float* out, int side) {
        return launch_shared_column(in, out, side, pad, nullptr);
      });
  }
}

TEST_F(SharedKernels, SwizzleTransposes) {
  for (int n : sides_)
    check_matrix(n, true, [](const float* in, float* out, int side) { return launch_shared_swizzle(in, out, side, nullptr); });
}

TEST_F(SharedKernels, RefusesUnsupportedPadAndSide) {
  DeviceBuffer<float> buf(4);
  EXPECT_EQ(launch_shared_column(buf.get(), buf.get(), 2, 3, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(launch_shared_row(buf.get(), buf.get(), 0, nullptr), cudaErrorInvalidValue);
}

TEST_F(SharedKernels, ConflictDegreeSumsMatchTheReference) {
  for (int width : kConflictWidths) {
    for (int stride : {1, 2, 7, 32, 33, 96}) {
      SCOPED_TRACE("width=" + std::to_string(width) + " stride=" + std::to_string(stride));
      unsigned grid = 0;
      MEMBENCH_CUDA(conflict_degree_grid(stride, width, &grid));
      ASSERT_GT(grid, 0u);
      const std::size_t threads = static_cast<std::size_t>(grid) * kConflictBlock;
      DeviceBuffer<float> out(threads);
      MEMBENCH_CUDA(launch_poison(out.get(), out.bytes(), nullptr));
      MEMBENCH_CUDA(launch_conflict_degree(out.get(), stride, width, 64, grid, nullptr));
      MEMBENCH_CUDA(cudaDeviceSynchronize());
      const auto bad = first_mismatch(copy_to_host(out.get(), threads),
                                      [&](std::size_t t) { return conflict_degree_expected(t, stride, width, 64); });
      EXPECT_FALSE(bad) << describe(*bad, "out");
    }
  }
}

}  // namespace
}  // namespace membench
