#include "family.hpp"

#include <algorithm>
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
  return {std::move(name), std::move(help), std::move(defaults), min, max, {}, multiple_of};
}

std::vector<std::int64_t> Family::values(const std::string& axis) const {
  for (const auto& a : spec_.axes)
    if (a.name == axis) return options_.values(spec_.name, axis, a.defaults);
  throw std::logic_error("family '" + spec_.name + "' declares no axis '" + axis + "'");
}

void Family::add(const std::string& variant, const std::vector<std::string>& axes, Define define) {
  std::vector<std::vector<std::int64_t>> lists;
  for (const auto& a : axes) lists.push_back(values(a));
  const auto names = register_case(spec_.name + "/" + variant, axes, lists, define, options_);
  names_.insert(names_.end(), names.begin(), names.end());
}

cli::AxisTable axis_table() {
  std::vector<cli::AxisTable::Use> uses;
  for (const auto& f : registered_families())
    for (const auto& a : f.axes) uses.push_back({f.name, a});
  return cli::AxisTable(uses);
}

std::vector<std::string> register_families(const cli::Options& options) {
  std::vector<std::string> names;
  for (const auto& spec : registered_families()) {
    Family family(spec, options);
    spec.cases(family);
    names.insert(names.end(), family.case_names().begin(), family.case_names().end());
  }
  return names;
}

}  // namespace membench::bench
