#include "cli.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "membench/async.hpp"
#include "membench/global.hpp"
#include "membench/shared.hpp"

namespace membench::cli {

namespace {

constexpr std::size_t kMaxValues = 10000;

template <class List>
std::vector<std::int64_t> as_vector(const List& list) {
  return std::vector<std::int64_t>(std::begin(list), std::end(list));
}

std::string join(const std::vector<std::int64_t>& values) {
  std::string s;
  for (auto v : values) s += (s.empty() ? "" : ",") + std::to_string(v);
  return s;
}

[[noreturn]] void refuse(const std::string& flag, const std::string& text, const std::string& why) {
  throw UsageError("--" + flag + "=" + text + ": " + why);
}

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

// Digits with an optional leading minus sign; nothing else.
std::int64_t parse_integer(const std::string& s, const std::string& flag, const std::string& text) {
  std::size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) negative = s[i++] == '-';
  if (i == s.size()) refuse(flag, text, "'" + s + "' is not a number");
  std::int64_t value = 0;
  for (; i < s.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) refuse(flag, text, "'" + s + "' is not a number");
    value = checked_add(checked_mul(value, 10, flag, text), s[i] - '0', flag, text);
  }
  return negative ? -value : value;
}

// VALUE := integer | B^K | integer with K/M/G.
std::int64_t parse_value_text(const std::string& s, const std::string& flag, const std::string& text) {
  if (s.empty()) refuse(flag, text, "empty value");
  const auto caret = s.find('^');
  if (caret != std::string::npos) {
    const std::int64_t base = parse_integer(s.substr(0, caret), flag, text);
    const std::int64_t exponent = parse_integer(s.substr(caret + 1), flag, text);
    if (exponent < 0) refuse(flag, text, "negative exponent in '" + s + "'");
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
  return checked_mul(parse_integer(digits, flag, text), scale, flag, text);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) parts.push_back(part);
  if (!s.empty() && s.back() == sep) parts.emplace_back();
  return parts;
}

void check_value(const FlagSpec& flag, const std::string& text, std::int64_t v) {
  const std::string shown = std::to_string(v);
  if (!flag.allowed.empty()) {
    if (std::find(flag.allowed.begin(), flag.allowed.end(), v) == flag.allowed.end())
      refuse(flag.name, text, shown + " is not supported (one of " + join(flag.allowed) + ")");
    return;
  }
  if (v < flag.min) {
    const std::string what = v == 0 ? "zero" : (v < 0 ? "a negative value" : shown);
    refuse(flag.name, text, what + " is not allowed (values must be >= " + std::to_string(flag.min) + ")");
  }
  if (v > flag.max) refuse(flag.name, text, shown + " is too large (at most " + std::to_string(flag.max) + ")");
  if (v % flag.multiple_of != 0)
    refuse(flag.name, text, shown + " must be a multiple of " + std::to_string(flag.multiple_of));
}

void append_range(const FlagSpec& flag, const std::string& text, const std::string& item,
                  std::vector<std::int64_t>& out) {
  const auto parts = split(item, ':');
  if (parts.size() < 2 || parts.size() > 3) refuse(flag.name, text, "'" + item + "' is not VALUE:VALUE[:STEP]");
  const std::int64_t first = parse_value_text(parts[0], flag.name, text);
  const std::int64_t last = parse_value_text(parts[1], flag.name, text);
  bool multiply = false;
  std::int64_t step = 1;
  if (parts.size() == 3) {
    const std::string& s = parts[2];
    if (s.size() < 2 || (s[0] != '+' && s[0] != '*'))
      refuse(flag.name, text, "step '" + s + "' must be +K or *K");
    multiply = s[0] == '*';
    step = parse_value_text(s.substr(1), flag.name, text);
    if (multiply && step < 2) refuse(flag.name, text, "multiplier in '" + s + "' must be at least 2");
    if (!multiply && step < 1) refuse(flag.name, text, "step in '" + s + "' must be at least 1");
  }
  if (first > last) refuse(flag.name, text, "range '" + item + "' is empty (start > end)");
  if (multiply && first <= 0) refuse(flag.name, text, "a *K range must start above zero");
  for (std::int64_t v = first;;) {
    out.push_back(v);
    if (out.size() > kMaxValues) refuse(flag.name, text, "expands to more than " + std::to_string(kMaxValues) + " values");
    std::int64_t next = 0;
    const bool overflow = multiply ? __builtin_mul_overflow(v, step, &next) : __builtin_add_overflow(v, step, &next);
    if (overflow || next > last) break;
    v = next;
  }
}

