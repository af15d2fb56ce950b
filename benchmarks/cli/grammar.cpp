#include "cli/grammar.hpp"

#include <cstdio>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <sstream>

namespace membench::cli {

namespace {

constexpr std::size_t kMaxValues = 10000;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
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
    // A sign stands for the whole power: -2^20 is -(2^20), as written.
    const bool negative = s[0] == '-';
    const std::size_t digits = s[0] == '-' || s[0] == '+' ? 1 : 0;
    const std::string base_text = s.substr(digits, caret - digits);
    if (!base_text.empty() && (base_text[0] == '-' || base_text[0] == '+'))
      refuse(flag, text, "'" + s + "' is not a number");
    const std::int64_t base = parse_integer(base_text, flag, text, s);
    const std::int64_t exponent = parse_integer(s.substr(caret + 1), flag, text, s);
    if (exponent < 0) refuse(flag, text, "negative exponent in '" + s + "'");
    if (exponent > 63) refuse(flag, text, "exponent in '" + s + "' is too large (at most 63)");
    std::int64_t value = 1;
    for (std::int64_t k = 0; k < exponent; ++k) value = checked_mul(value, base, flag, text);
    return negative ? -value : value;
  }
  std::int64_t scale = 1;
  std::string digits = s;
  switch (s.back()) {
    case 'K':
    case 'k': scale = std::int64_t{1} << 10; break;
    case 'M':
    case 'm': scale = std::int64_t{1} << 20; break;
    case 'G':
    case 'g': scale = std::int64_t{1} << 30; break;
    default: break;
  }
  if (scale != 1) digits.pop_back();
  return checked_mul(parse_integer(digits, flag, text, s), scale, flag, text);
}

}  // namespace

[[noreturn]] void refuse(const std::string& flag, const std::string& text, const std::string& why) {
  throw UsageError("--" + flag + "=" + printable(text) + ": " + why);
}

std::string printable(const std::string& text, std::size_t max) {
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else if (u < 0x20 || u == 0x7f) {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", u);
      out += hex;
    } else
      out += c;
  }
  if (out.size() <= max) return out;
  const std::size_t keep = max / 2;
  return out.substr(0, keep) + "...(" + std::to_string(out.size() - 2 * keep) + " more)..." +
         out.substr(out.size() - keep);
}

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

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) parts.push_back(part);
  if (!s.empty() && s.back() == sep) parts.emplace_back();
  return parts;
}

namespace {

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
    if (out.size() > kMaxValues)
      refuse(axis.name, text, "expands to more than " + std::to_string(kMaxValues) + " values");
    std::int64_t next = 0;
    const bool overflow = multiply ? __builtin_mul_overflow(v, step, &next) : __builtin_add_overflow(v, step, &next);
    if (overflow || next > last) break;
    v = next;
  }
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

// A decimal number as a person writes one: [+-]digits[.digits][e[+-]digits]
// (or .digits); no space, hexadecimal, inf or nan, which strtod would take.
bool is_decimal(const std::string& t) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t from = i;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
    return i - from;
  };
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
  std::size_t mantissa = digits();
  if (i < t.size() && t[i] == '.') {
    ++i;
    mantissa += digits();
  }
  if (mantissa == 0) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == t.size();
}

double parse_number(const std::string& flag, const std::string& text, double min, double max) {
  std::size_t used = 0;
  double v = 0;
  if (is_decimal(text)) try {
      v = std::stod(text, &used);
    } catch (const std::exception&) { used = 0; }
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

std::string joined_names(const AxisSpec& axis) {
  std::string s;
  for (const auto& n : axis.names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

std::vector<std::int64_t> expand_list(const AxisSpec& axis, const std::string& text) {
  if (text.empty()) refuse(axis.name, text, "empty list");
  std::vector<std::int64_t> values;
  for (const auto& item : split(text, ',')) {
    if (item.empty()) refuse(axis.name, text, "empty item in list");
    if (item.find(':') != std::string::npos)
      append_range(axis, text, item, values);
    else
      values.push_back(parse_value_text(item, axis.name, text));
    if (values.size() > kMaxValues)
      refuse(axis.name, text, "expands to more than " + std::to_string(kMaxValues) + " values");
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
    if (d.unit != use.axis.unit)
      throw std::logic_error("axis '" + use.axis.name + "' of family '" + use.family + "' counts " + use.axis.unit +
                             ", family '" + it->second.front().family + "' " + d.unit +
                             ": give one of them another name");
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

AxisTable declared_axes() {
  std::vector<AxisTable::Use> uses;
  for (const auto& f : cases::registered_families())
    for (const auto& a : f.axes) uses.push_back({f.name, a});
  return AxisTable(uses);
}

}  // namespace membench::cli
