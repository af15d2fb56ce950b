#include "run/check_run.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "cases/family.hpp"
#include "cli/files.hpp"
#include "cli/grammar.hpp"
#include "engine/health.hpp"
#include "gbench/adapter.hpp"
#include "gbench/result_schema.hpp"

namespace membench::run {

namespace {

constexpr std::uintmax_t kMaxReferenceBytes = std::uintmax_t{16} << 20;
constexpr std::uintmax_t kMaxResultBytes = std::uintmax_t{256} << 20;
constexpr std::size_t kMaxJsonDepth = 64;  // a result file nests 5 deep

std::optional<double> counter(const cases::Outcome& o, const std::string& name) {
  for (const auto& [key, value] : o.counters)
    if (key == name) return value;
  return std::nullopt;
}

// A measured case's trust marks, as the binary wrote them (a run's counters
// or a file's entry; `get` gives 0 for one absent): another process; a
// thermal or hardware slowdown, or batches dropped for the clock; noise at or
// above kUntrustedNoisePct, or unknown; and a host-paced case's noise, which
// widens its band. The power cap alone (power_capped) is the case's own draw
// and no mark against it. A file of schema 3 or older counted the power cap in
// clock_event: its reasons are read as a file of today's would have them.
template <class Get>
void add_marks(Observed& o, const Get& get, int schema_version) {
  if (get("contended") > 0) o.contended = true;
  const auto reasons = static_cast<std::uint64_t>(get("clock_event_reasons"));
  const bool slowdown = schema_version < 4 ? (reasons & engine::kClockSlowdownMarks) != 0 : get("clock_event") > 0;
  if (slowdown) o.clock_event = engine::clock_event_names(reasons & engine::kClockSlowdownMarks);
  if (const double throttled = get("throttled_batches"); throttled > 0 && o.clock_event.empty())
    o.clock_event = std::to_string(static_cast<long long>(throttled)) + " batches throttled below the clock threshold";
  if (const double noise = get("noise_pct"); noise < 0) {
    o.noisy = "noise unknown (fewer than two batches)";
  } else if (noise >= kUntrustedNoisePct) {
    std::ostringstream why;
    why << "noise " << noise << "% >= the " << kUntrustedNoisePct << "% threshold";
    o.noisy = why.str();
  }
  // The host's noise widens the band only while it is evidence at all: a noisier value is "noisy" below it.
  if (const double noise = get("noise_pct"); get("host_paced") > 0 && noise > 0 && noise < kUntrustedNoisePct)
    o.host_noise_pct = std::max(o.host_noise_pct, kHostNoiseWidths * noise);
}

// What the outcomes of one case came to, for the band's metric.
Observed observed(const std::vector<cases::Outcome>& outcomes, const std::string& metric) {
  Observed o;
  for (const cases::Outcome& out : outcomes) {
    using K = cases::Outcome::Kind;
    if (out.kind == K::failed) o.failed = out.message;
    if (out.kind == K::skipped || out.kind == K::interrupted) o.not_run = out.message;
    if (out.kind == K::skipped) o.skipped = true;
    if (out.kind != K::measured) continue;
    if (const auto v = counter(out, metric)) o.values.push_back(*v);
    if (const auto pct = counter(out, "pct_of_peak")) o.pct_of_peak.push_back(*pct);
    if (counter(out, "peak_assumed").value_or(0) > 0) o.peak_assumed = true;
    add_marks(
        o, [&](const char* key) { return counter(out, key).value_or(0); }, gbench::kSchemaVersion);
  }
  return o;
}

}  // namespace

Reference read_reference_file(const std::string& path) {
  const std::string text = cli::read_required_text_file("--check", path, kMaxReferenceBytes);
  cli::check_json_document("--check", path, text, kMaxJsonDepth);
  try {
    return parse_reference(text, path);
  } catch (const std::invalid_argument& e) {
    throw cli::UsageError("--check=" + path + ": not a membench reference: " + e.what());
  }
}

std::string check_name(const cases::CaseSpec& c) {
  cases::CaseId id = c.id;
  id.tags.erase(
      std::remove_if(id.tags.begin(), id.tags.end(), [](const auto& tag) { return tag.first == cases::kDeviceTag; }),
      id.tags.end());
  return id.name();
}

std::string check_listing(const std::vector<cases::CaseSpec>& all) {
  std::map<std::string, const CheckCase*> wanted;
  for (const CheckCase& c : check_cases()) wanted[c.name] = &c;
  std::vector<const cases::CaseSpec*> listed;
  for (const cases::CaseSpec& c : all)
    if (wanted.count(check_name(c))) listed.push_back(&c);
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(gbench::cases_json(listed));
  for (std::size_t i = 0; i < listed.size(); ++i) {
    const CheckCase& c = *wanted.at(check_name(*listed[i]));
    doc[i]["check"] = {{"level", c.level}, {"metric", c.metric}};
  }
  return doc.dump(1);
}

namespace {

// The GPUs a recorded run names: its context's device list, else its one GPU.
std::vector<DeviceInfo> recorded_devices(const nlohmann::json& context) {
  std::vector<DeviceInfo> out;
  const auto text = [&](const char* key) { return context.value(key, std::string()); };
  if (context.contains("devices")) {
    const nlohmann::json list = nlohmann::json::parse(text("devices"));
    if (!list.is_array() || list.empty()) throw std::invalid_argument("its context's devices is not a list of GPUs");
    for (const auto& d : list) {
      DeviceInfo info;
      info.ordinal = d.at("ordinal").get<int>();
      info.name = d.at("name").get<std::string>();
      info.uuid = d.at("uuid").get<std::string>();
      out.push_back(info);
    }
    return out;
  }
  DeviceInfo info;
  info.ordinal = std::stoi(context.value("gpu_ordinal", std::string("0")));
  info.name = text("gpu_name");
  info.uuid = text("gpu_uuid");
  out.push_back(info);
  return out;
}

// What one entry of the file (of schema_version) says of its case, for the band's metric, added to `o`.
void add_entry(const nlohmann::json& e, const std::string& metric, int schema_version, Observed& o) {
  const auto number = [&](const char* key) { return e.contains(key) && e[key].is_number() ? e[key].get<double>() : 0; };
  const std::string message = e.value("error_message", e.value("skip_message", std::string()));
  if (e.value("skipped", false) || message.rfind("skipped: ", 0) == 0) {
    o.not_run = message;
    o.skipped = true;
  } else if (e.value("error_occurred", false)) {
    o.failed = message;
  } else {
    if (e.contains(metric) && e[metric].is_number()) o.values.push_back(e[metric].get<double>());
    if (e.contains("pct_of_peak") && e["pct_of_peak"].is_number()) o.pct_of_peak.push_back(e["pct_of_peak"]);
    if (number("peak_assumed") > 0) o.peak_assumed = true;
    add_marks(o, number, schema_version);
  }
}

}  // namespace

// The cases a result file's catalog lists, by name, each as its parts say
// (family, variant, tags, axes; a named axis by its name, as a parsed name
// gives it); empty for a file from before the catalog.
std::map<std::string, cases::CaseId> catalog_cases(const nlohmann::json& doc) {
  std::map<std::string, cases::CaseId> out;
  if (!doc.contains("membench") || !doc["membench"].contains("cases")) return out;
  for (const auto& c : doc["membench"]["cases"]) {
    cases::CaseId id;
    id.family = c.at("family").get<std::string>();
    id.variant = c.at("variant").get<std::string>();
    for (const auto& [key, value] : c.value("tags", nlohmann::json::object()).items())
      id.tags.emplace_back(key, value.is_string() ? value.get<std::string>() : value.dump());
    for (const auto& a : c.at("axes")) {
      const nlohmann::json& v = a.at("value");
      if (v.is_string())
        id.axes.push_back({a.at("name").get<std::string>(), -1, v.get<std::string>()});
      else
        id.axes.push_back({a.at("name").get<std::string>(), v.get<std::int64_t>(), ""});
    }
    out.emplace(c.at("name").get<std::string>(), std::move(id));
  }
  return out;
}

int judge_recorded(const std::string& path, const std::vector<Reference>& references, const std::string& metrics_file,
                   std::ostream& out) {
  const std::string text = cli::read_required_text_file("--judge", path, kMaxResultBytes);
  cli::check_json_document("--judge", path, text, kMaxJsonDepth);
  std::optional<CheckRun> check;
  std::map<std::pair<int, std::string>, Observed> observed;
  std::string host;
  try {
    const nlohmann::json doc = nlohmann::json::parse(text);
    const nlohmann::json& context = doc.at("context");
    if (!context.contains("membench_version") || !context["membench_version"].is_string() ||
        context["membench_version"].get<std::string>().empty())
      throw std::invalid_argument("its context has no membench_version string");
    if (!doc.at("benchmarks").is_array() || doc.at("benchmarks").empty())
      throw std::invalid_argument("it holds no cases");
    if (const auto why = gbench::schema_problem(doc)) throw std::invalid_argument(*why);
    const std::vector<DeviceInfo> devices = recorded_devices(context);
    const int first = devices.front().ordinal;
    check.emplace(references, devices);
    host = context.value("host_name", std::string());
    // A file the schema let through has a membench object, or none at all (a file of before it: schema 1's marks).
    int schema_version = 1;
    if (doc.contains("membench") && doc["membench"].contains("schema_version") &&
        doc["membench"]["schema_version"].is_number_integer())
      schema_version = doc["membench"]["schema_version"].get<int>();
    std::map<std::string, std::string> metric_of;  // check name -> the metric judged
    std::vector<std::pair<cases::CaseId, std::string>> wanted;
    for (const Reference* r : check->in_use())
      for (const Band& b : r->bands) {
        metric_of[b.of.name] = b.of.metric;
        if (const auto id = cases::CaseId::parse(b.of.name)) wanted.emplace_back(*id, b.of.name);
      }
    // Each entry read through the file's catalog, by its parts; a file from before the catalog, by its name.
    const std::map<std::string, cases::CaseId> catalog = catalog_cases(doc);
    for (const auto& e : doc.at("benchmarks")) {
      if (e.value("run_type", std::string("iteration")) != "iteration") continue;
      const std::string name = e.value("run_name", e.at("name").get<std::string>());
      const auto listed = catalog.find(name);
      const std::optional<cases::CaseId> id = listed != catalog.end() ? std::optional<cases::CaseId>(listed->second)
                                              : catalog.empty()       ? cases::CaseId::parse(name)
                                                                : std::nullopt;  // not a case the file's catalog lists
      if (!id) continue;
      const auto device = id->tag(cases::kDeviceTag);
      const auto it =
          std::find_if(wanted.begin(), wanted.end(), [&](const auto& w) { return same_case(*id, w.first); });
      if (it == wanted.end()) continue;
      add_entry(e, metric_of.at(it->second), schema_version,
                observed[{device ? std::stoi(*device) : first, it->second}]);
    }
  } catch (const std::exception& e) {
    throw cli::UsageError("--judge=" + path + ": not a membench result file (" + e.what() + ")");
  }
  check->set_observed(std::move(observed));
  return check->finish(-1, host, metrics_file, out);
}

CheckRun::CheckRun(const std::vector<Reference>& references, const std::vector<DeviceInfo>& devices)
    : devices_(devices), references_(references) {
  for (const DeviceInfo& d : devices_) {
    const Reference* r = reference_for(references_, d.name);
    if (r == nullptr && !provisional_.count(d.name))
      if (auto p = provisional_reference(references_, d.name)) provisional_.emplace(d.name, std::move(*p));
    if (r == nullptr && provisional_.count(d.name)) r = &provisional_.at(d.name);
    reference_[d.ordinal] = r;
  }
}

std::vector<const Reference*> CheckRun::in_use() const {
  std::vector<const Reference*> out;
  for (const auto& [ordinal, r] : reference_)
    if (r != nullptr && std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
  return out;
}

bool CheckRun::any_reference() const {
  return std::any_of(reference_.begin(), reference_.end(), [](const auto& r) { return r.second != nullptr; });
}

namespace {

// The band of `r` that judges case `c`: named as the case is, or as it was
// named before axes were added to it (a reference made from older runs).
const Band* band_for(const Reference& r, const cases::CaseSpec& c) {
  const std::string name = check_name(c);
  for (const Band& b : r.bands)
    if (names_case(b.of.name, name)) return &b;
  return nullptr;
}

}  // namespace

std::vector<cases::CaseSpec> CheckRun::cases(std::vector<cases::CaseSpec> all) const {
  std::vector<cases::CaseSpec> kept;
  for (cases::CaseSpec& c : all) {
    const Reference* r = reference_.count(c.device) ? reference_.at(c.device) : nullptr;
    if (r != nullptr && band_for(*r, c) != nullptr) kept.push_back(std::move(c));
  }
  return kept;
}

void CheckRun::observe(const cases::CaseSpec& c, const cases::Outcome& o) {
  const Reference* r = reference_.count(c.device) ? reference_.at(c.device) : nullptr;
  if (const Band* b = r != nullptr ? band_for(*r, c) : nullptr) seen_[{c.device, b->of.name}].push_back(o);
}

int CheckRun::finish(double seconds, const std::string& host, const std::string& metrics_file,
                     std::ostream& out) const {
  std::vector<GpuVerdict> verdicts;
  for (const DeviceInfo& d : devices_) {
    const Reference* r = reference_.at(d.ordinal);
    std::map<std::string, Observed> by_name;
    static const std::vector<Band> kNone;
    for (const Band& b : r != nullptr ? r->bands : kNone) {
      if (const auto it = seen_.find({d.ordinal, b.of.name}); it != seen_.end())
        by_name[b.of.name] = observed(it->second, b.of.metric);
      else if (const auto got = recorded_.find({d.ordinal, b.of.name}); got != recorded_.end())
        by_name[b.of.name] = got->second;
    }
    verdicts.push_back(judge(d.ordinal, d.name, d.uuid, r, by_name));
  }
  for (const GpuVerdict& v : verdicts)
    for (const std::string& line : verdict_lines(v)) out << "membench --check: " << line << '\n';
  char took[32];
  std::snprintf(took, sizeof took, "%.1f", seconds);
  out << "membench --check: " << verdicts.size() << (verdicts.size() == 1 ? " GPU" : " GPUs")
      << (seconds < 0 ? std::string(" judged from a recorded run") : " checked in " + std::string(took) + " s") << '\n';
  if (!metrics_file.empty()) {
    const std::string partial = metrics_file + ".tmp." + std::to_string(getpid());
    {
      std::ofstream f(partial);
      f << prometheus_text(verdicts, host, std::max(seconds, 0.0));
    }
    if (std::rename(partial.c_str(), metrics_file.c_str()) != 0) {
      std::remove(partial.c_str());
      std::cerr << "membench: --check_metrics=" << metrics_file << ": cannot be written\n";
    }
  }
  return check_status(verdicts);
}

}  // namespace membench::run
