// The GPU's health around every case, from NVML: other processes holding a
// context on the GPU (a second job time-slices ours and halves its numbers
// without a trace in the timings), clock event reasons (power cap, thermal
// and hardware slowdowns), and ECC. The pure parts (which bits mark a case,
// which processes are ours) are tested on the CPU.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "membench/nvml.hpp"

namespace membench::engine {

// nvmlClocksEventReason* bits.
inline constexpr std::uint64_t kClockGpuIdle = 0x1, kClockApplicationsSetting = 0x2, kClockSwPowerCap = 0x4,
                               kClockHwSlowdown = 0x8, kClockSyncBoost = 0x10, kClockSwThermal = 0x20,
                               kClockHwThermal = 0x40, kClockHwPowerBrake = 0x80, kClockDisplaySetting = 0x100;

// The reasons that slow the clock under the measurement: power, thermal,
// hardware slowdown. (Idle, application clocks, sync boost and display
// settings do not mark a case.)
inline constexpr std::uint64_t kClockEventMarks =
    kClockSwPowerCap | kClockHwSlowdown | kClockSwThermal | kClockHwThermal | kClockHwPowerBrake;

// "sw_power_cap, hw_thermal_slowdown" for the bits set (unknown bits as 0x...).
std::string clock_event_names(std::uint64_t reasons);

// The process ids that are this process: our own pid where NVML reports it,
// else (a container whose pid namespace NVML does not share) the pids that
// appeared when our context was created.
std::set<unsigned> own_pids(const std::vector<unsigned>& before_context, const std::vector<unsigned>& after_context,
                            unsigned own_pid);

// What one case saw.
struct CaseHealth {
  std::optional<int> other_processes;             // the most seen at once; empty: NVML cannot list them
  std::optional<std::uint64_t> clock_event_reasons;  // every reason seen, OR-ed; empty: unknown
  std::optional<unsigned> first_other_pid;
  bool contended() const { return other_processes && *other_processes > 0; }
  bool clock_event() const { return clock_event_reasons && (*clock_event_reasons & kClockEventMarks) != 0; }
};

// Samples one GPU's health during a case. Without NVML every sample is empty
// and `why()` says so.
class HealthMonitor {
 public:
  HealthMonitor() = default;
  HealthMonitor(const std::string& pci_bus_id, std::set<unsigned> own);

  bool available() const { return device_.has_value(); }
  bool sees_processes() const { return processes_visible_; }
  const std::string& why() const { return why_; }

  void begin_case();
  void sample();  // cheap enough to call between batches; rate-limited by the caller
  const CaseHealth& current() const { return case_; }

  // Other processes on the GPU now (pid, name): for --exclusive.
  std::vector<std::pair<unsigned, std::string>> others_now();

 private:
  std::optional<nvml::Device> device_;
  std::set<unsigned> own_;
  bool processes_visible_ = false;
  std::string why_;
  CaseHealth case_;
};

// The processes on the GPU at `pci_bus_id` now (for own_pids); empty when unknown.
std::vector<unsigned> processes_on(const std::string& pci_bus_id);

}  // namespace membench::engine
