// L2 residency control: the set-aside, the model's persisting and DRAM bytes,
// the refusals, the host reference; on the GPU the kernel under its window
// against the reference, and the scope leaving the L2 as it found it.
#include <gtest/gtest.h>

#include <numeric>

#include "gpu.hpp"
#include "membench/hierarchy.hpp"
#include "membench/l2persist.hpp"
#include "membench/platform/pattern.hpp"

namespace membench {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;
// An H100-like device: 50 MiB of L2, 3/4 of it may persist.
const L2PersistLimits kLimits{std::size_t{75} * kMiB / 2, 128 * kMiB, 50 * kMiB};

TEST(L2PersistModel, PersistingBytesAreTheHitRatioUpToTheSetAside) {
  L2PersistConfig c{16 * kMiB, 100, 100};
  EXPECT_EQ(l2persist_set_aside_bytes(c, kLimits), kLimits.max_set_aside);
  EXPECT_DOUBLE_EQ(l2persist_model_persisting_bytes(c, kLimits), 16.0 * kMiB);
  c.hit_ratio_pct = 50;
  EXPECT_DOUBLE_EQ(l2persist_model_persisting_bytes(c, kLimits), 8.0 * kMiB);
  c = {32 * kMiB, 100, 25};  // 32 MiB tagged, 9.375 MiB set aside
  EXPECT_EQ(l2persist_set_aside_bytes(c, kLimits), std::size_t{75} * kMiB / 8);
  EXPECT_DOUBLE_EQ(l2persist_model_persisting_bytes(c, kLimits), 75.0 * kMiB / 8);
  c.set_aside_pct = 0;
  EXPECT_DOUBLE_EQ(l2persist_model_persisting_bytes(c, kLimits), 0);
  c = {16 * kMiB, 0, 100};
  EXPECT_DOUBLE_EQ(l2persist_model_persisting_bytes(c, kLimits), 0);
  // An odd set-aside: the percentage of it, rounded down, without overflow.
  EXPECT_EQ(l2persist_set_aside_bytes({4096, 100, 33}, {1001, 1, 1}), 330u);
}

TEST(L2PersistModel, BytesPerLaunchAndWhatDramServes) {
  const L2PersistConfig c{16 * kMiB, 100, 100};
  // Four reads of the hot buffer and four cold bytes beside each hot one.
  EXPECT_DOUBLE_EQ(l2persist_bytes(c), 20.0 * 16 * kMiB);
  EXPECT_EQ(l2persist_input_floats(c), 17 * 16 * kMiB / 4);
  EXPECT_DOUBLE_EQ(l2persist_model_l2_hot_bytes(c, kLimits), 4.0 * 16 * kMiB);
  EXPECT_DOUBLE_EQ(l2persist_model_dram_read_bytes(c, kLimits), 16.0 * 16 * kMiB);
  const L2PersistConfig none{16 * kMiB, 0, 100};
  EXPECT_DOUBLE_EQ(l2persist_model_dram_read_bytes(none, kLimits), l2persist_bytes(none));
}

TEST(L2PersistConfig, Refusals) {
  std::string why;
  EXPECT_TRUE(l2persist_config_supported({16 * kMiB, 100, 100}, kLimits, &why));
  EXPECT_FALSE(l2persist_config_supported({16 * kMiB + 16, 100, 100}, kLimits, &why));
  EXPECT_NE(why.find("4096"), std::string::npos) << why;
  EXPECT_FALSE(l2persist_config_supported({256 * kMiB, 100, 100}, kLimits, &why));
  EXPECT_NE(why.find("window"), std::string::npos) << why;
  EXPECT_FALSE(l2persist_config_supported({16 * kMiB, 101, 100}, kLimits, &why));
  EXPECT_FALSE(l2persist_config_supported({16 * kMiB, 100, -1}, kLimits, &why));
  EXPECT_FALSE(l2persist_config_supported({16 * kMiB, 100, 100}, {0, 0, 50 * kMiB}, &why));
  EXPECT_NE(why.find("no L2 residency control"), std::string::npos) << why;
}

TEST(L2PersistReference, BlockSumsOfHotAndColdChunks) {
  const L2PersistConfig c{3 * 4096, 100, 100};
  L2PersistPlan p;
  p.config = c;
  p.hot_chunks = 3;
  p.steps = 3 * kL2PersistRounds;
  p.shape.grid = 5;
  const auto sums = l2persist_chunk_sums(c, 4);
  ASSERT_EQ(sums.size(), 3u + 3 * 4 * 4);
  double chunk7 = 0;
  for (std::size_t e = 7 * 1024; e < 8 * 1024; ++e) chunk7 += pattern_value(e, 4);
  EXPECT_EQ(sums[7], chunk7);
  // Block 1 takes steps 1, 6, 11: hot chunks 1, 0, 2; cold chunks 4s .. 4s + 3 after the hot ones.
  double want = sums[1] + sums[0] + sums[2];
  for (std::uint64_t s : {1, 6, 11})
    for (std::uint64_t k = 0; k < 4; ++k) want += sums[3 + 4 * s + k];
  EXPECT_EQ(l2persist_expected(p, sums, 1), want);
  double all = 0;
  for (unsigned b = 0; b < 5; ++b) all += l2persist_expected(p, sums, b);
  // Every cold chunk once, every hot chunk four times.
  EXPECT_EQ(all, std::accumulate(sums.begin(), sums.end(), 0.0) + 3 * (sums[0] + sums[1] + sums[2]));
}

TEST(L2PersistKernels, ReadsExactlyUnderItsWindowAndLeavesTheL2AsItWas) {
  MEMBENCH_REQUIRE_GPU();
  int device = 0;
  MEMBENCH_CUDA(cudaGetDevice(&device));
  const L2PersistLimits limits = l2persist_limits(device);
  const L2PersistConfig c{4 * kMiB + 4096, 100, 50};
  std::string why;
  if (!l2persist_config_supported(c, limits, &why)) GTEST_SKIP() << why;
  std::size_t before = 0;
  MEMBENCH_CUDA(cudaDeviceGetLimit(&before, cudaLimitPersistingL2CacheSize));
  L2PersistPlan p;
  ASSERT_EQ(plan(c, &p), cudaSuccess);
  const auto sums = l2persist_chunk_sums(c, 6);
  DeviceBuffer<float> in(l2persist_input_floats(c));
  DeviceBuffer<double> partial(p.shape.grid);
  MEMBENCH_CUDA(launch_fill_pattern(in.get(), l2persist_input_floats(c), 6, nullptr));
  Stream stream;
  {
    const PersistingL2 scope(l2persist_set_aside_bytes(c, limits));
    EXPECT_EQ(scope.before(), before);
    std::size_t now = 0;
    MEMBENCH_CUDA(cudaDeviceGetLimit(&now, cudaLimitPersistingL2CacheSize));
    EXPECT_GT(now, 0u);
    EXPECT_LE(now, limits.max_set_aside);
    for (int k = 0; k < 2; ++k) {
      MEMBENCH_CUDA(launch_poison(partial.get(), partial.bytes(), stream.get()));
      MEMBENCH_CUDA(launch(p, in.get(), partial.get(), stream.get()));
      MEMBENCH_CUDA(cudaStreamSynchronize(stream.get()));
      const auto got = copy_to_host(partial.get(), p.shape.grid);
      for (unsigned b = 0; b < p.shape.grid; ++b) ASSERT_EQ(got[b], l2persist_expected(p, sums, b)) << b;
    }
  }
  std::size_t after = 0;
  MEMBENCH_CUDA(cudaDeviceGetLimit(&after, cudaLimitPersistingL2CacheSize));
  EXPECT_EQ(after, before);
  // The window went with the launch: the stream carries none.
  cudaStreamAttrValue value{};
  MEMBENCH_CUDA(cudaStreamGetAttribute(stream.get(), cudaStreamAttributeAccessPolicyWindow, &value));
  EXPECT_EQ(value.accessPolicyWindow.num_bytes, 0u);
}

// Persisting lines show as L2 hits after a stream that evicts everything
// else; once the scope has ended they are ordinary lines, and the same
// stream evicts them. Seen through a chase over the hot buffer: its time per
// load, from the L2 against from DRAM (a ratio of levels, not a speed).
// The release as the runtime reports it, not as a timing (a test asserts no
// speed, and a sanitizer's slowdown must not fail it): inside the scope the
// device's persisting set-aside is what the case asked for, after it the
// set-aside is back as it was and the reset left no error.
TEST(L2PersistKernels, PersistingLinesAreReleasedWhenTheScopeEnds) {
  MEMBENCH_REQUIRE_GPU();
  int device = 0;
  MEMBENCH_CUDA(cudaGetDevice(&device));
  const L2PersistLimits limits = l2persist_limits(device);
  const L2PersistConfig c{8 * kMiB, 100, 100};
  std::string why;
  if (!l2persist_config_supported(c, limits, &why)) GTEST_SKIP() << why;
  L2PersistPlan p;
  ASSERT_EQ(plan(c, &p), cudaSuccess);
  DeviceBuffer<float> in(l2persist_input_floats(c));
  DeviceBuffer<double> partial(p.shape.grid);
  MEMBENCH_CUDA(launch_fill_pattern(in.get(), l2persist_input_floats(c), 6, nullptr));
  std::size_t before = 0, inside = 0, after = 0;
  MEMBENCH_CUDA(cudaDeviceGetLimit(&before, cudaLimitPersistingL2CacheSize));
  const std::size_t asked = l2persist_set_aside_bytes(c, limits);
  ASSERT_NE(asked, before) << "the test needs a set-aside other than the device's own";
  {
    const PersistingL2 scope(asked);
    EXPECT_EQ(scope.before(), before);
    MEMBENCH_CUDA(cudaDeviceGetLimit(&inside, cudaLimitPersistingL2CacheSize));
    for (int k = 0; k < 2; ++k) MEMBENCH_CUDA(launch(p, in.get(), partial.get(), nullptr));
    MEMBENCH_CUDA(cudaDeviceSynchronize());
  }
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "the reset or the restore failed";
  MEMBENCH_CUDA(cudaDeviceGetLimit(&after, cudaLimitPersistingL2CacheSize));
  EXPECT_GE(inside, std::min(asked, limits.max_set_aside) / 2) << "the set-aside was not taken";
  EXPECT_NE(inside, before);
  EXPECT_EQ(after, before) << "the set-aside was not put back";
}

}  // namespace
}  // namespace membench
