// Device facts, peaks, the no-device messages, and the fidelity helpers
// (clock stamps, L2 flush, kernel facts).
#include <gtest/gtest.h>

#include "gpu.hpp"
#include "membench/global.hpp"
#include "membench/platform/code.hpp"
#include "membench/platform/device_info.hpp"
#include "membench/platform/fidelity.hpp"

namespace membench {
namespace {

TEST(Peaks, DramIsClockTimesBusTimesTwoOverEight) {
  // H200: 3201 MHz x 6016 bits = 19,257,216 Mbit/s, x 2 (double data rate) / 8 = 4,814,304 MB/s.
  EXPECT_DOUBLE_EQ(dram_peak_bytes_per_second(3'201'000, 6016), 4.814304e12);
  // H100 SXM: 2619 MHz x 5120 bits x 2 / 8 = 3,352,320 MB/s.
  EXPECT_DOUBLE_EQ(dram_peak_bytes_per_second(2'619'000, 5120), 3.35232e12);
}

TEST(Peaks, SharedIs32BanksOf4BytesPerSmPerClock) {
  // 32 banks x 4 bytes = 128 bytes per SM per clock; 132 SMs x 128 = 16,896 bytes a clock, x 1.98 GHz.
  EXPECT_DOUBLE_EQ(smem_peak_bytes_per_second(132, 1'980'000, 9, 0), 3.345408e13);
  EXPECT_DOUBLE_EQ(smem_peak_bytes_per_second(1, 1'000, 9, 0), 128e6);  // one SM at 1 MHz
  EXPECT_EQ(smem_peak_bytes_per_second(132, 1'980'000, 5, 2), 0);       // no source for its banks: unknown
}

TEST(Peaks, UnifiedL1ByArchitecture) {
  // The L1 + shared memory of one SM, from NVIDIA's tuning guides (no attribute reports it).
  const std::size_t KiB = 1024;
  EXPECT_EQ(unified_l1_bytes(7, 0), 128 * KiB);   // Volta
  EXPECT_EQ(unified_l1_bytes(7, 5), 96 * KiB);    // Turing
  EXPECT_EQ(unified_l1_bytes(8, 0), 192 * KiB);   // A100
  EXPECT_EQ(unified_l1_bytes(8, 6), 128 * KiB);   // GA10x
  EXPECT_EQ(unified_l1_bytes(8, 9), 128 * KiB);   // Ada
  EXPECT_EQ(unified_l1_bytes(9, 0), 256 * KiB);   // Hopper
  EXPECT_EQ(unified_l1_bytes(10, 0), 256 * KiB);  // Blackwell datacenter
  EXPECT_EQ(unified_l1_bytes(12, 0), 128 * KiB);  // Blackwell consumer
  EXPECT_EQ(unified_l1_bytes(8, 7), 192 * KiB);   // Orin, as the A100
  EXPECT_EQ(unified_l1_bytes(6, 1), 0u);          // not in the table: unknown
  EXPECT_EQ(unified_l1_bytes(10, 3), 0u);         // no source the table names: unknown, not 10.0's
}

TEST(DeviceIdentity, UuidAsNvidiaSmiPrintsIt) {
  const unsigned char bytes[16] = {0xed, 0xed, 0xaa, 0xa6, 0x8a, 0xf2, 0x5b, 0x81,
                                   0x4e, 0x33, 0xb7, 0x3a, 0x87, 0xad, 0xf7, 0x59};
  EXPECT_EQ(format_gpu_uuid(bytes), "GPU-ededaaa6-8af2-5b81-4e33-b73a87adf759");
}

TEST(Versions, CudaEncoding) {
  EXPECT_EQ(cuda_version_string(13000), "13.0");
  EXPECT_EQ(cuda_version_string(12080), "12.8");
}

TEST(NoDevice, TellsNoDriverFromOldDriverFromNoGpu) {
  const std::string none = explain_no_device(cudaErrorInsufficientDriver, 0, 13000);
  EXPECT_NE(none.find("no NVIDIA driver"), std::string::npos) << none;
  EXPECT_EQ(none.find("update"), std::string::npos) << none;
  const std::string old = explain_no_device(cudaErrorInsufficientDriver, 12020, 13000);
  EXPECT_NE(old.find("supports CUDA 12.2, older than the CUDA 13.0 runtime"), std::string::npos) << old;
  const std::string no_gpu = explain_no_device(cudaErrorNoDevice, 13000, 13000);
  EXPECT_NE(no_gpu.find("sees no GPU"), std::string::npos) << no_gpu;
}

TEST(NoDevice, ThisMachinesReasonIsOneOfThem) {
  std::string why;
  if (visible_devices(&why) > 0) GTEST_SKIP() << "a GPU is visible";
  EXPECT_TRUE(why.find("no NVIDIA driver") != std::string::npos || why.find("older than") != std::string::npos ||
              why.find("sees no GPU") != std::string::npos)
      << why;
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

TEST(ClockStamp, TwoStampsAroundKnownWorkGiveAPlausibleClock) {
  MEMBENCH_REQUIRE_GPU();
  const DeviceInfo d = query_device(0);
  MappedBuffer<ClockStamp> stamps(2);
  stamps.host()[0] = stamps.host()[1] = ClockStamp{};
  MEMBENCH_CUDA(launch_clock_stamp(stamps.device(), d.sm_count, nullptr));
  MEMBENCH_CUDA(launch_spin(200'000, nullptr));
  MEMBENCH_CUDA(launch_clock_stamp(stamps.device() + 1, d.sm_count, nullptr));
  MEMBENCH_CUDA(cudaDeviceSynchronize());
  ASSERT_GT(stamps.host()[0].nanoseconds, 0u) << "no block ran on SM 0";
  EXPECT_GE(stamps.host()[1].nanoseconds - stamps.host()[0].nanoseconds, 200'000u);
  const double mhz = clock_mhz(stamps.host()[0], stamps.host()[1]);
  EXPECT_GT(mhz, 100.0);
  EXPECT_LT(mhz, 1.2 * d.sm_clock_khz / 1e3);
}

TEST(L2Flush, ReadsScratchWithoutWriting) {
  MEMBENCH_REQUIRE_GPU();
  DeviceBuffer<float> scratch(1 << 20), sink(1);
  MEMBENCH_CUDA(cudaMemset(scratch.get(), 0, scratch.bytes()));
  MEMBENCH_CUDA(cudaMemset(sink.get(), 0xFF, sizeof(float)));
  FlushPlan flush;
  MEMBENCH_CUDA(plan_l2_flush(scratch.get(), scratch.size(), sink.get(), &flush));
  EXPECT_GE(flush.grid, 1u);
  MEMBENCH_CUDA(launch_l2_flush(flush, nullptr));
  float host = 0;
  MEMBENCH_CUDA(cudaMemcpy(&host, sink.get(), sizeof host, cudaMemcpyDeviceToHost));
  EXPECT_TRUE(host != host);  // still the NaN poison: the flush wrote nothing
}

TEST(KernelFacts, OccupancyRegistersAndArchitecture) {
  MEMBENCH_REQUIRE_GPU();
  const DeviceInfo d = query_device(0);
  GlobalPlan planned;
  ASSERT_EQ(plan(GlobalConfig{GlobalVariant::coalesced, 1 << 20}, &planned), cudaSuccess);
  const KernelShape shape = planned.shape;
  KernelFacts facts;
  ASSERT_EQ(kernel_facts(shape, &facts), cudaSuccess);
  EXPECT_GE(facts.blocks_per_sm, 1);
  EXPECT_LE(facts.blocks_per_sm * static_cast<int>(shape.block), 2048);
  EXPECT_GT(facts.registers, 0);
  EXPECT_GT(facts.compiled_arch, 0);
  EXPECT_LE(facts.compiled_arch, d.cc_major * 10 + d.cc_minor);
  EXPECT_EQ(kernel_facts(KernelShape{}, &facts), cudaErrorInvalidDeviceFunction);
}

// Machine code where the build carries the device's, PTX compiled at load where it does not.
TEST(CodeRanAs, MachineCodeWhereTheBuildCarriesItElsePtxCompiledAtLoad) {
  EXPECT_EQ(code_ran_as("75-real;80-real;90-real;90-virtual", 90, 90), "sm_90 machine code");
  EXPECT_EQ(code_ran_as("90", 90, 90), "sm_90 machine code");
  EXPECT_EQ(code_ran_as("90a-real", 90, 90), "sm_90 machine code");
  EXPECT_EQ(code_ran_as("75-real;80-real;90-real;90-virtual", 80, 80), "sm_80 machine code");  // an 8.6 GPU
  EXPECT_EQ(code_ran_as("80-virtual", 90, 80), "compute_80 PTX, JIT-compiled for sm_90");
  EXPECT_EQ(code_ran_as("75-real;80-real;90-real;90-virtual", 100, 90), "compute_90 PTX, JIT-compiled for sm_100");
  EXPECT_EQ(code_ran_as("75", 90, 75), "compute_75 PTX, JIT-compiled for sm_90");
  EXPECT_EQ(code_ran_as("native", 90, 90), "sm_90 code from compute_90 (the build's architectures: native)");
  EXPECT_EQ(code_ran_as("", 90, 90), "sm_90 code from compute_90 (the build's architectures: )");
  EXPECT_STRNE(built_cuda_architectures(), "unknown");  // the build names what it carries
}

TEST(CodeRanAs, TheDeviceRunsCodeOfItsOwnArchitecture) {
  MEMBENCH_REQUIRE_GPU();
  const DeviceInfo d = query_device(0);
  std::string ran;
  ASSERT_EQ(code_ran_as_here(&ran), cudaSuccess);
  const std::string own = "sm_" + std::to_string(d.cc_major * 10 + d.cc_minor);
  EXPECT_TRUE(ran == own + " machine code" || ran.find("JIT-compiled for " + own) != std::string::npos ||
              ran.rfind(own + " code from", 0) == 0)
      << ran;
}

}  // namespace
}  // namespace membench
