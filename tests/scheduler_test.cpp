// Where membench really runs: under a scheduler that sends SIGTERM at a time
// limit, beside other jobs on the GPU, and from command lines a script
// built. Every refusal is one line and exit 2 before any GPU work; a signal
// leaves valid JSON that --resume completes; another process on the GPU
// marks the cases it overlapped.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gpu.hpp"
#include "process.hpp"

namespace membench {
namespace {

using test::Background;
using test::Outcome;
using test::run;
using test::temp_path;

void expect_refused(const Outcome& r, const std::string& line) {
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(r.output, "membench: " + line + "\n");
}

TEST(Refusals, EachIsOneLineAndExit2BeforeAnyGpuWork) {
  expect_refused(run("--n=1^99999999999999"),
                 "--n=1^99999999999999: exponent in '1^99999999999999' is too large (at most 63)");
  expect_refused(run("--stride=1 --stride=2"), "--stride is given twice (give one list: --stride=A,B)");
  expect_refused(run("--device=0,0"), "--device=0,0: device 0 is given twice");
  {
    // n x stride alone make 10^7 cases of the strided family; the count is of every family.
    const Outcome many = run("--n=1:10000 --stride=1:1000");
    const std::string head = "membench: these flags make ",
                      tail = " cases, more than the 100000 one run may hold; narrow the axes or split the run\n";
    EXPECT_EQ(many.exit_code, 2);
    ASSERT_GT(many.output.size(), head.size() + tail.size()) << many.output;
    EXPECT_EQ(many.output.substr(0, head.size()), head);
    EXPECT_EQ(many.output.substr(many.output.size() - tail.size()), tail);
    EXPECT_GE(std::stoll(many.output.substr(head.size())), 10000000LL) << many.output;
  }
  expect_refused(run("--benchmark_out=/proc/membench/y.json"),
                 "--benchmark_out=/proc/membench/y.json: cannot write the file (does its folder exist?)");
  expect_refused(run("--benchmark_out=/nonexistent-folder/y.json"),
                 "--benchmark_out=/nonexistent-folder/y.json: cannot write the file (does its folder exist?)");
  expect_refused(run("--resume=/"), "--resume=/: not a regular file");
  expect_refused(run("", "MEMBENCH_TEST_CORRUPT=yes"), "MEMBENCH_TEST_CORRUPT=yes: expects 0 or 1 (a test hook)");
  expect_refused(run("", "MEMBENCH_TEST_PROCESS_VIEW=x"),
                 "MEMBENCH_TEST_PROCESS_VIEW=x: expects utilisation (a test hook)");
  const std::string deep = temp_path(".deep.json");
  std::ofstream(deep) << "{\"n\": " << std::string(100000, '[') << std::string(100000, ']') << "}";
  expect_refused(run("--sweep=" + deep),
                 "--sweep=" + deep + ": nested more than 8 deep (a sweep file is an object of flag: value)");
  std::remove(deep.c_str());
}

int listed_cases(const Outcome& r) {
  int cases = 0;
  for (std::size_t at = r.output.find("manual_time\n"); at != std::string::npos;
       at = r.output.find("manual_time\n", at + 1))
    ++cases;
  return cases;
}

TEST(Refusals, TheCaseCapCountsColdCasesToo) {
  // --l2=both registers every case twice; the cap counts what is registered.
  const Outcome warm = run("--n=1:700 --benchmark_list_tests");
  ASSERT_EQ(warm.exit_code, 0);
  const int cases = listed_cases(warm);
  ASSERT_LE(cases, 100000);
  ASSERT_GT(2 * cases, 100000);
  expect_refused(run("--n=1:700 --l2=both --benchmark_list_tests"),
                 "these flags make " + std::to_string(2 * cases) +
                     " cases, more than the 100000 one run may hold; narrow the axes or split the run");
}

// The cap is on the cases of every device: half the cap's cases on each of
// three devices is over it.
TEST(Refusals, TheCaseCapCountsEveryDevicesCases) {
  const Outcome one = run("--n=1:700 --benchmark_list_tests");
  ASSERT_EQ(one.exit_code, 0);
  const int cases = listed_cases(one);
  ASSERT_GT(3 * cases, 100000);
  expect_refused(run("--n=1:700 --device=0:2 --benchmark_list_tests"),
                 "these flags make " + std::to_string(3 * cases) +
                     " cases, more than the 100000 one run may hold; narrow the axes or split the run");
  // Each device's cases are named by their device, after the variant and before the axes.
  const Outcome two = run("--device=0:1 --benchmark_list_tests --benchmark_filter=^stream/triad/");
  ASSERT_EQ(two.exit_code, 0) << two.output;
  EXPECT_EQ(two.lines(), 2 * run("--benchmark_list_tests --benchmark_filter=^stream/triad/").lines());
  EXPECT_NE(two.output.find("stream/triad/device:0/type:"), std::string::npos) << two.output;
  EXPECT_NE(two.output.find("stream/triad/device:1/type:"), std::string::npos) << two.output;
  EXPECT_EQ(two.output.find("stream/triad/type:"), std::string::npos) << two.output;
}

TEST(Refusals, AMalformedLauncherVariableBreaksOnlyWhatReadsIt) {
  for (const char* var : {"LOCAL_RANK", "SLURM_LOCALID"}) {
    const std::string env = std::string(var) + "=x";
    EXPECT_EQ(run("--help", env).exit_code, 0) << var;
    EXPECT_EQ(run("--benchmark_list_tests --benchmark_filter=^global/coalesced", env).exit_code, 0) << var;
    expect_refused(run("--device=local", env),
                   "--device=local: " + std::string(var) + "=x: not a rank (a non-negative integer)");
  }
  EXPECT_EQ(run("--benchmark_list_tests --benchmark_filter=^global/coalesced", "RANK=x").exit_code, 0);
  expect_refused(
      run("--benchmark_out='{rank}.json'", "RANK=x"),
      "--benchmark_out={rank}.json: {rank} cannot be filled in: RANK=x: not a rank (a non-negative integer)");
}

TEST(Listing, WritesNoFileAndIsLinearInTheDevices) {
  const std::string out = temp_path(".json");
  std::remove(out.c_str());
  const Outcome r = run("--benchmark_list_tests --benchmark_filter=^global/coalesced --benchmark_out=" + out);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out)) << "a listing left " << out;
  EXPECT_FALSE(std::filesystem::exists(out + ".partial")) << "a listing left " << out << ".partial";
  // Nor does a listing over several devices, or one of the cases as data.
  EXPECT_EQ(run("--device=0:1 --list_cases=json --benchmark_filter=^global/coalesced --benchmark_out=" + out).exit_code,
            0);
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_FALSE(std::filesystem::exists(out + ".partial"));
  // 128 devices x every default case: Google Benchmark's own match-all filter
  // made this quadratic (90 s at 256); the count is what must hold, under the
  // most cases one run may hold.
  const Outcome all = run("--device=0:127 --benchmark_list_tests");
  const Outcome one = run("--benchmark_list_tests");
  ASSERT_EQ(all.exit_code, 0);
  EXPECT_EQ(all.lines(), 128 * one.lines());
  EXPECT_NE(all.output.find("global/coalesced/device:127/n:16777216/manual_time\n"), std::string::npos);
}

