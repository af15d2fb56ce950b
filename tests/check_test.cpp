// membench --check: the reference files, the verdicts and their exit
// statuses, the lines and the Prometheus text on the CPU; on a GPU, the
// check run whole against references made to pass, fail and miss.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cases/family.hpp"
#include "gpu.hpp"
#include "membench/platform/device_info.hpp"
#include "process.hpp"
#include "run/check.hpp"
#include "run/check_run.hpp"

namespace membench::run {
namespace {

using test::run;

nlohmann::json band_json(const std::string& name, double median, double low, double high,
                         const std::string& better = "higher") {
  return {{"case", name},
          {"level", "DRAM read"},
          {"metric", better == "higher" ? "bytes_per_second" : "latency_ns"},
          {"unit", better == "higher" ? "B/s" : "ns"},
          {"better", better},
          {"median", median},
          {"low", low},
          {"high", high},
          {"runs", 3},
          {"gpus", 2}};
}

nlohmann::json reference_json(const std::string& gpu, const nlohmann::json& cases) {
  return {{"schema", "membench.reference/1"},
          {"gpu_name", gpu},
          {"margin_pct", 5},
          {"gpus", 2},
          {"runs", nlohmann::json::array({{{"file", "a.json"}}, {{"file", "b.json"}}, {{"file", "c.json"}}})},
          {"cases", cases}};
}

const std::string kRead = "stream/read/type:float/elements:134217728/block:256";
const std::string kChase = "hierarchy/latency/working_set:16384/chase_stride:128";

Reference two_cases() {
  return parse_reference(reference_json("NVIDIA H200", {band_json(kRead, 4.4e12, 4.1e12, 4.8e12),
                                                        band_json(kChase, 16.5, 15.6, 17.3, "lower")})
                             .dump(),
                         "test");
}

Observed seen(double value) {
  Observed o;
  o.values = {value};
  return o;
}

// A reference of one case, kRead, with an efficiency band (percent of peak).
Reference with_efficiency(const std::string& gpu, double median, double low, double high, int runs = 3) {
  nlohmann::json band = band_json(kRead, 4.4e12, 4.1e12, 4.8e12);
  band["efficiency"] = {{"median", median}, {"low", low}, {"high", high}};
  band["runs"] = runs;
  return parse_reference(
      reference_json(gpu, nlohmann::json::array({band, band_json(kChase, 16.5, 15.6, 17.3, "lower")})).dump(), "test");
}

Observed seen_pct(double value, double pct) {
  Observed o = seen(value);
  o.pct_of_peak = {pct};
  return o;
}

// A band names its case by its parts (a family, a variant, the axes it fixes) as the families declare theirs;
// an axis it leaves open is the one its cases had before the axis was added. An older reference's full name
// still reads, and names the same case.
TEST(CheckReference, ABandNamesItsCaseByItsPartsAndAnOlderOnesNameStillReads) {
  nlohmann::json by_parts = band_json("", 4.4e12, 4.1e12, 4.8e12);
  by_parts.erase("case");
  by_parts["family"] = "stream";
  by_parts["variant"] = "read";
  by_parts["axes"] = {{"type", "float"}, {"elements", 134217728}, {"block", 256}};
  const Reference parts = parse_reference(reference_json("X", nlohmann::json::array({by_parts})).dump(), "t");
  const Reference named = parse_reference(
      reference_json("X", nlohmann::json::array({band_json(kRead, 4.4e12, 4.1e12, 4.8e12)})).dump(), "t");
  EXPECT_EQ(parts.bands.at(0).of.name, kRead);
  EXPECT_EQ(parts.bands.at(0).of.name, named.bands.at(0).of.name);
  // A transfer band of before remote_node: the axis left open reads as its value before it was added.
  nlohmann::json link = by_parts;
  link["family"] = "transfer";
  link["variant"] = "host_to_device_memcpy_ce";
  link["axes"] = {{"host", "pinned"}, {"bytes", 67108864}};
  EXPECT_EQ(parse_reference(reference_json("X", nlohmann::json::array({link})).dump(), "t").bands.at(0).of.name,
            "transfer/host_to_device_memcpy_ce/host:pinned/bytes:67108864/remote_node:0");
  const auto refused = [](nlohmann::json band) {
    try {
      parse_reference(reference_json("X", nlohmann::json::array({band})).dump(), "t");
    } catch (const std::invalid_argument& e) { return std::string(e.what()); }
    return std::string();
  };
  nlohmann::json bad = by_parts;
  bad["family"] = "streams";
  EXPECT_NE(refused(bad).find("not registered"), std::string::npos) << refused(bad);
  bad = by_parts;
  bad["axes"]["width"] = 4;
  EXPECT_NE(refused(bad).find("'width', which is not one of its axes"), std::string::npos) << refused(bad);
  bad = by_parts;
  bad["axes"]["elements"] = 1024;
  EXPECT_NE(refused(bad).find("not a case of the check"), std::string::npos) << refused(bad);
  bad = by_parts;
  bad["axes"]["block"] = 2.5;
  EXPECT_NE(refused(bad).find("axis block is 2.5, not an integer or a name"), std::string::npos) << refused(bad);
  bad = by_parts;
  bad.erase("variant");
  EXPECT_NE(refused(bad).find("no \"variant\""), std::string::npos) << refused(bad);
  bad = by_parts;
  bad.erase("family");
  EXPECT_NE(refused(bad).find("neither"), std::string::npos) << refused(bad);
}

TEST(CheckReference, ABadFileSaysWhatIsWrong) {
  const auto refused = [](const std::string& text) {
    try {
      parse_reference(text, "t");
    } catch (const std::invalid_argument& e) { return std::string(e.what()); }
    return std::string();
  };
  EXPECT_NE(refused("{").find("not JSON"), std::string::npos);
  EXPECT_NE(refused("{}").find("schema"), std::string::npos);
  nlohmann::json doc = reference_json("X", nlohmann::json::array({band_json(kRead, 1, 2, 3)}));
  EXPECT_NE(refused(doc.dump()).find("low <= median <= high"), std::string::npos);
  doc = reference_json("X", nlohmann::json::array({band_json(kRead, 2, 1, 3, "sideways")}));
  EXPECT_NE(refused(doc.dump()).find("better"), std::string::npos);
  doc = reference_json("X", nlohmann::json::array());
  EXPECT_NE(refused(doc.dump()).find("no cases"), std::string::npos);
  doc = reference_json("X", nlohmann::json::array({band_json(kRead, 2, 1, 3)}));
  doc["cases"][0]["median"] = "fast";
  EXPECT_NE(refused(doc.dump()).find("median is \"fast\", not a number above 0"), std::string::npos);
  // What a fuzzer writes: negative or swapped bands, margins and counts out of range, unknown and twice-given cases.
  const auto bad = [&](const std::function<void(nlohmann::json&)>& edit, const std::string& why) {
    nlohmann::json d = reference_json("X", nlohmann::json::array({band_json(kRead, 2, 1, 3)}));
    edit(d);
    EXPECT_NE(refused(d.dump()).find(why), std::string::npos) << d.dump() << " gave: " << refused(d.dump());
  };
  bad([](auto& d) { d["cases"][0]["low"] = -1; }, "low is -1, not a number above 0");
  bad([](auto& d) { d["cases"][0]["low"] = 2.5; }, "low <= median <= high fails");
  bad([](auto& d) { d["margin_pct"] = -50; }, "margin_pct is -50, not from 0 to 100");
  bad([](auto& d) { d["margin_pct"] = 1e300; }, "not from 0 to 100");
  bad([](auto& d) { d["gpus"] = true; }, "gpus is true, not a count from 1");
  bad([](auto& d) { d["gpus"] = 2.5; }, "gpus is 2.5, not a count from 1");
  bad([](auto& d) { d["cases"][0]["runs"] = 0; }, "runs is 0, not a count from 1");
  bad([](auto& d) { d["runs"] = "many"; }, "runs is not a list of the runs it rests on");
  bad([](auto& d) { d["cases"][0]["case"] = "stream/read/type:float/elements:1/block:256"; },
      "not a case of the check");
  bad([](auto& d) { d["cases"].push_back(d["cases"][0]); }, "given twice");
  doc["cases"][0].erase("median");
  EXPECT_NE(refused(doc.dump()).find("\"median\""), std::string::npos);
  doc = reference_json("X", nlohmann::json::array({band_json(kRead, 2, 1, 3)}));
  doc["cases"][0]["efficiency"] = {{"median", 90}, {"low", 95}, {"high", 99}};
  EXPECT_NE(refused(doc.dump()).find("efficiency: 0 < low <= median <= high"), std::string::npos);
  doc["cases"][0]["efficiency"] = {{"median", 90}};
  EXPECT_NE(refused(doc.dump()).find("\"low\""), std::string::npos);
}

// Bands from the references' efficiencies: the lowest low less the margin
// to the highest high plus it, around the median of their medians; a case
// no reference has an efficiency of is not in it; no efficiency at all, no
// provisional reference.
// A reference made from runs older than an axis names its case without it:
// the check still runs the case it judges, today's, and files its outcome
// under the band's name.
TEST(CheckRunCases, ABandNamedWithoutAnAxisAddedSinceJudgesTodaysCase) {
  const std::string old_name = "transfer/host_to_device_memcpy_ce/host:pinned/bytes:67108864";  // before remote_node
  const Reference r = parse_reference(
      reference_json("NVIDIA H201", nlohmann::json::array({band_json(old_name, 5e10, 4e10, 6e10)})).dump(), "old");
  DeviceInfo gpu;
  gpu.name = "NVIDIA H201";
  CheckRun check({r}, {gpu});  // a temporary list: the run keeps its own copy
  cases::Selection s;
  s.values = [](const std::string&, const cases::AxisSpec& axis) { return axis.defaults; };
  const std::vector<cases::CaseSpec> kept = check.cases(cases::enumerate_cases(s));
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].id.name(), old_name + "/remote_node:0");
  cases::Outcome measured;
  measured.counters = {{"bytes_per_second", 3e10}};
  check.observe(kept[0], measured);
  std::ostringstream out;
  EXPECT_EQ(check.finish(1, "h", "", out), kCheckUnhealthy) << out.str();  // 30 GB/s under a band from 40
  EXPECT_NE(out.str().find("SLOW DRAM read: " + old_name + ": 30 GB/s, band 40 GB/s"), std::string::npos) << out.str();
}

