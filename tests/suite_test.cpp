// The membench binary as a user meets it: registration, the exit-status
// contract, refusals, the sweep files, the no-GPU stop, and (on a GPU) a JSON
// run with its context, per-launch iterations and counters.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "gpu.hpp"
#include "json_run.hpp"
#include "membench/async.hpp"
#include "membench/global.hpp"
#include "membench/layout.hpp"
#include "membench/shared.hpp"
#include "process.hpp"
#include "run/check.hpp"

namespace membench {
namespace {

using test::Outcome;
using test::run;
using test::run_command;

std::string temp_path(const std::string& name) { return ::testing::TempDir() + name; }

template <class Names>
void expect_variants(const std::string& output, const std::string& family, const Names& names) {
  for (auto v : names.all()) {
    const std::string prefix = family + "/" + std::string(names(v)) + "/";
    EXPECT_NE(output.find(prefix), std::string::npos) << prefix << " is not registered";
  }
}

TEST(Suite, ListsEveryFamilyAndVariantWithoutAGpu) {
  const Outcome r = run("--benchmark_list_tests");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_variants(r.output, "global", kGlobalVariants);
  expect_variants(r.output, "layout", kLayoutVariants);
  expect_variants(r.output, "shared", kSharedVariants);
  expect_variants(r.output, "async", kAsyncVariants);
  for (const char* name :
       {"global/strided/n:16777216/stride:32/manual_time", "global/strided_full_grid/n:16777216/stride:2/manual_time",
        "shared/column/side:4096/pad:1/manual_time",
        "global/vectorized/n:16777216/vec:4/ilp:1/persistent:0/manual_time",
        "async/pipeline/n:67108864/tile:1024/stages:3/flops:64/persistent:1/manual_time"})
    EXPECT_NE(r.output.find(std::string(name) + "\n"), std::string::npos) << name;
}

TEST(Suite, TheFilterSeesTheNamesGoogleBenchmarkGives) {
  // Counted by membench before Google Benchmark runs: the names must be the same, /manual_time included.
  const Outcome all = run("--benchmark_list_tests");
  const Outcome suffix = run("'--benchmark_filter=manual_time$' --benchmark_list_tests");
  ASSERT_EQ(suffix.exit_code, 0) << suffix.output;
  EXPECT_EQ(suffix.output, all.output);
  const Outcome one =
      run("'--benchmark_filter=^global/strided/n:16777216/stride:2/manual_time$' --benchmark_list_tests");
  EXPECT_EQ(one.output, "global/strided/n:16777216/stride:2/manual_time\n");
}

TEST(Suite, StrideSweepGivesSixCasesPerN) {
  const Outcome r = run("--stride=1:32:*2 --n=2^20,2^24 --benchmark_filter=global/strided/ --benchmark_list_tests");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.lines(), 12) << r.output;
  EXPECT_NE(r.output.find("global/strided/n:1048576/stride:16/manual_time"), std::string::npos) << r.output;
}

TEST(Suite, FamilyScopedAxisAndColdCases) {
  const Outcome r =
      run("--n=2^20 --shared.side=2K --l2=both --benchmark_filter='^(shared/row|global/coalesced)/' "
          "--benchmark_list_tests");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output,
            "global/coalesced/n:1048576/manual_time\n"
            "global/coalesced/l2:cold/n:1048576/manual_time\n"
            "shared/row/side:2048/manual_time\n"
            "shared/row/l2:cold/side:2048/manual_time\n");
}

TEST(Suite, SweepFileAndCommandLine) {
  const std::string file = temp_path("SweepFileAndCommandLine.sweep.json");
  std::ofstream(file) << R"({"stride": "1:4:*2", "n": "2^20", "benchmark_filter": "global/strided/"})";
  Outcome r = run("--sweep=" + file + " --benchmark_list_tests");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.lines(), 3) << r.output;
  r = run("--sweep=" + file + " --stride=7 --benchmark_list_tests");
  EXPECT_EQ(r.output, "global/strided/n:1048576/stride:7/manual_time\n");
  std::remove(file.c_str());
}

// The committed sweep files, case by case.
std::string listed(const std::string& sweep) {
  const Outcome r = run("--sweep='" MEMBENCH_SOURCE_DIR "/sweeps/" + sweep + "' --benchmark_list_tests");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return r.output;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Whether a listing is the golden one, case by case (in order, or as sets):
// a golden name written before an axis was added names the case at the
// axis's value before, so a golden list outlives an axis added later.
::testing::AssertionResult lists_the_cases(const std::string& listing, const std::string& golden,
                                           bool in_order = true) {
  std::vector<std::string> got = lines_of(listing), want = lines_of(golden);
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << got.size() << " cases listed, " << want.size() << " golden:\n" << listing;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const auto it = in_order ? got.begin() + static_cast<std::ptrdiff_t>(i)
                             : std::find_if(got.begin(), got.end(),
                                            [&](const std::string& g) { return run::names_case(want[i], g); });
    if (it == got.end() || !run::names_case(want[i], *it))
      return ::testing::AssertionFailure()
             << "golden " << want[i] << " is not listed" << (in_order ? " there" : "") << ":\n"
             << listing;
    if (!in_order) got.erase(it);
  }
  return ::testing::AssertionSuccess();
}

