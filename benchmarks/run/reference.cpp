// A reference file read: its bands, each naming the case it judges, checked
// field by field; and the references built into the binary. See check.hpp.
#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cases/family.hpp"
#include "run/check.hpp"

namespace membench::run {

// Defined in the file the build makes from benchmarks/references/*.json: (file name, text).
const std::vector<std::pair<std::string, std::string>>& built_in_reference_texts();

namespace {

// The case a band names: by its parts, a family, a variant and the axes it
// fixes, as the families' own declarations name a case (an axis it leaves
// open is the value its cases had before the axis was added, else the
// axis's one default); or, in a reference written before bands named their
// parts, by its full name ("case").
std::string band_case(const nlohmann::json& c) {
  if (!c.is_object()) throw std::invalid_argument("a case is not an object");
  if (!c.contains("family")) {
    if (!c.contains("case")) throw std::invalid_argument("a case has neither \"family\" and \"variant\" nor \"case\"");
    return c.at("case").get<std::string>();
  }
  cases::CaseRef ref;
  ref.family = c.at("family").get<std::string>();
  if (!c.contains("variant")) throw std::invalid_argument("case of family " + ref.family + ": no \"variant\"");
  ref.variant = c.at("variant").get<std::string>();
  const nlohmann::json axes = c.value("axes", nlohmann::json::object());
  if (!axes.is_object())
    throw std::invalid_argument("case of " + ref.family + "/" + ref.variant + ": axes is not an object");
  for (const auto& [name, value] : axes.items()) {
    if (value.is_number_integer())
      ref.axes.emplace_back(name, cases::AxisValue(value.get<std::int64_t>()));
    else if (value.is_string())
      ref.axes.emplace_back(name, cases::AxisValue(value.get<std::string>().c_str()));
    else
      throw std::invalid_argument("case of " + ref.family + "/" + ref.variant + ": axis " + name + " is " +
                                  value.dump().substr(0, 40) + ", not an integer or a name");
  }
  try {
    return cases::resolve(ref).name();
  } catch (const std::logic_error& e) {
    throw std::invalid_argument("case of " + ref.family + "/" + ref.variant + ": " + e.what());
  }
}

}  // namespace

Reference parse_reference(const std::string& text, const std::string& origin) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) { throw std::invalid_argument("not JSON: " + std::string(e.what())); }
  const auto need = [](const nlohmann::json& o, const char* key, const std::string& where) -> const nlohmann::json& {
    if (!o.is_object() || !o.contains(key)) throw std::invalid_argument(where + " has no \"" + key + "\"");
    return o.at(key);
  };
  // A count of runs or GPUs: an integer of at least 1 (not true, not 2.5).
  const auto count = [&](const nlohmann::json& o, const char* key, const std::string& where) {
    const nlohmann::json& v = need(o, key, where);
    if (!v.is_number_integer() || v.get<std::int64_t>() < 1 || v.get<std::int64_t>() > 1000000)
      throw std::invalid_argument(where + ": " + key + " is " + v.dump().substr(0, 40) + ", not a count from 1");
    return static_cast<int>(v.get<std::int64_t>());
  };
  // A measured value: a finite number above zero.
  const auto positive = [&](const nlohmann::json& o, const char* key, const std::string& where) {
    const nlohmann::json& v = need(o, key, where);
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() <= 0)
      throw std::invalid_argument(where + ": " + key + " is " + v.dump().substr(0, 40) + ", not a number above 0");
    return v.get<double>();
  };
  Reference r;
  r.origin = origin;
  try {
    if (need(doc, "schema", "the reference") != "membench.reference/1")
      throw std::invalid_argument("schema is not membench.reference/1");
    r.gpu_name = need(doc, "gpu_name", "the reference").get<std::string>();
    r.margin_pct = need(doc, "margin_pct", "the reference").get<double>();
    if (!(r.margin_pct >= 0 && r.margin_pct <= 100))
      throw std::invalid_argument("margin_pct is " + need(doc, "margin_pct", "").dump() + ", not from 0 to 100");
    const nlohmann::json& runs = need(doc, "runs", "the reference");
    if (!runs.is_array() || runs.empty()) throw std::invalid_argument("runs is not a list of the runs it rests on");
    r.runs = static_cast<int>(runs.size());
    r.gpus = count(doc, "gpus", "the reference");
    if (!need(doc, "cases", "the reference").is_array()) throw std::invalid_argument("cases is not a list");
    for (const auto& c : need(doc, "cases", "the reference")) {
      Band b;
      b.of.name = band_case(c);
      const std::string in = "case " + b.of.name;
      if (std::any_of(r.bands.begin(), r.bands.end(), [&](const Band& x) { return x.of.name == b.of.name; }))
        throw std::invalid_argument(in + ": given twice");
      if (std::none_of(check_cases().begin(), check_cases().end(),
                       [&](const CheckCase& k) { return names_case(b.of.name, k.name); }))
        throw std::invalid_argument(in + ": not a case of the check (membench --check --list_cases=json lists them)");
      b.of.level = need(c, "level", in).get<std::string>();
      b.of.metric = need(c, "metric", in).get<std::string>();
      b.unit = need(c, "unit", in).get<std::string>();
      const std::string better = need(c, "better", in).get<std::string>();
      if (better != "higher" && better != "lower") throw std::invalid_argument(in + ": better is not higher or lower");
      b.higher_better = better == "higher";
      b.median = positive(c, "median", in);
      b.low = positive(c, "low", in);
      b.high = positive(c, "high", in);
      b.runs = count(c, "runs", in);
      b.gpus = count(c, "gpus", in);
      if (!(b.low <= b.median && b.median <= b.high)) throw std::invalid_argument(in + ": low <= median <= high fails");
      if (c.contains("efficiency")) {
        const nlohmann::json& e = c.at("efficiency");
        const std::string of = in + "'s efficiency";
        b.efficiency = Efficiency{positive(e, "median", of), positive(e, "low", of), positive(e, "high", of)};
        if (!(0 < b.efficiency->low && b.efficiency->low <= b.efficiency->median &&
              b.efficiency->median <= b.efficiency->high))
          throw std::invalid_argument(of + ": 0 < low <= median <= high fails");
      }
      r.bands.push_back(std::move(b));
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument("a field of the wrong type: " + std::string(e.what()));
  }
  if (r.bands.empty()) throw std::invalid_argument("no cases");
  return r;
}

const std::vector<Reference>& built_in_references() {
  static const std::vector<Reference> references = [] {
    std::vector<Reference> out;
    for (const auto& [file, text] : built_in_reference_texts())
      out.push_back(parse_reference(text, "built in (" + file + ")"));
    return out;
  }();
  return references;
}

const Reference* reference_for(const std::vector<Reference>& references, const std::string& gpu_name) {
  for (const Reference& r : references)
    if (r.gpu_name == gpu_name) return &r;
  return nullptr;
}

}  // namespace membench::run