bool parse_bool(const std::string& flag, const std::string& text) {
  if (text == "true" || text == "1" || text == "yes") return true;
  if (text == "false" || text == "0" || text == "no") return false;
  refuse(flag, text, "expects true or false");
}

int parse_device(const std::string& text) {
  if (text.find_first_of(",:") != std::string::npos) refuse("device", text, "expects one device ordinal");
  const std::int64_t v = parse_value_text(text, "device", text);
  if (v < 0) refuse("device", text, "a negative value is not allowed (ordinals start at 0)");
  if (v > 1024) refuse("device", text, "no such device ordinal");
  return static_cast<int>(v);
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// Google Benchmark's own flags, handed on untouched.
bool is_benchmark_flag(const std::string& arg) {
  return starts_with(arg, "--benchmark_") || arg == "--v" || starts_with(arg, "--v=");
}

bool is_list_tests(const std::string& arg) {
  return arg == "--benchmark_list_tests" || arg == "--benchmark_list_tests=true" ||
         arg == "--benchmark_list_tests=1";
}

}  // namespace

const std::vector<FlagSpec>& sweep_flags() {
  static const std::vector<FlagSpec> flags = [] {
    std::vector<FlagSpec> f;
    auto add = [&](FlagSpec spec) { f.push_back(std::move(spec)); };
    add({"n", 1, std::int64_t{1} << 40, {}, 1,
         "elements (global, layout, async) or matrix side (shared row/column/swizzle)"});
    add({"stride", 1, std::int64_t{1} << 30, {}, 1, "global/strided: element stride between threads"});
    add({"vec", 1, 4, as_vector(kVectorWidths), 1, "global/vectorized: floats per access"});
    add({"ilp", 1, 8, as_vector(kIlpDepths), 1, "global/vectorized: independent loads in flight per thread"});
    add({"persistent", 0, 1, {0, 1}, 1, "global/vectorized: 1 = grid-stride over a resident grid, 0 = one trip"});
    add({"fields", 1, 4, {1, 2, 3, 4}, 1, "layout: fields of the 4-float struct read and written"});
    add({"pad", 0, 32, as_vector(kSharedPads), 1, "shared/column: floats of padding per tile row"});
    add({"shared_stride", 1, 1024, {}, 1, "shared/conflict_degree: element stride between lanes"});
    add({"width", 4, 16, as_vector(kConflictWidths), 1, "shared/conflict_degree: bytes per access"});
    add({"tile", 512, 4096, as_vector(kAsyncTiles), 1, "async: floats per tile"});
    add({"stages", 1, 8, as_vector(kAsyncStages), 1, "async/pipeline, async/bulk: tiles in flight"});
    add({"flops", 0, kAsyncMaxFlops, {}, 2, "async: floating-point operations per element"});
    return f;
  }();
  return flags;
}

const FlagSpec* find_sweep_flag(const std::string& name) {
  for (const auto& f : sweep_flags())
    if (f.name == name) return &f;
  return nullptr;
}

std::vector<std::int64_t> parse_list(const FlagSpec& flag, const std::string& text) {
  if (text.empty()) refuse(flag.name, text, "empty list");
  std::vector<std::int64_t> values;
  for (const auto& item : split(text, ',')) {
    if (item.empty()) refuse(flag.name, text, "empty item in list");
    if (item.find(':') != std::string::npos)
      append_range(flag, text, item, values);
    else
      values.push_back(parse_value_text(item, flag.name, text));
    if (values.size() > kMaxValues) refuse(flag.name, text, "expands to more than " + std::to_string(kMaxValues) + " values");
  }
  std::vector<std::int64_t> unique;
  for (auto v : values) {
    check_value(flag, text, v);
    if (std::find(unique.begin(), unique.end(), v) == unique.end()) unique.push_back(v);
  }
  return unique;
}

std::vector<std::int64_t> Options::values(const std::string& name, const std::vector<std::int64_t>& fallback) const {
  const auto it = sweep.find(name);
  return it == sweep.end() ? fallback : it->second;
}

namespace {

std::vector<std::int64_t> json_list(const FlagSpec& flag, const nlohmann::json& value) {
  if (value.is_string()) return parse_list(flag, value.get<std::string>());
  if (value.is_number_integer()) return parse_list(flag, std::to_string(value.get<std::int64_t>()));
  if (value.is_array()) {
    std::string text;
    for (const auto& item : value) {
      if (!item.is_string() && !item.is_number_integer())
        refuse(flag.name, value.dump(), "list items must be integers or LIST strings");
      text += (text.empty() ? "" : ",") + (item.is_string() ? item.get<std::string>() : std::to_string(item.get<std::int64_t>()));
    }
    return parse_list(flag, text);
  }
  refuse(flag.name, value.dump(), "expects a LIST string, an integer or an array");
}

}  // namespace

