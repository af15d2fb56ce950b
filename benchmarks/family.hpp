// How an experiment joins the suite. A family declares its axes (name, help,
// default list, the values it accepts) and a function that adds its cases;
// a static Registrar in the family's own file puts it on the list. main and
// the command line name no family: they read the list.
//
//   void cases(Family& f) {
//     f.add("coalesced", {"n"}, [](const CaseArgs& a) { return ...; });
//   }
//   const Registrar registrar{{"global", {axis("n", "elements", {1 << 24})}, cases}};
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "cli.hpp"
#include "harness.hpp"

namespace membench::bench {

class Family;

struct FamilySpec {
  std::string name;
  std::vector<cli::AxisSpec> axes;
  std::function<void(Family&)> cases;
};

// Puts a family on the list (at static-initialisation time).
struct Registrar {
  explicit Registrar(FamilySpec spec);
};
const std::vector<FamilySpec>& registered_families();

// An axis that takes any value in [min, max] that is a multiple of `multiple_of`.
cli::AxisSpec axis(std::string name, std::string help, std::vector<std::int64_t> defaults, std::int64_t min = 1,
                   std::int64_t max = std::int64_t{1} << 40, std::int64_t multiple_of = 1);
// An axis whose values are the list a template is instantiated for.
template <class List>
cli::AxisSpec axis_of(std::string name, std::string help, std::vector<std::int64_t> defaults) {
  cli::AxisSpec a;
  a.name = std::move(name);
  a.help = std::move(help);
  a.defaults = std::move(defaults);
  a.allowed.assign(List::values.begin(), List::values.end());
  a.min = *std::min_element(a.allowed.begin(), a.allowed.end());
  a.max = *std::max_element(a.allowed.begin(), a.allowed.end());
  return a;
}

// An axis of names (e.g. type: float, double); a case's value is an index into them.
cli::AxisSpec axis_named(std::string name, std::string help, std::vector<std::string> names,
                         std::vector<std::int64_t> defaults);

// What a family's `cases` function gets: the sweep for its axes, and `add`.
class Family {
 public:
  // count_only: add() counts the cases it would register and registers none.
  Family(const FamilySpec& spec, const cli::Options& options, bool count_only = false)
      : spec_(spec), options_(options), count_only_(count_only) {}
  // The values of this family's axis: from the command line or the sweep file, else its default.
  std::vector<std::int64_t> values(const std::string& axis) const;
  // Registers family/variant over the product of these axes' values (named
  // axes become part of the name: family/variant/type:double/...).
  void add(const std::string& variant, const std::vector<std::string>& axes, Define define);
  const std::vector<std::string>& case_names() const { return names_; }
  double counted() const { return counted_; }

 private:
  const cli::AxisSpec& declared(const std::string& axis) const;
  const FamilySpec& spec_;
  const cli::Options& options_;
  bool count_only_ = false;
  double counted_ = 0;  // a double: ten axes of 10,000 values must not overflow the count
  std::vector<std::string> names_;
};

// Every family's axes, for the command line.
cli::AxisTable axis_table();
// The most cases one run may register: registering is what costs memory and
// time, before any filter applies.
inline constexpr double kMaxCases = 100000;

// Registers every family's cases with Google Benchmark, for each of
// options.run_devices in turn; returns their names. More than kMaxCases is a
// UsageError with the count, before any is registered.
std::vector<std::string> register_families(const cli::Options& options);

}  // namespace membench::bench
