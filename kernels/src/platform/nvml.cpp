// NVML opened with dlopen. See nvml.hpp.
#include "membench/platform/nvml.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <type_traits>

namespace membench::nvml {

namespace {

constexpr int kSuccess = 0;
constexpr int kInsufficientSize = 7;  // NVML_ERROR_INSUFFICIENT_SIZE
constexpr int kNotFound = 6;          // NVML_ERROR_NOT_FOUND: no sample since the timestamp
constexpr int kMemoryErrorCorrected = 0, kMemoryErrorUncorrected = 1;  // nvmlMemoryErrorType_t
constexpr int kVolatileEcc = 0;                                        // nvmlEccCounterType_t

template <class Fn>
bool resolve(void* lib, Fn& fn, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    fn = reinterpret_cast<Fn>(dlsym(lib, name));
    if (fn != nullptr) return true;
  }
  return false;
}

void load(Api& n) {
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    n.error = "NVML (libnvidia-ml.so.1) cannot be loaded";
    return;
  }
  if (!resolve(lib, n.init, {"nvmlInit_v2"}) || !resolve(lib, n.by_bus_id, {"nvmlDeviceGetHandleByPciBusId_v2"})) {
    n.error = "this NVML lacks nvmlInit_v2 or nvmlDeviceGetHandleByPciBusId_v2";
    return;
  }
  resolve(lib, n.max_pcie_gen, {"nvmlDeviceGetMaxPcieLinkGeneration"});
  resolve(lib, n.max_pcie_width, {"nvmlDeviceGetMaxPcieLinkWidth"});
  resolve(lib, n.nvlink_state, {"nvmlDeviceGetNvLinkState"});
  resolve(lib, n.nvlink_remote_pci, {"nvmlDeviceGetNvLinkRemotePciInfo_v2"});
  resolve(lib, n.nvlink_remote_type, {"nvmlDeviceGetNvLinkRemoteDeviceType"});
  // The _v3 and _v2 calls fill {pid, usedGpuMemory, gpuInstanceId, computeInstanceId}; the first one {pid,
  // usedGpuMemory}.
  if (resolve(lib, n.compute_processes,
              {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"})) {
    n.process_info_bytes = 24;
    resolve(lib, n.graphics_processes,
            {"nvmlDeviceGetGraphicsRunningProcesses_v3", "nvmlDeviceGetGraphicsRunningProcesses_v2"});
  } else if (resolve(lib, n.compute_processes, {"nvmlDeviceGetComputeRunningProcesses"})) {
    n.process_info_bytes = 16;
    resolve(lib, n.graphics_processes, {"nvmlDeviceGetGraphicsRunningProcesses"});
  }
  resolve(lib, n.process_name, {"nvmlSystemGetProcessName"});
  resolve(lib, n.process_utilization, {"nvmlDeviceGetProcessUtilization"});
  resolve(lib, n.clock_event_reasons,
          {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"});
  resolve(lib, n.total_ecc_errors, {"nvmlDeviceGetTotalEccErrors"});
  resolve(lib, n.remapped_rows, {"nvmlDeviceGetRemappedRows"});
  resolve(lib, n.driver_version, {"nvmlSystemGetDriverVersion"});
  resolve(lib, n.total_energy, {"nvmlDeviceGetTotalEnergyConsumption"});
  resolve(lib, n.power_limit, {"nvmlDeviceGetEnforcedPowerLimit"});
  if (n.init() != kSuccess) n.error = "nvmlInit failed";
}

// The pids one of the process calls reports, appended to `out`.
bool append_processes(int (*call)(Device, unsigned*, void*), std::size_t bytes_each, Device d,
                      std::vector<unsigned>& out) {
  std::vector<unsigned char> buffer;
  unsigned count = 64;
  for (int attempt = 0; attempt < 4; ++attempt) {
    buffer.assign(static_cast<std::size_t>(count) * bytes_each, 0);
    unsigned asked = count;
    const int rc = call(d, &asked, buffer.data());
    if (rc == kInsufficientSize) {
      count = std::max(asked, count * 2);
      continue;
    }
    if (rc != kSuccess) return false;
    for (unsigned i = 0; i < asked; ++i) {
      unsigned pid = 0;
      std::memcpy(&pid, buffer.data() + i * bytes_each, sizeof pid);  // pid is the first field in every layout
      out.push_back(pid);
    }
    return true;
  }
  return false;
}

}  // namespace

const Api& api() {
  static Api n;
  static std::once_flag once;
  std::call_once(once, [] { load(n); });
  return n;
}

std::optional<Device> device_by_bus_id(const std::string& bus_id, std::string* why) {
  const Api& n = api();
  if (!n.error.empty()) {
    if (why != nullptr) *why = n.error;
    return std::nullopt;
  }
  Device d = nullptr;
  if (n.by_bus_id(bus_id.c_str(), &d) != kSuccess) {
    if (why != nullptr) *why = "NVML does not know the GPU at " + bus_id;
    return std::nullopt;
  }
  return d;
}

std::string driver_version() {
  const Api& n = api();
  char version[96] = {};
  if (!n.error.empty() || n.driver_version == nullptr || n.driver_version(version, sizeof version) != kSuccess)
    return "";
  return version;
}

std::optional<std::vector<unsigned>> running_processes(Device d, std::string* why) {
  const Api& n = api();
  std::vector<unsigned> pids;
  if (n.compute_processes == nullptr || !append_processes(n.compute_processes, n.process_info_bytes, d, pids)) {
    if (why != nullptr) *why = "NVML cannot list the GPU's compute processes";
    return std::nullopt;
  }
  if (n.graphics_processes != nullptr) append_processes(n.graphics_processes, n.process_info_bytes, d, pids);
  std::sort(pids.begin(), pids.end());
  pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
  return pids;
}

std::optional<BusyProcesses> busy_processes(Device d, unsigned long long since, std::string* why,
                                            unsigned long long before) {
  // nvmlProcessUtilizationSample_t.
  struct Sample {
    unsigned pid;
    unsigned long long time_stamp;
    unsigned sm, memory, encoder, decoder;
  };
  const Api& n = api();
  if (n.process_utilization == nullptr) {
    if (why != nullptr) *why = "this NVML lacks nvmlDeviceGetProcessUtilization";
    return std::nullopt;
  }
  std::vector<Sample> samples(64);
  for (int attempt = 0; attempt < 4; ++attempt) {
    unsigned count = static_cast<unsigned>(samples.size());
    const int rc = n.process_utilization(d, samples.data(), &count, since);
    if (rc == kInsufficientSize) {
      samples.resize(std::max<std::size_t>(count, samples.size() * 2));
      continue;
    }
    BusyProcesses out;
    if (rc == kNotFound) return out;
    if (rc != kSuccess) break;
    for (unsigned i = 0; i < count && i < samples.size(); ++i) {
      out.newest = std::max(out.newest, samples[i].time_stamp);
      if (samples[i].time_stamp <= since || (samples[i].sm == 0 && samples[i].memory == 0)) continue;
      out.pids.push_back(samples[i].pid);
      if (samples[i].time_stamp < before) out.busy_before.push_back(samples[i].pid);
    }
    for (auto* pids : {&out.pids, &out.busy_before}) {
      std::sort(pids->begin(), pids->end());
      pids->erase(std::unique(pids->begin(), pids->end()), pids->end());
    }
    return out;
  }
  if (why != nullptr) *why = "NVML keeps no per-process utilisation samples for this GPU";
  return std::nullopt;
}

std::string process_name(unsigned pid) {
  const Api& n = api();
  char name[256] = {};
  if (n.process_name == nullptr || n.process_name(pid, name, sizeof name) != kSuccess) return "";
  return name;
}

std::optional<std::uint64_t> clock_event_reasons(Device d) {
  const Api& n = api();
  unsigned long long reasons = 0;
  if (n.clock_event_reasons == nullptr || n.clock_event_reasons(d, &reasons) != kSuccess) return std::nullopt;
  return static_cast<std::uint64_t>(reasons);
}

std::optional<unsigned long long> total_energy_mj(Device d) {
  const Api& n = api();
  unsigned long long mj = 0;
  if (n.total_energy == nullptr || n.total_energy(d, &mj) != kSuccess) return std::nullopt;
  return mj;
}

std::optional<unsigned> power_limit_mw(Device d) {
  const Api& n = api();
  unsigned mw = 0;
  if (n.power_limit == nullptr || n.power_limit(d, &mw) != kSuccess) return std::nullopt;
  return mw;
}

Ecc ecc(Device d) {
  const Api& n = api();
  Ecc e;
  unsigned long long count = 0;
  if (n.total_ecc_errors != nullptr) {
    if (n.total_ecc_errors(d, kMemoryErrorCorrected, kVolatileEcc, &count) == kSuccess) e.corrected = count;
    if (n.total_ecc_errors(d, kMemoryErrorUncorrected, kVolatileEcc, &count) == kSuccess) e.uncorrected = count;
  }
  unsigned corrected_rows = 0, uncorrected_rows = 0, pending = 0, failed = 0;
  if (n.remapped_rows != nullptr &&
      n.remapped_rows(d, &corrected_rows, &uncorrected_rows, &pending, &failed) == kSuccess) {
    e.remap_pending = pending;
    e.remap_failed = failed;
  }
  return e;
}

}  // namespace membench::nvml
