#include "harness.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include <cuda_profiler_api.h>

#include "membench/fidelity.hpp"
#include "membench/pattern.hpp"

namespace membench::bench {

namespace {

// Launches shorter than this are timed in batches, captured in a CUDA graph
// where the case allows it, else enqueued back to back. An event pair around
// one launch also times the GPU's launch latency (a few microseconds on an
// H200, 5-10% of a 50 us kernel), so batching pays well beyond the tiny
// kernels; a batch aims at kBatchTarget of GPU time.
constexpr double kShortLaunchSeconds = 1e-3;
constexpr double kBatchTargetSeconds = 2e-3;
constexpr int kMaxBatch = 1000;
constexpr long long kClockProbeNs = 200'000;

Session g_session;

// The prepared state of the case being run, kept across Google Benchmark's
// repeated calls of the same case.
struct CaseCache {
  std::string key;
  std::unique_ptr<Prepared> prepared;
  std::string failure;
} g_cache;

std::string case_key(const std::string& base, const benchmark::State& state, std::size_t args) {
  std::string key = base;
  for (std::size_t i = 0; i < args; ++i) key += "/" + std::to_string(state.range(i));
  return key;
}

// Owns an instantiated graph of `count` back-to-back launches.
class Batch {
 public:
  Batch(const Launch& launch, int count, cudaStream_t stream) {
    MEMBENCH_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
    cudaError_t rc = cudaSuccess;
    for (int i = 0; i < count && rc == cudaSuccess; ++i) rc = launch(stream);
    cudaGraph_t graph = nullptr;
    const cudaError_t end = cudaStreamEndCapture(stream, &graph);
    MEMBENCH_CUDA(rc);
    MEMBENCH_CUDA(end);
    const cudaError_t inst = cudaGraphInstantiate(&exec_, graph, 0);
    cudaGraphDestroy(graph);
    MEMBENCH_CUDA(inst);
  }
  ~Batch() {
    if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
  }
  Batch(const Batch&) = delete;
  Batch& operator=(const Batch&) = delete;
  cudaError_t launch(cudaStream_t stream) const { return cudaGraphLaunch(exec_, stream); }

