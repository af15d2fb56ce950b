#include "cases/family.hpp"

#include "cases/counters.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace membench::cases {

namespace {
std::vector<FamilySpec>& families() {
  static std::vector<FamilySpec> list;
  return list;
}
}  // namespace

void check_figures(const FamilySpec& spec) {
  const auto has = [&](const std::string& name) {
    return std::any_of(spec.axes.begin(), spec.axes.end(), [&](const AxisSpec& a) { return a.name == name; });
  };
  // Every counter a declaration names is one the catalog declares: a reader finds its meaning in the file.
  const auto counter = [&](const std::string& name, const std::string& what) {
    if (!counter_meaning(name))
      throw std::logic_error("family '" + spec.name + "': " + what + " names '" + name +
                             "', which the counter catalog does not declare");
  };
  for (const FigureSpec& f : spec.downstream.figures) {
    const std::string what = "figure '" + f.heading + "'";
    counter(f.y, what);
    if (!f.model_counter.empty()) counter(f.model_counter, what);
    for (const std::string& c : f.notes) counter(c, what);
    if (f.derived_model)
      for (const auto* list : {&f.derived_model->times, &f.derived_model->over})
        for (const std::string& c : *list) counter(c, what);
  }
  for (const StudyRow& r : spec.downstream.study_rows)
    for (const std::string& c : r.counters) counter(c, "study row '" + r.label + "'");
  for (const CheckDecl& c : spec.downstream.check)
    counter(c.metric, std::string("check case '") + check_level_name(c.level) + "'");
  for (const FigureSpec& f : spec.downstream.figures) {
    if (f.x != "variant" && !has(f.x))
      throw std::logic_error("family '" + spec.name + "': figure '" + f.heading + "' runs along '" + f.x +
                             "', which is not one of its axes");
    for (const std::string& axis : f.best_of)
      if (!has(axis))
        throw std::logic_error("family '" + spec.name + "': figure '" + f.heading + "' keeps the best over '" + axis +
                               "', which is not one of its axes");
    if (f.derived_model && !f.model_counter.empty())
      throw std::logic_error("family '" + spec.name + "': figure '" + f.heading +
                             "' has a model counter and a model computed from another case; it draws one");
  }
  for (const RoofDecl& r : spec.downstream.roofs) {
    const auto meaning = counter_meaning(r.counter);
    if (!meaning || (meaning->unit != "op/s" && meaning->unit != "B/s"))
      throw std::logic_error("family '" + spec.name + "': roof '" + r.name + "' is the best '" + r.counter +
                             "', not a counter of op/s or B/s");
    if (!r.gpu.empty() && r.value <= 0)
      throw std::logic_error("family '" + spec.name + "': the datasheet roof '" + r.name + "' has no value");
  }
}

Registrar::Registrar(FamilySpec spec) {
  check_figures(spec);
  auto& list = families();
  const auto at = std::upper_bound(list.begin(), list.end(), spec.name,
                                   [](const std::string& name, const FamilySpec& f) { return name < f.name; });
  list.insert(at, std::move(spec));
}

const std::vector<FamilySpec>& registered_families() { return families(); }

const char* study_table_title(StudyTable table) {
  switch (table) {
    case StudyTable::coalescing: return "Coalesced vs strided, n = 16,777,216";
    case StudyTable::shared_memory: return "Shared memory, 4096 x 4096";
    case StudyTable::async_copy: return "Async copy, n = 67,108,864";
    case StudyTable::claims: return "The article's other claims, on this GPU";
  }
  return "?";
}

StudyRow study_row(StudyTable table, std::string label, CaseRef of) {
  StudyRow r;
  r.table = table;
  r.label = std::move(label);
  r.of = std::move(of);
  return r;
}

const char* check_level_name(CheckLevel level) {
  switch (level) {
    case CheckLevel::host_to_device: return "host to device";
    case CheckLevel::device_to_host: return "device to host";
    case CheckLevel::host_link_both_ways: return "host link both ways";
    case CheckLevel::dram_read: return "DRAM read";
    case CheckLevel::dram_write: return "DRAM write";
    case CheckLevel::dram_copy: return "DRAM copy";
    case CheckLevel::dram_triad: return "DRAM triad";
    case CheckLevel::dram_latency: return "DRAM latency";
    case CheckLevel::l2_read: return "L2 read";
    case CheckLevel::l2_latency: return "L2 latency";
    case CheckLevel::l2_atomics: return "L2 atomics";
    case CheckLevel::l1_read: return "L1 read";
    case CheckLevel::l1_latency: return "L1 latency";
    case CheckLevel::shared_read: return "shared memory read";
    case CheckLevel::shared_atomics: return "shared-memory atomics";
    case CheckLevel::fp32_fma: return "FP32 FMA";
    case CheckLevel::tensor_cores: return "tensor cores";
  }
  return "?";
}

