// Timing one case's launches with CUDA events, in the manner of nvbench:
// batches of launches between two events (about a millisecond each, in a
// CUDA graph where the case allows it), two batches in flight so the GPU
// never waits for the host, the SM clock stamped on either side of each
// batch, the GPU's health sampled between batches, until the stopping rule
// says enough. Warm and cold L2 are two modes of timing, each a small object
// with one job. Nothing here knows of the command line, Google Benchmark or
// what a case computes.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "engine/energy.hpp"
#include "engine/health.hpp"
#include "engine/session.hpp"
#include "engine/stopping.hpp"

namespace membench::engine {

// What to time: the launch (its kernel, grid and arguments already fixed),
// whether a CUDA graph may capture it, and how many launches warm it up.
// `before_each` (optional) is enqueued before every launch, outside the
// events: a launch that needs it is timed alone, never in a batch (where
// its launches take turns, the turns are taken over consecutive batches).
struct Timed {
  std::function<cudaError_t(cudaStream_t)> launch;
  bool graphable = true;
  int warm_up_launches = 1;
  std::function<cudaError_t(cudaStream_t)> before_each;
  // The launches that make one round, where a case's launches take turns
  // (over several placements of its buffers): a warm batch holds whole
  // rounds, so that every batch weighs each turn alike.
  int round = 1;
  // No batch is dropped as throttled: the case is judged at the SM clock it
  // ran at (a compute pipe), or no SM clock paces it (a copy engine's copy).
  bool keep_throttled = false;
};

// `launches` rounded up to whole rounds of `round` (at least one round).
int whole_rounds(int launches, int round);

// The L2's state at every timed launch.
class TimingMode {
 public:
  virtual ~TimingMode() = default;
  // Launches per batch; `time_one_launch` runs one and returns its GPU
  // seconds; `round`: Timed::round.
  virtual int batch_launches(const std::function<double()>& time_one_launch, int round) const = 0;
  // Enqueued before each batch, outside its events.
  virtual void before_batch(const Session& session, cudaStream_t stream) const = 0;
};

// Warm: launches back to back, as an application runs them, in batches of
// about a millisecond.
const TimingMode& warm_l2();
// Cold: the L2 emptied before every launch (the session's flush), and every
// launch timed alone.
const TimingMode& cold_l2();

struct Measurement {
  BatchSummary summary;
  StopRule rule;
  int batch_launches = 0;
  CaseHealth health;
  std::optional<PowerEstimate> power;  // with --energy, where the counter gave one
  // Where the launches take turns (a round of more than one): the standard
  // error of the mean over the turns, each timed alone (turns_sem_pct).
  std::optional<double> turns_sem_pct;
};

// Whole updates of the energy counter a case's power rests on.
inline constexpr int kEnergyIntervals = 2;

// The stopping rule of these options on this device: the throttle's
// percentage as a fraction, the device's peak SM clock (kHz) in MHz, as the
// batches' clock stamps are.
StopRule stop_rule(const MeasureOptions& m, const DeviceInfo& device);
StopRule stop_rule(const Session& session);

// One case's timing, kept across the calls that measure it again (Google
// Benchmark's repetitions): the warm-up, the batch size and the graph are
// worked out the first time.
class CaseTimer {
 public:
  CaseTimer(Timed timed, const TimingMode& mode);
  ~CaseTimer();
  CaseTimer(const CaseTimer&) = delete;
  CaseTimer& operator=(const CaseTimer&) = delete;

  // Times batches until at least `target_launches` ran and the stopping rule
  // is met. Throws Interrupted when a stop is requested, CudaError on a CUDA
  // failure.
  Measurement measure(Session& session, std::int64_t target_launches);

  // After measure(): the launches again, back to back in the same batches,
  // while a second thread reads the energy counter, until `intervals` whole
  // updates have passed (or `max_seconds`). Empty where the counter could
  // not be read or too few updates came.
  std::optional<PowerEstimate> measure_power(Session& session, const EnergyPoller::Read& read, int intervals,
                                             double max_seconds);

 private:
  class Graph;
  void prepare(Session& session);
  void before_each(cudaStream_t stream) const;
  void launch_batch(cudaStream_t stream) const;
  double time_turns(Session& session) const;

  Timed timed_;
  const TimingMode& mode_;
  bool warmed_ = false;
  bool profiled_ = false;
  int batch_launches_ = 0;
  std::optional<double> turns_sem_pct_;
  std::unique_ptr<Graph> graph_;
};

}  // namespace membench::engine
