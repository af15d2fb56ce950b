#include "cli.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#ifndef MEMBENCH_GBENCH_VERSION
#define MEMBENCH_GBENCH_VERSION 10800  // major * 10000 + minor * 100 + patch
#endif

namespace membench::cli {

namespace {

constexpr std::size_t kMaxValues = 10000;

std::string join(const std::vector<std::int64_t>& values) {
  std::string s;
  for (auto v : values) s += (s.empty() ? "" : ",") + std::to_string(v);
  return s;
}

// Like join, but a run of three or more consecutive values reads first:last.
std::string compact(const std::vector<std::int64_t>& values) {
  std::string s;
  for (std::size_t i = 0; i < values.size();) {
    std::size_t j = i;
    while (j + 1 < values.size() && values[j + 1] == values[j] + 1) ++j;
    s += (s.empty() ? "" : ",");
    s += j - i >= 2 ? std::to_string(values[i]) + ":" + std::to_string(values[j]) : std::to_string(values[i]);
    if (j - i == 1) s += "," + std::to_string(values[j]);
    i = j + 1;
  }
  return s;
}

[[noreturn]] void refuse(const std::string& flag, const std::string& text, const std::string& why) {
  throw UsageError("--" + flag + "=" + text + ": " + why);
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// ---- the LIST grammar -------------------------------------------------------

std::int64_t checked_mul(std::int64_t a, std::int64_t b, const std::string& flag, const std::string& text) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) refuse(flag, text, "value does not fit in 64 bits");
  return r;
}

std::int64_t checked_add(std::int64_t a, std::int64_t b, const std::string& flag, const std::string& text) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) refuse(flag, text, "value does not fit in 64 bits");
  return r;
}

// Digits with an optional leading sign; nothing else. `item` is what the
// message shows (the whole value, when s is a part of it).
std::int64_t parse_integer(const std::string& s, const std::string& flag, const std::string& text,
                           const std::string& item) {
  std::size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) negative = s[i++] == '-';
  if (i == s.size()) refuse(flag, text, "'" + item + "' is not a number");
  std::int64_t value = 0;
  for (; i < s.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) refuse(flag, text, "'" + item + "' is not a number");
    value = checked_add(checked_mul(value, 10, flag, text), s[i] - '0', flag, text);
  }
  return negative ? -value : value;
}

// VALUE := integer | B^K | integer with K/M/G.
std::int64_t parse_value_text(const std::string& s, const std::string& flag, const std::string& text) {
  if (s.empty()) refuse(flag, text, "empty value");
  const auto caret = s.find('^');
  if (caret != std::string::npos) {
    const std::int64_t base = parse_integer(s.substr(0, caret), flag, text, s);
    const std::int64_t exponent = parse_integer(s.substr(caret + 1), flag, text, s);
    if (exponent < 0) refuse(flag, text, "negative exponent in '" + s + "'");
    if (exponent > 63) refuse(flag, text, "exponent in '" + s + "' is too large (at most 63)");
    std::int64_t value = 1;
    for (std::int64_t k = 0; k < exponent; ++k) value = checked_mul(value, base, flag, text);
    return value;
  }
  std::int64_t scale = 1;
  std::string digits = s;
  switch (s.back()) {
    case 'K': case 'k': scale = std::int64_t{1} << 10; break;
    case 'M': case 'm': scale = std::int64_t{1} << 20; break;
    case 'G': case 'g': scale = std::int64_t{1} << 30; break;
    default: break;
  }
  if (scale != 1) digits.pop_back();
  return checked_mul(parse_integer(digits, flag, text, s), scale, flag, text);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) parts.push_back(part);
  if (!s.empty() && s.back() == sep) parts.emplace_back();
  return parts;
}

