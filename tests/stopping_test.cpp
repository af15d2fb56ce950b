// The stopping rule and the clock arithmetic on the CPU: noise over batches,
// throttled batches dropped, when a case may stop, and the batch loop itself
// fed by a fake queue and clock.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/measure.hpp"
#include "engine/stopping.hpp"
#include "membench/platform/fidelity.hpp"

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
  EXPECT_FALSE(converged(summarize(batches({100, 100, 100}), r), r));         // 3 < min_batches
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

TEST(Stop, TheTurnsStandardErrorIsTheirSpreadOverTheRootOfTheirCount) {
  EXPECT_EQ(turns_sem_pct({}), 0);
  EXPECT_EQ(turns_sem_pct({1e-4}), 0);  // one turn: nothing to differ from
  EXPECT_EQ(turns_sem_pct({1e-4, 1e-4, 1e-4, 1e-4}), 0);
  // Four turns at 90, 110, 90, 110: mean 100, sample deviation 11.547, over the root of 4: 5.77 %.
  EXPECT_NEAR(turns_sem_pct({90e-6, 110e-6, 90e-6, 110e-6}), 100.0 * std::sqrt(400.0 / 3.0) / 2.0 / 100.0, 1e-9);
  // Sixteen turns of the same spread: a quarter of it.
  std::vector<double> sixteen;
  for (int k = 0; k < 16; ++k) sixteen.push_back(k % 2 ? 110e-6 : 90e-6);
  EXPECT_NEAR(turns_sem_pct(sixteen), 100.0 * std::sqrt(1600.0 / 15.0) / 4.0 / 100.0, 1e-9);
}

TEST(Stop, AValueIsNoisyWhenItsTurnsAreLessCertainThanTheTarget) {
  const StopRule r = rule();
  BatchSummary quiet;
  quiet.clean_batches = r.min_batches;
  quiet.noise_pct = r.max_noise_pct / 2;
  EXPECT_FALSE(noisy(quiet, r, std::nullopt));
  EXPECT_FALSE(noisy(quiet, r, r.max_noise_pct));  // the target itself is met
  EXPECT_TRUE(noisy(quiet, r, std::nextafter(r.max_noise_pct, 100.0)));
  BatchSummary loud = quiet;
  loud.noise_pct = r.max_noise_pct * 2;
  EXPECT_TRUE(noisy(loud, r, std::nullopt));
  EXPECT_TRUE(noisy(loud, r, 0.0));
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
  EXPECT_FALSE(should_stop(quiet, 40, 41, 0.01, r));   // Google Benchmark asked for more launches
  EXPECT_FALSE(should_stop(quiet, 40, 41, 100.0, r));  // ... even past the time limit
  EXPECT_FALSE(should_stop(noisy, 40, 1, 0.5, r));     // noisy and in time: go on
  EXPECT_TRUE(should_stop(noisy, 40, 1, 1.0, r));      // the time limit
}

TEST(Clock, MegahertzBetweenTwoStamps) {
  EXPECT_DOUBLE_EQ(clock_mhz({1'000, 5'000}, {1'001'000, 1'985'000}), 1980.0);
  EXPECT_DOUBLE_EQ(clock_mhz({0, 5}, {100, 10}), 0.0);     // no start stamp
  EXPECT_DOUBLE_EQ(clock_mhz({100, 5}, {100, 10}), 0.0);   // no time passed
  EXPECT_DOUBLE_EQ(clock_mhz({100, 50}, {200, 10}), 0.0);  // cycles went backwards
  EXPECT_TRUE(is_throttled(1500, 1980, 0.9));
  EXPECT_FALSE(is_throttled(1900, 1980, 0.9));
  EXPECT_FALSE(is_throttled(1800, 2000, 0.9));  // exactly 90 %: not below
  EXPECT_TRUE(is_throttled(1799.9, 2000, 0.9));
  EXPECT_FALSE(is_throttled(0, 1980, 0.9));  // unknown is not evidence
  EXPECT_FALSE(is_throttled(1500, 0, 0.9));
}

}  // namespace
// A queue that plays batches in order and records what the loop asked, with
// a clock that advances by `step` seconds per batch read.
namespace {

class FakeQueue final : public BatchQueue {
 public:
  explicit FakeQueue(std::vector<BatchSample> samples) : samples_(std::move(samples)) {}
  void enqueue(int slot) override {
    EXPECT_FALSE(in_flight_[slot]) << "slot " << slot << " enqueued before it was read";
    in_flight_[slot] = true;
    events.push_back("enqueue " + std::to_string(slot));
  }
  BatchSample wait(int slot) override {
    EXPECT_TRUE(in_flight_[slot]) << "slot " << slot << " read but never enqueued";
    in_flight_[slot] = false;
    events.push_back("wait " + std::to_string(slot));
    clock += step;
    return next_ < samples_.size() ? samples_[next_++] : samples_.back();
  }
  bool idle() const { return !in_flight_[0] && !in_flight_[1]; }

  std::vector<std::string> events;
  double clock = 0, step = 0.001;

