// One Google Benchmark iteration is one launch: the adapter's reporting
// against Google Benchmark itself (whichever version is linked), no GPU.
#include <benchmark/benchmark.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "cases/counters.hpp"
#include "gbench/adapter.hpp"
#include "gbench/result_reporter.hpp"

namespace membench::gbench {
namespace {

class Collect : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override { runs_.insert(runs_.end(), runs.begin(), runs.end()); }
  std::vector<Run> runs_;
};

// Hands Google Benchmark these flags (argv[0] added).
void initialize(std::vector<std::string> flags) {
  flags.insert(flags.begin(), "report_test");
  std::vector<char*> argv;
  for (auto& f : flags) argv.push_back(f.data());
  int argc = static_cast<int>(argv.size());
  benchmark::Initialize(&argc, argv.data());
}

// Runs one registered case through Google Benchmark with these flags.
std::vector<benchmark::BenchmarkReporter::Run> run(const std::string& name, std::vector<std::string> flags) {
  flags.push_back("--benchmark_filter=^" + name + "$");
  initialize(flags);
  Collect reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::ClearRegisteredBenchmarks();
  return reporter.runs_;
}

// Runs the registered cases `filter` selects, `repetitions` each, writing the result file at `path`.
void write_result_file(const std::string& filter, const std::string& path, int repetitions, ResultFileSpec spec) {
  initialize({"--benchmark_filter=" + filter, "--benchmark_out=" + path,
              "--benchmark_repetitions=" + std::to_string(repetitions),
              "--benchmark_min_time=0.000001" + std::string(kVersion >= 10800 ? "s" : "")});
  {
    Collect display;
    ResultReporter file(std::move(spec));
    benchmark::RunSpecifiedBenchmarks(&display, &file);
  }
  benchmark::ClearRegisteredBenchmarks();
}

TEST(ReportLaunches, OneIterationIsOneLaunch) {
  // 37 launches in 3.7 ms: 100 us each, however Google Benchmark sized its call.
  benchmark::RegisterBenchmark("launches37",
                               [](benchmark::State& state) { report_launches(state, "launches37", 37, 3.7e-3); })
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
  const auto runs =
      run("launches37/manual_time", {"--benchmark_min_time=0.000001" + std::string(kVersion >= 10800 ? "s" : "")});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].iterations, 37);
  EXPECT_NEAR(runs[0].GetAdjustedRealTime(), 100.0, 1e-6);  // microseconds per launch
}

TEST(ReportLaunches, FewerLaunchesThanAskedKeepThePerLaunchTime) {
  // Google Benchmark asked for more iterations than were left (throttled
  // batches dropped): the count is its, the time per iteration stays right.
  benchmark::RegisterBenchmark("fewer", [](benchmark::State& state) { report_launches(state, "fewer", 5, 5 * 20e-6); })
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
  const auto runs = run("fewer/manual_time", {"--benchmark_min_time=0.01" + std::string(kVersion >= 10800 ? "s" : "")});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_GT(runs[0].iterations, 5);  // Google Benchmark ramped up toward 10 ms
  EXPECT_NEAR(runs[0].GetAdjustedRealTime(), 20.0, 1e-6);
}

TEST(ReportLaunches, AFirstRepetitionsCountIsKeptThenEveryLaterOneReportsIt) {
  EXPECT_EQ(iterations_to_report(0, 1, 500), 500);    // the first call: what was measured
  EXPECT_EQ(iterations_to_report(0, 800, 500), 800);  // asked for more than measured: the time is scaled
  EXPECT_EQ(iterations_to_report(500, 1, 300), 500);  // a later repetition, whatever it measured
  EXPECT_EQ(iterations_to_report(500, 500, 900), 500);
  EXPECT_EQ(iterations_to_report(500, 501, 300), 501);  // a longer try of the first repetition
}

