// Global-memory experiment: the sectors model and byte accounting on the host,
// every kernel variant against the host reference on the GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "gpu.hpp"
#include "membench/global.hpp"
#include "membench/models.hpp"
#include "membench/pattern.hpp"
#include "membench/verify.hpp"

namespace membench {
namespace {

TEST(SectorsModel, StudyNumbers) {
  // 32 lanes x 4 bytes, consecutive: 128 bytes = 4 sectors.
  EXPECT_EQ(sectors_per_request(4, 4), 4);
  // Stride 2: lanes span 256 bytes = 8 sectors, half of each sector unused.
  EXPECT_EQ(sectors_per_request(4, 8), 8);
  EXPECT_EQ(sectors_per_request(4, 16), 16);
  // Stride 8 floats = 32 bytes: one sector per lane.
  EXPECT_EQ(sectors_per_request(4, 32), 32);
  EXPECT_EQ(sectors_per_request(4, 128), 32);
  // float2 and float4: 256 and 512 contiguous bytes.
  EXPECT_EQ(sectors_per_request(8, 8), 8);
  EXPECT_EQ(sectors_per_request(16, 16), 16);
  // All lanes on one word: one sector (broadcast).
  EXPECT_EQ(sectors_per_request(4, 0), 1);
}

TEST(SectorsModel, StridedFollowsMinOf32And4TimesStride) {
  for (std::size_t s = 1; s <= 64; ++s) EXPECT_EQ(sectors_per_request(4, 4 * s), std::min<std::size_t>(32, 4 * s)) << s;
}

TEST(SectorsModel, EfficiencyIsUsefulOverFetched) {
  EXPECT_DOUBLE_EQ(request_efficiency(4, 4), 1.0);
  EXPECT_DOUBLE_EQ(request_efficiency(4, 8), 0.5);
  EXPECT_DOUBLE_EQ(request_efficiency(4, 32), 0.125);
  EXPECT_DOUBLE_EQ(request_efficiency(4, 4096), 0.125);
  EXPECT_DOUBLE_EQ(request_efficiency(16, 16), 1.0);
}

TEST(GlobalBytes, CountsUsefulElementsReadAndWritten) {
  EXPECT_DOUBLE_EQ(global_bytes(GlobalVariant::coalesced, 1000, 1), 8000.0);
  EXPECT_DOUBLE_EQ(global_bytes(GlobalVariant::memcpy, 1000, 1), 8000.0);
  EXPECT_DOUBLE_EQ(global_bytes(GlobalVariant::vectorized, 1000, 1), 8000.0);
  // ceil(1000 / 3) = 334 elements touched.
  EXPECT_EQ(global_elements_touched(GlobalVariant::strided, 1000, 3), 334u);
  EXPECT_DOUBLE_EQ(global_bytes(GlobalVariant::strided, 1000, 3), 334 * 8.0);
  EXPECT_DOUBLE_EQ(global_bytes(GlobalVariant::strided, 1 << 24, 2), (1 << 23) * 8.0);
}

TEST(GlobalModel, AccessShapePerVariant) {
  EXPECT_EQ(global_access_bytes(GlobalVariant::vectorized, 4), 16);
  EXPECT_EQ(global_access_bytes(GlobalVariant::strided, 4), 4);
  EXPECT_EQ(global_lane_stride_bytes(GlobalVariant::strided, 8, 1), 32u);
  EXPECT_EQ(global_lane_stride_bytes(GlobalVariant::vectorized, 1, 2), 8u);
}

class GlobalKernels : public ::testing::Test {
 protected:
  void SetUp() override { MEMBENCH_REQUIRE_GPU(); }

  // Runs `launch` on an n-float pattern and checks out against the reference.
  template <class Launch>
  void check(std::size_t n, std::size_t stride, GlobalVariant v, Launch&& launch) {
    SCOPED_TRACE("n=" + std::to_string(n) + " stride=" + std::to_string(stride));
    DeviceBuffer<float> in(n), out(n);
    MEMBENCH_CUDA(launch_fill_pattern(in.get(), n, 7, nullptr));
    MEMBENCH_CUDA(launch_poison(out.get(), out.bytes(), nullptr));
    MEMBENCH_CUDA(launch(in.get(), out.get(), n));
    MEMBENCH_CUDA(cudaDeviceSynchronize());
    const auto got = copy_to_host(out.get(), n);
    const auto bad = first_mismatch(got, [&](std::size_t i) {
      return global_writes(v, i, stride) ? global_reference(v, pattern_value(i, 7)) : poison_value();
    });
    EXPECT_FALSE(bad) << describe(*bad, "out");
  }

  // Sizes around the block size (256) and the vector widths.
  const std::vector<std::size_t> sizes_ = {1, 3, 255, 256, 257, 1000, 4099, (1 << 20) + 5};
};

TEST_F(GlobalKernels, Coalesced) {
  for (auto n : sizes_)
    check(n, 1, GlobalVariant::coalesced,
          [](const float* in, float* out, std::size_t count) { return launch_global_coalesced(in, out, count, nullptr); });
}

TEST_F(GlobalKernels, StridedTouchesOnlyMultiplesOfStride) {
  for (auto n : sizes_)
    for (std::size_t stride : {1, 2, 3, 7, 8, 32, 4096})
      check(n, stride, GlobalVariant::strided, [stride](const float* in, float* out, std::size_t count) {
        return launch_global_strided(in, out, count, stride, nullptr);
      });
}

TEST_F(GlobalKernels, VectorizedEveryWidthAndDepth) {
  for (auto n : sizes_)
    for (int vec : kVectorWidths)
      for (int ilp : kIlpDepths)
        for (int persistent : {0, 1}) {
          SCOPED_TRACE("vec=" + std::to_string(vec) + " ilp=" + std::to_string(ilp) +
                       " persistent=" + std::to_string(persistent));
          check(n, 1, GlobalVariant::vectorized, [vec, ilp, persistent](const float* in, float* out, std::size_t count) {
            return launch_global_vectorized(in, out, count, vec, ilp, persistent, nullptr);
          });
        }
}

TEST_F(GlobalKernels, Memcpy) {
  for (auto n : sizes_)
    check(n, 1, GlobalVariant::memcpy,
          [](const float* in, float* out, std::size_t count) { return launch_global_memcpy(in, out, count, nullptr); });
}

TEST_F(GlobalKernels, LaunchersRefuseBadArguments) {
  DeviceBuffer<float> buf(64);
  EXPECT_EQ(launch_global_strided(buf.get(), buf.get(), 64, 0, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(launch_global_vectorized(buf.get(), buf.get(), 64, 3, 1, 1, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(launch_global_vectorized(buf.get(), buf.get(), 64, 4, 1, 2, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(launch_global_vectorized(buf.get() + 1, buf.get(), 60, 4, 1, 1, nullptr), cudaErrorMisalignedAddress);
}

}  // namespace
}  // namespace membench
