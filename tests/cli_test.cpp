// The command line on its own: the LIST grammar, axes declared by (here:
// made-up) families, the suite's flags, sweep files and the check of Google
// Benchmark's flags. Every valid and invalid form.
#include <gtest/gtest.h>

#include <chrono>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli/command_line.hpp"
#include "cli/gbench_flags.hpp"
#include "cli/grammar.hpp"
#include "cli/launcher.hpp"
#include "gbench/adapter.hpp"

namespace membench::cli {
namespace {

using Values = std::vector<std::int64_t>;

AxisSpec spec(std::string name, Values defaults, std::int64_t min = 1, std::int64_t max = std::int64_t{1} << 40,
              Values allowed = {}, std::int64_t multiple_of = 1) {
  return {std::move(name), "things", "help for it", std::move(defaults), min, max, std::move(allowed), multiple_of, {}};
}

AxisSpec named_spec() {
  AxisSpec a = spec("type", {0, 1}, 0, 1, {0, 1});
  a.names = {"float", "double"};
  return a;
}

// Two families that share `n`, as the real ones do.
const AxisTable& axes() {
  static const AxisTable table({
      {"alpha", spec("n", {1 << 24})},
      {"alpha", spec("stride", {1, 2}, 1, std::int64_t{1} << 30)},
      {"alpha", spec("vec", {2, 4}, 1, 4, {1, 2, 4})},
      {"beta", spec("n", {4096})},
      {"beta", spec("pad", {0, 1}, 0, 32, {0, 1, 2, 4, 8, 16, 32})},
      {"beta", spec("flops", {0}, 0, 65536, {}, 2)},
      {"beta", named_spec()},
  });
  return table;
}

Values parse(const std::string& flag, const std::string& text) { return parse_list(*axes().find(flag), text); }

Options parse_args(std::vector<std::string> args) {
  args.insert(args.begin(), "membench");
  std::vector<const char*> argv;
  for (auto& a : args) argv.push_back(a.c_str());
  return parse_command_line(static_cast<int>(argv.size()), argv.data(), axes());
}

std::string refusal(const std::string& flag, const std::string& text) {
  try {
    parse(flag, text);
  } catch (const UsageError& e) { return e.what(); }
  return "";
}

std::string args_refusal(std::vector<std::string> args) {
  try {
    parse_args(std::move(args));
  } catch (const UsageError& e) { return e.what(); }
  return "";
}

TEST(Grammar, SingleValues) {
  EXPECT_EQ(parse("n", "17"), Values({17}));
  EXPECT_EQ(parse("n", "2^20"), Values({1 << 20}));
  EXPECT_EQ(parse("n", "4K"), Values({4096}));
  EXPECT_EQ(parse("n", "3M"), Values({3 << 20}));
  EXPECT_EQ(parse("n", "1G"), Values({1 << 30}));
  EXPECT_EQ(parse("n", "2k"), Values({2048}));
}

TEST(Grammar, ListsKeepOrderAndDropDuplicates) { EXPECT_EQ(parse("stride", "4,1,2,1"), Values({4, 1, 2})); }

TEST(Grammar, InclusiveRanges) {
  EXPECT_EQ(parse("stride", "1:32:*2"), Values({1, 2, 4, 8, 16, 32}));
  EXPECT_EQ(parse("n", "2^20:2^28:*4"), Values({1 << 20, 1 << 22, 1 << 24, 1 << 26, 1 << 28}));
  EXPECT_EQ(parse("stride", "1:4"), Values({1, 2, 3, 4}));
  EXPECT_EQ(parse("stride", "1:10:+4"), Values({1, 5, 9}));
  EXPECT_EQ(parse("stride", "3:3"), Values({3}));
  EXPECT_EQ(parse("n", "1K:4K:*2"), Values({1024, 2048, 4096}));
  EXPECT_EQ(parse("stride", "1:2,8:16:*2"), Values({1, 2, 8, 16}));
}

TEST(Grammar, ZeroAllowedOnlyWhereDeclared) {
  EXPECT_EQ(parse("pad", "0,1"), Values({0, 1}));
  EXPECT_EQ(parse("flops", "0:64:+32"), Values({0, 32, 64}));
  EXPECT_NE(refusal("flops", "0:64:*4").find("start above zero"), std::string::npos);
}

TEST(Grammar, RefusesZeroAndNegative) {
  EXPECT_EQ(refusal("stride", "0"), "--stride=0: zero is not allowed (values must be >= 1)");
  EXPECT_NE(refusal("n", "-4").find("negative"), std::string::npos);
  EXPECT_NE(refusal("stride", "2,0").find("zero"), std::string::npos);
}

TEST(Grammar, RefusesGarbageSayingWhatIsWrong) {
  for (const char* text : {"abc", "12x", "1.5", "2^", "^3", "1e6", "0x10", "K", " 1", "2^x", "-"})
    EXPECT_EQ(refusal("n", text), "--n=" + std::string(text) + ": '" + text + "' is not a number");
  for (const char* text : {"1,,2", ",1", "1,"})
    EXPECT_EQ(refusal("n", text), "--n=" + std::string(text) + ": empty item in list");
  const std::map<std::string, std::string> why = {
      {"1:2:3:4", "'1:2:3:4' is not VALUE:VALUE[:STEP]"},
      {"1:2:x2", "step 'x2' must be +K or *K"},
      {"1:2:*", "step '*' must be +K or *K"},
      {"1:2:+0", "step in '+0' must be at least 1"},
      {"1:2:*1", "multiplier in '*1' must be at least 2"},
      {"4:1", "range '4:1' is empty (start > end)"},
      {"2^-1", "negative exponent in '2^-1'"},
      {"0:4:*2", "a *K range must start above zero"},
  };
  for (const auto& [text, reason] : why) EXPECT_EQ(refusal("n", text), "--n=" + text + ": " + reason);
}

TEST(Grammar, RefusesEmptyList) { EXPECT_EQ(refusal("n", ""), "--n=: empty list"); }

TEST(Grammar, RefusesOverflow) {
  EXPECT_EQ(refusal("n", "3^40"), "--n=3^40: value does not fit in 64 bits");
  EXPECT_EQ(refusal("n", "2^64"), "--n=2^64: exponent in '2^64' is too large (at most 63)");
  // A huge exponent is refused at once, whatever its base (1^K once looped K times).
  for (const char* text : {"1^99999999999999", "0^99999999999999", "-1^99999999999999"})
    EXPECT_NE(refusal("n", text).find("is too large (at most 63)"), std::string::npos) << text;
  EXPECT_NE(refusal("n", "99999999999999999999").find("does not fit"), std::string::npos);
  EXPECT_NE(refusal("n", "9223372036854775807K").find("does not fit"), std::string::npos);
  EXPECT_EQ(refusal("n", "2^41"),
            "--n=2^41: 2199023255552 is too large (at most 1099511627776)");  // past the axis' limit
  EXPECT_EQ(parse("n", "2^40"), Values({std::int64_t{1} << 40}));             // the limit itself is allowed
  EXPECT_EQ(parse("vec", "4"), Values({4}));
}

TEST(Grammar, RefusesHugeExpansions) { EXPECT_NE(refusal("stride", "1:1000000").find("more than"), std::string::npos); }

TEST(Grammar, RefusesValuesTheFamilyDoesNotBuild) {
  EXPECT_NE(refusal("pad", "3").find("one of 0,1,2,4,8,16,32"), std::string::npos);
  EXPECT_NE(refusal("vec", "3").find("not supported"), std::string::npos);
  EXPECT_NE(refusal("flops", "3").find("multiple of 2"), std::string::npos);
}

TEST(Grammar, NamedAxesTakeNames) {
  EXPECT_EQ(parse("type", "double"), Values({1}));
  EXPECT_EQ(parse("type", "double,float,double"), Values({1, 0}));
  EXPECT_EQ(refusal("type", "half"), "--type=half: 'half' is not one of float, double");
  EXPECT_FALSE(refusal("type", "1").empty());
  EXPECT_FALSE(refusal("type", "").empty());
  const Options o = parse_args({"--beta.type=float"});
  EXPECT_EQ(o.values("beta", spec("type", {})), Values({0}));
  EXPECT_NE(describe_sweep(o, axes()).find(R"("beta.type":["float"])"), std::string::npos) << describe_sweep(o, axes());
  EXPECT_NE(usage(axes()).find("--type=LIST  (things)  {float, double}"), std::string::npos);
  EXPECT_NE(usage(axes()).find("(default float,double)"), std::string::npos);
}

TEST(Axes, SharedNamesAreOneFlagWithEveryFamilysMeaning) {
  const auto& flags = axes().flags();
  const auto n = std::find_if(flags.begin(), flags.end(), [](const auto& f) { return f.first.name == "n"; });
  ASSERT_NE(n, flags.end());
  ASSERT_EQ(n->second.size(), 2u);
  EXPECT_EQ(n->second[0].family, "alpha");
  EXPECT_EQ(n->second[1].family, "beta");
  EXPECT_EQ(axes().find("beta", "n")->defaults, Values({4096}));
  EXPECT_EQ(axes().find("alpha", "pad"), nullptr);
}

TEST(Axes, ASharedNameMustAcceptTheSameValues) {
  EXPECT_THROW(AxisTable({{"alpha", spec("n", {1})}, {"beta", spec("n", {1}, 0)}}), std::logic_error);
  EXPECT_THROW(AxisTable({{"alpha", spec("w", {4}, 4, 16, {4, 8, 16})}, {"beta", spec("w", {4}, 4, 16, {4, 16})}}),
               std::logic_error);
}

TEST(CommandLine, SplitsOwnFlagsFromGoogleBenchmarks) {
  const Options o = parse_args({"--stride=1:4:*2", "--benchmark_filter=strided", "--n=2^10", "--device=0",
                                "--benchmark_out=x.json", "--l2_flush"});
  EXPECT_EQ(o.sweep.at("stride"), Values({1, 2, 4}));
  EXPECT_EQ(o.sweep.at("n"), Values({1024}));
  EXPECT_EQ(o.measure.l2, engine::L2::cold);
  EXPECT_EQ(o.device.kind, DeviceSelection::Kind::list);
  EXPECT_EQ(o.device.ordinals, std::vector<int>{0});
  EXPECT_EQ(o.filter, "strided");
  EXPECT_EQ(o.passthrough.at(0), "membench");
  EXPECT_NE(std::find(o.passthrough.begin(), o.passthrough.end(), "--benchmark_filter=strided"), o.passthrough.end());
  EXPECT_NE(std::find(o.passthrough.begin(), o.passthrough.end(), "--benchmark_out=x.json"), o.passthrough.end());
  EXPECT_FALSE(o.list_only);
  EXPECT_TRUE(parse_args({"--benchmark_list_tests"}).list_only);
  EXPECT_TRUE(parse_args({"--benchmark_list_tests=true"}).list_only);
  EXPECT_FALSE(parse_args({"--benchmark_list_tests=false"}).list_only);
}

TEST(CommandLine, FamilyScopedAxesWinOverSharedOnes) {
  const Options o = parse_args({"--n=2^20", "--beta.n=4K"});
  EXPECT_EQ(o.values("alpha", spec("n", {9})), Values({1 << 20}));
  EXPECT_EQ(o.values("beta", spec("n", {9})), Values({4096}));
  EXPECT_EQ(o.values("beta", spec("pad", {9})), Values({9}));
  EXPECT_NE(args_refusal({"--alpha.pad=1"}).find("no family 'alpha' with an axis 'pad'"), std::string::npos);
  EXPECT_NE(args_refusal({"--beta.pad=3"}).find("--beta.pad=3: 3 is not supported"), std::string::npos);
}

TEST(CommandLine, MeasurementFlags) {
  const Options o = parse_args({"--min_batches=20", "--max_noise=0.25", "--max_time=2", "--throttle=75", "--l2=both"});
  EXPECT_EQ(o.measure.min_batches, 20);
  EXPECT_DOUBLE_EQ(o.measure.max_noise_pct, 0.25);
  EXPECT_DOUBLE_EQ(o.measure.max_seconds, 2.0);
  EXPECT_DOUBLE_EQ(o.measure.throttle_pct, 75.0);
  EXPECT_EQ(o.measure.l2, engine::L2::both);
  EXPECT_EQ(parse_args({"--l2_flush=false"}).measure.l2, engine::L2::warm);
  for (const char* bad : {"--min_batches=0", "--max_noise=-1", "--max_noise=x", "--max_time=1e9", "--throttle=101",
                          "--l2=lukewarm", "--l2", "--min_batches=1.5"})
    EXPECT_FALSE(args_refusal({bad}).empty()) << bad;
}

TEST(CommandLine, RefusesUnknownAndMalformedFlags) {
  for (const char* bad :
       {"--strde=2", "--n", "stride=2", "-n=2", "--", "--device=-1", "--device=0,x", "--l2_flush=maybe", "--sweep="})
    EXPECT_FALSE(args_refusal({bad}).empty()) << bad;
  EXPECT_EQ(args_refusal({"--bogus=1"}), "unknown flag '--bogus=1' (see --help)");
}

TEST(CommandLine, AFlagGivenTwiceIsRefused) {
  // The second value would silently win.
  EXPECT_EQ(args_refusal({"--stride=1", "--stride=2"}), "--stride is given twice (give one list: --stride=A,B)");
  EXPECT_EQ(args_refusal({"--alpha.n=1", "--alpha.n=2"}), "--alpha.n is given twice (give one list: --alpha.n=A,B)");
  EXPECT_EQ(args_refusal({"--l2=cold", "--l2_flush"}), "--l2_flush is given twice (give one list: --l2_flush=A,B)");
  EXPECT_EQ(args_refusal({"--benchmark_filter=a", "--benchmark_filter=b"}),
            "--benchmark_filter is given twice (give one list: --benchmark_filter=A,B)");
  EXPECT_EQ(args_refusal({"--sweep=a.json", "--sweep=b.json"}), "--sweep is given twice (give one list: --sweep=A,B)");
  // A scoped and a shared axis are two flags; the scoped one wins.
  EXPECT_EQ(args_refusal({"--n=1", "--alpha.n=2"}), "");
}

TEST(CommandLine, ADeviceGivenTwiceIsRefused) {
  EXPECT_EQ(args_refusal({"--device=0,0"}), "--device=0,0: device 0 is given twice");
  EXPECT_EQ(args_refusal({"--device=0:3,2"}), "--device=0:3,2: device 2 is given twice");
  EXPECT_EQ(parse_args({"--device=3,0:2"}).device.ordinals, (std::vector<int>{3, 0, 1, 2}));
}

TEST(CommandLine, ResumeAndExclusive) {
  const Options o = parse_args({"--resume=out_{rank}.json", "--exclusive"});
  EXPECT_EQ(o.resume_file, "out_{rank}.json");
  EXPECT_TRUE(o.measure.exclusive);
  EXPECT_FALSE(parse_args({"--exclusive=false"}).measure.exclusive);
  EXPECT_FALSE(parse_args({}).measure.exclusive);
  EXPECT_EQ(args_refusal({"--resume="}), "--resume: expects --resume=FILE.json");
  EXPECT_EQ(args_refusal({"--resume"}), "--resume: expects --resume=VALUE");
  EXPECT_EQ(args_refusal({"--exclusive=maybe"}), "--exclusive=maybe: expects true or false");
}

TEST(CommandLine, OutputAndRepetitionsAreKept) {
  const Options o =
      parse_args({"--benchmark_out=r_{host}.json", "--benchmark_out_format=csv", "--benchmark_repetitions=5"});
  EXPECT_EQ(o.output_file, "r_{host}.json");
  EXPECT_EQ(o.output_format, "csv");
  EXPECT_EQ(o.repetitions, 5);
  EXPECT_EQ(parse_args({}).repetitions, 1);
  EXPECT_EQ(parse_args({}).output_format, "json");
}

TEST(BenchmarkFlags, BadValuesAreRefusedBeforeGoogleBenchmarkSeesThem) {
  // Google Benchmark itself would print its usage and exit 0 on some of these.
  const std::map<std::string, std::string> why = {
      {"--benchmark_format=xml", "--benchmark_format=xml: expects one of console, json, csv"},
      {"--benchmark_out_format=yaml", "--benchmark_out_format=yaml: expects one of console, json, csv"},
      {"--benchmark_color=", "--benchmark_color=: expects auto, true or false"},
      {"--benchmark_color=purple", "--benchmark_color=purple: expects auto, true or false"},
      {"--benchmark_time_unit=min", "--benchmark_time_unit=min: expects one of ns, us, ms, s"},
      {"--benchmark_repetitions=0", "--benchmark_repetitions=0: must be within 1..2147483647"},
      {"--benchmark_repetitions=x", "--benchmark_repetitions=x: 'x' is not a number"},
      {"--benchmark_min_time=fast", "--benchmark_min_time=fast: 'fast' is not a number"},
      {"--benchmark_min_time=0", "--benchmark_min_time=0: must be more than zero seconds"},
      {"--benchmark_min_time=-1s", "--benchmark_min_time=-1s: must be more than zero seconds"},
      {"--benchmark_out=", "--benchmark_out=: expects a file name"},
      {"--benchmark_context=nokey", "--benchmark_context=nokey: expects KEY=VALUE[,KEY=VALUE...]"},
      {"--benchmark_counters_tabular=perhaps", "--benchmark_counters_tabular=perhaps: expects true or false"},
      {"--benchmark_nonsense=1", "--benchmark_nonsense: not a Google Benchmark flag this build knows (see --help)"},
      {"--v=x", "--v=x: 'x' is not a number"},
      {"--benchmark_filter", "--benchmark_filter: expects --benchmark_filter=VALUE"},
  };
  for (const auto& [bad, message] : why) EXPECT_EQ(args_refusal({bad}), message);
  EXPECT_EQ(args_refusal({"--benchmark_filter=("}).rfind("--benchmark_filter=(: not a valid regular expression (", 0),
            0u);
}

TEST(BenchmarkFlags, MinTimeIsWrittenForTheLinkedVersion) {
  const auto min_time = [](const Options& o) {
    for (const auto& a : o.passthrough)
      if (a.rfind("--benchmark_min_time=", 0) == 0) return a.substr(21);
    return std::string("absent");
  };
  const Options given = parse_args({"--benchmark_min_time=0.25s"});
  EXPECT_TRUE(given.min_time_given);
  EXPECT_EQ(min_time(given), gbench::kVersion >= 10800 ? "0.25s" : "0.25");
  EXPECT_EQ(min_time(parse_args({"--benchmark_min_time=0.25"})), min_time(given));
  // Without it, Google Benchmark is told a tiny time: the suite's own stopping rule decides.
  const Options defaulted = parse_args({});
  EXPECT_FALSE(defaulted.min_time_given);
  EXPECT_NE(min_time(defaulted), "absent");
  if (gbench::kVersion >= 10800)
    EXPECT_EQ(min_time(parse_args({"--benchmark_min_time=100x"})), "100x");
  else
    EXPECT_NE(args_refusal({"--benchmark_min_time=100x"}).find("1.8"), std::string::npos);
}

TEST(Filter, FollowsGoogleBenchmarksRules) {
  EXPECT_TRUE(gbench::Filter("").matches("a/b"));
  EXPECT_TRUE(gbench::Filter("all").matches("a/b"));
  EXPECT_TRUE(gbench::Filter("^global/(coalesced|strided)").matches("global/strided/n:1/manual_time"));
  EXPECT_FALSE(gbench::Filter("^global/(coalesced|strided)").matches("layout/aos/structs:1/manual_time"));
  EXPECT_TRUE(gbench::Filter("stride:2/").matches("global/strided/n:1/stride:2/manual_time"));
  EXPECT_FALSE(gbench::Filter("-strided").matches("global/strided/n:1/manual_time"));
  EXPECT_TRUE(gbench::Filter("-strided").matches("global/coalesced/n:1/manual_time"));
  EXPECT_THROW(gbench::Filter("a(b"), gbench::Filter::Invalid);
  EXPECT_THROW(gbench::Filter(std::string(4097, 'a')), gbench::Filter::Invalid);
  EXPECT_NO_THROW(gbench::Filter(std::string(4096, 'a')));
  EXPECT_TRUE(gbench::Filter("^(global|layout)/.*stride:(2|4)/").matches("global/strided/n:1/stride:2/manual_time"));
  EXPECT_TRUE(gbench::Filter("n:\\d+/").matches("global/strided/n:12/manual_time"));
  EXPECT_TRUE(gbench::Filter("[[:digit:]]{2}/").matches("global/strided/n:12/manual_time"));
  EXPECT_THROW(gbench::Filter("[z-a]"), gbench::Filter::Invalid);
}

// The patterns that made a backtracking engine run for minutes (nested and
// stacked repetitions that fail at the end) match in time linear in the
// name: a thousand names of 500 characters each, in well under a second on
// any machine (a backtracking engine takes longer than the test's limit on
// one of them).
TEST(Filter, NoPatternTakesLongerThanLinearTime) {
  const std::string name = std::string(500, 'a') + "/manual_time";
  for (const std::string& pattern : std::vector<std::string>{
           "(.|.)*Q", "(.|..)*Q", ".*.*.*.*.*.*.*.*.*.*Q", "(.*)(.*)(.*)(.*)(.*)(.*)(.*)Q", "(.?){80}.{80}Q", "(.*)*X",
           "(a+)+b", "((a*)b)*c", "(x*){2,}y", std::string(32, '(') + "a" + std::string(32, ')') + "Q"}) {
    const gbench::Filter f(pattern);
    const auto start = std::chrono::steady_clock::now();
    bool any = false;
    for (int k = 0; k < 1000; ++k) any = f.matches(name) || any;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_FALSE(any) << pattern;
    EXPECT_LT(seconds, 5.0) << pattern;
  }
  // A pattern whose program would need more memory than the bound is refused, not built.
  EXPECT_THROW(gbench::Filter("((((.{100}){100}){100}){100})"), gbench::Filter::Invalid);
}

class SweepFile : public ::testing::Test {
 protected:
  std::string write(const std::string& text) {
    // Named for the test: ctest runs each test in a process of its own, several at once.
    path_ = ::testing::TempDir() + "membench_sweep_" + ::testing::UnitTest::GetInstance()->current_test_info()->name() +
            "_" + std::to_string(counter_++) + ".json";
    std::ofstream(path_) << text;
    return path_;
  }
  void TearDown() override { std::remove(path_.c_str()); }
  std::string refusal_of(const std::string& text) { return args_refusal({"--sweep=" + write(text)}); }
  std::string path_;
  static inline int counter_ = 0;
};

TEST_F(SweepFile, ReadsListsInEveryForm) {
  const std::string f = write(R"({"stride": "1:8:*2", "n": [1024, "2^12"], "pad": 1, "l2_flush": true,
                                  "beta.n": 64, "min_batches": 5, "max_noise": 0.5,
                                  "benchmark_filter": "^alpha/", "benchmark_repetitions": 3})");
  const Options o = parse_args({"--sweep=" + f});
  EXPECT_EQ(o.sweep.at("stride"), Values({1, 2, 4, 8}));
  EXPECT_EQ(o.sweep.at("n"), Values({1024, 4096}));
  EXPECT_EQ(o.sweep.at("pad"), Values({1}));
  EXPECT_EQ(o.values("beta", spec("n", {})), Values({64}));
  EXPECT_EQ(o.measure.l2, engine::L2::cold);
  EXPECT_EQ(o.measure.min_batches, 5);
  EXPECT_EQ(o.filter, "^alpha/");
  EXPECT_NE(std::find(o.passthrough.begin(), o.passthrough.end(), "--benchmark_repetitions=3"), o.passthrough.end());
  EXPECT_EQ(o.sweep_file, f);
}

// An escaped NUL would cut the flag's text there: a filter of "\u0000zzz" selected every case.
TEST_F(SweepFile, ANulCharacterIsRefused) {
  EXPECT_NE(refusal_of(R"({"benchmark_filter": "\u0000zzz"})").find("'benchmark_filter' holds a NUL character"),
            std::string::npos);
  EXPECT_NE(refusal_of(R"({"stride": ["1", "2\u0000"]})").find("'stride' holds a NUL character"), std::string::npos);
  EXPECT_NE(refusal_of(R"({"n\u0000x": 1})").find("holds a NUL character"), std::string::npos);
}

TEST_F(SweepFile, CommandLineWinsKeyByKey) {
  const std::string f = write(R"({"stride": "1:8:*2", "n": 4096, "benchmark_filter": "alpha"})");
  const Options o = parse_args({"--stride=3", "--sweep=" + f, "--benchmark_filter=beta"});
  EXPECT_EQ(o.sweep.at("stride"), Values({3}));
  EXPECT_EQ(o.sweep.at("n"), Values({4096}));
  EXPECT_EQ(o.filter, "beta");
  EXPECT_EQ(std::count_if(o.passthrough.begin(), o.passthrough.end(),
                          [](const std::string& a) { return a.rfind("--benchmark_filter=", 0) == 0; }),
            1);
}

TEST_F(SweepFile, RefusesBadFiles) {
  EXPECT_NE(args_refusal({"--sweep=/nonexistent/membench.json"}).find("no such file"), std::string::npos);
  EXPECT_NE(args_refusal({"--sweep=" + ::testing::TempDir()}).find("not a regular file"), std::string::npos);
  EXPECT_NE(refusal_of("{not json").find("not valid JSON"), std::string::npos);
  EXPECT_NE(refusal_of("[1, 2]").find("expects a JSON object"), std::string::npos);
  EXPECT_NE(refusal_of(R"({"strde": 2})").find("unknown flag"), std::string::npos);
  EXPECT_NE(refusal_of(R"({"stride": 1, "stride": 2})").find("'stride' is given twice"), std::string::npos);
  EXPECT_NE(refusal_of(R"({"sweep": "other.json"})").find("another sweep file"), std::string::npos);
  EXPECT_NE(refusal_of(R"({"benchmark_format": "xml"})").find("expects one of"), std::string::npos);
  for (const char* text : {R"({"stride": 0})", R"({"stride": 1.5})", R"({"stride": [[1]]})", R"({"stride": null})",
                           R"({"min_batches": [1]})", R"({"l2": "lukewarm"})"})
    EXPECT_FALSE(refusal_of(text).empty()) << text;
  // Nested past any use, refused before a parser recurses through it (100,000 deep crashed).
  const std::string deep = "{\"stride\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  EXPECT_NE(refusal_of(deep).find("nested more than 8 deep"), std::string::npos);
  // The object and eight arrays are allowed (and refused for what they hold); nine are too deep.
  const auto nested = [](int arrays) {
    return "{\"stride\": " + std::string(arrays, '[') + "1" + std::string(arrays, ']') + "}";
  };
  EXPECT_NE(refusal_of(nested(7)).find("list items must be integers or LIST strings"), std::string::npos);
  EXPECT_NE(refusal_of(nested(8)).find("nested more than 8 deep"), std::string::npos);
  EXPECT_NE(refusal_of(R"({"stride": "[[[[[[[[[[1]]]]]]]]]]"})").find("is not a number"),
            std::string::npos);  // brackets in a string do not count
  const std::string message = refusal_of(R"({"stride": "0"})");
  EXPECT_EQ(message.rfind("--sweep=", 0), 0u) << message;
  EXPECT_NE(message.find("--stride=0"), std::string::npos) << message;
}

TEST(Usage, NamesEveryAxisEveryFamilyAndTheExitStatus) {
  const std::string text = usage(axes());
  for (const auto& [domain, uses] : axes().flags()) {
    EXPECT_NE(text.find("--" + domain.name + "=LIST"), std::string::npos) << domain.name;
    for (const auto& use : uses) EXPECT_NE(text.find(use.family + ": help for it"), std::string::npos);
  }
  for (const char* flag :
       {"--l2=warm|cold|both", "--min_batches", "--max_noise", "--max_time", "--throttle", "--sweep"})
    EXPECT_NE(text.find(flag), std::string::npos) << flag;
  EXPECT_NE(text.find("Exit status: 0"), std::string::npos);
}

// ---- devices and launchers ----------------------------------------------------

Environment env_of(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(Devices, ListAllAndLocalParse) {
  EXPECT_EQ(parse_args({"--device=0,2:3"}).device.ordinals, (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(parse_args({"--device=all"}).device.kind, DeviceSelection::Kind::all);
  EXPECT_EQ(parse_args({"--device=local"}).device.kind, DeviceSelection::Kind::local);
}

TEST(Devices, LocalRankInTheLaunchersOrder) {
  // Slurm's wins over Open MPI's, Open MPI's over MPICH's, MPICH's over torchrun's.
  EXPECT_EQ(launcher_info(env_of({{"LOCAL_RANK", "3"}, {"SLURM_LOCALID", "1"}})).local_rank, 1);
  EXPECT_EQ(launcher_info(env_of({{"LOCAL_RANK", "3"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "2"}})).local_rank, 2);
  EXPECT_EQ(launcher_info(env_of({{"LOCAL_RANK", "3"}, {"MPI_LOCALRANKID", "0"}})).local_rank, 0);
  const LauncherInfo torchrun = launcher_info(env_of({{"LOCAL_RANK", "3"}, {"RANK", "11"}}));
  EXPECT_EQ(torchrun.local_rank, 3);
  EXPECT_EQ(torchrun.local_rank_variable, "LOCAL_RANK");
  EXPECT_EQ(torchrun.rank, 11);
  const LauncherInfo slurm =
      launcher_info(env_of({{"SLURM_LOCALID", "1"}, {"SLURM_PROCID", "9"}, {"SLURM_JOB_ID", "4242"}}));
  EXPECT_EQ(slurm.rank, 9);
  EXPECT_EQ(slurm.job_id, "4242");
  EXPECT_FALSE(launcher_info(env_of({})).local_rank);
}

TEST(Devices, ARankThatIsNotANumberBreaksOnlyWhatReadsIt) {
  for (const char* bad : {"", "x", "-1", "1.5", "2x", " 1", "+1", "1 "}) {
    SCOPED_TRACE(bad);
    const LauncherInfo local = launcher_info(env_of({{"OMPI_COMM_WORLD_LOCAL_RANK", bad}}));  // does not throw
    EXPECT_FALSE(local.local_rank);
    EXPECT_EQ(local.local_rank_error,
              "OMPI_COMM_WORLD_LOCAL_RANK=" + std::string(bad) + ": not a rank (a non-negative integer)");
    DeviceSelection by_rank;
    by_rank.kind = DeviceSelection::Kind::local;
    try {
      resolve_devices(by_rank, 4, local);
      ADD_FAILURE() << "--device=local accepted a malformed local rank";
    } catch (const UsageError& e) { EXPECT_EQ(std::string(e.what()), "--device=local: " + local.local_rank_error); }
    EXPECT_EQ(resolve_devices(DeviceSelection{}, 4, local), std::vector<int>{0});  // --device=0 does not read it
    EXPECT_EQ(expand_output_pattern("{host}.json", "h", local, 0), "h.json");      // nor does a name without {rank}
    try {
      expand_output_pattern("{rank}.json", "h", local, 0);
      ADD_FAILURE() << "{rank} filled in from a malformed local rank";
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()), "{rank} cannot be filled in: " + local.local_rank_error);
    }
  }
  // A good global rank decides {rank}, whatever the local rank's variable holds.
  const LauncherInfo both = launcher_info(env_of({{"LOCAL_RANK", "x"}, {"RANK", "7"}}));
  EXPECT_EQ(expand_output_pattern("{rank}.json", "h", both, 0), "7.json");
  const LauncherInfo bad_global = launcher_info(env_of({{"LOCAL_RANK", "1"}, {"RANK", "y"}}));
  EXPECT_EQ(bad_global.rank_error, "RANK=y: not a rank (a non-negative integer)");
  EXPECT_THROW(expand_output_pattern("{rank}.json", "h", bad_global, 0), UsageError);
}

TEST(TestHook, CorruptIsOnOnlyFor1) {
  EXPECT_FALSE(corrupt_for_test(env_of({})));
  EXPECT_FALSE(corrupt_for_test(env_of({{"MEMBENCH_TEST_CORRUPT", ""}})));
  EXPECT_FALSE(corrupt_for_test(env_of({{"MEMBENCH_TEST_CORRUPT", "0"}})));
  EXPECT_TRUE(corrupt_for_test(env_of({{"MEMBENCH_TEST_CORRUPT", "1"}})));
  try {
    corrupt_for_test(env_of({{"MEMBENCH_TEST_CORRUPT", "yes"}}));
    ADD_FAILURE() << "accepted 'yes'";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "MEMBENCH_TEST_CORRUPT=yes: expects 0 or 1 (a test hook)");
  }
}

TEST(TestHook, ProcessViewIsUtilisationOrUnset) {
  EXPECT_FALSE(utilisation_view_for_test(env_of({})));
  EXPECT_FALSE(utilisation_view_for_test(env_of({{"MEMBENCH_TEST_PROCESS_VIEW", ""}})));
  EXPECT_TRUE(utilisation_view_for_test(env_of({{"MEMBENCH_TEST_PROCESS_VIEW", "utilisation"}})));
  try {
    utilisation_view_for_test(env_of({{"MEMBENCH_TEST_PROCESS_VIEW", "contexts"}}));
    ADD_FAILURE() << "accepted 'contexts'";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "MEMBENCH_TEST_PROCESS_VIEW=contexts: expects utilisation (a test hook)");
  }
}