CheckDecl check_case(CheckLevel level, std::string metric, CaseRef of) {
  return {level, std::move(metric), std::move(of)};
}

FigureSpec figure(std::string heading, std::string x, std::string y) {
  FigureSpec f;
  f.heading = std::move(heading);
  f.x = std::move(x);
  f.y = std::move(y);
  return f;
}

AxisSpec axis(std::string name, std::string unit, std::string help, std::vector<std::int64_t> defaults,
              std::int64_t min, std::int64_t max, std::int64_t multiple_of) {
  return {std::move(name), std::move(unit), std::move(help), std::move(defaults), min, max, {}, multiple_of, {}};
}

AxisSpec axis_named(std::string name, std::string help, std::vector<std::string> names,
                    std::vector<std::int64_t> defaults) {
  AxisSpec a = axis(std::move(name), "name", std::move(help), std::move(defaults), 0,
                    static_cast<std::int64_t>(names.size()) - 1);
  for (std::size_t i = 0; i < names.size(); ++i) a.allowed.push_back(static_cast<std::int64_t>(i));
  a.names = std::move(names);
  return a;
}

Family::Family(const FamilySpec& spec, const Selection& selection, int device, bool count_only)
    : spec_(spec), selection_(selection), device_(device), count_only_(count_only) {}

std::vector<std::int64_t> Family::values(const std::string& axis) const {
  return selection_.values(spec_.name, declared(axis));
}

void Family::add(const std::string& variant, const std::vector<std::string>& axes, std::vector<std::string> kernels,
                 Define define) {
  // Named axes come first in the name, then the numbers, each in the order given.
  std::vector<const AxisSpec*> named, numeric;
  for (const auto& a : axes) (declared(a).names.empty() ? numeric : named).push_back(&declared(a));
  std::vector<std::vector<std::int64_t>> named_values, numeric_values;
  double product = 1;
  for (const AxisSpec* a : named) named_values.push_back(values(a->name));
  for (const AxisSpec* a : numeric) numeric_values.push_back(values(a->name));
  for (const auto& list : named_values) product *= static_cast<double>(list.size());
  for (const auto& list : numeric_values) product *= static_cast<double>(list.size());
  std::vector<bool> modes;
  if (selection_.l2 != engine::L2::cold) modes.push_back(false);
  if (selection_.l2 != engine::L2::warm) modes.push_back(true);
  if (count_only_) {
    counted_ += product * static_cast<double>(modes.size());
    return;
  }
  std::vector<const AxisSpec*> order = named;
  order.insert(order.end(), numeric.begin(), numeric.end());
  const bool tag_devices = selection_.devices.size() > 1;
  // The order cases run in: each combination of named values (the last
  // varying fastest), warm then cold, then the numbers' product with the
  // first axis varying fastest.
  std::vector<std::size_t> pick(named.size(), 0);
  for (bool more_named = true; more_named;) {
    for (const bool cold : modes) {
      CaseId id{spec_.name, variant, {}, {}};
      if (tag_devices) id.tags.emplace_back(kDeviceTag, std::to_string(device_));
      if (cold) id.tags.emplace_back(kL2Tag, "cold");
      std::vector<std::size_t> index(numeric.size(), 0);
      for (bool more = true; more;) {
        id.axes.clear();
        for (std::size_t a = 0; a < named.size(); ++a) {
          const std::int64_t v = named_values[a][pick[a]];
          id.axes.push_back({named[a]->name, v, named[a]->names.at(static_cast<std::size_t>(v))});
        }
        for (std::size_t a = 0; a < numeric.size(); ++a)
          id.axes.push_back({numeric[a]->name, numeric_values[a][index[a]], ""});
        cases_.push_back({id, kernels, order, device_, cold, define});
        std::size_t a = 0;
        while (a < numeric.size() && ++index[a] == numeric_values[a].size()) index[a++] = 0;
        more = a < numeric.size();
      }
    }
    std::size_t a = named.size();
    while (a > 0 && ++pick[a - 1] == named_values[a - 1].size()) pick[--a] = 0;
    more_named = a > 0;
  }
}

const AxisSpec& Family::declared(const std::string& axis) const {
  for (const auto& a : spec_.axes)
    if (a.name == axis) return a;
  throw std::logic_error("family '" + spec_.name + "' declares no axis '" + axis + "'");
}

