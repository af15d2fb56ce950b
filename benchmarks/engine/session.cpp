#include "engine/session.hpp"

#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace membench::engine {

Session::Session(int device, const MeasureOptions& options) : options_(options) { start(device); }

Session::~Session() { release(); }

void Session::use(int device) {
  if (stream_ && device_.ordinal == device) return;
  release();
  start(device);
}

void Session::start(int device) {
  device_ = query_device(device);
  const std::vector<unsigned> before = own_pids_ ? std::vector<unsigned>{} : processes_on(device_.pci_bus_id);
  const unsigned long long first_use = first_use_us_.emplace(device, now_us()).first->second;
  MEMBENCH_CUDA(cudaSetDevice(device));
  MEMBENCH_CUDA(cudaFree(nullptr));  // the context, now
  if (!own_pids_) own_pids_ = own_pids(before, processes_on(device_.pci_bus_id), static_cast<unsigned>(getpid()));
  std::string why_no_nvml;
  auto probe = nvml_probe(device_.pci_bus_id, &why_no_nvml);
  health_ = HealthMonitor(std::move(probe), *own_pids_, options_.utilisation_view_for_test, first_use,
                          std::move(why_no_nvml));
  energy_why_.clear();
  nvml_ = nvml::device_by_bus_id(device_.pci_bus_id, &energy_why_);
  energy_counter_ = nvml_ && nvml::total_energy_mj(*nvml_);
  if (nvml_ && !energy_counter_) energy_why_ = "this GPU keeps no total energy counter NVML can read";
  stream_ = std::make_unique<Stream>();
  stamps_ = MappedBuffer<ClockStamp>(4);
  if (options_.l2 != L2::warm) {
    // Twice the L2, zeroed: reading it leaves the L2 full of clean lines.
    flush_scratch_ = DeviceBuffer<float>(2 * device_.l2_bytes / sizeof(float));
    flush_sink_ = DeviceBuffer<float>(1);
    MEMBENCH_CUDA(cudaMemsetAsync(flush_scratch_.get(), 0, flush_scratch_.bytes(), stream_->get()));
    MEMBENCH_CUDA(plan_l2_flush(flush_scratch_.get(), flush_scratch_.size(), flush_sink_.get(), &flush_));
  }
}

std::optional<EnergyPoller::Read> Session::energy_counter() const {
  if (!energy_counter_) return std::nullopt;
  const nvml::Device d = *nvml_;
  return EnergyPoller::Read([d] { return nvml::total_energy_mj(d); });
}

std::optional<double> Session::power_limit_w() const {
  if (!nvml_) return std::nullopt;
  const auto mw = nvml::power_limit_mw(*nvml_);
  return mw ? std::optional<double>(*mw / 1e3) : std::nullopt;
}

std::optional<double> Session::idle_power_w() {
  if (const auto known = idle_power_w_.find(device_.ordinal); known != idle_power_w_.end()) return known->second;
  std::optional<double> watts;
  if (const auto read = energy_counter()) {
    MEMBENCH_CUDA(cudaDeviceSynchronize());
    EnergyPoller poller(*read);
    const double until = steady_seconds() + 1.0;  // two updates come well within a second
    while (poller.intervals() < 2 && poller.readable() && steady_seconds() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (const auto power = average_power(poller.stop(), 2)) watts = power->watts;
  }
  return idle_power_w_[device_.ordinal] = watts;
}

void Session::release() {
  stream_.reset();
  flush_scratch_ = DeviceBuffer<float>();
  flush_sink_ = DeviceBuffer<float>();
  flush_ = FlushPlan{};
  stamps_ = MappedBuffer<ClockStamp>();
}

}  // namespace membench::engine
