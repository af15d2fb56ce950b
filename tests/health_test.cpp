// The GPU-health rules that need no GPU: which clock event reasons mark a
// case, how they are named, which processes are this one, and what a case
// that saw another process or a clock event reports.
#include <gtest/gtest.h>

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

TEST(ClockEvents, PowerThermalAndHardwareSlowdownsMarkACase) {
  // nvml.h: SwPowerCap 0x4, HwSlowdown 0x8, SwThermalSlowdown 0x20, HwThermalSlowdown 0x40, HwPowerBrakeSlowdown 0x80.
  for (std::uint64_t bit : {0x4ull, 0x8ull, 0x20ull, 0x40ull, 0x80ull}) {
    CaseHealth h;
    h.clock_event_reasons = bit | 0x1;
    EXPECT_TRUE(h.clock_event()) << std::hex << bit;
  }
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

}  // namespace membench::engine
