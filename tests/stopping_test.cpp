// The stopping rule and the clock arithmetic on the CPU: noise over batches,
// throttled batches dropped, when a case may stop.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "membench/fidelity.hpp"
#include "engine/stopping.hpp"

namespace membench::engine {
namespace {

StopRule rule() {
  StopRule r;
  r.min_batches = 4;
  r.max_noise_pct = 0.5;
  r.max_seconds = 1.0;
  r.throttle_fraction = 0.9;
  r.peak_mhz = 2000;
  return r;
}

std::vector<BatchSample> batches(const std::vector<double>& per_launch_us, std::int64_t launches = 10,
                                 double mhz = 1980) {
  std::vector<BatchSample> out;
  for (double t : per_launch_us) out.push_back({t * 1e-6 * static_cast<double>(launches), launches, mhz});
  return out;
}

TEST(Noise, IsTheRelativeStandardDeviationOfPerLaunchTime) {
  // 100, 102, 98, 100 us: mean 100, sample std. deviation sqrt(8 / 3) = 1.633 -> 1.633 %.
  const BatchSummary s = summarize(batches({100, 102, 98, 100}), rule());
  EXPECT_NEAR(s.noise_pct, 100.0 * std::sqrt(8.0 / 3.0) / 100.0, 1e-9);
  EXPECT_EQ(s.clean_batches, 4);
  EXPECT_EQ(s.clean_launches, 40);
  EXPECT_NEAR(s.clean_seconds, 4000e-6, 1e-12);
}

TEST(Noise, TinyDeviationsAreNotLostToRounding) {
  // 1e-4 relative spread on a 30 us launch: a sum-of-squares formula cancels out.
  const BatchSummary s = summarize(batches({30.000, 30.003, 29.997, 30.000}), rule());
  EXPECT_NEAR(s.noise_pct, 100.0 * std::sqrt(2 * 0.003 * 0.003 / 3) / 30.0, 1e-6);
}

TEST(Noise, NeedsTwoBatches) {
  EXPECT_TRUE(std::isinf(summarize(batches({100}), rule()).noise_pct));
  EXPECT_TRUE(std::isinf(summarize({}, rule()).noise_pct));
}

TEST(Throttle, BatchesBelowTheThresholdAreDroppedAndCounted) {
  auto b = batches({100, 100, 100});
  b.push_back({5000e-6, 10, 1500});  // 1500 MHz < 0.9 x 2000: dropped with its slow time
  b.push_back({1000e-6, 10, 0});     // clock unknown: kept
  const BatchSummary s = summarize(b, rule());
  EXPECT_EQ(s.throttled_batches, 1);
  EXPECT_EQ(s.clean_batches, 4);
  EXPECT_NEAR(s.noise_pct, 0.0, 1e-9);
  EXPECT_NEAR(s.clock_mhz, 1980.0, 1e-9);  // the unknown clock does not dilute the mean
}

TEST(Throttle, ClockIsTimeWeightedOverCleanBatches) {
  std::vector<BatchSample> b = {{1e-3, 10, 1900}, {3e-3, 10, 2000}};
  const BatchSummary s = summarize(b, rule());
  EXPECT_NEAR(s.clock_mhz, (1900 * 1.0 + 2000 * 3.0) / 4.0, 1e-9);
  EXPECT_NEAR(s.min_clock_mhz, 1900, 1e-9);
  StopRule no_peak = rule();
  no_peak.peak_mhz = 0;  // no peak known: nothing is called throttled
  EXPECT_EQ(summarize({{1e-3, 10, 100}}, no_peak).throttled_batches, 0);
}

TEST(Stop, ConvergesOnceEnoughQuietBatches) {
  const StopRule r = rule();
  EXPECT_FALSE(converged(summarize(batches({100, 100, 100}), r), r));        // 3 < min_batches
  EXPECT_TRUE(converged(summarize(batches({100, 100.1, 100, 99.9}), r), r));  // 0.08 %
  EXPECT_FALSE(converged(summarize(batches({100, 103, 100, 97}), r), r));     // 2.4 %
}

TEST(Stop, TheBoundariesBelongToTheRule) {
  StopRule r = rule();
  BatchSummary s;
  s.clean_batches = r.min_batches;  // exactly enough batches
  s.noise_pct = r.max_noise_pct;    // exactly the target
  EXPECT_TRUE(converged(s, r));
  s.clean_batches = r.min_batches - 1;
  EXPECT_FALSE(converged(s, r));
  s.clean_batches = r.min_batches;
  s.noise_pct = std::nextafter(r.max_noise_pct, 1.0);
  EXPECT_FALSE(converged(s, r));
  EXPECT_TRUE(should_stop(s, 40, 40, r.max_seconds, r));  // the time limit reached, not only passed
  EXPECT_FALSE(should_stop(s, 40, 40, std::nextafter(r.max_seconds, 0.0), r));
}

TEST(Stop, AnEmptyBatchIsNoSample) {
  BatchStats stats(rule());
  stats.add({0.0, 10, 1980});  // no time
  stats.add({1e-3, 0, 1980});  // no launches
  EXPECT_EQ(stats.summary().clean_batches, 0);
  EXPECT_EQ(stats.summary().throttled_batches, 0);
  stats.add({1e-3, 10, 1980});
  EXPECT_EQ(stats.summary().clean_batches, 1);
  EXPECT_EQ(stats.summary().clean_launches, 10);
}

TEST(Stop, WaitsForGoogleBenchmarksLaunchesThenNoiseOrTime) {
  const StopRule r = rule();
  const BatchSummary quiet = summarize(batches({100, 100, 100, 100}), r);
  const BatchSummary noisy = summarize(batches({100, 110, 90, 100}), r);
  EXPECT_TRUE(should_stop(quiet, 40, 40, 0.01, r));
  EXPECT_FALSE(should_stop(quiet, 40, 41, 0.01, r));    // Google Benchmark asked for more launches
  EXPECT_FALSE(should_stop(quiet, 40, 41, 100.0, r));   // ... even past the time limit
  EXPECT_FALSE(should_stop(noisy, 40, 1, 0.5, r));      // noisy and in time: go on
  EXPECT_TRUE(should_stop(noisy, 40, 1, 1.0, r));       // the time limit
}

TEST(Clock, MegahertzBetweenTwoStamps) {
  EXPECT_DOUBLE_EQ(clock_mhz({1'000, 5'000}, {1'001'000, 1'985'000}), 1980.0);
  EXPECT_DOUBLE_EQ(clock_mhz({0, 5}, {100, 10}), 0.0);         // no start stamp
  EXPECT_DOUBLE_EQ(clock_mhz({100, 5}, {100, 10}), 0.0);       // no time passed
  EXPECT_DOUBLE_EQ(clock_mhz({100, 50}, {200, 10}), 0.0);      // cycles went backwards
  EXPECT_TRUE(is_throttled(1500, 1980, 0.9));
  EXPECT_FALSE(is_throttled(1900, 1980, 0.9));
  EXPECT_FALSE(is_throttled(1800, 2000, 0.9));  // exactly 90 %: not below
  EXPECT_TRUE(is_throttled(1799.9, 2000, 0.9));
  EXPECT_FALSE(is_throttled(0, 1980, 0.9));  // unknown is not evidence
  EXPECT_FALSE(is_throttled(1500, 0, 0.9));
}

}  // namespace
}  // namespace membench::engine
