#include "run/provenance.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/measure.hpp"
#include "membench/platform/arch_facts.hpp"
#include "membench/platform/cuda.hpp"
#include "membench/platform/numa.hpp"

namespace membench::run {

ContextKeys ecc_keys(const nvml::Ecc& e, const std::string& suffix) {
  ContextKeys keys;
  if (e.corrected) keys.emplace_back("ecc_corrected_volatile" + suffix, std::to_string(*e.corrected));
  if (e.uncorrected) keys.emplace_back("ecc_uncorrected_volatile" + suffix, std::to_string(*e.uncorrected));
  if (e.remap_pending) keys.emplace_back("row_remap_pending" + suffix, std::to_string(*e.remap_pending));
  if (e.remap_failed) keys.emplace_back("row_remap_failed" + suffix, std::to_string(*e.remap_failed));
  return keys;
}

std::string energy_description(bool asked, const std::string& why_not) {
  if (!asked) return "off (--energy reports each case's power and picojoules per byte)";
  if (!why_not.empty()) return "none: " + why_not;
  return "NVML total energy counter: each case run again after its timing, its power over " +
         std::to_string(engine::kEnergyIntervals) + " whole updates of the counter";
}

std::string arch_facts_json(int cc_major, int cc_minor) {
  nlohmann::ordered_json facts = nlohmann::ordered_json::object();
  for (const FactSpec& spec : fact_specs()) {
    nlohmann::ordered_json entry = {{"unit", spec.unit}, {"meaning", spec.meaning}};
    if (const auto v = arch_fact(cc_major, cc_minor, spec.fact)) {
      entry["value"] = v->value;
      entry["basis"] = to_string(v->basis);
      entry["source"] = v->source;
    } else {
      entry["value"] = nullptr;
      entry["basis"] = "unknown";
      entry["source"] = unknown_fact(cc_major, cc_minor, spec.fact);
    }
    facts[spec.name] = entry;
  }
  return nlohmann::ordered_json{{"compute_capability", std::to_string(cc_major) + "." + std::to_string(cc_minor)},
                                {"facts", facts}}
      .dump();
}

ContextKeys context_keys(const RunFacts& f) {
  ContextKeys keys;
  const auto add = [&](const std::string& key, const std::string& value) { keys.emplace_back(key, value); };
  const DeviceInfo& d = f.device;
  add("membench_version", f.version);
  add("membench_build", f.identity.membench_build);
  add("gpu_name", d.name);
  add("gpu_ordinal", std::to_string(d.ordinal));
  add("gpu_uuid", d.uuid);
  add("pci_bus_id", d.pci_bus_id);
  add("gpu_numa_node", std::to_string(d.numa_node));
  add("host_numa_nodes", f.host_numa_nodes.empty() ? "unknown" : format_node_list(f.host_numa_nodes));
  if (f.run_devices.size() > 1) {  // every device of the run, for cases named .../device:K/...
    nlohmann::json all = nlohmann::json::array();
    for (const DeviceInfo& info : f.run_devices)
      all.push_back({{"ordinal", info.ordinal},
                     {"name", info.name},
                     {"uuid", info.uuid},
                     {"pci_bus_id", info.pci_bus_id},
                     {"numa_node", info.numa_node}});
    add("devices", all.dump());
  }
  const cli::LauncherInfo& l = f.launcher;
  if (l.rank) add("rank", std::to_string(*l.rank));
  if (l.local_rank) add("local_rank", std::to_string(*l.local_rank));
  for (const std::string* error : {&l.rank_error, &l.local_rank_error})
    if (!error->empty()) add("launcher_error", *error);
  if (!l.job_id.empty()) add("job_id", l.job_id);
  add("compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor));
  add("cuda_architectures", f.cuda_architectures.empty() ? "unknown" : f.cuda_architectures);
  add("code_ran_as", f.code_ran_as.empty() ? "unknown" : f.code_ran_as);
  add("arch_facts", arch_facts_json(d.cc_major, d.cc_minor));
  add("sm_count", std::to_string(d.sm_count));
  add("l2_bytes", std::to_string(d.l2_bytes));
  add("l1_shared_bytes_per_sm", std::to_string(d.l1_bytes));
  add("smem_bytes_per_sm", std::to_string(d.smem_per_sm));
  add("global_memory_bytes", std::to_string(d.global_mem_bytes));
  add("memory_clock_khz", std::to_string(d.mem_clock_khz));
  add("memory_bus_bits", std::to_string(d.bus_width_bits));
  add("dram_peak_bytes_per_second", std::to_string(d.dram_peak_bytes_per_second));
  add("smem_peak_bytes_per_second", std::to_string(d.smem_peak_bytes_per_second));
  add("sm_clock_peak_mhz", std::to_string(d.sm_clock_khz / 1000));
  add("driver_version", f.identity.driver_version.empty() ? "unknown" : f.identity.driver_version);
  add("cuda_driver_version", f.identity.cuda_driver_version);
  add("runtime_version", cuda_version_string(d.runtime_version));
  add("gpu_health", f.health);
  if (f.power_limit_w) add("power_limit_w", std::to_string(*f.power_limit_w));
  if (f.idle_power_w) add("idle_power_w", std::to_string(*f.idle_power_w));
  add("energy", f.energy);
  for (auto& key : ecc_keys(f.ecc_start, "_start")) keys.push_back(std::move(key));
  if (!f.resumed_from.empty()) add("resumed_from", f.resumed_from);
  add("sweep", f.sweep);
  return keys;
}

std::string health_description(const engine::HealthMonitor& health) {
  if (!health.available()) return "unavailable: " + health.why();
  if (!health.sees_processes()) return "NVML: clock event reasons, ECC; other processes unknown: " + health.why();
  if (health.process_view() == engine::ProcessView::utilisation)
    return "NVML: other processes (busy ones, from utilisation samples: " + health.why() +
           "), clock event reasons, ECC";
  return "NVML: other processes, clock event reasons, ECC";
}

std::string build_id() {
  std::ifstream exe("/proc/self/exe", std::ios::binary);
  if (!exe) return "unknown";
  std::uint64_t h = 1469598103934665603ull;
  char buffer[1 << 16];
  while (exe.read(buffer, sizeof buffer) || exe.gcount() > 0) {
    for (std::streamsize i = 0; i < exe.gcount(); ++i) {
      h ^= static_cast<unsigned char>(buffer[i]);
      h *= 1099511628211ull;
    }
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

std::string host_name() {
  char name[256] = {};
  return gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string("unknown-host");
}

nvml::Ecc run_ecc(const std::vector<int>& ordinals) {
  nvml::Ecc total;
  const auto add = [](auto& sum, const auto& part) {
    if (part) sum = sum.value_or(0) + *part;
  };
  for (int ordinal : ordinals) {
    const auto device = nvml::device_by_bus_id(query_device(ordinal).pci_bus_id, nullptr);
    if (!device) continue;
    const nvml::Ecc e = nvml::ecc(*device);
    add(total.corrected, e.corrected);
    add(total.uncorrected, e.uncorrected);
    add(total.remap_pending, e.remap_pending);
    add(total.remap_failed, e.remap_failed);
  }
  return total;
}

}  // namespace membench::run