// The article's cases at its sizes, and every claim it makes beside them:
// strides through each read path, misaligned starts, the broadcasts, random
// access, padding by tile, constant and local memory.
TEST(SweepFiles, SeedIsTheArticlesCasesAtItsSizesAndItsClaims) {
  std::map<std::string, int> by_variant;
  std::set<std::string> names;
  std::istringstream lines(listed("seed.json"));
  for (std::string line; std::getline(lines, line);) {
    names.insert(line);
    const auto second = line.find('/', line.find('/') + 1);
    ++by_variant[line.substr(0, second)];
  }
  for (const char* article :
       {"async/sync/n:67108864/tile:1024/flops:0/persistent:1/manual_time",
        "async/memcpy_async/n:67108864/tile:1024/flops:0/persistent:1/manual_time",
        "async/pipeline/n:67108864/tile:1024/stages:1/flops:0/persistent:1/manual_time",
        "async/pipeline/n:67108864/tile:1024/stages:3/flops:0/persistent:1/manual_time",
        "global/coalesced/n:16777216/manual_time", "global/strided/n:16777216/stride:1/manual_time",
        "global/strided/n:16777216/stride:2/manual_time", "global/strided_full_grid/n:16777216/stride:1/manual_time",
        "global/strided_full_grid/n:16777216/stride:2/manual_time", "layout/aos/structs:16777216/fields:4/manual_time",
        "layout/aos/structs:16777216/fields:1/manual_time", "layout/soa/structs:16777216/fields:4/manual_time",
        "layout/soa/structs:16777216/fields:1/manual_time", "shared/row/side:4096/manual_time",
        "shared/column/side:4096/pad:0/manual_time", "shared/column/side:4096/pad:1/manual_time",
        "shared/swizzle/side:4096/manual_time"})
    EXPECT_EQ(
        std::count_if(names.begin(), names.end(), [&](const std::string& n) { return run::names_case(article, n); }), 1)
        << article;
  const std::map<std::string, int> claims = {
      {"global/strided", 6},         {"global/strided_readonly", 6}, {"global/strided_texture", 6},
      {"global/misaligned", 11},     {"global/broadcast", 1},        {"shared/conflict_degree", 5 * 2},
      {"shared/column_tile", 3 * 4}, {"indirect/gather", 4},         {"indirect/scatter", 4},
      {"indirect/lookup", 3},        {"constant/constant", 3 * 6},   {"constant/global", 3 * 6},
      {"local/dynamic", 6},          {"local/unrolled", 6},          {"local/shared", 6}};
  for (const auto& [variant, count] : claims) EXPECT_EQ(by_variant[variant], count) << variant;
  EXPECT_EQ(names.size(), 138u);
}

TEST(SweepFiles, EnergyIsEachLevelOnceWithTheEnergyCounterOn) {
  EXPECT_TRUE(
      lists_the_cases(listed("energy.json"),
                      "hierarchy/bandwidth/working_set:65536/width:16/persistent:1/through_l1:1/manual_time\n"
                      "hierarchy/bandwidth/working_set:16777216/width:16/persistent:1/through_l1:1/manual_time\n"
                      "hierarchy/bandwidth/working_set:1073741824/width:16/persistent:1/through_l1:1/manual_time\n"
                      "shared/conflict_degree/shared_stride:1/width:16/manual_time\n"
                      "stream/read/type:float/elements:134217728/block:256/manual_time\n"
                      "stream/copy/type:float/elements:134217728/block:256/manual_time\n"
                      "transfer/host_to_device_memcpy_ce/host:pinned/bytes:67108864/remote_node:0/manual_time\n"
                      "transfer/device_to_host_memcpy_ce/host:pinned/bytes:67108864/remote_node:0/manual_time\n"));
  std::ifstream file(MEMBENCH_SOURCE_DIR "/sweeps/energy.json");
  EXPECT_EQ(nlohmann::json::parse(file).at("energy"), true);
}

// The host copies and the chase with the host memory on the GPU's own NUMA
// node and on the nearest other, each beside the other.
TEST(SweepFiles, NumaIsEveryTransferCaseOnBothNodes) {
  std::istringstream lines(listed("numa.json"));
  std::map<std::string, int> by_node;
  int count = 0;
  for (std::string line; std::getline(lines, line); ++count) {
    EXPECT_EQ(line.rfind("transfer/", 0), 0u) << line;
    EXPECT_EQ(line.find("pageable"), std::string::npos) << line;
    ++by_node[line.substr(line.find("/remote_node:") + 1, std::string("remote_node:0").size())];
  }
  EXPECT_EQ(count, 14);  // six copies and the chase, on each node
  EXPECT_EQ(by_node, (std::map<std::string, int>{{"remote_node:0", 7}, {"remote_node:1", 7}}));
}

