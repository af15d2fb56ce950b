// The run's context keys and its output file's lifecycle, on the CPU: what a
// result file says about where its numbers came from, and what --resume
// reads after a run killed outright.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "cli/files.hpp"
#include "cli/grammar.hpp"
#include "run/output_file.hpp"
#include "run/provenance.hpp"

namespace membench::run {
namespace {

std::map<std::string, std::string> as_map(const ContextKeys& keys) {
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : keys) {
    EXPECT_TRUE(out.emplace(key, value).second || key == "launcher_error") << key << " twice";
  }
  return out;
}

RunFacts facts() {
  RunFacts f;
  f.version = "9.9.9";
  f.identity.membench_build = "00ff00ff00ff00ff";
  f.identity.driver_version = "580.159.04";
  f.identity.cuda_driver_version = "13.0";
  f.device.ordinal = 0;
  f.device.name = "Test GPU";
  f.device.uuid = "GPU-1";
  f.device.cc_major = 9;
  f.device.sm_clock_khz = 1980000;
  f.device.runtime_version = 13000;
  f.health = "NVML: other processes, clock event reasons, ECC";
  f.sweep = "default";
  return f;
}

TEST(Provenance, TheContextNamesTheBuildTheGpuAndTheDriver) {
  const auto keys = as_map(context_keys(facts()));
  EXPECT_EQ(keys.at("membench_version"), "9.9.9");
  EXPECT_EQ(keys.at("membench_build"), "00ff00ff00ff00ff");
  EXPECT_EQ(keys.at("gpu_name"), "Test GPU");
  EXPECT_EQ(keys.at("compute_capability"), "9.0");
  EXPECT_EQ(keys.at("sm_clock_peak_mhz"), "1980");
  EXPECT_EQ(keys.at("driver_version"), "580.159.04");
  EXPECT_EQ(keys.at("cuda_driver_version"), "13.0");
  EXPECT_EQ(keys.at("runtime_version"), "13.0");
  EXPECT_EQ(keys.at("cuda_architectures"), "unknown");  // not given: never a guess
  EXPECT_EQ(keys.at("code_ran_as"), "unknown");
  RunFacts built = facts();
  built.cuda_architectures = "80-virtual";
  built.code_ran_as = "compute_80 PTX, JIT-compiled for sm_90";
  const auto named = as_map(context_keys(built));
  EXPECT_EQ(named.at("cuda_architectures"), "80-virtual");
  EXPECT_EQ(named.at("code_ran_as"), "compute_80 PTX, JIT-compiled for sm_90");
  EXPECT_EQ(keys.at("gpu_health"), "NVML: other processes, clock event reasons, ECC");
  EXPECT_EQ(keys.at("sweep"), "default");
  EXPECT_EQ(keys.count("devices"), 0u);  // one device: named by the gpu_* keys
  EXPECT_EQ(keys.count("resumed_from"), 0u);
  EXPECT_EQ(keys.count("rank"), 0u);
}

TEST(Provenance, AnUnknownDriverIsSaidSo) {
  RunFacts f = facts();
  f.identity.driver_version.clear();
  EXPECT_EQ(as_map(context_keys(f)).at("driver_version"), "unknown");
}

TEST(Provenance, SeveralDevicesAreListedInOrder) {
  RunFacts f = facts();
  DeviceInfo a = f.device, b = f.device;
  b.ordinal = 1;
  b.uuid = "GPU-2";
  f.run_devices = {a, b};
  const std::string devices = as_map(context_keys(f)).at("devices");
  EXPECT_NE(devices.find("\"uuid\":\"GPU-1\""), std::string::npos);
  EXPECT_LT(devices.find("GPU-1"), devices.find("GPU-2"));
}

TEST(Provenance, TheLauncherRankJobAndItsErrorsAreKept) {
  RunFacts f = facts();
  f.launcher.rank = 3;
  f.launcher.local_rank = 1;
  f.launcher.job_id = "12345";
  f.resumed_from = "run.json";
  const auto keys = as_map(context_keys(f));
  EXPECT_EQ(keys.at("rank"), "3");
  EXPECT_EQ(keys.at("local_rank"), "1");
  EXPECT_EQ(keys.at("job_id"), "12345");
  EXPECT_EQ(keys.at("resumed_from"), "run.json");
}

TEST(Provenance, EccKeysCarryTheirSuffixAndOnlyWhatTheGpuReports) {
  nvml::Ecc e;
  EXPECT_TRUE(ecc_keys(e, "_start").empty());
  e.uncorrected = 2;
  e.remap_failed = 0;
  const ContextKeys keys = ecc_keys(e, "_end");
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(keys[0], (std::pair<std::string, std::string>{"ecc_uncorrected_volatile_end", "2"}));
  EXPECT_EQ(keys[1].first, "row_remap_failed_end");
  RunFacts f = facts();
  f.ecc_start.corrected = 5;
  EXPECT_EQ(as_map(context_keys(f)).at("ecc_corrected_volatile_start"), "5");
}

class OutputFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("membench_output_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static void write(const std::string& p, const std::string& text) { std::ofstream(p) << text; }
  std::filesystem::path dir_;
};

TEST_F(OutputFile, ResumeReadsTheFileItselfFirst) {
  write(path("run.json"), "{whole");
  write(path("run.json.partial"), "{cut");
  const auto source = read_resume_source(path("run.json"));
  ASSERT_TRUE(source);
  EXPECT_EQ(source->path, path("run.json"));
  EXPECT_EQ(source->text, "{whole");
}

TEST_F(OutputFile, ResumeReadsAKilledRunsPartialFile) {
  write(path("run.json.partial"), "{cut");
  const auto source = read_resume_source(path("run.json"));
  ASSERT_TRUE(source);
  EXPECT_EQ(source->path, path("run.json.partial"));
  EXPECT_EQ(source->text, "{cut");
}

TEST_F(OutputFile, NeitherFileIsAFirstAttempt) { EXPECT_FALSE(read_resume_source(path("run.json"))); }

TEST_F(OutputFile, AFolderIsNotAResumeFile) {
  std::filesystem::create_directories(path("run.json"));
  EXPECT_THROW(read_resume_source(path("run.json")), cli::UsageError);
}

TEST_F(OutputFile, AWritableOutputLeavesNoFileBehindAndAMissingFolderIsRefused) {
  cli::check_output_file("--benchmark_out", path("out.json"));
  EXPECT_FALSE(std::filesystem::exists(path("out.json")));
  write(path("kept.json"), "old");
  cli::check_output_file("--benchmark_out", path("kept.json"));
  std::ifstream kept(path("kept.json"));
  std::string text;
  kept >> text;
  EXPECT_EQ(text, "old");  // an existing file is not truncated
  EXPECT_THROW(cli::check_output_file("--benchmark_out", path("no/such/folder/out.json")), cli::UsageError);
}

// A FIFO would block the opening (until a reader or writer comes), a device
// would be renamed over at the end: both refused before anything opens them.
TEST_F(OutputFile, SpecialFilesAreRefusedWithoutBlocking) {
  const std::string fifo = path("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const auto refusal = [](auto&& call) -> std::string {
    try {
      call();
    } catch (const cli::UsageError& e) { return e.what(); }
    return "accepted";
  };
  EXPECT_EQ(refusal([&] { cli::check_output_file("--check_metrics", fifo); }),
            "--check_metrics=" + fifo + ": not a regular file");
  EXPECT_EQ(refusal([&] { cli::read_text_file("--check", fifo, 100); }), "--check=" + fifo + ": not a regular file");
  EXPECT_EQ(refusal([&] { read_resume_source(fifo); }), "--resume=" + fifo + ": not a regular file");
  EXPECT_EQ(refusal([&] { cli::read_text_file("--check", "/dev/zero", 100); }),
            "--check=/dev/zero: not a regular file");
  EXPECT_EQ(refusal([&] { cli::check_output_file("--benchmark_out", "/dev/null"); }),
            "--benchmark_out=/dev/null: not a regular file");
}

TEST_F(OutputFile, AnInputIsReadUpToItsLimitAndMustBeText) {
  write(path("ten.json"), "0123456789");
  EXPECT_EQ(cli::read_text_file("--sweep", path("ten.json"), 10), "0123456789");
  EXPECT_THROW(cli::read_text_file("--sweep", path("ten.json"), 9), cli::UsageError);
  EXPECT_FALSE(cli::read_text_file("--sweep", path("none.json"), 9));
  EXPECT_THROW(cli::read_required_text_file("--sweep", path("none.json"), 9), cli::UsageError);
  write(path("nul.json"), std::string("{}\0\0", 4));
  try {
    cli::read_text_file("--sweep", path("nul.json"), 100);
    ADD_FAILURE() << "a NUL byte was read as text";
  } catch (const cli::UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "--sweep=" + path("nul.json") + ": holds a NUL byte: not a text file");
  }
}

TEST(JsonDepth, CountsNestingOutsideStrings) {
  EXPECT_EQ(cli::json_depth("{}"), 1u);
  EXPECT_EQ(cli::json_depth(R"({"a": [[1], {"b": "[[[["}]})"), 3u);
  EXPECT_EQ(cli::json_depth(R"("\"[[")"), 0u);
  EXPECT_EQ(cli::json_depth(std::string(1000, '[')), 1000u);
}

TEST_F(OutputFile, TheEndRenamesThePartialFile) {
  write(partial_path(path("run.json")), "{}");
  finish_output(path("run.json"));
  EXPECT_TRUE(std::filesystem::exists(path("run.json")));
  EXPECT_FALSE(std::filesystem::exists(path("run.json.partial")));
}

}  // namespace
}  // namespace membench::run