// Repetitions that measured different launch counts: Google Benchmark needs
// one count (its debug build aborts otherwise), and its aggregates must be
// the statistics of the repetitions' per-launch times.
TEST(ReportLaunches, RepetitionsOfDifferentLaunchCountsAggregateTheirPerLaunchTimes) {
  static int call = 0;
  call = 0;
  benchmark::RegisterBenchmark("reps",
                               [](benchmark::State& state) {
                                 const std::int64_t launches[] = {100, 200, 300};
                                 const double per_launch[] = {1e-6, 2e-6, 4e-6};
                                 const int k = call++ % 3;
                                 report_launches(state, "reps", launches[k],
                                                 static_cast<double>(launches[k]) * per_launch[k]);
                               })
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
  const auto runs =
      run("reps/manual_time",
          {"--benchmark_repetitions=3", "--benchmark_min_time=0.000001" + std::string(kVersion >= 10800 ? "s" : "")});
  std::vector<double> times;
  std::map<std::string, double> aggregate;
  for (const auto& r : runs) {
    if (r.run_type == benchmark::BenchmarkReporter::Run::RT_Iteration) {
      EXPECT_EQ(r.iterations, 100) << "every repetition reports the first one's count";
      times.push_back(r.GetAdjustedRealTime());
      EXPECT_EQ(r.counters.at("launches").value, 100.0 * static_cast<double>(times.size()));
    } else {
      aggregate[r.aggregate_name] = r.GetAdjustedRealTime();
    }
  }
  ASSERT_EQ(times.size(), 3u);
  EXPECT_NEAR(times[0], 1.0, 1e-9);
  EXPECT_NEAR(times[1], 2.0, 1e-9);
  EXPECT_NEAR(times[2], 4.0, 1e-9);
  EXPECT_NEAR(aggregate.at("mean"), 7.0 / 3.0, 1e-9);
  EXPECT_NEAR(aggregate.at("median"), 2.0, 1e-9);
  EXPECT_NEAR(aggregate.at("stddev"),
              std::sqrt((std::pow(1 - 7.0 / 3, 2) + std::pow(2 - 7.0 / 3, 2) + std::pow(4 - 7.0 / 3, 2)) / 2), 1e-9);
}

