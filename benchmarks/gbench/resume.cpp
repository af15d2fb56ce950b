#include "gbench/resume.hpp"

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include "gbench/result_schema.hpp"

namespace membench::gbench {

namespace {

// The type Google Benchmark writes each of its own keys with.
enum class Type { string, boolean, integer, number };

const std::map<std::string, Type>& standard_types() {
  static const std::map<std::string, Type> types = {{"name", Type::string},
                                                    {"run_name", Type::string},
                                                    {"run_type", Type::string},
                                                    {"time_unit", Type::string},
                                                    {"label", Type::string},
                                                    {"error_message", Type::string},
                                                    {"skip_message", Type::string},
                                                    {"aggregate_name", Type::string},
                                                    {"aggregate_unit", Type::string},
                                                    {"error_occurred", Type::boolean},
                                                    {"skipped", Type::boolean},
                                                    {"iterations", Type::integer},
                                                    {"repetitions", Type::integer},
                                                    {"repetition_index", Type::integer},
                                                    {"threads", Type::integer},
                                                    {"family_index", Type::integer},
                                                    {"per_family_instance_index", Type::integer},
                                                    {"real_time", Type::number},
                                                    {"cpu_time", Type::number}};
  return types;
}

bool has_type(const nlohmann::json& value, Type type) {
  switch (type) {
    case Type::string: return value.is_string();
    case Type::boolean: return value.is_boolean();
    case Type::integer: return value.is_number_integer();
    case Type::number: return value.is_number();
  }
  return false;
}

const char* type_name(Type type) {
  switch (type) {
    case Type::string: return "a string";
    case Type::boolean: return "true or false";
    case Type::integer: return "an integer";
    case Type::number: return "a number";
  }
  return "?";
}

// Throws unless each of Google Benchmark's keys in `entry` (case `index`) has
// the type it writes: a file edited or made by hand is refused with the
// field, never read as something else.
void check_entry_types(const std::string& origin, const nlohmann::json& entry, std::size_t index) {
  for (const auto& [key, type] : standard_types()) {
    const auto it = entry.find(key);
    if (it == entry.end() || has_type(*it, type)) continue;
    const std::string name = entry.contains("name") && entry["name"].is_string() ? entry["name"].get<std::string>()
                                                                                 : "#" + std::to_string(index + 1);
    throw ResumeError(origin + "entry " + name + ": \"" + key + "\" is " + it->dump().substr(0, 40) + ", expected " +
                      type_name(type));
  }
  // Every other key is a counter, a number: one of another type would be dropped, and the resumed case lack it.
  for (const auto& [key, value] : entry.items())
    if (standard_types().count(key) == 0 && !value.is_number()) {
      const std::string name = entry.contains("name") && entry["name"].is_string() ? entry["name"].get<std::string>()
                                                                                   : "#" + std::to_string(index + 1);
      throw ResumeError(origin + "entry " + name + ": counter \"" + key + "\" is " + value.dump().substr(0, 40) +
                        ", expected a number");
    }
}

std::string context_text(const nlohmann::json& context, const std::string& key) {
  const auto it = context.find(key);
  return it != context.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<std::string> file_uuids(const nlohmann::json& context) {
  const std::string devices = context_text(context, "devices");
  if (devices.empty()) return {context_text(context, "gpu_uuid")};
  std::vector<std::string> uuids;
  const nlohmann::json list = nlohmann::json::parse(devices, nullptr, false);
  if (!list.is_array()) return {""};
  for (const auto& d : list)
    uuids.push_back(d.is_object() && d.contains("uuid") && d["uuid"].is_string() ? d["uuid"].get<std::string>() : "");
  return uuids;
}

std::string joined(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : ",") + (i.empty() ? std::string("?") : i);
  return s;
}

// A text Google Benchmark's JSON reporter was writing when the process was
// killed, closed after its last whole case; empty when it is not one.
std::string closed_after_last_case(const std::string& text) {
  const std::size_t list = text.find("\"benchmarks\": [");
  const std::size_t last = text.rfind("\n    }");
  if (list == std::string::npos || last == std::string::npos || last < list) return {};
  return text.substr(0, last + 6) + "\n  ]\n}\n";
}

void check_context(const std::string& origin, const nlohmann::json& context, const RunIdentity& here) {
  const auto refuse = [&](const std::string& what, const std::string& theirs, const std::string& ours) {
    throw ResumeError(origin + "written with " + what + " " + (theirs.empty() ? "(not recorded)" : theirs) +
                      ", this run has " + ours + "; measure afresh");
  };
  const std::vector<std::string> uuids = file_uuids(context);
  if (uuids != here.gpu_uuids) refuse("GPU", joined(uuids), joined(here.gpu_uuids));
  if (!here.driver_version.empty()) {
    if (context_text(context, "driver_version") != here.driver_version)
      refuse("driver", context_text(context, "driver_version"), here.driver_version);
  } else if (context_text(context, "cuda_driver_version") != here.cuda_driver_version) {
    refuse("CUDA driver", context_text(context, "cuda_driver_version"), here.cuda_driver_version);
  }
  if (context_text(context, "membench_version") != here.membench_version)
    refuse("membench", context_text(context, "membench_version"), here.membench_version);
  if (context_text(context, "membench_build") != here.membench_build)
    refuse("build", context_text(context, "membench_build"), here.membench_build);
}

}  // namespace

ResumeFile read_resume(const std::string& path, const std::string& text, int repetitions) {
  ResumeFile file;
  const std::string& origin = file.origin = "--resume=" + path + ": ";
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded()) {
    const std::string closed = closed_after_last_case(text);
    if (!closed.empty()) doc = nlohmann::json::parse(closed, nullptr, false);
    if (doc.is_discarded()) throw ResumeError(origin + "not valid JSON, and not a membench file cut off inside a case");
    file.cut = true;
  }
  if (!doc.is_object() || !doc.contains("context") || !doc["context"].is_object() || !doc.contains("benchmarks") ||
      !doc["benchmarks"].is_array())
    throw ResumeError(origin + "not membench's JSON (no 'context' and 'benchmarks')");
  if (!doc["context"].contains("membench_version"))
    throw ResumeError(origin + "not a membench result (its context has no membench_version)");
  for (const char* key :
       {"membench_version", "membench_build", "driver_version", "cuda_driver_version", "gpu_uuid", "devices"})
    if (doc["context"].contains(key) && !doc["context"][key].is_string())
      throw ResumeError(origin + "its context's " + key + " is not a string");
  file.context = doc["context"];

