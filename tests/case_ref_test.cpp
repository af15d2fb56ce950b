// Case references, on the CPU: a reference names a case by its family,
// variant and the axis values it fixes, never by its name; every reference
// a family declares resolves, a wrong one says what does not fit, and an
// axis added later leaves a reference naming the case it named.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

#include "cases/family.hpp"
#include "run/check.hpp"

namespace membench::cases {
namespace {

CaseDefinition none(const CaseArgs&) { throw CaseSkipped("not run"); }

// A family as it was, and as it is after an axis was added to its variant.
FamilySpec trial(bool with_k) {
  FamilySpec f;
  f.name = "trial";
  f.axes = {axis_named("kind", "a named axis", {"plain", "fancy"}, {0, 1}), axis("n", "things", "how many", {8, 16})};
  if (with_k) f.axes.push_back(axis("k", "ways", "added later", {1, 2}).added_later(1));
  f.cases = [with_k](Family& fam) {
    fam.add("v", with_k ? std::vector<std::string>{"kind", "n", "k"} : std::vector<std::string>{"kind", "n"}, {}, none);
    fam.add("w", {"n"}, {}, none);
  };
  return f;
}

std::string error_of(const FamilySpec& f, const CaseRef& ref) {
  try {
    resolve(f, ref);
  } catch (const std::logic_error& e) { return e.what(); }
  return "";
}

TEST(CaseRef, NamesACaseByItsAxesNamedOnesByName) {
  EXPECT_EQ(resolve(trial(false), at("v", {{"kind", "fancy"}, {"n", 16}})).name(), "trial/v/kind:fancy/n:16");
  EXPECT_EQ(resolve(trial(false), at("w", {{"n", 8}})).name(), "trial/w/n:8");
  // The suite's own, its family found among those registered: the check's DRAM read, a stream read of floats.
  const CaseId read = resolve({"stream", "read", {{"type", "float"}}});
  EXPECT_EQ(read.family + "/" + read.variant, "stream/read");
  ASSERT_FALSE(read.axes.empty());
  EXPECT_EQ(read.axes.front().name + ":" + read.axes.front().label, "type:float");
}

TEST(CaseRef, AWrongReferenceSaysWhatDoesNotFit) {
  const FamilySpec f = trial(false);
  EXPECT_NE(error_of(f, at("x", {{"n", 8}, {"kind", "plain"}})).find("no such variant"), std::string::npos);
  EXPECT_NE(error_of(f, at("v", {{"m", 8}})).find("'m', which is not one of its axes"), std::string::npos);
  EXPECT_NE(error_of(f, at("v", {{"kind", "odd"}, {"n", 8}})).find("'odd', not one of its names"), std::string::npos);
  EXPECT_NE(error_of(f, at("v", {{"kind", 1}, {"n", 8}})).find("not one of its names"), std::string::npos);
  EXPECT_NE(error_of(f, at("v", {{"kind", "plain"}, {"n", 0}})).find("at 0, not a value it takes"), std::string::npos);
  EXPECT_NE(error_of(f, at("w", {{"n", 8}, {"kind", "plain"}})).find("its cases have no axis 'kind'"),
            std::string::npos);
  EXPECT_NE(error_of(f, at("v", {{"n", 8}})).find("names 2 cases"), std::string::npos);  // kind left open
  EXPECT_NE(error_of(f, {"other", "v", {}}).find("family 'other'"), std::string::npos);
  EXPECT_THROW(resolve({"no_such_family", "v", {}}), std::logic_error);
}

// A figure's reference may leave axes of several defaults open (the drawn
// case fills them), so it names every case they make; what does not fit
// fails as for a single case.
TEST(CaseRef, AFiguresReferenceNamesEveryCaseItsOpenAxesMake) {
  const FamilySpec f = trial(true);
  const std::vector<CaseId> open = matching(f, at("v", {{"n", 8}}));
  ASSERT_EQ(open.size(), 4u);  // kind and k left open: their defaults, not k's value before
  EXPECT_EQ(open.front().name(), "trial/v/kind:plain/n:8/k:1");
  EXPECT_EQ(open.back().name(), "trial/v/kind:fancy/n:8/k:2");
  EXPECT_EQ(matching(f, at("w")).size(), 2u);
  EXPECT_THROW(matching(f, at("x")), std::logic_error);
  EXPECT_THROW(matching(f, at("v", {{"n", 0}})), std::logic_error);
  EXPECT_THROW(matching(f, at("w", {{"kind", "plain"}})), std::logic_error);
}

// The trial the design asks for: an axis added to an existing variant, with
// the value its cases had before, leaves every reference naming the same
// case (now with the axis in its name), and the result file says so.
TEST(CaseRef, AnAxisAddedLaterLeavesAReferenceNamingTheSameCase) {
  const CaseRef ref = at("v", {{"kind", "plain"}, {"n", 8}});
  EXPECT_EQ(resolve(trial(false), ref).name(), "trial/v/kind:plain/n:8");
  EXPECT_EQ(resolve(trial(true), ref).name(), "trial/v/kind:plain/n:8/k:1");
  EXPECT_EQ(resolve(trial(true), at("v", {{"kind", "plain"}, {"n", 8}, {"k", 2}})).name(),
            "trial/v/kind:plain/n:8/k:2");
  // Without a value before, an axis of several defaults must be fixed.
  FamilySpec f = trial(true);
  f.axes.back().before.reset();
  EXPECT_NE(error_of(f, ref).find("names 2 cases"), std::string::npos);
}

// Every reference a registered family declares resolves: its study rows and
// their baselines, and its check cases; the check's 15 are each named once.
TEST(CaseRef, ARoofsReferenceFitsEveryCaseAtTheAxesItFixes) {
  const FamilySpec f = trial(true);
  const CaseRef fancy = at("v", {{"kind", "fancy"}});
  EXPECT_TRUE(fits(f, fancy, resolve(f, at("v", {{"kind", "fancy"}, {"n", 8}}))));
  EXPECT_TRUE(fits(f, fancy, resolve(f, at("v", {{"kind", "fancy"}, {"n", 16}, {"k", 2}}))));
  EXPECT_FALSE(fits(f, fancy, resolve(f, at("v", {{"kind", "plain"}, {"n", 16}}))));
  EXPECT_FALSE(fits(f, at("w"), resolve(f, at("v", {{"kind", "plain"}, {"n", 16}}))));  // another variant
  EXPECT_FALSE(fits(f, at("w", {{"k", 1}}), resolve(f, at("w", {{"n", 8}}))));          // an axis it lacks
}

TEST(CaseRef, ARoofOfACounterThatIsNoRateIsRefused) {
  FamilySpec f = trial(false);
  f.downstream.roofs = {roof("latency", "latency_ns", at("v"))};
  EXPECT_THROW(check_figures(f), std::logic_error);
  f.downstream.roofs = {datasheet_roof("a datasheet's", "ops_per_second", "another GPU", 0)};
  EXPECT_THROW(check_figures(f), std::logic_error);
  f.downstream.roofs = {roof("fp32", "ops_per_second", at("v")), roof("DRAM", "bytes_per_second", at("w"))};
  EXPECT_NO_THROW(check_figures(f));
}

TEST(CaseRef, ADeclarationNamingACounterTheCatalogLacksIsRefused) {
  const auto error = [](const FamilySpec& f) {
    try {
      check_figures(f);
    } catch (const std::logic_error& e) { return std::string(e.what()); }
    return std::string();
  };
  FamilySpec f = trial(false);
  f.downstream.figures = {figure("rates", "n", "bytes_per_second").model("model_bytes_per_second")};
  EXPECT_EQ(error(f), "");
  f.downstream.figures = {figure("rates", "n", "bytes_per_secnod")};
  EXPECT_NE(error(f).find("figure 'rates' names 'bytes_per_secnod', which the counter catalog does not declare"),
            std::string::npos)
      << error(f);
  f.downstream.figures = {figure("rates", "n", "bytes_per_second").model("model_rate")};
  EXPECT_NE(error(f).find("'model_rate'"), std::string::npos) << error(f);
  f.downstream.figures = {};
  f.downstream.study_rows = {study_row(StudyTable::claims, "a row", at("v")).why({"sectors_per_warp"})};
  EXPECT_NE(error(f).find("study row 'a row' names 'sectors_per_warp'"), std::string::npos) << error(f);
  f.downstream.study_rows = {};
  f.downstream.check = {check_case(CheckLevel::dram_read, "gbytes_per_second", at("v"))};
  EXPECT_NE(error(f).find("check case 'DRAM read' names 'gbytes_per_second'"), std::string::npos) << error(f);
}

TEST(CaseRef, EveryReferenceTheFamiliesDeclareResolves) {
  int refs = 0;
  for (const FamilySpec& f : registered_families()) {
    SCOPED_TRACE(f.name);
    for (const StudyRow& r : f.downstream.study_rows) {
      EXPECT_NO_THROW(resolve(f, r.of)) << r.label;
      if (r.baseline) { EXPECT_NO_THROW(resolve(f, *r.baseline)) << r.label; }
      ++refs;
    }
    for (const CheckDecl& c : f.downstream.check) {
      EXPECT_NO_THROW(resolve(f, c.of)) << check_level_name(c.level);
      ++refs;
    }
    // A measured roof names cases of one variant, any value of the axes it leaves open.
    for (const RoofDecl& r : f.downstream.roofs) {
      if (r.gpu.empty()) {
        EXPECT_FALSE(matching(f, r.of).empty()) << r.name;
        ++refs;
      }
    }
    // A figure's reference names cases of one variant, its open axes the drawn case's.
    for (const FigureSpec& figure : f.downstream.figures) {
      if (figure.derived_model) {
        EXPECT_FALSE(matching(f, figure.derived_model->from).empty()) << figure.heading;
        ++refs;
      }
      if (figure.slowdown_vs) {
        EXPECT_FALSE(matching(f, *figure.slowdown_vs).empty()) << figure.heading;
        ++refs;
      }
    }
  }
  EXPECT_GT(refs, 30);
  std::set<std::string> names, levels;
  for (const run::CheckCase& c : run::check_cases()) {
    EXPECT_TRUE(names.insert(c.name).second) << c.name << " twice";
    EXPECT_TRUE(levels.insert(c.level).second) << c.level << " twice";
  }
  EXPECT_EQ(names.size(), 17u);
  EXPECT_EQ(run::check_cases().front().level, "host to device");     // the check's order: the host link first,
  EXPECT_EQ(run::check_cases()[14].level, "shared-memory atomics");  // the memory levels down to the SM's,
  EXPECT_EQ(run::check_cases().back().level, "tensor cores");        // then the compute pipes
}

}  // namespace
}  // namespace membench::cases
