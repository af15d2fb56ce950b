// The measuring harness every family uses. A family describes a case (what
// to allocate, how to launch, the host reference, bytes and model counters);
// the harness owns the skeleton: allocate, fill, poison, launch once, verify,
// then time batches of launches with CUDA events until the noise is low
// enough, watch the SM clock over each batch, and report per-launch numbers
// and every counter. Bandwidth is computed here and nowhere else.
#pragma once

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli.hpp"
#include "health.hpp"
#include "membench/device_info.hpp"
#include "membench/kernel_shape.hpp"
#include "resume.hpp"

namespace membench::bench {

// A case that cannot run on this GPU or build (too large, feature missing):
// reported as skipped with the message, the run goes on, the exit status is
// not affected.
struct CaseSkipped : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A case that ran and is wrong (verification mismatch): reported as an error,
// and the exit status becomes 1.
struct CaseFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ModelCounter {
  std::string name;
  double value;
};

// What one launch of a case moves and computes, and what the model says.
struct Work {
  double bytes = 0;                  // useful bytes read + written (0: no bandwidth is reported)
  double flops = -1;                 // floating-point operations (< 0: not reported)
  double peak_bytes_per_second = 0;  // for pct_of_peak; 0 means the DRAM peak, < 0 none (no pct_of_peak)
  double dependent_loads = 0;        // loads in one chain per launch (> 0: latency_ns and latency_cycles)
  std::vector<ModelCounter> model;   // reported as counters beside the measurement
};

// A case's launch once its buffers exist: the kernel it runs (for the
// occupancy counters; function == nullptr when none of ours) and the launch,
// its grid and arguments fixed, so that running it is nothing but the launch.
struct BoundLaunch {
  KernelShape shape;
  std::function<cudaError_t(cudaStream_t)> run;
};

// Everything the harness needs to run one case. `bind` works out the launch
// once, for the case's buffers: the launch reads `in`
// (input_elements values of the input type, filled with pattern_value(i,
// seed)) and writes `out` (output_elements of the output type, poisoned
// first); out[i] must then equal expected(i) (float outputs) or
// expected_f64(i) (double outputs) bit for bit, poison for elements that must
// stay unwritten. The expectation must be a pure function: it is called from
// several threads. A family whose input is not the pattern (a pointer chain)
// supplies `fill`, which writes the whole input; its input type is then u32
// or u64, which only size the buffer.
enum class Element { f32, f64, u32, u64 };
inline std::size_t element_bytes(Element e) { return e == Element::f32 || e == Element::u32 ? 4 : 8; }

struct CaseDefinition {
  std::size_t input_elements = 0;
  std::size_t output_elements = 0;
  Element input_type = Element::f32;
  Element output_type = Element::f32;
  std::uint32_t seed = 1;
  std::function<cudaError_t(const void* in, void* out, BoundLaunch* launch)> bind;
  std::function<float(std::size_t i)> expected;
  std::function<double(std::size_t i)> expected_f64;
  std::function<cudaError_t(void* in, cudaStream_t)> fill;  // empty: the pattern
  // What the case wrote outside `out` (a host buffer, another GPU's memory),
  // checked after `out`: an empty result, or what is wrong. The case poisons
  // that memory itself, in its define.
  std::function<std::optional<std::string>()> check;
  bool graphable = true;     // may a batch of launches be captured in a CUDA graph?
  int warm_up_launches = 1;  // before any timing (a chase that must visit its whole working set first)
  Work work;
};

// The bind of a family whose plan is launched as launch(plan, const In* in,
// Out* out, stream) (found by the plan's namespace): the plan, made once in
// the case's define, with the case's buffers.
template <class In = float, class Out = float, class Plan>
auto bind_plan(const Plan& plan) {
  return [plan](const void* in, void* out, BoundLaunch* bound) {
    bound->shape = plan.shape;
    bound->run = [plan, in = static_cast<const In*>(in), out = static_cast<Out*>(out)](cudaStream_t s) {
      return launch(plan, in, out, s);
    };
    return cudaSuccess;
  };
}

// The values of a case's axes, by name: numeric axes from Google Benchmark's
// arguments, named axes (whose value is in the case's name) as their index.
class CaseArgs {
 public:
  using Fixed = std::vector<std::pair<std::string, std::int64_t>>;
  CaseArgs(const std::vector<std::string>& names, const benchmark::State& state, const Fixed& fixed)
      : names_(names), state_(state), fixed_(fixed) {}
  std::int64_t operator[](const std::string& name) const;
  std::size_t size(const std::string& name) const { return static_cast<std::size_t>((*this)[name]); }
  int integer(const std::string& name) const { return static_cast<int>((*this)[name]); }

 private:
  const std::vector<std::string>& names_;
  const benchmark::State& state_;
  const Fixed& fixed_;
};

using Define = std::function<CaseDefinition(const CaseArgs&)>;

// Registers `name` (family/variant/[named:value/...]) over the product of
// `axes` with these ArgNames, manual time and per-launch iterations, once for
// the warm L2 and, with --l2=cold|both, once more with /l2:cold after the
// variant; on options.run_devices.front(), named /device:K after the variant
// when options.tag_devices. `fixed` holds the named axes' values already in the name. Returns
// the full names of the cases registered (what --benchmark_filter sees).
std::vector<std::string> register_case(const std::string& name, const std::vector<std::string>& arg_names,
                                       const std::vector<std::vector<std::int64_t>>& axes, const Define& define,
                                       const cli::Options& options, const CaseArgs::Fixed& fixed = {});

// Reports `launches` launches that took `seconds` of GPU time as that many
// iterations of a manual-time case; must be the case's only use of
// KeepRunning / KeepRunningBatch (it fixes the iteration count on the first
// call, before which the work has been done).
void report_launches(benchmark::State& state, std::int64_t launches, double seconds);

// Process-wide state, set up by main for the first device; a case on another
// device moves the session there.
void start_session(int device, const cli::MeasureOptions& measure);
void end_session();
const DeviceInfo& session_device();
// The health of the session's GPU (NVML), sampled around every case.
HealthMonitor& session_health();

// --resume: the cases to report as FILE has them instead of measuring them.
void set_carried(Carried carried);

// What the run came to: failed cases make the exit status 1.
struct RunSummary {
  int measured = 0;
  int skipped = 0;
  int resumed = 0;                    // carried over from --resume's file
  std::set<std::string> interrupted;  // cases the stop request left unmeasured
  int contended = 0;                  // measured while another process held the GPU
  int clock_events = 0;               // measured under a power, thermal or hardware clock event
  std::string first_other;            // "pid 1234, /usr/bin/python": the first other process seen
  std::uint64_t clock_events_seen = 0;
  std::vector<std::string> failures;  // "case: message"
};
const RunSummary& run_summary();

}  // namespace membench::bench