TEST(Devices, ResolvedAgainstTheVisibleOnes) {
  DeviceSelection list;
  list.ordinals = {1, 0};
  EXPECT_EQ(resolve_devices(list, 2, {}), (std::vector<int>{1, 0}));
  EXPECT_THROW(resolve_devices(list, 1, {}), UsageError);
  DeviceSelection all;
  all.kind = DeviceSelection::Kind::all;
  EXPECT_EQ(resolve_devices(all, 3, {}), (std::vector<int>{0, 1, 2}));
  DeviceSelection local;
  local.kind = DeviceSelection::Kind::local;
  LauncherInfo rank1;
  rank1.local_rank = 1;
  rank1.local_rank_variable = "LOCAL_RANK";
  EXPECT_EQ(resolve_devices(local, 2, rank1), std::vector<int>{1});
  EXPECT_EQ(resolve_devices(local, 1, rank1), std::vector<int>{0});  // the launcher bound the GPU
  try {
    resolve_devices(local, 4, {});
    ADD_FAILURE() << "no local rank accepted";
  } catch (const UsageError& e) { EXPECT_NE(std::string(e.what()).find("no local rank is set"), std::string::npos); }
  rank1.local_rank = 5;
  EXPECT_THROW(resolve_devices(local, 2, rank1), UsageError);
  rank1.local_rank = 2;  // ranks count from 0: rank 2 needs a third device
  try {
    resolve_devices(local, 2, rank1);
    ADD_FAILURE() << "local rank 2 accepted with 2 devices";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "--device=local: LOCAL_RANK=2 but only 2 device(s) visible");
  }
  rank1.local_rank = 1;
  EXPECT_EQ(resolve_devices(local, 2, rank1), std::vector<int>{1});
}

