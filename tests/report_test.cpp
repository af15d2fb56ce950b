// One Google Benchmark iteration is one launch: the adapter's reporting
// against Google Benchmark itself (whichever version is linked), no GPU.
#include <benchmark/benchmark.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gbench/adapter.hpp"

namespace membench::gbench {
namespace {

class Collect : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override { runs_.insert(runs_.end(), runs.begin(), runs.end()); }
  std::vector<Run> runs_;
};

// Runs one registered case through Google Benchmark with these flags.
std::vector<benchmark::BenchmarkReporter::Run> run(const std::string& name, std::vector<std::string> flags) {
  flags.insert(flags.begin(), "report_test");
  flags.push_back("--benchmark_filter=^" + name + "$");
  std::vector<char*> argv;
  for (auto& f : flags) argv.push_back(f.data());
  int argc = static_cast<int>(argv.size());
  benchmark::Initialize(&argc, argv.data());
  Collect reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::ClearRegisteredBenchmarks();
  return reporter.runs_;
}

TEST(ReportLaunches, OneIterationIsOneLaunch) {
  // 37 launches in 3.7 ms: 100 us each, however Google Benchmark sized its call.
  benchmark::RegisterBenchmark("launches37", [](benchmark::State& state) { report_launches(state, 37, 3.7e-3); })
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
  const auto runs = run("launches37/manual_time", {"--benchmark_min_time=0.000001" +
                                                   std::string(kVersion >= 10800 ? "s" : "")});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].iterations, 37);
  EXPECT_NEAR(runs[0].GetAdjustedRealTime(), 100.0, 1e-6);  // microseconds per launch
}

TEST(ReportLaunches, FewerLaunchesThanAskedKeepThePerLaunchTime) {
  // Google Benchmark asked for more iterations than were left (throttled
  // batches dropped): the count is its, the time per iteration stays right.
  benchmark::RegisterBenchmark("fewer", [](benchmark::State& state) {
    report_launches(state, 5, 5 * 20e-6);
  })->UseManualTime()->Unit(benchmark::kMicrosecond);
  const auto runs = run("fewer/manual_time", {"--benchmark_min_time=0.01" +
                                              std::string(kVersion >= 10800 ? "s" : "")});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_GT(runs[0].iterations, 5);  // Google Benchmark ramped up toward 10 ms
  EXPECT_NEAR(runs[0].GetAdjustedRealTime(), 20.0, 1e-6);
}

}  // namespace
}  // namespace membench::gbench
