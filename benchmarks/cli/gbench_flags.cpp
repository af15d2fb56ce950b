#include "cli/gbench_flags.hpp"

#include <cctype>
#include <cstdint>
#include <map>

#include "cli/grammar.hpp"
#include "gbench/adapter.hpp"

namespace membench::cli {

namespace {

enum class Kind { boolean, integer, number, nonempty, regex, duration, format, color, unit, context, host_counters };

struct FlagKind {
  const char* name;
  Kind kind;
};

// A constant table: take_benchmark_variables reads it before any initialiser has run.
constexpr FlagKind kBenchmarkFlags[] = {
    {"benchmark_list_tests", Kind::boolean},
    {"benchmark_filter", Kind::regex},
    {"benchmark_min_time", Kind::duration},
    {"benchmark_min_warmup_time", Kind::number},
    {"benchmark_repetitions", Kind::integer},
    {"benchmark_enable_random_interleaving", Kind::boolean},
    {"benchmark_report_aggregates_only", Kind::boolean},
    {"benchmark_display_aggregates_only", Kind::boolean},
    {"benchmark_format", Kind::format},
    {"benchmark_out_format", Kind::format},
    {"benchmark_out", Kind::nonempty},
    {"benchmark_color", Kind::color},
    {"benchmark_counters_tabular", Kind::boolean},
    {"benchmark_perf_counters", Kind::host_counters},
    {"benchmark_context", Kind::context},
    {"benchmark_time_unit", Kind::unit},
    {"v", Kind::integer},
};
constexpr std::size_t kFlagCount = sizeof kBenchmarkFlags / sizeof kBenchmarkFlags[0];

const std::map<std::string, Kind>& benchmark_flags() {
  static const std::map<std::string, Kind> flags = [] {
    std::map<std::string, Kind> m;
    for (const FlagKind& f : kBenchmarkFlags) m.emplace(f.name, f.kind);
    return m;
  }();
  return flags;
}

// The variables taken out of the environment ("NAME=value", the process's
// own strings), one per flag at most.
const char* g_taken[kFlagCount] = {};

// Does "NAME=value" name flag f's variable (its name in capitals)? No allocation.
const char* value_if_variable(const char* entry, const FlagKind& f) {
  std::size_t i = 0;
  for (; f.name[i] != '\0'; ++i)
    if (entry[i] != static_cast<char>(std::toupper(static_cast<unsigned char>(f.name[i])))) return nullptr;
  return entry[i] == '=' ? entry + i + 1 : nullptr;
}

// --benchmark_min_time: seconds as X or Xs on every version, or Nx iterations
// where Google Benchmark (>= 1.8) understands it; written in the form the
// linked version expects (1.7 takes plain seconds, 1.8 warns about them).
std::string normalize_min_time(const std::string& text) {
  const std::string flag = "benchmark_min_time";
  if (!text.empty() && text.back() == 'x') {
    if (!gbench::kMinTimeTakesIterations)
      refuse(flag, text, "an iteration count (Nx) needs Google Benchmark 1.8 or newer; give seconds");
    parse_int(flag, text.substr(0, text.size() - 1), 1, INT32_MAX);
    return text;
  }
  const std::string seconds = !text.empty() && text.back() == 's' ? text.substr(0, text.size() - 1) : text;
  const double v = parse_number(flag, seconds, -1e6, 1e6);
  if (v <= 0) refuse(flag, text, "must be more than zero seconds");
  return gbench::min_time_seconds(seconds);
}

// Returns the value to hand on, or throws; `value` is nullopt for --flag.
std::string check_flag(const std::string& name, Kind kind, const std::optional<std::string>& value) {
  if (kind == Kind::boolean) return value ? (parse_bool(name, *value) ? "true" : "false") : "true";
  if (!value) throw UsageError("--" + name + ": expects --" + name + "=VALUE");
  const std::string& v = *value;
  auto one_of = [&](std::initializer_list<const char*> options) {
    std::string list;
    for (const char* o : options) {
      if (v == o) return v;
      list += (list.empty() ? "" : ", ") + std::string(o);
    }
    refuse(name, v, "expects one of " + list);
  };
  switch (kind) {
    case Kind::integer: return std::to_string(parse_int(name, v, name == "v" ? 0 : 1, INT32_MAX));
    case Kind::number: parse_number(name, v, 0, 1e6); return v;
    case Kind::nonempty:
      if (v.empty()) refuse(name, v, "expects a file name");
      return v;
    case Kind::regex: try { gbench::Filter{v};
      } catch (const gbench::Filter::Invalid& e) { refuse(name, v, e.what()); }
      return v;
    case Kind::duration: return normalize_min_time(v);
    case Kind::format: return one_of({"console", "json", "csv"});
    case Kind::color: {
      if (v == "auto") return v;
      if (auto b = bool_value(v)) return *b ? "true" : "false";
      refuse(name, v, "expects auto, true or false");
    }
    case Kind::unit: return one_of({"ns", "us", "ms", "s"});
    case Kind::context:
      for (const auto& pair : split(v, ','))
        if (pair.find('=') == std::string::npos || pair.front() == '=')
          refuse(name, v, "expects KEY=VALUE[,KEY=VALUE...]");
      return v;
    case Kind::boolean: break;  // answered above
    case Kind::host_counters:
      // Google Benchmark would read them around each case's host thread,
      // which only waits on the GPU; a name it does not know it drops with a
      // warning.
      if (!v.empty()) refuse(name, v, "membench times the GPU; host CPU counters around its launches are not measured");
      return v;
  }
  return v;
}

}  // namespace

bool is_benchmark_flag(const std::string& name) { return benchmark_flags().count(name) != 0; }

std::string check_benchmark_flag(const std::string& name, const std::optional<std::string>& value) {
  return check_flag(name, benchmark_flags().at(name), value);
}

std::vector<std::string> environment_flags(const Environment& env) {
  std::vector<std::string> flags;
  for (const auto& [name, kind] : benchmark_flags()) {
    std::string variable = name;
    for (char& c : variable) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const std::optional<std::string> value = env(variable);
    if (!value) continue;
    try {
      check_flag(name, kind, value);
    } catch (const UsageError& e) {
      throw UsageError("environment " + variable + "=" + printable(*value) + " (as --" + name +
                       "): " + std::string(e.what()).substr(std::string(e.what()).find(": ") + 2));
    }
    flags.push_back("--" + name + "=" + *value);
  }
  return flags;
}

void take_benchmark_variables(char** environment) {
  if (environment == nullptr) return;
  char** kept = environment;
  for (char** e = environment; *e != nullptr; ++e) {
    bool taken = false;
    for (std::size_t f = 0; f < kFlagCount && !taken; ++f)
      if (value_if_variable(*e, kBenchmarkFlags[f]) != nullptr) {
        if (g_taken[f] == nullptr) g_taken[f] = *e;  // the first, as getenv reads it; every one goes
        taken = true;
      }
    if (!taken) *kept++ = *e;
  }
  *kept = nullptr;
}

std::optional<std::string> taken_benchmark_variable(const std::string& name) {
  for (std::size_t f = 0; f < kFlagCount; ++f)
    if (g_taken[f] != nullptr)
      if (const char* value = value_if_variable((name + "=").c_str(), kBenchmarkFlags[f]); value != nullptr)
        return std::string(g_taken[f] + name.size() + 1);
  return std::nullopt;
}

std::string default_min_time() { return normalize_min_time("0.000001"); }

}  // namespace membench::cli