Options parse_sweep_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError("--sweep=" + path + ": cannot open the file");
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw UsageError("--sweep=" + path + ": not valid JSON (" + std::string(e.what()) + ")");
  }
  if (!doc.is_object()) throw UsageError("--sweep=" + path + ": expects a JSON object of flag: LIST");
  Options options;
  for (const auto& [key, value] : doc.items()) {
    try {
      if (key == "device") {
        options.device = parse_device(value.is_string() ? value.get<std::string>() : value.dump());
      } else if (key == "l2_flush") {
        if (!value.is_boolean()) refuse("l2_flush", value.dump(), "expects true or false");
        options.l2_flush = value.get<bool>();
      } else if (const FlagSpec* flag = find_sweep_flag(key)) {
        options.sweep[key] = json_list(*flag, value);
      } else {
        throw UsageError("'" + key + "' is not a sweep flag");
      }
    } catch (const UsageError& e) {
      throw UsageError("--sweep=" + path + ": " + e.what());
    }
  }
  return options;
}

Options parse_command_line(int argc, const char* const* argv) {
  Options cli;
  std::optional<int> device;
  std::optional<bool> l2_flush;
  if (argc > 0) cli.passthrough.emplace_back(argv[0]);
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (is_benchmark_flag(arg)) {
      cli.list_only = cli.list_only || is_list_tests(arg);
      cli.passthrough.push_back(arg);
      continue;
    }
    if (arg == "--help" || arg == "-h") {
      cli.help = true;
      continue;
    }
    if (!starts_with(arg, "--")) throw UsageError("unexpected argument '" + arg + "' (flags look like --name=value)");
    const auto eq = arg.find('=');
    const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    const bool has_value = eq != std::string::npos;
    const std::string value = has_value ? arg.substr(eq + 1) : "";
    if (name == "l2_flush") {
      l2_flush = has_value ? parse_bool(name, value) : true;
    } else if (name == "device") {
      if (!has_value) throw UsageError("--device: expects --device=N");
      device = parse_device(value);
    } else if (name == "sweep") {
      if (!has_value || value.empty()) throw UsageError("--sweep: expects --sweep=FILE.json");
      cli.sweep_file = value;
    } else if (const FlagSpec* flag = find_sweep_flag(name)) {
      if (!has_value) throw UsageError("--" + name + ": expects --" + name + "=LIST");
      cli.sweep[name] = parse_list(*flag, value);
    } else {
      throw UsageError("unknown flag '" + arg + "' (see --help)");
    }
  }
  if (cli.sweep_file.empty()) {
    cli.device = device.value_or(0);
    cli.l2_flush = l2_flush.value_or(false);
    return cli;
  }
  // The file pins a sweep; flags on the command line win, key by key.
  Options merged = parse_sweep_file(cli.sweep_file);
  for (auto& [name, values] : cli.sweep) merged.sweep[name] = values;
  if (device) merged.device = *device;
  if (l2_flush) merged.l2_flush = *l2_flush;
  merged.sweep_file = cli.sweep_file;
  merged.help = cli.help;
  merged.list_only = cli.list_only;
  merged.passthrough = cli.passthrough;
  return merged;
}

std::string usage() {
  std::ostringstream os;
  os << "membench: what GPU memory-access patterns cost, measured with CUDA events.\n\n"
     << "Sweep flags (LIST := ITEM[,ITEM...], ITEM := VALUE | VALUE:VALUE[:+K|:*K],\n"
     << "            VALUE := integer | 2^K | integer with K/M/G suffix):\n";
  for (const auto& f : sweep_flags()) {
    os << "  --" << f.name << "=LIST";
    os << std::string(f.name.size() < 14 ? 14 - f.name.size() : 1, ' ') << f.help;
    if (!f.allowed.empty()) os << " {" << join(f.allowed) << "}";
    os << '\n';
  }
  os << "  --device=N             CUDA device ordinal (default 0)\n"
     << "  --l2_flush             empty the L2 before every timed launch\n"
     << "  --sweep=FILE.json      read sweep flags from a JSON object; command-line flags win\n\n"
     << "Google Benchmark's flags work as usual (--benchmark_filter, --benchmark_out, ...):\n";
  return os.str();
}

std::string describe_sweep(const Options& options) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, values] : options.sweep) j[name] = values;
  j["l2_flush"] = options.l2_flush;
  j["device"] = options.device;
  if (!options.sweep_file.empty()) j["sweep_file"] = options.sweep_file;
  return j.dump();
}

}  // namespace membench::cli