  std::map<std::string, std::vector<CarriedRun>> runs;
  std::set<std::string> broken;
  std::vector<std::string> order;
  for (std::size_t index = 0; index < doc["benchmarks"].size(); ++index) {
    const nlohmann::json& entry = doc["benchmarks"][index];
    if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string())
      throw ResumeError(origin + "a benchmark entry without a name");
    check_entry_types(origin, entry, index);
    if (entry.value("run_type", std::string("iteration")) != "iteration") continue;  // aggregates are recomputed
    const std::string name = entry.value("run_name", entry["name"].get<std::string>());
    if (runs.find(name) == runs.end() && broken.count(name) == 0) order.push_back(name);
    if (entry.value("error_occurred", false) || entry.value("skipped", false) || !entry.contains("iterations") ||
        !entry.contains("real_time") || !entry["iterations"].is_number_integer() || !entry["real_time"].is_number()) {
      broken.insert(name);
      continue;
    }
    CarriedRun run;
    run.iterations = entry["iterations"].get<std::int64_t>();
    run.real_time = entry["real_time"].get<double>();
    run.time_unit =
        entry.contains("time_unit") && entry["time_unit"].is_string() ? entry["time_unit"].get<std::string>() : "ns";
    // Not a time this can replay: measure again.
    if (!std::set<std::string>{"ns", "us", "ms", "s"}.count(run.time_unit)) {
      broken.insert(name);
      continue;
    }
    if (entry.contains("label") && entry["label"].is_string()) run.label = entry["label"].get<std::string>();
    for (const auto& [key, value] : entry.items())
      // Google Benchmark's own keys are not counters; every other number is.
      if (value.is_number() && standard_types().count(key) == 0) run.counters.emplace_back(key, value.get<double>());
    if (run.iterations < 1) {
      broken.insert(name);
      continue;
    }
    runs[name].push_back(std::move(run));
  }
  // What the checks above leave: the rest of the schema (the context's and the membench block's types).
  if (const auto why = schema_problem(doc)) throw ResumeError(origin + "not a membench result file: " + *why);
  Carried& carried = file.carried;
  for (const auto& name : order) {
    const auto it = runs.find(name);
    if (broken.count(name) != 0 || it == runs.end() || static_cast<int>(it->second.size()) != repetitions) {
      ++carried.incomplete;
      continue;
    }
    carried.cases.emplace(name, std::move(it->second));
  }
  return file;
}

void check_identity(const ResumeFile& file, const RunIdentity& here) { check_context(file.origin, file.context, here); }

Carried read_carried(const std::string& path, const std::string& text, const RunIdentity& here, int repetitions) {
  ResumeFile file = read_resume(path, text, repetitions);
  check_identity(file, here);
  return std::move(file.carried);
}

Replay replay_of(const CarriedRun& run, double reported_per_second) {
  static const std::map<std::string, double> kPerSecond = {{"ns", 1e9}, {"us", 1e6}, {"ms", 1e3}, {"s", 1.0}};
  const auto unit = kPerSecond.find(run.time_unit);
  if (unit == kPerSecond.end()) throw ResumeError("a carried run in an unknown time unit: " + run.time_unit);
  Replay r;
  r.real_time =
      unit->second == reported_per_second ? run.real_time : run.real_time / unit->second * reported_per_second;
  for (const auto& counter : run.counters)
    if (counter.first != "resumed") r.counters.push_back(counter);
  r.counters.emplace_back("resumed", 1.0);
  return r;
}

double manual_seconds_for(double real_time, double multiplier, std::int64_t iterations) {
  const double n = static_cast<double>(iterations);
  const auto reported = [&](double t) { return t * multiplier / n; };
  const double guess = real_time * n / multiplier;
  // The guess is within a few ulps of a value that rounds back; walk both ways.
  double down = guess, up = guess;
  for (int k = 0; k < 64; ++k) {
    if (reported(up) == real_time) return up;
    if (reported(down) == real_time) return down;
    up = std::nextafter(up, INFINITY);
    down = std::nextafter(down, -INFINITY);
  }
  return guess;
}

}  // namespace membench::gbench
