#include "gbench/adapter.hpp"

#include "gbench/result_reporter.hpp"

#include <benchmark/benchmark.h>
#include <re2/re2.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

namespace membench::gbench {

namespace {

// real_time is reported in microseconds (Unit(benchmark::kMicrosecond)).
constexpr double kReportedPerSecond = 1e6;

struct Registry {
  // The flags handed to Google Benchmark: it keeps pointers into them (argv[0]
  // becomes the context's executable), so they live as long as the process.
  std::vector<std::string> args;
  std::vector<char*> argv;
  std::vector<cases::CaseSpec> cases;
  cases::Runner* runner = nullptr;
  Carried carried;
  // The iteration count each case's first repetition reported: every later
  // one reports it too.
  std::map<std::string, std::int64_t> first_counts;
  // How many repetitions of each carried case have been replayed.
  std::map<std::string, std::size_t> replayed;
};

Registry& registry() {
  static Registry r;
  return r;
}

// The count a call of case `key` reports, remembered for its later repetitions.
std::int64_t report_count(const std::string& key, std::int64_t max_iterations, std::int64_t launches) {
  auto& first = registry().first_counts[key];
  first = iterations_to_report(first, max_iterations, launches);
  return first;
}

void report_skip(benchmark::State& state, const std::string& why) {
#if MEMBENCH_GBENCH_VERSION >= 10800
  state.SkipWithMessage(why.c_str());
#else
  state.SkipWithError(("skipped: " + why).c_str());  // Google Benchmark 1.7 knows no other kind of skip
#endif
}

// Reports a case --resume's file holds as it was measured: its iterations,
// its per-launch time (exactly, in the unit of the file) and every counter,
// with resumed = 1. No GPU work.
void replay(benchmark::State& state, const std::string& name, const std::vector<CarriedRun>& runs) {
  Registry& reg = registry();
  const auto first = reg.first_counts.find(name);
  const bool later = first != reg.first_counts.end() && state.max_iterations <= first->second;
  std::size_t& index = reg.replayed[name];
  if (later) ++index;  // the next repetition; else the first one again, asked for more iterations
  const CarriedRun& run = runs[std::min(index, runs.size() - 1)];
  const Replay r = replay_of(run, kReportedPerSecond);
  const std::int64_t iterations = report_count(name, state.max_iterations, run.iterations);
  if (state.KeepRunningBatch(iterations)) {
    state.SetIterationTime(manual_seconds_for(r.real_time, kReportedPerSecond, iterations));
    while (state.KeepRunningBatch(1)) {}
  }
  for (const auto& [counter, value] : r.counters) state.counters[counter] = value;
  if (!run.label.empty()) state.SetLabel(run.label);
}

void run_case(benchmark::State& state, std::size_t index) {
  Registry& reg = registry();
  const cases::CaseSpec& c = reg.cases[index];
  const std::string name = benchmark_name(c.id);
  if (const auto carried = reg.carried.cases.find(name); carried != reg.carried.cases.end()) {
    replay(state, name, carried->second);
    reg.runner->note_resumed(c.id.name());
    return;
  }
  const cases::Outcome o = reg.runner->run(c, state.max_iterations);
  switch (o.kind) {
    case cases::Outcome::Kind::skipped:
    case cases::Outcome::Kind::interrupted: report_skip(state, o.message); return;
    case cases::Outcome::Kind::failed: state.SkipWithError(o.message.c_str()); return;
    case cases::Outcome::Kind::measured: break;
  }
  report_launches(state, name, o.launches, o.seconds);
  for (const auto& [counter, value] : o.counters) state.counters[counter] = value;
  if (!o.label.empty()) state.SetLabel(o.label);
}

}  // namespace

std::string benchmark_name(const cases::CaseId& id) { return id.name() + "/manual_time"; }

Filter::Filter(const std::string& spec) {
  // Google Benchmark's order: "" and "all" become "." first, then a leading
  // '-' negates what follows.
  std::string pattern = spec.empty() || spec == "all" ? "." : spec;
  if (pattern.front() == '-') {
    negative_ = true;
    pattern.erase(0, 1);
  }
  constexpr std::size_t kMaxLength = 4096;
  if (pattern.size() > kMaxLength)
    throw Invalid(std::to_string(pattern.size()) + " characters; a filter is at most " + std::to_string(kMaxLength));
  RE2::Options options;
  options.set_posix_syntax(true);  // the extended POSIX expressions Google Benchmark takes...
  options.set_perl_classes(true);  // ...and \d, \s, \w, which its std::regex builds take
  options.set_word_boundary(true);
  options.set_log_errors(false);
  options.set_max_mem(std::int64_t{8} << 20);  // a pattern that needs more is refused, never built
  auto re = std::make_shared<const RE2>(pattern, options);
  if (!re->ok()) throw Invalid("not a valid regular expression (" + re->error() + ")");
  re_ = std::move(re);
}

bool Filter::matches(const std::string& name) const { return RE2::PartialMatch(name, *re_) != negative_; }

bool initialize(std::vector<std::string> args) {
  Registry& reg = registry();
  reg.args = std::move(args);
  reg.argv.clear();
  for (auto& a : reg.args) reg.argv.push_back(a.data());
  reg.argv.push_back(nullptr);
  int argc = static_cast<int>(reg.argv.size()) - 1;
  benchmark::Initialize(&argc, reg.argv.data());
  return !benchmark::ReportUnrecognizedArguments(argc, reg.argv.data());
}

std::string filter() { return benchmark::GetBenchmarkFilter(); }

void register_cases(const std::vector<const cases::CaseSpec*>& cases) {
  Registry& reg = registry();
  reg.cases.clear();
  for (const cases::CaseSpec* c : cases) reg.cases.push_back(*c);
  for (std::size_t i = 0; i < reg.cases.size(); ++i)
    benchmark::RegisterBenchmark(reg.cases[i].id.name().c_str(), [i](benchmark::State& state) { run_case(state, i); })
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
  // Only the selected cases are registered, so Google Benchmark's own match
  // (a backtracking engine) never sees the pattern; ".*" rather than "." (its
  // match-all), which reserves its case list one registration at a time.
  benchmark::SetBenchmarkFilter(".*");
}

std::vector<const cases::CaseSpec*> selected(const std::vector<cases::CaseSpec>& cases, const Filter& filter) {
  std::vector<const cases::CaseSpec*> out;
  for (const auto& c : cases)
    if (filter.matches(benchmark_name(c.id))) out.push_back(&c);
  return out;
}

std::string cases_json(const std::vector<const cases::CaseSpec*>& cases) {
  std::string out = "[";
  for (const auto& entry : case_entries(cases))
    out += (out.size() > 1 ? ",\n " : "\n ") + entry.dump();  // a case a line
  return out + "\n]";
}

nlohmann::ordered_json case_entries(const std::vector<const cases::CaseSpec*>& cases) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const cases::CaseSpec* c : cases) {
    nlohmann::ordered_json tags = nlohmann::ordered_json::object();
    for (const auto& [key, value] : c->id.tags) tags[key] = value;
    nlohmann::ordered_json axes = nlohmann::ordered_json::array();
    for (std::size_t a = 0; a < c->id.axes.size(); ++a) {
      const auto& axis = c->id.axes[a];
      nlohmann::ordered_json entry = {{"name", axis.name}};
      if (axis.label.empty())
        entry["value"] = axis.value;
      else
        entry["value"] = axis.label;
      entry["unit"] = c->axes[a]->unit;
      // An axis added later: the value the cases had before it (a named axis by its name).
      if (const cases::AxisSpec& spec = *c->axes[a]; spec.before) {
        if (spec.names.empty())
          entry["before"] = *spec.before;
        else
          entry["before"] = spec.names.at(static_cast<std::size_t>(*spec.before));
      }
      axes.push_back(entry);
    }
    out.push_back({{"name", benchmark_name(c->id)},
                   {"family", c->id.family},
                   {"variant", c->id.variant},
                   {"tags", tags},
                   {"axes", axes},
                   {"kernels", c->kernels}});
  }
  return out;
}