void check_value(const AxisSpec& axis, const std::string& text, std::int64_t v) {
  const std::string shown = std::to_string(v);
  if (!axis.allowed.empty()) {
    if (std::find(axis.allowed.begin(), axis.allowed.end(), v) == axis.allowed.end())
      refuse(axis.name, text, shown + " is not supported (one of " + join(axis.allowed) + ")");
    return;
  }
  if (v < axis.min) {
    const std::string what = v == 0 ? "zero" : (v < 0 ? "a negative value" : shown);
    refuse(axis.name, text, what + " is not allowed (values must be >= " + std::to_string(axis.min) + ")");
  }
  if (v > axis.max) refuse(axis.name, text, shown + " is too large (at most " + std::to_string(axis.max) + ")");
  if (v % axis.multiple_of != 0)
    refuse(axis.name, text, shown + " must be a multiple of " + std::to_string(axis.multiple_of));
}

void append_range(const AxisSpec& axis, const std::string& text, const std::string& item,
                  std::vector<std::int64_t>& out) {
  const auto parts = split(item, ':');
  if (parts.size() < 2 || parts.size() > 3) refuse(axis.name, text, "'" + item + "' is not VALUE:VALUE[:STEP]");
  const std::int64_t first = parse_value_text(parts[0], axis.name, text);
  const std::int64_t last = parse_value_text(parts[1], axis.name, text);
  bool multiply = false;
  std::int64_t step = 1;
  if (parts.size() == 3) {
    const std::string& s = parts[2];
    if (s.size() < 2 || (s[0] != '+' && s[0] != '*')) refuse(axis.name, text, "step '" + s + "' must be +K or *K");
    multiply = s[0] == '*';
    step = parse_value_text(s.substr(1), axis.name, text);
    if (multiply && step < 2) refuse(axis.name, text, "multiplier in '" + s + "' must be at least 2");
    if (!multiply && step < 1) refuse(axis.name, text, "step in '" + s + "' must be at least 1");
  }
  if (first > last) refuse(axis.name, text, "range '" + item + "' is empty (start > end)");
  if (multiply && first <= 0) refuse(axis.name, text, "a *K range must start above zero");
  for (std::int64_t v = first;;) {
    out.push_back(v);
    if (out.size() > kMaxValues) refuse(axis.name, text, "expands to more than " + std::to_string(kMaxValues) + " values");
    std::int64_t next = 0;
    const bool overflow = multiply ? __builtin_mul_overflow(v, step, &next) : __builtin_add_overflow(v, step, &next);
    if (overflow || next > last) break;
    v = next;
  }
}

// ---- plain flag values ------------------------------------------------------

std::optional<bool> bool_value(const std::string& text) {
  const std::string t = lower(text);
  if (t == "true" || t == "1" || t == "yes" || t == "y" || t == "t" || t == "on") return true;
  if (t == "false" || t == "0" || t == "no" || t == "n" || t == "f" || t == "off") return false;
  return std::nullopt;
}

bool parse_bool(const std::string& flag, const std::string& text) {
  if (auto b = bool_value(text)) return *b;
  refuse(flag, text, "expects true or false");
}

double parse_number(const std::string& flag, const std::string& text, double min, double max) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (text.empty() || used != text.size() || !std::isfinite(v)) refuse(flag, text, "'" + text + "' is not a number");
  if (v < min || v > max) {
    std::ostringstream os;
    os << "must be within " << min << ".." << max;
    refuse(flag, text, os.str());
  }
  return v;
}

int parse_int(const std::string& flag, const std::string& text, std::int64_t min, std::int64_t max) {
  const std::int64_t v = parse_value_text(text, flag, text);
  if (v < min || v > max) refuse(flag, text, "must be within " + std::to_string(min) + ".." + std::to_string(max));
  return static_cast<int>(v);
}

// ---- Google Benchmark's flags -------------------------------------------------

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
    if (MEMBENCH_GBENCH_VERSION < 10800)
      refuse(flag, text, "an iteration count (Nx) needs Google Benchmark 1.8 or newer; give seconds");
    parse_int(flag, text.substr(0, text.size() - 1), 1, INT32_MAX);
    return text;
  }
  const std::string seconds = !text.empty() && text.back() == 's' ? text.substr(0, text.size() - 1) : text;
  const double v = parse_number(flag, seconds, -1e6, 1e6);
  if (v <= 0) refuse(flag, text, "must be more than zero seconds");
  return MEMBENCH_GBENCH_VERSION >= 10800 ? seconds + "s" : seconds;
}

