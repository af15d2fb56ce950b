// Cases whose launches take turns over placements of their buffers, as the
// binary reports them: the turns' standard error beside the batches' noise
// where there are turns, and nowhere else.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "gpu.hpp"
#include "json_run.hpp"

namespace membench {
namespace {

using test::run_ok;

TEST(Turns, OnlyCasesThatTakeTurnsReportTheTurnsStandardError) {
  MEMBENCH_REQUIRE_GPU();
  nlohmann::json doc;
  ASSERT_NO_FATAL_FAILURE(run_ok(
      "--word=u32 --space=global --shared_by=grid --n=2^20 --benchmark_filter='^(atomics/red|global/coalesced)/'", 2,
      &doc));
  for (const auto& c : doc.at("benchmarks")) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    EXPECT_FALSE(c.contains("turns_sem_pct"));  // one address, or no turns: one placement
  }
}

TEST(Turns, AChaseNearTheL1TakesTurnsOverCopiesOfItsChainAndAChaseFarPastItDoesNot) {
  MEMBENCH_REQUIRE_GPU();
  nlohmann::json doc;
  // Every copy verified (the first launch, then each other copy by the case's check), else the run fails.
  ASSERT_NO_FATAL_FAILURE(run_ok("--working_set=16K,256K,64M --benchmark_filter='^hierarchy/latency/'", 3, &doc));
  const auto& cases = doc.at("benchmarks");
  for (int k = 0; k < 2; ++k) {
    const auto& c = cases.at(k);
    SCOPED_TRACE(c.at("name").get<std::string>());
    EXPECT_EQ(c.at("placements").get<double>(), 8.0);
    ASSERT_TRUE(c.contains("turns_sem_pct"));
    const double sem = c.at("turns_sem_pct").get<double>();
    EXPECT_GT(sem, 0.0);
    if (sem > 0.5) { EXPECT_EQ(c.at("noisy").get<double>(), 1.0); }
    EXPECT_GT(c.at("latency_ns").get<double>(), 0.0);
  }
  const auto& far = cases.at(2);
  EXPECT_EQ(far.at("placements").get<double>(), 1.0);
  EXPECT_FALSE(far.contains("turns_sem_pct"));
}

TEST(Turns, AReadNearTheL1TakesNoTurns) {
  MEMBENCH_REQUIRE_GPU();
  nlohmann::json doc;
  // Its copies were tried and agreed: where the set lies in its page does not move the read.
  ASSERT_NO_FATAL_FAILURE(run_ok("--working_set=512K --benchmark_filter='^hierarchy/bandwidth/'", 1, &doc));
  const auto& c = doc.at("benchmarks").at(0);
  EXPECT_FALSE(c.contains("placements"));
  EXPECT_FALSE(c.contains("turns_sem_pct"));
  EXPECT_GT(c.at("bytes_per_second").get<double>(), 0.0);
}

}  // namespace
}  // namespace membench
