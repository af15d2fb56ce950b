// The architecture facts, on the CPU: every fact the table holds has a
// source and says how it is known; the models' counters declare the facts
// they rest on, and those hold on the architecture the models were checked
// on; where a fact is missing for a GPU, the counter is left out and the
// case's label says which fact, never another architecture's value.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "cases/counters.hpp"
#include "cases/runner.hpp"
#include "engine/stopping.hpp"
#include "membench/platform/arch_facts.hpp"
#include "membench/platform/models.hpp"
#include "run/provenance.hpp"

namespace membench::cases {
namespace {

TEST(ArchFacts, EverySpecInTheEnumsOrderAndEveryValueSourcedAsItsBasisSays) {
  for (std::size_t i = 0; i < fact_specs().size(); ++i)
    EXPECT_EQ(static_cast<std::size_t>(fact_specs()[i].fact), i) << fact_specs()[i].name;
  std::set<std::pair<int, int>> rows;
  for (const ArchRow& r : arch_table()) {
    EXPECT_TRUE(rows.emplace(r.cc_major, r.cc_minor).second) << r.cc_major << "." << r.cc_minor << " twice";
    std::set<Fact> seen;
    for (const auto& [fact, v] : r.facts) {
      const std::string where =
          std::to_string(r.cc_major) + "." + std::to_string(r.cc_minor) + " " + spec_of(fact).name;
      EXPECT_TRUE(seen.insert(fact).second) << where << " twice";
      EXPECT_GT(std::string(v.source).size(), 20u) << where;
      const std::string unit = spec_of(fact).unit;
      if (unit == "flag")
        EXPECT_TRUE(v.value == 0 || v.value == 1) << where;
      else
        EXPECT_GT(v.value, 0) << where;
      // A value not stated by NVIDIA says how it was had, in its source's first word.
      const std::string basis = to_string(v.basis);
      const bool says = std::string(v.source).rfind(basis + ":", 0) == 0;
      EXPECT_EQ(says, v.basis != Basis::documented) << where << ": " << v.source;
    }
  }
}

TEST(ArchFacts, AFactTheTableLacksIsUnknownNeverAnotherArchitecturesValue) {
  EXPECT_TRUE(arch_fact(9, 0, Fact::dram_fetch_bytes).has_value());
  EXPECT_FALSE(arch_fact(8, 6, Fact::dram_fetch_bytes).has_value());
  EXPECT_FALSE(arch_fact(8, 6, Fact::l2_bytes_per_clock_per_sm).has_value());
  EXPECT_FALSE(arch_fact(11, 0, Fact::sector_bytes).has_value());  // no row: nothing known
  EXPECT_EQ(arch_value_or_zero(11, 0, Fact::unified_l1_bytes), 0);
  const std::string why = unknown_fact(8, 6, Fact::l2_bytes_per_clock_per_sm);
  EXPECT_NE(why.find("l2_bytes_per_clock_per_sm"), std::string::npos) << why;
  EXPECT_NE(why.find("8.6"), std::string::npos) << why;
  // An assumption: met where the table agrees, unmet with the table's value where it differs.
  EXPECT_EQ(assumption_unmet(9, 0, Fact::sector_bytes, 32), std::nullopt);
  const auto differs = assumption_unmet(9, 0, Fact::sector_bytes, 64);
  ASSERT_TRUE(differs.has_value());
  EXPECT_NE(differs->find("has 32"), std::string::npos) << *differs;
  EXPECT_NE(assumption_unmet(8, 0, Fact::dram_fetch_bytes, 64)->find("no source"), std::string::npos);
}

TEST(ArchFacts, EveryModelOfSectorsDramBytesOrWavefrontsDeclaresItsFactsAndTheyHoldOnHopper) {
  // Every model counter ncu_check compares with sector, DRAM-byte or
  // shared-wavefront counters rests on the architecture's access units.
  int declared = 0;
  for (const char* name :
       {"sectors_per_request", "store_sectors_per_request", "l2_read_bytes", "l2_write_bytes", "local_load_bytes",
        "local_store_bytes", "dram_read_bytes", "dram_write_bytes", "dram_read_bytes_bound", "dram_write_bytes_bound",
        "model_dram_read_bytes", "conflict_ways", "wavefronts_per_request", "model_shared_wavefronts"}) {
    SCOPED_TRACE(name);
    const auto ncu = ncu_measure(name);
    ASSERT_TRUE(ncu.has_value());
    std::string metrics;
    for (const std::string& m : ncu->metrics) metrics += m + " ";
    const bool granular = metrics.find("sectors") != std::string::npos ||
                          metrics.find("dram__bytes") != std::string::npos ||
                          metrics.find("wavefronts") != std::string::npos;
    EXPECT_TRUE(granular) << metrics;
    EXPECT_FALSE(model_assumptions(name).empty());
    for (const Assumption& a : model_assumptions(name)) {
      EXPECT_EQ(assumption_unmet(9, 0, a.fact, a.value), std::nullopt) << spec_of(a.fact).name;
      ++declared;
    }
    const auto meaning = counter_meaning(name);
    ASSERT_TRUE(meaning.has_value());
    EXPECT_EQ(meaning->kind, CounterKind::model);
  }
  EXPECT_GT(declared, 14);
  // The assumptions are the models' own constants.
  EXPECT_EQ(model_assumptions("dram_read_bytes").at(0).value, kSectorBytes);
  EXPECT_EQ(model_assumptions("dram_read_bytes").at(1).value, kDramReadBytes);
  EXPECT_TRUE(model_assumptions("model_bytes_per_second").empty());  // its families read their facts themselves
}

TEST(ArchFacts, ACounterWhoseFactIsUnknownIsLeftOutAndTheLabelSaysWhichFact) {
  Work w;
  w.bytes = 1 << 20;
  w.model = {{"sectors_per_request", 4}, {"dram_read_bytes", 1 << 20}, {"model_level", 3}};
  w.unknown = {"pct_of_peak: no source for shared-memory banks on compute capability 8.6"};
  engine::Measurement m;
  m.summary.clean_batches = 12, m.summary.clean_launches = 10, m.summary.clean_seconds = 1e-3;
  DeviceInfo ga102;
  ga102.cc_major = 8, ga102.cc_minor = 6;
  ga102.dram_peak_bytes_per_second = 936e9;
  Outcome o;
  set_counters(o, ga102, w, m, std::nullopt, KernelShape{}, std::nullopt);
  std::map<std::string, double> got(o.counters.begin(), o.counters.end());
  EXPECT_EQ(got.count("sectors_per_request"), 1u);  // 32-byte sectors are documented for 8.6
  EXPECT_EQ(got.count("model_level"), 1u);          // rests on no table fact
  EXPECT_EQ(got.count("dram_read_bytes"), 0u);      // the DRAM fetch is not known on 8.6
  EXPECT_NE(o.label.find("model unknown: dram_read_bytes: no source for"), std::string::npos) << o.label;
  EXPECT_NE(o.label.find("dram_fetch_bytes"), std::string::npos) << o.label;
  EXPECT_NE(o.label.find("model unknown: pct_of_peak"), std::string::npos) << o.label;
  // On Hopper every one of them is reported, and the label is empty.
  DeviceInfo h200 = ga102;
  h200.cc_major = 9, h200.cc_minor = 0;
  w.unknown.clear();
  Outcome hopper;
  set_counters(hopper, h200, w, m, std::nullopt, KernelShape{}, std::nullopt);
  std::map<std::string, double> all(hopper.counters.begin(), hopper.counters.end());
  EXPECT_EQ(all.count("dram_read_bytes"), 1u);
  EXPECT_EQ(hopper.label, "");
}

// On a GPU the facts know nothing of (a made-up compute capability 11.0), a
// case measured against the shared-memory peak has none and says which
// fact is missing, rather than taking Hopper's.
TEST(ArchFacts, TheSharedPeakOfAnUnknownArchitectureIsNoneAndSaysWhy) {
  DeviceInfo gpu;
  gpu.cc_major = 11, gpu.sm_count = 132, gpu.sm_clock_khz = 1980000;
  gpu.smem_peak_bytes_per_second = smem_peak_bytes_per_second(gpu.sm_count, gpu.sm_clock_khz, 11, 0);
  EXPECT_EQ(gpu.smem_peak_bytes_per_second, 0);
  Work w;
  EXPECT_LT(shared_peak(gpu, w), 0);
  ASSERT_EQ(w.unknown.size(), 1u);
  EXPECT_NE(w.unknown[0].find("pct_of_peak: no source for"), std::string::npos) << w.unknown[0];
  EXPECT_NE(w.unknown[0].find("11.0"), std::string::npos) << w.unknown[0];
  gpu.cc_major = 9;
  gpu.smem_peak_bytes_per_second = smem_peak_bytes_per_second(gpu.sm_count, gpu.sm_clock_khz, 9, 0);
  Work hopper;
  EXPECT_DOUBLE_EQ(shared_peak(gpu, hopper), 3.345408e13);
  EXPECT_TRUE(hopper.unknown.empty());
}

TEST(ArchFacts, TheResultFileCarriesEachFactWithItsSourceOrUnknown) {
  const auto hopper = nlohmann::json::parse(run::arch_facts_json(9, 0));
  EXPECT_EQ(hopper.at("compute_capability"), "9.0");
  ASSERT_EQ(hopper.at("facts").size(), fact_specs().size());
  EXPECT_EQ(hopper.at("facts").at("sector_bytes").at("value"), 32);
  EXPECT_EQ(hopper.at("facts").at("l2_bytes_per_clock_per_sm").at("basis"), "assumed");
  const auto ampere = nlohmann::json::parse(run::arch_facts_json(8, 6));
  const auto& l2 = ampere.at("facts").at("l2_bytes_per_clock_per_sm");
  EXPECT_TRUE(l2.at("value").is_null());
  EXPECT_EQ(l2.at("basis"), "unknown");
  EXPECT_NE(l2.at("source").get<std::string>().find("8.6"), std::string::npos);
}

}  // namespace
}  // namespace membench::cases