// Every peer case at every step a node of eight GPUs has, on every GPU
// (--device=all): each GPU reaches every other, the pair matrix.
TEST(SweepFiles, PairsIsEveryPeerCaseAtEveryStepOfEightGpus) {
  std::string expected;
  for (const char* v : {"device_to_device_memcpy_read_ce", "device_to_device_memcpy_write_ce",
                        "device_to_device_bidirectional_memcpy_ce"})
    for (int step = 1; step < 8; ++step)
      expected += std::string("peer/") + v + "/peer_access:1/bytes:536870912/peer_step:" + std::to_string(step) +
                  "/manual_time\n";
  for (const char* v : {"device_to_device_memcpy_read_sm", "device_to_device_memcpy_write_sm",
                        "device_to_device_bidirectional_memcpy_sm"})
    for (int step = 1; step < 8; ++step)
      expected +=
          std::string("peer/") + v + "/bytes:536870912/passes:1/peer_step:" + std::to_string(step) + "/manual_time\n";
  for (int step = 1; step < 8; ++step)
    expected +=
        "peer/device_to_device_latency_sm/working_set:2097152/chase_stride:128/peer_step:" + std::to_string(step) +
        "/manual_time\n";
  EXPECT_TRUE(lists_the_cases(listed("pairs.json"), expected));
  std::ifstream file(MEMBENCH_SOURCE_DIR "/sweeps/pairs.json");
  EXPECT_EQ(nlohmann::json::parse(file).at("device"), "all");
}

TEST(SweepFiles, NodeIsEveryNodeCaseAndThePeerChaseByWorkingSet) {
  std::string expected;
  for (const char* v : {"all_to_host_memcpy_ce", "host_to_all_memcpy_ce", "all_to_all_memcpy_write_ce",
                        "all_to_host_memcpy_sm", "host_to_all_memcpy_sm", "all_to_all_memcpy_write_sm"})
    expected += std::string("node/") + v + "/bytes:536870912/manual_time\n";
  for (const char* ws : {"4096", "65536", "2097152", "33554432", "268435456", "4294967296"})
    expected += std::string("peer/device_to_device_latency_sm/working_set:") + ws +
                "/chase_stride:128/peer_step:1/manual_time\n";
  // Families list in the order they register, which the linker decides: compared as sets.
  EXPECT_TRUE(lists_the_cases(listed("node.json"), expected, false));
}

TEST(SweepFiles, TheNewFamiliesSweepEveryAxisTheirTablesUse) {
  auto count = [](const std::string& file, const std::string& family) {
    std::istringstream lines(listed(file));
    int n = 0;
    for (std::string line; std::getline(lines, line);) {
      EXPECT_EQ(line.rfind(family, 0), 0u) << file << ": " << line;
      ++n;
    }
    return n;
  };
  EXPECT_EQ(count("atomics.json", "atomics/"), 2 * 4 * 2 * 4);    // variant x word x space x sharing
  EXPECT_EQ(count("managed.json", "managed/"), (5 + 2 * 3) * 4);  // five variants, two with three touches, x 4 sizes
  EXPECT_EQ(count("l2persist.json", "l2persist/"), 3 * 3 * 4);
  EXPECT_EQ(count("host_latency.json", "transfer/"), 6 + 1);  // six working sets and the SM copy beside them
}

TEST(SweepFiles, LimitsHasEachFamilysBestBesideWhatItIsComparedWith) {
  std::map<std::string, int> by_family;
  std::istringstream lines(listed("limits.json"));
  for (std::string line; std::getline(lines, line);) ++by_family[line.substr(0, line.find('/'))];
  // async: sync and memcpy_async x 3 tiles, three staged variants x 3 tiles x 3 stage counts, on both grids
  EXPECT_EQ(by_family["async"], (2 * 3 + 3 * 3 * 3) * 2);
  EXPECT_EQ(by_family["hierarchy"], 11 * 3 * 2 * 2);  // working sets x load widths x grids x through the L1 or past it
  EXPECT_EQ(by_family["transfer"], 2 * 3 * 2);        // directions x sizes x passes
  EXPECT_EQ(by_family["dsmem"], 2 * 3);               // local and remote x cluster sizes
  EXPECT_EQ(by_family["stream"] + by_family["global"] + by_family["shared"], 2 + 1 + 1);
  EXPECT_EQ(by_family.size(), 7u);
}

