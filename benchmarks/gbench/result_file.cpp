#include "gbench/result_file.hpp"

#include <benchmark/benchmark.h>

#include <cmath>
#include <iterator>
#include <ostream>
#include <set>

#include "cases/counters.hpp"
#include "gbench/result_reporter.hpp"

namespace membench::gbench {

nlohmann::ordered_json counter_entry(const std::string& name) {
  const auto meaning = cases::counter_meaning(name);
  if (!meaning) return {{"unit", ""}, {"better", "neither"}, {"kind", "undeclared"}, {"description", ""}};
  nlohmann::ordered_json entry = {{"unit", meaning->unit},
                                  {"better", cases::to_string(meaning->better)},
                                  {"kind", cases::to_string(meaning->kind)},
                                  {"description", meaning->description}};
  const auto& heads = cases::headlines();
  for (std::size_t k = 0; k < heads.size(); ++k)
    if (heads[k].counter == name) {
      entry["headline"] = k + 1;  // the rank: a case's result is the first headline it reports
      if (!heads[k].model.empty()) entry["model"] = heads[k].model;
    }
  if (const auto m = cases::ncu_measure(name))
    entry["ncu"] = {
        {"pass", m->pass}, {"metrics", m->metrics}, {"per", m->per}, {"scale", m->scale}, {"judged", m->judged}};
  return entry;
}

namespace {

// A figure's reference as the scripts match it: the variant and the axes it
// fixes (a named axis by its name); the axes it leaves open are the drawn case's.
nlohmann::ordered_json pattern(const cases::CaseRef& ref) {
  nlohmann::ordered_json axes = nlohmann::ordered_json::object();
  for (const auto& [name, value] : ref.axes)
    axes[name] = value.name.empty() ? nlohmann::ordered_json(value.number) : nlohmann::ordered_json(value.name);
  return {{"variant", ref.variant}, {"axes", axes}};
}

nlohmann::ordered_json figure_entry(const cases::FigureSpec& f) {
  nlohmann::ordered_json out = {{"heading", f.heading},   {"x", f.x},
                                {"x_log", f.x_log},       {"y", f.y},
                                {"y_log", f.y_log},       {"model", f.model_counter},
                                {"variants", f.variants}, {"lines", f.lines},
                                {"vlines", f.vlines},     {"best_of", f.best_of},
                                {"bars", f.bars},         {"notes", f.notes},
                                {"roofline", f.roofline}, {"pipe", f.pipe}};
  if (f.derived_model) {
    nlohmann::ordered_json from = pattern(f.derived_model->from);
    from["label"] = f.derived_model->label;
    from["times"] = f.derived_model->times;
    from["over"] = f.derived_model->over;
    out["model_from"] = from;
  }
  if (f.slowdown_vs) out["slowdown_vs"] = pattern(*f.slowdown_vs);
  return out;
}

// A family's study rows, each case named as it is today (the names are output).
nlohmann::ordered_json study_rows(const cases::FamilySpec& family) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const cases::StudyRow& r : family.downstream.study_rows)
    out.push_back({{"table", static_cast<int>(r.table)},
                   {"table_title", cases::study_table_title(r.table)},
                   {"label", r.label},
                   {"case", cases::resolve(family, r.of).name()},
                   {"article_gb_per_second", r.article_gb_per_second},
                   {"counters", r.counters},
                   {"baseline", r.baseline ? cases::resolve(family, *r.baseline).name() : ""}});
  return out;
}

}  // namespace

void Roofs::note(const cases::CaseSpec& c, const std::map<std::string, double>& counters) {
  for (const cases::FamilySpec& family : cases::registered_families()) {
    if (family.name != c.id.family) continue;
    for (std::size_t k = 0; k < family.downstream.roofs.size(); ++k) {
      const cases::RoofDecl& r = family.downstream.roofs[k];
      const auto it = counters.find(r.counter);
      if (!r.gpu.empty() || it == counters.end() || !std::isfinite(it->second) || it->second <= 0 ||
          !cases::fits(family, r.of, c.id))
        continue;
      Best& best = best_[{family.name, k}];
      if (it->second > best.value) best = {it->second, c.id.name()};
    }
  }
}

nlohmann::ordered_json Roofs::roofs(const std::vector<const cases::CaseSpec*>& cases) const {
  std::set<std::string> present;
  for (const cases::CaseSpec* c : cases) present.insert(c->id.family);
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const cases::FamilySpec& family : cases::registered_families()) {
    if (present.count(family.name) == 0) continue;
    for (std::size_t k = 0; k < family.downstream.roofs.size(); ++k) {
      const cases::RoofDecl& r = family.downstream.roofs[k];
      const auto it = best_.find({family.name, k});
      if (r.gpu.empty() && it == best_.end()) continue;
      const auto meaning = cases::counter_meaning(r.counter);
      // A roof two families measure (the L1 by the roofline sweep and by the hierarchy's bandwidth cases) is the
      // higher of the two: the level's ceiling is the best this run reached there.
      const auto same = std::find_if(out.begin(), out.end(), [&](const auto& o) {
        return r.gpu.empty() && o.at("gpu") == "" && o.at("name") == r.name && o.at("counter") == r.counter;
      });
      if (same != out.end()) {
        if (it->second.value > (*same).at("value").get<double>()) {
          (*same)["value"] = it->second.value;
          (*same)["family"] = family.name;
          (*same)["case"] = it->second.case_name;
        }
        continue;
      }
      out.push_back({{"name", r.name},
                     {"family", family.name},
                     {"counter", r.counter},
                     {"unit", meaning ? meaning->unit : ""},
                     {"gpu", r.gpu},
                     {"value", r.gpu.empty() ? it->second.value : r.value},
                     {"case", r.gpu.empty() ? it->second.case_name : ""}});
    }
  }
  return out;
}

