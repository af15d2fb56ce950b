// The membench binary as a user meets it: registration, refusals, the no-GPU
// stop, and (on a GPU) a JSON run with its context and counters.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "gpu.hpp"
#include "membench/async.hpp"
#include "membench/global.hpp"
#include "membench/layout.hpp"
#include "membench/shared.hpp"

namespace membench {
namespace {

struct Outcome {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
  int lines() const {
    int count = 0;
    for (char c : output) count += c == '\n';
    return count;
  }
};

Outcome run(const std::string& args, const std::string& env = "") {
  const std::string command = env + " '" MEMBENCH_EXE "' " + args + " 2>&1";
  Outcome r;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  char buffer[4096];
  std::size_t got = 0;
  while ((got = fread(buffer, 1, sizeof buffer, pipe)) > 0) r.output.append(buffer, got);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string temp_path(const std::string& name) { return ::testing::TempDir() + name; }

TEST(Suite, ListsEveryFamilyAndVariantWithoutAGpu) {
  const Outcome r = run("--benchmark_list_tests");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::vector<std::string> names;
  for (auto v : global_variants()) names.push_back("global/" + to_string(v) + "/");
  for (auto v : layout_variants()) names.push_back("layout/" + to_string(v) + "/");
  for (auto v : shared_variants()) names.push_back("shared/" + to_string(v) + "/");
  for (auto v : async_variants()) names.push_back("async/" + to_string(v) + "/");
  for (const auto& name : names) EXPECT_NE(r.output.find(name), std::string::npos) << name << " is not registered";
  EXPECT_NE(r.output.find("global/strided/n:16777216/stride:32/manual_time"), std::string::npos);
  EXPECT_NE(r.output.find("shared/column/n:4096/pad:1/manual_time"), std::string::npos);
  EXPECT_NE(r.output.find("global/vectorized/n:16777216/vec:4/ilp:1/persistent:0/manual_time"), std::string::npos);
  EXPECT_NE(r.output.find("async/pipeline/n:67108864/tile:1024/stages:3/flops:64/manual_time"), std::string::npos);
}

TEST(Suite, StrideSweepGivesSixCasesPerN) {
  const Outcome r = run("--stride=1:32:*2 --n=2^20,2^24 --benchmark_filter=strided --benchmark_list_tests");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.lines(), 12) << r.output;
  EXPECT_NE(r.output.find("global/strided/n:1048576/stride:16/manual_time"), std::string::npos) << r.output;
}

TEST(Suite, SweepFileAndCommandLine) {
  const std::string file = temp_path("SweepFileAndCommandLine.sweep.json");
  std::ofstream(file) << R"({"stride": "1:4:*2", "n": "2^20"})";
  Outcome r = run("--sweep=" + file + " --benchmark_filter=strided --benchmark_list_tests");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.lines(), 3) << r.output;
  r = run("--sweep=" + file + " --stride=7 --benchmark_filter=strided --benchmark_list_tests");
  EXPECT_EQ(r.output, "global/strided/n:1048576/stride:7/manual_time\n");
  std::remove(file.c_str());
}

TEST(Suite, RefusesBadInputWithOneLineAndExitCode2) {
  for (const char* args : {"--stride=0", "--n=abc", "--n=", "--bogus=1", "--n=2^64", "--stride=-1", "--n=1:0",
                           "--pad=3", "--width=2", "--stages=5", "--flops=7", "--device=x", "stray",
                           "--sweep=/nonexistent.json", "--benchmark_nonsense=1"}) {
    const Outcome r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
    EXPECT_EQ(r.lines(), 1) << args << ": " << r.output;
  }
  const Outcome r = run("--stride=0");
  EXPECT_EQ(r.output, "membench: --stride=0: zero is not allowed (values must be >= 1)\n");
}

TEST(Suite, WithoutAGpuStopsWithOneLine) {
  if (test::gpu_available()) GTEST_SKIP() << "a GPU is visible; this checks the no-GPU path";
  const Outcome r = run("--benchmark_filter=global/coalesced");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(r.lines(), 1) << r.output;
  EXPECT_NE(r.output.find("no CUDA device"), std::string::npos) << r.output;
}

nlohmann::json run_json(const std::string& args, const std::string& env = "") {
  // One file per test: ctest runs these in parallel.
  const std::string out = temp_path(std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + ".json");
  std::remove(out.c_str());
  const Outcome r = run(args + " --benchmark_min_time=0.01 --benchmark_out_format=json --benchmark_out=" + out, env);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(out);
  return nlohmann::json::parse(in);
}

TEST(Suite, GpuRunWritesContextAndCounters) {
  MEMBENCH_REQUIRE_GPU();
  const auto doc = run_json("--n=100003 --stride=1,2 --benchmark_filter='global/(coalesced|strided)'");
  const auto& context = doc.at("context");
  for (const char* key : {"gpu_name", "compute_capability", "sm_count", "l2_bytes", "dram_peak_bytes_per_second",
                          "driver_version", "runtime_version", "membench_version", "sweep"})
    EXPECT_TRUE(context.contains(key)) << key;
  EXPECT_NE(context.at("sweep").get<std::string>().find("\"stride\":[1,2]"), std::string::npos);
  const auto& cases = doc.at("benchmarks");
  ASSERT_EQ(cases.size(), 3u);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    EXPECT_FALSE(c.value("error_occurred", false)) << c.value("error_message", "");
    EXPECT_GT(c.at("bytes_per_second").get<double>(), 0.0);
    EXPECT_GT(c.at("pct_of_peak").get<double>(), 0.0);
    EXPECT_GT(c.at("sm_clock_mhz").get<double>(), 0.0);
    EXPECT_TRUE(c.contains("sectors_per_request"));
  }
  // bytes are per iteration, and an iteration of a short launch is a batch.
  const auto per_launch = [](const nlohmann::json& c) {
    return c.at("bytes").get<double>() / c.at("launches_per_iteration").get<double>();
  };
  EXPECT_GE(cases[0].at("launches_per_iteration").get<double>(), 2.0);  // a ~1 us kernel is batched
  EXPECT_EQ(per_launch(cases[0]), 100003 * 8.0);
  EXPECT_EQ(per_launch(cases[2]), 50002 * 8.0);  // stride 2: ceil(100003 / 2) elements
  EXPECT_EQ(cases[2].at("sectors_per_request").get<double>(), 8.0);
}

