#include "harness.hpp"

#include <cuda_profiler_api.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include "membench/cuda.hpp"
#include "membench/fidelity.hpp"
#include "membench/pattern.hpp"
#include "membench/verify.hpp"
#include "health.hpp"
#include "stop.hpp"
#include "stopping.hpp"

#ifndef MEMBENCH_GBENCH_VERSION
#define MEMBENCH_GBENCH_VERSION 10800
#endif

namespace membench::bench {

namespace {

// A batch is the launches between one pair of CUDA events. It aims at
// kBatchTargetSeconds of GPU time, so the events' own cost and resolution
// weigh little against it and the noise estimate gets many samples quickly.
constexpr double kBatchTargetSeconds = 1e-3;
constexpr int kMaxBatch = 1000;
// NVML is asked about the GPU's health at most this often while a case runs
// (and at its start and end).
constexpr double kHealthSampleSeconds = 0.02;
// real_time is reported in microseconds (Unit(benchmark::kMicrosecond)).
constexpr double kReportedPerSecond = 1e6;

// ---- the session ----------------------------------------------------------------

struct Session {
  DeviceInfo device;
  cli::MeasureOptions measure;
  std::unique_ptr<Stream> stream;
  DeviceBuffer<float> flush_scratch;  // twice the L2, zeroed; read before every cold launch
  DeviceBuffer<float> flush_sink;
  FlushPlan flush;
  MappedBuffer<ClockStamp> stamps;    // two batch slots x (before, after)
  std::string lost;                   // set once a CUDA error has left the context unusable
  std::optional<std::set<unsigned>> own_pids;  // this process as NVML lists it, found at the first context
  HealthMonitor health;
  Carried carried;                    // --resume: cases measured already
  RunSummary summary;
};
Session g_session;

// How far the replay of each carried case has got (Google Benchmark calls a
// case once per repetition, and the first repetition again with more
// iterations when --benchmark_min_time asks for them).
struct ReplayState {
  std::size_t index = 0;
  int calls = 0;
  benchmark::IterationCount last_max = 0;
};
std::map<std::string, ReplayState> g_replay;

cudaStream_t session_stream() { return g_session.stream->get(); }

StopRule stop_rule() {
  const cli::MeasureOptions& m = g_session.measure;
  return {m.min_batches, m.max_noise_pct, m.max_seconds, m.throttle_pct / 100.0, g_session.device.sm_clock_khz / 1e3};
}

// ---- a case, prepared and verified once --------------------------------------

// Owns an instantiated graph of `count` back-to-back launches.
class Graph {
 public:
  Graph(const BoundLaunch& launch, int count, cudaStream_t stream) {
    MEMBENCH_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
    cudaError_t rc = cudaSuccess;
    for (int i = 0; i < count && rc == cudaSuccess; ++i) rc = launch.run(stream);
    cudaGraph_t graph = nullptr;
    const cudaError_t end = cudaStreamEndCapture(stream, &graph);
    MEMBENCH_CUDA(rc);
    MEMBENCH_CUDA(end);
    const cudaError_t inst = cudaGraphInstantiate(&exec_, graph, 0);
    cudaGraphDestroy(graph);
    MEMBENCH_CUDA(inst);
  }
  ~Graph() {
    if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
  }
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  cudaError_t launch(cudaStream_t stream) const { return cudaGraphLaunch(exec_, stream); }

 private:
  cudaGraphExec_t exec_ = nullptr;
};

struct Prepared {
  CaseDefinition def;
  DeviceAllocation input, output;
  std::optional<KernelFacts> facts;
  int batch_launches = 0;  // decided at the first measurement
  std::unique_ptr<Graph> graph;
  bool profiled = false;

