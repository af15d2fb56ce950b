// Device facts, peaks and the fidelity helpers (clock probe, L2 flush).
#include <gtest/gtest.h>

#include "gpu.hpp"
#include "membench/device_info.hpp"
#include "membench/fidelity.hpp"

namespace membench {
namespace {

TEST(Peaks, DramIsClockTimesBusTimesTwoOverEight) {
  // H100 SXM: 2619 MHz x 5120 bits x 2 / 8 = 3.352 TB/s.
  EXPECT_DOUBLE_EQ(dram_peak_bytes_per_second(2'619'000, 5120), 2.619e9 * 5120 * 2 / 8);
  EXPECT_NEAR(dram_peak_bytes_per_second(2'619'000, 5120), 3.352e12, 1e9);
}

TEST(Peaks, SharedIs128BytesPerSmPerClock) {
  EXPECT_DOUBLE_EQ(smem_peak_bytes_per_second(132, 1'980'000), 132 * 128 * 1.98e9);
}

TEST(Versions, CudaEncoding) {
  EXPECT_EQ(cuda_version_string(13000), "13.0");
  EXPECT_EQ(cuda_version_string(12080), "12.8");
}

TEST(Clock, MegahertzAndThrottling) {
  EXPECT_DOUBLE_EQ(clock_mhz({1'980'000, 1'000'000}), 1980.0);
  EXPECT_DOUBLE_EQ(clock_mhz({5, 0}), 0.0);
  EXPECT_FALSE(is_throttled(1900, 1980));
  EXPECT_TRUE(is_throttled(1500, 1980));
  EXPECT_FALSE(is_throttled(1500, 0));
}

TEST(DeviceInfo, QueriesTheDevice) {
  MEMBENCH_REQUIRE_GPU();
  const DeviceInfo d = query_device(0);
  EXPECT_FALSE(d.name.empty());
  EXPECT_GT(d.sm_count, 0);
  EXPECT_GT(d.l2_bytes, 0u);
  EXPECT_GT(d.dram_peak_bytes_per_second, 1e11);
  EXPECT_GT(d.sm_clock_khz, 0);
}

TEST(ClockProbe, ReadsAPlausibleClock) {
  MEMBENCH_REQUIRE_GPU();
  DeviceBuffer<ClockSample> sample(1);
  MEMBENCH_CUDA(launch_clock_probe(sample.get(), 100'000, nullptr));
  ClockSample host;
  MEMBENCH_CUDA(cudaMemcpy(&host, sample.get(), sizeof host, cudaMemcpyDeviceToHost));
  EXPECT_GE(host.nanoseconds, 100'000);
  const double mhz = clock_mhz(host);
  EXPECT_GT(mhz, 100.0);
  EXPECT_LT(mhz, 5000.0);
}

TEST(L2Flush, ReadsScratchWithoutWriting) {
  MEMBENCH_REQUIRE_GPU();
  DeviceBuffer<float> scratch(1 << 20), sink(1);
  MEMBENCH_CUDA(cudaMemset(scratch.get(), 0, scratch.bytes()));
  MEMBENCH_CUDA(cudaMemset(sink.get(), 0xFF, sizeof(float)));
  MEMBENCH_CUDA(launch_l2_flush(scratch.get(), scratch.size(), sink.get(), nullptr));
  float host = 0;
  MEMBENCH_CUDA(cudaMemcpy(&host, sink.get(), sizeof host, cudaMemcpyDeviceToHost));
  EXPECT_TRUE(host != host);  // still the NaN poison: the flush wrote nothing
}

}  // namespace
}  // namespace membench
