// The GPU-health rules that need no GPU: which clock event reasons mark a
// case, how they are named, which processes are this one, what a case that
// saw another process or a clock event reports, and the monitor itself fed
// by a fake GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <utility>

#include "engine/health.hpp"

namespace membench::engine {
namespace {

TEST(ClockEvents, NamesEveryKnownBitInNvmlsOrder) {
  EXPECT_EQ(clock_event_names(0), "none");
  EXPECT_EQ(clock_event_names(0x1), "gpu_idle");
  EXPECT_EQ(clock_event_names(0x4 | 0x40), "sw_power_cap, hw_thermal_slowdown");
  EXPECT_EQ(clock_event_names(0x1FF),
            "gpu_idle, applications_clocks_setting, sw_power_cap, hw_slowdown, sync_boost, sw_thermal_slowdown, "
            "hw_thermal_slowdown, hw_power_brake_slowdown, display_clock_setting");
  EXPECT_EQ(clock_event_names(0x8 | 0x1000), "hw_slowdown, 0x1000");  // an unknown bit is shown, not dropped
}

TEST(ClockEvents, ThermalAndHardwareSlowdownsMarkACaseThePowerCapIsItsOwnMark) {
  // nvml.h: HwSlowdown 0x8, SwThermalSlowdown 0x20, HwThermalSlowdown 0x40, HwPowerBrakeSlowdown 0x80.
  for (std::uint64_t bit : {0x8ull, 0x20ull, 0x40ull, 0x80ull}) {
    CaseHealth h;
    h.clock_event_reasons = bit | 0x1;
    EXPECT_TRUE(h.clock_event()) << std::hex << bit;
    EXPECT_FALSE(h.power_capped()) << std::hex << bit;
  }
  // SwPowerCap 0x4: the case's own draw at the board's limit.
  CaseHealth capped;
  capped.clock_event_reasons = 0x4;
  EXPECT_FALSE(capped.clock_event());
  EXPECT_TRUE(capped.power_capped());
  // Idle 0x1, applications clocks 0x2, sync boost 0x10, display clock 0x100: the clock is what it was set to.
  for (std::uint64_t bit : {0x1ull, 0x2ull, 0x10ull, 0x100ull}) {
    CaseHealth h;
    h.clock_event_reasons = bit;
    EXPECT_FALSE(h.clock_event()) << std::hex << bit;
  }
  EXPECT_FALSE(CaseHealth{}.clock_event());  // unknown is not an event
}

TEST(Processes, OurOwnPidWhenNvmlReportsIt) {
  EXPECT_EQ(own_pids({10, 20}, {10, 20, 30}, 30), std::set<unsigned>{30});
  // A process that appeared at the same moment is someone else when our pid is listed.
  EXPECT_EQ(own_pids({}, {30, 31}, 30), std::set<unsigned>{30});
}

TEST(Processes, ThoseThatAppearedWithOurContextInAnotherPidNamespace) {
  // NVML lists host pids; ours (7 inside a container) is not among them.
  EXPECT_EQ(own_pids({4001}, {4001, 5002}, 7), (std::set<unsigned>{7, 5002}));
  EXPECT_EQ(own_pids({}, {}, 7), std::set<unsigned>{7});  // NVML lists nothing: only our own pid
}

TEST(Processes, AnotherProcessMarksTheCaseContended) {
  CaseHealth h;
  EXPECT_FALSE(h.contended());  // unknown
  h.other_processes = 0;
  EXPECT_FALSE(h.contended());
  h.other_processes = 2;
  EXPECT_TRUE(h.contended());
}

TEST(Processes, OthersAreThoseNotOurs) {
  const Others o = others_among({4001, 5002, 6003}, {5002}, false);
  EXPECT_EQ(o.count, 2);
  EXPECT_EQ(o.first, 4001u);
  EXPECT_EQ(others_among({5002}, {5002}, false).count, 0);
  EXPECT_EQ(others_among({}, {5002}, false).count, 0);
  // Contexts: our pid missing from the list does not make anyone ours.
  EXPECT_EQ(others_among({4001}, {7}, false).count, 1);
}

TEST(Processes, UtilisationSamplesInAnotherPidNamespaceTakeOneBusyProcessAsOurs) {
  // Our pid (7) is not among the busy ones: one of them is us, which one is not known.
  Others o = others_among({4001, 6003}, {7}, true);
  EXPECT_EQ(o.count, 1);
  EXPECT_EQ(o.first, 0u);
  EXPECT_EQ(others_among({4001}, {7}, true).count, 0);
  // Once ours is listed, the rest are others and are named.
  o = others_among({4001, 7}, {7}, true);
  EXPECT_EQ(o.count, 1);
  EXPECT_EQ(o.first, 4001u);
  EXPECT_EQ(others_among({}, {7}, true).count, 0);
}

TEST(Processes, AProcessBusyBeforeWeRanAnythingIsNeverTakenForOurs) {
  // The first samples of a run may not show us yet: a neighbour already busy
  // before we started is still another process.
  Others o = others_among({4001}, {7}, true, {4001});
  EXPECT_EQ(o.count, 1);
  EXPECT_EQ(o.first, 4001u);
  // Beside one that may be us, the sure one is counted and named.
  o = others_among({4001, 6003}, {7}, true, {6003});
  EXPECT_EQ(o.count, 1);
  EXPECT_EQ(o.first, 6003u);
  o = others_among({4001, 6003, 8005}, {7}, true, {4001, 8005});
  EXPECT_EQ(o.count, 2);
  EXPECT_EQ(o.first, 4001u);
  // Where our pid is listed, a sure other changes nothing.
  o = others_among({4001, 7}, {7}, true, {4001});
  EXPECT_EQ(o.count, 1);
  EXPECT_EQ(o.first, 4001u);
  // None sure: as before, one busy process is ours, and which other is not known.
  o = others_among({4001, 6003}, {7}, true, {9});
  EXPECT_EQ(o.count, 1);
  EXPECT_EQ(o.first, 0u);
}

TEST(Processes, ViewsHaveNames) {
  EXPECT_STREQ(process_view_name(ProcessView::contexts), "contexts");
  EXPECT_STREQ(process_view_name(ProcessView::utilisation), "utilisation samples");
  EXPECT_STREQ(process_view_name(ProcessView::none), "none");
}

TEST(Processes, AMonitorWithoutTheGpuReportsNothing) {
  HealthMonitor none;  // no NVML device behind it
  EXPECT_FALSE(none.available());
  none.begin_case();
  none.sample();
  EXPECT_FALSE(none.current().other_processes);
  EXPECT_FALSE(none.current().clock_event_reasons);
  EXPECT_TRUE(none.others_now().empty());
  EXPECT_EQ(none.process_view(), ProcessView::none);
  EXPECT_FALSE(none.sees_processes());
}

}  // namespace
// A case's marks over its samples: a neighbour seen only early in the case
// marks it, however the later samples look; every clock reason counts.
TEST(CaseMarks, ANeighbourSeenOnlyEarlyMarksTheWholeCase) {
  CaseHealth h;
  EXPECT_FALSE(h.contended());
  h.add(Others{0, 0}, 0x0);
  EXPECT_FALSE(h.contended());
  EXPECT_EQ(h.other_processes, 0);
  h.add(Others{2, 4242}, 0x1);  // gpu_idle: no mark
  h.add(Others{1, 777}, std::nullopt);
  h.add(Others{0, 0}, kClockHwThermal);
  h.add(std::nullopt, 0x0);
  EXPECT_TRUE(h.contended());
  EXPECT_EQ(h.other_processes, 2);
  EXPECT_EQ(h.first_other_pid, 4242u);
  EXPECT_TRUE(h.clock_event());
  EXPECT_EQ(h.clock_event_reasons, 0x1u | kClockHwThermal);
  CaseHealth unknown;
  unknown.add(std::nullopt, std::nullopt);
  EXPECT_FALSE(unknown.other_processes.has_value());  // NVML could not tell: not "0 others"
  EXPECT_FALSE(unknown.clock_event_reasons.has_value());
}

// The monitor itself, fed by a probe that plays a GPU's answers sample by
// sample: what NVML would say, with no GPU.
namespace {

struct Answer {
  std::optional<std::vector<unsigned>> contexts;
  std::optional<nvml::BusyProcesses> busy;
  std::optional<std::uint64_t> reasons;
};

class FakeProbe final : public GpuProbe {
 public:
  // One answer per sample; the last repeats. The constructor's questions see the first.
  explicit FakeProbe(std::vector<Answer> answers) : answers_(std::move(answers)) {}
  std::optional<std::vector<unsigned>> contexts(std::string* why) override {
    if (!at().contexts && why) *why = "contexts: not supported";
    return at().contexts;
  }
  std::optional<nvml::BusyProcesses> busy(unsigned long long since, std::string* why,
                                          unsigned long long before) override {
    asked_since.push_back(since);
    asked_before.push_back(before);
    if (!at().busy && why) *why = "samples: not supported";
    return at().busy;
  }
  std::optional<std::uint64_t> clock_event_reasons() override {
    auto r = at().reasons;
    next_ = std::min(next_ + 1, answers_.size() - 1);  // one sample asks for the reasons last
    return r;
  }
  std::string process_name(unsigned pid) override { return "/bin/job" + std::to_string(pid); }
  unsigned long long now() override { return clock_us; }

