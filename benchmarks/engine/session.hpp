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

#include "engine/energy.hpp"
#include "engine/health.hpp"
#include "engine/options.hpp"
#include "membench/platform/cuda.hpp"
#include "membench/platform/device_info.hpp"
#include "membench/platform/fidelity.hpp"
#include "membench/platform/nvml.hpp"

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

  // The board's energy counter (NVML's total energy, millijoules): a reader,
  // or empty where this GPU keeps none or NVML cannot reach it (energy_why()).
  std::optional<EnergyPoller::Read> energy_counter() const;
  const std::string& energy_why() const { return energy_why_; }
  // The power limit the board enforces, in watts; empty when unknown.
  std::optional<double> power_limit_w() const;
  // The board's power while this process runs nothing on it, over two of
  // the counter's updates (about 0.2 s), measured once per device when first
  // asked; empty without the counter.
  std::optional<double> idle_power_w();

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
  std::optional<nvml::Device> nvml_;  // this GPU through NVML, where NVML has it
  bool energy_counter_ = false;       // and it keeps a total energy counter
  std::string energy_why_;
  std::map<int, std::optional<double>> idle_power_w_;  // device -> once measured
  std::string lost_;
};

}  // namespace membench::engine
