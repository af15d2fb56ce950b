// Global-memory experiment: the sector and DRAM models and byte accounting on
// the host, every kernel variant against the host reference on the GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "gpu.hpp"
#include "membench/global.hpp"
#include "membench/platform/models.hpp"
#include "membench/platform/pattern.hpp"
#include "membench/platform/verify.hpp"

namespace membench {
namespace {

GlobalConfig strided(std::size_t n, std::size_t stride, GlobalVariant v = GlobalVariant::strided) {
  GlobalConfig c{v, n};
  c.stride = stride;
  return c;
}

TEST(SectorsModel, CoalescedStridedAndWide) {
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

TEST(DramModel, TouchedUnitsOfAPattern) {
  // Three contiguous floats: one sector, one 64-byte unit.
  EXPECT_DOUBLE_EQ(touched_bytes({3, 4, 4}, 32), 32.0);
  EXPECT_DOUBLE_EQ(touched_bytes({3, 4, 4}, 64), 64.0);
  // 1000 floats 36 bytes apart: each in a sector of its own, but every 64-byte unit is hit.
  EXPECT_DOUBLE_EQ(touched_bytes({1000, 4, 36}, 32), 1000 * 32.0);
  EXPECT_DOUBLE_EQ(touched_bytes({1000, 4, 36}, 64), (999 * 36 / 64 + 1) * 64.0);
  // 16-byte accesses 16 bytes apart: contiguous.
  EXPECT_DOUBLE_EQ(touched_bytes({1024, 16, 16}, 32), 1024 * 16.0);
  EXPECT_DOUBLE_EQ(touched_bytes({0, 4, 4}, 32), 0.0);
}

TEST(DramModel, PartialSectors) {
  EXPECT_DOUBLE_EQ(partial_sectors({8, 4, 4}), 0.0);       // one full sector
  EXPECT_DOUBLE_EQ(partial_sectors({9, 4, 4}), 1.0);       // and one float of the next
  EXPECT_DOUBLE_EQ(partial_sectors({64, 4, 8}), 16.0);     // every other float: all 16 sectors in part
  EXPECT_DOUBLE_EQ(partial_sectors({100, 12, 16}), 50.0);  // AoS x, y, z of 100 structs: 50 sectors, none full
  EXPECT_DOUBLE_EQ(partial_sectors({100, 16, 16}), 0.0);
}

TEST(DramModel, GlobalVariants) {
  const std::size_t n = std::size_t{1} << 24;
  const double a = 4.0 * n;  // one array, 64 MiB
  auto traffic = [](const GlobalConfig& c) { return global_dram_traffic(c); };
  for (GlobalVariant v : {GlobalVariant::coalesced, GlobalVariant::vectorized, GlobalVariant::memcpy}) {
    EXPECT_DOUBLE_EQ(traffic({v, n}).read_bytes, a);
    EXPECT_DOUBLE_EQ(traffic({v, n}).write_bytes, a);
  }
  EXPECT_DOUBLE_EQ(traffic(strided(n, 1)).read_bytes, a);
  // Stride 2 .. 8: every sector of the output is written in part, so it is
  // also read: twice the array read, once written.
  for (std::size_t s : {2, 3, 8}) {
    EXPECT_DOUBLE_EQ(traffic(strided(n, s)).read_bytes, 2 * a) << s;
    EXPECT_DOUBLE_EQ(traffic(strided(n, s)).write_bytes, a) << s;
  }
  // Stride 16 (64 bytes): reads still fetch 64 bytes per float, the output one sector each.
  EXPECT_DOUBLE_EQ(traffic(strided(n, 16)).read_bytes, a + a / 2);
  EXPECT_DOUBLE_EQ(traffic(strided(n, 16)).write_bytes, a / 2);
  EXPECT_DOUBLE_EQ(traffic(strided(n, 32)).read_bytes, a / 2 + a / 4);
  EXPECT_DOUBLE_EQ(traffic(strided(n, 32)).write_bytes, a / 4);
  // Stride 9 (36 bytes): every 64-byte unit of the input, one sector per output float.
  const double floats = static_cast<double>((n + 8) / 9);
  EXPECT_DOUBLE_EQ(traffic(strided(n, 9)).read_bytes, a + 32 * floats);
  EXPECT_DOUBLE_EQ(traffic(strided(n, 9)).write_bytes, 32 * floats);
  // The two geometries touch the same elements.
  EXPECT_DOUBLE_EQ(traffic(strided(n, 4, GlobalVariant::strided_full_grid)).read_bytes,
                   traffic(strided(n, 4)).read_bytes);
}

TEST(GlobalModel, ABroadcastIsOneSectorAWarpAndOneDramUnitPer32Floats) {
  const GlobalConfig b{GlobalVariant::broadcast, std::size_t{1} << 24};
  EXPECT_EQ(global_lane_stride_bytes(b), 0u);
  EXPECT_EQ(sectors_per_request(global_access_bytes(b), global_lane_stride_bytes(b)), 1);
  // Every lane of a warp reads its warp's first element; the next warp the next 32.
  EXPECT_EQ(global_source(b, 0), 0u);
  EXPECT_EQ(global_source(b, 31), 0u);
  EXPECT_EQ(global_source(b, 32), 32u);
  EXPECT_EQ(global_source(b, 70), 64u);
  EXPECT_EQ(global_source({GlobalVariant::coalesced, 100}, 70), 70u);
  EXPECT_TRUE(global_writes(b, 31));
  const double a = 4.0 * (std::size_t{1} << 24);
  const DramTraffic t = global_dram_traffic(b);
  EXPECT_DOUBLE_EQ(t.read_bytes, a / 2);  // 64 bytes per 128: a lone read fetches its 64-byte unit
  EXPECT_DOUBLE_EQ(t.write_bytes, a);
  // Its useful bytes are what the warps need: one float a warp, and every float written.
  EXPECT_DOUBLE_EQ(global_bytes(b), a + a / 32);
  EXPECT_DOUBLE_EQ(global_bytes({GlobalVariant::broadcast, 33}), 4.0 * (33 + 2));  // a last warp of one lane
  EXPECT_DOUBLE_EQ(global_bytes({GlobalVariant::coalesced, 33}), 8.0 * 33);
  EXPECT_EQ(global_reference(b, 3.25f), 6.5f);
}

TEST(GlobalBytes, CountsUsefulElementsReadAndWritten) {
  EXPECT_DOUBLE_EQ(global_bytes({GlobalVariant::coalesced, 1000}), 8000.0);
  EXPECT_DOUBLE_EQ(global_bytes({GlobalVariant::memcpy, 1000}), 8000.0);
  EXPECT_DOUBLE_EQ(global_bytes({GlobalVariant::vectorized, 1000}), 8000.0);
  // ceil(1000 / 3) = 334 elements touched, in both geometries.
  EXPECT_EQ(global_elements_touched(strided(1000, 3)), 334u);
  EXPECT_DOUBLE_EQ(global_bytes(strided(1000, 3)), 334 * 8.0);
  EXPECT_DOUBLE_EQ(global_bytes(strided(1000, 3, GlobalVariant::strided_full_grid)), 334 * 8.0);
  EXPECT_DOUBLE_EQ(global_bytes(strided(1 << 24, 2)), (1 << 23) * 8.0);
}

TEST(GlobalModel, AccessShapePerVariant) {
  GlobalConfig float4{GlobalVariant::vectorized, 1024};
  float4.vec = 4;
  EXPECT_EQ(global_access_bytes(float4), 16);
  EXPECT_EQ(global_lane_stride_bytes(float4), 16u);
  EXPECT_EQ(global_access_bytes(strided(1024, 8)), 4);
  EXPECT_EQ(global_lane_stride_bytes(strided(1024, 8)), 32u);
}

TEST(GlobalReference, StridedWritesOnlyEveryStrideThElement) {
  // n = 10, stride 3: threads touch 0, 3, 6, 9 and leave the rest poisoned.
  for (GlobalVariant v : {GlobalVariant::strided, GlobalVariant::strided_full_grid}) {
    std::vector<bool> written;
    for (std::size_t i = 0; i < 10; ++i) written.push_back(global_writes(strided(10, 3, v), i));
    EXPECT_EQ(written, (std::vector<bool>{true, false, false, true, false, false, true, false, false, true}));
  }
  for (GlobalVariant v : {GlobalVariant::coalesced, GlobalVariant::vectorized, GlobalVariant::memcpy})
    for (std::size_t i : {0, 1, 2, 999}) EXPECT_TRUE(global_writes({v, 1000}, i));
}

TEST(GlobalReference, EveryKernelDoublesTheCopyCopies) {
  EXPECT_EQ(global_reference({GlobalVariant::memcpy, 8}, 3.25f), 3.25f);
  for (GlobalVariant v :
       {GlobalVariant::coalesced, GlobalVariant::strided, GlobalVariant::strided_full_grid, GlobalVariant::vectorized})
    EXPECT_EQ(global_reference({v, 8}, 3.25f), 6.5f);
}

TEST(GlobalLaunch, RefusesBadArgumentsBeforeAnyCudaCall) {
  // Runs without a GPU: the refusal comes first.
  for (GlobalVariant v : {GlobalVariant::strided, GlobalVariant::strided_full_grid}) {
    GlobalPlan planned;
    EXPECT_EQ(plan(strided(1024, 0, v), &planned), cudaErrorInvalidValue);
    EXPECT_EQ(planned.run, nullptr);
  }
  GlobalConfig c{GlobalVariant::vectorized, 1024};
  GlobalPlan refused;
  c.vec = 3;
  EXPECT_EQ(plan(c, &refused), cudaErrorInvalidValue);
  c.vec = 4;
  c.ilp = 3;
  EXPECT_EQ(plan(c, &refused), cudaErrorInvalidValue);
  EXPECT_EQ(launch(refused, nullptr, nullptr, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(global_elements_touched(strided(1024, 0)), 0u);
}

TEST(GlobalModel, NamesOfTheVariants) {
  EXPECT_EQ(kGlobalVariants(GlobalVariant::strided_full_grid), "strided_full_grid");
  EXPECT_EQ(kGlobalVariants(GlobalVariant::strided_texture), "strided_texture");
  EXPECT_EQ(kGlobalVariants.all().size(), 9u);
}

// A warp's 128 bytes from `offset` floats past a sector: a fifth sector
// unless the start is a whole sector (8 floats) away; the reads start there,
// the writes do not move.
TEST(GlobalModel, AMisalignedStartCostsAFifthSectorUnlessItIsAWholeSectorAway) {
  for (std::size_t offset = 0; offset <= kGlobalMaxOffset; ++offset) {
    GlobalConfig c{GlobalVariant::misaligned, 1 << 20};
    c.offset = offset;
    EXPECT_EQ(global_sectors_per_request(c), offset % 8 == 0 ? 4 : 5) << offset;
    EXPECT_EQ(global_input_floats(c), (1u << 20) + offset);
    EXPECT_EQ(global_source(c, 10), 10 + offset);
    EXPECT_TRUE(global_writes(c, 10));
    EXPECT_DOUBLE_EQ(global_bytes(c), 8.0 * (1 << 20));
  }
  GlobalConfig too_far{GlobalVariant::misaligned, 1024};
  too_far.offset = kGlobalMaxOffset + 1;
  GlobalPlan p;
  EXPECT_EQ(plan(too_far, &p), cudaErrorInvalidValue);
  EXPECT_EQ(global_sectors_per_request({GlobalVariant::coalesced, 1024}), 4);
}

// The read-only and texture paths run the strided access of plain loads:
// the same threads, the same sectors asked of the L2, the same DRAM bytes.
TEST(GlobalModel, TheReadOnlyAndTexturePathsAskTheL2ForTheSameSectors) {
  for (std::size_t stride : {1, 2, 4, 8, 16, 32}) {
    const GlobalConfig plain = strided(1 << 24, stride);
    for (GlobalVariant v : {GlobalVariant::strided_readonly, GlobalVariant::strided_texture}) {
      const GlobalConfig c = strided(1 << 24, stride, v);
      EXPECT_EQ(global_elements_touched(c), global_elements_touched(plain));
      EXPECT_DOUBLE_EQ(global_l2_read_bytes(c), global_l2_read_bytes(plain));
      EXPECT_DOUBLE_EQ(global_dram_traffic(c).read_bytes, global_dram_traffic(plain).read_bytes);
      EXPECT_EQ(global_sectors_per_request(c), global_sectors_per_request(plain));
      EXPECT_TRUE(global_writes(c, stride) && !(stride > 1 && global_writes(c, 1)));
    }
    // Each touched float's sector, once: 4 bytes at stride 1, a whole sector from stride 8.
    const double sector_bytes = static_cast<double>(std::min<std::size_t>(32, 4 * stride));
    EXPECT_DOUBLE_EQ(global_l2_read_bytes(plain), static_cast<double>((1 << 24) / stride) * sector_bytes) << stride;
  }
  EXPECT_DOUBLE_EQ(global_l2_read_bytes({GlobalVariant::coalesced, 1000}), 4000.0);
}

TEST(GlobalLaunch, ATexturePlanLaunchesOnlyWithItsTexture) {
  GlobalPlan p;
  ASSERT_EQ(plan(strided(1024, 2, GlobalVariant::strided_texture), &p), cudaSuccess);
  EXPECT_EQ(launch(p, static_cast<const float*>(nullptr), static_cast<float*>(nullptr), nullptr),
            cudaErrorInvalidValue);
}

class GlobalKernels : public ::testing::Test {
 protected:
  void SetUp() override { MEMBENCH_REQUIRE_GPU(); }

  void check(const GlobalConfig& c) {
    SCOPED_TRACE(std::string(kGlobalVariants(c.variant)) + " n=" + std::to_string(c.n) +
                 " stride=" + std::to_string(c.stride) + " vec=" + std::to_string(c.vec) +
                 " ilp=" + std::to_string(c.ilp) + " persistent=" + std::to_string(c.persistent));
    test::expect_output(
        global_input_floats(c), c.n, 7,
        [&](const float* in, float* out) {
          const auto p = test::planned<GlobalPlan>(c);
          if (c.variant != GlobalVariant::strided_texture) return launch(p, in, out, nullptr);
          const FloatTexture texture(in, c.n);
          const cudaError_t rc = launch(p, texture, out, nullptr);
          MEMBENCH_CUDA(cudaDeviceSynchronize());  // before the texture goes
          return rc;
        },
        [&](std::size_t i) {
          return global_writes(c, i) ? global_reference(c, pattern_value(global_source(c, i), 7)) : poison_value();
        });
  }

  // Sizes around the block size (256) and the vector widths.
  const std::vector<std::size_t> sizes_ = {1, 3, 255, 256, 257, 1000, 4099, (1 << 20) + 5};
};

TEST_F(GlobalKernels, BroadcastEveryLaneReadsItsWarpsFirstElement) {
  for (auto n : sizes_) check({GlobalVariant::broadcast, n});
}

TEST_F(GlobalKernels, Coalesced) {
  for (auto n : sizes_) check({GlobalVariant::coalesced, n});
}

TEST_F(GlobalKernels, StridedTouchesOnlyMultiplesOfStrideInBothGeometries) {
  for (auto n : sizes_)
    for (std::size_t stride : {1, 2, 3, 7, 8, 32, 4096})
      for (GlobalVariant v : {GlobalVariant::strided, GlobalVariant::strided_full_grid}) check(strided(n, stride, v));
}

TEST_F(GlobalKernels, VectorizedEveryWidthAndDepth) {
  for (auto n : sizes_)
    for (int vec : VectorWidths::values)
      for (int ilp : IlpDepths::values)
        for (bool persistent : {false, true}) {
          GlobalConfig c{GlobalVariant::vectorized, n};
          c.vec = vec;
          c.ilp = ilp;
          c.persistent = persistent;
          check(c);
        }
}

TEST_F(GlobalKernels, MisalignedReadsFromItsOffset) {
  for (std::size_t offset : {0, 1, 3, 8, 31, 32})
    for (auto n : {std::size_t{1}, std::size_t{257}, (std::size_t{1} << 20) + 5}) {
      GlobalConfig c{GlobalVariant::misaligned, n};
      c.offset = offset;
      check(c);
    }
}

TEST_F(GlobalKernels, TheReadOnlyAndTexturePathsReadWhatPlainLoadsRead) {
  for (GlobalVariant v : {GlobalVariant::strided_readonly, GlobalVariant::strided_texture})
    for (std::size_t stride : {1, 3, 32})
      for (auto n : {std::size_t{1}, std::size_t{1000}, (std::size_t{1} << 20) + 5}) check(strided(n, stride, v));
}

TEST_F(GlobalKernels, Memcpy) {
  for (auto n : sizes_) check({GlobalVariant::memcpy, n});
}

TEST_F(GlobalKernels, ShapesMatchTheGeometry) {
  GlobalPlan a, b;
  ASSERT_EQ(plan(strided(1 << 20, 4), &a), cudaSuccess);
  ASSERT_EQ(plan(strided(1 << 20, 4, GlobalVariant::strided_full_grid), &b), cudaSuccess);
  const KernelShape compact = a.shape, full = b.shape;
  EXPECT_EQ(compact.function, full.function);  // one kernel, two grids
  EXPECT_EQ(compact.grid, (1u << 18) / kGlobalBlock);
  EXPECT_EQ(full.grid, (1u << 20) / kGlobalBlock);
  GlobalPlan copy;
  ASSERT_EQ(plan({GlobalVariant::memcpy, 1024}, &copy), cudaSuccess);
  EXPECT_EQ(copy.shape.function, nullptr);
}

TEST_F(GlobalKernels, LauncherRefusesBadArguments) {
  DeviceBuffer<float> buf(64);
  GlobalConfig c{GlobalVariant::vectorized, 60};
  c.vec = 4;
  EXPECT_EQ(launch(test::planned<GlobalPlan>(c), buf.get() + 1, buf.get(), nullptr), cudaErrorMisalignedAddress);
}

}  // namespace
}  // namespace membench
