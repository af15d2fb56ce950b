// How an experiment joins the suite. A family declares its axes (name, unit,
// help, default list, the values it accepts) and a function that adds its
// cases; a static Registrar in the family's own file puts it on the list.
// Nothing else names a family: the runner, the Google Benchmark adapter and
// the command line read the list, and the scripts read what the family
// declares downstream of it (title, figures) from the result file.
//
//   void cases(Family& f) {
//     f.add("coalesced", {"n"}, {"coalesced_scale"}, [](const CaseArgs& a) { return ...; });
//   }
//   const Registrar registrar{{"global", {axis("n", "floats", "elements of each array", {1 << 24})}, cases}};
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cases/case.hpp"
#include "cases/case_id.hpp"
#include "engine/options.hpp"
#include "membench/platform/device_info.hpp"
#include "membench/platform/int_list.hpp"

namespace membench::cases {

// One axis of one family: its name (the flag that fills it and its part of
// the case name), its unit, the values it accepts, its default list and one
// line of help. A named axis (`names` not empty, e.g. type: float, double)
// takes names on the command line; its values are their indices.
struct AxisSpec {
  std::string name;
  std::string unit;
  std::string help;
  std::vector<std::int64_t> defaults;
  std::int64_t min = 1;
  std::int64_t max = INT64_MAX;
  std::vector<std::int64_t> allowed;  // empty: any value in [min, max]
  std::int64_t multiple_of = 1;
  std::vector<std::string> names;  // a named axis: value i is names[i]
  // An axis added to the family after its first cases: the value those cases
  // had (their names lack the axis). A reader fills a name without it with
  // this value, and a case reference that does not fix it means it.
  std::optional<std::int64_t> before = std::nullopt;
  // The axis picks which other GPU a case reaches (the case reports the one
  // it reached, peer_device): the cases that differ in it alone are one
  // case's cells of a GPU-by-GPU matrix, and a reader pairs them so.
  bool picks_peer = false;

