// Layout experiment: models on the host, both layouts and every field count
// against the host reference on the GPU.
#include <gtest/gtest.h>

#include "gpu.hpp"
#include "membench/layout.hpp"
#include "membench/pattern.hpp"
#include "membench/verify.hpp"

namespace membench {
namespace {

TEST(LayoutModel, SectorsPerFieldLoad) {
  // AoS: lanes 16 bytes apart -> 512 bytes -> 16 sectors; SoA: 4.
  EXPECT_EQ(layout_sectors_per_request(LayoutVariant::aos), 16);
  EXPECT_EQ(layout_sectors_per_request(LayoutVariant::soa), 4);
}

TEST(LayoutModel, DramEfficiency) {
  EXPECT_DOUBLE_EQ(layout_dram_efficiency(LayoutVariant::aos, 4), 1.0);
  EXPECT_DOUBLE_EQ(layout_dram_efficiency(LayoutVariant::aos, 1), 0.25);
  EXPECT_DOUBLE_EQ(layout_dram_efficiency(LayoutVariant::soa, 1), 1.0);
}

TEST(LayoutBytes, FieldsTimesReadAndWrite) {
  EXPECT_DOUBLE_EQ(layout_bytes(1000, 4), 32000.0);
  EXPECT_DOUBLE_EQ(layout_bytes(1000, 1), 8000.0);
}

TEST(LayoutIndexing, FieldOfRawIndex) {
  EXPECT_EQ(layout_field_of(LayoutVariant::aos, 6, 10), 2);
  EXPECT_EQ(layout_field_of(LayoutVariant::soa, 6, 10), 0);
  EXPECT_EQ(layout_field_of(LayoutVariant::soa, 25, 10), 2);
}

TEST(LayoutKernels, EveryLayoutAndFieldCount) {
  MEMBENCH_REQUIRE_GPU();
  for (std::size_t n : {1u, 255u, 256u, 1001u, 65537u}) {
    DeviceBuffer<float> in(4 * n), out(4 * n);
    MEMBENCH_CUDA(launch_fill_pattern(in.get(), 4 * n, 3, nullptr));
    for (LayoutVariant v : layout_variants()) {
      for (int fields = 1; fields <= 4; ++fields) {
        SCOPED_TRACE(to_string(v) + " n=" + std::to_string(n) + " fields=" + std::to_string(fields));
        MEMBENCH_CUDA(launch_poison(out.get(), out.bytes(), nullptr));
        MEMBENCH_CUDA(launch_layout(v, in.get(), out.get(), n, fields, nullptr));
        MEMBENCH_CUDA(cudaDeviceSynchronize());
        const auto bad = first_mismatch(copy_to_host(out.get(), 4 * n), [&](std::size_t j) {
          return layout_field_of(v, j, n) < fields ? 2.0f * pattern_value(j, 3) : poison_value();
        });
        EXPECT_FALSE(bad) << describe(*bad, "out");
      }
    }
  }
}

TEST(LayoutKernels, RefusesFieldCountsOutsideTheStruct) {
  MEMBENCH_REQUIRE_GPU();
  DeviceBuffer<float> buf(16);
  EXPECT_EQ(launch_layout(LayoutVariant::aos, buf.get(), buf.get(), 4, 5, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(launch_layout(LayoutVariant::soa, buf.get(), buf.get(), 4, 0, nullptr), cudaErrorInvalidValue);
}

}  // namespace
}  // namespace membench