// The result file: Google Benchmark's JSON, valid after every case, closed
// by the catalog of what each number means and how the run ended.
TEST(ResultFile, IsWholeJsonAfterEveryCaseAndEndsWithTheCatalog) {
  const std::string path = testing::TempDir() + "result_file_test.json";
  static std::string seen_mid_run;
  seen_mid_run.clear();
  benchmark::RegisterBenchmark("first",
                               [](benchmark::State& state) {
                                 state.counters["bytes_per_second"] = 1e9;
                                 report_launches(state, "first", 10, 10e-6);
                               })
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("second",
                               [path](benchmark::State& state) {
                                 std::ifstream in(path);
                                 seen_mid_run.assign(std::istreambuf_iterator<char>(in),
                                                     std::istreambuf_iterator<char>());
                                 state.counters["not_a_declared_counter"] = 1;
                                 report_launches(state, "second", 10, 10e-6);
                               })
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
  write_result_file("^(first|second)/", path, 1, ResultFileSpec{{}, [] {
                                                                  return nlohmann::ordered_json{{"cases_not_run", 0}};
                                                                }});

  const auto mid = nlohmann::json::parse(seen_mid_run, nullptr, false);
  ASSERT_FALSE(mid.is_discarded()) << seen_mid_run;
  EXPECT_FALSE(mid.at("membench").at("complete").get<bool>());
  ASSERT_EQ(mid.at("benchmarks").size(), 1u) << seen_mid_run;
  EXPECT_EQ(mid["benchmarks"][0].at("name"), "first/manual_time");

  std::ifstream in(path);
  const auto doc = nlohmann::json::parse(in, nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  EXPECT_EQ(doc.at("benchmarks").size(), 2u);
  const auto& mb = doc.at("membench");
  EXPECT_EQ(mb.at("schema_version"), kSchemaVersion);
  EXPECT_TRUE(mb.at("complete").get<bool>());
  EXPECT_EQ(mb.at("end").at("cases_not_run"), 0);
  const auto& counters = mb.at("counters");
  EXPECT_EQ(counters.at("bytes_per_second").at("better"), "higher");
  EXPECT_EQ(counters.at("bytes_per_second").at("unit"), "B/s");
  EXPECT_EQ(counters.at("real_time").at("better"), "lower");
  EXPECT_EQ(counters.at("launches").at("kind"), "configuration");
  EXPECT_EQ(counters.at("not_a_declared_counter").at("kind"), "undeclared");
  std::remove(path.c_str());
}

// Every counter the runner can set is declared, with a direction where it
// is a measurement; latencies are lower-is-better.
TEST(ResultFile, TheCatalogSaysWhichWayIsBetter) {
  for (const char* name : {"latency_ns", "latency_cycles", "real_time", "noise_pct", "contended"})
    EXPECT_EQ(counter_entry(name).at("better"), "lower") << name;
  for (const char* name : {"bytes_per_second", "updates_per_second", "gflops_per_second", "device3_bytes_per_second"})
    EXPECT_EQ(counter_entry(name).at("better"), "higher") << name;
  for (const char* name : {"model_bytes_per_second", "sectors_per_request", "grid", "cpu_time"})
    EXPECT_EQ(counter_entry(name).at("better"), "neither") << name;
  EXPECT_EQ(counter_entry("device_bytes_per_second").at("kind"), "undeclared");
  EXPECT_EQ(counter_entry("deviceX_bytes_per_second").at("kind"), "undeclared");
  EXPECT_EQ(counter_entry("device12_bytes_per_second").at("kind"), "measured");
  EXPECT_EQ(counter_entry("model_bytes_per_second").at("kind"), "model");
  EXPECT_EQ(counter_entry("updates_per_second").at("kind"), "measured");
}

// A case's result is the first headline it reports: its bandwidth, its
// latency, its update rate, each with the model in its unit where there is
// one; nothing else is a headline.
TEST(ResultFile, TheCatalogRanksTheHeadlinesAndNamesTheirModels) {
  EXPECT_EQ(counter_entry("bytes_per_second").at("headline"), 1);
  EXPECT_EQ(counter_entry("bytes_per_second").at("model"), "model_bytes_per_second");
  EXPECT_EQ(counter_entry("latency_ns").at("headline"), 2);
  EXPECT_FALSE(counter_entry("latency_ns").contains("model"));
  EXPECT_EQ(counter_entry("updates_per_second").at("headline"), 3);
  EXPECT_EQ(counter_entry("updates_per_second").at("model"), "model_updates_per_second");
  EXPECT_EQ(counter_entry("ops_per_second").at("headline"), 4);
  EXPECT_EQ(counter_entry("ops_per_second").at("model"), "model_ops_per_second");
  for (const char* name : {"pct_of_peak", "gflops_per_second", "model_bytes_per_second", "noise_pct", "real_time"})
    EXPECT_FALSE(counter_entry(name).contains("headline")) << name;
  for (const cases::Headline& h : cases::headlines()) {
    EXPECT_TRUE(cases::counter_meaning(h.counter).has_value()) << h.counter;
    if (!h.model.empty()) {
      EXPECT_EQ(cases::counter_meaning(h.model)->unit, cases::counter_meaning(h.counter)->unit) << h.model;
    }
  }
}

// A model counter names the Nsight Compute counter it predicts, so that
// ncu_check.py checks a new family's model from the file; a measurement
// names none.
TEST(ResultFile, AModelCounterNamesTheNcuCounterItPredicts) {
  const auto sectors = counter_entry("sectors_per_request").at("ncu");
  EXPECT_EQ(sectors.at("pass"), "counters");
  EXPECT_EQ(sectors.at("metrics"), nlohmann::ordered_json({"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"}));
  EXPECT_EQ(sectors.at("per"), nlohmann::ordered_json({"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"}));
  EXPECT_EQ(sectors.at("judged"), "always");
  const auto l2 = counter_entry("l2_read_bytes").at("ncu");
  EXPECT_EQ(l2.at("scale"), 32.0);
  EXPECT_EQ(l2.at("judged"), "beyond_l1");
  EXPECT_EQ(counter_entry("dram_write_bytes").at("ncu").at("pass"), "dram");
  EXPECT_EQ(counter_entry("model_l2_requests").at("ncu").at("metrics").size(), 2u);
  for (const char* name : {"bytes_per_second", "latency_ns", "dram_efficiency", "not_a_declared_counter"})
    EXPECT_FALSE(counter_entry(name).contains("ncu")) << name;
  // Every declared measure names a pass the script runs and a rule it knows.
  for (const char* name : {"sectors_per_request", "wavefronts_per_request", "conflict_ways", "dram_read_bytes",
                           "l2_read_bytes", "model_shared_wavefronts", "model_dram_read_bytes"}) {
    const auto ncu = counter_entry(name).at("ncu");
    EXPECT_TRUE(ncu.at("pass") == "counters" || ncu.at("pass") == "dram") << name;
    EXPECT_FALSE(ncu.at("metrics").empty()) << name;
  }
}

// Google Benchmark's cv of a counter whose mean is 0 is NaN, which is not
// JSON: the file leaves such a statistic out and stays readable by a strict
// parser.
TEST(ResultFile, StatisticsThatDoNotExistAreLeftOutSoTheFileIsJson) {
  const std::string path = testing::TempDir() + "result_file_nan_test.json";
  benchmark::RegisterBenchmark("zeros",
                               [](benchmark::State& state) {
                                 state.counters["contended"] = 0;
                                 report_launches(state, "zeros", 10, 10e-6);
                               })
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
  write_result_file("^zeros/", path, 3, ResultFileSpec{});
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.find("NaN"), std::string::npos);
  const auto doc = nlohmann::json::parse(text, nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  int cv = 0;
  for (const auto& entry : doc.at("benchmarks")) {
    if (entry.value("aggregate_name", "") == "cv") {
      ++cv;
      EXPECT_FALSE(entry.contains("contended"));
    } else {
      EXPECT_EQ(entry.at("contended"), 0);
    }
  }
  EXPECT_EQ(cv, 1);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace membench::gbench

namespace membench::gbench {
namespace {

// A case as the run would hold it: its identity, resolved from a reference.
cases::CaseSpec spec_of(const std::string& family, const cases::CaseRef& ref) {
  for (const cases::FamilySpec& f : cases::registered_families())
    if (f.name == family) return {cases::resolve(f, ref), {}, {}, 0, false, {}};
  throw std::logic_error("no family " + family);
}

// The roofs are the best of their counters over the cases they name, and a
// ridge is each compute roof over each memory roof of the same GPU; the
// study's datasheet roofs stand beside the measured ones.
TEST(ResultFile, TheRoofsAreTheBestOfTheirCasesAndTheRidgesTheirRatios) {
  const cases::CaseSpec fp32_slow = spec_of("compute", cases::at("fp32", {{"chains", 1}, {"occupancy", 1}}));
  const cases::CaseSpec fp32_fast = spec_of("compute", cases::at("fp32", {{"chains", 8}, {"occupancy", 8}}));
  const cases::CaseSpec dram = spec_of("roofline", cases::at("dram", {{"fmas", 0}}));
  const cases::CaseSpec dram_busy = spec_of("roofline", cases::at("dram", {{"fmas", 64}}));
  Roofs roofs;
  roofs.note(fp32_fast, {{"ops_per_second", 60e12}});
  roofs.note(fp32_slow, {{"ops_per_second", 20e12}});  // later, and slower: not the roof
  roofs.note(dram, {{"bytes_per_second", 3e12}});
  roofs.note(dram_busy, {{"bytes_per_second", 5e12}});  // not the roof: fmas 64 is not the case it names
  roofs.note(dram, {});                                 // a failed run reports nothing
  const std::vector<const cases::CaseSpec*> selected = {&fp32_slow, &fp32_fast, &dram, &dram_busy};
  const nlohmann::ordered_json all = roofs.roofs(selected);
  std::map<std::string, nlohmann::ordered_json> measured;
  int datasheet = 0;
  for (const auto& r : all) {
    if (r.at("gpu") == "")
      measured[r.at("name").get<std::string>()] = r;
    else
      ++datasheet;
  }
  ASSERT_EQ(measured.size(), 2u);  // the roofs no run reached are left out
  EXPECT_EQ(measured.at("fp32 FMA").at("value"), 60e12);
  EXPECT_EQ(measured.at("fp32 FMA").at("case"), fp32_fast.id.name());
  EXPECT_EQ(measured.at("fp32 FMA").at("unit"), "op/s");
  EXPECT_EQ(measured.at("DRAM").at("value"), 3e12);
  EXPECT_EQ(datasheet, 2);
  bool ours = false, study = false;
  for (const auto& r : roofs.ridges(selected)) {
    if (r.at("gpu") == "" && r.at("compute") == "fp32 FMA" && r.at("memory") == "DRAM") {
      EXPECT_DOUBLE_EQ(r.at("ops_per_byte").get<double>(), 20.0);
      ours = true;
    }
    if (r.at("gpu") != "") {
      EXPECT_NEAR(r.at("ops_per_byte").get<double>(), 81.9, 0.05);  // the study's RTX 4090
      study = true;
    }
  }
  EXPECT_TRUE(ours);
  EXPECT_TRUE(study);
  // A run of neither family has no roofs.
  const cases::CaseSpec other = spec_of("local", cases::at("dynamic", {{"array", 8}}));
  EXPECT_TRUE(roofs.roofs({&other}).empty());
}

// A level two families measure is one roof, the higher: the hierarchy's
// L1 reads beside the roofline sweep's, the stream's DRAM read beside it.
TEST(ResultFile, ALevelTwoFamiliesMeasureIsOneRoofTheHigher) {
  const cases::CaseSpec sweep_l1 = spec_of("roofline", cases::at("l1", {{"fmas", 0}}));
  const cases::CaseSpec hierarchy_l1 = spec_of("hierarchy", cases::at("bandwidth", {{"working_set", 65536}}));
  const cases::CaseSpec sweep_dram = spec_of("roofline", cases::at("dram", {{"fmas", 0}}));
  const cases::CaseSpec stream_read = spec_of("stream", cases::at("read", {{"type", "float"}}));
  Roofs roofs;
  // Each level's higher value from the family listed second (families go by name), so keeping the first is wrong.
  roofs.note(sweep_l1, {{"bytes_per_second", 32e12}});
  roofs.note(hierarchy_l1, {{"bytes_per_second", 16e12}});
  roofs.note(sweep_dram, {{"bytes_per_second", 3.10e12}});
  roofs.note(stream_read, {{"bytes_per_second", 3.13e12}});
  std::map<std::string, std::vector<nlohmann::ordered_json>> by_name;
  for (const auto& r : roofs.roofs({&sweep_l1, &hierarchy_l1, &sweep_dram, &stream_read}))
    if (r.at("gpu") == "") by_name[r.at("name").get<std::string>()].push_back(r);
  ASSERT_EQ(by_name.at("L1").size(), 1u);
  EXPECT_EQ(by_name.at("L1")[0].at("value"), 32e12);
  EXPECT_EQ(by_name.at("L1")[0].at("case"), sweep_l1.id.name());
  EXPECT_EQ(by_name.at("L1")[0].at("family"), "roofline");
  ASSERT_EQ(by_name.at("DRAM").size(), 1u);
  EXPECT_EQ(by_name.at("DRAM")[0].at("value"), 3.13e12);
  EXPECT_EQ(by_name.at("DRAM")[0].at("case"), stream_read.id.name());
  EXPECT_EQ(by_name.at("DRAM")[0].at("family"), "stream");
}

}  // namespace
}  // namespace membench::gbench
