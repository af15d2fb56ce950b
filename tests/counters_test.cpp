// What a measured case reports, from its batches and its Work, on the CPU:
// the stopping rule built from the options and the device in the clock's
// units, and each counter's arithmetic (a rate over the launches kept, the
// noise as measured, the batches dropped, latency in nanoseconds and cycles).
#include <gtest/gtest.h>

#include <fstream>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "cases/counters.hpp"
#include "cases/runner.hpp"
#include "engine/measure.hpp"
#include "engine/options.hpp"
#include "engine/stopping.hpp"

namespace membench::cases {
namespace {

DeviceInfo h200() {
  DeviceInfo d;
  d.cc_major = 9;
  d.sm_count = 132;
  d.sm_clock_khz = 1980000;
  d.dram_peak_bytes_per_second = 4.8e12;
  return d;
}

std::map<std::string, double> counters_of(const Work& w, const engine::Measurement& m) {
  Outcome o;
  set_counters(o, h200(), w, m, std::nullopt, KernelShape{}, std::nullopt);
  std::map<std::string, double> by_name;
  for (const auto& [name, value] : o.counters) EXPECT_TRUE(by_name.emplace(name, value).second) << name << " twice";
  return by_name;
}

// The throttle is a fraction of the peak clock in MHz, as the batches' stamps are.
TEST(StopRuleOfOptions, ThePeakClockIsInMegahertzAndTheThrottleAFraction) {
  engine::MeasureOptions m;
  m.min_batches = 7, m.max_noise_pct = 0.25, m.max_seconds = 2, m.throttle_pct = 90;
  const engine::StopRule r = engine::stop_rule(m, h200());
  EXPECT_EQ(r.min_batches, 7);
  EXPECT_DOUBLE_EQ(r.max_noise_pct, 0.25);
  EXPECT_DOUBLE_EQ(r.max_seconds, 2.0);
  EXPECT_DOUBLE_EQ(r.peak_mhz, 1980.0);
  EXPECT_DOUBLE_EQ(r.throttle_fraction, 0.9);
  // 1782 MHz is 90% of the peak: a batch below it is dropped, one at it kept.
  const auto summary = engine::summarize({{1e-3, 10, 1781.9}, {1e-3, 10, 1782.0}, {1e-3, 10, 1979.0}}, r);
  EXPECT_EQ(summary.throttled_batches, 1);
  EXPECT_EQ(summary.clean_batches, 2);
}

TEST(MeasuredCounters, RatesNoiseAndClockComeFromTheBatchesKept) {
  engine::Measurement m;
  m.rule = engine::stop_rule(engine::MeasureOptions{}, h200());
  m.summary.clean_batches = 12;
  m.summary.clean_launches = 10;
  m.summary.clean_seconds = 1e-3;
  m.summary.noise_pct = 0.3;
  m.summary.throttled_batches = 1;
  m.summary.clock_mhz = 1900;
  m.batch_launches = 5;
  Work w;
  w.bytes = 1e6;  // a launch
  w.dependent_loads = 100;
  const auto c = counters_of(w, m);
  EXPECT_DOUBLE_EQ(c.at("bytes"), 1e6);
  EXPECT_DOUBLE_EQ(c.at("bytes_per_second"), 1e6 * 10 / 1e-3);
  EXPECT_DOUBLE_EQ(c.at("pct_of_peak"), 100.0 * 1e10 / 4.8e12);
  EXPECT_DOUBLE_EQ(c.at("latency_ns"), 1e-3 / 10 / 100 * 1e9);     // 1000 ns a dependent load
  EXPECT_DOUBLE_EQ(c.at("latency_cycles"), 1000.0 * 1900 * 1e-3);  // at the clock measured, in MHz
  EXPECT_DOUBLE_EQ(c.at("noise_pct"), 0.3);
  EXPECT_DOUBLE_EQ(c.at("noisy"), 0.0);  // 0.3% < 0.5% over 12 >= 10 batches
  EXPECT_DOUBLE_EQ(c.at("batches"), 12);
  EXPECT_DOUBLE_EQ(c.at("batch_launches"), 5);
  EXPECT_DOUBLE_EQ(c.at("throttled_batches"), 1);
  EXPECT_DOUBLE_EQ(c.at("sm_clock_mhz"), 1900);
  EXPECT_EQ(c.count("gflops_per_second"), 0u);  // no arithmetic, no FLOP rate
  EXPECT_EQ(c.count("contended"), 0u);          // NVML could not say: no mark either way
}

// A compute pipe: its operations a second, the pipe's peak at the clock the
// batches measured (not the boost clock), and pct_of_peak against that.
TEST(MeasuredCounters, APipesRateIsJudgedAtTheClockItsBatchesRanAt) {
  engine::Measurement m;
  m.rule = engine::stop_rule(engine::MeasureOptions{}, h200());
  m.summary.clean_batches = 12, m.summary.clean_launches = 10, m.summary.clean_seconds = 1e-3;
  m.summary.noise_pct = 0.1;
  m.summary.clock_mhz = 1800;
  Work w;
  w.ops = 6e9;                             // a launch
  w.peak_ops_per_clock = 128.0 * 132 * 2;  // fp32 FMA on Hopper
  const auto c = counters_of(w, m);
  EXPECT_DOUBLE_EQ(c.at("ops"), 6e9);
  EXPECT_DOUBLE_EQ(c.at("ops_per_second"), 6e9 * 10 / 1e-3);
  EXPECT_DOUBLE_EQ(c.at("model_ops_per_second"), 128.0 * 132 * 2 * 1800e6);  // 60.8 T at 1800 MHz, not 66.9
  EXPECT_DOUBLE_EQ(c.at("pct_of_peak"), 100.0 * 6e13 / (128.0 * 132 * 2 * 1800e6));
  EXPECT_EQ(c.count("bytes_per_second"), 0u);  // no bytes, no bandwidth
  EXPECT_EQ(c.count("peak_assumed"), 0u);
  EXPECT_EQ(c.count("fma_pipe_busy_pct"), 0u);  // none named: none reported
  // The pipe's busy share, for ncu to check: pct_of_peak again, under the pipe's own name.
  w.pipe_busy = "fma_pipe_busy_pct";
  EXPECT_DOUBLE_EQ(counters_of(w, m).at("fma_pipe_busy_pct"), c.at("pct_of_peak"));
  w.peak_assumed = true;  // bfloat16's rate, assumed as fp16's
  EXPECT_DOUBLE_EQ(counters_of(w, m).at("peak_assumed"), 1.0);
  // No clock read, or no peak for the pipe: the rate alone.
  m.summary.clock_mhz = 0;
  EXPECT_EQ(counters_of(w, m).count("pct_of_peak"), 0u);
  m.summary.clock_mhz = 1800, w.peak_ops_per_clock = 0;
  const auto unknown = counters_of(w, m);
  EXPECT_EQ(unknown.count("model_ops_per_second"), 0u);
  EXPECT_DOUBLE_EQ(unknown.at("ops_per_second"), 6e13);
}

TEST(MeasuredCounters, NoiseOverTheTargetOrUnknownIsNoisyAndUnknownIsMinusOne) {
  engine::Measurement m;
  m.rule = engine::stop_rule(engine::MeasureOptions{}, h200());
  m.summary.clean_batches = 12, m.summary.clean_launches = 10, m.summary.clean_seconds = 1e-3;
  m.summary.noise_pct = 0.51;
  Work w;
  w.bytes = 1;
  EXPECT_DOUBLE_EQ(counters_of(w, m).at("noisy"), 1.0);
  m.summary.noise_pct = 0.5;  // the target itself converges
  EXPECT_DOUBLE_EQ(counters_of(w, m).at("noisy"), 0.0);
  m.summary.clean_batches = 1;
  m.summary.noise_pct = std::numeric_limits<double>::infinity();
  const auto c = counters_of(w, m);
  EXPECT_DOUBLE_EQ(c.at("noise_pct"), -1.0);
  EXPECT_DOUBLE_EQ(c.at("noisy"), 1.0);
  m.summary.clean_batches = 12, m.summary.noise_pct = 0.1;
  m.turns_sem_pct = 0.6;  // the turns less certain than the target
  const auto turns = counters_of(w, m);
  EXPECT_DOUBLE_EQ(turns.at("turns_sem_pct"), 0.6);
  EXPECT_DOUBLE_EQ(turns.at("noisy"), 1.0);
}

TEST(MeasuredCounters, HealthMarksAreSetWhereNvmlCouldTell) {
  engine::Measurement m;
  m.rule = engine::stop_rule(engine::MeasureOptions{}, h200());
  m.summary.clean_batches = 12, m.summary.clean_launches = 10, m.summary.clean_seconds = 1e-3;
  m.health.other_processes = 2;
  m.health.clock_event_reasons = 0x4;  // the power limiter
  Work w;
  w.bytes = 1;
  w.flops = 4;
  w.host_paced = true;
  const auto c = counters_of(w, m);
  EXPECT_DOUBLE_EQ(c.at("other_processes"), 2);
  EXPECT_DOUBLE_EQ(c.at("contended"), 1);
  EXPECT_DOUBLE_EQ(c.at("clock_event_reasons"), 4);
  EXPECT_DOUBLE_EQ(c.at("clock_event"), 0);  // the power cap alone: its own mark, not a slowdown
  EXPECT_DOUBLE_EQ(c.at("power_capped"), 1);
  EXPECT_DOUBLE_EQ(c.at("noise_target_pct"), m.rule.max_noise_pct);
  EXPECT_DOUBLE_EQ(c.at("host_paced"), 1);
  EXPECT_DOUBLE_EQ(c.at("flops_per_byte"), 4);
  EXPECT_DOUBLE_EQ(c.at("gflops_per_second"), 4.0 * 10 / 1e-3 * 1e-9);
  m.health.other_processes = 0;
  EXPECT_DOUBLE_EQ(counters_of(w, m).at("contended"), 0);
  m.health.clock_event_reasons = 0x4 | 0x40;  // and a hardware thermal slowdown
  EXPECT_DOUBLE_EQ(counters_of(w, m).at("clock_event"), 1);
  EXPECT_DOUBLE_EQ(counters_of(w, m).at("power_capped"), 1);
}

// The docs' key table (docs/measuring.md, "Counters (JSON keys)") names
// every counter the catalog declares, and nothing it does not: the table a
// person reads and the catalog the file carries are one list.
TEST(CounterCatalog, TheDocsKeyTableNamesEveryCounterAndNoOther) {
  std::ifstream in(MEMBENCH_SOURCE_DIR "/docs/measuring.md");
  ASSERT_TRUE(in) << "docs/measuring.md";
  std::set<std::string> documented;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0) inside = line == "## Counters (JSON keys)";
    if (!inside || line.rfind("| `", 0) != 0) continue;
    const std::string first = line.substr(1, line.find(" |", 1));  // the key column
    const std::regex key("`([a-z0-9_<>]+)`");
    for (auto it = std::sregex_iterator(first.begin(), first.end(), key); it != std::sregex_iterator(); ++it)
      documented.insert((*it)[1]);
  }
  ASSERT_GT(documented.size(), 40u);
  documented.erase("device<i>_bytes_per_second");  // a pattern: device0_bytes_per_second, ...
  EXPECT_TRUE(counter_meaning("device3_bytes_per_second").has_value());
  for (const std::string& name : counter_names())
    EXPECT_TRUE(documented.count(name) || name == "real_time" || name == "cpu_time" || name == "iterations")
        << name << " is in the catalog but not in the docs' key table";
  for (const std::string& name : documented)
    EXPECT_TRUE(counter_meaning(name).has_value()) << name << " is in the docs' key table but not in the catalog";
}

}  // namespace
}  // namespace membench::cases