TEST(CheckRunCases, ANameFromBeforeAnAxisIsTheCaseAtItsValueBefore) {
  const std::string h2d = "transfer/host_to_device_memcpy_ce/host:pinned/bytes:67108864";
  EXPECT_TRUE(names_case(h2d + "/remote_node:0", h2d + "/remote_node:0"));
  EXPECT_TRUE(names_case(h2d, h2d + "/remote_node:0"));   // remote_node was 0 before it existed
  EXPECT_FALSE(names_case(h2d, h2d + "/remote_node:1"));  // another case
  EXPECT_FALSE(names_case(h2d + "/remote_node:0", h2d));  // today's names every axis
  EXPECT_FALSE(names_case(h2d, "transfer/host_to_device_memcpy_ce/host:pageable/bytes:67108864/remote_node:0"));
}

TEST(CheckProvisional, BandsJoinTheReferencesEfficienciesWidenedByTheMargin) {
  const auto p = provisional_reference(
      {with_efficiency("NVIDIA H200", 93, 85, 99, 13), with_efficiency("NVIDIA H100", 91, 88, 100, 2)}, "NVIDIA B201");
  ASSERT_TRUE(p.has_value());
  EXPECT_TRUE(p->provisional);
  EXPECT_EQ(p->gpu_name, "NVIDIA B201");
  ASSERT_EQ(p->bands.size(), 1u);  // the chase has no peak: no provisional band
  const Band& b = p->bands[0];
  EXPECT_TRUE(names_case(kRead, b.of.name)) << b.of.name;  // the case today, however the reference named it
  EXPECT_DOUBLE_EQ(b.efficiency->median, 92);
  EXPECT_DOUBLE_EQ(b.efficiency->low, 85 * (1 - kProvisionalMarginPct / 100));
  EXPECT_DOUBLE_EQ(b.efficiency->high, 100 * (1 + kProvisionalMarginPct / 100));
  EXPECT_EQ(b.runs, 15);
  EXPECT_NE(p->origin.find("NVIDIA H200, NVIDIA H100"), std::string::npos) << p->origin;
  EXPECT_NE(p->origin.find(std::to_string(check_cases().size() - 1) + " of the check's"), std::string::npos)
      << p->origin;
  EXPECT_FALSE(provisional_reference({two_cases()}, "NVIDIA B201").has_value());
  EXPECT_FALSE(provisional_reference({}, "NVIDIA B201").has_value());
}

