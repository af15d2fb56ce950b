#include "engine/measure.hpp"

#include <cuda_profiler_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "engine/stop.hpp"
#include "membench/platform/cuda.hpp"
#include "membench/platform/fidelity.hpp"

namespace membench::engine {

namespace {

// A batch aims at this much GPU time, so the events' own cost and resolution
// weigh little against it and the noise estimate gets many samples quickly.
constexpr double kBatchTargetSeconds = 1e-3;
constexpr int kMaxBatch = 1000;
// A turn timed alone is summed over rounds until it holds about this much
// GPU time (at most kMaxTurnRounds rounds), so the events' half-microsecond
// resolution weighs little against it.
constexpr double kTurnTargetSeconds = 50e-6;
constexpr int kMaxTurnRounds = 16;
// NVML is asked about the GPU's health at most this often while a case runs
// (and at its start and end).
constexpr double kHealthSampleSeconds = 0.02;

void finish(Session& s, cudaError_t launched) {
  MEMBENCH_CUDA(launched);
  MEMBENCH_CUDA(cudaStreamSynchronize(s.stream()));
}

class Warm final : public TimingMode {
 public:
  int batch_launches(const std::function<double()>& time_one_launch, int round) const override {
    const double one = std::max(time_one_launch(), 1e-7);
    const int launches = std::clamp(static_cast<int>(std::ceil(kBatchTargetSeconds / one)), 1, kMaxBatch);
    return whole_rounds(launches, round);
  }
  void before_batch(const Session&, cudaStream_t) const override {}
};

class Cold final : public TimingMode {
 public:
  // Every launch starts cold, so each is its own batch; a round's turns are
  // then taken over consecutive batches.
  int batch_launches(const std::function<double()>&, int) const override { return 1; }
  void before_batch(const Session& s, cudaStream_t stream) const override {
    MEMBENCH_CUDA(launch_l2_flush(s.flush(), stream));
  }
};

}  // namespace

int whole_rounds(int launches, int round) {
  if (round <= 1) return launches;
  return (std::max(launches, 1) + round - 1) / round * round;
}

const TimingMode& warm_l2() {
  static const Warm warm;
  return warm;
}

const TimingMode& cold_l2() {
  static const Cold cold;
  return cold;
}

StopRule stop_rule(const MeasureOptions& m, const DeviceInfo& device) {
  return {m.min_batches, m.max_noise_pct, m.max_seconds, m.throttle_pct / 100.0, device.sm_clock_khz / 1e3};
}

StopRule stop_rule(const Session& session) { return stop_rule(session.options(), session.device()); }

// An instantiated graph of `count` back-to-back launches.
class CaseTimer::Graph {
 public:
  Graph(const Timed& timed, int count, cudaStream_t stream) {
    MEMBENCH_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
    cudaError_t rc = cudaSuccess;
    for (int i = 0; i < count && rc == cudaSuccess; ++i) rc = timed.launch(stream);
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

CaseTimer::CaseTimer(Timed timed, const TimingMode& mode) : timed_(std::move(timed)), mode_(mode) {}

CaseTimer::~CaseTimer() = default;

// One batch: the graph of its launches where there is one, else the launches.
void CaseTimer::launch_batch(cudaStream_t stream) const {
  if (graph_) {
    MEMBENCH_CUDA(graph_->launch(stream));
  } else {
    for (int k = 0; k < batch_launches_; ++k) MEMBENCH_CUDA(timed_.launch(stream));
  }
}

// The case's own step before a launch, where it has one.
void CaseTimer::before_each(cudaStream_t stream) const {
  if (timed_.before_each) MEMBENCH_CUDA(timed_.before_each(stream));
}

// Warm-up launches (and, for ncu, the profiled ones), then the batch size:
// enough launches for kBatchTargetSeconds, one where every launch starts with
// a cold L2; batches of several launches replay a CUDA graph where the case
// allows it.
void CaseTimer::prepare(Session& s) {
  if (!warmed_) {
    for (int k = 0; k < std::max(timed_.warm_up_launches, 1); ++k) {
      before_each(s.stream());
      finish(s, timed_.launch(s.stream()));
    }
    warmed_ = true;
  }
  if (!profiled_ && s.options().profile_launches > 0) {
    MEMBENCH_CUDA(cudaProfilerStart());
    for (int k = 0; k < s.options().profile_launches; ++k) {
      before_each(s.stream());
      finish(s, timed_.launch(s.stream()));
    }
    MEMBENCH_CUDA(cudaProfilerStop());
    profiled_ = true;
  }
  if (batch_launches_ > 0) return;
  batch_launches_ = timed_.before_each ? 1
                                       : mode_.batch_launches(
                                             [&] {
                                               Event start, stop;
                                               MEMBENCH_CUDA(cudaEventRecord(start.get(), s.stream()));
                                               MEMBENCH_CUDA(timed_.launch(s.stream()));
                                               MEMBENCH_CUDA(cudaEventRecord(stop.get(), s.stream()));
                                               return elapsed_ms(start, stop) * 1e-3;
                                             },
                                             timed_.round);
  // A batch of whole rounds weighs every turn alike, and batches of one
  // launch sample the turns of this process alone, so the batches' noise
  // cannot say how far the mean over another process's turns may lie: the
  // turns are timed alone once.
  if (timed_.round > 1) turns_sem_pct_ = time_turns(s);
  if (batch_launches_ > 1 && timed_.graphable) graph_ = std::make_unique<Graph>(timed_, batch_launches_, s.stream());
}

// Each turn's seconds, each launch prepared as a batch is (the mode's step,
// the case's) and timed alone between two events, over rounds until every
// turn's sum is long beside the events' resolution; the standard error of
// their mean.
double CaseTimer::time_turns(Session& s) const {
  std::vector<double> per_turn(static_cast<std::size_t>(timed_.round), 0.0);
  std::vector<Event> start(per_turn.size()), stop(per_turn.size());
  for (int r = 0; r < kMaxTurnRounds; ++r) {
    for (std::size_t k = 0; k < per_turn.size(); ++k) {
      mode_.before_batch(s, s.stream());
      before_each(s.stream());
      MEMBENCH_CUDA(cudaEventRecord(start[k].get(), s.stream()));
      MEMBENCH_CUDA(timed_.launch(s.stream()));
      MEMBENCH_CUDA(cudaEventRecord(stop[k].get(), s.stream()));
    }
    for (std::size_t k = 0; k < per_turn.size(); ++k) per_turn[k] += elapsed_ms(start[k], stop[k]) * 1e-3;
    if (*std::min_element(per_turn.begin(), per_turn.end()) >= kTurnTargetSeconds) break;
  }
  return turns_sem_pct(per_turn);
}

namespace {

// Enqueues a batch into one of two slots: [the mode's preparation, the
// case's,] clock stamp, start event, the launches, stop event, clock stamp,
// done event.
class BatchTimer final : public BatchQueue {
 public:
  using LaunchBatch = std::function<void(cudaStream_t)>;
  BatchTimer(Session& s, const TimingMode& mode, int launches, LaunchBatch before, LaunchBatch batch)
      : s_(s), mode_(mode), launches_(launches), before_(std::move(before)), batch_(std::move(batch)) {}

  void enqueue(int slot) override {
    const cudaStream_t stream = s_.stream();
    ClockStamp* stamps = s_.stamps_device() + 2 * slot;
    s_.stamps_host()[2 * slot] = ClockStamp{};
    s_.stamps_host()[2 * slot + 1] = ClockStamp{};
    mode_.before_batch(s_, stream);
    before_(stream);
    MEMBENCH_CUDA(launch_clock_stamp(stamps, s_.device().sm_count, stream));
    MEMBENCH_CUDA(cudaEventRecord(start_[slot].get(), stream));
    batch_(stream);
    MEMBENCH_CUDA(cudaEventRecord(stop_[slot].get(), stream));
    MEMBENCH_CUDA(launch_clock_stamp(stamps + 1, s_.device().sm_count, stream));
    MEMBENCH_CUDA(cudaEventRecord(done_[slot].get(), stream));
  }

  BatchSample wait(int slot) override {
    MEMBENCH_CUDA(cudaEventSynchronize(done_[slot].get()));
    const ClockStamp* stamps = s_.stamps_host() + 2 * slot;
    return {elapsed_ms(start_[slot], stop_[slot]) * 1e-3, launches_, clock_mhz(stamps[0], stamps[1])};
  }

 private:
  Session& s_;
  const TimingMode& mode_;
  int launches_;
  LaunchBatch before_, batch_;
  Event start_[2], stop_[2], done_[2];
};

}  // namespace

// Timed batches until the target launches ran and the noise or the time
// limit says stop (collect_batches, tested on the CPU with a fake queue).
Measurement CaseTimer::measure(Session& s, std::int64_t target_launches) {
  HealthMonitor& health = s.health();
  health.begin_case();
  prepare(s);
  Measurement m;
  m.rule = stop_rule(s);
  if (timed_.keep_throttled) m.rule.peak_mhz = 0;  // no throttle check
  m.batch_launches = batch_launches_;
  m.turns_sem_pct = turns_sem_pct_;
  BatchTimer timer(
      s, mode_, batch_launches_, [this](cudaStream_t stream) { before_each(stream); },
      [this](cudaStream_t stream) { launch_batch(stream); });
  const auto began = std::chrono::steady_clock::now();
  LoopHooks hooks;
  hooks.elapsed_seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  };
  hooks.sample_health = [&] { health.sample(); };
  hooks.stop_request = [] { return stop_reason(); };
  hooks.health_period = kHealthSampleSeconds;
  m.summary = collect_batches(timer, m.rule, target_launches, hooks);
  m.health = health.current();
  return m;
}

// Two batches in flight, as when timing, so the GPU never waits for the
// host; the poller's thread reads NVML meanwhile.
std::optional<PowerEstimate> CaseTimer::measure_power(Session& s, const EnergyPoller::Read& read, int intervals,
                                                      double max_seconds) {
  prepare(s);
  BatchTimer timer(
      s, mode_, batch_launches_, [this](cudaStream_t stream) { before_each(stream); },
      [this](cudaStream_t stream) { launch_batch(stream); });
  EnergyPoller poller(read);
  const double until = steady_seconds() + max_seconds;
  timer.enqueue(0);
  timer.enqueue(1);
  int slot = 0;
  while (poller.readable() && poller.intervals() < intervals && steady_seconds() < until) {
    if (const auto why = stop_reason()) throw Interrupted(*why);
    timer.wait(slot);
    timer.enqueue(slot);
    slot ^= 1;
  }
  const std::vector<EnergyReading> readings = poller.stop();
  timer.wait(slot);
  timer.wait(slot ^ 1);
  return average_power(readings, intervals);
}

}  // namespace membench::engine
