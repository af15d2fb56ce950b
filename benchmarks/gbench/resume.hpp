// --resume=FILE: a run cut short (a scheduler's time limit, a requeue) goes
// on from the JSON it wrote. Every case FILE holds complete (each
// repetition measured, none failed or skipped) is carried over with its
// numbers and counters as they are, marked resumed = 1; the rest are
// measured. FILE must come from this GPU, driver and build: numbers from
// another are not this run's.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace membench::gbench {

struct ResumeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One measured repetition of a case, as Google Benchmark wrote it.
struct CarriedRun {
  std::int64_t iterations = 0;
  double real_time = 0;  // per iteration, in time_unit
  std::string time_unit = "us";
  std::string label;
  std::vector<std::pair<std::string, double>> counters;  // the user counters, in the file's order
};

// What identifies the run that measures: FILE must match it.
struct RunIdentity {
  std::vector<std::string> gpu_uuids;  // the devices measured, in order
  std::string driver_version;          // NVML's ("580.159.04"); empty: unknown, then cuda_driver_version decides
  std::string cuda_driver_version;     // "13.0"
  std::string membench_version;
  std::string membench_build;  // a hash of the executable
};

struct Carried {
  std::map<std::string, std::vector<CarriedRun>> cases;  // by case name
  std::size_t incomplete = 0;                            // cases FILE has that must run again
};

// FILE as read, before any GPU is looked at.
struct ResumeFile {
  std::string origin;  // "--resume=FILE: ", for messages
  nlohmann::json context;
  Carried carried;
  bool cut = false;  // the text ended inside a case (a kill mid-write); the cases before it are carried
};

// Reads FILE's text (`path` names it in messages). Throws ResumeError (its
// message the one line to print) when it is not membench's JSON.
// `repetitions` is this run's --benchmark_repetitions: a case is carried
// only with that many runs. A text cut inside a case (a process killed while
// it wrote) is read up to the last whole case.
ResumeFile read_resume(const std::string& path, const std::string& text, int repetitions);
// Throws ResumeError when FILE comes from another GPU, driver, version or build.
void check_identity(const ResumeFile& file, const RunIdentity& here);
// Both.
Carried read_carried(const std::string& path, const std::string& text, const RunIdentity& here, int repetitions);

// The manual time in seconds to hand Google Benchmark for `iterations`
// iterations so that it reports exactly `real_time` per iteration in a unit
// of `multiplier` per second (1e6 for microseconds): it computes
// seconds * multiplier / iterations, so the nearest double that rounds back is chosen.
double manual_seconds_for(double real_time, double multiplier, std::int64_t iterations);

// What a replay of a carried repetition reports: its time per iteration in
// the unit Google Benchmark reports (`reported_per_second` of them to a
// second), converted from the unit its file wrote, and its counters with
// resumed = 1 (once, however many runs carried it).
struct Replay {
  double real_time = 0;
  std::vector<std::pair<std::string, double>> counters;
};
Replay replay_of(const CarriedRun& run, double reported_per_second);

}  // namespace membench::gbench
