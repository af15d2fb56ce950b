// --resume's reading of an earlier run, on made-up files: which cases are
// carried, with which numbers, and which files are refused and why.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "gbench/result_schema.hpp"
#include "gbench/resume.hpp"

namespace membench::gbench {
namespace {

RunIdentity here() { return {{"GPU-aaaa"}, "580.159.04", "13.0", "0.1.0", "00ff00ff00ff00ff"}; }

nlohmann::json context() {
  return {{"gpu_uuid", "GPU-aaaa"},
          {"driver_version", "580.159.04"},
          {"cuda_driver_version", "13.0"},
          {"membench_version", "0.1.0"},
          {"membench_build", "00ff00ff00ff00ff"}};
}

nlohmann::json measured(const std::string& name, double real_time, int repetitions = 1, int index = 0) {
  return {{"name", name},
          {"run_name", name},
          {"run_type", "iteration"},
          {"repetitions", repetitions},
          {"repetition_index", index},
          {"threads", 1},
          {"iterations", 4000},
          {"real_time", real_time},
          {"cpu_time", 1.5},
          {"time_unit", "us"},
          {"bytes", 134217728.0},
          {"bytes_per_second", 3.9e12},
          {"noise_pct", 0.21},
          {"family_index", 3},
          {"per_family_instance_index", 0}};
}

std::string file(const nlohmann::json& ctx, const nlohmann::json& benchmarks) {
  return nlohmann::json{{"context", ctx}, {"benchmarks", benchmarks}}.dump();
}

std::string refusal(const std::string& text, const RunIdentity& id = here()) {
  try {
    read_carried("old.json", text, id, 1);
  } catch (const ResumeError& e) { return e.what(); }
  return "";
}

TEST(Resume, CarriesCompleteCasesWithEveryCounter) {
  nlohmann::json skipped = measured("b/x/manual_time", 1);
  skipped["skipped"] = true;
  skipped["skip_message"] = "interrupted by SIGTERM";
  nlohmann::json failed = measured("c/x/manual_time", 1);
  failed["error_occurred"] = true;
  failed["error_message"] = "skipped: interrupted by SIGTERM";  // how Google Benchmark 1.7 writes a skip
  nlohmann::json aggregate = measured("a/x/manual_time_mean", 9);
  aggregate["run_name"] = "a/x/manual_time";
  aggregate["run_type"] = "aggregate";
  aggregate["aggregate_name"] = "mean";
  const Carried c = read_carried(
      "old.json", file(context(), {measured("a/x/manual_time", 34.25), skipped, failed, aggregate}), here(), 1);
  ASSERT_EQ(c.cases.size(), 1u);
  EXPECT_EQ(c.incomplete, 2u);  // the skipped and the failed case run again
  const auto& runs = c.cases.at("a/x/manual_time");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].iterations, 4000);
  EXPECT_EQ(runs[0].real_time, 34.25);
  EXPECT_EQ(runs[0].time_unit, "us");
  // The user counters, in the file's order; none of Google Benchmark's own fields.
  const std::vector<std::pair<std::string, double>> counters = {
      {"bytes", 134217728.0}, {"bytes_per_second", 3.9e12}, {"noise_pct", 0.21}};
  EXPECT_EQ(runs[0].counters, counters);
}

TEST(Resume, ACaseNeedsEveryRepetitionOfThisRun) {
  const std::string text = file(context(), {measured("a/manual_time", 1, 3, 0), measured("a/manual_time", 2, 3, 1),
                                            measured("b/manual_time", 1, 3, 0), measured("b/manual_time", 2, 3, 1),
                                            measured("b/manual_time", 3, 3, 2)});
  const Carried three = read_carried("old.json", text, here(), 3);
  EXPECT_EQ(three.cases.count("a/manual_time"), 0u);  // cut off after two of three
  ASSERT_EQ(three.cases.count("b/manual_time"), 1u);
  EXPECT_EQ(three.cases.at("b/manual_time")[2].real_time, 3);
  EXPECT_EQ(three.incomplete, 1u);
  EXPECT_TRUE(read_carried("old.json", text, here(), 1).cases.empty());  // a run of one repetition re-measures
}

