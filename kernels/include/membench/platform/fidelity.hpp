// Measurement fidelity: emptying the L2 between timed launches, and reading
// the SM clock the GPU ran at while the timed work ran.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace membench {

// Reads `count` floats of scratch so the L2 fills with clean, unrelated lines
// (nothing to write back during the next, timed, kernel). Give it a buffer of
// at least twice the L2. `sink` receives a value only in a case that cannot
// happen with zeroed scratch; it keeps the reads alive. Planned once (the
// resident grid), launched before every cold launch.
struct FlushPlan {
  const float* scratch = nullptr;
  std::size_t count = 0;
  float* sink = nullptr;
  unsigned grid = 0;
};
cudaError_t plan_l2_flush(const float* scratch, std::size_t count, float* sink, FlushPlan* plan);
cudaError_t launch_l2_flush(const FlushPlan& plan, cudaStream_t stream);

// A clock stamp: %globaltimer (ns) and clock64() (SM cycles) read together on
// SM 0, so two stamps taken on either side of some work give the SM clock over
// it. SM clocks are per SM; reading both stamps on the same SM keeps the
// cycle difference meaningful. nanoseconds == 0 means no stamp was written.
struct ClockStamp {
  std::uint64_t nanoseconds = 0;
  std::int64_t cycles = 0;
};

// Writes a stamp into `stamp` (device-visible memory, e.g. mapped host
// memory). One block per SM is launched and the one on SM 0 writes.
cudaError_t launch_clock_stamp(ClockStamp* stamp, int sm_count, cudaStream_t stream);

// Spins one thread for `ns` nanoseconds of %globaltimer (test helper: known
// work between two stamps).
cudaError_t launch_spin(long long ns, cudaStream_t stream);

// The clock between two stamps, in MHz: cycles / nanoseconds x 1000.
// 0 when either stamp is missing or they are out of order.
double clock_mhz(const ClockStamp& start, const ClockStamp& stop);

// Whether a clock is below `threshold` (e.g. 0.9) of the peak clock.
bool is_throttled(double measured_mhz, double peak_mhz, double threshold);

}  // namespace membench
