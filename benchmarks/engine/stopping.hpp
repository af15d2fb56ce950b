// When a case has been measured enough, in the manner of nvbench: timed
// batches are collected until the per-launch time's relative standard
// deviation over them (the noise) is low enough, or a per-case time limit
// passes. Batches that ran below a threshold of the peak SM clock are
// discarded and counted. Pure arithmetic, tested on the CPU.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace membench::engine {

struct BatchSample {
  double seconds = 0;  // GPU time of the batch (CUDA events)
  std::int64_t launches = 0;
  double clock_mhz = 0;  // SM clock over the batch; 0 = not known
};

// The rule for one case: the measurement options (options.hpp holds their
// defaults) and the device's peak clock.
struct StopRule {
  int min_batches = 0;
  double max_noise_pct = 0;
  double max_seconds = 0;  // per case
  double throttle_fraction = 0;
  double peak_mhz = 0;  // 0: no throttle check
};

struct BatchSummary {
  int clean_batches = 0;
  int throttled_batches = 0;
  std::int64_t clean_launches = 0;
  double clean_seconds = 0;
  double noise_pct = 0;  // relative standard deviation of per-launch time over clean batches (needs 2)
  double clock_mhz = 0;  // time-weighted over the clean batches whose clock is known
  double min_clock_mhz = 0;
};

// The summary kept up to date one batch at a time (constant work per batch).
class BatchStats {
 public:
  explicit BatchStats(const StopRule& rule) : rule_(rule) {
    summary_.noise_pct = std::numeric_limits<double>::infinity();
  }
  void add(const BatchSample& b);
  const BatchSummary& summary() const { return summary_; }

 private:
  StopRule rule_;
  BatchSummary summary_;
  double mean_ = 0, squares_ = 0, clock_weighted_ = 0, clock_seconds_ = 0;
};

BatchSummary summarize(const std::vector<BatchSample>& batches, const StopRule& rule);

// Whether the batches so far settle the case: noise at most max_noise over at
// least min_batches clean batches.
bool converged(const BatchSummary& s, const StopRule& rule);

// A case whose launches take turns (over placements of its buffers) has a
// cost a turn: the relative standard error (percent) of the mean over
// `per_turn` (each turn's seconds, summed over the same number of rounds),
// how far the mean over another set of such turns may lie (another
// process's allocation, say). 0 for fewer than two turns.
double turns_sem_pct(const std::vector<double>& per_turn);

// Whether the value is less certain than the noise target: the batches did
// not converge, or the mean over the turns has a larger standard error.
bool noisy(const BatchSummary& s, const StopRule& rule, std::optional<double> turns_sem_pct);

// Whether to stop collecting: Google Benchmark must get at least `target`
// launches, and then the case stops once converged or past the time limit.
bool should_stop(const BatchSummary& s, std::int64_t launches, std::int64_t target, double elapsed_seconds,
                 const StopRule& rule);

// The run was asked to stop while the case was being measured.
struct Interrupted : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Two batch slots kept in flight, so the GPU never waits for the host: the
// GPU's events, or a test's. A slot is enqueued again only after wait() has
// read it.
class BatchQueue {
 public:
  virtual ~BatchQueue() = default;
  virtual void enqueue(int slot) = 0;
  virtual BatchSample wait(int slot) = 0;
};

// What the loop asks of the world beside the batches.
struct LoopHooks {
  std::function<double()> elapsed_seconds;                   // since the case began
  std::function<void()> sample_health;                       // at most every health_period, and at the end
  std::function<std::optional<std::string>()> stop_request;  // why the run must stop, if it must
  double health_period = 0.02;
};

// Times batches from `queue` until at least `target_launches` ran and
// should_stop says enough. The batch still in flight when the rule says stop
// is waited for and kept; on a stop request the one in flight is waited for
// (never left running) and Interrupted thrown.
BatchSummary collect_batches(BatchQueue& queue, const StopRule& rule, std::int64_t target_launches,
                             const LoopHooks& hooks);

}  // namespace membench::engine
