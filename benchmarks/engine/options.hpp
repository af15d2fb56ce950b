// How each case is measured. Every option is defined here once: its flag,
// its default (the member's initializer), what its value is called and its
// help. The command line parses it, --help prints it, the run's context
// records it, and the engine reads it, all from this one definition.
#pragma once

#include <string>
#include <variant>
#include <vector>

namespace membench::engine {

// The L2's state at each timed launch: warm (launches back to back), cold
// (emptied before each), or both (every case measured twice).
enum class L2 { warm, cold, both };

struct MeasureOptions {
  int min_batches = 10;        // timed batches before the noise may stop a case
  double max_noise_pct = 0.5;  // stop once the batches' relative std. deviation is this low
  double max_seconds = 0.5;    // per case; then stop and report noisy = 1
  double throttle_pct = 90;    // batches below this % of the peak SM clock are discarded
  L2 l2 = L2::warm;
  bool exclusive = false;  // another process on the GPU fails the case and stops the run
  bool energy = false;     // after its timing, each case's power over whole updates of the energy counter
  // Set from the environment, not by flags: test and profiling hooks.
  bool corrupt_for_test = false;           // corrupt one output element before verifying
  bool utilisation_view_for_test = false;  // see other processes through NVML's utilisation samples only
  int profile_launches = 0;                // launches per case inside cudaProfilerStart/Stop (for ncu)
};

// One option: its flag, what its value is called in the help, the help, the
// field it sets (an integer, a number, a switch, or a choice among names) and
// the values it accepts.
struct OptionSpec {
  using Field =
      std::variant<int MeasureOptions::*, double MeasureOptions::*, bool MeasureOptions::*, L2 MeasureOptions::*>;
  std::string name;
  std::string value;
  std::string help;
  Field field;
  double min = 0, max = 0;           // an integer or a number
  std::vector<std::string> choices;  // a choice: the names, by value
};

// The options a flag can set, in the order --help shows them.
const std::vector<OptionSpec>& measure_options();

// The option's value in `o`, as its flag would take it ("0.5", "cold", "true").
std::string show(const OptionSpec& spec, const MeasureOptions& o);

}  // namespace membench::engine
