// What a family says about one case: what to allocate, how to launch it once
// its buffers exist, the host reference its output must equal, and what one
// launch moves and what the model predicts. The runner (runner.hpp) does the
// rest: allocate, fill, poison, bind, launch once, verify, time, count.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "cases/case_id.hpp"
#include "membench/platform/arch_facts.hpp"
#include "membench/platform/device_info.hpp"
#include "membench/platform/kernel_shape.hpp"

namespace membench::cases {

// A case that cannot run on this GPU or build (too large, feature missing):
// reported as skipped with the message; the run goes on, the exit status is
// not affected.
struct CaseSkipped : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A case that ran and is wrong (verification mismatch): reported as an error,
// and the exit status becomes 1.
struct CaseFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A model's prediction, reported beside the measurement (model_* or the
// quantity it predicts: sectors_per_request, dram_read_bytes, ...).
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
  double updates = 0;                // atomic read-modify-writes per launch (> 0: updates_per_second)
  double ops = 0;                    // arithmetic operations per launch, an FMA two (> 0: ops_per_second)
  // The pipe's peak in operations each SM clock over the whole GPU (> 0:
  // model_ops_per_second, the peak at the SM clock the batches measured,
  // and pct_of_peak against it).
  double peak_ops_per_clock = 0;
  // The counter that gives pct_of_peak again as the share of cycles the
  // pipe was busy ("fma_pipe_busy_pct", ...): every operation is one slot of
  // the pipe, so Nsight Compute's utilisation of that pipe checks the peak
  // and the operation count ("": none).
  std::string pipe_busy;
  // The host paces the time and its noise (a pageable copy's staging by the
  // CPU, a small copy's round trip through the driver, page faults the
  // driver serves): the gates judge such a case against its own noise, not
  // as a sign that the GPU was shared.
  bool host_paced = false;
  // The peak rests on a fact the architecture table only assumes (no
  // public figure): pct_of_peak then says how near an assumed ceiling the
  // case comes, and a provisional check does not judge by it.
  bool peak_assumed = false;
  std::vector<ModelCounter> model;
  // The models this GPU's architecture facts cannot give, each "counter:
  // why" (arch_facts.hpp's unknown_fact): reported in the case's
  // label, with no value.
  std::vector<std::string> unknown;
};

// The shared-memory peak a case is measured against: the device's, or -1
// (no pct_of_peak) with why in `w.unknown` where the architecture facts
// cannot give it.
inline double shared_peak(const DeviceInfo& gpu, Work& w) {
  if (gpu.smem_peak_bytes_per_second > 0) return gpu.smem_peak_bytes_per_second;
  w.unknown.push_back("pct_of_peak: " + unknown_fact(gpu.cc_major, gpu.cc_minor, Fact::shared_banks));
  return -1;
}

// What a case measures itself after its timing: counters, and where some
// could not be measured, why (the runner says each reason once a run).
struct SelfMeasured {
  std::vector<ModelCounter> counters;
  std::string unmeasured;  // empty: all measured
};

enum class Element { f32, f64, u32, u64 };
inline std::size_t element_bytes(Element e) { return e == Element::f32 || e == Element::u32 ? 4 : 8; }

// The element a C++ type is (std::byte: none, the bytes of any buffer).
template <class T>
constexpr bool is_element(Element e) {
  using U = std::remove_const_t<T>;
  if constexpr (std::is_same_v<U, std::byte>)
    return true;
  else if constexpr (std::is_same_v<U, float>)
    return e == Element::f32;
  else if constexpr (std::is_same_v<U, double>)
    return e == Element::f64;
  else if constexpr (std::is_same_v<U, std::uint32_t>)
    return e == Element::u32;
  else if constexpr (std::is_same_v<U, std::uint64_t>)
    return e == Element::u64;
  else
    static_assert(sizeof(U) == 0, "a case's buffers hold float, double, std::uint32_t or std::uint64_t");
}

// A case's two buffers as the runner made them for it: handed out by the
// types the case declared (input_type, output_type) and refused, a bug in the
// family (std::logic_error), by any other. std::byte sees any buffer as its
// bytes, as a copy does. The pointers are on the GPU being measured.
class CaseBuffers {
 public:
  CaseBuffers(void* in, Element in_type, void* out, Element out_type)
      : in_(in), out_(out), in_type_(in_type), out_type_(out_type) {}
  template <class T>
  const T* input() const {
    return as<T>(in_, in_type_, "input");
  }
  template <class T>
  T* output() const {
    return as<T>(out_, out_type_, "output");
  }
  // For a case's own fill, the only code that writes the input.
  template <class T>
  T* input_to_fill() const {
    return as<T>(in_, in_type_, "input");
  }

 private:
  template <class T>
  static T* as(void* p, Element declared, const char* which) {
    if (!is_element<T>(declared))
      throw std::logic_error(std::string("a case asked for its ") + which + " as another type than it declared");
    return static_cast<T*>(p);
  }
  void* in_;
  void* out_;
  Element in_type_;
  Element out_type_;
};

