// The suite's command line: the axes the families declared (grammar.hpp),
// the measurement options (their one definition is the engine's), --device,
// --resume, --sweep=FILE.json (sweep_file.hpp) and Google Benchmark's flags
// (gbench_flags.hpp). Parsed before Google Benchmark sees argv; anything
// wrong is a UsageError whose message is the one line to print.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cases/family.hpp"
#include "cli/grammar.hpp"
#include "cli/launcher.hpp"
#include "engine/options.hpp"

namespace membench::cli {

inline constexpr int kMaxDevices = 1024;

struct Options {
  std::map<std::string, std::vector<std::int64_t>> sweep;                          // --axis=LIST
  std::map<std::string, std::map<std::string, std::vector<std::int64_t>>> scoped;  // --family.axis=LIST
  engine::MeasureOptions measure;
  DeviceSelection device;
  std::vector<int> run_devices{0};  // `device` resolved by main; cases run on each
  std::string sweep_file;
  std::string resume_file;             // --resume=FILE (a pattern like --benchmark_out's)
  std::string output_file;             // --benchmark_out (a pattern; main fills it in)
  std::string output_format = "json";  // --benchmark_out_format
  int repetitions = 1;                 // --benchmark_repetitions
  bool check = false;                  // --check[=FILE]: the health check
  std::string check_file;              // FILE: the reference to judge by (else the built-in one for the model)
  std::string check_metrics;           // --check_metrics=FILE: the verdicts in Prometheus' text format
  std::string judge_file;              // --judge=RUN.json: judge a recorded run instead of measuring
  bool help = false;
  bool version = false;
  bool list_only = false;                // --benchmark_list_tests
  bool list_cases = false;               // --list_cases=json
  bool min_time_given = false;           // --benchmark_min_time: Google Benchmark's own iteration rule applies too
  std::string filter;                    // --benchmark_filter (empty: every case)
  std::vector<std::string> passthrough;  // argv[0] and Google Benchmark's flags, checked and normalized

  // The values of a family's axis: --family.axis, else --axis, else its defaults.
  std::vector<std::int64_t> values(const std::string& family, const cases::AxisSpec& axis) const;
  // What the run covers, for the families.
  cases::Selection selection() const;
};

// Parses argv (and the --sweep file it names; flags on the command line win,
// key by key). Google Benchmark's flags (--benchmark_*, --v) are checked and
// passed through; anything else that is not ours is refused, and so is a
// flag given twice.
Options parse_command_line(int argc, const char* const* argv, const AxisTable& axes);

// The usage text for --help, made from the declared axes and the measurement options.
std::string usage(const AxisTable& axes);

// The flags used, as JSON text (for the run's context).
std::string describe_sweep(const Options& options, const AxisTable& axes);

}  // namespace membench::cli