TEST(Devices, OutputPatternNamesHostRankAndDevice) {
  LauncherInfo l;
  EXPECT_EQ(expand_output_pattern("r_{host}_{rank}_{device}.json", "node7", l, 3), "r_node7_0_3.json");
  l.local_rank = 2;
  EXPECT_EQ(expand_output_pattern("{rank}/{rank}.json", "h", l, 0), "2/2.json");
  l.rank = 17;
  EXPECT_EQ(expand_output_pattern("out_{rank}.json", "h", l, 0), "out_17.json");
  EXPECT_EQ(expand_output_pattern("plain.json", "h", l, 0), "plain.json");
}

}  // namespace
}  // namespace membench::cli

namespace membench::cli {
namespace {

TEST(Printable, EscapesControlCharactersAndCutsTheMiddle) {
  EXPECT_EQ(printable("a\nb\tc\r\x01"), "a\\nb\\tc\\r\\x01");
  EXPECT_EQ(printable("short"), "short");
  const std::string cut = printable(std::string(50, 'a') + std::string(100, 'b') + std::string(50, 'c'), 100);
  EXPECT_EQ(cut, std::string(50, 'a') + "...(100 more)..." + std::string(50, 'c'));
}

TEST(EnvironmentFlags, GoogleBenchmarksVariablesAreCheckedAndHandedOnAsFlags) {
  const auto env = [](std::map<std::string, std::string> vars) -> Environment {
    return [vars](const std::string& name) -> std::optional<std::string> {
      const auto it = vars.find(name);
      return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
  };
  EXPECT_TRUE(environment_flags(env({})).empty());
  EXPECT_EQ(environment_flags(env({{"BENCHMARK_REPETITIONS", "3"}, {"BENCHMARK_OUT_FORMAT", "json"}})),
            (std::vector<std::string>{"--benchmark_out_format=json", "--benchmark_repetitions=3"}));
  try {
    environment_flags(env({{"BENCHMARK_REPETITIONS", "abc"}}));
    FAIL() << "BENCHMARK_REPETITIONS=abc was taken";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "environment BENCHMARK_REPETITIONS=abc (as --benchmark_repetitions): 'abc' is not a number");
  }
  EXPECT_THROW(environment_flags(env({{"BENCHMARK_FORMAT", "xml"}})), UsageError);
  EXPECT_THROW(environment_flags(env({{"BENCHMARK_FILTER", "a(b"}})), UsageError);
  EXPECT_EQ(environment_flags(env({{"BENCHMARK_FILTER", "(.*)*"}})),
            (std::vector<std::string>{"--benchmark_filter=(.*)*"}));  // linear in RE2: taken
}

// What the process's environment held of Google Benchmark's variables is
// taken out before its library reads it, and still read as ours.
TEST(EnvironmentFlags, TheVariablesAreTakenOutOfTheEnvironmentAndStillRead) {
  std::string filter = "BENCHMARK_FILTER=^global/", other = "PATH=/bin", v = "V=2", twice = "BENCHMARK_FILTER=later";
  std::string lower = "benchmark_filter=x", prefix = "BENCHMARK_FILTERS=y";
  char* environment[] = {filter.data(), other.data(), v.data(), twice.data(), lower.data(), prefix.data(), nullptr};
  take_benchmark_variables(environment);
  EXPECT_STREQ(environment[0], "PATH=/bin");
  EXPECT_STREQ(environment[1], "benchmark_filter=x");
  EXPECT_STREQ(environment[2], "BENCHMARK_FILTERS=y");
  EXPECT_EQ(environment[3], nullptr);  // a name given twice: both go, the first is read
  EXPECT_EQ(taken_benchmark_variable("BENCHMARK_FILTER"), "^global/");
  EXPECT_EQ(taken_benchmark_variable("V"), "2");
  EXPECT_FALSE(taken_benchmark_variable("BENCHMARK_OUT"));
  EXPECT_FALSE(taken_benchmark_variable("PATH"));
  take_benchmark_variables(nullptr);
}

}  // namespace
}  // namespace membench::cli
