// The few NVML calls the suite makes, through libnvidia-ml.so.1 opened at
// run time (dlopen), so nothing is needed at link time and a machine without
// NVML still runs the suite: every call then answers "unknown", with the
// reason. NVML's own types are reduced to what the calls need.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace membench::nvml {

using Device = void*;

// nvmlPciInfo_t (the _v2 / _v3 layout).
struct PciInfo {
  char bus_id_legacy[16];
  unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
};

// The entry points, nullptr where this NVML lacks one. `error` is set when
// the library cannot be used at all.
struct Api {
  int (*init)() = nullptr;
  int (*by_bus_id)(const char*, Device*) = nullptr;
  int (*max_pcie_gen)(Device, unsigned*) = nullptr;
  int (*max_pcie_width)(Device, unsigned*) = nullptr;
  int (*nvlink_state)(Device, unsigned, int*) = nullptr;
  int (*nvlink_remote_pci)(Device, unsigned, PciInfo*) = nullptr;
  int (*nvlink_remote_type)(Device, unsigned, int*) = nullptr;  // 0 GPU, 2 NVSwitch; older drivers lack it
  int (*compute_processes)(Device, unsigned*, void*) = nullptr;
  int (*graphics_processes)(Device, unsigned*, void*) = nullptr;
  std::size_t process_info_bytes = 0;  // the layout the process calls fill (24 bytes from _v2 on, 16 before)
  int (*process_name)(unsigned, char*, unsigned) = nullptr;
  int (*process_utilization)(Device, void*, unsigned*, unsigned long long) = nullptr;
  int (*clock_event_reasons)(Device, unsigned long long*) = nullptr;
  int (*total_ecc_errors)(Device, int, int, unsigned long long*) = nullptr;
  int (*remapped_rows)(Device, unsigned*, unsigned*, unsigned*, unsigned*) = nullptr;
  int (*driver_version)(char*, unsigned) = nullptr;
  int (*total_energy)(Device, unsigned long long*) = nullptr;  // millijoules; Volta and later
  int (*power_limit)(Device, unsigned*) = nullptr;             // the enforced limit, milliwatts
  std::string error;
};

// The library, loaded and initialised once.
const Api& api();

// The GPU at this PCI bus id (cudaDeviceGetPCIBusId's form); empty with `why`.
std::optional<Device> device_by_bus_id(const std::string& bus_id, std::string* why);

// The driver's version (e.g. "580.159.04"); empty when NVML cannot tell.
std::string driver_version();

// The process ids with a compute or graphics context on `d`, each once;
// empty optional with `why` when NVML cannot list them.
std::optional<std::vector<unsigned>> running_processes(Device d, std::string* why);

// The processes that kept the GPU's SMs or memory busy in a sampling period
// (the driver samples about once a second) that ended after `since` (a CPU
// timestamp in microseconds since the epoch), each once, and the newest
// sample's timestamp; `busy_before`: those of them busy in a period that also
// ended before `before`. Empty optional with `why` when NVML keeps no such
// samples for this GPU. A process that only holds a context is not listed.
struct BusyProcesses {
  std::vector<unsigned> pids;
  std::vector<unsigned> busy_before;
  unsigned long long newest = 0;
};
std::optional<BusyProcesses> busy_processes(Device d, unsigned long long since, std::string* why,
                                            unsigned long long before = 0);

// The name NVML gives a process (its executable's path), or "" if unknown.
std::string process_name(unsigned pid);

// The current clock event reasons (nvmlClocksEventReason* bits); empty when unknown.
std::optional<std::uint64_t> clock_event_reasons(Device d);

// The energy the board has drawn since the driver loaded, in millijoules;
// empty where the GPU keeps no such counter (before Volta) or NVML cannot
// read it. The driver updates it at intervals (100 ms seen on an H200), so
// a shorter window reads 0 or one whole step: see engine/energy.hpp.
std::optional<unsigned long long> total_energy_mj(Device d);

// The power limit the GPU enforces now, in milliwatts; empty when unknown.
std::optional<unsigned> power_limit_mw(Device d);

// Volatile ECC counts (since the driver last loaded) and row remapping;
// each field empty where the GPU does not report it (ECC off, no remapping).
struct Ecc {
  std::optional<unsigned long long> corrected;
  std::optional<unsigned long long> uncorrected;
  std::optional<unsigned> remap_pending;  // 1: a row remap waits for the next GPU reset
  std::optional<unsigned> remap_failed;   // 1: a remap failed
};
Ecc ecc(Device d);

}  // namespace membench::nvml