void set_carried(Carried carried) { registry().carried = std::move(carried); }

void add_context(const std::string& key, const std::string& value) { benchmark::AddCustomContext(key, value); }

void list() { benchmark::RunSpecifiedBenchmarks(); }

void run(cases::Runner& runner, const ResultFileSpec* file) {
  registry().runner = &runner;
  if (file != nullptr) {
    ResultReporter reporter(*file);
    benchmark::RunSpecifiedBenchmarks(nullptr, &reporter);
  } else {
    benchmark::RunSpecifiedBenchmarks();
  }
  registry().runner = nullptr;
}

void shutdown() { benchmark::Shutdown(); }

std::int64_t iterations_to_report(std::int64_t first, std::int64_t max_iterations, std::int64_t launches) {
  if (first > 0 && max_iterations <= first) return first;  // a later repetition
  return std::max(launches, max_iterations);               // the first, or a longer try of it
}

void report_launches(benchmark::State& state, const std::string& key, std::int64_t launches, double seconds) {
  // The per-launch time holds whatever count is reported: the time is
  // scaled to it (fewer launches than asked for are left when throttled
  // batches are dropped; a later repetition reports the first one's count).
  const std::int64_t reported = report_count(key, state.max_iterations, launches);
  state.counters["launches"] = static_cast<double>(launches);
  if (state.KeepRunningBatch(reported)) {
    state.SetIterationTime(seconds * static_cast<double>(reported) / static_cast<double>(launches));
    while (state.KeepRunningBatch(1)) {}
  }
}

std::string min_time_seconds(const std::string& seconds) { return kVersion >= 10800 ? seconds + "s" : seconds; }

}  // namespace membench::gbench