TEST(SweepFiles, CiIsASmallSetOfEveryFamily) {
  EXPECT_TRUE(lists_the_cases(
      listed("ci.json"),
      "async/sync/n:67108864/tile:1024/flops:0/persistent:1/manual_time\n"
      "async/sync/n:67108864/tile:1024/flops:64/persistent:1/manual_time\n"
      "async/pipeline/n:67108864/tile:1024/stages:2/flops:0/persistent:1/manual_time\n"
      "async/pipeline/n:67108864/tile:1024/stages:2/flops:64/persistent:1/manual_time\n"
      "async/bulk/n:67108864/tile:1024/stages:2/flops:0/persistent:1/manual_time\n"
      "async/bulk/n:67108864/tile:1024/stages:2/flops:64/persistent:1/manual_time\n"
      "async/tma/n:67108864/tile:1024/stages:2/flops:0/persistent:1/manual_time\n"
      "async/tma/n:67108864/tile:1024/stages:2/flops:64/persistent:1/manual_time\n"
      "atomics/red/word:u32/space:global/shared_by:grid/updates:16/manual_time\n"
      "atomics/red/word:u32/space:global/shared_by:thread/updates:16/manual_time\n"
      "constant/constant/words:256/addresses:1/rounds:1024/manual_time\n"
      "constant/constant/words:256/addresses:32/rounds:1024/manual_time\n"
      "constant/global/words:256/addresses:1/rounds:1024/manual_time\n"
      "constant/global/words:256/addresses:32/rounds:1024/manual_time\n"
      "dsmem/read_remote/cluster:2/manual_time\n"
      "dsmem/chase_remote/cluster:2/manual_time\n"
      "global/coalesced/n:67108864/manual_time\n"
      "global/strided/n:67108864/stride:2/manual_time\n"
      "global/strided/n:67108864/stride:16/manual_time\n"
      "global/strided_full_grid/n:67108864/stride:2/manual_time\n"
      "global/strided_full_grid/n:67108864/stride:16/manual_time\n"
      "global/vectorized/n:67108864/vec:4/ilp:1/persistent:0/manual_time\n"
      "global/memcpy/n:67108864/manual_time\n"
      "global/broadcast/n:67108864/manual_time\n"
      "global/misaligned/n:67108864/offset:0/manual_time\n"
      "global/misaligned/n:67108864/offset:1/manual_time\n"
      "global/strided_readonly/n:67108864/stride:2/manual_time\n"
      "global/strided_readonly/n:67108864/stride:16/manual_time\n"
      "global/strided_texture/n:67108864/stride:2/manual_time\n"
      "global/strided_texture/n:67108864/stride:16/manual_time\n"
      "hierarchy/bandwidth/working_set:1048576/width:16/persistent:1/through_l1:1/manual_time\n"
      "hierarchy/bandwidth/working_set:1073741824/width:16/persistent:1/through_l1:1/manual_time\n"
      "hierarchy/latency/working_set:1048576/chase_stride:128/manual_time\n"
      "hierarchy/latency/working_set:1073741824/chase_stride:128/manual_time\n"
      "indirect/gather/entries:16777216/window:1/manual_time\n"
      "indirect/gather/entries:16777216/window:16777216/manual_time\n"
      "indirect/scatter/entries:16777216/window:1/manual_time\n"
      "indirect/scatter/entries:16777216/window:16777216/manual_time\n"
      "l2persist/hot_cold/hot_bytes:16777216/hit_ratio:0/set_aside:50/manual_time\n"
      "l2persist/hot_cold/hot_bytes:16777216/hit_ratio:100/set_aside:50/manual_time\n"
      "layout/aos/structs:16777216/fields:4/manual_time\n"
      "layout/aos/structs:16777216/fields:1/manual_time\n"
      "layout/soa/structs:16777216/fields:4/manual_time\n"
      "layout/soa/structs:16777216/fields:1/manual_time\n"
      "local/dynamic/array:8/rounds:1024/manual_time\n"
      "local/dynamic/array:64/rounds:1024/manual_time\n"
      "local/unrolled/array:8/rounds:1024/manual_time\n"
      "local/unrolled/array:64/rounds:1024/manual_time\n"
      "managed/resident/bytes:33554432/manual_time\n"
      "managed/remote/bytes:33554432/manual_time\n"
      "shared/row/side:4096/manual_time\n"
      "shared/column/side:4096/pad:0/manual_time\n"
      "shared/column/side:4096/pad:1/manual_time\n"
      "shared/column_tile/side:4096/tile_side:16/pad:0/manual_time\n"
      "shared/column_tile/side:4096/tile_side:16/pad:1/manual_time\n"
      "shared/swizzle/side:4096/manual_time\n"
      "shared/conflict_degree/shared_stride:1/width:4/manual_time\n"
      "shared/conflict_degree/shared_stride:2/width:4/manual_time\n"
      "shared/conflict_degree/shared_stride:32/width:4/manual_time\n"
      "shared/conflict_degree/shared_stride:33/width:4/manual_time\n"
      "stream/triad/type:float/elements:67108864/block:256/manual_time\n"
      "transfer/host_to_device_memcpy_ce/host:pinned/bytes:67108864/remote_node:0/manual_time\n"
      "transfer/device_to_host_memcpy_ce/host:pinned/bytes:67108864/remote_node:0/manual_time\n"
      "transfer/host_to_device_memcpy_sm/bytes:67108864/passes:1/remote_node:0/manual_time\n"
      "transfer/device_to_host_memcpy_sm/bytes:67108864/passes:1/remote_node:0/manual_time\n"
      "transfer/host_device_latency_sm/working_set:1048576/chase_stride:128/remote_node:0/manual_time\n"
      "transfer/host_device_latency_sm/working_set:1073741824/chase_stride:128/remote_node:0/manual_time\n"));
}

