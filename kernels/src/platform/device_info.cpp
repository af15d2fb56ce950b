#include "membench/platform/device_info.hpp"

#include <cstring>

#include "membench/platform/arch_facts.hpp"
#include "membench/platform/cuda.hpp"
#include "membench/platform/numa.hpp"

namespace membench {

double dram_peak_bytes_per_second(double mem_clock_khz, int bus_width_bits) {
  return mem_clock_khz * 1e3 * static_cast<double>(bus_width_bits) * 2.0 / 8.0;
}

double smem_peak_bytes_per_second(int sm_count, double sm_clock_khz, int cc_major, int cc_minor) {
  const double banks = arch_value_or_zero(cc_major, cc_minor, Fact::shared_banks);
  const double bank_bytes = arch_value_or_zero(cc_major, cc_minor, Fact::shared_bank_bytes);
  return static_cast<double>(sm_count) * banks * bank_bytes * sm_clock_khz * 1e3;
}

std::size_t unified_l1_bytes(int cc_major, int cc_minor) {
  return static_cast<std::size_t>(arch_value_or_zero(cc_major, cc_minor, Fact::unified_l1_bytes));
}

std::string format_gpu_uuid(const unsigned char (&bytes)[16]) {
  static const char* hex = "0123456789abcdef";
  std::string out = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += hex[bytes[i] >> 4];
    out += hex[bytes[i] & 0xF];
  }
  return out;
}

DeviceInfo query_device(int ordinal) {
  DeviceInfo info;
  info.ordinal = ordinal;
  cudaDeviceProp prop{};
  MEMBENCH_CUDA(cudaGetDeviceProperties(&prop, ordinal));
  info.name = prop.name;
  unsigned char uuid[16];
  std::memcpy(uuid, prop.uuid.bytes, sizeof uuid);
  info.uuid = format_gpu_uuid(uuid);
  char bus[32] = {};
  MEMBENCH_CUDA(cudaDeviceGetPCIBusId(bus, sizeof bus, ordinal));
  info.pci_bus_id = bus;
  info.numa_node = pci_numa_node(info.pci_bus_id).value_or(-1);
  info.cc_major = prop.major;
  info.cc_minor = prop.minor;
  info.sm_count = prop.multiProcessorCount;
  info.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
  info.global_mem_bytes = prop.totalGlobalMem;
  info.smem_per_block_optin = prop.sharedMemPerBlockOptin;
  info.smem_per_sm = prop.sharedMemPerMultiprocessor;
  info.l1_bytes = unified_l1_bytes(prop.major, prop.minor);
  // The clock fields left cudaDeviceProp in CUDA 13; the attributes remain.
  MEMBENCH_CUDA(cudaDeviceGetAttribute(&info.mem_clock_khz, cudaDevAttrMemoryClockRate, ordinal));
  MEMBENCH_CUDA(cudaDeviceGetAttribute(&info.bus_width_bits, cudaDevAttrGlobalMemoryBusWidth, ordinal));
  MEMBENCH_CUDA(cudaDeviceGetAttribute(&info.sm_clock_khz, cudaDevAttrClockRate, ordinal));
  MEMBENCH_CUDA(cudaDriverGetVersion(&info.driver_version));
  MEMBENCH_CUDA(cudaRuntimeGetVersion(&info.runtime_version));
  info.dram_peak_bytes_per_second = dram_peak_bytes_per_second(info.mem_clock_khz, info.bus_width_bits);
  info.smem_peak_bytes_per_second =
      smem_peak_bytes_per_second(info.sm_count, info.sm_clock_khz, info.cc_major, info.cc_minor);
  return info;
}

}  // namespace membench
