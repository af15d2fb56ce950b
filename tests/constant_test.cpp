// Constant memory: the words each lane reads, the reference and the models
// on the host; both spaces against the reference on the GPU.
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <thread>
#include <vector>

#include "gpu.hpp"
#include "membench/constant.hpp"

namespace membench {
namespace {

// The distinct words a warp reads in one round are `addresses`, each in a
// sector of its own, and lanes that share a word are `addresses` apart.
TEST(ConstantWords, AWarpReadsAsManyWordsAsItsAddressesEachInItsOwnSector) {
  for (std::size_t words : {kConstantMinWords, std::size_t{4096}, kConstantMaxWords})
    for (int addresses : {1, 2, 3, 4, 8, 16, 31, 32})
      for (int round : {0, 1, 500, 1023}) {
        const ConstantConfig c{ConstantSpace::constant, addresses, 1024, words};
        std::set<std::size_t> seen, sectors;
        for (int lane = 0; lane < 32; ++lane) {
          const std::size_t w = constant_word(c, round, lane);
          ASSERT_LT(w, words);
          seen.insert(w);
          sectors.insert(w / 8);
        }
        EXPECT_EQ(seen.size(), static_cast<std::size_t>(addresses)) << addresses << " round " << round;
        EXPECT_EQ(sectors.size(), seen.size()) << words << " words, " << addresses << " round " << round;
        for (int lane = 0; lane + addresses < 32; ++lane)
          EXPECT_EQ(constant_word(c, round, lane), constant_word(c, round, lane + addresses));
      }
  // The rounds walk the whole table: 97 is odd.
  const ConstantConfig c{ConstantSpace::constant, 1, 256, 256};
  std::set<std::size_t> walked;
  for (int round = 0; round < 256; ++round) walked.insert(constant_word(c, round, 0));
  EXPECT_EQ(walked.size(), 256u);
}

TEST(ConstantModel, SerialisationAndTheCeilingByAddresses) {
  const ConstantConfig uniform{ConstantSpace::constant, 1}, spread{ConstantSpace::constant, 32};
  EXPECT_EQ(constant_serialization(uniform), 1);
  EXPECT_EQ(constant_serialization(spread), 32);
  EXPECT_EQ(constant_serialization({ConstantSpace::global, 32}), 1);
  EXPECT_EQ(constant_sectors_per_request({ConstantSpace::global, 5}), 5);
  // 132 SMs at 2 GHz, 128 bytes a warp read: a clock a read when uniform.
  EXPECT_DOUBLE_EQ(constant_model_bytes_per_second(uniform, 132, 2e9), 132 * 2e9 * 128);
  EXPECT_DOUBLE_EQ(constant_model_bytes_per_second(spread, 132, 2e9), 132 * 2e9 * 128 / 32);
  // The L1 serves 4 sectors a clock: 32 sectors in 8 clocks, 5 in 2.
  EXPECT_DOUBLE_EQ(constant_model_bytes_per_second({ConstantSpace::global, 32}, 132, 2e9), 132 * 2e9 * 128 / 8);
  EXPECT_DOUBLE_EQ(constant_model_bytes_per_second({ConstantSpace::global, 5}, 132, 2e9), 132 * 2e9 * 128 / 2);
  EXPECT_DOUBLE_EQ(constant_bytes({ConstantSpace::global, 1, 10}, 256), 4.0 * 256 * 11);
}

TEST(ConstantReference, AThreadSumsTheWordsOfItsLane) {
  std::vector<float> table(4096);
  for (std::size_t i = 0; i < table.size(); ++i) table[i] = static_cast<float>(i);
  const ConstantConfig c{ConstantSpace::constant, 4, 3, 4096};
  // lane 6 reads as lane 2: words 16, 113, 210
  EXPECT_EQ(constant_reference(c, 6, table.data()), 16.0f + 113.0f + 210.0f);
  EXPECT_EQ(constant_reference(c, 256 + 6, table.data()), constant_reference(c, 6, table.data()));
  ConstantPlan p;
  EXPECT_EQ(plan({ConstantSpace::constant, 0}, &p), cudaErrorInvalidValue);
  EXPECT_EQ(plan({ConstantSpace::constant, 33}, &p), cudaErrorInvalidValue);
  EXPECT_EQ(plan({ConstantSpace::global, 1, 0}, &p), cudaErrorInvalidValue);
  EXPECT_EQ(plan({ConstantSpace::global, 1, kConstantMaxRounds + 1}, &p), cudaErrorInvalidValue);
  for (std::size_t words : {std::size_t{0}, std::size_t{128}, std::size_t{1000}, 2 * kConstantMaxWords})
    EXPECT_EQ(plan({ConstantSpace::constant, 1, 8, words}, &p), cudaErrorInvalidValue) << words;
}

TEST(ConstantKernels, BothSpacesSumWhatTheHostSums) {
  MEMBENCH_REQUIRE_GPU();
  std::vector<float> table(kConstantMaxWords);
  for (std::size_t i = 0; i < table.size(); ++i) table[i] = pattern_value(i, 9);
  for (ConstantSpace space : kConstantSpaces.all())
    for (int addresses : {1, 3, 32})
      for (std::size_t words : {kConstantMinWords, kConstantMaxWords}) {
        const ConstantConfig c{space, addresses, 200, words};
        ConstantPlan p;
        MEMBENCH_CUDA(plan(c, &p));
        SCOPED_TRACE(std::string(kConstantSpaces(space)) + " addresses " + std::to_string(addresses) + " words " +
                     std::to_string(words));
        test::expect_output(
            words, p.threads, 9,
            [&](const float* in, float* out) {
              MEMBENCH_CUDA(bind_table(p, in, nullptr));
              return launch(p, in, out, nullptr);
            },
            [&](std::size_t t) { return constant_reference(c, t, table.data()); });
      }
}

// The table reaches constant memory in the order of the stream the case runs
// on, not when the GPU happens to be idle: the stream is held up (as a
// neighbour's load holds it up) before the table is filled, and the copy
// and the launch must still come after the fill. A copy on the legacy
// default stream, which a non-blocking stream is not ordered with, copies
// the poisoned table instead.
TEST(ConstantKernels, TheTableIsCopiedInTheOrderOfTheCaseStream) {
  MEMBENCH_REQUIRE_GPU();
  const ConstantConfig c{ConstantSpace::constant, 1, 64, kConstantMinWords};
  ConstantPlan p;
  MEMBENCH_CUDA(plan(c, &p));
  std::vector<float> table(c.words);
  for (std::size_t i = 0; i < table.size(); ++i) table[i] = pattern_value(i, 5);
  DeviceBuffer<float> in(c.words), out(p.threads);
  MEMBENCH_CUDA(launch_poison(in.get(), in.bytes(), nullptr));
  MEMBENCH_CUDA(cudaDeviceSynchronize());
  Stream stream;
  const auto hold = [](void*) { std::this_thread::sleep_for(std::chrono::milliseconds(200)); };
  MEMBENCH_CUDA(cudaLaunchHostFunc(stream.get(), hold, nullptr));
  MEMBENCH_CUDA(launch_fill_pattern(in.get(), c.words, 5, stream.get()));
  MEMBENCH_CUDA(launch_poison(out.get(), out.bytes(), stream.get()));
  MEMBENCH_CUDA(bind_table(p, in.get(), stream.get()));
  MEMBENCH_CUDA(launch(p, in.get(), out.get(), stream.get()));
  MEMBENCH_CUDA(cudaStreamSynchronize(stream.get()));
  const auto bad = first_mismatch(copy_to_host(out.get(), p.threads),
                                  [&](std::size_t t) { return constant_reference(c, t, table.data()); });
  EXPECT_FALSE(bad) << describe(*bad, "out");
}

}  // namespace
}  // namespace membench
