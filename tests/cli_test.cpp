// The sweep-flag grammar of DESIGN.md, every valid and invalid form.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "cli.hpp"

namespace membench::cli {
namespace {

using Values = std::vector<std::int64_t>;

Values parse(const std::string& flag, const std::string& text) { return parse_list(*find_sweep_flag(flag), text); }

Options parse_args(std::vector<std::string> args) {
  args.insert(args.begin(), "membench");
  std::vector<const char*> argv;
  for (auto& a : args) argv.push_back(a.c_str());
  return parse_command_line(static_cast<int>(argv.size()), argv.data());
}

std::string refusal(const std::string& flag, const std::string& text) {
  try {
    parse(flag, text);
  } catch (const UsageError& e) {
    return e.what();
  }
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

TEST(Grammar, ListsKeepOrderAndDropDuplicates) {
  EXPECT_EQ(parse("stride", "4,1,2,1"), Values({4, 1, 2}));
}

TEST(Grammar, InclusiveRanges) {
  EXPECT_EQ(parse("stride", "1:32:*2"), Values({1, 2, 4, 8, 16, 32}));
  EXPECT_EQ(parse("n", "2^20:2^28:*4"), Values({1 << 20, 1 << 22, 1 << 24, 1 << 26, 1 << 28}));
  EXPECT_EQ(parse("stride", "1:4"), Values({1, 2, 3, 4}));
  EXPECT_EQ(parse("stride", "1:10:+4"), Values({1, 5, 9}));
  EXPECT_EQ(parse("stride", "3:3"), Values({3}));
  EXPECT_EQ(parse("n", "1K:4K:*2"), Values({1024, 2048, 4096}));
  EXPECT_EQ(parse("stride", "1:2,8:16:*2"), Values({1, 2, 8, 16}));
}

TEST(Grammar, ZeroAllowedOnlyWhereMeaningful) {
  EXPECT_EQ(parse("pad", "0,1"), Values({0, 1}));
  EXPECT_EQ(parse("flops", "0:64:+32"), Values({0, 32, 64}));
  EXPECT_NE(refusal("flops", "0:64:*4").find("start above zero"), std::string::npos);
}

TEST(Grammar, RefusesZeroAndNegative) {
  EXPECT_EQ(refusal("stride", "0"), "--stride=0: zero is not allowed (values must be >= 1)");
  EXPECT_NE(refusal("n", "-4").find("negative"), std::string::npos);
  EXPECT_NE(refusal("stride", "2,0").find("zero"), std::string::npos);
}

TEST(Grammar, RefusesGarbage) {
  for (const char* text : {"abc", "12x", "1.5", "2^", "^3", "1e6", "0x10", "K", " 1", "1,,2", ",1", "1,", "1:2:3:4",
                           "1:2:x2", "1:2:*", "1:2:+0", "1:2:*1", "4:1", "2^-1"}) {
    EXPECT_FALSE(refusal("n", text).empty()) << text;
  }
}

TEST(Grammar, RefusesEmptyList) { EXPECT_EQ(refusal("n", ""), "--n=: empty list"); }

TEST(Grammar, RefusesOverflow) {
  EXPECT_NE(refusal("n", "2^64").find("does not fit in 64 bits"), std::string::npos);
  EXPECT_NE(refusal("n", "99999999999999999999").find("does not fit"), std::string::npos);
  EXPECT_NE(refusal("n", "9223372036854775807K").find("does not fit"), std::string::npos);
  EXPECT_NE(refusal("n", "2^41").find("too large"), std::string::npos);  // past the flag's limit
}

TEST(Grammar, RefusesHugeExpansions) {
  EXPECT_NE(refusal("stride", "1:1000000").find("more than"), std::string::npos);
}

TEST(Grammar, RefusesValuesTheSuiteDoesNotBuild) {
  EXPECT_NE(refusal("pad", "3").find("one of 0,1,2,4,8,16,32"), std::string::npos);
  EXPECT_NE(refusal("width", "12").find("not supported"), std::string::npos);
  EXPECT_NE(refusal("stages", "5").find("not supported"), std::string::npos);
  EXPECT_NE(refusal("flops", "3").find("multiple of 2"), std::string::npos);
  EXPECT_NE(refusal("vec", "3").find("not supported"), std::string::npos);
}

TEST(CommandLine, SplitsOwnFlagsFromGoogleBenchmarks) {
  const Options o = parse_args({"--stride=1:4:*2", "--benchmark_filter=strided", "--n=2^10", "--device=0",
                                "--benchmark_out=x.json", "--l2_flush"});
  EXPECT_EQ(o.sweep.at("stride"), Values({1, 2, 4}));
  EXPECT_EQ(o.sweep.at("n"), Values({1024}));
  EXPECT_TRUE(o.l2_flush);
  EXPECT_EQ(o.device, 0);
  EXPECT_EQ(o.passthrough, std::vector<std::string>({"membench", "--benchmark_filter=strided", "--benchmark_out=x.json"}));
  EXPECT_EQ(o.values("stride", {9}), Values({1, 2, 4}));
  EXPECT_EQ(o.values("pad", {9}), Values({9}));
  EXPECT_FALSE(o.list_only);
  EXPECT_TRUE(parse_args({"--benchmark_list_tests"}).list_only);
  EXPECT_TRUE(parse_args({"--benchmark_list_tests=true"}).list_only);
}

TEST(CommandLine, RefusesUnknownAndMalformedFlags) {
  EXPECT_THROW(parse_args({"--strde=2"}), UsageError);
  EXPECT_THROW(parse_args({"--n"}), UsageError);
  EXPECT_THROW(parse_args({"stride=2"}), UsageError);
  EXPECT_THROW(parse_args({"-n=2"}), UsageError);
  EXPECT_THROW(parse_args({"--device=-1"}), UsageError);
  EXPECT_THROW(parse_args({"--device=0,1"}), UsageError);
  EXPECT_THROW(parse_args({"--l2_flush=maybe"}), UsageError);
  EXPECT_THROW(parse_args({"--sweep="}), UsageError);
  try {
    parse_args({"--bogus=1"});
    FAIL() << "--bogus=1 was accepted";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "unknown flag '--bogus=1' (see --help)");
  }
}

class SweepFile : public ::testing::Test {
 protected:
  std::string write(const std::string& text) {
    path_ = ::testing::TempDir() + "membench_sweep_" + std::to_string(counter_++) + ".json";
    std::ofstream(path_) << text;
    return path_;
  }
  void TearDown() override { std::remove(path_.c_str()); }
  std::string path_;
  static inline int counter_ = 0;
};

TEST_F(SweepFile, ReadsListsInEveryForm) {
  const std::string f = write(R"({"stride": "1:8:*2", "n": [1024, "2^12"], "pad": 1, "l2_flush": true})");
  const Options o = parse_args({"--sweep=" + f});
  EXPECT_EQ(o.sweep.at("stride"), Values({1, 2, 4, 8}));
  EXPECT_EQ(o.sweep.at("n"), Values({1024, 4096}));
  EXPECT_EQ(o.sweep.at("pad"), Values({1}));
  EXPECT_TRUE(o.l2_flush);
  EXPECT_EQ(o.sweep_file, f);
}

TEST_F(SweepFile, CommandLineWinsKeyByKey) {
  const std::string f = write(R"({"stride": "1:8:*2", "n": 4096})");
  const Options o = parse_args({"--stride=3", "--sweep=" + f});
  EXPECT_EQ(o.sweep.at("stride"), Values({3}));
  EXPECT_EQ(o.sweep.at("n"), Values({4096}));
}

TEST_F(SweepFile, RefusesBadFiles) {
  EXPECT_THROW(parse_args({"--sweep=/nonexistent/membench.json"}), UsageError);
  EXPECT_THROW(parse_args({"--sweep=" + write("{not json")}), UsageError);
  EXPECT_THROW(parse_args({"--sweep=" + write("[1, 2]")}), UsageError);
  EXPECT_THROW(parse_args({"--sweep=" + write(R"({"strde": 2})")}), UsageError);
  EXPECT_THROW(parse_args({"--sweep=" + write(R"({"stride": 0})")}), UsageError);
  EXPECT_THROW(parse_args({"--sweep=" + write(R"({"stride": 1.5})")}), UsageError);
  EXPECT_THROW(parse_args({"--sweep=" + write(R"({"stride": [[1]]})")}), UsageError);
  try {
    parse_args({"--sweep=" + write(R"({"stride": "0"})")});
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--sweep="), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("--stride=0"), std::string::npos);
  }
}

TEST(Usage, NamesEverySweepFlag) {
  const std::string text = usage();
  for (const auto& f : sweep_flags()) EXPECT_NE(text.find("--" + f.name + "=LIST"), std::string::npos) << f.name;
}

}  // namespace
}  // namespace membench::cli