TEST(CheckProvisional, HealthySlowContendedAndUnmodelledHaveTheirOwnStatuses) {
  const auto p = provisional_reference({with_efficiency("NVIDIA H200", 93, 85, 99)}, "NVIDIA B201");
  ASSERT_TRUE(p.has_value());
  const std::string read = p->bands.at(0).of.name;  // the check's DRAM read as it is named today
  using K = CaseVerdict::Kind;
  // Judged by the percent of this GPU's peak, whatever its rate.
  const GpuVerdict healthy = judge(0, "NVIDIA B201", "u", &*p, {{read, seen_pct(1e9, 92)}});
  EXPECT_EQ(healthy.cases.at(0).kind, K::within);
  EXPECT_EQ(healthy.status(), kCheckProvisionalHealthy);
  const GpuVerdict slow = judge(1, "NVIDIA B201", "u", &*p, {{read, seen_pct(9e12, 0.8 * 92)}});
  EXPECT_EQ(slow.cases.at(0).kind, K::slow);
  EXPECT_EQ(slow.status(), kCheckProvisionalUnhealthy);
  Observed contended = seen_pct(1e9, 40);
  contended.contended = true;
  const GpuVerdict shared = judge(2, "NVIDIA B201", "u", &*p, {{read, contended}});
  EXPECT_EQ(shared.cases.at(0).kind, K::contended);
  EXPECT_EQ(shared.status(), kCheckInconclusive);
  // No peak on this GPU, or one resting on an assumed fact: not judged, and a check that judged nothing passed nothing.
  const GpuVerdict unmodelled = judge(3, "NVIDIA B201", "u", &*p, {{read, seen(4e12)}});
  EXPECT_EQ(unmodelled.cases.at(0).kind, K::unmodelled);
  EXPECT_EQ(unmodelled.status(), kCheckInconclusive);
  Observed assumed = seen_pct(4e12, 50);
  assumed.peak_assumed = true;
  EXPECT_EQ(judge(4, "NVIDIA B201", "u", &*p, {{read, assumed}}).cases.at(0).kind, K::unmodelled);
  Observed failed;
  failed.failed = "out[1]: 0 where 2 was expected";
  EXPECT_EQ(judge(5, "NVIDIA B201", "u", &*p, {{read, failed}}).status(), kCheckUnhealthy);
  // Unhealthy over provisionally unhealthy over inconclusive over no reference over provisionally healthy.
  const GpuVerdict none = judge(6, "NVIDIA X", "u", nullptr, {});
  EXPECT_EQ(check_status({healthy, none}), kCheckNoReference);
  EXPECT_EQ(check_status({healthy, shared, slow}), kCheckProvisionalUnhealthy);
  EXPECT_EQ(check_status({healthy, healthy}), kCheckProvisionalHealthy);
  const Reference r = two_cases();
  EXPECT_EQ(check_status({healthy, judge(7, "NVIDIA H200", "u", &r, {{kRead, seen(4.4e12)}, {kChase, seen(16)}})}),
            kCheckProvisionalHealthy);
  EXPECT_EQ(check_status({slow, judge(8, "NVIDIA H200", "u", &r, {{kRead, seen(1e12)}, {kChase, seen(16)}})}),
            kCheckUnhealthy);
  const auto lines = verdict_lines(slow);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find("SLOW DRAM read: " + read + ": 73.6% of this GPU's peak, provisional band 76.5% to"),
            std::string::npos)
      << lines[0];
  EXPECT_NE(lines[1].find("PROVISIONALLY UNHEALTHY: 0 of 1 cases within their provisional bands, 1 below"),
            std::string::npos)
      << lines[1];
  EXPECT_NE(lines[1].find("no reference for the NVIDIA B201"), std::string::npos) << lines[1];
}

// The check's compute cases: the FP32 pipe and the tensor cores, judged
// by their operations a second as DRAM is by its bytes. A band of op/s:
// healthy within it, slow below it, contended when another process used
// the GPU; shown in T op/s.
TEST(CheckCompute, TheFp32AndTensorCasesAreInTheSweepAndJudgedByTheirRate) {
  const auto named = [](const std::string& level) {
    const auto it =
        std::find_if(check_cases().begin(), check_cases().end(), [&](const CheckCase& c) { return c.level == level; });
    return it == check_cases().end() ? CheckCase{} : *it;
  };
  const CheckCase fp32 = named("FP32 FMA"), tensor = named("tensor cores");
  EXPECT_EQ(fp32.name, "compute/fp32/chains:8/occupancy:8");
  EXPECT_EQ(tensor.name, "compute/mma_bf16/chains:8/occupancy:4");
  EXPECT_EQ(fp32.metric, "ops_per_second");
  EXPECT_EQ(tensor.metric, "ops_per_second");
  nlohmann::json band = band_json(fp32.name, 64.5e12, 61e12, 68e12);
  band["level"] = fp32.level;
  band["metric"] = fp32.metric;
  band["unit"] = "op/s";
  const Reference r = parse_reference(reference_json("NVIDIA H100", nlohmann::json::array({band})).dump(), "test");
  using K = CaseVerdict::Kind;
  const GpuVerdict healthy = judge(0, "NVIDIA H100", "u", &r, {{fp32.name, seen(64.6e12)}});
  EXPECT_EQ(healthy.cases.at(0).kind, K::within);
  EXPECT_EQ(healthy.status(), kCheckHealthy);
  const GpuVerdict slow = judge(1, "NVIDIA H100", "u", &r, {{fp32.name, seen(21.5e12)}});  // a third of its rate
  EXPECT_EQ(slow.cases.at(0).kind, K::slow);
  EXPECT_EQ(slow.status(), kCheckUnhealthy);
  Observed shared = seen(30e12);
  shared.contended = true;
  const GpuVerdict contended = judge(2, "NVIDIA H100", "u", &r, {{fp32.name, shared}});
  EXPECT_EQ(contended.cases.at(0).kind, K::contended);
  EXPECT_EQ(contended.status(), kCheckInconclusive);
  const auto lines = verdict_lines(slow);
  EXPECT_NE(lines.at(0).find("SLOW FP32 FMA: " + fp32.name + ": 21.5 T op/s, band 61 T op/s to 68 T op/s"),
            std::string::npos)
      << lines.at(0);
}

// Provisionally, a case this GPU cannot run (mma.sync below compute
// capability 8.0) is not judged; an interrupted one is not run.
TEST(CheckProvisional, ACaseThisGpuCannotRunIsNotJudged) {
  const auto p = provisional_reference({with_efficiency("NVIDIA H200", 93, 85, 99)}, "NVIDIA B201");
  ASSERT_TRUE(p.has_value());
  const std::string read = p->bands.at(0).of.name;
  Observed skipped;
  skipped.not_run = "skipped: mma.sync needs compute capability 8.0";
  skipped.skipped = true;
  const GpuVerdict old = judge(0, "NVIDIA B201", "u", &*p, {{read, skipped}});
  EXPECT_EQ(old.cases.at(0).kind, CaseVerdict::Kind::unmodelled);
  EXPECT_EQ(old.cases.at(0).why, skipped.not_run);
  Observed interrupted;
  interrupted.not_run = "interrupted by SIGTERM";
  EXPECT_EQ(judge(1, "NVIDIA B201", "u", &*p, {{read, interrupted}}).cases.at(0).kind, CaseVerdict::Kind::not_run);
  // With the model's own reference a skipped case is not run: its GPUs ran it.
  const Reference r = two_cases();
  EXPECT_EQ(judge(2, "NVIDIA H200", "u", &r, {{kRead, skipped}}).cases.at(0).kind, CaseVerdict::Kind::not_run);
}

