#include "engine/health.hpp"

#include <algorithm>
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

std::vector<unsigned> processes_on(const std::string& pci_bus_id) {
  const auto d = nvml::device_by_bus_id(pci_bus_id, nullptr);
  if (!d) return {};
  return nvml::running_processes(*d, nullptr).value_or(std::vector<unsigned>{});
}

HealthMonitor::HealthMonitor(const std::string& pci_bus_id, std::set<unsigned> own) : own_(std::move(own)) {
  device_ = nvml::device_by_bus_id(pci_bus_id, &why_);
  if (!device_) return;
  std::string why;
  processes_visible_ = nvml::running_processes(*device_, &why).has_value();
  if (!processes_visible_) why_ = why;
}

void HealthMonitor::begin_case() {
  case_ = CaseHealth{};
  sample();
}

void HealthMonitor::sample() {
  if (!device_) return;
  if (processes_visible_) {
    if (const auto pids = nvml::running_processes(*device_, nullptr)) {
      int others = 0;
      for (unsigned pid : *pids) {
        if (own_.count(pid) != 0) continue;
        ++others;
        if (!case_.first_other_pid) case_.first_other_pid = pid;
      }
      case_.other_processes = std::max(case_.other_processes.value_or(0), others);
    }
  }
  if (const auto reasons = nvml::clock_event_reasons(*device_))
    case_.clock_event_reasons = case_.clock_event_reasons.value_or(0) | *reasons;
}

std::vector<std::pair<unsigned, std::string>> HealthMonitor::others_now() {
  std::vector<std::pair<unsigned, std::string>> out;
  if (!device_ || !processes_visible_) return out;
  for (unsigned pid : nvml::running_processes(*device_, nullptr).value_or(std::vector<unsigned>{}))
    if (own_.count(pid) == 0) out.emplace_back(pid, nvml::process_name(pid));
  return out;
}

}  // namespace membench::engine