TEST(ExitStatus, UsageErrorsAreOneLineAndExitCode2) {
  const std::string dup = temp_path("duplicate.sweep.json");
  std::ofstream(dup) << R"({"stride": 1, "stride": 2})";
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"--stride=0", "--stride=0: zero is not allowed (values must be >= 1)"},
      {"--n=abc", "--n=abc: 'abc' is not a number"},
      {"--n=", "--n=: empty list"},
      {"--bogus=1", "unknown flag '--bogus=1' (see --help)"},
      {"--n=2^64", "--n=2^64: exponent in '2^64' is too large (at most 63)"},
      {"--n=3^40", "--n=3^40: value does not fit in 64 bits"},
      {"--stride=-1", "--stride=-1: a negative value is not allowed (values must be >= 1)"},
      {"--n=1:0", "--n=1:0: range '1:0' is empty (start > end)"},
      {"--pad=3", "--pad=3: 3 is not supported (one of 0,1,2,4,8,16,32)"},
      {"--width=2", "--width=2: 2 is not supported (one of 4,8,16)"},
      {"--stages=5", "--stages=5: 5 is not supported (one of 1,2,3,4,6,8)"},
      {"--flops=7", "--flops=7: 7 must be a multiple of 2"},
      {"--device=x", "--device=x: 'x' is not a number"},
      {"stray", "unexpected argument 'stray' (flags look like --name=value)"},
      {"--sweep=/nonexistent.json", "--sweep=/nonexistent.json: no such file"},
      {"--sweep=/tmp", "--sweep=/tmp: not a regular file"},
      {"--sweep=" + dup, "--sweep=" + dup + ": 'stride' is given twice"},
      {"--benchmark_nonsense=1", "--benchmark_nonsense: not a Google Benchmark flag this build knows (see --help)"},
      {"--benchmark_format=xml", "--benchmark_format=xml: expects one of console, json, csv"},
      {"--benchmark_out_format=yaml", "--benchmark_out_format=yaml: expects one of console, json, csv"},
      {"--benchmark_filter=no_case_has_this_name",
       "--benchmark_filter=no_case_has_this_name matches no case (see --benchmark_list_tests)"},
      {"--benchmark_min_time=soon", "--benchmark_min_time=soon: 'soon' is not a number"},
      {"--benchmark_repetitions=0", "--benchmark_repetitions=0: must be within 1..2147483647"},
      {"--global.pad=1", "unknown flag '--global.pad' (no family 'global' with an axis 'pad')"},
      {"--l2=tepid", "--l2=tepid: expects warm, cold or both"},
  };
  for (const auto& [args, message] : refused) {
    const Outcome r = run("'" + args + "'");  // one word, whatever the shell makes of it
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
    EXPECT_EQ(r.output, "membench: " + message + "\n") << args;
  }
  // The regular expression library words its own part.
  const Outcome bad_regex = run("'--benchmark_filter=('");
  EXPECT_EQ(bad_regex.exit_code, 2);
  EXPECT_EQ(bad_regex.lines(), 1);
  EXPECT_EQ(bad_regex.output.rfind("membench: --benchmark_filter=(: not a valid regular expression (", 0), 0u);
  std::remove(dup.c_str());
}