// ---- on a GPU ---------------------------------------------------------------------

nlohmann::json parse_file(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in, nullptr, false);
}

std::string skip_text(const nlohmann::json& c) {
  if (c.value("skipped", false)) return c.value("skip_message", "");
  const std::string e = c.value("error_message", "");
  return e.rfind("skipped: ", 0) == 0 ? e.substr(9) : "";  // Google Benchmark 1.7
}

// 22 cases of about 0.2 s each (the noise target cannot be met, so each runs to --max_time); the
// variants named, so a variant that joins the family later does not change the count.
const char* kSlowGlobal =
    "--n=2^20 --benchmark_filter='^global/(coalesced|strided|strided_full_grid|vectorized|memcpy)/' --max_noise=0 "
    "--max_time=0.2 --benchmark_out_format=json";

TEST(Signals, SigtermLeavesValidJsonAndResumeRunsTheRest) {
  MEMBENCH_REQUIRE_GPU();
  const std::string cut = temp_path(".cut.json"), whole = temp_path(".whole.json");
  std::remove(cut.c_str());
  Background job("'" MEMBENCH_EXE "' " + std::string(kSlowGlobal) + " --benchmark_out=" + cut, temp_path(".log"));
  ASSERT_TRUE(job.wait_for_output("global/strided/", 60)) << "no case finished";
  job.signal(SIGTERM);
  const Outcome r = job.finish();
  EXPECT_EQ(r.exit_code, 128 + SIGTERM) << r.output;
  const nlohmann::json doc = parse_file(cut);
  ASSERT_FALSE(doc.is_discarded()) << "the JSON does not parse";
  const auto& cases = doc.at("benchmarks");
  ASSERT_EQ(cases.size(), 22u);
  std::map<std::string, nlohmann::json> finished;
  for (const auto& c : cases) {
    const std::string why = skip_text(c);
    if (why.empty()) {
      finished[c.at("name")] = c;
    } else {
      EXPECT_EQ(why, "interrupted by SIGTERM") << c.dump();
    }
  }
  const std::size_t k = finished.size();
  EXPECT_GE(k, 1u);
  EXPECT_LT(k, 22u);
  EXPECT_NE(r.output.find("membench: interrupted by SIGTERM after " + std::to_string(k) +
                          " of 22 cases; --resume=" + cut + " runs the rest\n"),
            std::string::npos)
      << r.output;
  const auto& end = doc.at("membench").at("end");
  EXPECT_TRUE(doc.at("membench").at("complete").get<bool>());
  EXPECT_EQ(end.value("stopped", ""), "interrupted by SIGTERM");
  EXPECT_EQ(end.value("cases_not_run", -1), static_cast<int>(22 - k));

  const Outcome resumed = run(std::string(kSlowGlobal) + " --resume=" + cut + " --benchmark_out=" + whole);
  EXPECT_EQ(resumed.exit_code, 0) << resumed.output;
  const nlohmann::json all = parse_file(whole);
  ASSERT_FALSE(all.is_discarded());
  ASSERT_EQ(all.at("benchmarks").size(), 22u);
  std::size_t carried = 0;
  for (const auto& c : all.at("benchmarks")) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    EXPECT_EQ(skip_text(c), "");
    EXPECT_FALSE(c.value("error_occurred", false));
    EXPECT_TRUE(c.contains("bytes_per_second"));
    const auto before = finished.find(c.at("name"));
    if (before == finished.end()) {
      EXPECT_FALSE(c.contains("resumed"));
      continue;
    }
    ++carried;
    EXPECT_EQ(c.value("resumed", 0.0), 1.0);
    // Every number as it was: the per-launch time, the launches and each counter.
    for (const auto& [key, value] : before->second.items()) {
      if (value.is_number() && key != "cpu_time" && key != "family_index" && key != "per_family_instance_index") {
        EXPECT_EQ(c.at(key), value) << key;
      }
    }
  }
  EXPECT_EQ(carried, k);
  EXPECT_EQ(all.at("context").value("resumed_from", ""), cut);
}

