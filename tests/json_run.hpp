// A membench run from a test that writes its JSON: the outcome and the
// parsed file.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "process.hpp"

namespace membench::test {

struct JsonRun {
  Outcome outcome;
  nlohmann::json doc;
};

// Short cases (--max_time=0.05), the JSON in a file of this test's own
// (ctest runs tests in parallel).
inline JsonRun run_json(const std::string& args, const std::string& env = "") {
  const std::string out = temp_path(".json");
  std::remove(out.c_str());
  JsonRun r;
  r.outcome = run(args + " --max_time=0.05 --benchmark_out_format=json --benchmark_out=" + out, env);
  std::ifstream in(out);
  r.doc = nlohmann::json::parse(in, nullptr, false);
  return r;
}

// A GPU run that must succeed: exit 0, `count` cases, none in error. Its
// JSON lands in *doc. Call it under ASSERT_NO_FATAL_FAILURE.
inline void run_ok(const std::string& args, std::size_t count, nlohmann::json* doc) {
  const auto r = run_json(args);
  ASSERT_EQ(r.outcome.exit_code, 0) << r.outcome.output;
  *doc = r.doc;
  const auto& cases = doc->at("benchmarks");
  ASSERT_EQ(cases.size(), count) << r.outcome.output;
  for (const auto& c : cases)
    EXPECT_FALSE(c.value("error_occurred", false)) << c.at("name") << ": " << c.value("error_message", "");
}

}  // namespace membench::test