// A case's launch once its buffers exist: the kernel it runs (for the
// occupancy counters; function == nullptr when none of ours) and the launch,
// its grid and arguments fixed, so that running it is nothing but the launch.
// `before_each`, where a case has one, is enqueued before every launch and
// outside its timing (pages moved back to the host before a launch that
// faults them in): such a case is timed one launch at a time.
// `round`: the launches after which `run` has taken every turn, where its
// launches take turns (the atomics' placements, a chase's copies): batches
// hold whole rounds, or one launch each where a case has `before_each`.
struct BoundLaunch {
  KernelShape shape;
  std::function<cudaError_t(cudaStream_t)> run;
  std::function<cudaError_t(cudaStream_t)> before_each;
  int round = 1;
};

// Everything the runner needs for one case. `bind` works out the launch once,
// for the case's buffers; whatever the launch depends on that bind enqueues
// (a copy of the input into constant memory) goes on `stream`, the stream
// the fill came before and the launches come after, so that it is ordered
// by the stream and never by an idle GPU. The launch reads the input (input_elements values
// of the input type, filled with pattern_value(i, seed)) and writes the output
// (output_elements of the output type, poisoned first); out[i] must then
// equal expected(i) (float outputs) or expected_f64(i) (double outputs) bit
// for bit, poison for elements that must stay unwritten. The expectation must
// be a pure function: it is called from several threads. A family whose
// input is not the pattern (a pointer chain) supplies `fill`, which writes
// the whole input, of the type it declares (u32 or u64).
struct CaseDefinition {
  std::size_t input_elements = 0;
  std::size_t output_elements = 0;
  Element input_type = Element::f32;
  Element output_type = Element::f32;
  std::uint32_t seed = 1;
  std::function<cudaError_t(const CaseBuffers& buffers, cudaStream_t stream, BoundLaunch* launch)> bind;
  std::function<float(std::size_t i)> expected;
  std::function<double(std::size_t i)> expected_f64;
  std::function<cudaError_t(const CaseBuffers& buffers, cudaStream_t)> fill;  // empty: the pattern
  // What the case wrote outside `out` (a host buffer, another GPU's memory),
  // checked after `out`: an empty result, or what is wrong. The case poisons
  // that memory itself, in its define.
  std::function<std::optional<std::string>()> check;
  // Counters the case measures itself once the runner has timed it, from
  // launches of its own on `stream` and events of its own (each GPU's share
  // of a node-wide copy): reported beside the runner's.
  std::function<SelfMeasured(cudaStream_t stream)> after_timing;
  // What the case changed in the context for as long as it lives (peer
  // access, the L2's set-aside), each a scope that puts it back when it goes:
  // the runner lets the case go before it defines the next.
  std::vector<std::shared_ptr<const void>> scopes;
  bool graphable = true;     // may a batch of launches be captured in a CUDA graph?
  int warm_up_launches = 1;  // before any timing (a chase that must visit its whole working set first)
  // The case's ceiling scales with the SM clock and its model is taken at
  // the clock it measured (a compute pipe): a batch below the throttle
  // threshold is kept, not dropped, since its clock is what it is judged at.
  bool paced_by_clock = false;
  // The copy engines move its bytes, not the SMs: the SM clock paces none of
  // it, and no batch is dropped as throttled for a low SM clock (beside
  // another job an SM clock held low dropped every batch of a host copy).
  bool copy_engine = false;
  Work work;
};

// The bind of a family whose plan is launched as launch(plan, const In* in,
// Out* out, stream) (found by the plan's namespace): the plan, made once in
// the case's define, with the case's buffers. `keep` is what the launch needs
// alive beside them (an index buffer, a scope), held as long as the launch.
template <class In = float, class Out = float, class Plan>
auto bind_plan(const Plan& plan, std::shared_ptr<const void> keep = nullptr) {
  return [plan, keep](const CaseBuffers& buffers, cudaStream_t, BoundLaunch* bound) {
    bound->shape = plan.shape;
    bound->run = [plan, keep, in = buffers.input<In>(), out = buffers.output<Out>()](cudaStream_t s) {
      return launch(plan, in, out, s);
    };
    return cudaSuccess;
  };
}

// What a family's define is handed: the values of the case's axes, by name
// (a named axis: the index of its name), and the GPU being measured (its
// sizes and peaks), never a global.
class CaseArgs {
 public:
  CaseArgs(const CaseId& id, const DeviceInfo& device) : id_(id), device_(device) {}
  std::int64_t operator[](const std::string& name) const { return id_[name]; }
  std::size_t size(const std::string& name) const { return static_cast<std::size_t>(id_[name]); }
  int integer(const std::string& name) const { return static_cast<int>(id_[name]); }
  const DeviceInfo& device() const { return device_; }

 private:
  const CaseId& id_;
  const DeviceInfo& device_;
};

using Define = std::function<CaseDefinition(const CaseArgs&)>;

}  // namespace membench::cases