// Returns the value to hand on, or throws; `value` is nullopt for --flag.
std::string check_benchmark_flag(const std::string& name, Kind kind, const std::optional<std::string>& value) {
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
    case Kind::regex: CaseFilter{v}; return v;
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
        if (pair.find('=') == std::string::npos || pair.front() == '=') refuse(name, v, "expects KEY=VALUE[,KEY=VALUE...]");
      return v;
    default: return v;
  }
}

// ---- sweep files ---------------------------------------------------------------

// The text a JSON value stands for on the command line.
std::string as_flag_text(const std::string& key, const nlohmann::json& value, bool is_axis) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  if (value.is_number_integer()) return std::to_string(value.get<std::int64_t>());
  if (value.is_number_float() && !is_axis) return value.dump();
  if (value.is_array() && is_axis) {
    std::string text;
    for (const auto& item : value) {
      if (!item.is_string() && !item.is_number_integer())
        refuse(key, value.dump(), "list items must be integers or LIST strings");
      text += (text.empty() ? "" : ",") + (item.is_string() ? item.get<std::string>() : std::to_string(item.get<std::int64_t>()));
    }
    return text;
  }
  refuse(key, value.dump(), is_axis ? "expects a LIST string, an integer or an array" : "expects a string, a number or true/false");
}

std::string read_sweep_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw UsageError("--sweep=" + path + ": no such file");
  if (!std::filesystem::is_regular_file(path, ec)) throw UsageError("--sweep=" + path + ": not a regular file");
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  if (!in || !(text << in.rdbuf())) throw UsageError("--sweep=" + path + ": cannot read the file");
  return text.str();
}

struct Arg {
  std::string name;
  std::optional<std::string> value;
  std::string origin;  // "" for the command line, "--sweep=FILE: " for a file
};

bool is_axis_key(const std::string& key, const AxisTable& axes) {
  const auto dot = key.find('.');
  return dot == std::string::npos ? axes.find(key) != nullptr : axes.find(key.substr(0, dot), key.substr(dot + 1)) != nullptr;
}

// How deeply arrays and objects nest in JSON text (strings skipped), so a
// pathological file is refused before a parser recurses through it.
std::size_t json_depth(const std::string& text) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

constexpr std::size_t kMaxSweepDepth = 8;

// The file's keys as arguments, in the file's order; a key given twice is refused.
std::vector<Arg> sweep_file_args(const std::string& path, const AxisTable& axes) {
  const std::string origin = "--sweep=" + path + ": ";
  const std::string text = read_sweep_file(path);
  if (json_depth(text) > kMaxSweepDepth)
    throw UsageError(origin + "nested more than " + std::to_string(kMaxSweepDepth) + " deep (a sweep file is an object of flag: value)");
  std::set<std::string> seen;
  std::string duplicate;
  const nlohmann::json::parser_callback_t note_keys = [&](int depth, nlohmann::json::parse_event_t event,
                                                          nlohmann::json& parsed) {
    if (depth == 1 && event == nlohmann::json::parse_event_t::key && duplicate.empty() &&
        !seen.insert(parsed.get<std::string>()).second)
      duplicate = parsed.get<std::string>();
    return true;
  };
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text, note_keys);
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(origin + "not valid JSON (" + std::string(e.what()) + ")");
  }
  if (!doc.is_object()) throw UsageError(origin + "expects a JSON object of flag: value");
  if (!duplicate.empty()) throw UsageError(origin + "'" + duplicate + "' is given twice");
  std::vector<Arg> args;
  for (const auto& [key, value] : doc.items()) {
    if (key == "sweep") throw UsageError(origin + "a sweep file cannot name another sweep file");
    try {
      args.push_back({key, as_flag_text(key, value, is_axis_key(key, axes)), origin});
    } catch (const UsageError& e) {
      throw UsageError(origin + e.what());
    }
  }
  return args;
}