nlohmann::ordered_json Roofs::ridges(const std::vector<const cases::CaseSpec*>& cases) const {
  const nlohmann::ordered_json all = roofs(cases);
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& compute : all)
    for (const auto& memory : all)
      if (compute.at("unit") == "op/s" && memory.at("unit") == "B/s" && compute.at("gpu") == memory.at("gpu"))
        out.push_back({{"gpu", compute.at("gpu")},
                       {"compute", compute.at("name")},
                       {"memory", memory.at("name")},
                       {"ops_per_byte", compute.at("value").get<double>() / memory.at("value").get<double>()}});
  return out;
}

nlohmann::ordered_json family_entries(const std::vector<const cases::CaseSpec*>& cases) {
  std::set<std::string> present;
  for (const cases::CaseSpec* c : cases) present.insert(c->id.family);
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const cases::FamilySpec& family : cases::registered_families()) {
    if (present.count(family.name) == 0) continue;
    nlohmann::ordered_json axes = nlohmann::ordered_json::array();
    for (const cases::AxisSpec& a : family.axes) {
      nlohmann::ordered_json axis = {{"name", a.name}, {"unit", a.unit}, {"help", a.help}};
      if (!a.names.empty()) axis["names"] = a.names;
      if (a.before) axis["before"] = *a.before;
      if (a.picks_peer) axis["picks_peer"] = true;
      axes.push_back(axis);
    }
    nlohmann::ordered_json figures = nlohmann::ordered_json::array();
    for (const cases::FigureSpec& f : family.downstream.figures) figures.push_back(figure_entry(f));
    out[family.name] = {{"title", family.downstream.title.empty() ? family.name : family.downstream.title},
                        {"study", family.downstream.study},
                        {"study_rows", study_rows(family)},
                        {"axes", axes},
                        {"figures", figures}};
  }
  return out;
}

ResultReporter::ResultReporter(ResultFileSpec spec) : spec_(std::move(spec)) {
  for (const cases::CaseSpec* c : spec_.cases) by_name_[c->id.name() + "/manual_time"] = c;
}

// A run's counters, for the roofs: each repetition's, never an aggregate's.
void ResultReporter::note_roofs(const Run& run) {
  if (run.run_type == Run::RT_Aggregate) return;
  const auto it = by_name_.find(run.benchmark_name());
  if (it == by_name_.end()) return;
  std::map<std::string, double> values;
  for (const auto& [name, counter] : run.counters) values[name] = counter.value;
  roofs_.note(*it->second, values);
}

bool ResultReporter::ReportContext(const Context& context) {
  const bool ok = benchmark::JSONReporter::ReportContext(context);
  checkpoint();
  return ok;
}

void ResultReporter::ReportRuns(const std::vector<Run>& runs) {
  // A statistic that does not exist (the cv of a counter whose mean is 0) is
  // left out: Google Benchmark would write NaN, which is not JSON, and a
  // strict reader (--resume's, a tracker's) would refuse the whole file.
  std::vector<Run> finite = runs;
  for (Run& run : finite)
    for (auto it = run.counters.begin(); it != run.counters.end();)
      it = std::isfinite(it->second.value) ? std::next(it) : run.counters.erase(it);
  benchmark::JSONReporter::ReportRuns(finite);
  for (const Run& run : finite) {
    for (const auto& [name, counter] : run.counters) counters_.insert(name);
    note_roofs(run);
  }
  checkpoint();
}

void ResultReporter::Finalize() {
  std::ostream& out = GetOutputStream();
  nlohmann::ordered_json counters = nlohmann::ordered_json::object();
  for (const char* standard : {"real_time", "cpu_time", "iterations"}) counters[standard] = counter_entry(standard);
  for (const std::string& name : counters_) counters[name] = counter_entry(name);
  const nlohmann::ordered_json membench = {{"schema_version", kSchemaVersion},
                                           {"complete", true},
                                           {"counters", counters},
                                           {"cases", case_entries(spec_.cases)},
                                           {"families", family_entries(spec_.cases)},
                                           {"roofs", roofs_.roofs(spec_.cases)},
                                           {"ridges", roofs_.ridges(spec_.cases)},
                                           {"end", spec_.end ? spec_.end() : nlohmann::ordered_json::object()}};
  out << "\n  ],\n  \"membench\": " << membench.dump() << "\n}\n";
  out.flush();
}

// Closes the document as it stands, then steps back before the closing:
// what comes next writes over it, and the closing each case leaves is as
// long, so nothing of an older one is left past the end.
void ResultReporter::checkpoint() {
  std::ostream& out = GetOutputStream();
  out.flush();
  const std::streampos here = out.tellp();
  if (here < 0) return;  // not a file one can seek in (a pipe): the closing comes at the end only
  static const std::string closing =
      "\n  ],\n  \"membench\": " +
      nlohmann::ordered_json{{"schema_version", kSchemaVersion}, {"complete", false}}.dump() + "\n}\n";
  out << closing;
  out.flush();
  out.seekp(here);
}

}  // namespace membench::gbench
