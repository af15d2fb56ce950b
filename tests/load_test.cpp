// Every case beside another job's load: a second process (membench_gpu_holder
// load) keeps every SM and the memory busy while the CI set and the default
// run's families run, each case at a short --max_time (what is tested is
// that it verifies, not how fast it is). Work a case depends on (a fill, a
// copy into constant memory, a host reference) must be ordered by the
// stream it runs on, never by an idle GPU: beside the load each case still
// verifies, and is marked contended where NVML can see the other process.
// The same runs alone are tests of their own, so that a failure here is
// told apart from one that has nothing to do with the load.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>

#include "gpu.hpp"
#include "process.hpp"

namespace membench {
namespace {

using test::Background;
using test::Outcome;
using test::temp_path;

const std::string kCiSet = "--sweep='" MEMBENCH_SOURCE_DIR "/sweeps/ci.json'";
const std::string kDefaultRun = "";

std::string skip_text(const nlohmann::json& c) {
  if (c.value("skipped", false)) return c.value("skip_message", "");
  const std::string e = c.value("error_message", "");
  return e.rfind("skipped: ", 0) == 0 ? e.substr(9) : "";  // Google Benchmark 1.7
}

// Runs `selection` and expects every case verified or skipped with its
// reason; with `beside_load`, every measured case marked contended where
// NVML lists the GPU's processes.
void expect_every_case_verifies(const std::string& selection, bool beside_load) {
  const std::string out = temp_path(".json");
  std::remove(out.c_str());
  const Outcome r = test::run(selection + " --max_time=0.02 --benchmark_out_format=json --benchmark_out=" + out);
  EXPECT_EQ(r.exit_code, 0) << r.output.substr(r.output.size() > 4000 ? r.output.size() - 4000 : 0);
  std::ifstream in(out);
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << "no JSON: " << r.output.substr(0, 2000);
  const std::string health = doc.at("context").value("gpu_health", "");
  const bool sees_others = health.find("other processes") != std::string::npos;
  std::set<std::string> measured_cases, contended_cases;  // by case: each repetition is an entry of its own
  for (const auto& c : doc.at("benchmarks")) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    if (c.value("run_type", "iteration") != "iteration") continue;  // Google Benchmark's aggregates
    const std::string skipped = skip_text(c);
    if (!skipped.empty()) {
      EXPECT_NE(skipped.find(' '), std::string::npos) << "a skip without its reason";
      continue;
    }
    EXPECT_FALSE(c.value("error_occurred", false)) << c.value("error_message", "");
    const std::string name = c.value("run_name", c.at("name").get<std::string>());
    measured_cases.insert(name);
    if (c.value("contended", 0.0) == 1.0) contended_cases.insert(name);
  }
  const std::size_t measured = measured_cases.size(), contended = contended_cases.size();
  EXPECT_GT(measured, 0u);
  if (beside_load && sees_others) {
    EXPECT_EQ(contended, measured) << "cases measured beside the load, unmarked";
    // The summary counts cases, however many repetitions each had.
    EXPECT_NE(r.output.find("membench: " + std::to_string(measured) + " of " +
                            std::to_string(doc.at("membench").at("end").value("cases_selected", 0)) +
                            " cases measured while another process held the GPU"),
              std::string::npos)
        << r.output.substr(r.output.size() > 2000 ? r.output.size() - 2000 : 0);
  }
  if (!beside_load) { EXPECT_EQ(contended, 0u) << "a case marked contended with no load running"; }
  std::remove(out.c_str());
}

void beside_a_load(const std::string& selection) {
  Background load("'" MEMBENCH_GPU_HOLDER "' 900 load", temp_path(".load.log"));
  ASSERT_TRUE(load.wait_for_output("ready", 60))
      << "the load never started: " << test::read_file(temp_path(".load.log"));
  expect_every_case_verifies(selection, true);
  EXPECT_EQ(test::read_file(temp_path(".load.log")), "ready\n") << "the load stopped or failed before the run ended";
}

TEST(Contention, TheCiSetVerifiesAlone) {
  MEMBENCH_REQUIRE_GPU();
  expect_every_case_verifies(kCiSet, false);
}

TEST(Contention, TheCiSetVerifiesBesideALoad) {
  MEMBENCH_REQUIRE_GPU();
  beside_a_load(kCiSet + " --benchmark_repetitions=2");
}

TEST(Contention, TheDefaultRunVerifiesAlone) {
  MEMBENCH_REQUIRE_GPU();
  expect_every_case_verifies(kDefaultRun, false);
}

TEST(Contention, TheDefaultRunVerifiesBesideALoad) {
  MEMBENCH_REQUIRE_GPU();
  beside_a_load(kDefaultRun);
}

}  // namespace
}  // namespace membench