std::vector<Arg> command_line_args(int argc, const char* const* argv) {
  std::vector<Arg> args;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h") {
      args.push_back({"help", std::nullopt, ""});
      continue;
    }
    if (!starts_with(arg, "--") || arg.size() == 2)
      throw UsageError("unexpected argument '" + arg + "' (flags look like --name=value)");
    const auto eq = arg.find('=');
    if (eq == std::string::npos) args.push_back({arg.substr(2), std::nullopt, ""});
    else args.push_back({arg.substr(2, eq - 2), arg.substr(eq + 1), ""});
  }
  return args;
}

// Applies one argument to `o`; throws UsageError naming it.
void apply(const Arg& a, const AxisTable& axes, Options& o, std::map<std::string, std::string>& benchmark) {
  const std::string& name = a.name;
  auto need_value = [&]() -> const std::string& {
    if (!a.value) throw UsageError("--" + name + ": expects --" + name + "=VALUE");
    return *a.value;
  };
  if (name == "help") {
    o.help = true;
  } else if (name == "l2_flush") {
    if (!a.value || parse_bool(name, *a.value)) o.measure.l2 = L2Mode::cold;
    else o.measure.l2 = L2Mode::warm;
  } else if (name == "l2") {
    const std::string& v = need_value();
    if (v == "warm") o.measure.l2 = L2Mode::warm;
    else if (v == "cold") o.measure.l2 = L2Mode::cold;
    else if (v == "both") o.measure.l2 = L2Mode::both;
    else refuse(name, v, "expects warm, cold or both");
  } else if (name == "device") {
    const std::string& v = need_value();
    o.device = DeviceSelection{};
    if (v == "all") {
      o.device.kind = DeviceSelection::Kind::all;
    } else if (v == "local") {
      o.device.kind = DeviceSelection::Kind::local;
    } else {
      AxisSpec ordinals;
      ordinals.name = name;
      ordinals.min = 0;
      ordinals.max = 1023;
      o.device.ordinals.clear();
      for (auto d : expand_list(ordinals, v)) {
        if (std::find(o.device.ordinals.begin(), o.device.ordinals.end(), d) != o.device.ordinals.end())
          refuse(name, v, "device " + std::to_string(d) + " is given twice");
        o.device.ordinals.push_back(static_cast<int>(d));
      }
    }
  } else if (name == "exclusive") {
    o.measure.exclusive = !a.value || parse_bool(name, *a.value);
  } else if (name == "resume") {
    if (need_value().empty()) throw UsageError("--resume: expects --resume=FILE.json");
    o.resume_file = *a.value;
  } else if (name == "min_batches") {
    o.measure.min_batches = parse_int(name, need_value(), 1, 100000);
  } else if (name == "max_noise") {
    o.measure.max_noise_pct = parse_number(name, need_value(), 0, 100);
  } else if (name == "max_time") {
    o.measure.max_seconds = parse_number(name, need_value(), 0, 3600);
  } else if (name == "throttle") {
    o.measure.throttle_pct = parse_number(name, need_value(), 0, 100);
  } else if (const auto flag = benchmark_flags().find(name); flag != benchmark_flags().end()) {
    benchmark[name] = check_benchmark_flag(name, flag->second, a.value);
  } else if (starts_with(name, "benchmark_")) {
    throw UsageError("--" + name + ": not a Google Benchmark flag this build knows (see --help)");
  } else if (const auto dot = name.find('.'); dot != std::string::npos) {
    const std::string family = name.substr(0, dot), axis = name.substr(dot + 1);
    const AxisSpec* spec = axes.find(family, axis);
    if (spec == nullptr) throw UsageError("unknown flag '--" + name + "' (no family '" + family + "' with an axis '" + axis + "')");
    AxisSpec named = *spec;
    named.name = name;
    o.scoped[family][axis] = parse_list(named, need_value());
  } else if (const AxisSpec* spec = axes.find(name)) {
    o.sweep[name] = parse_list(*spec, need_value());
  } else {
    throw UsageError("unknown flag '--" + name + (a.value ? "=" + *a.value : "") + "' (see --help)");
  }
}

}  // namespace

