// The measuring session: the GPU being measured, its stream, the clock-stamp
// slots, the L2 flush, and the GPU's health. One device at a time; a run
// over several moves it from one to the next.
#pragma once

#include <cuda_runtime_api.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "engine/health.hpp"
#include "engine/options.hpp"
#include "membench/platform/cuda.hpp"
#include "membench/platform/device_info.hpp"
#include "membench/platform/fidelity.hpp"

namespace membench::engine {

class Session {
 public:
  // Starts on `device`. NVML lists processes by the pid of its own
  // namespace, which may not be ours: the processes seen before and after
  // the first context tell which are this one.
  Session(int device, const MeasureOptions& options);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session();

  // Moves the session to `device` (its resources are released first).
  void use(int device);

  const DeviceInfo& device() const { return device_; }
  const MeasureOptions& options() const { return options_; }
  cudaStream_t stream() const { return stream_->get(); }
  HealthMonitor& health() { return health_; }
  ClockStamp* stamps_device() const { return stamps_.device(); }
  ClockStamp* stamps_host() const { return stamps_.host(); }
  const FlushPlan& flush() const { return flush_; }

  // Set once a CUDA error has left the context unusable: every later case
  // would fail for that one's reason.
  const std::string& lost() const { return lost_; }
  void note_lost(const std::string& why) {
    if (lost_.empty()) lost_ = why;
  }

 private:
  void start(int device);
  void release();

  MeasureOptions options_;
  DeviceInfo device_;
  std::unique_ptr<Stream> stream_;
  DeviceBuffer<float> flush_scratch_;  // twice the L2, zeroed; read before every cold launch
  DeviceBuffer<float> flush_sink_;
  FlushPlan flush_;
  MappedBuffer<ClockStamp> stamps_;  // two batch slots x (before, after)
  std::optional<std::set<unsigned>> own_pids_;
  std::map<int, unsigned long long> first_use_us_;  // device -> when we first made its context (now_us)
  HealthMonitor health_;
  std::string lost_;
};

}  // namespace membench::engine
