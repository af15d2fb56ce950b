// The reporter that writes the result file (result_file.hpp says what it
// holds): Google Benchmark's JSON reporter, and the closing "membench"
// object after it. Only the adapter makes one.
#pragma once

#include <benchmark/benchmark.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gbench/result_file.hpp"

namespace membench::gbench {

class ResultReporter : public benchmark::JSONReporter {
 public:
  explicit ResultReporter(ResultFileSpec spec);
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

 private:
  void checkpoint();
  void note_roofs(const Run& run);
  ResultFileSpec spec_;
  std::set<std::string> counters_;                         // every counter the file holds
  std::map<std::string, const cases::CaseSpec*> by_name_;  // the selected cases by their benchmark names
  Roofs roofs_;
};

}  // namespace membench::gbench
