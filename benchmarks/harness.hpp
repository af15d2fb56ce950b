// The measuring harness every family uses: one session (device, stream,
// flush buffer), a per-case cache of prepared and verified buffers, and one
// timing loop that owns CUDA events, L2 flushing, batching of short launches,
// the clock probe and every counter. Bandwidth is computed here and nowhere
// else.
#pragma once

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "membench/cuda.hpp"
#include "membench/device_info.hpp"
#include "membench/verify.hpp"

namespace membench::bench {

// Process-wide state, set up by main once a device is chosen.
struct Session {
  DeviceInfo device;
  bool l2_flush = false;
  std::unique_ptr<Stream> stream;
  DeviceBuffer<float> flush_scratch;
  DeviceBuffer<float> flush_sink;
};
Session& session();
void start_session(int device, bool l2_flush);
void end_session();

using Launch = std::function<cudaError_t(cudaStream_t)>;

struct ModelCounter {
  std::string name;
  double value;
};

// What one launch of a case moves and computes, and what the model says.
struct Work {
  double bytes = 0;                  // useful bytes read + written
  double flops = -1;                 // floating-point operations (< 0: not reported)
  double peak_bytes_per_second = 0;  // for pct_of_peak; 0 means the DRAM peak
  std::vector<ModelCounter> model;   // reported as counters beside the measurement
};

// A case ready to time.
class Prepared {
 public:
  template <class T>
  T* allocate(std::size_t count) {
    memory_.emplace_back(count * sizeof(T));
    return memory_.back().as<T>();
  }
  Launch launch;
  Work work;
  int launches_per_iteration = 0;  // decided at the first measurement
  bool graphable = true;           // may a batch be captured in a CUDA graph (else: enqueued one by one)?
  bool profiled = false;           // MEMBENCH_PROFILE: the profiled launches are done

 private:
  std::vector<DeviceAllocation> memory_;
};

// Thrown by a prepare function for a case that cannot or must not be timed;
// the message becomes the case's error_message in the JSON.
struct CaseSkipped : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Skips the case unless `bytes` of device memory are free (with headroom).
void require_device_memory(double bytes);

// The usual pair: `count` floats of input filled with pattern_value(i, seed)
// and `count` floats of poisoned output, owned by `p` (the case is skipped
// when they do not fit).
struct InOut {
  float* in;
  float* out;
};
InOut allocate_in_out(Prepared& p, std::size_t count, std::uint32_t seed);

// Copies `count` floats back and compares them bit for bit with expected(i);
// throws CaseSkipped naming the first bad index and both values.
// Test hook: MEMBENCH_TEST_CORRUPT=1 zeroes the middle element before the
// copy-back, so the tests can prove that a wrong result becomes an error.
void corrupt_for_test(const float* device, std::size_t count);

template <class Expected>
void verify_output(const float* device, std::size_t count, const std::string& array_name, Expected&& expected) {
  corrupt_for_test(device, count);
  const std::vector<float> got = copy_to_host(device, count);
  if (auto bad = first_mismatch(got, std::forward<Expected>(expected))) throw CaseSkipped(describe(*bad, array_name));
}

// Runs one case. `prepare` allocates, fills the input, poisons the output,
// launches once and verifies; it runs once per case (Google Benchmark calls a
// case several times while it sizes the iteration count) and its buffers are
// freed when the next case starts. Then the launch is timed.
void run_case(benchmark::State& state, const std::string& base_name,
              const std::function<void(Prepared&, benchmark::State&)>& prepare);

// Registers `name` over the product of `axes` with these ArgNames, manual
// time, microseconds, and (where Google Benchmark lacks it) a cv statistic.
void register_case(const std::string& name, const std::vector<std::string>& arg_names,
                   const std::vector<std::vector<std::int64_t>>& axes,
                   const std::function<void(Prepared&, benchmark::State&)>& prepare);

// Synchronizes the session stream and surfaces any launch error.
void finish_launch(cudaError_t launched);

}  // namespace membench::bench