namespace {

std::string joined_names(const AxisSpec& axis) {
  std::string s;
  for (const auto& n : axis.names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

std::vector<std::int64_t> parse_names(const AxisSpec& axis, const std::string& text) {
  std::vector<std::int64_t> values;
  for (const auto& item : split(text, ',')) {
    const auto it = std::find(axis.names.begin(), axis.names.end(), item);
    if (it == axis.names.end()) refuse(axis.name, text, "'" + item + "' is not one of " + joined_names(axis));
    const auto v = static_cast<std::int64_t>(it - axis.names.begin());
    if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
  }
  return values;
}

}  // namespace

std::vector<std::int64_t> expand_list(const AxisSpec& axis, const std::string& text) {
  if (text.empty()) refuse(axis.name, text, "empty list");
  std::vector<std::int64_t> values;
  for (const auto& item : split(text, ',')) {
    if (item.empty()) refuse(axis.name, text, "empty item in list");
    if (item.find(':') != std::string::npos) append_range(axis, text, item, values);
    else values.push_back(parse_value_text(item, axis.name, text));
    if (values.size() > kMaxValues) refuse(axis.name, text, "expands to more than " + std::to_string(kMaxValues) + " values");
  }
  for (auto v : values) check_value(axis, text, v);
  return values;
}

std::vector<std::int64_t> parse_list(const AxisSpec& axis, const std::string& text) {
  if (text.empty()) refuse(axis.name, text, "empty list");
  if (!axis.names.empty()) return parse_names(axis, text);
  std::vector<std::int64_t> unique;
  std::set<std::int64_t> seen;  // a set: a list of 10,000 values is checked in n log n
  for (auto v : expand_list(axis, text))
    if (seen.insert(v).second) unique.push_back(v);
  return unique;
}

AxisTable::AxisTable(const std::vector<Use>& declared) {
  for (const auto& use : declared) {
    auto it = std::find_if(flags_.begin(), flags_.end(), [&](const auto& f) { return f.first.name == use.axis.name; });
    if (it == flags_.end()) {
      flags_.push_back({use.axis, {use}});
      continue;
    }
    const AxisSpec& d = it->first;
    if (d.min != use.axis.min || d.max != use.axis.max || d.allowed != use.axis.allowed ||
        d.multiple_of != use.axis.multiple_of || d.names != use.axis.names)
      throw std::logic_error("axis '" + use.axis.name + "' of family '" + use.family +
                             "' accepts other values than family '" + it->second.front().family + "' declared");
    it->second.push_back(use);
  }
}

const AxisSpec* AxisTable::find(const std::string& name) const {
  for (const auto& f : flags_)
    if (f.first.name == name) return &f.first;
  return nullptr;
}

const AxisSpec* AxisTable::find(const std::string& family, const std::string& name) const {
  for (const auto& f : flags_)
    for (const auto& use : f.second)
      if (use.family == family && use.axis.name == name) return &use.axis;
  return nullptr;
}

std::vector<std::int64_t> Options::values(const std::string& family, const std::string& axis,
                                          const std::vector<std::int64_t>& fallback) const {
  if (const auto f = scoped.find(family); f != scoped.end())
    if (const auto a = f->second.find(axis); a != f->second.end()) return a->second;
  const auto it = sweep.find(axis);
  return it == sweep.end() ? fallback : it->second;
}

Options parse_command_line(int argc, const char* const* argv, const AxisTable& axes) {
  const std::vector<Arg> given = command_line_args(argc, argv);
  std::vector<Arg> args;
  std::string sweep_file;
  std::set<std::string> seen;
  for (const auto& a : given) {
    // One flag, one value: a second would silently win (a sweep file's keys are overridden, not repeated).
    const std::string flag = a.name == "l2_flush" ? "l2" : a.name;
    if (!seen.insert(flag).second && flag != "help")
      throw UsageError("--" + a.name + " is given twice (give one list: --" + a.name + "=A,B)");
    if (a.name != "sweep") continue;
    if (!a.value || a.value->empty()) throw UsageError("--sweep: expects --sweep=FILE.json");
    sweep_file = *a.value;
  }
  if (!sweep_file.empty()) args = sweep_file_args(sweep_file, axes);  // the file first: the command line wins
  for (const auto& a : given)
    if (a.name != "sweep") args.push_back(a);

  Options o;
  o.sweep_file = sweep_file;
  std::map<std::string, std::string> benchmark;
  for (const auto& a : args) {
    try {
      apply(a, axes, o, benchmark);
    } catch (const UsageError& e) {
      throw UsageError(a.origin + e.what());
    }
  }
  if (argc > 0) o.passthrough.emplace_back(argv[0]);
  for (const auto& [name, value] : benchmark) o.passthrough.push_back("--" + name + "=" + value);
  o.list_only = benchmark.count("benchmark_list_tests") && benchmark["benchmark_list_tests"] == "true";
  o.min_time_given = benchmark.count("benchmark_min_time") > 0;
  // Without --benchmark_min_time the suite's own stopping rule decides how
  // long a case runs: Google Benchmark is satisfied by the first measurement.
  if (!o.min_time_given) o.passthrough.push_back("--benchmark_min_time=" + normalize_min_time("0.000001"));
  if (benchmark.count("benchmark_filter")) o.filter = benchmark["benchmark_filter"];
  if (benchmark.count("benchmark_out")) o.output_file = benchmark["benchmark_out"];
  if (benchmark.count("benchmark_out_format")) o.output_format = benchmark["benchmark_out_format"];
  if (benchmark.count("benchmark_repetitions")) o.repetitions = std::stoi(benchmark["benchmark_repetitions"]);
  return o;
}

std::string usage(const AxisTable& axes) {
  std::ostringstream os;
  os << "membench: what GPU memory accesses cost, measured with CUDA events and checked against a model.\n\n"
     << "Axis flags fill the case parameters of the same name (LIST := ITEM[,ITEM...],\n"
     << "ITEM := VALUE | VALUE:VALUE[:+K|:*K], VALUE := integer | 2^K | integer with K/M/G).\n"
     << "--AXIS=LIST sets every family's axis; --FAMILY.AXIS=LIST one family's (it wins).\n";
  for (const auto& [domain, uses] : axes.flags()) {
    os << "  --" << domain.name << "=LIST";
    if (!domain.names.empty()) os << "  {" << joined_names(domain) << "}";
    else if (!domain.allowed.empty()) os << "  {" << join(domain.allowed) << "}";
    os << '\n';
    for (const auto& use : uses) {
      std::string defaults = compact(use.axis.defaults);
      if (!use.axis.names.empty()) {
        defaults.clear();
        for (auto v : use.axis.defaults) defaults += (defaults.empty() ? "" : ",") + use.axis.names[static_cast<std::size_t>(v)];
      }
      os << "      " << use.family << ": " << use.axis.help << " (default " << defaults << ")\n";
    }
  }
  const MeasureOptions d;
  os << "\nMeasurement:\n"
     << "  --l2=warm|cold|both      cold: empty the L2 before every timed launch; both: each case twice\n"
     << "                           (cold cases are named .../l2:cold/...); --l2_flush is --l2=cold\n"
     << "  --min_batches=N          timed batches a case needs before it may stop (default " << d.min_batches << ")\n"
     << "  --max_noise=PCT          stop once the per-launch time's relative std. deviation over the\n"
     << "                           batches is at most PCT (default " << d.max_noise_pct << ")\n"
     << "  --max_time=SECONDS       per case: stop there and report noisy = 1 (default " << d.max_seconds << ")\n"
     << "  --throttle=PCT           discard batches that ran below PCT of the peak SM clock (default "
     << d.throttle_pct << ")\n"
     << "  --device=LIST|all|local  the GPUs to measure, one after another (default 0); with more than\n"
     << "                           one, cases are named family/variant/device:K/...; local: the\n"
     << "                           launcher's local rank (SLURM_LOCALID, OMPI_COMM_WORLD_LOCAL_RANK,\n"
     << "                           MPI_LOCALRANKID, LOCAL_RANK)\n"
     << "  --exclusive              for machines that must never publish a contended number: refuse to\n"
     << "                           start while another process holds the GPU, and fail the case and stop\n"
     << "                           (exit 1) if one appears\n"
     << "  --resume=FILE            measure only what FILE (an earlier run's JSON, cut short) lacks; its\n"
     << "                           complete cases are carried over as they are (resumed = 1). FILE must\n"
     << "                           come from this GPU, driver and build; a missing FILE measures all\n"
     << "  --benchmark_out=PATTERN  {host}, {rank} and {device} in the name are filled in (in --resume too)\n"
     << "  --sweep=FILE.json        any of these flags as a JSON object (Google Benchmark's too, e.g.\n"
     << "                           \"benchmark_filter\"); flags on the command line win, key by key\n\n"
     << "Exit status: 0 every selected case ran and verified (cases this GPU cannot run are skipped\n"
     << "with their reason); 1 at least one case failed (wrong result, CUDA error), an uncorrected\n"
     << "ECC error, or --exclusive saw another process; 2 usage: a bad flag or value, an unreadable\n"
     << "sweep or resume file, a filter that is not a regular expression or matches no case;\n"
     << "128 + N after signal N (SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2): the cases not yet run are\n"
     << "skipped, the JSON is whole, and --resume=FILE runs the rest.\n\n"
     << "Google Benchmark's flags work as usual (--benchmark_filter, --benchmark_out, ...;\n"
     << "--benchmark_min_time takes seconds, X or Xs, on every version):\n";
  return os.str();
}

std::string describe_sweep(const Options& options, const AxisTable& axes) {
  // Named axes by their names, the others by their values.
  auto as_json = [&](const AxisSpec* axis, const std::vector<std::int64_t>& values) {
    nlohmann::json list = nlohmann::json::array();
    for (auto v : values) {
      if (axis != nullptr && !axis->names.empty()) list.push_back(axis->names.at(static_cast<std::size_t>(v)));
      else list.push_back(v);
    }
    return list;
  };
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, values] : options.sweep) j[name] = as_json(axes.find(name), values);
  for (const auto& [family, list] : options.scoped)
    for (const auto& [axis, values] : list) j[family + "." + axis] = as_json(axes.find(family, axis), values);
  const char* l2[] = {"warm", "cold", "both"};
  j["l2"] = l2[static_cast<int>(options.measure.l2)];
  j["min_batches"] = options.measure.min_batches;
  j["max_noise"] = options.measure.max_noise_pct;
  j["max_time"] = options.measure.max_seconds;
  j["throttle"] = options.measure.throttle_pct;
  if (options.measure.exclusive) j["exclusive"] = true;
  if (!options.resume_file.empty()) j["resume"] = options.resume_file;
  const char* kinds[] = {"list", "all", "local"};
  if (options.device.kind == DeviceSelection::Kind::list) j["device"] = options.device.ordinals;
  else j["device"] = kinds[static_cast<int>(options.device.kind)];
  if (!options.sweep_file.empty()) j["sweep_file"] = options.sweep_file;
  return j.dump();
}

