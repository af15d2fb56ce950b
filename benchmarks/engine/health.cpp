#include "engine/health.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <utility>

namespace membench::engine {

std::string clock_event_names(std::uint64_t reasons) {
  static const std::pair<std::uint64_t, const char*> kNames[] = {
      {kClockGpuIdle, "gpu_idle"},
      {kClockApplicationsSetting, "applications_clocks_setting"},
      {kClockSwPowerCap, "sw_power_cap"},
      {kClockHwSlowdown, "hw_slowdown"},
      {kClockSyncBoost, "sync_boost"},
      {kClockSwThermal, "sw_thermal_slowdown"},
      {kClockHwThermal, "hw_thermal_slowdown"},
      {kClockHwPowerBrake, "hw_power_brake_slowdown"},
      {kClockDisplaySetting, "display_clock_setting"},
  };
  std::string out;
  std::uint64_t known = 0;
  for (const auto& [bit, name] : kNames) {
    known |= bit;
    if ((reasons & bit) != 0) out += (out.empty() ? "" : ", ") + std::string(name);
  }
  if (const std::uint64_t rest = reasons & ~known; rest != 0) {
    char hex[24];
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(rest));
    out += (out.empty() ? "" : ", ") + std::string(hex);
  }
  return out.empty() ? "none" : out;
}

std::set<unsigned> own_pids(const std::vector<unsigned>& before_context, const std::vector<unsigned>& after_context,
                            unsigned own_pid) {
  if (std::find(after_context.begin(), after_context.end(), own_pid) != after_context.end()) return {own_pid};
  std::set<unsigned> appeared;
  for (unsigned pid : after_context)
    if (std::find(before_context.begin(), before_context.end(), pid) == before_context.end()) appeared.insert(pid);
  appeared.insert(own_pid);
  return appeared;
}

const char* process_view_name(ProcessView view) {
  switch (view) {
    case ProcessView::contexts: return "contexts";
    case ProcessView::utilisation: return "utilisation samples";
    default: return "none";
  }
}

Others others_among(const std::vector<unsigned>& seen, const std::set<unsigned>& own, bool ours_may_be_hidden,
                    const std::set<unsigned>& surely_others) {
  Others out;
  bool ours_listed = false;
  int maybe_ours = 0;
  unsigned first_sure = 0;
  for (unsigned pid : seen) {
    if (own.count(pid) != 0) {
      ours_listed = true;
      continue;
    }
    if (out.count++ == 0) out.first = pid;
    if (surely_others.count(pid) == 0) {
      ++maybe_ours;
    } else if (first_sure == 0) {
      first_sure = pid;
    }
  }
  if (ours_may_be_hidden && !ours_listed && maybe_ours > 0) {
    --out.count;  // one of them is us, under a pid we do not know
    out.first = first_sure;
  }
  return out;
}

unsigned long long now_us() {
  return static_cast<unsigned long long>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
}

namespace {

// A utilisation sample covers one of the driver's sampling periods (up to a
// second), so a case looks back that far: a neighbour that is busy while a
// short case runs may have been sampled only just before it began.
constexpr unsigned long long kSamplePeriodUs = 1'000'000;

bool has_own(const std::vector<unsigned>& pids, const std::set<unsigned>& own) {
  return std::any_of(pids.begin(), pids.end(), [&](unsigned pid) { return own.count(pid) != 0; });
}

}  // namespace

std::vector<unsigned> processes_on(const std::string& pci_bus_id) {
  const auto d = nvml::device_by_bus_id(pci_bus_id, nullptr);
  if (!d) return {};
  return nvml::running_processes(*d, nullptr).value_or(std::vector<unsigned>{});
}

namespace {

class NvmlProbe final : public GpuProbe {
 public:
  explicit NvmlProbe(nvml::Device device) : device_(device) {}
  std::optional<std::vector<unsigned>> contexts(std::string* why) override {
    return nvml::running_processes(device_, why);
  }
  std::optional<nvml::BusyProcesses> busy(unsigned long long since, std::string* why,
                                          unsigned long long before) override {
    return nvml::busy_processes(device_, since, why, before);
  }
  std::optional<std::uint64_t> clock_event_reasons() override { return nvml::clock_event_reasons(device_); }
  std::string process_name(unsigned pid) override { return nvml::process_name(pid); }
  unsigned long long now() override { return now_us(); }

 private:
  nvml::Device device_;
};

}  // namespace

std::unique_ptr<GpuProbe> nvml_probe(const std::string& pci_bus_id, std::string* why) {
  const auto device = nvml::device_by_bus_id(pci_bus_id, why);
  if (!device) return nullptr;
  return std::make_unique<NvmlProbe>(*device);
}

HealthMonitor::HealthMonitor(std::unique_ptr<GpuProbe> probe, std::set<unsigned> own, bool utilisation_only,
                             unsigned long long started_us, std::string why_absent)
    : probe_(std::move(probe)), own_(std::move(own)), started_us_(started_us), why_(std::move(why_absent)) {
  if (!probe_) return;
  why_.clear();
  std::string why_contexts = "the utilisation samples were asked for (MEMBENCH_TEST_PROCESS_VIEW)";
  if (!utilisation_only && probe_->contexts(&why_contexts)) {
    view_ = ProcessView::contexts;
    return;
  }
  std::string why_samples;
  if (probe_->busy(probe_->now(), &why_samples, 0)) {
    view_ = ProcessView::utilisation;
    why_ = why_contexts;
  } else {
    why_ = why_contexts + "; " + why_samples;
  }
}

void HealthMonitor::begin_case() {
  case_ = CaseHealth{};
  if (probe_) case_start_us_ = probe_->now() - kSamplePeriodUs;
  sample();
}

void HealthMonitor::sample() {
  if (!probe_) return;
  std::optional<std::vector<unsigned>> seen;
  if (view_ == ProcessView::contexts) {
    seen = probe_->contexts(nullptr);
  } else if (view_ == ProcessView::utilisation) {
    if (auto busy = probe_->busy(case_start_us_, nullptr, started_us_)) {
      for (unsigned pid : busy->busy_before)
        if (own_.count(pid) == 0) surely_others_.insert(pid);
      seen = std::move(busy->pids);
    }
    if (seen && has_own(*seen, own_)) own_seen_ = true;
  }
  std::optional<Others> others;
  if (seen) others = others_among(*seen, own_, view_ == ProcessView::utilisation && !own_seen_, surely_others_);
  case_.add(others, probe_->clock_event_reasons());
}

void CaseHealth::add(const std::optional<Others>& others, const std::optional<std::uint64_t>& reasons) {
  if (others) {
    if (others->count > 0 && !first_other_pid) first_other_pid = others->first;
    other_processes = std::max(other_processes.value_or(0), others->count);
  }
  if (reasons) clock_event_reasons = clock_event_reasons.value_or(0) | *reasons;
}

std::vector<std::pair<unsigned, std::string>> HealthMonitor::others_now() {
  std::vector<std::pair<unsigned, std::string>> out;
  if (!probe_ || view_ == ProcessView::none) return out;
  std::vector<unsigned> seen;
  if (view_ == ProcessView::contexts) {
    seen = probe_->contexts(nullptr).value_or(std::vector<unsigned>{});
  } else if (auto busy = probe_->busy(probe_->now() - 2 * kSamplePeriodUs, nullptr, 0)) {
    seen = std::move(busy->pids);
  }
  for (unsigned pid : seen)
    if (own_.count(pid) == 0) out.emplace_back(pid, probe_->process_name(pid));
  return out;
}

}  // namespace membench::engine