  const void* in() const { return input.get(); }
  void* out() const { return output.get(); }
  BoundLaunch bound;
  cudaError_t launch(cudaStream_t s) const { return bound.run(s); }
};

// The case being run, kept across Google Benchmark's repeated calls of it.
struct CaseCache {
  std::string key;
  std::unique_ptr<Prepared> prepared;
  std::string skip, failure;
  bool counted = false;
} g_cache;

void finish(cudaError_t launched) {
  MEMBENCH_CUDA(launched);
  MEMBENCH_CUDA(cudaStreamSynchronize(session_stream()));
}

void require_device_memory(double bytes) {
  std::size_t free_bytes = 0, total_bytes = 0;
  MEMBENCH_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  constexpr double kHeadroom = 64.0 * (1 << 20);
  if (bytes + kHeadroom > static_cast<double>(free_bytes)) {
    std::ostringstream os;
    os.precision(3);
    os << "does not fit: needs " << bytes / (1 << 30) << " GiB of device memory, "
       << static_cast<double>(free_bytes) / (1 << 30) << " GiB free of " << static_cast<double>(total_bytes) / (1 << 30)
       << " GiB";
    throw CaseSkipped(os.str());
  }
}

// Test hook (MeasureOptions::corrupt_for_test): zeroes the middle output
// element before the copy-back, so the tests can prove that a wrong result
// becomes an error.
void corrupt_for_test(void* device, std::size_t count, std::size_t bytes_each) {
  if (g_session.measure.corrupt_for_test && count > 0)
    MEMBENCH_CUDA(cudaMemset(static_cast<char*>(device) + count / 2 * bytes_each, 0, bytes_each));
}

void verify(const Prepared& p) {
  const CaseDefinition& def = p.def;
  corrupt_for_test(p.out(), def.output_elements, element_bytes(def.output_type));
  std::optional<Mismatch> bad;
  if (def.output_elements == 0) {
    // Nothing written on this GPU (a copy to the host or to another GPU): `check` has it.
  } else if (def.output_type == Element::f32)
    bad = all_mismatches(copy_to_host(static_cast<const float*>(p.out()), def.output_elements), def.expected);
  else
    bad = all_mismatches(copy_to_host(static_cast<const double*>(p.out()), def.output_elements), def.expected_f64);
  if (bad) throw CaseFailed(describe(*bad, "out"));
  if (def.check)
    if (const auto wrong = def.check()) throw CaseFailed(*wrong);
}

void fill_input(const Prepared& p, cudaStream_t stream) {
  const CaseDefinition& def = p.def;
  if (def.input_elements == 0) return;
  if (def.fill) MEMBENCH_CUDA(def.fill(p.input.get(), stream));
  else if (def.input_type == Element::f32)
    MEMBENCH_CUDA(launch_fill_pattern(static_cast<float*>(p.input.get()), def.input_elements, def.seed, stream));
  else if (def.input_type == Element::f64)
    MEMBENCH_CUDA(launch_fill_pattern(static_cast<double*>(p.input.get()), def.input_elements, def.seed, stream));
  else
    throw std::logic_error("an integer input needs the case's own fill");
}

// Allocate, fill, poison, launch once, verify.
std::unique_ptr<Prepared> prepare(const Define& define, const CaseArgs& args) {
  auto p = std::make_unique<Prepared>();
  p->def = define(args);
  const CaseDefinition& def = p->def;
  const std::size_t in_bytes = def.input_elements * element_bytes(def.input_type);
  const std::size_t out_bytes = def.output_elements * element_bytes(def.output_type);
  require_device_memory(static_cast<double>(in_bytes + out_bytes));
  p->input = DeviceAllocation(in_bytes);
  p->output = DeviceAllocation(out_bytes);
  const cudaStream_t stream = session_stream();
  fill_input(*p, stream);
  if (out_bytes > 0) MEMBENCH_CUDA(launch_poison(p->out(), out_bytes, stream));
  MEMBENCH_CUDA(def.bind(p->input.get(), p->output.get(), &p->bound));
  finish(p->launch(stream));
  verify(*p);
  if (p->bound.shape.function != nullptr) {
    KernelFacts facts;
    MEMBENCH_CUDA(kernel_facts(p->bound.shape, &facts));
    p->facts = facts;
  }
  return p;
}

// ---- timing --------------------------------------------------------------------

// MEMBENCH_PROFILE=K (set by scripts/ncu_check.py): K launches per case inside
// cudaProfilerStart/Stop, after the warm-up, so `ncu --profile-from-start off`
// sees exactly them; 0 when unset.
int profiled_launches() {
  static const int k = [] {
    const char* v = std::getenv("MEMBENCH_PROFILE");
    return v == nullptr ? 0 : std::max(1, std::atoi(v));
  }();
  return k;
}

void warm_up(Prepared& p) {
  for (int k = 0; k < std::max(p.def.warm_up_launches, 1); ++k) finish(p.launch(session_stream()));
  if (p.profiled || profiled_launches() == 0) return;
  MEMBENCH_CUDA(cudaProfilerStart());
  for (int k = 0; k < profiled_launches(); ++k) finish(p.launch(session_stream()));
  MEMBENCH_CUDA(cudaProfilerStop());
  p.profiled = true;
}

// Launches per batch: enough for kBatchTargetSeconds, one when every launch
// must start with a cold L2; batches of several launches replay a CUDA graph
// where the case allows it.
void size_batches(Prepared& p, bool cold) {
  if (p.batch_launches > 0) return;
  const cudaStream_t stream = session_stream();
  int launches = 1;
  if (!cold) {
    Event start, stop;
    MEMBENCH_CUDA(cudaEventRecord(start.get(), stream));
    MEMBENCH_CUDA(p.launch(stream));
    MEMBENCH_CUDA(cudaEventRecord(stop.get(), stream));
    const double one = std::max(elapsed_ms(start, stop) * 1e-3, 1e-7);
    launches = std::clamp(static_cast<int>(std::ceil(kBatchTargetSeconds / one)), 1, kMaxBatch);
  }
  if (launches > 1 && p.def.graphable) p.graph = std::make_unique<Graph>(p.bound, launches, stream);
  p.batch_launches = launches;
}

// Enqueues a batch into one of two slots. Per slot: [flush,] clock stamp,
// start event, the launches, stop event, clock stamp, done event. A slot is
// enqueued again only after wait() has read it.
class BatchTimer {
 public:
  BatchTimer(const Prepared& p, bool cold) : p_(p), cold_(cold) {}

