#include "cli/sweep_file.hpp"

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>

#include "cli/files.hpp"

namespace membench::cli {

namespace {

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
      text += (text.empty() ? "" : ",") +
              (item.is_string() ? item.get<std::string>() : std::to_string(item.get<std::int64_t>()));
    }
    return text;
  }
  refuse(key, value.dump(),
         is_axis ? "expects a LIST string, an integer or an array" : "expects a string, a number or true/false");
}

constexpr std::size_t kMaxSweepDepth = 8;

}  // namespace

std::vector<Arg> sweep_file_args(const std::string& path, const AxisTable& axes) {
  const std::string origin = "--sweep=" + path + ": ";
  // A sweep is a few lines; a huge file would cost memory and time before it is refused.
  const std::string text = read_required_text_file("--sweep", path, std::uintmax_t{1} << 20);
  if (json_depth(text) > kMaxSweepDepth)
    throw UsageError(origin + "nested more than " + std::to_string(kMaxSweepDepth) +
                     " deep (a sweep file is an object of flag: value)");
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
    // An escaped \u0000 would cut the flag's text there: a filter of "\u0000zzz" would select every case.
    const auto has_nul = [](const nlohmann::json& v) {
      return v.is_string() && v.get<std::string>().find('\0') != std::string::npos;
    };
    if (key.find('\0') != std::string::npos || has_nul(value) ||
        (value.is_array() && std::any_of(value.begin(), value.end(), has_nul)))
      throw UsageError(origin + "'" + printable(key) + "' holds a NUL character (\\u0000)");
    if (key == "sweep") throw UsageError(origin + "a sweep file cannot name another sweep file");
    try {
      const auto dot = key.find('.');
      const bool is_axis = dot == std::string::npos ? axes.find(key) != nullptr
                                                    : axes.find(key.substr(0, dot), key.substr(dot + 1)) != nullptr;
      args.push_back({key, as_flag_text(key, value, is_axis), origin});
    } catch (const UsageError& e) { throw UsageError(origin + e.what()); }
  }
  return args;
}

}  // namespace membench::cli
