// Where a run's numbers came from, as the result file's context keys: the
// build, the GPU and its peaks, the driver, the launcher's rank and job, the
// health the run could watch, the ECC state at the start, the sweep. Built
// from plain facts (a CPU test fills them in); the GPU-facing parts (a hash
// of the executable, the ECC of several devices) are small functions apart.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/command_line.hpp"
#include "cli/launcher.hpp"
#include "engine/health.hpp"
#include "gbench/resume.hpp"
#include "membench/platform/device_info.hpp"
#include "membench/platform/nvml.hpp"

namespace membench::run {

using ContextKeys = std::vector<std::pair<std::string, std::string>>;

// What the context is made of, gathered by main once the session is open.
struct RunFacts {
  std::string version;  // membench's own
  gbench::RunIdentity identity;
  DeviceInfo device;                    // the first device of the run
  std::vector<DeviceInfo> run_devices;  // every device, in order, where the run has more than one
  std::vector<int> host_numa_nodes;     // the host's nodes with CPUs and memory (empty: not known)
  cli::LauncherInfo launcher;
  std::string health;  // health_description()
  std::optional<double> power_limit_w;
  std::optional<double> idle_power_w;  // with --energy, where the board has an energy counter
  std::string energy;                  // energy_description()
  nvml::Ecc ecc_start;
  std::string resumed_from;        // --resume's file, where given
  std::string sweep;               // cli::describe_sweep()
  std::string cuda_architectures;  // what the build carries (membench::built_cuda_architectures())
  std::string code_ran_as;         // how its code ran on the first device (membench::code_ran_as_here())
};

ContextKeys context_keys(const RunFacts& facts);

// The architecture facts of this compute capability as the context's
// arch_facts carries them (JSON text): each fact by name with its unit,
// meaning, value, basis and source; value null and basis "unknown" where
// the table has none.
std::string arch_facts_json(int cc_major, int cc_minor);

// The ECC state as context keys with a suffix (_start, _end).
ContextKeys ecc_keys(const nvml::Ecc& e, const std::string& suffix);

// How the run measures energy, in a line: "off", the method, or why it cannot.
std::string energy_description(bool asked, const std::string& why_not);

// What the health monitor can see, in a line.
std::string health_description(const engine::HealthMonitor& health);

// The build, as a hash of the executable (FNV-1a, 64 bits): --resume refuses
// numbers another build measured.
std::string build_id();

std::string host_name();

// The ECC state of the run's devices, summed (counts only grow, so a sum
// that grew is an error on one of them).
nvml::Ecc run_ecc(const std::vector<int>& ordinals);

}  // namespace membench::run
