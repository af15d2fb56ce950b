#include "stopping.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "membench/fidelity.hpp"

namespace membench::bench {

BatchSummary summarize(const std::vector<BatchSample>& batches, const StopRule& rule) {
  BatchSummary s;
  double clock_weighted = 0, clock_seconds = 0;
  std::vector<double> per_launch;
  for (const BatchSample& b : batches) {
    if (b.launches <= 0 || b.seconds <= 0) continue;
    if (is_throttled(b.clock_mhz, rule.peak_mhz, rule.throttle_fraction)) {
      ++s.throttled_batches;
      continue;
    }
    ++s.clean_batches;
    s.clean_launches += b.launches;
    s.clean_seconds += b.seconds;
    per_launch.push_back(b.seconds / static_cast<double>(b.launches));
    if (b.clock_mhz > 0) {
      clock_weighted += b.clock_mhz * b.seconds;
      clock_seconds += b.seconds;
      s.min_clock_mhz = s.min_clock_mhz > 0 ? std::min(s.min_clock_mhz, b.clock_mhz) : b.clock_mhz;
    }
  }
  if (clock_seconds > 0) s.clock_mhz = clock_weighted / clock_seconds;
  if (per_launch.size() < 2) {
    s.noise_pct = std::numeric_limits<double>::infinity();
    return s;
  }
  // Two passes: the deviations are ~1e-4 of the mean, too small for sum-of-squares.
  double mean = 0;
  for (double t : per_launch) mean += t;
  mean /= static_cast<double>(per_launch.size());
  double variance = 0;
  for (double t : per_launch) variance += (t - mean) * (t - mean);
  variance /= static_cast<double>(per_launch.size() - 1);
  s.noise_pct = mean > 0 ? 100.0 * std::sqrt(variance) / mean : 0.0;
  return s;
}

bool converged(const BatchSummary& s, const StopRule& rule) {
  return s.clean_batches >= rule.min_batches && s.noise_pct <= rule.max_noise_pct;
}

bool should_stop(const BatchSummary& s, std::int64_t launches, std::int64_t target, double elapsed_seconds,
                 const StopRule& rule) {
  if (launches < target) return false;
  return converged(s, rule) || elapsed_seconds >= rule.max_seconds;
}

}  // namespace membench::bench
