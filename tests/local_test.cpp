// Local memory: the byte models and refusals on the host; every variant and
// size against the reference on the GPU, and where the compiler put the array.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu.hpp"
#include "membench/local.hpp"

namespace membench {
namespace {

TEST(LocalModel, TheDynamicArrayIsStoredOnceAndEveryReadIsALoad) {
  const LocalConfig c{LocalVariant::dynamic, 64, 1024, std::size_t{1} << 20};
  EXPECT_DOUBLE_EQ(local_store_bytes(c), 4.0 * 64 * (1 << 20));
  EXPECT_DOUBLE_EQ(local_load_bytes(c), 4.0 * 1024 * (1 << 20));
  EXPECT_DOUBLE_EQ(local_bytes(c), 4.0 * 65 * (1 << 20));  // the array from global memory, and the sums
  EXPECT_EQ(local_shared_bytes(c), 64u * 256 * 4);
}

TEST(LocalModel, EachBlocksArraysAreOneContiguousRunAndEveryInputFloatIsReadOnce) {
  constexpr int kElements = 8;
  constexpr std::size_t kThreads = 4 * kLocalBlock;
  std::vector<int> reads(kElements * kThreads, 0);
  for (std::size_t t = 0; t < kThreads; ++t)
    for (int k = 0; k < kElements; ++k) {
      const std::size_t i = local_input_index(k, t, kElements);
      ASSERT_LT(i, reads.size());
      ++reads[i];
      // Block b's floats: the b-th run of kElements x kLocalBlock; a row of its threads at each k.
      EXPECT_EQ(i / (kElements * kLocalBlock), t / kLocalBlock);
      EXPECT_EQ(i % kLocalBlock, t % kLocalBlock);
    }
  for (int r : reads) EXPECT_EQ(r, 1);
}

TEST(LocalModel, RefusesWhatItCannotRunBeforeAnyCudaCall) {
  LocalPlan p;
  EXPECT_EQ(plan({LocalVariant::dynamic, 12, 1200}, &p), cudaErrorInvalidValue);  // no such size
  EXPECT_EQ(plan({LocalVariant::dynamic, 64, 1000}, &p), cudaErrorInvalidValue);  // not a multiple
  EXPECT_EQ(plan({LocalVariant::dynamic, 8, kLocalMaxRounds + 8}, &p), cudaErrorInvalidValue);
  EXPECT_EQ(plan({LocalVariant::dynamic, 8, 8, 100}, &p), cudaErrorInvalidValue);  // not whole blocks
  EXPECT_EQ(p.run, nullptr);
}

TEST(LocalKernels, EveryVariantSumsItsArrayRoundsOverElementsTimes) {
  MEMBENCH_REQUIRE_GPU();
  const std::size_t threads = 4 * kLocalBlock;
  for (LocalVariant v : kLocalVariants.all())
    for (int k : {8, 64, 256}) {
      const LocalConfig c{v, k, 2 * 256, threads};
      LocalPlan p;
      const cudaError_t planned = plan(c, &p);
      if (v == LocalVariant::shared && k == 256) {  // 256 KiB a block: more than an SM holds
        EXPECT_EQ(planned, cudaErrorInvalidConfiguration);
        continue;
      }
      MEMBENCH_CUDA(planned);
      SCOPED_TRACE(std::string(kLocalVariants(v)) + " elements " + std::to_string(k));
      test::expect_output(
          static_cast<std::size_t>(k) * threads, threads, 5,
          [&](const float* in, float* out) { return launch(p, in, out, nullptr); },
          [&](std::size_t t) {
            float sum = 0.0f;
            for (int e = 0; e < k; ++e) sum += pattern_value(local_input_index(e, t, k), 5);
            return static_cast<float>(c.rounds / k) * sum;
          });
    }
}

// Where the compiler puts the array, which the family's model follows: a
// dynamically indexed array of 64 floats or more is local memory, an
// unrolled one of up to 64 is registers, and one of 256 outgrows them.
TEST(LocalKernels, TheCompilerPutsABigDynamicArrayInLocalMemoryAndASmallUnrolledOneInRegisters) {
  MEMBENCH_REQUIRE_GPU();
  auto local_of = [](LocalVariant v, int k) {
    LocalPlan p;
    MEMBENCH_CUDA(plan({v, k, 256}, &p));
    std::size_t bytes = 0;
    MEMBENCH_CUDA(local_bytes_per_thread(p, &bytes));
    return bytes;
  };
  for (int k : {64, 256}) EXPECT_GE(local_of(LocalVariant::dynamic, k), 4u * k) << k;
  for (int k : {8, 64}) EXPECT_EQ(local_of(LocalVariant::unrolled, k), 0u) << k;
  EXPECT_GT(local_of(LocalVariant::unrolled, 256), 0u);  // 256 floats and the rest: past 255 registers
  EXPECT_EQ(local_of(LocalVariant::shared, 64), 0u);
}

}  // namespace
}  // namespace membench
