// Distributed shared memory: which block reads which, the references; on an
// sm_90 GPU every variant and cluster size against them.
#include <gtest/gtest.h>

#include "gpu.hpp"
#include "membench/chain.hpp"
#include "membench/dsmem.hpp"

namespace membench {
namespace {

TEST(DsmemTarget, NextRankWithinTheCluster) {
  const DsmemConfig remote{DsmemVariant::read_remote, 4};
  const unsigned want[] = {1, 2, 3, 0, 5, 6, 7, 4};
  for (unsigned b = 0; b < 8; ++b) EXPECT_EQ(dsmem_target(remote, b), want[b]) << b;
  EXPECT_EQ(dsmem_target({DsmemVariant::read_remote, 1}, 5), 5u);
  EXPECT_EQ(dsmem_target({DsmemVariant::chase_local, 8}, 5), 5u);
}

TEST(DsmemConfig, ClusterSizesAndAccounting) {
  std::string why;
  EXPECT_TRUE(dsmem_config_supported({DsmemVariant::read_remote, 8}, &why));
  EXPECT_FALSE(dsmem_config_supported({DsmemVariant::read_remote, 9}, &why));
  EXPECT_NE(why.find("1..8"), std::string::npos);
  EXPECT_FALSE(dsmem_config_supported({DsmemVariant::read_remote, 0}, &why));
  EXPECT_FALSE(dsmem_config_supported({DsmemVariant::read_remote, 2, 0}, &why));
  EXPECT_NE(why.find("reps"), std::string::npos);
  EXPECT_DOUBLE_EQ(dsmem_bytes({DsmemVariant::read_local, 2, 3}, 10), 10.0 * 3 * kDsmemBytes);
  EXPECT_DOUBLE_EQ(dsmem_bytes({DsmemVariant::read_local, 2}, 132), 132.0 * kDsmemReps * kDsmemBytes);
  EXPECT_DOUBLE_EQ(dsmem_bytes({DsmemVariant::chase_remote, 2}, 2), 0.0);
  EXPECT_EQ(dsmem_input_elements({DsmemVariant::read_local, 2}, 4), 4 * kDsmemBytes / 4);
  EXPECT_EQ(dsmem_input_elements({DsmemVariant::chase_local, 2}, 4), kDsmemBytes / 4);
}

TEST(DsmemReference, ReadIsRepsTimesTheTargetsBuffer) {
  const DsmemConfig c{DsmemVariant::read_remote, 2, 5};
  double target = 0;
  for (std::size_t e = kDsmemBytes / 4; e < kDsmemBytes / 2; ++e) target += pattern_value(e, 4);
  EXPECT_EQ(dsmem_expected(c, 0, 4), 5 * target);  // block 0 reads block 1
}

class DsmemKernels : public ::testing::Test {
 protected:
  void SetUp() override {
    MEMBENCH_REQUIRE_GPU();
    std::string why;
    if (!dsmem_available(&why)) GTEST_SKIP() << why;
  }
};

void check(const DsmemConfig& c) {
  SCOPED_TRACE(std::string(kDsmemVariants(c.variant)) + " cluster " + std::to_string(c.cluster) + " reps " +
               std::to_string(c.reps));
  DsmemPlan planned;
  MEMBENCH_CUDA(plan(c, &planned));
  const KernelShape shape = planned.shape;
  ASSERT_EQ(shape.grid % static_cast<unsigned>(c.cluster), 0u);
  const std::size_t inputs = dsmem_input_elements(c, shape.grid);
  DeviceBuffer<double> out(shape.grid);
  MEMBENCH_CUDA(launch_poison(out.get(), out.bytes(), nullptr));
  if (dsmem_chases(c.variant)) {
    DeviceBuffer<std::uint32_t> chain(inputs);
    MEMBENCH_CUDA(dsmem_fill_chain(chain.get(), nullptr));
    EXPECT_EQ(launch(planned, static_cast<const float*>(nullptr), out.get(), nullptr), cudaErrorInvalidValue);
    MEMBENCH_CUDA(launch(planned, chain.get(), out.get(), nullptr));
  } else {
    DeviceBuffer<float> in(inputs);
    MEMBENCH_CUDA(launch_fill_pattern(in.get(), inputs, 6, nullptr));
    EXPECT_EQ(launch(planned, static_cast<const std::uint32_t*>(nullptr), out.get(), nullptr), cudaErrorInvalidValue);
    MEMBENCH_CUDA(launch(planned, in.get(), out.get(), nullptr));
  }
  MEMBENCH_CUDA(cudaDeviceSynchronize());
  const auto bad = first_mismatch(copy_to_host(out.get(), out.size()),
                                  [&](std::size_t b) { return dsmem_expected(c, static_cast<unsigned>(b), 6); });
  EXPECT_FALSE(bad) << describe(*bad, "out");
}

TEST_F(DsmemKernels, EveryVariantAndClusterSize) {
  // Two repetitions keep the test quick under compute-sanitizer (a chase
  // ignores them); the suite's count is run in the next test.
  for (DsmemVariant v : kDsmemVariants.all())
    for (int cluster : {1, 2, 3, 4, 8}) check({v, cluster, 2});
}

TEST_F(DsmemKernels, ReadAtTheSuitesRepetitions) {
  check({DsmemVariant::read_local, 2, kDsmemReps});
  check({DsmemVariant::read_remote, 8, kDsmemReps});
}

}  // namespace
}  // namespace membench
