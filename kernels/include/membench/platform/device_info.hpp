// What the suite needs to know about a GPU: identity, sizes, and the
// theoretical peaks that `pct_of_peak` is measured against.
#pragma once

#include <cstddef>
#include <string>

namespace membench {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  std::string uuid;        // GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, as nvidia-smi prints it
  std::string pci_bus_id;  // domain:bus:device.function
  int numa_node = -1;      // the host NUMA node of its PCIe slot (-1: not known)
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  std::size_t l2_bytes = 0;
  std::size_t global_mem_bytes = 0;
  std::size_t smem_per_block_optin = 0;  // most dynamic shared memory one block may opt into
  std::size_t smem_per_sm = 0;           // shared memory one SM can give its blocks
  std::size_t l1_bytes = 0;              // the SM's unified L1 + shared memory (0: not known for this architecture)
  int mem_clock_khz = 0;
  int bus_width_bits = 0;
  int sm_clock_khz = 0;  // peak (boost) SM clock
  int driver_version = 0;
  int runtime_version = 0;
  double dram_peak_bytes_per_second = 0;
  double smem_peak_bytes_per_second = 0;  // 0: not known for this architecture
};

// The unified L1 data cache + shared memory of one SM, from the
// architecture facts (no device attribute reports it); 0 for an
// architecture the table has no source for. With no shared memory carved
// out, all of it is L1.
std::size_t unified_l1_bytes(int cc_major, int cc_minor);

// The UUID's 16 bytes as nvidia-smi prints them.
std::string format_gpu_uuid(const unsigned char (&bytes)[16]);

// Reads the device's attributes; throws CudaError when the device is unusable.
DeviceInfo query_device(int ordinal);

// Theoretical DRAM bandwidth: memory clock x bus width x 2 (double data rate) / 8 bits.
double dram_peak_bytes_per_second(double mem_clock_khz, int bus_width_bits);

// Shared-memory peak: every SM serves its banks x their width each clock (32
// x 4 bytes where the architecture facts know them; 0 where they do not).
double smem_peak_bytes_per_second(int sm_count, double sm_clock_khz, int cc_major, int cc_minor);

}  // namespace membench