// GNU timeout signals the process and then its process group, so SIGTERM
// arrives twice at once: one stop, the JSON whole, the status 128 + 15.
TEST(Signals, TimeoutsTwoSigtermsAreOneStopAndLeaveTheWholeJson) {
  MEMBENCH_REQUIRE_GPU();
  const std::string out = temp_path(".json");
  std::remove(out.c_str());
  // The 22 cases of kSlowGlobal at a second each: far longer than the 6 s before the signal.
  std::string args = kSlowGlobal;
  args.replace(args.find("--max_time=0.2"), 14, "--max_time=1");
  const Outcome r =
      test::run_command("timeout --preserve-status -s TERM 6 '" MEMBENCH_EXE "' " + args + " --benchmark_out=" + out);
  EXPECT_EQ(r.exit_code, 128 + SIGTERM) << r.output;
  const nlohmann::json doc = parse_file(out);
  ASSERT_FALSE(doc.is_discarded()) << "no whole JSON at " << out << ": " << r.output;
  EXPECT_TRUE(doc.at("membench").at("complete").get<bool>());
  EXPECT_EQ(doc.at("membench").at("end").value("stopped", ""), "interrupted by SIGTERM");
  EXPECT_EQ(doc.at("benchmarks").size(), 22u);
  EXPECT_NE(r.output.find("membench: interrupted by SIGTERM after "), std::string::npos) << r.output;
  std::remove(out.c_str());
}