  void enqueue(int slot) {
    const cudaStream_t stream = session_stream();
    ClockStamp* stamps = g_session.stamps.device() + 2 * slot;
    g_session.stamps.host()[2 * slot] = ClockStamp{};
    g_session.stamps.host()[2 * slot + 1] = ClockStamp{};
    if (cold_) {
      MEMBENCH_CUDA(launch_l2_flush(g_session.flush, stream));
    }
    MEMBENCH_CUDA(launch_clock_stamp(stamps, g_session.device.sm_count, stream));
    MEMBENCH_CUDA(cudaEventRecord(start_[slot].get(), stream));
    if (p_.graph) {
      MEMBENCH_CUDA(p_.graph->launch(stream));
    } else {
      for (int k = 0; k < p_.batch_launches; ++k) MEMBENCH_CUDA(p_.launch(stream));
    }
    MEMBENCH_CUDA(cudaEventRecord(stop_[slot].get(), stream));
    MEMBENCH_CUDA(launch_clock_stamp(stamps + 1, g_session.device.sm_count, stream));
    MEMBENCH_CUDA(cudaEventRecord(done_[slot].get(), stream));
  }

  BatchSample wait(int slot) {
    MEMBENCH_CUDA(cudaEventSynchronize(done_[slot].get()));
    const ClockStamp* stamps = g_session.stamps.host() + 2 * slot;
    return {elapsed_ms(start_[slot], stop_[slot]) * 1e-3, p_.batch_launches, clock_mhz(stamps[0], stamps[1])};
  }