  AxisSpec& added_later(std::int64_t value_before) { return before = value_before, *this; }
  AxisSpec& picking_the_peer() { return picks_peer = true, *this; }
};

// An axis that takes any value in [min, max] that is a multiple of `multiple_of`.
AxisSpec axis(std::string name, std::string unit, std::string help, std::vector<std::int64_t> defaults,
              std::int64_t min = 1, std::int64_t max = std::int64_t{1} << 40, std::int64_t multiple_of = 1);
// An axis whose values are the list a template is instantiated for.
template <class List>
AxisSpec axis_of(std::string name, std::string unit, std::string help, std::vector<std::int64_t> defaults) {
  AxisSpec a;
  a.name = std::move(name);
  a.unit = std::move(unit);
  a.help = std::move(help);
  a.defaults = std::move(defaults);
  a.allowed.assign(List::values.begin(), List::values.end());
  a.min = *std::min_element(a.allowed.begin(), a.allowed.end());
  a.max = *std::max_element(a.allowed.begin(), a.allowed.end());
  return a;
}
// An axis of names (e.g. type: float, double); a case's value is an index into them.
AxisSpec axis_named(std::string name, std::string help, std::vector<std::string> names,
                    std::vector<std::int64_t> defaults);
// The same, named by an enum's names (kStreamTypes, ...).
template <class Enum, std::size_t N>
AxisSpec axis_named(std::string name, std::string help, const EnumNames<Enum, N>& names,
                    std::vector<std::int64_t> defaults) {
  return axis_named(std::move(name), std::move(help), std::vector<std::string>(names.names.begin(), names.names.end()),
                    std::move(defaults));
}

class Family;

// A value a case reference fixes an axis at: a number, or a named axis's name.
struct AxisValue {
  AxisValue(std::int64_t n) : number(n) {}  // NOLINT(google-explicit-constructor): {"n", 1 << 24}
  AxisValue(int n) : number(n) {}           // NOLINT(google-explicit-constructor)
  AxisValue(const char* n) : name(n) {}     // NOLINT(google-explicit-constructor): {"type", "float"}
  std::int64_t number = 0;
  std::string name;  // a named axis's value ("": a number)
};

// A case named by what it is, never by its name: a family, a variant and the
// values of the axes it fixes. An axis it does not fix is the one its cases
// had before the axis was added, else the axis's one default. resolve()
// checks it against the declarations (a test resolves every reference a
// family declares), so an unknown variant, axis or value fails the tests,
// and an axis added later leaves every reference naming the same case.
struct CaseRef {
  std::string family;  // "": in a family's declarations, that family
  std::string variant;
  std::vector<std::pair<std::string, AxisValue>> axes;
};
inline CaseRef at(std::string variant, std::vector<std::pair<std::string, AxisValue>> axes = {}) {
  return {"", std::move(variant), std::move(axes)};
}

// A model line a figure computes from another case: for each case drawn,
// the y of the case `from` names (its variant and the axes it fixes; every
// other axis and tag it has are the drawn case's), times the drawn case's
// `times` counters, over the sum of its `over` counters. E.g. what a strided
// read would reach if its modelled DRAM bytes moved at memcpy's rate:
//
//   {"memcpy's rate x useful / modelled DRAM bytes", at("memcpy"), {"bytes"},
//    {"dram_read_bytes", "dram_write_bytes"}}
struct ModelFrom {
  std::string label;
  CaseRef from;
  std::vector<std::string> times;
  std::vector<std::string> over;
};

// A figure a family declares; the result file carries it, and the scripts
// draw it from there (a line for every combination of the axes not on x, the
// variant among them), so a new family gets its figure without a script
// change. Declared with figure() and the setters below, which name only what
// differs from the plain figure:
//
//   figure("copies over the link", "bytes", "bytes_per_second").log_x().model("model_bytes_per_second")
struct FigureSpec {
  std::string heading;
  std::string x;  // the axis along x, or "variant"
  bool x_log = false;
  std::string y;  // the counter up y
  bool y_log = false;
  std::string model_counter;          // a model counter in y's unit, drawn dashed beside it ("": none)
  std::vector<std::string> variants;  // only these (empty: every variant that has x)
  std::vector<std::string> lines;     // context keys in y's unit drawn across (dram_peak_bytes_per_second)
  std::vector<std::string> vlines;    // context keys in x's unit drawn upright (l2_bytes)
  std::vector<std::string> best_of;   // axes over which only the best y is drawn (a block size swept for the best)
  bool bars = false;                  // bars side by side at each x, not lines
  std::optional<ModelFrom> derived_model = std::nullopt;  // a model line computed from another case
  // y drawn as how many times slower each case is than this one (its y over
  // theirs where higher is better); the model counter is then a factor too.
  std::optional<CaseRef> slowdown_vs = std::nullopt;
  std::vector<std::string> notes = {};  // counters written on each point (a bar's conflict ways)
  // Drawn on the run's roofline: each case at its flops_per_byte and its y
  // (a FLOP rate), under the roofs the result file carries, log-log; `pipe`
  // names the compute roof its arithmetic runs on, whose ridges are marked.
  bool roofline = false;
  std::string pipe = "";

