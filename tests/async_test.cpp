// Async-copy experiment: the reference on the host, every variant, stage
// count, tile and several flops values on the GPU, with ragged last tiles.
#include <gtest/gtest.h>

#include "gpu.hpp"
#include "membench/async.hpp"
#include "membench/platform/pattern.hpp"
#include "membench/platform/verify.hpp"

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
  EXPECT_DOUBLE_EQ(async_bytes({AsyncVariant::sync, 1000}), 8000.0);
  EXPECT_DOUBLE_EQ(async_flops({AsyncVariant::sync, 1000, 1024, 1, 64}), 64000.0);
  EXPECT_EQ(async_smem_bytes({AsyncVariant::pipeline, 0, 1024, 3, 0}), 3u * 1024 * 4);
  EXPECT_EQ(async_smem_bytes({AsyncVariant::sync, 0, 1024, 3, 0}), 1024u * 4);
  EXPECT_EQ(async_smem_bytes({AsyncVariant::pipeline, 0, 1024, 1, 0}), 1u * 1024 * 4);
  EXPECT_EQ(async_smem_bytes({AsyncVariant::bulk, 0, 1024, 1, 0}), 1024u * 4);
}

TEST(AsyncConfig, RefusesWhatIsNotBuilt) {
  std::string why;
  EXPECT_TRUE(async_config_supported({AsyncVariant::pipeline, 0, 1024, 3, 64}, &why));
  EXPECT_FALSE(async_config_supported({AsyncVariant::pipeline, 0, 1000, 3, 64}, &why));
  EXPECT_NE(why.find("tile"), std::string::npos);
  EXPECT_FALSE(async_config_supported({AsyncVariant::bulk, 0, 1024, 5, 64}, &why));
  EXPECT_NE(why.find("stages"), std::string::npos);
  EXPECT_FALSE(async_config_supported({AsyncVariant::sync, 0, 1024, 1, 3}, &why));
  EXPECT_TRUE(async_config_supported({AsyncVariant::sync, 0, 1024, 5, 2}, &why));  // stages unused
}

TEST(AsyncConfig, TmaNeedsWholeRowsOfBoxes) {
  std::string why;
  const std::size_t rows_of_boxes = std::size_t{kTmaRowFloats} * (1024 / kTmaBoxCols);
  EXPECT_TRUE(async_config_supported({AsyncVariant::tma, rows_of_boxes * 3, 1024, 2, 0}, &why));
  EXPECT_FALSE(async_config_supported({AsyncVariant::tma, rows_of_boxes * 3 + kTmaRowFloats, 1024, 2, 0}, &why));
  EXPECT_NE(why.find("multiple of " + std::to_string(rows_of_boxes)), std::string::npos);
  EXPECT_FALSE(async_config_supported({AsyncVariant::tma, 0, 1024, 2, 0}, &why));
  EXPECT_TRUE(async_multi_stage(AsyncVariant::tma));
}

TEST(AsyncGrid, ResidentOrAShortBlockPerFewTiles) {
  EXPECT_EQ(async_grid(100000, 924, true), 924u);  // a resident grid
  EXPECT_EQ(async_grid(500, 924, true), 500u);     // no block without a tile
  EXPECT_EQ(async_grid(65536, 924, false), 65536 / kAsyncShortTiles);
  EXPECT_EQ(async_grid(4 * kAsyncShortTiles + 1, 924, false), 5u);  // the last block takes the one left
  EXPECT_EQ(async_grid(1, 924, false), 1u);
  EXPECT_EQ(async_grid(kAsyncMaxGrid * kAsyncShortTiles * 2, 924, false), kAsyncMaxGrid);  // then blocks take more
  EXPECT_GE(kAsyncShortTiles, 2u);  // a block overlaps its own tiles
}

TEST(CompiledArch, IsTheOlderOfPtxAndMachineCode) {
  // A build with only compute_75 PTX, JIT-compiled on an sm_90 GPU, reports
  // binaryVersion 90 and ptxVersion 75: its body was compiled for sm_75.
  EXPECT_EQ(compiled_arch(75, 90), 75);
  EXPECT_EQ(compiled_arch(90, 90), 90);
  EXPECT_EQ(compiled_arch(0, 80), 80);  // no PTX version reported
}

class AsyncKernels : public ::testing::Test {
 protected:
  void SetUp() override { MEMBENCH_REQUIRE_GPU(); }

  void check(const AsyncConfig& c) {
    SCOPED_TRACE(std::string(kAsyncVariants(c.variant)) + " tile=" + std::to_string(c.tile) + " stages=" +
                 std::to_string(c.stages) + " flops=" + std::to_string(c.flops) + " n=" + std::to_string(c.n));
    test::expect_output(
        c.n, c.n, 9,
        [&](const float* in, float* out) { return launch(test::planned<AsyncPlan>(c, in), in, out, nullptr); },
        [&](std::size_t i) { return async_reference(pattern_value(i, 9), c.flops); });
  }