 private:
  const Prepared& p_;
  bool cold_;
  Event start_[2], stop_[2], done_[2];
};

// The run was asked to stop while a case was being measured: the case is
// abandoned, reported as skipped with the reason.
struct CaseInterrupted : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Timed batches until Google Benchmark has its `target` launches and the
// noise or the time limit says stop. Two batches are kept in flight, so the
// GPU never waits for the host between them; the one still in flight when the
// rule says stop is waited for and kept. The GPU's health is sampled between
// batches; a stop request abandons the case once the queued batches are done.
BatchSummary collect(const Prepared& p, bool cold, std::int64_t target) {
  const StopRule rule = stop_rule();
  const auto began = std::chrono::steady_clock::now();
  double sampled = 0;
  BatchTimer timer(p, cold);
  BatchStats stats(rule);
  std::int64_t launches = 0;
  timer.enqueue(0);
  timer.enqueue(1);
  for (int slot = 0;; slot = 1 - slot) {
    const BatchSample done = timer.wait(slot);
    stats.add(done);
    launches += done.launches;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    if (elapsed - sampled >= kHealthSampleSeconds) {
      g_session.health.sample();
      sampled = elapsed;
    }
    if (const auto why = stop_reason()) {
      timer.wait(1 - slot);
      throw CaseInterrupted(*why);
    }
    if (should_stop(stats.summary(), launches, target, elapsed, rule)) {
      stats.add(timer.wait(1 - slot));
      g_session.health.sample();
      return stats.summary();
    }
    timer.enqueue(slot);
  }
}

// ---- reporting -----------------------------------------------------------------

void report_skip(benchmark::State& state, const std::string& why) {
#if MEMBENCH_GBENCH_VERSION >= 10800
  state.SkipWithMessage(why.c_str());
#else
  state.SkipWithError(("skipped: " + why).c_str());  // Google Benchmark 1.7 knows no other kind of skip
#endif
}

std::string describe_throttle(const BatchSummary& s, const StopRule& rule) {
  std::ostringstream os;
  os.precision(4);
  os << "throttled: " << s.throttled_batches << " of " << s.throttled_batches + s.clean_batches
     << " batches ran below " << rule.throttle_fraction * 100 << "% of the " << rule.peak_mhz << " MHz peak SM clock";
  return os.str();
}

void set_counters(benchmark::State& state, const Prepared& p, const BatchSummary& s, const StopRule& rule) {
  const Work& w = p.def.work;
  const double rate = s.clean_seconds > 0 ? w.bytes * static_cast<double>(s.clean_launches) / s.clean_seconds : 0;
  const double peak = w.peak_bytes_per_second != 0 ? w.peak_bytes_per_second : g_session.device.dram_peak_bytes_per_second;
  auto& c = state.counters;
  if (w.bytes > 0) {
    c["bytes"] = w.bytes;  // per launch, like real_time
    c["bytes_per_second"] = rate;
    if (peak > 0) c["pct_of_peak"] = 100.0 * rate / peak;
  }
  if (w.dependent_loads > 0 && s.clean_launches > 0) {
    const double ns = s.clean_seconds / static_cast<double>(s.clean_launches) / w.dependent_loads * 1e9;
    c["latency_ns"] = ns;
    c["latency_cycles"] = ns * s.clock_mhz * 1e-3;  // at the SM clock measured over the batches
  }
  if (w.flops >= 0) {
    c["flops_per_byte"] = w.flops / w.bytes;
    c["gflops_per_second"] = s.clean_seconds > 0 ? w.flops * static_cast<double>(s.clean_launches) / s.clean_seconds * 1e-9 : 0;
  }
  for (const auto& m : w.model) c[m.name] = m.value;
  c["noise_pct"] = std::isfinite(s.noise_pct) ? s.noise_pct : -1;
  c["noisy"] = converged(s, rule) ? 0 : 1;
  c["batches"] = s.clean_batches;
  c["batch_launches"] = p.batch_launches;
  c["throttled_batches"] = s.throttled_batches;
  c["sm_clock_mhz"] = s.clock_mhz;
  c["device"] = g_session.device.ordinal;
  const CaseHealth& health = g_session.health.current();
  if (health.other_processes) {
    c["other_processes"] = *health.other_processes;
    c["contended"] = health.contended() ? 1 : 0;
  }
  if (health.clock_event_reasons) {
    c["clock_event_reasons"] = static_cast<double>(*health.clock_event_reasons);
    c["clock_event"] = health.clock_event() ? 1 : 0;
  }
  if (p.facts) {
    c["grid"] = p.bound.shape.grid;
    c["block"] = p.bound.shape.block;
    c["blocks_per_sm"] = p.facts->blocks_per_sm;
    c["registers"] = p.facts->registers;
    c["smem_per_block"] = static_cast<double>(p.facts->smem_per_block);
  }
  if (s.throttled_batches > 0 && s.clean_batches < rule.min_batches) state.SetLabel(describe_throttle(s, rule));
}

// Google Benchmark sees one iteration per launch. Its first call of a case
// asks for one iteration, and the count of a timed loop is fixed by its first
// KeepRunningBatch: so the batches run first, until the stopping rule (and
// Google Benchmark's own --benchmark_min_time, through `target`) is met, and
// the launches are then reported in one KeepRunningBatch with their GPU time.
// `iterations` is the number of launches, real_time the CUDA-event time per
// launch; cpu_time is Google Benchmark's CPU timer over that report, which
// holds no work, and means nothing here.
void measure(benchmark::State& state, Prepared& p, bool cold) {
  g_session.health.begin_case();
  warm_up(p);
  size_batches(p, cold);
  const benchmark::IterationCount target = state.max_iterations;
  const StopRule rule = stop_rule();
  const BatchSummary s = collect(p, cold, target);
  if (s.clean_launches == 0) {
    report_skip(state, describe_throttle(s, rule) + "; no batch is left to report");
    return;
  }
  report_launches(state, s.clean_launches, s.clean_seconds);
  set_counters(state, p, s, rule);
}

// The name Google Benchmark gives a case: the registered name, each argument
// as name:value, and /manual_time.
std::string case_name(const std::string& registered, const std::vector<std::string>& arg_names,
                      const std::vector<std::int64_t>& values) {
  std::string name = registered;
  for (std::size_t a = 0; a < arg_names.size(); ++a) name += "/" + arg_names[a] + ":" + std::to_string(values[a]);
  return name + "/manual_time";
}

std::string case_key(const std::string& name, const CaseArgs& args, const std::vector<std::string>& arg_names) {
  std::vector<std::int64_t> values;
  for (const auto& a : arg_names) values.push_back(args[a]);
  return case_name(name, arg_names, values);
}

// Reports a case FILE of --resume holds as it was measured: its iterations,
// its per-launch time (exactly, in the unit of the file) and every counter,
// with resumed = 1. No GPU work.
void replay(benchmark::State& state, const std::string& key, const std::vector<CarriedRun>& runs) {
  ReplayState& r = g_replay[key];
  if (r.calls > 0 && state.max_iterations <= r.last_max) ++r.index;  // the next repetition
  r.last_max = state.max_iterations;
  ++r.calls;
  const CarriedRun& run = runs[std::min(r.index, runs.size() - 1)];
  static const std::map<std::string, double> kPerSecond = {{"ns", 1e9}, {"us", 1e6}, {"ms", 1e3}, {"s", 1.0}};
  const auto unit = kPerSecond.find(run.time_unit);
  const double real_time = unit == kPerSecond.end() || unit->second == kReportedPerSecond
                               ? run.real_time
                               : run.real_time / unit->second * kReportedPerSecond;
  const benchmark::IterationCount iterations = std::max<benchmark::IterationCount>(run.iterations, state.max_iterations);
  if (state.KeepRunningBatch(iterations)) {
    state.SetIterationTime(manual_seconds_for(real_time, kReportedPerSecond, iterations));
    while (state.KeepRunningBatch(1)) {
    }
  }
  for (const auto& [name, value] : run.counters) state.counters[name] = value;
  state.counters["resumed"] = 1;
  if (!run.label.empty()) state.SetLabel(run.label);
}

// The first time a case sees another process or a clock event, stderr says so (once per run).
void note_health(const std::string& key) {
  const CaseHealth& h = g_session.health.current();
  RunSummary& s = g_session.summary;
  if (h.contended()) {
    ++s.contended;
    if (s.first_other.empty()) {
      const unsigned pid = h.first_other_pid.value_or(0);
      const std::string name = nvml::process_name(pid);
      s.first_other = "pid " + std::to_string(pid) + (name.empty() ? "" : ", " + name);
      std::cerr << "membench: another process holds the GPU (" << s.first_other << ") during " << key
                << "; cases measured while one does are marked contended = 1\n";
    }
  }
  if (h.clock_event()) {
    ++s.clock_events;
    const std::uint64_t marks = *h.clock_event_reasons & kClockEventMarks;
    if ((marks & ~s.clock_events_seen) != 0) {
      s.clock_events_seen |= marks;
      std::cerr << "membench: clock event during " << key << ": " << clock_event_names(marks)
                << "; such cases are marked clock_event = 1\n";
    }
  }
}

// A CUDA error that survives a synchronize has left the context unusable:
// every later case would fail for this one's reason.
void note_failure(const std::string& key, const std::string& message) {
  if (!g_cache.counted) g_session.summary.failures.push_back(key + ": " + message);
  g_cache.counted = true;
  cudaGetLastError();
  if (cudaDeviceSynchronize() != cudaSuccess && g_session.lost.empty()) g_session.lost = key + ": " + message;
}

// Moves the session to `device` (the previous device's buffers are freed first).
void use_device(int device) {
  if (g_session.stream && g_session.device.ordinal == device) return;
  const cli::MeasureOptions measure = g_session.measure;
  end_session();
  start_session(device, measure);
}

// Makes `key` the cached case; true when it was not already (the previous
// case's buffers are freed first).
bool start_case(const std::string& key) {
  if (g_cache.key == key) return false;
  g_cache = CaseCache{};
  g_cache.key = key;
  return true;
}

void count_once(int RunSummary::*counter) {
  if (!g_cache.counted) ++(g_session.summary.*counter);
  g_cache.counted = true;
}

void run_case(benchmark::State& state, const std::string& name, const std::vector<std::string>& arg_names,
              const CaseArgs::Fixed& fixed, const Define& define, bool cold, int device) {
  const CaseArgs args(arg_names, state, fixed);
  const std::string key = case_key(name, args, arg_names);
  if (const auto carried = g_session.carried.cases.find(key); carried != g_session.carried.cases.end()) {
    start_case(key);
    replay(state, key, carried->second);
    count_once(&RunSummary::resumed);
    return;
  }
  if (const auto why = stop_reason()) {
    start_case(key);
    report_skip(state, *why);
    g_session.summary.interrupted.insert(key);
    return;
  }
  try {
    use_device(device);
    if (start_case(key)) {
      if (!g_session.lost.empty()) {
        g_cache.failure = "not run: the CUDA context was lost after " + g_session.lost;
      } else {
        try {
          g_cache.prepared = prepare(define, args);
        } catch (const CaseSkipped& e) {
          g_cache.skip = e.what();
        } catch (const CaseFailed& e) {
          g_cache.failure = e.what();
        }
      }
    }
    if (!g_cache.skip.empty()) {
      report_skip(state, g_cache.skip);
      count_once(&RunSummary::skipped);
      return;
    }
    if (!g_cache.failure.empty()) {
      state.SkipWithError(g_cache.failure.c_str());
      note_failure(key, g_cache.failure);
      return;
    }
    measure(state, *g_cache.prepared, cold);
    note_health(key);
    const CaseHealth& health = g_session.health.current();
    if (g_session.measure.exclusive && health.contended()) {
      const std::string why = "--exclusive: another process (" + g_session.summary.first_other +
                              ") used the GPU during this case";
      state.SkipWithError(why.c_str());
      note_failure(key, why);
      request_stop("stopped: --exclusive and another process (" + g_session.summary.first_other +
                   ") holds the GPU");
      return;
    }
    count_once(&RunSummary::measured);
  } catch (const CaseInterrupted& e) {
    g_cache.prepared.reset();
    report_skip(state, e.what());
    g_session.summary.interrupted.insert(key);
  } catch (const std::exception& e) {
    const std::string message = std::string("CUDA failure: ") + e.what();
    g_cache.prepared.reset();
    g_cache.failure = message;
    state.SkipWithError(message.c_str());
    note_failure(key, message);
  }
}

}  // namespace

void report_launches(benchmark::State& state, std::int64_t launches, double seconds) {
  // Throttled batches are dropped; if fewer launches than Google Benchmark
  // asked for are left, the time is scaled so the per-launch time holds.
  const benchmark::IterationCount reported = std::max<benchmark::IterationCount>(launches, state.max_iterations);
  if (state.KeepRunningBatch(reported)) {
    state.SetIterationTime(seconds * static_cast<double>(reported) / static_cast<double>(launches));
    while (state.KeepRunningBatch(1)) {
    }
  }
}

std::int64_t CaseArgs::operator[](const std::string& name) const {
  for (std::size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name) return state_.range(i);
  for (const auto& [axis, value] : fixed_)
    if (axis == name) return value;
  throw std::logic_error("case has no axis '" + name + "'");
}

std::vector<std::string> register_case(const std::string& name, const std::vector<std::string>& arg_names,
                                       const std::vector<std::vector<std::int64_t>>& axes, const Define& define,
                                       const cli::Options& options, const CaseArgs::Fixed& fixed) {
  std::vector<bool> modes;
  if (options.measure.l2 != cli::L2Mode::cold) modes.push_back(false);
  if (options.measure.l2 != cli::L2Mode::warm) modes.push_back(true);
  std::vector<std::string> names;
  const auto variant_end = name.find('/', name.find('/') + 1);  // family/variant[/named:value...]
  const int device = options.run_devices.empty() ? 0 : options.run_devices.front();
  for (const bool cold : modes) {
    std::string tags = options.tag_devices ? "/device:" + std::to_string(device) : "";
    if (cold) tags += "/l2:cold";
    std::string full = name;
    full.insert(variant_end == std::string::npos ? full.size() : variant_end, tags);
    auto* b = benchmark::RegisterBenchmark(full.c_str(), [full, arg_names, fixed, define, cold, device](benchmark::State& state) {
      run_case(state, full, arg_names, fixed, define, cold, device);
    });
    b->ArgsProduct(axes)->ArgNames(arg_names)->UseManualTime()->Unit(benchmark::kMicrosecond);
    // The names Google Benchmark gives them (its ArgsProduct varies the first axis fastest).
    std::vector<std::size_t> index(axes.size(), 0);
    for (bool more = !axes.empty(); more;) {
      std::vector<std::int64_t> values;
      for (std::size_t a = 0; a < axes.size(); ++a) values.push_back(axes[a][index[a]]);
      names.push_back(case_name(full, arg_names, values));
      std::size_t a = 0;
      while (a < axes.size() && ++index[a] == axes[a].size()) index[a++] = 0;
      more = a < axes.size();
    }
  }
  return names;
}

void start_session(int device, const cli::MeasureOptions& measure) {
  g_session.device = query_device(device);
  // NVML lists our process by the pid of its own namespace, which may not be
  // ours: the processes seen before and after our first context tell.
  const std::vector<unsigned> before = g_session.own_pids ? std::vector<unsigned>{} : processes_on(g_session.device.pci_bus_id);
  MEMBENCH_CUDA(cudaSetDevice(device));
  MEMBENCH_CUDA(cudaFree(nullptr));  // the context, now
  if (!g_session.own_pids)
    g_session.own_pids = own_pids(before, processes_on(g_session.device.pci_bus_id), static_cast<unsigned>(getpid()));
  g_session.health = HealthMonitor(g_session.device.pci_bus_id, *g_session.own_pids);
  g_session.measure = measure;
  g_session.stream = std::make_unique<Stream>();
  g_session.stamps = MappedBuffer<ClockStamp>(4);
  if (measure.l2 != cli::L2Mode::warm) {
    // Twice the L2, zeroed: reading it leaves the L2 full of clean lines.
    const std::size_t floats = 2 * g_session.device.l2_bytes / sizeof(float);
    g_session.flush_scratch = DeviceBuffer<float>(floats);
    g_session.flush_sink = DeviceBuffer<float>(1);
    MEMBENCH_CUDA(cudaMemset(g_session.flush_scratch.get(), 0, g_session.flush_scratch.bytes()));
    MEMBENCH_CUDA(plan_l2_flush(g_session.flush_scratch.get(), g_session.flush_scratch.size(), g_session.flush_sink.get(),
                                &g_session.flush));
  }
}

void end_session() {
  g_cache = CaseCache{};
  g_session.stream.reset();
  g_session.flush_scratch = DeviceBuffer<float>();
  g_session.flush_sink = DeviceBuffer<float>();
  g_session.stamps = MappedBuffer<ClockStamp>();
}

const DeviceInfo& session_device() { return g_session.device; }

HealthMonitor& session_health() { return g_session.health; }

void set_carried(Carried carried) { g_session.carried = std::move(carried); }

const RunSummary& run_summary() { return g_session.summary; }

}  // namespace membench::bench