  FigureSpec& log_x() { return x_log = true, *this; }
  FigureSpec& log_y() { return y_log = true, *this; }
  FigureSpec& model(std::string counter) { return model_counter = std::move(counter), *this; }
  FigureSpec& model_from(ModelFrom line) { return derived_model = std::move(line), *this; }
  FigureSpec& slowdown_against(CaseRef baseline) { return slowdown_vs = std::move(baseline), *this; }
  FigureSpec& noted(std::vector<std::string> counters) { return notes = std::move(counters), *this; }
  FigureSpec& only(std::vector<std::string> names) { return variants = std::move(names), *this; }
  FigureSpec& across(std::vector<std::string> keys) { return lines = std::move(keys), *this; }
  FigureSpec& upright(std::vector<std::string> keys) { return vlines = std::move(keys), *this; }
  FigureSpec& best_over(std::vector<std::string> axes) { return best_of = std::move(axes), *this; }
  FigureSpec& as_bars() { return bars = true, *this; }
  FigureSpec& on_roofline(std::string roof) {
    return roofline = true, pipe = std::move(roof), x_log = true, y_log = true, *this;
  }
};
FigureSpec figure(std::string heading, std::string x, std::string y);

// What is downstream of a family: its title, its figures, its place in the
// study the suite started from ("": none).
// The study's tables, in the order the report shows them (each title is
// written once, by study_table_title). claims: the claims the article makes
// without numbers (its boundaries and misconceptions), each family that
// tests one adding its row, its case beside a baseline case.
enum class StudyTable { coalescing = 1, shared_memory, async_copy, claims };
const char* study_table_title(StudyTable table);

// One row of a table of the study the suite started from: the case that
// measures what the article measured, the article's number beside it, and the
// counters that say why (shown as columns of the table). Declared with
// study_row() and the setters below, which name only what the row has:
//
//   study_row(StudyTable::coalescing, "stride 2", at("strided", {{"stride", 2}})).article(461.2).why(kWhy)
struct StudyRow {
  StudyTable table = StudyTable::claims;
  std::string label;
  CaseRef of;                        // a case of the declaring family
  double article_gb_per_second = 0;  // 0: a claim the article makes without a number
  std::vector<std::string> counters;
  std::optional<CaseRef> baseline;  // the case this row's GB/s is set beside (none: the table's first row)