 private:
  cudaGraphExec_t exec_ = nullptr;
};

double seconds_of_one_launch(const Launch& launch, cudaStream_t stream) {
  Event start, stop;
  MEMBENCH_CUDA(cudaEventRecord(start.get(), stream));
  MEMBENCH_CUDA(launch(stream));
  MEMBENCH_CUDA(cudaEventRecord(stop.get(), stream));
  return elapsed_ms(start, stop) * 1e-3;
}

double probe_sm_clock_mhz(cudaStream_t stream) {
  DeviceBuffer<ClockSample> sample(1);
  MEMBENCH_CUDA(launch_clock_probe(sample.get(), kClockProbeNs, stream));
  ClockSample host;
  MEMBENCH_CUDA(cudaMemcpyAsync(&host, sample.get(), sizeof host, cudaMemcpyDeviceToHost, stream));
  MEMBENCH_CUDA(cudaStreamSynchronize(stream));
  return clock_mhz(host);
}

void flush_l2(cudaStream_t stream) {
  const Session& s = session();
  MEMBENCH_CUDA(launch_l2_flush(s.flush_scratch.get(), s.flush_scratch.size(), s.flush_sink.get(), stream));
}

// MEMBENCH_PROFILE=K (set by scripts/ncu_check.py): profile K launches per
// case (1 when the value is not a positive number); 0 when unset.
int profiled_launches() {
  static const int k = [] {
    const char* v = std::getenv("MEMBENCH_PROFILE");
    if (v == nullptr) return 0;
    return std::max(1, std::atoi(v));
  }();
  return k;
}

// The timing loop. Two event pairs alternate: the next iteration is queued
// before the host waits for the current one, so the GPU never idles between
// a start event and its launch waiting for the host.
void measure(benchmark::State& state, Prepared& p) {
  Session& s = session();
  const cudaStream_t stream = s.stream->get();
  finish_launch(p.launch(stream));  // untimed warm-up
  if (!p.profiled && profiled_launches() > 0) {
    // K launches per case inside the profiler's window, after the warm-up:
    // `ncu --profile-from-start off` sees exactly them.
    MEMBENCH_CUDA(cudaProfilerStart());
    for (int k = 0; k < profiled_launches(); ++k) finish_launch(p.launch(stream));
    MEMBENCH_CUDA(cudaProfilerStop());
    p.profiled = true;
  }

  if (p.launches_per_iteration == 0) {
    const double one = seconds_of_one_launch(p.launch, stream);
    p.launches_per_iteration =
        (one < kShortLaunchSeconds && !s.l2_flush)
            ? std::clamp(static_cast<int>(std::ceil(kBatchTargetSeconds / std::max(one, 1e-7))), 2, kMaxBatch)
            : 1;
  }
  const int per_iteration = p.launches_per_iteration;
  std::unique_ptr<Batch> batch;
  if (per_iteration > 1 && p.graphable) batch = std::make_unique<Batch>(p.launch, per_iteration, stream);
  const auto timed = [&](cudaStream_t st) {
    if (batch) return batch->launch(st);
    cudaError_t rc = cudaSuccess;
    for (int k = 0; k < per_iteration && rc == cudaSuccess; ++k) rc = p.launch(st);
    return rc;
  };

  Event start[2], stop[2];
  const auto enqueue = [&](int slot) {
    if (s.l2_flush) flush_l2(stream);
    MEMBENCH_CUDA(cudaEventRecord(start[slot].get(), stream));
    MEMBENCH_CUDA(timed(stream));
    MEMBENCH_CUDA(cudaEventRecord(stop[slot].get(), stream));
  };

  double total_seconds = 0;
  std::int64_t iterations = 0;
  int current = 0;
  enqueue(current);
  for (auto _ : state) {
    enqueue(1 - current);
    // The whole batch is the iteration, so Google Benchmark sizes its
    // iteration count on the GPU time it really spends.
    const double seconds = elapsed_ms(start[current], stop[current]) * 1e-3;
    state.SetIterationTime(seconds);
    total_seconds += seconds;
    ++iterations;
    current = 1 - current;
  }
  MEMBENCH_CUDA(cudaStreamSynchronize(stream));
  const double mhz = probe_sm_clock_mhz(stream);

  const double launches = static_cast<double>(iterations) * per_iteration;
  const double rate = total_seconds > 0 ? p.work.bytes * launches / total_seconds : 0;
  const double peak = p.work.peak_bytes_per_second > 0 ? p.work.peak_bytes_per_second
                                                       : s.device.dram_peak_bytes_per_second;
  state.counters["bytes"] = p.work.bytes * per_iteration;  // per iteration, as real_time
  state.counters["bytes_per_second"] = rate;
  state.counters["pct_of_peak"] = peak > 0 ? 100.0 * rate / peak : 0;
  if (p.work.flops >= 0) {
    state.counters["flops_per_byte"] = p.work.flops / p.work.bytes;
    state.counters["gflops_per_second"] = total_seconds > 0 ? p.work.flops * launches / total_seconds * 1e-9 : 0;
  }
  for (const auto& m : p.work.model) state.counters[m.name] = m.value;
  state.counters["sm_clock_mhz"] = mhz;
  state.counters["throttled"] = is_throttled(mhz, s.device.sm_clock_khz / 1e3) ? 1 : 0;
  state.counters["launches_per_iteration"] = per_iteration;
}

double cv(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  double mean = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  if (mean == 0) return 0;
  double var = 0;
  for (double x : v) var += (x - mean) * (x - mean);
  var /= static_cast<double>(v.size() - 1);
  return std::sqrt(var) / mean;
}

}  // namespace

Session& session() { return g_session; }

void start_session(int device, bool l2_flush) {
  MEMBENCH_CUDA(cudaSetDevice(device));
  g_session.device = query_device(device);
  g_session.l2_flush = l2_flush;
  g_session.stream = std::make_unique<Stream>();
  if (l2_flush) {
    // Twice the L2, zeroed: reading it leaves the L2 full of clean lines.
    const std::size_t floats = 2 * g_session.device.l2_bytes / sizeof(float);
    g_session.flush_scratch = DeviceBuffer<float>(floats);
    g_session.flush_sink = DeviceBuffer<float>(1);
    MEMBENCH_CUDA(cudaMemset(g_session.flush_scratch.get(), 0, g_session.flush_scratch.bytes()));
  }
}

void end_session() {
  g_cache = CaseCache{};
  g_session = Session{};
}

void require_device_memory(double bytes) {
  std::size_t free_bytes = 0, total_bytes = 0;
  MEMBENCH_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  constexpr double kHeadroom = 64.0 * (1 << 20);
  if (bytes + kHeadroom > static_cast<double>(free_bytes)) {
    std::ostringstream os;
    os.precision(3);
    os << "does not fit: needs " << bytes / (1 << 30) << " GiB of device memory, "
       << static_cast<double>(free_bytes) / (1 << 30) << " GiB free of "
       << static_cast<double>(total_bytes) / (1 << 30) << " GiB";
    throw CaseSkipped(os.str());
  }
}

InOut allocate_in_out(Prepared& p, std::size_t count, std::uint32_t seed) {
  require_device_memory(2.0 * sizeof(float) * static_cast<double>(count));
  InOut io{p.allocate<float>(count), p.allocate<float>(count)};
  const cudaStream_t stream = session().stream->get();
  MEMBENCH_CUDA(launch_fill_pattern(io.in, count, seed, stream));
  MEMBENCH_CUDA(launch_poison(io.out, count * sizeof(float), stream));
  return io;
}

void corrupt_for_test(const float* device, std::size_t count) {
  static const bool corrupt = std::getenv("MEMBENCH_TEST_CORRUPT") != nullptr;
  if (corrupt && count > 0) MEMBENCH_CUDA(cudaMemset(const_cast<float*>(device) + count / 2, 0, sizeof(float)));
}

void finish_launch(cudaError_t launched) {
  MEMBENCH_CUDA(launched);
  MEMBENCH_CUDA(cudaStreamSynchronize(session().stream->get()));
}

void run_case(benchmark::State& state, const std::string& key,
              const std::function<void(Prepared&, benchmark::State&)>& prepare) {
  try {
    if (g_cache.key != key) {
      g_cache = CaseCache{};  // frees the previous case's buffers first
      g_cache.key = key;
      auto prepared = std::make_unique<Prepared>();
      try {
        prepare(*prepared, state);
        g_cache.prepared = std::move(prepared);
      } catch (const CaseSkipped& e) {
        g_cache.failure = e.what();
      }
    }
    if (!g_cache.failure.empty()) {
      state.SkipWithError(g_cache.failure.c_str());
      return;
    }
    measure(state, *g_cache.prepared);
  } catch (const std::exception& e) {
    g_cache = CaseCache{};
    cudaGetLastError();  // clear a non-sticky error so later cases can run
    const std::string message = std::string("CUDA failure: ") + e.what();
    state.SkipWithError(message.c_str());
  }
}

void register_case(const std::string& name, const std::vector<std::string>& arg_names,
                   const std::vector<std::vector<std::int64_t>>& axes,
                   const std::function<void(Prepared&, benchmark::State&)>& prepare) {
  const std::size_t args = axes.size();
  auto* b = benchmark::RegisterBenchmark(name.c_str(), [name, args, prepare](benchmark::State& state) {
    run_case(state, case_key(name, state, args), prepare);
  });
  b->ArgsProduct(axes)->ArgNames(arg_names)->UseManualTime()->Unit(benchmark::kMicrosecond);
#if !MEMBENCH_BENCHMARK_HAS_CV
  b->ComputeStatistics("cv", cv, benchmark::StatisticUnit::kPercentage);
#endif
}

}  // namespace membench::bench
