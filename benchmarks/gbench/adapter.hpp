// Google Benchmark, and everything that depends on which version of it is
// linked: registering the cases under their names, the filter as it applies
// it, reporting an Outcome as iterations and manual time, skips, and
// replaying --resume's cases. No other code names benchmark::.
//
// One Google Benchmark iteration is one launch: its first call of a case
// asks for one iteration, and the count of a timed loop is fixed by its first
// KeepRunningBatch, so the runner measures first and the launches are then
// reported in one KeepRunningBatch with their GPU time. `iterations` is the
// number of launches, real_time the CUDA-event time per launch; cpu_time is
// Google Benchmark's CPU timer over that report, and means nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cases/family.hpp"
#include "cases/runner.hpp"
#include "gbench/result_file.hpp"
#include "gbench/resume.hpp"

#ifndef MEMBENCH_GBENCH_VERSION
#define MEMBENCH_GBENCH_VERSION 10800
#endif

namespace benchmark {
class State;
}

namespace re2 {
class RE2;
}

namespace membench::gbench {

// The linked version: major * 10000 + minor * 100.
inline constexpr int kVersion = MEMBENCH_GBENCH_VERSION;

// The name Google Benchmark gives a case.
std::string benchmark_name(const cases::CaseId& id);

// --benchmark_filter: a regular expression (RE2's syntax, which takes the
// extended POSIX expressions Google Benchmark takes) searched in the name,
// negated by a leading '-'; "" and "all" match everything. RE2 matches in
// time linear in the name whatever the pattern, and compiles within a
// memory bound, so no filter can hang the run or exhaust memory. Google
// Benchmark is handed the selected cases alone, never the pattern: its own
// engine backtracks.
class Filter {
 public:
  struct Invalid : std::runtime_error {
    using std::runtime_error::runtime_error;
  };
  explicit Filter(const std::string& spec);  // throws Invalid (its message says why)
  bool matches(const std::string& name) const;

 private:
  bool negative_ = false;
  std::shared_ptr<const re2::RE2> re_;
};

// Hands Google Benchmark its flags (argv[0] first); false when it does not
// know one of them.
bool initialize(std::vector<std::string> args);
// The filter in force (flag or environment).
std::string filter();
// Registers the selected cases; they run in this order.
void register_cases(const std::vector<const cases::CaseSpec*>& cases);
// The cases the filter selects.
std::vector<const cases::CaseSpec*> selected(const std::vector<cases::CaseSpec>& cases, const Filter& filter);
// --list_cases=json: for each case its name (as Google Benchmark writes it),
// family, variant, tags, axes (name, value, unit; a named axis by its name)
// and the kernels it launches.
std::string cases_json(const std::vector<const cases::CaseSpec*>& cases);
// The cases --resume carries over instead of measuring.
void set_carried(Carried carried);

void add_context(const std::string& key, const std::string& value);
// Lists the selected names (--benchmark_list_tests).
void list();
// Runs the selected cases with `runner`, writing the console and the file:
// with `file`, the JSON is the result file (result_file.hpp), which needs
// --benchmark_out; without, Google Benchmark's own format.
void run(cases::Runner& runner, const ResultFileSpec* file);
void shutdown();

// The iteration count a call of a case reports, given the count its first
// repetition reported (0: none yet), Google Benchmark's max_iterations and
// the launches measured. Google Benchmark requires every repetition of a
// case to report one count (a debug build of it aborts otherwise; a release
// build scales every repetition's time by the first one's count, so its
// aggregates are wrong). Its first repetition may be called again asking for
// more; every later one is asked for no more than the first reported. So a
// call asking for more than `first` is the first repetition (the larger of
// what it asks and the launches), and any other reports `first`.
std::int64_t iterations_to_report(std::int64_t first, std::int64_t max_iterations, std::int64_t launches);

// Reports `launches` launches that took `seconds` of GPU time as a
// manual-time case's iterations, with the per-launch time kept exactly:
// the count is iterations_to_report's for case `key` (remembered across its
// repetitions), the time scaled to it, and the launches measured are the
// counter `launches`. Must be the case's only use of KeepRunning /
// KeepRunningBatch.
void report_launches(benchmark::State& state, const std::string& key, std::int64_t launches, double seconds);

// --benchmark_min_time as the linked version takes seconds: "0.5s" from 1.8
// on (which warns about a bare number), "0.5" before; and whether it takes an
// iteration count (Nx).
std::string min_time_seconds(const std::string& seconds);
inline constexpr bool kMinTimeTakesIterations = kVersion >= 10800;

}  // namespace membench::gbench
