// A case's name as data: CaseId writes it and reads it back, and the binary's
// --list_cases=json (the scripts' source) agrees with it for every case the
// default run and every sweep file lists.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "cases/case_id.hpp"
#include "process.hpp"

namespace membench::cases {
namespace {

TEST(CaseId, NameIsFamilyVariantTagsNamedAxesThenNumbers) {
  CaseId id{"stream", "triad", {{"device", "1"}, {"l2", "cold"}}, {{"type", 1, "double"}, {"elements", 1024, ""}}};
  EXPECT_EQ(id.name(), "stream/triad/device:1/l2:cold/type:double/elements:1024");
  EXPECT_EQ(id["type"], 1);
  EXPECT_EQ(id["elements"], 1024);
  EXPECT_THROW(id["n"], std::logic_error);
  EXPECT_EQ(id.tag("l2"), "cold");
  EXPECT_FALSE(id.tag("host"));
  EXPECT_EQ((CaseId{"global", "memcpy", {}, {}}.name()), "global/memcpy");
}

TEST(CaseId, ParseReadsBackWhatNameWrote) {
  const auto id = CaseId::parse("global/strided/device:3/n:16777216/stride:2/manual_time");
  ASSERT_TRUE(id);
  EXPECT_EQ(id->family, "global");
  EXPECT_EQ(id->variant, "strided");
  EXPECT_EQ(id->tags, (std::vector<std::pair<std::string, std::string>>{{"device", "3"}}));
  ASSERT_EQ(id->axes.size(), 2u);
  EXPECT_EQ(id->axes[0], (CaseId::Axis{"n", 16777216, ""}));
  EXPECT_EQ(id->axes[1], (CaseId::Axis{"stride", 2, ""}));
  EXPECT_EQ(id->name(), "global/strided/device:3/n:16777216/stride:2");
  const auto named = CaseId::parse("stream/dot/type:float/elements:-1");
  ASSERT_TRUE(named);
  EXPECT_EQ(named->axes[0], (CaseId::Axis{"type", -1, "float"}));  // the index is the family's
  EXPECT_EQ(named->axes[1].value, -1);
  // A tag after an axis is an axis: tags come right after the variant.
  EXPECT_EQ(CaseId::parse("a/b/n:1/l2:cold")->tags.size(), 0u);
  for (const char* bad : {"", "global", "/x", "a/b/n", "a/b/:1", "a/b/n:", "a//n:1"})
    EXPECT_FALSE(CaseId::parse(bad)) << bad;
}

// Every case --list_cases=json shows for these arguments: its fields are what
// CaseId::parse reads from its name, and the name is what CaseId writes.
void expect_round_trip(const std::string& args) {
  SCOPED_TRACE(args);
  const test::Outcome r = test::run("--list_cases=json " + args);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json cases = nlohmann::json::parse(r.output);
  ASSERT_GT(cases.size(), 0u);
  for (const auto& c : cases) {
    const std::string name = c.at("name");
    const auto id = CaseId::parse(name);
    ASSERT_TRUE(id) << name;
    EXPECT_EQ(id->name() + "/manual_time", name);
    EXPECT_EQ(id->family, c.at("family"));
    EXPECT_EQ(id->variant, c.at("variant"));
    ASSERT_EQ(id->tags.size(), c.at("tags").size()) << name;
    for (const auto& [key, value] : id->tags) EXPECT_EQ(c.at("tags").at(key), value) << name;
    ASSERT_EQ(id->axes.size(), c.at("axes").size()) << name;
    for (std::size_t a = 0; a < id->axes.size(); ++a) {
      const auto& listed = c.at("axes").at(a);
      EXPECT_EQ(id->axes[a].name, listed.at("name"));
      if (listed.at("value").is_string())
        EXPECT_EQ(id->axes[a].label, listed.at("value"));
      else
        EXPECT_EQ(id->axes[a].value, listed.at("value").get<std::int64_t>());
      EXPECT_FALSE(listed.at("unit").get<std::string>().empty()) << name << " " << id->axes[a].name;
    }
  }
}

TEST(CaseList, RoundTripsForTheDefaultRunAndEverySweepFile) {
  expect_round_trip("");
  expect_round_trip("--l2=both --device=0,1");  // the tags
  for (const auto& entry : std::filesystem::directory_iterator(MEMBENCH_SOURCE_DIR "/sweeps"))
    if (entry.path().extension() == ".json") expect_round_trip("--sweep='" + entry.path().string() + "'");
}

TEST(CaseList, NamesTheKernelsEachCaseLaunches) {
  const test::Outcome r = test::run("--list_cases=json '--benchmark_filter=^(global/(coalesced|memcpy)|stream/dot)/'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::map<std::string, std::vector<std::string>> kernels;
  for (const auto& c : nlohmann::json::parse(r.output)) kernels[c.at("variant")] = c.at("kernels");
  EXPECT_EQ(kernels.at("coalesced"), std::vector<std::string>{"coalesced_scale"});
  EXPECT_EQ(kernels.at("memcpy"), std::vector<std::string>{});  // the driver's copy, no kernel of ours
  EXPECT_EQ(kernels.at("dot"), std::vector<std::string>{"stream_reduce"});
}

}  // namespace
}  // namespace membench::cases
