#include "family.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace membench::bench {

namespace {
std::vector<FamilySpec>& families() {
  static std::vector<FamilySpec> list;
  return list;
}
}  // namespace

// Static initialisation runs in link order; the list is kept sorted by name
// so the run order does not depend on the build.
Registrar::Registrar(FamilySpec spec) {
  auto& list = families();
  const auto at = std::upper_bound(list.begin(), list.end(), spec.name,
                                   [](const std::string& name, const FamilySpec& f) { return name < f.name; });
  list.insert(at, std::move(spec));
}

const std::vector<FamilySpec>& registered_families() { return families(); }

cli::AxisSpec axis(std::string name, std::string help, std::vector<std::int64_t> defaults, std::int64_t min,
                   std::int64_t max, std::int64_t multiple_of) {
  return {std::move(name), std::move(help), std::move(defaults), min, max, {}, multiple_of, {}};
}

cli::AxisSpec axis_named(std::string name, std::string help, std::vector<std::string> names,
                         std::vector<std::int64_t> defaults) {
  cli::AxisSpec a = axis(std::move(name), std::move(help), std::move(defaults), 0,
                         static_cast<std::int64_t>(names.size()) - 1);
  for (std::size_t i = 0; i < names.size(); ++i) a.allowed.push_back(static_cast<std::int64_t>(i));
  a.names = std::move(names);
  return a;
}

std::vector<std::int64_t> Family::values(const std::string& axis) const {
  return options_.values(spec_.name, axis, declared(axis).defaults);
}

void Family::add(const std::string& variant, const std::vector<std::string>& axes, Define define) {
  // Numeric axes go to Google Benchmark as arguments; each combination of the
  // named axes' values is a registration of its own, named in the case name.
  std::vector<std::string> numeric, named;
  std::vector<std::vector<std::int64_t>> lists;
  for (const auto& a : axes) {
    const cli::AxisSpec& spec = declared(a);
    if (spec.names.empty()) {
      numeric.push_back(a);
      lists.push_back(values(a));
    } else {
      named.push_back(a);
    }
  }
  if (count_only_) {
    double cases = options_.measure.l2 == cli::L2Mode::both ? 2 : 1;
    for (const auto& list : lists) cases *= static_cast<double>(list.size());
    for (const auto& a : named) cases *= static_cast<double>(values(a).size());
    counted_ += cases;
    return;
  }
  std::vector<CaseArgs::Fixed> combinations{{}};
  for (const auto& a : named) {
    std::vector<CaseArgs::Fixed> next;
    for (const auto& partial : combinations)
      for (std::int64_t v : values(a)) {
        next.push_back(partial);
        next.back().emplace_back(a, v);
      }
    combinations = std::move(next);
  }
  for (const auto& fixed : combinations) {
    std::string name = spec_.name + "/" + variant;
    for (const auto& [a, v] : fixed) name += "/" + a + ":" + declared(a).names.at(static_cast<std::size_t>(v));
    const auto names = register_case(name, numeric, lists, define, options_, fixed);
    names_.insert(names_.end(), names.begin(), names.end());
  }
}

const cli::AxisSpec& Family::declared(const std::string& axis) const {
  for (const auto& a : spec_.axes)
    if (a.name == axis) return a;
  throw std::logic_error("family '" + spec_.name + "' declares no axis '" + axis + "'");
}

cli::AxisTable axis_table() {
  std::vector<cli::AxisTable::Use> uses;
  for (const auto& f : registered_families())
    for (const auto& a : f.axes) uses.push_back({f.name, a});
  return cli::AxisTable(uses);
}

std::vector<std::string> register_families(const cli::Options& options) {
  double total = 0;
  for (const auto& spec : registered_families()) {
    Family family(spec, options, true);
    spec.cases(family);
    total += family.counted();
  }
  total *= static_cast<double>(options.run_devices.size());
  if (total > kMaxCases) {
    std::ostringstream os;
    os.precision(15);
    os << "these flags make " << total << " cases, more than the " << kMaxCases
       << " one run may hold; narrow the axes or split the run";
    throw cli::UsageError(os.str());
  }
  // Device by device, so that the session moves to the next GPU only once.
  std::vector<std::string> names;
  for (const int device : options.run_devices) {
    cli::Options one = options;
    one.run_devices = {device};
    one.tag_devices = options.run_devices.size() > 1;
    for (const auto& spec : registered_families()) {
      Family family(spec, one);
      spec.cases(family);
      names.insert(names.end(), family.case_names().begin(), family.case_names().end());
    }
  }
  return names;
}

}  // namespace membench::bench
