// The driver's unified-memory counters, read through CUPTI's activity API
// around a piece of work: the bytes it migrated each way and the GPU page
// faults it took (one record per fault group the driver handled).
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <optional>
#include <string>

namespace membench {

struct UnifiedMemoryCounts {
  double htod_bytes = 0;        // migrated host -> device
  double dtoh_bytes = 0;        // migrated device -> host
  double gpu_fault_groups = 0;  // GPU page-fault records (each a group of faults handled together)
  double gpu_faults = 0;        // the faults in those groups
};

// Runs `work` (which must leave the device synchronised) with the counters
// of `device` on. nullopt, and why, where they cannot be read: no CUPTI in
// this build, or CUPTI refuses (another tool, such as a profiler, holds it).
std::optional<UnifiedMemoryCounts> count_unified_memory(int device, const std::function<cudaError_t()>& work,
                                                        std::string* why);

}  // namespace membench
