#include "cli/gbench_flags.hpp"

#include <cctype>
#include <cstdint>
#include <map>

#include "cli/grammar.hpp"
#include "gbench/adapter.hpp"

namespace membench::cli {

namespace {

enum class Kind { boolean, integer, number, text, nonempty, regex, duration, format, color, unit, context };

const std::map<std::string, Kind>& benchmark_flags() {
  static const std::map<std::string, Kind> flags = {
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
      {"benchmark_perf_counters", Kind::text},
      {"benchmark_context", Kind::context},
      {"benchmark_time_unit", Kind::unit},
      {"v", Kind::integer},
  };
  return flags;
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
    default: return v;
  }
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

std::string default_min_time() { return normalize_min_time("0.000001"); }

}  // namespace membench::cli
