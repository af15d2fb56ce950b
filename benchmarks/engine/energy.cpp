#include "engine/energy.hpp"

#include <algorithm>
#include <chrono>

namespace membench::engine {

namespace {

// Between two reads of the counter: a read takes about 4 ms on an H200, so
// the thread is never idle for long, and this keeps it from spinning where a
// read is fast.
constexpr auto kReadPause = std::chrono::microseconds(200);

}  // namespace

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::vector<EnergyUpdate> energy_updates(const std::vector<EnergyReading>& readings) {
  std::vector<EnergyUpdate> updates;
  for (std::size_t i = 1; i < readings.size(); ++i)
    if (readings[i].mj != readings[i - 1].mj)
      updates.push_back({(readings[i - 1].seconds + readings[i].seconds) / 2, readings[i].mj});
  return updates;
}

std::optional<PowerEstimate> average_power(const std::vector<EnergyReading>& readings, int min_intervals) {
  const std::vector<EnergyUpdate> updates = energy_updates(readings);
  if (updates.size() < 2 || static_cast<int>(updates.size()) - 1 < min_intervals) return std::nullopt;
  for (std::size_t i = 1; i < readings.size(); ++i)
    if (readings[i].mj < readings[i - 1].mj) return std::nullopt;
  const EnergyUpdate& first = updates.front();
  const EnergyUpdate& last = updates.back();
  const double seconds = last.seconds - first.seconds;
  if (seconds <= 0) return std::nullopt;
  return PowerEstimate{static_cast<double>(last.mj - first.mj) * 1e-3 / seconds, seconds,
                       static_cast<int>(updates.size()) - 1};
}

EnergyPoller::EnergyPoller(Read read) : read_(std::move(read)), thread_([this] { loop(); }) {}

EnergyPoller::~EnergyPoller() { stop(); }

void EnergyPoller::loop() {
  std::optional<unsigned long long> last;
  int updates = 0;
  while (!stop_.load()) {
    const auto mj = read_();
    const double at = steady_seconds();
    if (!mj) {
      readable_ = false;
      return;
    }
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      readings_.push_back({at, *mj});
    }
    if (last && *mj != *last) intervals_ = std::max(0, ++updates - 1);
    last = mj;
    std::this_thread::sleep_for(kReadPause);
  }
}

std::vector<EnergyReading> EnergyPoller::stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  const std::lock_guard<std::mutex> lock(mutex_);
  return readings_;
}

}  // namespace membench::engine