 private:
  std::vector<BatchSample> samples_;
  std::size_t next_ = 0;
  bool in_flight_[2] = {false, false};
};

struct Loop {
  int health_samples = 0;
  int stop_after_waits = -1;  // a stop request once this many batches were read
  LoopHooks hooks(FakeQueue& q) {
    LoopHooks h;
    h.elapsed_seconds = [&q] { return q.clock; };
    h.sample_health = [this] { ++health_samples; };
    h.stop_request = [this, &q]() -> std::optional<std::string> {
      int waits = 0;
      for (const auto& e : q.events) waits += e.rfind("wait", 0) == 0;
      if (stop_after_waits >= 0 && waits >= stop_after_waits) return std::string("SIGTERM");
      return std::nullopt;
    };
    h.health_period = 0.0025;
    return h;
  }
};

}  // namespace

TEST(BatchLoop, KeepsTheBatchInFlightWhenTheRuleSaysStop) {
  // Quiet from the start: the rule is met after min_batches (4) batches; the
  // fifth, already in flight, is waited for and counted.
  FakeQueue q(batches({5, 5, 5, 5, 5, 5, 5, 5}));
  Loop loop;
  const BatchSummary s = collect_batches(q, rule(), 1, loop.hooks(q));
  EXPECT_EQ(s.clean_batches, 5);
  EXPECT_EQ(s.clean_launches, 50);
  EXPECT_TRUE(q.idle());
  const std::vector<std::string> expected = {"enqueue 0", "enqueue 1", "wait 0",    "enqueue 0", "wait 1",
                                             "enqueue 1", "wait 0",    "enqueue 0", "wait 1",    "wait 0"};
  EXPECT_EQ(q.events, expected);
}

TEST(BatchLoop, RunsUntilGoogleBenchmarksLaunchesThoughQuiet) {
  FakeQueue q(batches(std::vector<double>(20, 5)));
  Loop loop;
  const BatchSummary s = collect_batches(q, rule(), 95, loop.hooks(q));
  EXPECT_EQ(s.clean_batches, 11);  // 10 batches reach 100 >= 95 launches, and the one in flight
  EXPECT_TRUE(q.idle());
}

TEST(BatchLoop, ThrottledBatchesAreDroppedAndTheLoopGoesOn) {
  std::vector<BatchSample> b = batches({5, 5, 5, 5, 5, 5, 5});
  b[1].clock_mhz = b[2].clock_mhz = 1000;  // under 90% of 2000 MHz
  FakeQueue q(b);
  Loop loop;
  const BatchSummary s = collect_batches(q, rule(), 1, loop.hooks(q));
  EXPECT_EQ(s.throttled_batches, 2);
  EXPECT_EQ(s.clean_batches, 5);
}

TEST(BatchLoop, StopsAtTheTimeLimitWhenNoisy) {
  FakeQueue q(batches({5, 9, 5, 9, 5, 9, 5, 9, 5, 9, 5, 9}));
  q.step = 0.3;  // the limit is 1 s: the fourth batch read passes it
  Loop loop;
  const BatchSummary s = collect_batches(q, rule(), 1, loop.hooks(q));
  EXPECT_EQ(s.clean_batches, 5);
  EXPECT_GT(s.noise_pct, rule().max_noise_pct);
}

TEST(BatchLoop, AStopRequestWaitsForTheBatchInFlightAndThrows) {
  FakeQueue q(batches(std::vector<double>(20, 5)));
  Loop loop;
  loop.stop_after_waits = 2;
  EXPECT_THROW(collect_batches(q, rule(), 1000, loop.hooks(q)), Interrupted);
  EXPECT_TRUE(q.idle());  // nothing left running on the GPU
  try {
    FakeQueue again(batches(std::vector<double>(20, 5)));
    collect_batches(again, rule(), 1000, loop.hooks(again));
    FAIL() << "no stop";
  } catch (const Interrupted& e) { EXPECT_STREQ(e.what(), "SIGTERM"); }
}

TEST(BatchLoop, HealthIsSampledAtItsPeriodAndAtTheEnd) {
  // 1 ms per batch read, a period of 2.5 ms: samples at 3, 6, ..., 18 ms, and one at the end (the
  // 20th batch reaches 200 launches; the 21st, in flight, is read without a sample of its own).
  FakeQueue q(batches(std::vector<double>(40, 5)));
  Loop loop;
  collect_batches(q, rule(), 200, loop.hooks(q));
  EXPECT_EQ(loop.health_samples, 6 + 1);
}

// A batch of a case whose launches take turns holds whole rounds: every
// turn weighs alike in every batch.
TEST(WholeRounds, ABatchOfTurnsHoldsWholeRounds) {
  EXPECT_EQ(whole_rounds(6, 1), 6);
  EXPECT_EQ(whole_rounds(6, 64), 64);
  EXPECT_EQ(whole_rounds(64, 64), 64);
  EXPECT_EQ(whole_rounds(65, 64), 128);
  EXPECT_EQ(whole_rounds(0, 64), 64);
  EXPECT_EQ(whole_rounds(1, 0), 1);
}

}  // namespace membench::engine