Environment process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

namespace {

// The first of `names` that is set: its name and, when it is a rank, its value.
struct RankVariable {
  std::string name;
  std::optional<int> value;
  std::string error;
};

std::optional<RankVariable> first_rank(const Environment& env, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const auto v = env(name);
    if (!v) continue;
    char* end = nullptr;
    errno = 0;
    const long r = std::strtol(v->c_str(), &end, 10);
    if (v->empty() || *end != '\0' || errno != 0 || r < 0 || r > 1 << 30)
      return RankVariable{name, std::nullopt, std::string(name) + "=" + *v + ": not a rank (a non-negative integer)"};
    return RankVariable{name, static_cast<int>(r), ""};
  }
  return std::nullopt;
}

}  // namespace

LauncherInfo launcher_info(const Environment& env) {
  LauncherInfo info;
  if (const auto local = first_rank(env, {"SLURM_LOCALID", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "LOCAL_RANK"})) {
    info.local_rank_variable = local->name;
    info.local_rank = local->value;
    info.local_rank_error = local->error;
  }
  if (const auto rank = first_rank(env, {"SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "RANK"})) {
    info.rank = rank->value;
    info.rank_error = rank->error;
  }
  for (const char* name : {"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID"}) {
    if (const auto v = env(name)) {
      info.job_id = *v;
      break;
    }
  }
  return info;
}

bool corrupt_for_test(const Environment& env) {
  const auto v = env("MEMBENCH_TEST_CORRUPT");
  if (!v || v->empty() || *v == "0") return false;
  if (*v == "1") return true;
  throw UsageError("MEMBENCH_TEST_CORRUPT=" + *v + ": expects 0 or 1 (a test hook)");
}

std::vector<int> resolve_devices(const DeviceSelection& selection, int visible, const LauncherInfo& launcher) {
  switch (selection.kind) {
    case DeviceSelection::Kind::all: {
      std::vector<int> all;
      for (int d = 0; d < visible; ++d) all.push_back(d);
      return all;
    }
    case DeviceSelection::Kind::local: {
      if (!launcher.local_rank_error.empty()) throw UsageError("--device=local: " + launcher.local_rank_error);
      if (!launcher.local_rank)
        throw UsageError("--device=local: no local rank is set (SLURM_LOCALID, OMPI_COMM_WORLD_LOCAL_RANK, "
                         "MPI_LOCALRANKID or LOCAL_RANK); start membench under a launcher or pass --device=N");
      if (visible == 1) return {0};  // the launcher bound this process to its GPU
      if (*launcher.local_rank >= visible)
        throw UsageError("--device=local: " + launcher.local_rank_variable + "=" + std::to_string(*launcher.local_rank) +
                         " but only " + std::to_string(visible) + " device(s) visible");
      return {*launcher.local_rank};
    }
    case DeviceSelection::Kind::list:
      break;
  }
  for (int d : selection.ordinals)
    if (d >= visible)
      throw UsageError("--device=" + std::to_string(d) + ": only " + std::to_string(visible) + " device(s) visible");
  return selection.ordinals;
}

std::string expand_output_pattern(const std::string& pattern, const std::string& host, const LauncherInfo& launcher,
                                  int device) {
  if (pattern.find("{rank}") != std::string::npos) {
    // The global rank's variable decides when it is set, else the local rank's.
    const std::string& bad = !launcher.rank_error.empty() || launcher.rank ? launcher.rank_error : launcher.local_rank_error;
    if (!bad.empty()) throw UsageError("{rank} cannot be filled in: " + bad);
  }
  const int rank = launcher.rank ? *launcher.rank : launcher.local_rank ? *launcher.local_rank : 0;
  const std::pair<std::string, std::string> fields[] = {
      {"{host}", host}, {"{rank}", std::to_string(rank)}, {"{device}", std::to_string(device)}};
  std::string out = pattern;
  for (const auto& [key, value] : fields)
    for (auto at = out.find(key); at != std::string::npos; at = out.find(key, at + value.size()))
      out.replace(at, key.size(), value);
  return out;
}

CaseFilter::CaseFilter(const std::string& spec) {
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
    throw UsageError("--benchmark_filter=" + spec + ": not a valid regular expression (" + e.what() + ")");
  }
}

bool CaseFilter::matches(const std::string& name) const { return std::regex_search(name, re_) != negative_; }

}  // namespace membench::cli