  StudyRow& article(double gb_per_second) { return article_gb_per_second = gb_per_second, *this; }
  StudyRow& why(std::vector<std::string> names) { return counters = std::move(names), *this; }
  StudyRow& beside(CaseRef other) { return baseline = std::move(other), *this; }
};
StudyRow study_row(StudyTable table, std::string label, CaseRef of);

// The levels membench --check judges, in the order it runs and prints them:
// from the host link through DRAM and the L2 to the L1 and shared memory,
// then the pipes. Each name is written once, by check_level_name.
enum class CheckLevel {
  host_to_device,
  device_to_host,
  host_link_both_ways,
  dram_read,
  dram_write,
  dram_copy,
  dram_triad,
  dram_latency,
  l2_read,
  l2_latency,
  l2_atomics,
  l1_read,
  l1_latency,
  shared_read,
  shared_atomics,
  fp32_fma,
  tensor_cores,
};
const char* check_level_name(CheckLevel level);

// A case of membench --check: the level it tests, the counter judged, the case.
struct CheckDecl {
  CheckLevel level = CheckLevel::dram_read;
  std::string metric;
  CaseRef of;  // a case of the declaring family
};
CheckDecl check_case(CheckLevel level, std::string metric, CaseRef of);

// A roof of the run's roofline: the best `counter` (ops_per_second: a
// pipe's ceiling; bytes_per_second: a level's) over the cases `of` names,
// at the axes it fixes and any value of the others. A datasheet roof (a
// `gpu` named, a fixed value) is another GPU's figure beside the measured
// ones (the study's RTX 4090). The result file carries each roof with the
// case that reached it, and the ridge points (a compute roof over a memory
// roof of the same GPU, in operations a byte).
struct RoofDecl {
  std::string name;
  std::string counter;
  CaseRef of = {};
  std::string gpu = "";  // "": this GPU, measured
  double value = 0;      // a datasheet roof's
};
inline RoofDecl roof(std::string name, std::string counter, CaseRef of) {
  return {std::move(name), std::move(counter), std::move(of)};
}
inline RoofDecl datasheet_roof(std::string name, std::string counter, std::string gpu, double value) {
  return {std::move(name), std::move(counter), {}, std::move(gpu), value};
}

struct Downstream {
  std::string title;
  std::vector<FigureSpec> figures;
  std::string study;                  // the family's place in the study, in a line ("": none)
  std::vector<StudyRow> study_rows;   // its rows in the study's tables
  std::vector<CheckDecl> check = {};  // its cases in membench --check
  std::vector<RoofDecl> roofs = {};   // its roofs of the run's roofline
};

struct FamilySpec {
  std::string name;
  std::vector<AxisSpec> axes;
  std::function<void(Family&)> cases;
  Downstream downstream;
};

// Throws std::logic_error where a figure runs along, or keeps the best
// over, a name that is not one of the family's axes (it would draw nothing),
// or has both a model counter and a model computed from another case; or
// where a roof names no counter of op/s or B/s, or a case its family lacks.
void check_figures(const FamilySpec& spec);

// Puts a family on the list (at static-initialisation time), once its
// figures pass check_figures; the list is kept sorted by name, so the run
// order does not depend on the build.
struct Registrar {
  explicit Registrar(FamilySpec spec);
};
const std::vector<FamilySpec>& registered_families();

// The case a reference names among the family's declarations (its family
// field empty or this family's name), as it is named today; a
// std::logic_error saying what does not fit: an unknown variant, axis or
// value, or an axis it leaves open that has no value before and several
// defaults.
CaseId resolve(const FamilySpec& family, const CaseRef& ref);
// The same, the family found by the reference's name among those registered.
CaseId resolve(const CaseRef& ref);
// Every case a reference may name among the family's declarations, the axes
// it leaves open at their defaults: what a figure's reference stands for,
// its open axes taken from the case drawn. A std::logic_error as resolve()
// says, but for a reference that names several cases.
std::vector<CaseId> matching(const FamilySpec& family, const CaseRef& ref);

// Whether a case is one the reference names with its open axes free: the
// family's, of the reference's variant, at every axis it fixes.
bool fits(const FamilySpec& family, const CaseRef& ref, const CaseId& id);

// What a run covers: the values of every family's axes (from the command
// line, else the family's defaults), its devices, and the L2 states.
struct Selection {
  std::function<std::vector<std::int64_t>(const std::string& family, const AxisSpec& axis)> values;
  std::vector<int> devices{0};
  engine::L2 l2 = engine::L2::warm;
};

// One case to run: its identity, the kernels it launches (for ncu), the
// device it runs on, its L2 state and its definition.
struct CaseSpec {
  CaseId id;
  std::vector<std::string> kernels;
  std::vector<const AxisSpec*> axes;  // the declarations of id.axes, in order
  int device = 0;
  bool cold = false;
  Define define;
};

// What a family's `cases` function gets: the values of its axes, and `add`.
class Family {
 public:
  // count_only: add() counts the cases it would make, and makes none.
  Family(const FamilySpec& spec, const Selection& selection, int device, bool count_only = false);
  // The values of this family's axis for this run.
  std::vector<std::int64_t> values(const std::string& axis) const;
  // Adds family/variant over the product of these axes' values (named axes
  // first in the name), launching `kernels`.
  void add(const std::string& variant, const std::vector<std::string>& axes, std::vector<std::string> kernels,
           Define define);
  std::vector<CaseSpec>& cases() { return cases_; }
  double counted() const { return counted_; }

 private:
  const AxisSpec& declared(const std::string& axis) const;
  const FamilySpec& spec_;
  const Selection& selection_;
  int device_;
  bool count_only_;
  double counted_ = 0;  // a double: ten axes of 10,000 values must not overflow the count
  std::vector<CaseSpec> cases_;
};

// The most cases one run may hold: making them is what costs memory and
// time, before any filter applies.
inline constexpr double kMaxCases = 100000;

struct TooManyCases : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Every family's cases for this run, device by device (so a run over several
// GPUs moves to the next only once). More than kMaxCases throws TooManyCases
// with the count, before any is made.
std::vector<CaseSpec> enumerate_cases(const Selection& selection);

}  // namespace membench::cases