TEST(Resume, RefusesAnotherGpuDriverVersionOrBuild) {
  const nlohmann::json one = nlohmann::json::array({measured("a/manual_time", 1)});
  auto with = [&](const char* key, const char* value) {
    nlohmann::json ctx = context();
    ctx[key] = value;
    return file(ctx, one);
  };
  EXPECT_EQ(refusal(with("gpu_uuid", "GPU-bbbb")),
            "--resume=old.json: written with GPU GPU-bbbb, this run has GPU-aaaa; measure afresh");
  EXPECT_EQ(refusal(with("driver_version", "570.1")),
            "--resume=old.json: written with driver 570.1, this run has 580.159.04; measure afresh");
  EXPECT_EQ(refusal(with("membench_version", "0.0.9")),
            "--resume=old.json: written with membench 0.0.9, this run has 0.1.0; measure afresh");
  EXPECT_EQ(refusal(with("membench_build", "1234")),
            "--resume=old.json: written with build 1234, this run has 00ff00ff00ff00ff; measure afresh");
  nlohmann::json old = context();
  old.erase("membench_build");  // written before builds were recorded
  EXPECT_EQ(refusal(file(old, one)),
            "--resume=old.json: written with build (not recorded), this run has 00ff00ff00ff00ff; measure afresh");
  // Without NVML's driver version, the CUDA driver version decides.
  RunIdentity no_nvml = here();
  no_nvml.driver_version.clear();
  EXPECT_EQ(refusal(with("driver_version", "570.1"), no_nvml), "");
  EXPECT_EQ(refusal(with("cuda_driver_version", "12.8"), no_nvml),
            "--resume=old.json: written with CUDA driver 12.8, this run has 13.0; measure afresh");
}

TEST(Resume, SeveralDevicesMustBeTheSameInTheSameOrder) {
  nlohmann::json ctx = context();
  ctx["devices"] = R"([{"ordinal":0,"uuid":"GPU-aaaa"},{"ordinal":1,"uuid":"GPU-cccc"}])";
  RunIdentity two = here();
  two.gpu_uuids = {"GPU-aaaa", "GPU-cccc"};
  const nlohmann::json one = nlohmann::json::array({measured("a/manual_time", 1)});
  EXPECT_EQ(refusal(file(ctx, one), two), "");
  two.gpu_uuids = {"GPU-cccc", "GPU-aaaa"};
  EXPECT_EQ(refusal(file(ctx, one), two),
            "--resume=old.json: written with GPU GPU-aaaa,GPU-cccc, this run has GPU-cccc,GPU-aaaa; measure afresh");
}

TEST(Resume, RefusesWhatIsNotMembenchsJson) {
  EXPECT_EQ(refusal("{\"context\": {}, \"benchmarks\": [{\"na"),
            "--resume=old.json: not valid JSON, and not a membench file cut off inside a case");
  EXPECT_EQ(refusal("garbage"), "--resume=old.json: not valid JSON, and not a membench file cut off inside a case");
  EXPECT_EQ(refusal(R"({"context": {"executable": "BM_memcpy"}, "benchmarks": []})"),
            "--resume=old.json: not a membench result (its context has no membench_version)");
  EXPECT_EQ(refusal("[1, 2]"), "--resume=old.json: not membench's JSON (no 'context' and 'benchmarks')");
  EXPECT_EQ(refusal(file(context(), nlohmann::json::array({{{"real_time", 1}}}))),
            "--resume=old.json: a benchmark entry without a name");
}

// Each of Google Benchmark's own fields with a value of another type is
// refused by name (it used to escape as an exception that ended the process).
// A counter that is not a number is refused by name, not dropped: the
// resumed case would otherwise lack it without a word.
TEST(Resume, ACounterThatIsNotANumberIsRefusedByName) {
  for (const nlohmann::json& value : {nlohmann::json("4e12"), nlohmann::json::array({1}), nlohmann::json(nullptr)}) {
    nlohmann::json entry = measured("a/manual_time", 1);
    entry["bytes_per_second"] = value;
    EXPECT_EQ(refusal(file(context(), nlohmann::json::array({entry}))),
              "--resume=old.json: entry a/manual_time: counter \"bytes_per_second\" is " + value.dump() +
                  ", expected a number");
  }
}

