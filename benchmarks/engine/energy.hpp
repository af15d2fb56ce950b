// The power a case draws, from the board's energy counter (NVML's total
// energy, in millijoules). The driver updates that counter at intervals
// (100 ms on an H200), so a case's timed batches (often 10-20 ms) read 0 or
// one whole step. With --energy, after its timed batches a case runs again,
// back to back, while a second thread reads the counter; the window runs
// from the first update seen to one at least `intervals` updates later, so
// both ends sit on updates and the energy between them is whole. Power is
// that energy over that time; energy per byte is power over the bandwidth
// the timed batches measured. The pure part (readings to power) is tested on
// the CPU.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace membench::engine {

// One reading of the counter: when (host seconds, any fixed origin) and its value.
struct EnergyReading {
  double seconds = 0;
  unsigned long long mj = 0;
};

struct PowerEstimate {
  double watts = 0;
  double window_seconds = 0;  // from the first update to the last
  int intervals = 0;          // whole update intervals in the window
};

// Where the counter changed: the time of an update is taken halfway between
// the last reading before it and the first after, so a slow read (NVML takes
// milliseconds) costs half its time, not all of it.
struct EnergyUpdate {
  double seconds = 0;
  unsigned long long mj = 0;
};
std::vector<EnergyUpdate> energy_updates(const std::vector<EnergyReading>& readings);

// The average power between the first and the last update among `readings`;
// empty with fewer than `min_intervals` whole intervals (or a counter that
// went backwards: a driver reload).
std::optional<PowerEstimate> average_power(const std::vector<EnergyReading>& readings, int min_intervals);

// Reads the counter on its own thread until stopped, so the thread that
// feeds the GPU never waits for NVML.
class EnergyPoller {
 public:
  using Read = std::function<std::optional<unsigned long long>()>;
  explicit EnergyPoller(Read read);
  ~EnergyPoller();
  EnergyPoller(const EnergyPoller&) = delete;
  EnergyPoller& operator=(const EnergyPoller&) = delete;

  // Whole update intervals seen so far (updates - 1, at least 0).
  int intervals() const { return intervals_.load(); }
  // False once a read failed (the counter cannot be read).
  bool readable() const { return readable_.load(); }
  // Stops the thread and returns every reading.
  std::vector<EnergyReading> stop();

 private:
  void loop();
  Read read_;
  std::atomic<bool> stop_{false}, readable_{true};
  std::atomic<int> intervals_{0};
  std::mutex mutex_;
  std::vector<EnergyReading> readings_;
  std::thread thread_;
};

// Host seconds on the steady clock (the poller's time base).
double steady_seconds();

}  // namespace membench::engine
