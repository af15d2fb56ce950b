// Measurement fidelity: emptying the L2 between timed launches, and reading
// the SM clock the GPU actually ran at.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace membench {

// Reads `count` floats of scratch so the L2 fills with clean, unrelated lines
// (nothing to write back during the next, timed, kernel). Give it a buffer of
// at least twice the L2. `sink` receives a value only in a case that cannot
// happen with zeroed scratch; it keeps the reads alive.
cudaError_t launch_l2_flush(const float* scratch, std::size_t count, float* sink, cudaStream_t stream);

// One thread spins for `spin_ns` of %globaltimer and counts clock64() cycles.
struct ClockSample {
  long long cycles = 0;
  long long nanoseconds = 0;
};
cudaError_t launch_clock_probe(ClockSample* sample, long long spin_ns, cudaStream_t stream);

// cycles / nanoseconds x 1000; 0 when the sample is empty.
double clock_mhz(const ClockSample& s);

// Whether a case ran throttled: measured SM clock below 90% of the peak.
bool is_throttled(double measured_mhz, double peak_mhz);

}  // namespace membench
