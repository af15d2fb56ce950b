// The roofline family: how a launch covers each level's set, the bytes and
// FLOPs it counts, the host's sums, the refusals; on the GPU every level at
// a few multiply-add counts against the host's sums, bit for bit.
#include <gtest/gtest.h>

#include <string>

#include "gpu.hpp"
#include "membench/roofline.hpp"

namespace membench {
namespace {

constexpr std::uint32_t kSeed = 9;

TEST(RooflineModel, ALaunchCoversTheSetPassAfterPassAndCountsWhatItLoads) {
  // 132 SMs x 4 blocks x 256 threads over 256 MiB: 125 float4s a thread a pass, 4 passes to a GiB.
  const RooflineConfig dram{RooflineLevel::dram, 8, 132, std::size_t{1} << 26};
  const RooflineShape s = roofline_shape(dram);
  EXPECT_EQ(s.threads, 132u * 4 * 256);
  EXPECT_EQ(s.float4s, std::size_t{1} << 24);
  EXPECT_EQ(s.per_pass, 125u);  // 2^24 / 135168 = 124.1
  EXPECT_EQ(s.passes, 4u);
  EXPECT_DOUBLE_EQ(roofline_bytes(dram), 4.0 * (1 << 26) * 4 + 4.0 * static_cast<double>(s.threads));
  EXPECT_DOUBLE_EQ(roofline_flops(dram), 2.0 * 8 * (1 << 26) * 4);  // fmas / 2 FLOPs a byte loaded
  // l1 and shared: each block its own 16 KiB, read until the grid has read a GiB.
  const RooflineConfig l1{RooflineLevel::l1, 0, 132, 0};
  const RooflineShape b = roofline_shape(l1);
  EXPECT_EQ(b.float4s, 1024u);
  EXPECT_EQ(b.per_pass, 4u);
  EXPECT_EQ(b.passes, 125u);  // 2^30 / (528 x 16 KiB) = 124.1
  EXPECT_EQ(roofline_input_floats(l1), 528u * 4096);
  EXPECT_DOUBLE_EQ(roofline_flops(l1), 0);
}

TEST(RooflineModel, AThreadsSumIsItsFloatsEachPlusAQuarterAMultiplyAdd) {
  // Block 1's thread 3 of l1 reads its part's float4s 3, 259, 515 and 771, every pass.
  const RooflineConfig l1{RooflineLevel::l1, 6, 2, 0};
  const RooflineShape s = roofline_shape(l1);
  double pass = 0;
  for (std::size_t j : {3, 259, 515, 771})
    for (std::size_t e = 0; e < 4; ++e) pass += pattern_value(4 * (1024 + j) + e, kSeed) + 6 * 0.25;
  EXPECT_EQ(RooflineReference(l1, kSeed)(256 + 3), pass * static_cast<double>(s.passes));
  // dram: the grid's threads stride over the whole set, a pass later as another thread (shift: 2 of 4 blocks);
  // reader 1023's second float4 lies past the set's end.
  const RooflineConfig dram{RooflineLevel::dram, 0, 1, 4 * 1500};
  const RooflineShape d = roofline_shape(dram);
  EXPECT_EQ(d.per_pass, 2u);  // 1500 float4s over 1024 threads
  EXPECT_EQ(d.shift, 2u * 256);
  auto reader = [&](std::size_t v) {
    double one = 0;
    for (std::size_t j : {v, v + 1024})
      if (j < 1500)
        for (std::size_t e = 0; e < 4; ++e) one += pattern_value(4 * j + e, kSeed);
    return one;
  };
  double want = 0;
  for (std::size_t p = 0; p < d.passes; ++p) want += reader((1023 + p * d.shift) % 1024);
  EXPECT_EQ(RooflineReference(dram, kSeed)(1023), want);
}

TEST(RooflineModel, RefusesWhatItCannotRunBeforeAnyCudaCall) {
  RooflinePlan p;
  EXPECT_EQ(plan({RooflineLevel::dram, -1, 1, 4096}, &p), cudaErrorInvalidValue);
  EXPECT_EQ(plan({RooflineLevel::dram, kRooflineMaxFmas + 1, 1, 4096}, &p), cudaErrorInvalidValue);
  EXPECT_EQ(plan({RooflineLevel::dram, 0, 1, 4098}, &p), cudaErrorInvalidValue);  // not whole float4s
  EXPECT_EQ(plan({RooflineLevel::l2, 0, 1, 0}, &p), cudaErrorInvalidValue);
  EXPECT_EQ(plan({RooflineLevel::l1, 0, 0, 0}, &p), cudaErrorInvalidValue);
  // 2^24 float4s over one SM's 1024 threads: a pass sums 65536 floats a thread, past fp32's exact range.
  EXPECT_EQ(plan({RooflineLevel::dram, 0, 1, std::size_t{1} << 26}, &p), cudaErrorInvalidValue);
  EXPECT_EQ(p.run, nullptr);
}

TEST(RooflineKernels, EveryLevelSumsWhatTheHostSums) {
  MEMBENCH_REQUIRE_GPU();
  for (RooflineLevel level : kRooflineLevels.all())
    for (int fmas : {0, 3}) {
      const RooflineConfig c{level, fmas, 2, 4 * 3000, 1 << 20};  // a MiB a launch: quick under the sanitizers
      SCOPED_TRACE(std::string(kRooflineLevels(level)) + " fmas " + std::to_string(fmas));
      const auto p = test::planned<RooflinePlan>(c);
      const RooflineReference reference(c, kSeed);
      const std::size_t inputs = roofline_input_floats(c), threads = roofline_shape(c).threads;
      DeviceBuffer<float> in(inputs);
      DeviceBuffer<double> out(threads);
      MEMBENCH_CUDA(launch_fill_pattern(in.get(), inputs, kSeed, nullptr));
      MEMBENCH_CUDA(launch_poison(out.get(), out.bytes(), nullptr));
      MEMBENCH_CUDA(launch(p, in.get(), out.get(), nullptr));
      MEMBENCH_CUDA(cudaDeviceSynchronize());
      const auto bad = first_mismatch(copy_to_host(out.get(), threads), [&](std::size_t t) { return reference(t); });
      EXPECT_FALSE(bad) << describe(*bad, "out");
    }
}

}  // namespace
}  // namespace membench