// Inputs that crashed, hung or printed several lines: one line each, exit 2,
// values escaped and cut, before any GPU is looked for.
TEST(ExitStatus, HostileInputIsOneLineAndExitCode2) {
  const std::string big = temp_path("big.sweep.json");
  std::ofstream(big) << "{\"n\": \"" << std::string(2 << 20, '1') << "\"}";
  const std::string garbage = temp_path("garbage.resume.json");
  std::ofstream(garbage) << "not json at all";
  // FILE not there, FILE.partial (a killed run's) is: that is what --resume reads, and checks before the GPU.
  const std::string killed = temp_path("killed.resume.json");
  std::remove(killed.c_str());
  std::ofstream(killed + ".partial") << "not json either";
  const std::string other = temp_path("other.resume.json");
  std::ofstream(other) << R"({"context": {"executable": "./bm"}, "benchmarks": [{"name": "BM_memcpy/8"}]})";
  const std::string typed = temp_path("typed.resume.json");
  std::ofstream(typed) << R"({"context": {"membench_version": "x"}, "benchmarks": [{"name": "a/manual_time",)"
                       << R"("error_occurred": "yes"}]})";
  const std::string nul = temp_path("nul.sweep.json");
  std::ofstream(nul) << std::string("{\"n\": 1024}\0\0\0", 14);
  // A FIFO no process writes or reads: opening it the usual way would wait for ever.
  const std::string fifo = temp_path(".fifo");
  std::remove(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const std::vector<std::tuple<std::string, std::string, std::string>> refused = {
      {"'--benchmark_filter=" + std::string(120000, 'a') + "'", "", "characters; a filter is at most 4096"},
      {"\"--stride=$(printf '1\\n2')\"", "", "--stride=1\\n2: "},
      {"--sweep=" + big, "", "bytes; this file is read up to 1048576 bytes"},
      {"", "BENCHMARK_FORMAT=xml", "environment BENCHMARK_FORMAT=xml (as --benchmark_format): expects one of"},
      {"", "BENCHMARK_OUT_FORMAT=yaml", "environment BENCHMARK_OUT_FORMAT=yaml (as --benchmark_out_format)"},
      {"", "BENCHMARK_TIME_UNIT=min", "environment BENCHMARK_TIME_UNIT=min (as --benchmark_time_unit)"},
      {"--resume=" + garbage, "", "not a JSON object: not a membench file"},
      {"--resume=" + other, "", "not a membench result (its context has no membench_version)"},
      {"--resume=" + killed, "", "--resume=" + killed + ".partial: not a JSON object"},
      {"--resume=" + typed, "", "entry a/manual_time: \"error_occurred\" is \"yes\", expected true or false"},
      {"--sweep=" + nul, "", "holds a NUL byte: not a text file"},
      {"--check=/dev/zero", "", "--check=/dev/zero: not a regular file"},
      {"--check=" + fifo, "", "--check=" + fifo + ": not a regular file"},
      {"--check --check_metrics=" + fifo, "", "--check_metrics=" + fifo + ": not a regular file"},
      {"--benchmark_out=" + fifo, "", "--benchmark_out=" + fifo + ": not a regular file"},
      {"", "BENCHMARK_OUT=" + fifo, "--benchmark_out=" + fifo + ": not a regular file"},
      {"--sweep=" + fifo, "", "--sweep=" + fifo + ": not a regular file"},
      {"--resume=" + fifo, "", "--resume=" + fifo + ": not a regular file"},
      {"--check --judge=" + fifo, "", "--judge=" + fifo + ": not a regular file"},
      {"'--n=-2^20'", "", "--n=-2^20: a negative value is not allowed"},
      {"'--max_noise= 1'", "", "--max_noise= 1: ' 1' is not a number"},
      {"--max_time=0x10", "", "--max_time=0x10: '0x10' is not a number"},
      {"--throttle=nan", "", "--throttle=nan: 'nan' is not a number"},
      {"--help=maybe", "", "--help=maybe: expects true or false"},
      {"--benchmark_perf_counters=garbage", "", "host CPU counters around its launches are not measured"},
      // Google Benchmark's own warning, printed as its library initialises, no longer comes first.
      {"", "BENCHMARK_REPETITIONS=abc", "environment BENCHMARK_REPETITIONS=abc (as --benchmark_repetitions)"},
      {"", "BENCHMARK_REPETITIONS=2^9999", "exponent in '2^9999' is too large"},
      {"", "BENCHMARK_MIN_TIME=abc", "environment BENCHMARK_MIN_TIME=abc (as --benchmark_min_time)"},
      {"", "BENCHMARK_CONTEXT=novalue", "expects KEY=VALUE[,KEY=VALUE...]"},
      {"", "V=abc", "environment V=abc (as --v)"},
  };
  for (const auto& [args, env, message] : refused) {
    const Outcome r = run_command(env + " timeout -s KILL 30 '" MEMBENCH_EXE "' " + args);
    EXPECT_EQ(r.exit_code, 2) << env << " " << args.substr(0, 80) << ": " << r.output.substr(0, 300);
    EXPECT_EQ(r.lines(), 1) << r.output.substr(0, 300);
    EXPECT_LT(r.output.size(), 600u);
    EXPECT_NE(r.output.find(message), std::string::npos) << r.output.substr(0, 300);
  }
  for (const auto& path : {big, garbage, other, killed + ".partial", typed, nul, fifo}) std::remove(path.c_str());
}

// Filters a backtracking engine takes minutes or more over (nested and
// stacked repetitions that fail at the end), as the flag, the environment
// variable and a sweep file's key, with each listing: RE2 answers at once,
// and a pattern that matches nothing is the usual one line and exit 2.
TEST(ExitStatus, NoFilterHangsTheBinary) {
  const std::string sweep = temp_path("filter.sweep.json");
  for (const std::string& pattern : std::vector<std::string>{"(.|.)*Q", "(.|..)*Q", ".*.*.*.*.*.*.*.*.*.*Q",
                                                             "(.*)(.*)(.*)(.*)(.*)(.*)(.*)Q", "(.*)*X", "(a+)+Q"}) {
    std::ofstream(sweep) << nlohmann::json{{"benchmark_filter", pattern}}.dump();
    for (const auto& [args, env] : std::vector<std::pair<std::string, std::string>>{
             {"'--benchmark_filter=" + pattern + "'", ""},
             {"'--benchmark_filter=" + pattern + "' --benchmark_list_tests", ""},
             {"'--benchmark_filter=" + pattern + "' --list_cases=json", ""},
             {"--benchmark_list_tests", "BENCHMARK_FILTER='" + pattern + "'"},
             {"--sweep=" + sweep + " --list_cases=json", ""}}) {
      const Outcome r = run_command(env + " timeout -s KILL 30 '" MEMBENCH_EXE "' " + args);
      EXPECT_EQ(r.exit_code, 2) << env << " " << args << ": " << r.output;
      EXPECT_EQ(r.lines(), 1) << r.output;
      EXPECT_NE(r.output.find("matches no case"), std::string::npos) << r.output;
    }
  }
  // One that matches every long name lists them, at once.
  const Outcome listed =
      run_command("timeout -s KILL 30 '" MEMBENCH_EXE "' '--benchmark_filter=(.?){80}.{80}' --benchmark_list_tests");
  EXPECT_EQ(listed.exit_code, 0) << listed.output.substr(0, 300);
  EXPECT_GT(listed.lines(), 10);
  std::remove(sweep.c_str());
}

TEST(ExitStatus, VersionIsOneLineWithTheBuildAndTheSchema) {
  const Outcome r = run("--version");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.lines(), 1) << r.output;
  EXPECT_EQ(r.output.rfind("membench ", 0), 0u) << r.output;
  EXPECT_NE(r.output.find(", result schema 4, Google Benchmark 1."), std::string::npos) << r.output;
  EXPECT_EQ(run("--version=maybe").exit_code, 2);
}