TEST(CheckReference, TheBuiltInOnesParseAndNameOnlyCasesOfTheCheckSweep) {
  ASSERT_FALSE(built_in_references().empty());
  ASSERT_NE(reference_for(built_in_references(), "NVIDIA H200"), nullptr);
  EXPECT_EQ(reference_for(built_in_references(), "NVIDIA H201"), nullptr);
  for (const Reference& r : built_in_references()) {
    EXPECT_GT(r.runs, 0);
    for (const Band& b : r.bands) {
      // By its name, or by the name it had before an axis was added to its case.
      EXPECT_TRUE(std::any_of(check_cases().begin(), check_cases().end(),
                              [&](const CheckCase& c) { return names_case(b.of.name, c.name); }))
          << b.of.name << " is not in the check sweep";
      EXPECT_LE(b.low, b.median);
      EXPECT_LE(b.median, b.high);
    }
  }
}

TEST(CheckSweep, EveryCaseIsOneThisBuildListsWithItsLevelAndMetric) {
  const auto listed = run("--check --list_cases=json");
  ASSERT_EQ(listed.exit_code, 0) << listed.output;
  const auto doc = nlohmann::json::parse(listed.output);
  ASSERT_EQ(doc.size(), check_cases().size());
  std::map<std::string, std::string> levels;
  for (const CheckCase& c : check_cases()) levels[c.name + "/manual_time"] = c.level;
  for (const auto& c : doc) {
    ASSERT_TRUE(levels.count(c["name"])) << c["name"];
    EXPECT_EQ(c["check"]["level"], levels[c["name"]]);
  }
}

TEST(CheckVerdict, EachCaseByItsBandAndDirection) {
  const Reference r = two_cases();
  using K = CaseVerdict::Kind;
  const auto kinds = [&](double read, double chase) {
    const GpuVerdict v = judge(0, "NVIDIA H200", "GPU-1", &r, {{kRead, seen(read)}, {kChase, seen(chase)}});
    return std::make_pair(v.cases.at(0).kind, v.cases.at(1).kind);
  };
  EXPECT_EQ(kinds(4.4e12, 16.5), std::make_pair(K::within, K::within));
  EXPECT_EQ(kinds(3.0e12, 16.5), std::make_pair(K::slow, K::within));    // a rate below its band
  EXPECT_EQ(kinds(4.4e12, 33.0), std::make_pair(K::within, K::slow));    // a latency above its band
  EXPECT_EQ(kinds(5.0e12, 12.0), std::make_pair(K::better, K::better));  // better than any seen
}

TEST(CheckVerdict, AContendedOrClockEventCaseIsNeverSlow) {
  const Reference r = two_cases();
  Observed contended = seen(2.0e12);
  contended.contended = true;
  Observed clocked = seen(30.0);
  clocked.clock_event = "hw_thermal_slowdown";
  const GpuVerdict v = judge(0, "NVIDIA H200", "GPU-1", &r, {{kRead, contended}, {kChase, clocked}});
  EXPECT_EQ(v.cases[0].kind, CaseVerdict::Kind::contended);
  EXPECT_EQ(v.cases[1].kind, CaseVerdict::Kind::clock_event);
  EXPECT_EQ(v.status(), kCheckInconclusive);
  Observed quiet_neighbour = seen(4.4e12);  // within its band: judged as it is
  quiet_neighbour.contended = true;
  EXPECT_EQ(judge(0, "g", "u", &r, {{kRead, quiet_neighbour}, {kChase, seen(16)}}).status(), kCheckHealthy);
}

TEST(CheckVerdict, StatusesRankUnhealthyOverInconclusiveOverNoReference) {
  const Reference r = two_cases();
  Observed failed;
  failed.failed = "out[7]: 0 where 3.5 was expected";
  const GpuVerdict healthy = judge(0, "g", "u", &r, {{kRead, seen(4.4e12)}, {kChase, seen(16)}});
  const GpuVerdict slow = judge(1, "g", "u", &r, {{kRead, seen(1e12)}, {kChase, seen(16)}});
  const GpuVerdict wrong = judge(2, "g", "u", &r, {{kRead, failed}, {kChase, seen(16)}});
  const GpuVerdict missing = judge(3, "g", "u", &r, {{kRead, seen(4.4e12)}});
  const GpuVerdict none = judge(4, "NVIDIA X", "u", nullptr, {});
  EXPECT_EQ(healthy.status(), kCheckHealthy);
  EXPECT_EQ(slow.status(), kCheckUnhealthy);
  EXPECT_EQ(wrong.status(), kCheckUnhealthy);
  EXPECT_EQ(missing.status(), kCheckInconclusive);
  EXPECT_EQ(none.status(), kCheckNoReference);
  EXPECT_EQ(check_status({healthy, none}), kCheckNoReference);
  EXPECT_EQ(check_status({none, missing, healthy}), kCheckInconclusive);
  EXPECT_EQ(check_status({missing, slow, none}), kCheckUnhealthy);
  EXPECT_EQ(check_status({healthy, healthy}), kCheckHealthy);
}

TEST(CheckVerdict, ASlowCaseIsOneLineNamingItsLevelValueAndBand) {
  const Reference r = two_cases();
  const GpuVerdict v = judge(0, "NVIDIA H200", "GPU-1", &r, {{kRead, seen(3.1e12)}, {kChase, seen(16.5)}});
  const auto lines = verdict_lines(v);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "GPU 0: SLOW DRAM read: " + kRead + ": 3100 GB/s, band 4100 GB/s to 4800 GB/s");
  EXPECT_EQ(lines[1].rfind("GPU 0: ok ", 0), 0u) << lines[1];
  EXPECT_NE(lines[2].find("UNHEALTHY: 1 of 2 cases within their bands, 1 below"), std::string::npos) << lines[2];
  EXPECT_NE(lines[2].find("3 runs on 2 GPUs"), std::string::npos) << lines[2];
  const auto none = verdict_lines(judge(1, "NVIDIA X", "GPU-2", nullptr, {}));
  ASSERT_EQ(none.size(), 1u);
  EXPECT_NE(none[0].find("no reference for the NVIDIA X"), std::string::npos) << none[0];
}

