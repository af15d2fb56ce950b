// Async-copy experiment: the reference on the host, every variant, stage
// count, tile and several flops values on the GPU, with ragged last tiles.
#include <gtest/gtest.h>

#include "gpu.hpp"
#include "membench/async.hpp"
#include "membench/pattern.hpp"
#include "membench/verify.hpp"

namespace membench {
namespace {

TEST(AsyncReference, ClosedFormEqualsTheFmaChain) {
  for (std::uint64_t i = 0; i < 2000; i += 7) {
    const float x = pattern_value(i, 5);
    for (int flops : {0, 2, 16, 64, 256, 4096, kAsyncMaxFlops})
      ASSERT_EQ(async_reference(x, flops), async_reference_chain(x, flops)) << "x=" << x << " flops=" << flops;
  }
}

TEST(AsyncAccounting, BytesAndFlops) {
  EXPECT_DOUBLE_EQ(async_bytes(1000), 8000.0);
  EXPECT_DOUBLE_EQ(async_flops(1000, 64), 64000.0);
  EXPECT_EQ(async_smem_bytes({AsyncVariant::pipeline, 1024, 3, 0}), 3u * 1024 * 4);
  EXPECT_EQ(async_smem_bytes({AsyncVariant::sync, 1024, 3, 0}), 1024u * 4);
  EXPECT_EQ(async_smem_bytes({AsyncVariant::pipeline, 1024, 1, 0}), 1u * 1024 * 4);
  EXPECT_EQ(async_smem_bytes({AsyncVariant::bulk, 1024, 1, 0}), 1024u * 4);
}

TEST(AsyncConfig, RefusesWhatIsNotBuilt) {
  std::string why;
  EXPECT_TRUE(async_config_supported({AsyncVariant::pipeline, 1024, 3, 64}, &why));
  EXPECT_FALSE(async_config_supported({AsyncVariant::pipeline, 1000, 3, 64}, &why));
  EXPECT_NE(why.find("tile"), std::string::npos);
  EXPECT_FALSE(async_config_supported({AsyncVariant::bulk, 1024, 5, 64}, &why));
  EXPECT_NE(why.find("stages"), std::string::npos);
  EXPECT_FALSE(async_config_supported({AsyncVariant::sync, 1024, 1, 3}, &why));
  EXPECT_TRUE(async_config_supported({AsyncVariant::sync, 1024, 5, 2}, &why));  // stages unused
}

class AsyncKernels : public ::testing::Test {
 protected:
  void SetUp() override { MEMBENCH_REQUIRE_GPU(); }

  void check(const AsyncConfig& c, std::size_t n) {
    SCOPED_TRACE(to_string(c.variant) + " tile=" + std::to_string(c.tile) + " stages=" + std::to_string(c.stages) +
                 " flops=" + std::to_string(c.flops) + " n=" + std::to_string(n));
    DeviceBuffer<float> in(n), out(n);
    MEMBENCH_CUDA(launch_fill_pattern(in.get(), n, 9, nullptr));
    MEMBENCH_CUDA(launch_poison(out.get(), out.bytes(), nullptr));
    MEMBENCH_CUDA(launch_async(c, in.get(), out.get(), n, nullptr));
    MEMBENCH_CUDA(cudaDeviceSynchronize());
    const auto bad = first_mismatch(copy_to_host(out.get(), n),
                                    [&](std::size_t i) { return async_reference(pattern_value(i, 9), c.flops); });
    EXPECT_FALSE(bad) << describe(*bad, "out");
  }

  void check_variant(AsyncVariant v) {
    std::string why;
    if (!async_variant_available(v, &why)) GTEST_SKIP() << why;
    const bool staged = v == AsyncVariant::pipeline || v == AsyncVariant::bulk;
    for (int tile : kAsyncTiles)
      for (int stages : kAsyncStages) {
        if (!staged && stages > 1) break;
        for (int flops : {0, 2, 64})
          // ragged sizes: shorter than a tile, one and a bit, many tiles + 3
          for (std::size_t n : {std::size_t{1}, std::size_t{5}, std::size_t(tile) + 7, std::size_t(tile) * 300 + 3})
            check({v, tile, stages, flops}, n);
      }
  }
};

TEST_F(AsyncKernels, Sync) { check_variant(AsyncVariant::sync); }
TEST_F(AsyncKernels, MemcpyAsync) { check_variant(AsyncVariant::memcpy_async); }
TEST_F(AsyncKernels, PipelineEveryStageCount) { check_variant(AsyncVariant::pipeline); }
TEST_F(AsyncKernels, BulkEveryStageCount) { check_variant(AsyncVariant::bulk); }

TEST_F(AsyncKernels, ManyTilesPerBlockAtEveryStageCount) {
  // More tiles than resident blocks, so every block cycles its stages.
  for (int stages : kAsyncStages) {
    check({AsyncVariant::pipeline, 512, stages, 16}, (std::size_t{1} << 22) + 1);
    std::string why;
    if (async_variant_available(AsyncVariant::bulk, &why)) check({AsyncVariant::bulk, 512, stages, 16}, (std::size_t{1} << 22) + 1);
  }
}

}  // namespace
}  // namespace membench