TEST(ExitStatus, HelpNamesTheContractAndExits0) {
  const Outcome r = run("--help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("Exit status: 0 every selected case ran and verified"), std::string::npos);
  EXPECT_NE(r.output.find("--benchmark_filter"), std::string::npos);  // Google Benchmark's own help follows
}

TEST(ExitStatus, WithoutAGpuStopsWithOneLineAndExitCode1) {
  if (test::gpu_available()) GTEST_SKIP() << "a GPU is visible; this checks the no-GPU path";
  const Outcome r = run("--benchmark_filter=global/coalesced");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(r.lines(), 1) << r.output;
  EXPECT_NE(r.output.find("no CUDA device visible"), std::string::npos) << r.output;
}

using test::run_json;
using test::run_ok;

TEST(Suite, GpuRunWritesContextAndPerLaunchCounters) {
  MEMBENCH_REQUIRE_GPU();
  nlohmann::json doc;
  ASSERT_NO_FATAL_FAILURE(run_ok("--n=100003 --stride=1,2 --benchmark_filter='^global/(coalesced|strided)/'", 3, &doc));
  const auto& context = doc.at("context");
  for (const char* key : {"gpu_name", "compute_capability", "sm_count", "l2_bytes", "dram_peak_bytes_per_second",
                          "driver_version", "runtime_version", "membench_version", "sweep"})
    EXPECT_TRUE(context.contains(key)) << key;
  EXPECT_NE(context.at("sweep").get<std::string>().find("\"stride\":[1,2]"), std::string::npos);
  const auto& cases = doc.at("benchmarks");
  for (const auto& c : cases) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    for (const char* key : {"bytes_per_second", "pct_of_peak", "sm_clock_mhz", "noise_pct", "blocks_per_sm",
                            "registers", "grid", "dram_read_bytes", "dram_write_bytes", "sectors_per_request"})
      EXPECT_TRUE(c.contains(key)) << key;
    // One iteration is one launch: bytes / real_time is the bandwidth, and a
    // ~1 us kernel runs thousands of iterations in batches of many launches.
    const double seconds = c.at("real_time").get<double>() * 1e-6;  // microseconds
    EXPECT_NEAR(c.at("bytes").get<double>() / seconds / c.at("bytes_per_second").get<double>(), 1.0, 1e-3);
    EXPECT_GE(c.at("batch_launches").get<double>(), 2.0);
    EXPECT_GE(c.at("iterations").get<double>(), c.at("batch_launches").get<double>() * c.at("batches").get<double>());
  }
  EXPECT_EQ(cases[0].at("bytes").get<double>(), 100003 * 8.0);
  EXPECT_EQ(cases[2].at("bytes").get<double>(), 50002 * 8.0);  // stride 2: ceil(100003 / 2) elements
  EXPECT_EQ(cases[2].at("sectors_per_request").get<double>(), 8.0);
}

TEST(Suite, ColdCasesTimeEveryLaunchAlone) {
  MEMBENCH_REQUIRE_GPU();
  nlohmann::json doc;
  ASSERT_NO_FATAL_FAILURE(run_ok("--n=2^20 --l2=both --benchmark_filter=global/coalesced", 2, &doc));
  const auto& cases = doc.at("benchmarks");
  EXPECT_EQ(cases[1].at("name").get<std::string>(), "global/coalesced/l2:cold/n:1048576/manual_time");
  EXPECT_EQ(cases[1].at("batch_launches").get<double>(), 1.0);
  EXPECT_GT(cases[0].at("batch_launches").get<double>(), 1.0);
}

TEST(Suite, CasesThatPutPagesBackBeforeEachLaunchAreTimedOneLaunchAtATime) {
  MEMBENCH_REQUIRE_GPU();
  nlohmann::json doc;
  ASSERT_NO_FATAL_FAILURE(
      run_ok("--managed.bytes=4M --touch=sequential --benchmark_filter='^managed/(resident|fault)/'", 2, &doc));
  const auto& cases = doc.at("benchmarks");
  for (const auto& c : cases) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    EXPECT_EQ(c.at("bytes").get<double>(), 4.0 * (1 << 20));
    EXPECT_TRUE(c.contains("model_migrated_bytes"));
  }
  EXPECT_EQ(cases[0].at("name").get<std::string>(), "managed/resident/bytes:4194304/manual_time");
  EXPECT_GT(cases[0].at("batch_launches").get<double>(), 1.0);
  EXPECT_EQ(cases[0].at("model_migrated_bytes").get<double>(), 0.0);
  EXPECT_EQ(cases[1].at("batch_launches").get<double>(), 1.0);  // the pages go back to the host between launches
  EXPECT_EQ(cases[1].at("model_migrated_bytes").get<double>(), 4.0 * (1 << 20));
}

// A case that does no arithmetic has its intensity (0 FLOP/B) but no FLOP
// rate: a rate of nothing would be exported as a measurement of zero.
TEST(Suite, OnlyACaseThatComputesReportsAFlopRate) {
  MEMBENCH_REQUIRE_GPU();
  nlohmann::json doc;
  ASSERT_NO_FATAL_FAILURE(run_ok("--n=2^20 --flops=0,16 --benchmark_filter='^async/sync/'", 2, &doc));
  const auto& none = doc.at("benchmarks").at(0);
  const auto& some = doc.at("benchmarks").at(1);
  EXPECT_EQ(none.value("flops_per_byte", -1.0), 0.0);
  EXPECT_FALSE(none.contains("gflops_per_second"));
  EXPECT_GT(some.value("gflops_per_second", 0.0), 0.0);
}