// SIGKILL (a scheduler after its grace period, the OOM killer) gives no
// chance to finish the file: FILE is not written, FILE.partial holds every
// finished case as valid JSON, and --resume=FILE carries them unchanged.
TEST(Signals, SigkillLeavesEveryFinishedCaseAndResumeCarriesThem) {
  MEMBENCH_REQUIRE_GPU();
  const std::string out = temp_path(".killed.json"), partial = out + ".partial";
  std::remove(out.c_str());
  std::remove(partial.c_str());
  Background job("'" MEMBENCH_EXE "' " + std::string(kSlowGlobal) + " --benchmark_out=" + out, temp_path(".kill.log"));
  ASSERT_TRUE(job.wait_for_output("global/strided/", 60)) << "no case finished";
  job.signal(SIGKILL);
  const Outcome r = job.finish();
  EXPECT_EQ(r.exit_code, 128 + SIGKILL) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out));
  const nlohmann::json cut = parse_file(partial);
  ASSERT_FALSE(cut.is_discarded()) << "the partial file does not parse";
  EXPECT_FALSE(cut.at("membench").at("complete").get<bool>());
  std::map<std::string, nlohmann::json> finished;
  for (const auto& c : cut.at("benchmarks")) finished[c.at("name")] = c;
  const std::size_t k = finished.size();
  ASSERT_GE(k, 1u);
  ASSERT_LT(k, 22u);

  const Outcome resumed = run(std::string(kSlowGlobal) + " --resume=" + out + " --benchmark_out=" + out);
  EXPECT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("carrying " + std::to_string(k) + " finished case(s)"), std::string::npos)
      << resumed.output;
  const nlohmann::json all = parse_file(out);
  ASSERT_EQ(all.at("benchmarks").size(), 22u);
  EXPECT_EQ(all.at("membench").at("end").value("cases_resumed", -1), static_cast<int>(k));
  std::size_t carried = 0;
  for (const auto& c : all.at("benchmarks")) {
    const auto before = finished.find(c.at("name"));
    if (before == finished.end()) continue;
    ++carried;
    EXPECT_EQ(c.value("resumed", 0.0), 1.0);
    for (const auto& [key, value] : before->second.items()) {
      if (value.is_number() && key != "cpu_time" && key != "family_index" && key != "per_family_instance_index") {
        EXPECT_EQ(c.at(key), value) << c.at("name") << " " << key;
      }
    }
  }
  EXPECT_EQ(carried, k);
}

// SIGTERM while cases run their repetitions: the file is whole JSON (Google
// Benchmark's NaN statistics left out), and --resume with the same
// repetitions carries every case whose repetitions all finished.
TEST(Signals, SigtermDuringRepetitionsLeavesWholeJsonAndResumeCarriesThem) {
  MEMBENCH_REQUIRE_GPU();
  const std::string cut = temp_path(".cut.json"), whole = temp_path(".whole.json");
  const std::string flags = std::string(kSlowGlobal) + " --benchmark_repetitions=2";
  Background job("'" MEMBENCH_EXE "' " + flags + " --benchmark_out=" + cut, temp_path(".log"));
  ASSERT_TRUE(job.wait_for_output("global/strided/", 60)) << "no case finished";
  job.signal(SIGTERM);
  EXPECT_EQ(job.finish().exit_code, 128 + SIGTERM);
  const nlohmann::json doc = parse_file(cut);
  ASSERT_FALSE(doc.is_discarded()) << "the JSON does not parse";
  std::map<std::string, int> measured;
  for (const auto& c : doc.at("benchmarks"))
    if (c.at("run_type") == "iteration" && skip_text(c).empty() && !c.value("error_occurred", false))
      ++measured[c.at("name")];
  std::size_t whole_cases = 0;
  for (const auto& [name, runs] : measured) whole_cases += runs == 2;
  ASSERT_GE(whole_cases, 1u);
  const Outcome resumed = run(flags + " --resume=" + cut + " --benchmark_out=" + whole);
  EXPECT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("carrying " + std::to_string(whole_cases) + " finished case(s)"), std::string::npos)
      << resumed.output;
  const nlohmann::json all = parse_file(whole);
  ASSERT_FALSE(all.is_discarded());
  EXPECT_EQ(all.at("membench").at("end").value("cases_resumed", -1), static_cast<int>(whole_cases));
}