TEST(Suite, ShortMemcpyIsBatchedToo) {
  MEMBENCH_REQUIRE_GPU();
  // memcpy is never captured in a graph; its batches are enqueued one by one.
  const auto doc = run_json("--n=100003 --benchmark_filter=global/memcpy");
  const auto& c = doc.at("benchmarks").at(0);
  EXPECT_FALSE(c.value("error_occurred", false)) << c.value("error_message", "");
  const double launches = c.at("launches_per_iteration").get<double>();
  EXPECT_GE(launches, 2.0);
  EXPECT_EQ(c.at("bytes").get<double>() / launches, 100003 * 8.0);
}

TEST(Suite, WrongResultIsAnErrorNotABandwidth) {
  MEMBENCH_REQUIRE_GPU();
  const auto doc = run_json("--n=4096 --benchmark_filter=global/coalesced", "MEMBENCH_TEST_CORRUPT=1");
  const auto& c = doc.at("benchmarks").at(0);
  EXPECT_TRUE(c.value("error_occurred", false));
  EXPECT_NE(c.value("error_message", "").find("verification failed: out[2048]"), std::string::npos)
      << c.value("error_message", "");
  EXPECT_FALSE(c.contains("bytes_per_second"));
}

TEST(Suite, CaseThatDoesNotFitIsSkippedAndTheRestRuns) {
  MEMBENCH_REQUIRE_GPU();
  const auto doc = run_json("--n=2^40,4096 --benchmark_filter=global/coalesced");
  const auto& cases = doc.at("benchmarks");
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_TRUE(cases[0].value("error_occurred", false));
  EXPECT_NE(cases[0].value("error_message", "").find("does not fit"), std::string::npos);
  EXPECT_FALSE(cases[1].value("error_occurred", false));
}

}  // namespace
}  // namespace membench