TEST(Suite, AtomicsReportUpdatesPerSecondBesideTheModel) {
  MEMBENCH_REQUIRE_GPU();
  nlohmann::json doc;
  ASSERT_NO_FATAL_FAILURE(
      run_ok("--word=u64 --space=global --shared_by=warp,thread --benchmark_filter='^atomics/red/'", 2, &doc));
  const auto& cases = doc.at("benchmarks");
  for (const auto& c : cases) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    EXPECT_GT(c.at("updates_per_second").get<double>(), 0.0);
    EXPECT_TRUE(c.contains("model_updates_per_second"));
    EXPECT_FALSE(c.contains("bytes_per_second"));
    const double seconds = c.at("real_time").get<double>() * 1e-6;
    EXPECT_NEAR(c.at("updates").get<double>() / seconds / c.at("updates_per_second").get<double>(), 1.0, 1e-3);
  }
  EXPECT_EQ(cases[0].at("updates_per_address").get<double>(), 32.0 * 16);
  EXPECT_EQ(cases[1].at("updates_per_address").get<double>(), 16.0);
  // Their launches take turns over placements, timed alone once: the mean's standard error is beside the
  // batches' noise, and a value less certain than the noise target is marked noisy.
  for (const auto& c : cases) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    ASSERT_TRUE(c.contains("turns_sem_pct"));
    const double sem = c.at("turns_sem_pct").get<double>();
    EXPECT_GT(sem, 0.0);
    EXPECT_LT(sem, 50.0);
    if (sem > 0.5) { EXPECT_EQ(c.at("noisy").get<double>(), 1.0); }
  }
}

TEST(Suite, ShortMemcpyIsBatchedToo) {
  MEMBENCH_REQUIRE_GPU();
  // memcpy is never captured in a graph; its batches are enqueued one by one.
  nlohmann::json doc;
  ASSERT_NO_FATAL_FAILURE(run_ok("--n=100003 --benchmark_filter=global/memcpy", 1, &doc));
  const auto& c = doc.at("benchmarks").at(0);
  EXPECT_GE(c.at("batch_launches").get<double>(), 2.0);
  EXPECT_EQ(c.at("bytes").get<double>(), 100003 * 8.0);
}

TEST(ExitStatus, WrongResultIsAnErrorInTheJsonAndExitCode1) {
  MEMBENCH_REQUIRE_GPU();
  const auto r = run_json("--n=4096 --benchmark_filter='^global/(coalesced|memcpy)/'", "MEMBENCH_TEST_CORRUPT=1");
  EXPECT_EQ(r.outcome.exit_code, 1) << r.outcome.output;
  ASSERT_EQ(r.doc.at("benchmarks").size(), 2u);  // the JSON is complete
  for (const auto& c : r.doc.at("benchmarks")) {
    EXPECT_TRUE(c.value("error_occurred", false));
    EXPECT_NE(c.value("error_message", "").find("verification failed: out[2048]"), std::string::npos)
        << c.value("error_message", "");
    EXPECT_FALSE(c.contains("bytes_per_second"));
  }
  EXPECT_NE(r.outcome.output.find("membench: 2 of 2 cases failed"), std::string::npos) << r.outcome.output;
}

TEST(ExitStatus, CaseThatDoesNotFitIsSkippedAndTheRestRunWithExitCode0) {
  MEMBENCH_REQUIRE_GPU();
  const auto r = run_json("--n=2^40,4096 --benchmark_filter=global/coalesced");
  EXPECT_EQ(r.outcome.exit_code, 0) << r.outcome.output;
  const auto& cases = r.doc.at("benchmarks");
  ASSERT_EQ(cases.size(), 2u);
  const std::string why = cases[0].value("skip_message", cases[0].value("error_message", ""));
  EXPECT_NE(why.find("does not fit"), std::string::npos) << cases[0].dump();
  EXPECT_FALSE(cases[1].value("error_occurred", false));
  EXPECT_TRUE(cases[1].contains("bytes_per_second"));
}

TEST(Suite, NodeCasesRunFromDevice0OfTwoGpusAndReportEachGpusShare) {
  MEMBENCH_REQUIRE_GPU();
  int visible = 0;
  ASSERT_EQ(cudaGetDeviceCount(&visible), cudaSuccess);
  const auto r =
      run_json("--bytes=1M --working_set=64K '--benchmark_filter=^(node/|peer/device_to_device_latency_sm/)'");
  ASSERT_EQ(r.outcome.exit_code, 0) << r.outcome.output;
  const auto& cases = r.doc.at("benchmarks");
  ASSERT_EQ(cases.size(), 7u);
  for (const auto& c : cases) {
    const std::string name = c.at("name").get<std::string>();
    SCOPED_TRACE(name);
    if (visible < 2) {
      EXPECT_EQ(c.value("skip_message", c.value("error_message", "")), "needs two GPUs; 1 visible");
      continue;
    }
    EXPECT_FALSE(c.value("error_occurred", false)) << c.value("error_message", "");
    if (name.rfind("peer/", 0) == 0) {
      EXPECT_GT(c.at("latency_ns").get<double>(), 0.0);
      EXPECT_EQ(c.at("peer_device").get<double>(), 1.0);
      EXPECT_EQ(c.at("chain_nodes").get<double>(), 512.0);  // 64 KiB / 128 bytes
      continue;
    }
    EXPECT_EQ(c.at("devices").get<double>(), visible);
    double sum = 0;
    for (int i = 0; i < visible; ++i) {
      const double share = c.at("device" + std::to_string(i) + "_bytes_per_second").get<double>();
      EXPECT_GT(share, 0.0);
      sum += share;
    }
    EXPECT_DOUBLE_EQ(c.at("sum_of_devices_bytes_per_second").get<double>(), sum);
    // The node's rate counts every GPU's bytes over the slowest one's span:
    // never more than the sum of each GPU's own rate.
    EXPECT_LE(c.at("bytes_per_second").get<double>(), sum * 1.05);
  }
}

}  // namespace
}  // namespace membench
