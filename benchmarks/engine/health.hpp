// The GPU's health around every case, from NVML: other processes holding a
// context on the GPU (a second job time-slices ours and halves its numbers
// without a trace in the timings), clock event reasons (power cap, thermal
// and hardware slowdowns), and ECC. The pure parts (which bits mark a case,
// which processes are ours) are tested on the CPU.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "membench/platform/nvml.hpp"

namespace membench::engine {

// nvmlClocksEventReason* bits.
inline constexpr std::uint64_t kClockGpuIdle = 0x1, kClockApplicationsSetting = 0x2, kClockSwPowerCap = 0x4,
                               kClockHwSlowdown = 0x8, kClockSyncBoost = 0x10, kClockSwThermal = 0x20,
                               kClockHwThermal = 0x40, kClockHwPowerBrake = 0x80, kClockDisplaySetting = 0x100;

// The reasons that slow the clock under the measurement: the board's power
// cap, thermal and hardware slowdowns. (Idle, application clocks, sync
// boost and display settings do not mark a case.)
inline constexpr std::uint64_t kClockEventMarks =
    kClockSwPowerCap | kClockHwSlowdown | kClockSwThermal | kClockHwThermal | kClockHwPowerBrake;
// Of those, what a case is no evidence under: a thermal or hardware slowdown.
// The power cap alone is the case's own draw at the board's limit, what the
// GPU sustains; it is a mark of its own (power_capped), and where it lowered
// the clock below the throttle rule the dropped batches say so.
inline constexpr std::uint64_t kClockSlowdownMarks = kClockEventMarks & ~kClockSwPowerCap;

// "sw_power_cap, hw_thermal_slowdown" for the bits set (unknown bits as 0x...).
std::string clock_event_names(std::uint64_t reasons);

// The process ids that are this process: our own pid where NVML reports it,
// else (a container whose pid namespace NVML does not share) the pids that
// appeared when our context was created.
std::set<unsigned> own_pids(const std::vector<unsigned>& before_context, const std::vector<unsigned>& after_context,
                            unsigned own_pid);

// How other processes are seen. NVML's list of the processes holding a
// context on the GPU sees a neighbour that is idle too; where NVML cannot list
// them (some containers and virtual GPUs), its per-process utilisation samples
// see the processes that kept the GPU busy in a sampling period (up to a
// second), which is what changes our numbers.
enum class ProcessView { none, contexts, utilisation };
const char* process_view_name(ProcessView view);

// Who the other processes among `seen` are: their count, and one of them by
// pid (0 when which one is not known). `ours_may_be_hidden`: utilisation
// samples in which our pid has not been seen (a pid namespace NVML does not
// share, or our own samples not yet taken); we ran kernels in the window, so
// one busy process is taken to be ours, unless every one is in
// `surely_others` (busy before we ran anything).
struct Others {
  int count = 0;
  unsigned first = 0;
};
Others others_among(const std::vector<unsigned>& seen, const std::set<unsigned>& own, bool ours_may_be_hidden,
                    const std::set<unsigned>& surely_others = {});

// NVML's clock for its samples: CPU time in microseconds since the epoch.
unsigned long long now_us();

// What one case saw.
struct CaseHealth {
  std::optional<int> other_processes;                // the most seen at once; empty: NVML cannot list them
  std::optional<std::uint64_t> clock_event_reasons;  // every reason seen, OR-ed; empty: unknown
  std::optional<unsigned> first_other_pid;
  bool contended() const { return other_processes && *other_processes > 0; }
  bool clock_event() const { return clock_event_reasons && (*clock_event_reasons & kClockSlowdownMarks) != 0; }
  bool power_capped() const { return clock_event_reasons && (*clock_event_reasons & kClockSwPowerCap) != 0; }
  // Takes in one sample (either part empty where NVML could not tell): the
  // most other processes seen at once and the first of them stay, however
  // the later samples look; every clock event reason seen is kept.
  void add(const std::optional<Others>& others, const std::optional<std::uint64_t>& reasons);
};

// What the monitor asks of a GPU: NVML's answers, or a test's. Each answer is
// empty where the GPU cannot tell, with the reason in `why` where asked.
class GpuProbe {
 public:
  virtual ~GpuProbe() = default;
  // The processes holding a context on the GPU.
  virtual std::optional<std::vector<unsigned>> contexts(std::string* why) = 0;
  // The processes busy in a sampling period that ended after `since` (see nvml::busy_processes).
  virtual std::optional<nvml::BusyProcesses> busy(unsigned long long since, std::string* why,
                                                  unsigned long long before) = 0;
  virtual std::optional<std::uint64_t> clock_event_reasons() = 0;
  virtual std::string process_name(unsigned pid) = 0;
  // The samples' clock (now_us() for NVML's).
  virtual unsigned long long now() = 0;
};

// The GPU at `pci_bus_id` through NVML; null with `why` where NVML has no such GPU.
std::unique_ptr<GpuProbe> nvml_probe(const std::string& pci_bus_id, std::string* why);

// Samples one GPU's health during a case. Without a probe every sample is
// empty and `why()` says so.
class HealthMonitor {
 public:
  HealthMonitor() = default;
  // `utilisation_only`: use the utilisation samples even where the probe can
  // list the processes (a test hook for the fallback). `started_us` (on the
  // probe's clock): when this process began to use the GPU; a process whose
  // samples show it busy before then is another one, whatever its pid.
  // `why_absent`: why there is no probe, where `probe` is null.
  HealthMonitor(std::unique_ptr<GpuProbe> probe, std::set<unsigned> own, bool utilisation_only,
                unsigned long long started_us, std::string why_absent = {});

  bool available() const { return probe_ != nullptr; }
  bool sees_processes() const { return view_ != ProcessView::none; }
  ProcessView process_view() const { return view_; }
  const std::string& why() const { return why_; }

  void begin_case();
  void sample();  // cheap enough to call between batches; rate-limited by the caller
  const CaseHealth& current() const { return case_; }

  // Other processes on the GPU now (pid, name): for --exclusive. From
  // utilisation samples, those busy in the last two seconds; every one counts
  // until our own pid has been seen among them (refusing is the safe side).
  std::vector<std::pair<unsigned, std::string>> others_now();

 private:
  std::unique_ptr<GpuProbe> probe_;
  std::set<unsigned> own_;
  ProcessView view_ = ProcessView::none;
  bool own_seen_ = false;                 // utilisation: our pid has been among the busy ones
  unsigned long long case_start_us_ = 0;  // utilisation: samples after this count for the case
  unsigned long long started_us_ = 0;     // utilisation: a process busy before this is not us
  std::set<unsigned> surely_others_;      // utilisation: seen busy before started_us_
  std::string why_;
  CaseHealth case_;
};

// The processes on the GPU at `pci_bus_id` now (for own_pids); empty when unknown.
std::vector<unsigned> processes_on(const std::string& pci_bus_id);

}  // namespace membench::engine