TEST(Resume, AFieldOfTheWrongTypeIsRefusedByName) {
  const std::vector<std::pair<std::string, nlohmann::json>> wrong = {
      {"error_occurred", "yes"}, {"skipped", "yes"},     {"run_type", 5},       {"run_name", 5},
      {"iterations", 1.5},       {"iterations", "4000"}, {"real_time", "1.0"},  {"time_unit", 6},
      {"label", false},          {"repetitions", "1"},   {"cpu_time", nullptr}, {"error_message", 1}};
  for (const auto& [key, value] : wrong) {
    nlohmann::json entry = measured("a/manual_time", 1);
    entry[key] = value;
    const std::string why = refusal(file(context(), nlohmann::json::array({entry})));
    EXPECT_EQ(
        why.rfind("--resume=old.json: entry a/manual_time: \"" + key + "\" is " + value.dump() + ", expected ", 0), 0u)
        << key << ": " << why;
  }
  nlohmann::json nameless_twice = measured("a/manual_time", 1);
  nameless_twice["run_type"] = nlohmann::json::array();
  EXPECT_NE(refusal(file(context(), nlohmann::json::array({measured("b/manual_time", 1), nameless_twice})))
                .find("entry a/manual_time: \"run_type\" is [], expected a string"),
            std::string::npos);
  for (const char* key : {"membench_version", "membench_build", "driver_version", "gpu_uuid", "devices"}) {
    nlohmann::json ctx = context();
    ctx[key] = 5;
    EXPECT_EQ(refusal(file(ctx, nlohmann::json::array())),
              std::string("--resume=old.json: its context's ") + key + " is not a string")
        << key;
  }
}

// A file cut off while a case was written (the process killed mid-write):
// every whole case before the cut is carried, the cut one measured again.
TEST(Resume, AFileCutInsideACaseCarriesTheCasesBeforeIt) {
  // Google Benchmark's layout: each entry ends in "\n    }".
  std::string a = measured("a/manual_time", 1).dump();
  a.pop_back();
  const std::string text = "{\n  \"context\": " + context().dump() + ",\n  \"benchmarks\": [\n    " + a +
                           "\n    },\n    {\n      \"name\": \"b/manual_time\",\n      \"run_na";
  const ResumeFile cut = read_resume("old.json", text, 1);
  EXPECT_TRUE(cut.cut);
  EXPECT_EQ(cut.carried.cases.count("a/manual_time"), 1u);
  EXPECT_EQ(cut.carried.cases.count("b/manual_time"), 0u);
}

// A repetition in a time unit nothing can replay exactly is measured again, not carried with a wrong time.
TEST(Resume, AnUnknownTimeUnitIsMeasuredAgain) {
  nlohmann::json odd = measured("a/manual_time", 1);
  odd["time_unit"] = "fortnight";
  const ResumeFile f =
      read_resume("old.json", file(context(), nlohmann::json::array({odd, measured("b/manual_time", 2)})), 1);
  EXPECT_EQ(f.carried.cases.count("a/manual_time"), 0u);
  EXPECT_EQ(f.carried.cases.count("b/manual_time"), 1u);
  EXPECT_EQ(f.carried.incomplete, 1u);
}

// A carried repetition is replayed in the unit Google Benchmark reports (us
// here), whatever unit its file wrote, with every counter and resumed = 1.
TEST(Resume, AReplayConvertsEachTimeUnitAndMarksTheCaseResumed) {
  const std::map<std::string, double> per_launch_us = {{"ns", 1.5e-3}, {"us", 1.5}, {"ms", 1500.0}, {"s", 1.5e6}};
  for (const auto& [unit, us] : per_launch_us) {
    CarriedRun run;
    run.iterations = 10, run.real_time = 1.5, run.time_unit = unit;
    run.counters = {{"bytes_per_second", 3.9e12}, {"noise_pct", 0.2}};
    const Replay r = replay_of(run, 1e6);
    EXPECT_DOUBLE_EQ(r.real_time, us) << unit;
    ASSERT_EQ(r.counters.size(), 3u) << unit;
    EXPECT_EQ(r.counters[0], (std::pair<std::string, double>{"bytes_per_second", 3.9e12}));
    EXPECT_EQ(r.counters[1], (std::pair<std::string, double>{"noise_pct", 0.2}));
    EXPECT_EQ(r.counters[2], (std::pair<std::string, double>{"resumed", 1.0}));
  }
  CarriedRun twice;  // resumed once before: still one mark, of 1
  twice.real_time = 2, twice.time_unit = "ns", twice.counters = {{"resumed", 1.0}, {"bytes", 8.0}};
  const Replay r = replay_of(twice, 1e9);
  EXPECT_DOUBLE_EQ(r.real_time, 2.0);  // already in the reported unit
  EXPECT_EQ(r.counters, (std::vector<std::pair<std::string, double>>{{"bytes", 8.0}, {"resumed", 1.0}}));
  twice.time_unit = "fortnight";
  EXPECT_THROW(replay_of(twice, 1e6), ResumeError);
}

