// The energy arithmetic on the CPU: where the counter's updates fall, the
// power between the first and the last, what is refused, and the poller's
// thread fed by a fake counter.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>
#include <vector>

#include "engine/energy.hpp"
#include "run/provenance.hpp"

namespace membench::engine {
namespace {

// A counter read every `read_every` s that steps by `watts` x `period` every `period` s.
std::vector<EnergyReading> readings(double watts, double period, double read_every, double seconds,
                                    double phase = 0.03) {
  std::vector<EnergyReading> out;
  for (double t = 0; t < seconds; t += read_every) {
    const auto updates = static_cast<unsigned long long>((t + phase) / period);
    out.push_back(
        {t, 1'000'000 + static_cast<unsigned long long>(static_cast<double>(updates) * watts * period * 1e3)});
  }
  return out;
}

TEST(Energy, AnUpdateIsHalfwayBetweenTheReadsAroundIt) {
  const std::vector<EnergyReading> r = {{0.0, 10}, {0.004, 10}, {0.008, 50}, {0.012, 50}, {0.016, 90}};
  const auto u = energy_updates(r);
  ASSERT_EQ(u.size(), 2u);
  EXPECT_DOUBLE_EQ(u[0].seconds, 0.006);
  EXPECT_EQ(u[0].mj, 50u);
  EXPECT_DOUBLE_EQ(u[1].seconds, 0.014);
}

TEST(Energy, PowerIsTheEnergyBetweenTheFirstAndLastUpdateOverTheirTime) {
  // 400 W, updates every 100 ms, read every 4 ms for 0.35 s: updates near
  // 0.07, 0.17, 0.27 s; 3 intervals would need 0.37 s.
  const auto p = average_power(readings(400, 0.1, 0.004, 0.35), 2);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->intervals, 2);
  EXPECT_NEAR(p->window_seconds, 0.2, 0.0041);
  EXPECT_NEAR(p->watts, 400, 400 * 0.021);  // a 4 ms read over a 200 ms window: at most 2%
}

TEST(Energy, TooFewUpdatesGiveNoPower) {
  EXPECT_FALSE(average_power(readings(400, 0.1, 0.004, 0.15), 2).has_value());  // one update: no interval
  EXPECT_FALSE(average_power(readings(400, 0.1, 0.004, 0.25), 2).has_value());  // one interval of two
  EXPECT_TRUE(average_power(readings(400, 0.1, 0.004, 0.25), 1).has_value());
  EXPECT_FALSE(average_power({}, 1).has_value());
}

TEST(Energy, ACounterThatGoesBackwardsGivesNoPower) {
  std::vector<EnergyReading> r = readings(400, 0.1, 0.004, 0.5);
  r[r.size() / 2].mj = 5;  // the driver reloaded
  EXPECT_FALSE(average_power(r, 2).has_value());
}

TEST(Energy, ThePollerCountsWholeIntervalsOnItsOwnThread) {
  std::atomic<int> reads{0};
  EnergyPoller poller([&]() -> std::optional<unsigned long long> { return 1000 + 7 * (reads++ / 5); });
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (poller.intervals() < 3 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_GE(poller.intervals(), 3);
  const std::vector<EnergyReading> r = poller.stop();
  EXPECT_GE(energy_updates(r).size(), 4u);
  EXPECT_TRUE(poller.readable());
}

TEST(Energy, APollerWhoseCounterCannotBeReadSaysSo) {
  EnergyPoller poller([]() -> std::optional<unsigned long long> { return std::nullopt; });
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (poller.readable() && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_FALSE(poller.readable());
  EXPECT_TRUE(poller.stop().empty());
}

TEST(Energy, TheContextSaysHowOrWhyNot) {
  EXPECT_NE(run::energy_description(false, "").find("off"), std::string::npos);
  EXPECT_NE(run::energy_description(true, "").find("whole updates"), std::string::npos);
  EXPECT_EQ(run::energy_description(true, "no counter"), "none: no counter");
}

}  // namespace
}  // namespace membench::engine
