// Layout experiment: models on the host, both layouts and every field count
// against the host reference on the GPU.
#include <gtest/gtest.h>

#include "gpu.hpp"
#include "membench/layout.hpp"
#include "membench/platform/pattern.hpp"
#include "membench/platform/verify.hpp"

namespace membench {
namespace {

TEST(LayoutModel, SectorsPerFieldLoad) {
  // AoS: lanes 16 bytes apart -> 512 bytes -> 16 sectors; SoA: 4.
  EXPECT_EQ(layout_sectors_per_request({LayoutVariant::aos, 1024, 1}), 16);
  EXPECT_EQ(layout_sectors_per_request({LayoutVariant::soa, 1024, 1}), 4);
}

TEST(LayoutModel, DramEfficiency) {
  EXPECT_DOUBLE_EQ(layout_dram_efficiency({LayoutVariant::aos, 1024, 4}), 1.0);
  EXPECT_DOUBLE_EQ(layout_dram_efficiency({LayoutVariant::aos, 1024, 1}), 0.25);
  EXPECT_DOUBLE_EQ(layout_dram_efficiency({LayoutVariant::soa, 1024, 1}), 1.0);
}

TEST(LayoutModel, DramTraffic) {
  const std::size_t n = std::size_t{1} << 24;
  const double structs = 16.0 * n;
  // Every field: AoS and SoA read and write the whole 16n bytes once.
  for (LayoutVariant v : kLayoutVariants.all()) {
    EXPECT_DOUBLE_EQ(layout_dram_traffic({v, n, 4}).read_bytes, structs);
    EXPECT_DOUBLE_EQ(layout_dram_traffic({v, n, 4}).write_bytes, structs);
  }
  // x only: AoS reads every sector of the input, and fills every (partly
  // written) output sector before writing it back: 32n read, 16n written.
  EXPECT_DOUBLE_EQ(layout_dram_traffic({LayoutVariant::aos, n, 1}).read_bytes, 2 * structs);
  EXPECT_DOUBLE_EQ(layout_dram_traffic({LayoutVariant::aos, n, 1}).write_bytes, structs);
  EXPECT_DOUBLE_EQ(layout_dram_traffic({LayoutVariant::soa, n, 1}).read_bytes, 4.0 * n);
  EXPECT_DOUBLE_EQ(layout_dram_traffic({LayoutVariant::soa, n, 1}).write_bytes, 4.0 * n);
  EXPECT_DOUBLE_EQ(layout_dram_traffic({LayoutVariant::soa, n, 2}).read_bytes, 8.0 * n);
}

TEST(LayoutBytes, FieldsTimesReadAndWrite) {
  EXPECT_DOUBLE_EQ(layout_bytes({LayoutVariant::aos, 1000, 4}), 32000.0);
  EXPECT_DOUBLE_EQ(layout_bytes({LayoutVariant::soa, 1000, 1}), 8000.0);
}

TEST(LayoutIndexing, FieldOfRawIndex) {
  EXPECT_EQ(layout_field_of({LayoutVariant::aos, 10, 4}, 6), 2);
  EXPECT_EQ(layout_field_of({LayoutVariant::soa, 10, 4}, 6), 0);
  EXPECT_EQ(layout_field_of({LayoutVariant::soa, 10, 4}, 25), 2);
}

TEST(LayoutKernels, EveryLayoutAndFieldCount) {
  MEMBENCH_REQUIRE_GPU();
  for (std::size_t n : {1u, 255u, 256u, 1001u, 65537u}) {
    DeviceBuffer<float> in(4 * n), out(4 * n);
    MEMBENCH_CUDA(launch_fill_pattern(in.get(), 4 * n, 3, nullptr));
    for (LayoutVariant v : kLayoutVariants.all()) {
      for (int fields : LayoutFieldCounts::values) {
        const LayoutConfig c{v, n, fields};
        SCOPED_TRACE(std::string(kLayoutVariants(v)) + " n=" + std::to_string(n) + " fields=" + std::to_string(fields));
        MEMBENCH_CUDA(launch_poison(out.get(), out.bytes(), nullptr));
        MEMBENCH_CUDA(launch(test::planned<LayoutPlan>(c), in.get(), out.get(), nullptr));
        MEMBENCH_CUDA(cudaDeviceSynchronize());
        const auto bad = first_mismatch(copy_to_host(out.get(), 4 * n), [&](std::size_t j) {
          return layout_field_of(c, j) < fields ? 2.0f * pattern_value(j, 3) : poison_value();
        });
        EXPECT_FALSE(bad) << describe(*bad, "out");
      }
    }
  }
}

TEST(LayoutLaunch, RefusesFieldCountsOutsideTheStructBeforeAnyCudaCall) {
  LayoutPlan planned;
  EXPECT_EQ(plan({LayoutVariant::aos, 4, 5}, &planned), cudaErrorInvalidValue);
  EXPECT_EQ(plan({LayoutVariant::soa, 4, 0}, &planned), cudaErrorInvalidValue);
  EXPECT_EQ(launch(planned, nullptr, nullptr, nullptr), cudaErrorInvalidValue);  // never planned
}

}  // namespace
}  // namespace membench