// Repetitions: one iteration count per case, so Google Benchmark's
// aggregates are the statistics of the repetitions' per-launch times; the
// file's catalog declares every counter it holds.
TEST(Repetitions, AggregatesAreTheRepetitionsStatisticsAndEveryCounterIsDeclared) {
  MEMBENCH_REQUIRE_GPU();
  const std::string out = temp_path(".reps.json");
  const Outcome r =
      run("--n=2^22 --benchmark_filter='^global/(coalesced|memcpy)/' --benchmark_repetitions=3 "
          "--benchmark_out_format=json --benchmark_out=" +
          out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json doc = parse_file(out);
  ASSERT_FALSE(doc.is_discarded());
  std::map<std::string, std::vector<nlohmann::json>> reps;
  std::map<std::string, std::map<std::string, double>> aggregate;
  const auto& counters = doc.at("membench").at("counters");
  for (const auto& c : doc.at("benchmarks")) {
    const std::string name = c.at("run_name");
    if (c.at("run_type") == "iteration") {
      reps[name].push_back(c);
      for (const auto& [key, value] : c.items())
        if (value.is_number() && key != "family_index" && key != "per_family_instance_index" && key != "repetitions" &&
            key != "repetition_index" && key != "threads") {
          ASSERT_TRUE(counters.contains(key)) << key;
          EXPECT_NE(counters.at(key).at("kind"), "undeclared") << key;
        }
    } else {
      aggregate[name][c.at("aggregate_name")] = c.at("real_time").get<double>();
    }
  }
  ASSERT_EQ(reps.size(), 2u);
  for (const auto& [name, runs] : reps) {
    SCOPED_TRACE(name);
    ASSERT_EQ(runs.size(), 3u);
    std::vector<double> times;
    for (const auto& run : runs) {
      EXPECT_EQ(run.at("iterations"), runs[0].at("iterations"));
      times.push_back(run.at("real_time").get<double>());
    }
    std::sort(times.begin(), times.end());
    EXPECT_NEAR(aggregate[name].at("median"), times[1], 1e-9 * times[1]);
    EXPECT_NEAR(aggregate[name].at("mean"), (times[0] + times[1] + times[2]) / 3, 1e-9 * times[1]);
  }
}

TEST(Signals, ResumeRefusesAnotherGpusFile) {
  MEMBENCH_REQUIRE_GPU();
  const std::string other = temp_path(".other.json");
  std::ofstream(other)
      << R"({"context": {"membench_version": "0.1.0", "gpu_uuid": "GPU-00000000-0000-0000-0000-000000000000"}, "benchmarks": []})";
  const Outcome r = run("--benchmark_filter=^global/coalesced --resume=" + other);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(r.lines(), 1) << r.output;
  EXPECT_NE(r.output.find("written with GPU GPU-00000000-0000-0000-0000-000000000000, this run has GPU-"),
            std::string::npos)
      << r.output;
}

TEST(Contention, AnotherProcessMarksTheCasesItOverlapsAndExclusiveRefusesToStart) {
  MEMBENCH_REQUIRE_GPU();
  const std::string out = temp_path(".json");
  Background holder("'" MEMBENCH_GPU_HOLDER "' 60", temp_path(".holder.log"));
  ASSERT_TRUE(holder.wait_for_output("ready", 60)) << "the other process never held the GPU";
  const Outcome r =
      run("--n=2^20 --max_time=0.05 --benchmark_filter='^global/(coalesced|memcpy)/' "
          "--benchmark_out_format=json --benchmark_out=" +
          out);
  EXPECT_EQ(r.exit_code, 0) << r.output;  // contended numbers are marked, not failed
  const nlohmann::json doc = parse_file(out);
  ASSERT_FALSE(doc.is_discarded());
  const std::string health = doc.at("context").value("gpu_health", "");
  if (health.find("other processes") == std::string::npos || health.find("unknown") != std::string::npos)
    GTEST_SKIP() << "NVML cannot list this GPU's processes here: " << health;
  for (const auto& c : doc.at("benchmarks")) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    EXPECT_GE(c.value("other_processes", 0.0), 1.0);
    EXPECT_EQ(c.value("contended", 0.0), 1.0);
  }
  EXPECT_NE(r.output.find("membench: another process holds the GPU (pid "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("membench_gpu_holder"), std::string::npos) << "the other process is not named: " << r.output;

  const Outcome exclusive = run("--exclusive --n=2^20 --benchmark_filter=^global/coalesced");
  EXPECT_EQ(exclusive.exit_code, 1) << exclusive.output;
  EXPECT_EQ(exclusive.lines(), 1) << exclusive.output;
  EXPECT_NE(exclusive.output.find("membench: --exclusive: another process holds device 0 (pid "), std::string::npos)
      << exclusive.output;
}

// Where NVML cannot list the GPU's processes, its utilisation samples see the
// busy ones: alone, no case is contended; beside a process that keeps the GPU
// busy, every case is, and --exclusive refuses to start.
TEST(Contention, UtilisationSamplesSeeABusyNeighbourWhereTheProcessListIsNotAvailable) {
  MEMBENCH_REQUIRE_GPU();
  const std::string kView = "MEMBENCH_TEST_PROCESS_VIEW=utilisation";
  // Each case runs its full second: the driver samples utilisation a few times a second.
  const std::string kCases =
      "--n=2^26 --max_time=1 --max_noise=0 --benchmark_filter='^global/(coalesced|memcpy)/' "
      "--benchmark_out_format=json --benchmark_out=";
  const std::string alone = temp_path(".json");
  const Outcome quiet = run(kCases + alone, kView);
  ASSERT_EQ(quiet.exit_code, 0) << quiet.output;
  const nlohmann::json quiet_doc = parse_file(alone);
  const std::string health = quiet_doc.at("context").value("gpu_health", "");
  if (health.find("utilisation samples") == std::string::npos)
    GTEST_SKIP() << "NVML keeps no utilisation samples here: " << health;
  for (const auto& c : quiet_doc.at("benchmarks")) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    EXPECT_EQ(c.value("other_processes", -1.0), 0.0);
    EXPECT_EQ(c.value("contended", -1.0), 0.0);
  }

  Background holder("'" MEMBENCH_GPU_HOLDER "' 60 busy", temp_path(".holder.log"));
  ASSERT_TRUE(holder.wait_for_output("ready", 60)) << "the other process never held the GPU";
  // The neighbour is busy for more than a sampling period before membench
  // starts, so its samples show it busy before membench ran anything. (One
  // that starts with membench may be taken for membench itself until
  // membench's own pid shows up in the samples.)
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const std::string beside = temp_path(".json");
  const Outcome shared = run(kCases + beside, kView);
  EXPECT_EQ(shared.exit_code, 0) << shared.output;
  const nlohmann::json doc = parse_file(beside);
  ASSERT_FALSE(doc.is_discarded());
  for (const auto& c : doc.at("benchmarks")) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    EXPECT_GE(c.value("other_processes", 0.0), 1.0);
    EXPECT_EQ(c.value("contended", 0.0), 1.0);
  }
  EXPECT_NE(shared.output.find("membench: another process holds the GPU (pid "), std::string::npos) << shared.output;
  const Outcome exclusive = run("--exclusive --n=2^20 --benchmark_filter=^global/coalesced", kView);
  EXPECT_EQ(exclusive.exit_code, 1) << exclusive.output;
  EXPECT_NE(exclusive.output.find("membench: --exclusive: another process holds device 0 (pid "), std::string::npos)
      << exclusive.output;
}

