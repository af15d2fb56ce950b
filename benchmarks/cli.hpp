// The suite's own flags: sweep lists (DESIGN.md grammar), --device,
// --l2_flush and --sweep=FILE.json. Parsed before Google Benchmark sees argv;
// anything wrong is a UsageError whose message is the one line to print.
//
//   LIST  := ITEM[,ITEM...]
//   ITEM  := VALUE | VALUE:VALUE[:STEP]      inclusive range
//   STEP  := +K | *K                          default +1
//   VALUE := integer | 2^K | integer with K/M/G (powers of 1024)
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace membench::cli {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One sweep flag: its name (= the ArgName it fills), the values it accepts
// and one line of help.
struct FlagSpec {
  std::string name;
  std::int64_t min = 1;
  std::int64_t max = INT64_MAX;
  std::vector<std::int64_t> allowed;  // empty: any value in [min, max]
  std::int64_t multiple_of = 1;
  std::string help;
};
const std::vector<FlagSpec>& sweep_flags();
const FlagSpec* find_sweep_flag(const std::string& name);

// Expands a LIST for `flag` (used in messages as --flag=text) and checks each
// value against the flag's spec. Duplicates are dropped, order is kept.
std::vector<std::int64_t> parse_list(const FlagSpec& flag, const std::string& text);

struct Options {
  std::map<std::string, std::vector<std::int64_t>> sweep;  // only the flags given
  int device = 0;
  bool l2_flush = false;
  std::string sweep_file;
  bool help = false;
  bool list_only = false;               // --benchmark_list_tests
  std::vector<std::string> passthrough;  // argv[0] and Google Benchmark's flags

  // The values of `name`, or `fallback` when the flag was not given.
  std::vector<std::int64_t> values(const std::string& name, const std::vector<std::int64_t>& fallback) const;
};

// Parses argv. Google Benchmark flags (--benchmark_*, --v) pass through;
// anything else that is not ours is refused.
Options parse_command_line(int argc, const char* const* argv);

// Reads a --sweep file: a JSON object whose keys are sweep flag names (or
// "device", "l2_flush") and whose values are a LIST string, a number, or an
// array of numbers and LIST strings.
Options parse_sweep_file(const std::string& path);

// The usage text for --help.
std::string usage();

// The flags used, as JSON text (for the benchmark context).
std::string describe_sweep(const Options& options);

}  // namespace membench::cli
