#include "engine/stopping.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "membench/platform/fidelity.hpp"

namespace membench::engine {

void BatchStats::add(const BatchSample& b) {
  if (b.launches <= 0 || b.seconds <= 0) return;
  if (is_throttled(b.clock_mhz, rule_.peak_mhz, rule_.throttle_fraction)) {
    ++summary_.throttled_batches;
    return;
  }
  BatchSummary& s = summary_;
  ++s.clean_batches;
  s.clean_launches += b.launches;
  s.clean_seconds += b.seconds;
  if (b.clock_mhz > 0) {
    clock_weighted_ += b.clock_mhz * b.seconds;
    clock_seconds_ += b.seconds;
    s.clock_mhz = clock_weighted_ / clock_seconds_;
    s.min_clock_mhz = s.min_clock_mhz > 0 ? std::min(s.min_clock_mhz, b.clock_mhz) : b.clock_mhz;
  }
  // Welford's update: the deviations are ~1e-4 of the mean, too small for a sum of squares.
  const double t = b.seconds / static_cast<double>(b.launches);
  const double delta = t - mean_;
  mean_ += delta / s.clean_batches;
  squares_ += delta * (t - mean_);
  s.noise_pct = s.clean_batches < 2 ? std::numeric_limits<double>::infinity()
                : mean_ > 0         ? 100.0 * std::sqrt(squares_ / (s.clean_batches - 1)) / mean_
                                    : 0.0;
}

BatchSummary summarize(const std::vector<BatchSample>& batches, const StopRule& rule) {
  BatchStats stats(rule);
  for (const BatchSample& b : batches) stats.add(b);
  return stats.summary();
}

bool converged(const BatchSummary& s, const StopRule& rule) {
  return s.clean_batches >= rule.min_batches && s.noise_pct <= rule.max_noise_pct;
}

double turns_sem_pct(const std::vector<double>& per_turn) {
  const auto n = static_cast<double>(per_turn.size());
  if (per_turn.size() < 2) return 0;
  double mean = 0;
  for (double t : per_turn) mean += t / n;
  if (mean <= 0) return 0;
  double squares = 0;
  for (double t : per_turn) squares += (t - mean) * (t - mean);
  return 100.0 * std::sqrt(squares / (n - 1) / n) / mean;
}

bool noisy(const BatchSummary& s, const StopRule& rule, std::optional<double> turns_sem) {
  return !converged(s, rule) || (turns_sem && *turns_sem > rule.max_noise_pct);
}

bool should_stop(const BatchSummary& s, std::int64_t launches, std::int64_t target, double elapsed_seconds,
                 const StopRule& rule) {
  if (launches < target) return false;
  return converged(s, rule) || elapsed_seconds >= rule.max_seconds;
}

BatchSummary collect_batches(BatchQueue& queue, const StopRule& rule, std::int64_t target_launches,
                             const LoopHooks& hooks) {
  BatchStats stats(rule);
  std::int64_t launches = 0;
  double sampled = 0;
  queue.enqueue(0);
  queue.enqueue(1);
  for (int slot = 0;; slot = 1 - slot) {
    const BatchSample done = queue.wait(slot);
    stats.add(done);
    launches += done.launches;
    const double elapsed = hooks.elapsed_seconds();
    if (elapsed - sampled >= hooks.health_period) {
      hooks.sample_health();
      sampled = elapsed;
    }
    if (const auto why = hooks.stop_request()) {
      queue.wait(1 - slot);
      throw Interrupted(*why);
    }
    if (should_stop(stats.summary(), launches, target_launches, elapsed, rule)) {
      stats.add(queue.wait(1 - slot));
      hooks.sample_health();
      return stats.summary();
    }
    queue.enqueue(slot);
  }
}

}  // namespace membench::engine