// A case the host paces moves by up to kHostNoiseWidths times its noise from the host alone, as the scripts'
// gates allow: its band widens by that much on each side, in either direction; a case the GPU paces keeps its
// band to the byte.
TEST(CheckVerdict, AHostPacedCasesBandWidensByItsNoiseAndNoFurther) {
  const Reference r = two_cases();
  using K = CaseVerdict::Kind;
  const auto paced = [](double value, double noise_pct) {
    Observed o = seen(value);
    o.host_noise_pct = kHostNoiseWidths * noise_pct;
    return o;
  };
  const auto read = [&](const Observed& o) { return judge(0, "g", "u", &r, {{kRead, o}, {kChase, seen(16.5)}}); };
  const auto chase = [&](const Observed& o) { return judge(0, "g", "u", &r, {{kRead, seen(4.4e12)}, {kChase, o}}); };
  // 2% of noise: the band's 4.1 TB/s low edge moves to 4.1 x 0.94.
  EXPECT_EQ(read(seen(4.09e12)).cases[0].kind, K::slow);  // the GPU paces it: just below is below
  EXPECT_EQ(read(paced(4.09e12, 2)).cases[0].kind, K::within);
  EXPECT_EQ(read(paced(4.1e12 * 0.941, 2)).cases[0].kind, K::within);
  EXPECT_EQ(read(paced(4.1e12 * 0.939, 2)).cases[0].kind, K::slow);  // further than the host's noise reaches
  EXPECT_EQ(read(paced(3.0e12, 2)).status(), kCheckUnhealthy);
  // A latency's high edge moves up alike.
  EXPECT_EQ(chase(paced(17.3 * 1.059, 2)).cases[1].kind, K::within);
  EXPECT_EQ(chase(paced(17.3 * 1.061, 2)).cases[1].kind, K::slow);
  // The line says how far the band was widened, and why.
  const auto lines = verdict_lines(read(paced(4.09e12, 2)));
  EXPECT_EQ(lines[0], "GPU 0: ok DRAM read: " + kRead +
                          ": 4090 GB/s, band 4100 GB/s to 4800 GB/s, widened by 6% each side (the host paces it: 3 x "
                          "its noise)");
  EXPECT_EQ(verdict_lines(read(seen(4.09e12)))[0].find("widened"), std::string::npos);
}

TEST(CheckPrometheus, TheTextIsWhatPromtoolAccepts) {
  const Reference r = two_cases();
  const GpuVerdict v = judge(0, "NVIDIA \"H200\"", "GPU-1", &r, {{kRead, seen(3.1e12)}, {kChase, seen(16.5)}});
  const std::string text = prometheus_text({v, judge(1, "NVIDIA X", "GPU-2", nullptr, {})}, "node\\7", 12.5);
  EXPECT_NE(text.find("membench_check_status{host=\"node\\\\7\",gpu=\"0\",uuid=\"GPU-1\",model=\"NVIDIA "
                      "\\\"H200\\\"\",basis=\"reference\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("gpu=\"1\",uuid=\"GPU-2\",model=\"NVIDIA X\",basis=\"none\"} 4\n"), std::string::npos);
  EXPECT_NE(text.find("level=\"DRAM read\",basis=\"reference\"} 0.704545\n"), std::string::npos) << text;  // 3.1 / 4.4
  EXPECT_NE(text.find("membench_check_case_ratio{host=\"node\\\\7\",gpu=\"0\",uuid=\"GPU-1\",case=\"" + kChase +
                      "\",level=\"DRAM read\",basis=\"reference\"} 1\n"),
            std::string::npos);
  // A provisional verdict says so in its basis, and its ratio is of percents of peak.
  const Reference other = with_efficiency("NVIDIA H200", 93, 85, 99);
  const auto p = provisional_reference({other}, "NVIDIA B201");
  ASSERT_TRUE(p.has_value());
  const GpuVerdict slow = judge(2, "NVIDIA B201", "GPU-3", &*p, {{p->bands.at(0).of.name, seen_pct(4e12, 70)}});
  const std::string provisional = prometheus_text({slow}, "n", 1);
  EXPECT_NE(provisional.find("model=\"NVIDIA B201\",basis=\"provisional\"} 6\n"), std::string::npos) << provisional;
  EXPECT_NE(provisional.find("basis=\"provisional\"} 0.752688\n"), std::string::npos) << provisional;  // 70 / 93
  if (std::system("command -v promtool > /dev/null 2>&1") != 0) GTEST_SKIP() << "promtool is not installed";
  const std::string path = test::temp_path(".prom");
  std::ofstream(path) << text;
  const auto checked = test::run_command("promtool check metrics < '" + path + "'");
  EXPECT_EQ(checked.exit_code, 0) << checked.output;
}

TEST(CheckCli, BadInputIsOneLineAndStatusTwo) {
  const std::string bad = test::temp_path(".json");
  std::ofstream(bad) << "{\"schema\": \"membench.reference/1\"}";
  const std::vector<std::string> refused = {"--check=/no/such.json",
                                            "--check=" + bad,
                                            "--check --stride=2",
                                            "--check_metrics=x.prom",
                                            "--check --sweep=sweeps/ci.json",
                                            "--check --check_metrics=/no/such/dir/x.prom"};
  for (const std::string& args : refused) {
    const auto r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
    EXPECT_EQ(r.lines(), 1) << args << ": " << r.output;
  }
}

TEST(CheckCli, WithoutAGpuTheCheckFails) {
  if (test::gpu_available()) GTEST_SKIP() << "a GPU is visible";
  const auto r = run("--check");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--check: no CUDA device visible"), std::string::npos) << r.output;
}

