// Unified-memory counters through CUPTI. See um_counters.hpp.
#include "membench/platform/um_counters.hpp"

#if defined(MEMBENCH_HAVE_CUPTI)
#include <cupti.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <thread>
#endif

namespace membench {

#if defined(MEMBENCH_HAVE_CUPTI)

namespace {

constexpr std::size_t kBufferBytes = std::size_t{1} << 20;

std::mutex g_mutex;  // one count at a time; the callbacks add under it
UnifiedMemoryCounts* g_counts = nullptr;

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer == nullptr ? 0 : kBufferBytes;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid) {
  CUpti_Activity* record = nullptr;
  while (g_counts != nullptr && cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER) continue;
    const auto* um = reinterpret_cast<const CUpti_ActivityUnifiedMemoryCounter3*>(record);
    switch (um->counterKind) {
      case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD:
        g_counts->htod_bytes += static_cast<double>(um->value);
        break;
      case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH:
        g_counts->dtoh_bytes += static_cast<double>(um->value);
        break;
      case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT:
        g_counts->gpu_fault_groups += 1;
        g_counts->gpu_faults += static_cast<double>(um->value);
        break;
      default: break;
    }
  }
  std::free(buffer);
}

std::string cupti_error(const char* call, CUptiResult rc) {
  const char* text = nullptr;
  cuptiGetResultString(rc, &text);
  return std::string("CUPTI ") + call + ": " + (text != nullptr ? text : "error " + std::to_string(rc));
}

}  // namespace

std::optional<UnifiedMemoryCounts> count_unified_memory(int device, const std::function<cudaError_t()>& work,
                                                        std::string* why) {
  const std::lock_guard<std::mutex> lock(g_mutex);
  auto refuse = [&](const std::string& reason) -> std::optional<UnifiedMemoryCounts> {
    if (why != nullptr) *why = reason;
    return std::nullopt;
  };
  static const CUptiResult registered = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  if (registered != CUPTI_SUCCESS) return refuse(cupti_error("cuptiActivityRegisterCallbacks", registered));
  CUpti_ActivityUnifiedMemoryCounterConfig config[3] = {};
  const CUpti_ActivityUnifiedMemoryCounterKind kinds[3] = {
      CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD,
      CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH,
      CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT};
  for (int i = 0; i < 3; ++i) {
    config[i].scope = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_SINGLE_DEVICE;
    config[i].kind = kinds[i];
    config[i].deviceId = static_cast<std::uint32_t>(device);
    config[i].enable = 1;
  }
  if (const CUptiResult rc = cuptiActivityConfigureUnifiedMemoryCounter(config, 3); rc != CUPTI_SUCCESS)
    return refuse(cupti_error("cuptiActivityConfigureUnifiedMemoryCounter", rc));
  if (const CUptiResult rc = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER); rc != CUPTI_SUCCESS)
    return refuse(cupti_error("cuptiActivityEnable", rc));
  UnifiedMemoryCounts counts;
  g_counts = &counts;
  const cudaError_t worked = work();
  cudaDeviceSynchronize();
  // The driver delivers its records after the work is done, not always by
  // the first flush: flush, wait a moment, flush again, and only then stop.
  CUptiResult flushed = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  if (flushed == CUPTI_SUCCESS) flushed = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);  // whatever came in while disabling, not counted
  g_counts = nullptr;
  if (worked != cudaSuccess) return refuse(std::string("the counted work failed: ") + cudaGetErrorString(worked));
  if (flushed != CUPTI_SUCCESS) return refuse(cupti_error("cuptiActivityFlushAll", flushed));
  return counts;
}

#else

std::optional<UnifiedMemoryCounts> count_unified_memory(int, const std::function<cudaError_t()>&, std::string* why) {
  if (why != nullptr) *why = "built without CUPTI";
  return std::nullopt;
}

#endif

}  // namespace membench
