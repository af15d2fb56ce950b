// What a family declares downstream of it (title, study, axes, figures)
// reaches the result file as data, for a family the scripts have never seen:
// a toy family registered here, on the CPU.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cases/family.hpp"
#include "gbench/result_file.hpp"

namespace membench::cases {
namespace {

void toy_cases(Family& f) {
  f.add("read", {"span", "order"}, {}, [](const CaseArgs&) -> CaseDefinition { throw CaseSkipped("a toy"); });
}

const Registrar toy{
    {"toy",
     {axis("span", "bytes", "bytes the toy reads", {4096}),
      axis_named("order", "how it walks them", {"forward", "backward"}, {0, 1}),
      axis("hop", "GPUs", "the GPU it reads, this many after", {1}).added_later(1).picking_the_peer()},
     toy_cases,
     {"Toy: a family no script names",
      {figure("reads by span", "span", "bytes_per_second")
           .log_x()
           .model("model_bytes_per_second")
           .only({"read"})
           .across({"dram_peak_bytes_per_second"})
           .upright({"l2_bytes"})
           .best_over({"order"}),
       figure("by order", "order", "bytes_per_second")
           .as_bars()
           .model_from(
               {"the forward rate x bytes / span", at("read", {{"order", "forward"}}), {"bytes"}, {"dram_read_bytes"}})
           .noted({"conflict_ways"}),
       figure("slower than forward", "span", "latency_ns").slowdown_against(at("read", {{"order", "forward"}}))},
      "none of the study's",
      {study_row(StudyTable::shared_memory, "a toy row", at("read", {{"order", "forward"}}))
           .article(123.5)
           .why({"sectors_per_request"})
           .beside(at("read", {{"span", 64}, {"order", "backward"}}))}}}};

const Registrar quiet{{"toy_quiet", {axis("n", "floats", "elements", {1})}, [](Family&) {}, Downstream{}}};

CaseSpec case_of(const std::string& family) {
  CaseSpec c;
  c.id.family = family;
  c.id.variant = "read";
  return c;
}

TEST(Declarations, AFamilysTitleAxesAndFiguresAreInTheResultFile) {
  const CaseSpec toy_case = case_of("toy");
  const auto families = gbench::family_entries({&toy_case});
  ASSERT_EQ(families.size(), 1u);  // only the families that have cases in the file
  const auto& toy_entry = families.at("toy");
  EXPECT_EQ(toy_entry.at("title"), "Toy: a family no script names");
  EXPECT_EQ(toy_entry.at("study"), "none of the study's");
  ASSERT_EQ(toy_entry.at("study_rows").size(), 1u);
  const auto& row = toy_entry["study_rows"][0];
  EXPECT_EQ(row.at("table"), 2);
  EXPECT_EQ(row.at("table_title"), "Shared memory, 4096 x 4096");  // the table's title, written once
  EXPECT_EQ(row.at("case"), "toy/read/order:forward/span:4096");   // a name made from the reference
  EXPECT_EQ(row.at("article_gb_per_second"), 123.5);
  EXPECT_EQ(row.at("counters"), (nlohmann::ordered_json{"sectors_per_request"}));
  EXPECT_EQ(row.at("baseline"), "toy/read/order:backward/span:64");
  ASSERT_EQ(toy_entry.at("axes").size(), 3u);
  EXPECT_EQ(toy_entry["axes"][0].at("unit"), "bytes");
  EXPECT_FALSE(toy_entry["axes"][0].contains("names"));
  EXPECT_EQ(toy_entry["axes"][1].at("names"), (nlohmann::ordered_json{"forward", "backward"}));
  // An axis added later says the value its cases had; one that picks the GPU a case reaches says so.
  EXPECT_FALSE(toy_entry["axes"][0].contains("before"));
  EXPECT_FALSE(toy_entry["axes"][0].contains("picks_peer"));
  EXPECT_EQ(toy_entry["axes"][2].at("before"), 1);
  EXPECT_TRUE(toy_entry["axes"][2].at("picks_peer").get<bool>());
  ASSERT_EQ(toy_entry.at("figures").size(), 3u);
  const auto& figure = toy_entry["figures"][0];
  EXPECT_EQ(figure.at("x"), "span");
  EXPECT_TRUE(figure.at("x_log").get<bool>());
  EXPECT_FALSE(figure.at("y_log").get<bool>());
  EXPECT_EQ(figure.at("y"), "bytes_per_second");
  EXPECT_EQ(figure.at("model"), "model_bytes_per_second");
  EXPECT_EQ(figure.at("variants"), (nlohmann::ordered_json{"read"}));
  EXPECT_EQ(figure.at("lines"), (nlohmann::ordered_json{"dram_peak_bytes_per_second"}));
  EXPECT_EQ(figure.at("heading"), "reads by span");
  EXPECT_EQ(figure.at("vlines"), (nlohmann::ordered_json{"l2_bytes"}));
  EXPECT_EQ(figure.at("best_of"), (nlohmann::ordered_json{"order"}));
  EXPECT_FALSE(figure.at("bars").get<bool>());
  const auto& bars = toy_entry["figures"][1];
  EXPECT_TRUE(bars.at("bars").get<bool>());
  EXPECT_FALSE(bars.at("x_log").get<bool>());
  EXPECT_EQ(bars.at("model"), "");
  EXPECT_TRUE(bars.at("variants").empty());
  EXPECT_FALSE(figure.contains("model_from"));
  EXPECT_FALSE(figure.contains("slowdown_vs"));
  EXPECT_TRUE(figure.at("notes").empty());
  // A model computed from another case: that case's variant and the axes it fixes (a named one by name),
  // the drawn case's counters it multiplies and divides by.
  EXPECT_EQ(bars.at("notes"), (nlohmann::ordered_json{"conflict_ways"}));
  const auto& from = bars.at("model_from");
  EXPECT_EQ(from.at("variant"), "read");
  EXPECT_EQ(from.at("axes"), (nlohmann::ordered_json{{"order", "forward"}}));
  EXPECT_EQ(from.at("label"), "the forward rate x bytes / span");
  EXPECT_EQ(from.at("times"), (nlohmann::ordered_json{"bytes"}));
  EXPECT_EQ(from.at("over"), (nlohmann::ordered_json{"dram_read_bytes"}));
  const auto& slowdown = toy_entry["figures"][2].at("slowdown_vs");
  EXPECT_EQ(slowdown.at("variant"), "read");
  EXPECT_EQ(slowdown.at("axes").at("order"), "forward");
}

TEST(Declarations, AFamilyThatDeclaresNothingIsNamedByItsName) {
  const CaseSpec c = case_of("toy_quiet");
  const auto families = gbench::family_entries({&c});
  EXPECT_EQ(families.at("toy_quiet").at("title"), "toy_quiet");
  EXPECT_TRUE(families.at("toy_quiet").at("figures").empty());
  EXPECT_TRUE(gbench::family_entries({}).empty());
}

// A figure along an axis the family lacks would draw nothing, silently: the
// family is refused when it registers.
TEST(Declarations, AFigureAlongAnAxisTheFamilyLacksIsRefused) {
  const auto spec = [](FigureSpec f) {
    return FamilySpec{"toy_bad", {axis("n", "floats", "elements", {1})}, toy_cases, Downstream{"t", {f}, "", {}}};
  };
  EXPECT_THROW(check_figures(spec(figure("h", "elements", "bytes_per_second"))), std::logic_error);
  EXPECT_THROW(check_figures(spec(figure("h", "n", "bytes_per_second").best_over({"block"}))), std::logic_error);
  EXPECT_NO_THROW(check_figures(spec(figure("h", "variant", "bytes_per_second").as_bars())));
  EXPECT_NO_THROW(check_figures(spec(figure("h", "n", "bytes_per_second"))));
  // A figure draws one model: its counter, or the one computed from another case.
  const ModelFrom from{"m", at("read"), {"bytes"}, {"dram_read_bytes"}};
  EXPECT_THROW(check_figures(spec(figure("h", "n", "bytes_per_second").model("m").model_from(from))), std::logic_error);
  EXPECT_NO_THROW(check_figures(spec(figure("h", "n", "bytes_per_second").model_from(from))));
}

}  // namespace
}  // namespace membench::cases