TEST(Contention, TheContextNamesTheDriverAndTheHealthChecks) {
  MEMBENCH_REQUIRE_GPU();
  const std::string out = temp_path(".json");
  const Outcome r =
      run("--n=2^20 --max_time=0.05 --benchmark_filter=^global/coalesced --benchmark_out_format=json "
          "--benchmark_out=" +
          out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json doc = parse_file(out);
  const auto& ctx = doc.at("context");
  EXPECT_NE(ctx.value("driver_version", ""), ctx.value("cuda_driver_version", "")) << "driver_version is NVML's";
  EXPECT_NE(ctx.value("cuda_driver_version", "").find('.'), std::string::npos);
  EXPECT_EQ(ctx.value("membench_build", "").size(), 16u);
  EXPECT_TRUE(ctx.contains("gpu_health"));
  EXPECT_EQ(doc.at("membench").at("end").value("cases_selected", -1), 1);
  EXPECT_EQ(doc.at("membench").at("end").value("cases_not_run", -1), 0);
  const auto& c = doc.at("benchmarks").at(0);
  if (ctx.value("gpu_health", "").rfind("NVML", 0) == 0) {
    EXPECT_TRUE(c.contains("clock_event_reasons"));
    EXPECT_TRUE(c.contains("clock_event"));
  }
}

}  // namespace
}  // namespace membench