// An entry of no iterations has no time to replay: its case is measured again.
TEST(Resume, AnEntryOfZeroIterationsIsMeasuredAgain) {
  nlohmann::json none = measured("a/manual_time", 1);
  none["iterations"] = 0;
  nlohmann::json one = measured("b/manual_time", 2);
  one["iterations"] = 1;
  const ResumeFile f = read_resume("old.json", file(context(), nlohmann::json::array({none, one})), 1);
  EXPECT_EQ(f.carried.cases.count("a/manual_time"), 0u);
  ASSERT_EQ(f.carried.cases.count("b/manual_time"), 1u);
  EXPECT_EQ(f.carried.cases.at("b/manual_time").front().iterations, 1);
  EXPECT_EQ(f.carried.incomplete, 1u);
}

TEST(Resume, ManualTimeReproducesTheReportedTimeExactly) {
  // Google Benchmark reported seconds * 1e6 / iterations from some total
  // time; the replay must give back that number bit for bit (the naive
  // real_time * iterations / 1e6 misses it about one time in ten).
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> total(1e-6, 2.0);
  std::uniform_int_distribution<std::int64_t> iterations(1, 20000000);
  int naive_misses = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::int64_t n = iterations(rng);
    const double reported = total(rng) * 1e6 / static_cast<double>(n);
    const double seconds = manual_seconds_for(reported, 1e6, n);
    ASSERT_EQ(seconds * 1e6 / static_cast<double>(n), reported) << reported << " over " << n;
    naive_misses += (reported * static_cast<double>(n) / 1e6) * 1e6 / static_cast<double>(n) != reported;
  }
  EXPECT_GT(naive_misses, 0);  // the search is needed
}

}  // namespace
}  // namespace membench::gbench

namespace membench::gbench {
namespace {

// The schema built into the binary passes what the binary wrote on a GPU,
// and names the place of what a fuzzer changes in it.
TEST(ResultSchema, ARecordedRunPassesAndEachBrokenPartIsNamed) {
  std::ifstream in(MEMBENCH_SOURCE_DIR "/benchmarks/results/h100/2026-12-05-every-architecture/default.json");
  const nlohmann::json recorded = nlohmann::json::parse(in);
  EXPECT_EQ(schema_problem(recorded).value_or(""), "");
  const std::vector<std::pair<std::function<void(nlohmann::json&)>, std::string>> broken = {
      {[](nlohmann::json& d) { d["benchmarks"][0]["run_type"] = 5; }, "benchmarks[0].run_type"},
      {[](nlohmann::json& d) { d["benchmarks"][0]["error_occurred"] = "false"; }, "benchmarks[0].error_occurred"},
      {[](nlohmann::json& d) { d["benchmarks"][0]["bytes_per_second"] = "fast"; }, "benchmarks[0].bytes_per_second"},
      {[](nlohmann::json& d) { d["membench"]["cases"][0]["axes"] = "x"; }, "membench.cases[0].axes"},
      {[](nlohmann::json& d) { d["membench"]["cases"][0]["tags"] = nlohmann::json::array({1}); },
       "membench.cases[0].tags"},
      {[](nlohmann::json& d) { d["membench"]["families"] = nlohmann::json::array({1}); }, "membench.families"},
      {[](nlohmann::json& d) { d["membench"]["counters"]["latency_ns"]["better"] = "sideways"; },
       "membench.counters.latency_ns.better"},
      {[](nlohmann::json& d) { d["context"]["membench_version"] = 5; }, "context.membench_version"}};
  for (const auto& [edit, place] : broken) {
    nlohmann::json doc = recorded;
    edit(doc);
    const std::string why = schema_problem(doc).value_or("");
    EXPECT_EQ(why.rfind(place + ": ", 0), 0u) << place << " gave: " << why;
  }
}

}  // namespace
}  // namespace membench::gbench