  unsigned long long clock_us = 50'000'000;
  std::vector<unsigned long long> asked_since, asked_before;

 private:
  const Answer& at() const { return answers_[next_]; }
  std::vector<Answer> answers_;
  std::size_t next_ = 0;
};

nvml::BusyProcesses busy(std::vector<unsigned> pids, std::vector<unsigned> before = {}) {
  return {std::move(pids), std::move(before), 0};
}

}  // namespace

TEST(Monitor, ANeighbourInOnlyTheFirstSampleMarksTheCase) {
  auto probe = std::make_unique<FakeProbe>(std::vector<Answer>{
      {std::vector<unsigned>{7, 4001}, std::nullopt, 0x0},  // the constructor's question and begin_case
      {std::vector<unsigned>{7}, std::nullopt, 0x1},
      {std::vector<unsigned>{7}, std::nullopt, 0x0}});
  HealthMonitor m(std::move(probe), {7}, false, 0);
  ASSERT_TRUE(m.available());
  EXPECT_EQ(m.process_view(), ProcessView::contexts);
  m.begin_case();
  for (int k = 0; k < 5; ++k) m.sample();
  EXPECT_TRUE(m.current().contended());
  EXPECT_EQ(m.current().other_processes, 1);
  EXPECT_EQ(m.current().first_other_pid, 4001u);
  EXPECT_FALSE(m.current().clock_event());  // gpu_idle only
}

TEST(Monitor, EachCaseStartsClean) {
  auto probe = std::make_unique<FakeProbe>(
      std::vector<Answer>{{std::vector<unsigned>{7}, std::nullopt, 0x0},  // the constructor's question and begin_case
                          {std::vector<unsigned>{7, 4001}, std::nullopt, kClockSwThermal},
                          {std::vector<unsigned>{7}, std::nullopt, 0x0}});
  HealthMonitor m(std::move(probe), {7}, false, 0);
  m.begin_case();
  m.sample();
  EXPECT_TRUE(m.current().contended());
  EXPECT_TRUE(m.current().clock_event());
  m.begin_case();  // the neighbour left; the next case knows nothing of the last
  m.sample();
  EXPECT_FALSE(m.current().contended());
  EXPECT_EQ(m.current().other_processes, 0);
  EXPECT_FALSE(m.current().clock_event());
  EXPECT_FALSE(m.current().first_other_pid.has_value());
}

TEST(Monitor, AClockEventInTheLastSampleMarksTheCase) {
  auto probe =
      std::make_unique<FakeProbe>(std::vector<Answer>{{std::vector<unsigned>{7}, std::nullopt, 0x0},
                                                      {std::vector<unsigned>{7}, std::nullopt, 0x0},
                                                      {std::vector<unsigned>{7}, std::nullopt, 0x0},
                                                      {std::vector<unsigned>{7}, std::nullopt, kClockHwSlowdown}});
  HealthMonitor m(std::move(probe), {7}, false, 0);
  m.begin_case();
  m.sample();
  m.sample();
  EXPECT_FALSE(m.current().clock_event());
  m.sample();
  EXPECT_TRUE(m.current().clock_event());
  EXPECT_EQ(m.current().clock_event_reasons, kClockHwSlowdown);
  EXPECT_FALSE(m.current().contended());
}

TEST(Monitor, WithoutAProcessListItFallsBackToUtilisationSamples) {
  auto probe = std::make_unique<FakeProbe>(
      std::vector<Answer>{{std::nullopt, busy({}), 0x0},      // the constructor (no list, samples work) and begin_case
                          {std::nullopt, busy({4001}), 0x0},  // one busy, ours unseen: taken as ours
                          {std::nullopt, busy({4001, 6003}), 0x0},  // two busy, ours unseen: one other, which not known
                          {std::nullopt, busy({7, 4001}), 0x0}});   // ours seen: the rest are others
  FakeProbe* p = probe.get();
  HealthMonitor m(std::move(probe), {7}, false, 40'000'000);
  EXPECT_EQ(m.process_view(), ProcessView::utilisation);
  EXPECT_EQ(m.why(), "contexts: not supported");
  m.begin_case();
  EXPECT_EQ(m.current().other_processes, 0);
  m.sample();
  EXPECT_FALSE(m.current().contended());
  m.sample();
  EXPECT_EQ(m.current().other_processes, 1);
  EXPECT_EQ(m.current().first_other_pid, 0u);
  m.sample();
  EXPECT_EQ(m.current().other_processes, 1);
  // Samples that count for a case reach back one sampling period before it began;
  // "busy before" is asked against when this process began to use the GPU.
  EXPECT_EQ(p->asked_since.back(), 50'000'000ull - 1'000'000ull);
  EXPECT_EQ(p->asked_before.back(), 40'000'000ull);
}

TEST(Monitor, OnceOurPidIsSeenEveryOtherBusyProcessCounts) {
  auto probe = std::make_unique<FakeProbe>(
      std::vector<Answer>{{std::nullopt, busy({}), 0x0},
                          {std::nullopt, busy({7}), 0x0},       // ours seen
                          {std::nullopt, busy({4001}), 0x0}});  // ours idle in this window: 4001 is another
  HealthMonitor m(std::move(probe), {7}, false, 0);
  m.begin_case();
  m.sample();
  EXPECT_FALSE(m.current().contended());
  m.sample();
  EXPECT_TRUE(m.current().contended());
  EXPECT_EQ(m.current().first_other_pid, 4001u);
}

TEST(Monitor, ANeighbourBusyBeforeWeStartedStaysAnotherProcess) {
  auto probe = std::make_unique<FakeProbe>(std::vector<Answer>{
      {std::nullopt, busy({}), 0x0},
      {std::nullopt, busy({4001}, {4001}), 0x0}});  // busy before we began: not ours, though ours is unseen
  HealthMonitor m(std::move(probe), {7}, false, 0);
  m.begin_case();
  EXPECT_FALSE(m.current().contended());
  m.sample();
  EXPECT_TRUE(m.current().contended());
  EXPECT_EQ(m.current().first_other_pid, 4001u);
}

TEST(Monitor, TheFallbackCanBeAskedForWhereTheListWorks) {
  auto probe = std::make_unique<FakeProbe>(std::vector<Answer>{{std::vector<unsigned>{7, 4001}, busy({}), 0x0}});
  HealthMonitor m(std::move(probe), {7}, true, 0);
  EXPECT_EQ(m.process_view(), ProcessView::utilisation);
  m.begin_case();
  EXPECT_FALSE(m.current().contended());  // an idle context does not show in the samples
}

TEST(Monitor, NeitherViewLeavesProcessesUnknownWithBothReasons) {
  auto probe = std::make_unique<FakeProbe>(std::vector<Answer>{{std::nullopt, std::nullopt, kClockHwSlowdown}});
  HealthMonitor m(std::move(probe), {7}, false, 0);
  EXPECT_TRUE(m.available());
  EXPECT_FALSE(m.sees_processes());
  EXPECT_EQ(m.why(), "contexts: not supported; samples: not supported");
  m.begin_case();
  EXPECT_FALSE(m.current().other_processes.has_value());
  EXPECT_TRUE(m.current().clock_event());  // the clock is still watched
  EXPECT_TRUE(m.others_now().empty());
}

TEST(Monitor, OthersNowNamesEveryProcessButOurs) {
  auto probe =
      std::make_unique<FakeProbe>(std::vector<Answer>{{std::vector<unsigned>{4001, 7, 6003}, std::nullopt, 0x0}});
  HealthMonitor m(std::move(probe), {7}, false, 0);
  const auto others = m.others_now();
  ASSERT_EQ(others.size(), 2u);
  EXPECT_EQ(others[0], (std::pair<unsigned, std::string>{4001, "/bin/job4001"}));
  EXPECT_EQ(others[1].first, 6003u);
}

TEST(Monitor, WithoutAProbeItSaysWhy) {
  HealthMonitor m(nullptr, {7}, false, 0, "NVML: no such GPU");
  EXPECT_FALSE(m.available());
  EXPECT_EQ(m.why(), "NVML: no such GPU");
  m.begin_case();
  EXPECT_FALSE(m.current().clock_event_reasons.has_value());
}

}  // namespace membench::engine