  void check_variant(AsyncVariant v) {
    std::string why;
    if (!async_variant_available(v, &why)) GTEST_SKIP() << why;
    for (int tile : AsyncTiles::values)
      for (int stages : AsyncStages::values) {
        if (!async_multi_stage(v) && stages > 1) break;
        for (int flops : {0, 2, 64})
          // ragged sizes: shorter than a tile, one and a bit, many tiles + 3
          for (std::size_t n : {std::size_t{1}, std::size_t{5}, std::size_t(tile) + 7, std::size_t(tile) * 300 + 3})
            check({v, n, tile, stages, flops});
      }
  }
};

TEST_F(AsyncKernels, Sync) { check_variant(AsyncVariant::sync); }
TEST_F(AsyncKernels, MemcpyAsync) { check_variant(AsyncVariant::memcpy_async); }
TEST_F(AsyncKernels, PipelineEveryStageCount) { check_variant(AsyncVariant::pipeline); }
TEST_F(AsyncKernels, BulkEveryStageCount) { check_variant(AsyncVariant::bulk); }

TEST_F(AsyncKernels, TmaEveryTileAndStageCount) {
  std::string why;
  if (!async_variant_available(AsyncVariant::tma, &why)) GTEST_SKIP() << why;
  for (int tile : AsyncTiles::values)
    for (int stages : AsyncStages::values)
      for (int flops : {0, 2, 64})
        // one row of boxes (fewer tiles than blocks), and several
        for (std::size_t rows : {1, 5})
          check({AsyncVariant::tma, rows * kTmaRowFloats * (tile / kTmaBoxCols), tile, stages, flops});
}

TEST_F(AsyncKernels, ShortBlocksEveryVariant) {
  // persistent = false: a block per kAsyncShortTiles tiles (the last short),
  // each block's loop running over its few.
  for (AsyncVariant v : kAsyncVariants.all()) {
    std::string why;
    if (!async_variant_available(v, &why)) continue;
    for (int tile : AsyncTiles::values)
      for (int stages : {1, 3}) {
        if (!async_multi_stage(v) && stages > 1) break;
        const std::size_t rows = std::size_t{kTmaRowFloats} * (tile / kTmaBoxCols);
        for (std::size_t n : {std::size_t(tile) * 2000 + 3, rows * 3}) {
          if (v == AsyncVariant::tma && n % rows != 0) continue;
          AsyncConfig c{v, n, tile, stages, 2};
          c.persistent = false;
          AsyncPlan p;
          MEMBENCH_CUDA(plan(c, nullptr, &p));
          const std::size_t tiles = (n + tile - 1) / tile;
          EXPECT_EQ(p.shape.grid, (tiles + kAsyncShortTiles - 1) / kAsyncShortTiles);
          check(c);
        }
      }
  }
}

TEST_F(AsyncKernels, EveryBlockReusesEveryStageBufferTwice) {
  // n from the resident grid: each block gets at least 2 x stages tiles (plus
  // a ragged last one), so every buffer of every block is refilled twice.
  for (AsyncVariant v : {AsyncVariant::pipeline, AsyncVariant::bulk, AsyncVariant::tma}) {
    std::string why;
    if (!async_variant_available(v, &why)) continue;
    for (int stages : AsyncStages::values) {
      AsyncConfig c{v, 0, 512, stages, 16};
      AsyncPlan full;
      c.n = std::size_t{1} << 30;  // more tiles than any GPU holds blocks, to read the full resident grid
      MEMBENCH_CUDA(plan(c, nullptr, &full));
      const KernelShape shape = full.shape;
      const std::size_t tiles_per_block = 2 * static_cast<std::size_t>(stages) + 1;
      c.n = std::size_t{shape.grid} * tiles_per_block * c.tile + 3;
      if (v == AsyncVariant::tma) {  // whole rows of boxes instead of a ragged end
        const std::size_t rows_of_boxes = std::size_t{kTmaRowFloats} * (c.tile / kTmaBoxCols);
        c.n = (c.n + rows_of_boxes - 1) / rows_of_boxes * rows_of_boxes;
      }
      AsyncPlan planned;
      MEMBENCH_CUDA(plan(c, nullptr, &planned));
      const KernelShape used = planned.shape;
      ASSERT_EQ(used.grid, shape.grid);
      ASSERT_GE((c.n / c.tile) / used.grid, 2u * static_cast<std::size_t>(stages));
      check(c);
    }
  }
}

}  // namespace
}  // namespace membench