// On a GPU: references made for this GPU that must pass, fail and miss.
TEST(CheckGpu, TheExitStatusIsTheVerdict) {
  if (!test::gpu_available()) GTEST_SKIP() << "no GPU";
  const std::string name = query_device(0).name;
  const auto write = [&](const nlohmann::json& doc) {
    static int n = 0;
    const std::string path = test::temp_path("." + std::to_string(n++) + ".json");
    std::ofstream(path) << doc.dump();
    return path;
  };
  const std::string prom = test::temp_path(".prom");
  // Bands no GPU misses: healthy, with its Prometheus file.
  const auto pass =
      run("--check=" + write(reference_json(name, nlohmann::json::array({band_json(kChase, 50, 1e-3, 1e6, "lower")}))) +
          " --check_metrics=" + prom);
  EXPECT_EQ(pass.exit_code, 0) << pass.output;
  EXPECT_NE(pass.output.find("healthy: 1 of 1 cases"), std::string::npos) << pass.output;
  EXPECT_NE(test::read_file(prom).find("membench_check_status{"), std::string::npos);
  // A band above any GPU: unhealthy, one line naming the case.
  const auto slow = run(
      "--check=" + write(reference_json(name, nlohmann::json::array({band_json(kChase, 1e-3, 1e-4, 1e-2, "lower")}))));
  EXPECT_EQ(slow.exit_code, 1) << slow.output;
  EXPECT_NE(slow.output.find("GPU 0: SLOW DRAM read: " + kChase), std::string::npos) << slow.output;
  // Another model's reference: none for this one.
  const auto none =
      run("--check=" +
          write(reference_json("NVIDIA H201", nlohmann::json::array({band_json(kChase, 16, 15, 17, "lower")}))));
  EXPECT_EQ(none.exit_code, 4) << none.output;
  EXPECT_NE(none.output.find("no reference for the " + name), std::string::npos) << none.output;
  // Another model's reference with an efficiency: this one is judged by it, provisionally, at its own peak.
  const auto provisional = [&](double low, double median, double high) {
    nlohmann::json read = band_json(kRead, 4.4e12, 4.1e12, 4.8e12);
    read["efficiency"] = {{"median", median}, {"low", low}, {"high", high}};
    return run("--check=" + write(reference_json("NVIDIA H201", nlohmann::json::array({read}))) +
               " --check_metrics=" + prom);
  };
  const auto fine = provisional(1, 50, 1000);
  EXPECT_EQ(fine.exit_code, 5) << fine.output;
  EXPECT_NE(fine.output.find("provisionally healthy: 1 of 1 cases"), std::string::npos) << fine.output;
  EXPECT_NE(test::read_file(prom).find("basis=\"provisional\"} 5\n"), std::string::npos);
  const auto far_below = provisional(150, 200, 300);  // no GPU reads DRAM at 150% of its peak
  EXPECT_EQ(far_below.exit_code, 6) << far_below.output;
  EXPECT_NE(far_below.output.find("GPU 0: SLOW DRAM read: " + kRead), std::string::npos) << far_below.output;
}

}  // namespace
}  // namespace membench::run

