#include "gbench/adapter.hpp"

#include <benchmark/benchmark.h>

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
  // How far the replay of each carried case has got: Google Benchmark calls
  // a case once per repetition, and the first repetition again with more
  // iterations when --benchmark_min_time asks for them.
  struct Replay {
    std::size_t index = 0;
    int calls = 0;
    benchmark::IterationCount last_max = 0;
  };
  std::map<std::string, Replay> replays;
};

Registry& registry() {
  static Registry r;
  return r;
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
  Registry::Replay& r = registry().replays[name];
  if (r.calls > 0 && state.max_iterations <= r.last_max) ++r.index;  // the next repetition
  r.last_max = state.max_iterations;
  ++r.calls;
  const CarriedRun& run = runs[std::min(r.index, runs.size() - 1)];
  static const std::map<std::string, double> kPerSecond = {{"ns", 1e9}, {"us", 1e6}, {"ms", 1e3}, {"s", 1.0}};
  const auto unit = kPerSecond.find(run.time_unit);
  const double real_time = unit == kPerSecond.end() || unit->second == kReportedPerSecond
                               ? run.real_time
                               : run.real_time / unit->second * kReportedPerSecond;
  const benchmark::IterationCount iterations = std::max<benchmark::IterationCount>(run.iterations, state.max_iterations);
  if (state.KeepRunningBatch(iterations)) {
    state.SetIterationTime(manual_seconds_for(real_time, kReportedPerSecond, iterations));
    while (state.KeepRunningBatch(1)) {
    }
  }
  for (const auto& [counter, value] : run.counters) state.counters[counter] = value;
  state.counters["resumed"] = 1;
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
    case cases::Outcome::Kind::interrupted:
      report_skip(state, o.message);
      return;
    case cases::Outcome::Kind::failed:
      state.SkipWithError(o.message.c_str());
      return;
    case cases::Outcome::Kind::measured:
      break;
  }
  report_launches(state, o.launches, o.seconds);
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
  try {
    re_ = std::regex(pattern, std::regex_constants::extended);
  } catch (const std::regex_error& e) {
    throw Invalid(std::string("not a valid regular expression (") + e.what() + ")");
  }
}

bool Filter::matches(const std::string& name) const { return std::regex_search(name, re_) != negative_; }

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

void register_cases(const std::vector<cases::CaseSpec>& cases) {
  Registry& reg = registry();
  reg.cases = cases;
  for (std::size_t i = 0; i < reg.cases.size(); ++i)
    benchmark::RegisterBenchmark(reg.cases[i].id.name().c_str(), [i](benchmark::State& state) { run_case(state, i); })
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
  // Google Benchmark reserves its case list one registration at a time when
  // the filter is "." (its match-all), which is quadratic in the
  // registrations; an equivalent expression avoids it.
  if (const std::string f = benchmark::GetBenchmarkFilter(); f.empty() || f == "all" || f == ".")
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
  for (const cases::CaseSpec* c : cases) {
    nlohmann::ordered_json tags = nlohmann::ordered_json::object();
    for (const auto& [key, value] : c->id.tags) tags[key] = value;
    nlohmann::ordered_json axes = nlohmann::ordered_json::array();
    for (std::size_t a = 0; a < c->id.axes.size(); ++a) {
      const auto& axis = c->id.axes[a];
      nlohmann::ordered_json entry = {{"name", axis.name}};
      if (axis.label.empty()) entry["value"] = axis.value;
      else entry["value"] = axis.label;
      entry["unit"] = c->axes[a]->unit;
      axes.push_back(entry);
    }
    const nlohmann::ordered_json entry = {{"name", benchmark_name(c->id)}, {"family", c->id.family},
                                          {"variant", c->id.variant}, {"tags", tags}, {"axes", axes},
                                          {"kernels", c->kernels}};
    out += (out.size() > 1 ? ",\n " : "\n ") + entry.dump();  // a case a line
  }
  return out + "\n]";
}

void set_carried(Carried carried) { registry().carried = std::move(carried); }

void add_context(const std::string& key, const std::string& value) { benchmark::AddCustomContext(key, value); }

void list() { benchmark::RunSpecifiedBenchmarks(); }

void run(cases::Runner& runner) {
  registry().runner = &runner;
  benchmark::RunSpecifiedBenchmarks();
  registry().runner = nullptr;
}

void shutdown() { benchmark::Shutdown(); }

void report_launches(benchmark::State& state, std::int64_t launches, double seconds) {
  // Throttled batches are dropped; if fewer launches than Google Benchmark
  // asked for are left, the time is scaled so the per-launch time holds.
  const benchmark::IterationCount reported = std::max<benchmark::IterationCount>(launches, state.max_iterations);
  if (state.KeepRunningBatch(reported)) {
    state.SetIterationTime(seconds * static_cast<double>(reported) / static_cast<double>(launches));
    while (state.KeepRunningBatch(1)) {
    }
  }
}

std::string min_time_seconds(const std::string& seconds) { return kVersion >= 10800 ? seconds + "s" : seconds; }

}  // namespace membench::gbench