std::vector<CaseSpec> enumerate_cases(const Selection& selection) {
  double total = 0;
  for (const auto& spec : registered_families()) {
    Family family(spec, selection, selection.devices.front(), true);
    spec.cases(family);
    total += family.counted();
  }
  total *= static_cast<double>(selection.devices.size());
  if (total > kMaxCases) {
    std::ostringstream os;
    os.precision(15);
    os << "these flags make " << total << " cases, more than the " << kMaxCases
       << " one run may hold; narrow the axes or split the run";
    throw TooManyCases(os.str());
  }
  std::vector<CaseSpec> all;
  for (const int device : selection.devices) {
    for (const auto& spec : registered_families()) {
      Family family(spec, selection, device);
      spec.cases(family);
      for (auto& c : family.cases()) all.push_back(std::move(c));
    }
  }
  return all;
}

}  // namespace membench::cases

namespace membench::cases {

namespace {

// The value a reference fixes an axis at, as the axis holds it (a named
// axis: the name's index); a std::logic_error where the axis has no such value.
std::int64_t value_of(const std::string& family, const AxisSpec& a, const AxisValue& v) {
  const std::string where = "family '" + family + "', axis '" + a.name + "': ";
  if (!a.names.empty()) {
    const auto it = std::find(a.names.begin(), a.names.end(), v.name);
    if (v.name.empty() || it == a.names.end())
      throw std::logic_error(where + "a reference names '" + v.name + "', not one of its names");
    return it - a.names.begin();
  }
  if (!v.name.empty()) throw std::logic_error(where + "a reference names '" + v.name + "'; the axis takes numbers");
  const bool allowed = a.allowed.empty() ? v.number >= a.min && v.number <= a.max && v.number % a.multiple_of == 0
                                         : std::find(a.allowed.begin(), a.allowed.end(), v.number) != a.allowed.end();
  if (!allowed)
    throw std::logic_error(where + "a reference fixes it at " + std::to_string(v.number) + ", not a value it takes");
  return v.number;
}

// The cases of the reference's variant at the axes it fixes, the others at
// their values before (with `before`) or their defaults; a
// std::logic_error for what does not fit the declarations.
std::vector<CaseId> cases_of(const FamilySpec& family, const CaseRef& ref, bool before) {
  if (!ref.family.empty() && ref.family != family.name)
    throw std::logic_error("a reference to family '" + ref.family + "' resolved in '" + family.name + "'");
  const std::string where = "family '" + family.name + "', variant '" + ref.variant + "': ";
  for (const auto& [name, value] : ref.axes)
    if (std::none_of(family.axes.begin(), family.axes.end(), [&](const AxisSpec& a) { return a.name == name; }))
      throw std::logic_error(where + "a reference fixes '" + name + "', which is not one of its axes");
  Selection selection;
  selection.values = [&](const std::string&, const AxisSpec& a) -> std::vector<std::int64_t> {
    for (const auto& [name, value] : ref.axes)
      if (name == a.name) return {value_of(family.name, a, value)};
    if (before && a.before) return {*a.before};
    return a.defaults;
  };
  Family cases(family, selection, 0);
  family.cases(cases);
  std::vector<CaseId> found;
  for (const CaseSpec& c : cases.cases())
    if (c.id.variant == ref.variant) found.push_back(c.id);
  if (found.empty()) throw std::logic_error(where + "no such variant");
  for (const auto& [name, value] : ref.axes)
    if (std::none_of(found.front().axes.begin(), found.front().axes.end(),
                     [&](const CaseId::Axis& a) { return a.name == name; }))
      throw std::logic_error(where + "its cases have no axis '" + name + "'");
  return found;
}

}  // namespace

CaseId resolve(const FamilySpec& family, const CaseRef& ref) {
  const std::vector<CaseId> found = cases_of(family, ref, true);
  if (found.size() > 1)
    throw std::logic_error("family '" + family.name + "', variant '" + ref.variant + "': a reference names " +
                           std::to_string(found.size()) + " cases (" + found.front().name() +
                           ", ...): fix every axis with several defaults");
  return found.front();
}

std::vector<CaseId> matching(const FamilySpec& family, const CaseRef& ref) { return cases_of(family, ref, false); }

bool fits(const FamilySpec& family, const CaseRef& ref, const CaseId& id) {
  if (id.family != family.name || id.variant != ref.variant) return false;
  for (const auto& [name, value] : ref.axes) {
    const auto spec =
        std::find_if(family.axes.begin(), family.axes.end(), [&](const AxisSpec& a) { return a.name == name; });
    const auto held =
        std::find_if(id.axes.begin(), id.axes.end(), [&](const CaseId::Axis& a) { return a.name == name; });
    if (spec == family.axes.end() || held == id.axes.end() || held->value != value_of(family.name, *spec, value))
      return false;
  }
  return true;
}

CaseId resolve(const CaseRef& ref) {
  for (const FamilySpec& f : registered_families())
    if (f.name == ref.family) return resolve(f, ref);
  throw std::logic_error("a reference names family '" + ref.family + "', which is not registered");
}

}  // namespace membench::cases