namespace membench::run {
namespace {

// A committed default run of an H200, as recorded; `edit` changes it first.
const char* const kMemorySpacesRun =
    MEMBENCH_SOURCE_DIR "/benchmarks/results/h200/2026-12-02-memory-spaces/default.json";
// An H200's default run with the compute pipes (the check's FP32 and tensor cases).
const char* const kEveryCeilingRun =
    MEMBENCH_SOURCE_DIR "/benchmarks/results/h200/2026-12-06-every-ceiling/default.json";

std::string recorded(const std::string& name, const std::function<void(nlohmann::json&)>& edit = {},
                     const char* run = kMemorySpacesRun) {
  std::ifstream in(run);
  nlohmann::json doc = nlohmann::json::parse(in);
  if (edit) edit(doc);
  const std::string path = test::temp_path("." + name + ".json");
  std::ofstream(path) << doc.dump();
  return path;
}

void for_case(nlohmann::json& doc, const std::string& prefix, const std::function<void(nlohmann::json&)>& f) {
  for (auto& e : doc["benchmarks"])
    if (e["name"].get<std::string>().rfind(prefix, 0) == 0) f(e);
}

TEST(CheckRecorded, ACommittedH200RunIsHealthyByTheBuiltInReference) {
  const auto r = test::run("--check --judge=" + recorded("as_is", {}, kEveryCeilingRun));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("healthy: 17 of 17 cases within their bands"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1 GPU judged from a recorded run"), std::string::npos);
  // A run from before the compute cases: its memory cases judged, the two it lacks not run (inconclusive).
  const auto old = test::run("--check --judge=" + recorded("before_compute"));
  EXPECT_EQ(old.exit_code, 3) << old.output;
  EXPECT_NE(old.output.find("inconclusive: 15 of 17 cases within their bands, 2 not run"), std::string::npos)
      << old.output;
}

// A run recorded before the transfer cases had remote_node reads as
// remote_node:0, its one default (the test above); the same cases recorded
// at remote_node:1 are other cases, and the check's three are not in the file.
TEST(CheckRecorded, AnAxisANameLacksReadsAsItsOneDefaultAndNoOtherValue) {
  const auto r = test::run("--check --judge=" + recorded("remote", [](nlohmann::json& doc) {
                             for_case(doc, "transfer/", [](nlohmann::json& e) {
                               for (const char* key : {"name", "run_name"})
                                 if (e.contains(key))
                                   e[key] = std::regex_replace(e[key].get<std::string>(), std::regex("/manual_time$"),
                                                               "/remote_node:1/manual_time");
                             });
                           }));
  EXPECT_EQ(r.exit_code, 3) << r.output;  // inconclusive: cases of the check not in the file
  EXPECT_NE(r.output.find("inconclusive: 12 of 17 cases within their bands, 5 not run"), std::string::npos) << r.output;
}

TEST(CheckRecorded, ItsDramReadAFifthSlowerIsUnhealthyNamingTheCase) {
  const auto r = test::run("--check --judge=" + recorded(
                                                    "slow",
                                                    [](nlohmann::json& doc) {
                                                      for_case(doc, "stream/read/type:float/", [](nlohmann::json& e) {
                                                        e["bytes_per_second"] =
                                                            0.8 * e["bytes_per_second"].get<double>();
                                                      });
                                                    },
                                                    kEveryCeilingRun));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("GPU 0: SLOW DRAM read: stream/read/type:float/elements:134217728/block:256: 3577 GB/s, "
                          "band 4098 GB/s to 4797 GB/s"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("UNHEALTHY: 16 of 17 cases within their bands, 1 below"), std::string::npos) << r.output;
}

// --judge reads a file through its catalog: each entry is the case its
// catalog's parts say, whatever its name looks like.
TEST(CheckRecorded, AFileIsReadThroughItsCatalogNotItsNames) {
  const auto r = test::run("--check --judge=" + recorded(
                                                    "renamed",
                                                    [](nlohmann::json& doc) {
                                                      std::map<std::string, std::string> alias;
                                                      for (auto& c : doc["membench"]["cases"]) {
                                                        const std::string name = c["name"];
                                                        alias[name] = "case " + std::to_string(alias.size());
                                                        c["name"] = alias[name];
                                                      }
                                                      for (auto& e : doc["benchmarks"])
                                                        for (const char* key : {"name", "run_name"})
                                                          if (e.contains(key) && alias.count(e[key]))
                                                            e[key] = alias[e[key]];
                                                    },
                                                    kEveryCeilingRun));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("healthy: 17 of 17 cases within their bands"), std::string::npos) << r.output;
}

// The marks as the binary writes them: the power cap alone is judged (the
// case's own draw), a slowdown or throttled batches are not, nor a value
// the binary called noisy; a file of schema 3 counted the power cap in
// clock_event, and is read as today's would say it.
TEST(CheckRecorded, EachMarkGivesTheVerdictItsNameSays) {
  const auto slow_with = [](const std::string& name, int schema, const nlohmann::json& marks) {
    return test::run("--check --judge=" + recorded(
                                              name,
                                              [&](nlohmann::json& doc) {
                                                doc["membench"]["schema_version"] = schema;
                                                for_case(doc, "stream/read/type:float/", [&](nlohmann::json& e) {
                                                  e["bytes_per_second"] = 0.8 * e["bytes_per_second"].get<double>();
                                                  for (const auto& [k, v] : marks.items()) e[k] = v;
                                                });
                                              },
                                              kEveryCeilingRun));
  };
  const auto capped = slow_with("capped", 4, {{"clock_event_reasons", 4}, {"clock_event", 0}, {"power_capped", 1}});
  EXPECT_EQ(capped.exit_code, 1) << capped.output;
  EXPECT_NE(capped.output.find("GPU 0: SLOW DRAM read:"), std::string::npos) << capped.output;
  const auto old_capped = slow_with("old_capped", 3, {{"clock_event_reasons", 4}, {"clock_event", 1}});
  EXPECT_EQ(old_capped.exit_code, 1) << old_capped.output;
  const auto hot = slow_with("hot", 4, {{"clock_event_reasons", 0x44}, {"clock_event", 1}, {"power_capped", 1}});
  EXPECT_EQ(hot.exit_code, 3) << hot.output;
  EXPECT_NE(hot.output.find("GPU 0: clock-event DRAM read:"), std::string::npos) << hot.output;
  EXPECT_NE(hot.output.find("hw_thermal_slowdown"), std::string::npos) << hot.output;
  EXPECT_EQ(hot.output.find("sw_power_cap"), std::string::npos) << hot.output;
  const auto old_hot = slow_with("old_hot", 3, {{"clock_event_reasons", 0x44}, {"clock_event", 1}});
  EXPECT_EQ(old_hot.exit_code, 3) << old_hot.output;
  const auto throttled = slow_with("throttled", 4, {{"throttled_batches", 3}});
  EXPECT_EQ(throttled.exit_code, 3) << throttled.output;
  EXPECT_NE(throttled.output.find("3 batches throttled below the clock threshold"), std::string::npos)
      << throttled.output;
  // The stopping rule's noisy flag (its 0.5% target) is no distrust; 5% of noise is.
  const auto converging = slow_with("converging", 4, {{"noisy", 1}, {"noise_pct", 2.5}, {"noise_target_pct", 0.5}});
  EXPECT_EQ(converging.exit_code, 1) << converging.output;
  // A host-paced case is judged by a band widened by three times its noise: a fifth below is further.
  const auto paced = slow_with("paced", 4, {{"host_paced", 1}, {"noise_pct", 2.5}, {"noise_target_pct", 0.5}});
  EXPECT_EQ(paced.exit_code, 1) << paced.output;
  EXPECT_NE(paced.output.find("widened by 7.5% each side (the host paces it: 3 x its noise)"), std::string::npos)
      << paced.output;
  // Noise of 5% or more widens nothing: a host-paced case that noisy below its band is noisy, not judged.
  const auto paced_noisy = slow_with("paced_noisy", 4, {{"host_paced", 1}, {"noise_pct", 9.0}});
  EXPECT_EQ(paced_noisy.exit_code, 3) << paced_noisy.output;
  const auto at = paced_noisy.output.find("GPU 0: noisy DRAM read:");
  ASSERT_NE(at, std::string::npos) << paced_noisy.output;
  const std::string line = paced_noisy.output.substr(at, paced_noisy.output.find('\n', at) - at);
  EXPECT_EQ(line.find("widened"), std::string::npos) << line;
  const auto noisy = slow_with("noisy", 4, {{"noisy", 1}, {"noise_pct", 5.0}, {"noise_target_pct", 0.5}});
  EXPECT_EQ(noisy.exit_code, 3) << noisy.output;
  EXPECT_NE(noisy.output.find("noise 5% >= the 5% threshold"), std::string::npos) << noisy.output;
  EXPECT_NE(noisy.output.find("GPU 0: noisy DRAM read:"), std::string::npos) << noisy.output;
  EXPECT_NE(noisy.output.find("1 below but too noisy to judge"), std::string::npos) << noisy.output;
}

TEST(CheckRecorded, SlowBesideAnotherProcessIsContendedNotSlow) {
  const auto r = test::run("--check --judge=" + recorded("contended", [](nlohmann::json& doc) {
                             for_case(doc, "stream/", [](nlohmann::json& e) {
                               e["bytes_per_second"] = 0.5 * e["bytes_per_second"].get<double>();
                               e["contended"] = 1;
                               e["other_processes"] = 1;
                             });
                           }));
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_EQ(r.output.find("SLOW"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("GPU 0: contended DRAM read:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("4 below while another process used the GPU (not judged)"), std::string::npos) << r.output;
}

// Every rate a fifth lower and every latency a quarter longer, with the
// percents of peak that follow: the same GPU made slow.
void a_fifth_slower(nlohmann::json& doc) {
  for (auto& e : doc["benchmarks"]) {
    for (const char* rate : {"bytes_per_second", "pct_of_peak", "updates_per_second"})
      if (e.contains(rate)) e[rate] = 0.8 * e[rate].get<double>();
    if (e.contains("latency_ns")) e["latency_ns"] = 1.25 * e["latency_ns"].get<double>();
  }
}

// A model no reference names is judged provisionally by the efficiencies
// the built-in references measured: a recorded H200 run, named another
// model, is provisionally healthy as it is and provisionally unhealthy a
// fifth slower; its latencies and atomics have no peak and are not judged,
// nor the L2 read, whose peak rests on an assumed fact. Its FP32 and tensor
// cases are judged by the H100's efficiencies.
TEST(CheckRecorded, AnotherModelIsJudgedProvisionallyHealthyAsItIsAndUnhealthyAFifthSlower) {
  const auto rename = [](nlohmann::json& doc) { doc["context"]["gpu_name"] = "NVIDIA B201"; };
  const auto other = test::run("--check --judge=" + recorded("b201", rename, kEveryCeilingRun));
  EXPECT_EQ(other.exit_code, 5) << other.output;
  EXPECT_NE(other.output.find("provisionally healthy: 11 of 11 cases within their provisional bands, 1 not judged"),
            std::string::npos)
      << other.output;
  EXPECT_NE(other.output.find("GPU 0: ok FP32 FMA: compute/fp32/chains:8/occupancy:8: "), std::string::npos)
      << other.output;
  EXPECT_NE(other.output.find("no reference for the NVIDIA B201; provisional: this GPU's peaks x the efficiencies "
                              "measured on the NVIDIA H100 80GB HBM3, NVIDIA H200; 5 of the check's 17 cases have no "
                              "peak to judge by"),
            std::string::npos)
      << other.output;
  const std::string prom = test::temp_path(".prom");
  const auto slow = test::run("--check --check_metrics=" + prom + " --judge=" +
                              recorded(
                                  "b201_slow",
                                  [&](auto& doc) {
                                    rename(doc);
                                    a_fifth_slower(doc);
                                  },
                                  kEveryCeilingRun));
  EXPECT_EQ(slow.exit_code, 6) << slow.output;
  EXPECT_NE(slow.output.find("PROVISIONALLY UNHEALTHY: "), std::string::npos) << slow.output;
  // DRAM, the L1 and shared memory a fifth below the efficiency every H200 had: below the provisional band.
  for (const char* level :
       {"DRAM read", "DRAM write", "DRAM copy", "DRAM triad", "L1 read", "shared memory read", "FP32 FMA"})
    EXPECT_NE(slow.output.find(std::string("GPU 0: SLOW ") + level + ":"), std::string::npos) << level;
  EXPECT_NE(test::read_file(prom).find("basis=\"provisional\"} 6\n"), std::string::npos) << test::read_file(prom);
  // Slow beside another process: contended, not judged.
  const auto shared = test::run("--check --judge=" + recorded("b201_contended", [&](auto& doc) {
                                  rename(doc);
                                  a_fifth_slower(doc);
                                  for (auto& e : doc["benchmarks"]) e["contended"] = 1;
                                }));
  EXPECT_EQ(shared.exit_code, 3) << shared.output;
  EXPECT_EQ(shared.output.find("SLOW"), std::string::npos) << shared.output;
  // References with no efficiencies give no provisional check: no reference (exit 4).
  const std::string bare = test::temp_path(".bare.json");
  std::ofstream(bare)
      << reference_json("NVIDIA H201", nlohmann::json::array({band_json(kChase, 16, 15, 17, "lower")})).dump();
  const auto unknown = test::run("--check=" + bare + " --judge=" + recorded("b201_bare", rename));
  EXPECT_EQ(unknown.exit_code, 4) << unknown.output;
  EXPECT_NE(unknown.output.find("no reference for the NVIDIA B201"), std::string::npos) << unknown.output;
}

TEST(CheckRecorded, AFailedCaseIsUnhealthy) {
  const auto wrong = test::run("--check --judge=" + recorded("wrong", [](nlohmann::json& doc) {
                                 for_case(doc, "hierarchy/latency/working_set:16384/", [](nlohmann::json& e) {
                                   e["error_occurred"] = true;
                                   e["error_message"] = "out[3]: 0 where 17 was expected";
                                 });
                               }));
  EXPECT_EQ(wrong.exit_code, 1) << wrong.output;
  EXPECT_NE(wrong.output.find("GPU 0: FAILED L1 latency:"), std::string::npos) << wrong.output;
}

TEST(CheckRecorded, ARunOfTwoGpusGetsAVerdictEach) {
  const auto r =
      test::run("--check --judge='" MEMBENCH_SOURCE_DIR "/benchmarks/results/h200x2/2026-12-01-node/all_devices.json'");
  EXPECT_NE(r.output.find("membench --check: GPU 0 (NVIDIA H200, GPU-4c26c570"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("membench --check: GPU 1 (NVIDIA H200, GPU-2235e1fc"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("2 GPUs judged from a recorded run"), std::string::npos) << r.output;
}

TEST(CheckRecorded, AFileThatIsNotARunIsOneLineAndStatusTwo) {
  for (const std::string& args : {std::string("--check --judge=" MEMBENCH_SOURCE_DIR "/README.md"),
                                  std::string("--check --judge=/no/such.json"), std::string("--judge=x.json")}) {
    const auto r = test::run(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
    EXPECT_EQ(r.lines(), 1) << args << ": " << r.output;
  }
}

// What a fuzzer writes, which used to crash the binary or be judged: one
// line and exit 2 each, before any GPU work.
TEST(CheckRecorded, FilesAFuzzerWritesAreOneLineAndStatusTwo) {
  const auto file = [](const std::string& name, const std::string& text) {
    const std::string path = test::temp_path("." + name + ".json");
    std::ofstream(path) << text;
    return path;
  };
  const std::string context = R"({"context": {"membench_version": "0.1.0", "gpu_name": "NVIDIA H200")";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--judge=" + file("devices_list",
                         R"({"context": {"membench_version": "1", "devices": "[]"}, "benchmarks": [{"name": "a"}]})"),
       "its context's devices is not a list of GPUs"},
      {"--judge=" + file("devices_map",
                         R"({"context": {"membench_version": "1", "devices": "{}"}, "benchmarks": [{"name": "a"}]})"),
       "its context's devices is not a list of GPUs"},
      {"--judge=" + file("no_cases", context + R"(}, "benchmarks": []})"), "it holds no cases"},
      {"--judge=" + file("version", R"({"context": {"membench_version": 5}, "benchmarks": [{}]})"),
       "no membench_version string"},
      {"--judge=" + file("twice", context + R"(, "gpu_name": "X"}, "benchmarks": [{}]})"),
       "\"gpu_name\" is given twice in one object"},
      {"--judge=" + file("deep", "{\"a\": " + std::string(100000, '[') + std::string(100000, ']') + "}"),
       "nested more than 64 deep"},
      {"--judge=" + file("zeros", std::string(1 << 20, '0')), "not a JSON object"},
      {"--resume=" + file("resume_deep", "{\"a\": " + std::string(100000, '[') + std::string(100000, ']') + "}") +
           " --benchmark_filter=^stream/read/",
       "nested more than 64 deep"},
      {"--resume=" + file("resume_zeros", std::string(1 << 20, '0')) + " --benchmark_filter=^stream/read/",
       "not a JSON object"}};
  for (const auto& [args, why] : cases) {
    const auto r = test::run((args.rfind("--judge", 0) == 0 ? "--check " : "") + args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
    EXPECT_EQ(r.lines(), 1) << args << ": " << r.output;
    EXPECT_NE(r.output.find(why), std::string::npos) << args << ": " << r.output;
  }
}

}  // namespace
}  // namespace membench::run

namespace membench::run {
namespace {

TEST(CheckVerdict, ValuesShowFourDigitsOnePrefixAndNoExponent) {
  EXPECT_EQ(show_value(4.462e12, "B/s", 9.5e12), "4462 GB/s");
  EXPECT_EQ(show_value(1e13, "B/s", 9.5e12), "10000 GB/s");
  EXPECT_EQ(show_value(3.226e13, "B/s", 3.2e13), "32.26 TB/s");
  EXPECT_EQ(show_value(54.88e9, "B/s"), "54.88 GB/s");
  EXPECT_EQ(show_value(1.671e12, "updates/s", 1.6e12), "1.671 T updates/s");
  EXPECT_EQ(show_value(565.6e9, "updates/s", 5.8e11), "565.6 G updates/s");
  EXPECT_EQ(show_value(16.47, "ns"), "16.47 ns");
  EXPECT_EQ(show_value(64.53e12, "op/s", 6.4e13), "64.53 T op/s");
}

}  // namespace
}  // namespace membench::run
