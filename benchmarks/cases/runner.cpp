#include "cases/runner.hpp"

#include <cmath>
#include <iostream>
#include <optional>
#include <sstream>

#include "cases/counters.hpp"
#include "engine/stop.hpp"
#include "membench/platform/cuda.hpp"
#include "membench/platform/nvml.hpp"
#include "membench/platform/pattern.hpp"
#include "membench/platform/verify.hpp"

namespace membench::cases {

namespace {

// The longest a case runs for its power: two updates of a 100 ms counter,
// with time to spare for the first.
constexpr double kEnergyMaxSeconds = 1.0;

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

std::string describe_throttle(const engine::BatchSummary& s, const engine::StopRule& rule) {
  std::ostringstream os;
  os.precision(4);
  os << "throttled: " << s.throttled_batches << " of " << s.throttled_batches + s.clean_batches << " batches ran below "
     << rule.throttle_fraction * 100 << "% of the " << rule.peak_mhz << " MHz peak SM clock";
  return os.str();
}

Outcome outcome(Outcome::Kind kind, std::string message) {
  Outcome o;
  o.kind = kind;
  o.message = std::move(message);
  return o;
}

}  // namespace

int exit_status(const RunSummary& summary, bool ecc_errors_grew, int stop_signal, bool stopped_early) {
  if (stop_signal != 0) return 128 + stop_signal;
  return !summary.failures.empty() || ecc_errors_grew || stopped_early ? 1 : 0;
}

// A case, prepared and verified once.
struct Runner::Prepared {
  CaseDefinition def;
  DeviceAllocation input, output;
  BoundLaunch bound;
  std::optional<KernelFacts> facts;
  std::unique_ptr<engine::CaseTimer> timer;
};

Runner::Runner(engine::Session& session) : session_(session) {}

Runner::~Runner() { prepared_.reset(); }

namespace {

// MeasureOptions::corrupt_for_test: zeroes the middle output element before
// the copy-back, so the tests can prove that a wrong result becomes an error.
void corrupt_for_test(const engine::Session& s, void* device, std::size_t count, std::size_t bytes_each) {
  if (s.options().corrupt_for_test && count > 0)
    MEMBENCH_CUDA(cudaMemset(static_cast<char*>(device) + count / 2 * bytes_each, 0, bytes_each));
}

void fill_input(const CaseDefinition& def, const CaseBuffers& buffers, cudaStream_t stream) {
  if (def.input_elements == 0) return;
  if (def.fill)
    MEMBENCH_CUDA(def.fill(buffers, stream));
  else if (def.input_type == Element::f32)
    MEMBENCH_CUDA(launch_fill_pattern(buffers.input_to_fill<float>(), def.input_elements, def.seed, stream));
  else if (def.input_type == Element::f64)
    MEMBENCH_CUDA(launch_fill_pattern(buffers.input_to_fill<double>(), def.input_elements, def.seed, stream));
  else
    throw std::logic_error("an integer input needs the case's own fill");
}

void verify(const engine::Session& s, const CaseDefinition& def, void* output) {
  corrupt_for_test(s, output, def.output_elements, element_bytes(def.output_type));
  std::optional<Mismatch> bad;
  if (def.output_elements == 0) {
    // Nothing written on this GPU (a copy to the host or to another GPU): `check` has it.
  } else if (def.output_type == Element::f32) {
    bad = device_mismatches(static_cast<const float*>(output), def.output_elements, def.expected);
  } else {
    bad = device_mismatches(static_cast<const double*>(output), def.output_elements, def.expected_f64);
  }
  if (bad) throw CaseFailed(describe(*bad, "out"));
  if (def.check)
    if (const auto wrong = def.check()) throw CaseFailed(*wrong);
}

}  // namespace

void set_counters(Outcome& o, const DeviceInfo& device, const Work& w, const engine::Measurement& m,
                  const std::optional<KernelFacts>& facts, const KernelShape& shape, std::optional<double> idle_w) {
  const engine::BatchSummary& s = m.summary;
  auto add = [&](const std::string& name, double value) { o.counters.emplace_back(name, value); };
  const double rate = s.clean_seconds > 0 ? w.bytes * static_cast<double>(s.clean_launches) / s.clean_seconds : 0;
  const double peak = w.peak_bytes_per_second != 0 ? w.peak_bytes_per_second : device.dram_peak_bytes_per_second;
  if (w.bytes > 0) {
    add("bytes", w.bytes);  // per launch, like real_time
    add("bytes_per_second", rate);
    if (peak > 0) add("pct_of_peak", 100.0 * rate / peak);
    if (peak > 0 && w.peak_assumed) add("peak_assumed", 1);
  }
  if (w.dependent_loads > 0 && s.clean_launches > 0) {
    const double ns = s.clean_seconds / static_cast<double>(s.clean_launches) / w.dependent_loads * 1e9;
    add("latency_ns", ns);
    add("latency_cycles", ns * s.clock_mhz * 1e-3);  // at the SM clock measured over the batches
  }
  if (w.updates > 0) {
    add("updates", w.updates);
    add("updates_per_second",
        s.clean_seconds > 0 ? w.updates * static_cast<double>(s.clean_launches) / s.clean_seconds : 0);
  }
  if (w.ops > 0) {
    const double ops_rate = s.clean_seconds > 0 ? w.ops * static_cast<double>(s.clean_launches) / s.clean_seconds : 0;
    add("ops", w.ops);
    add("ops_per_second", ops_rate);
    // The pipe's peak at the clock the batches ran at; none where no clock was read.
    if (w.peak_ops_per_clock > 0 && s.clock_mhz > 0) {
      const double model = w.peak_ops_per_clock * s.clock_mhz * 1e6;
      add("model_ops_per_second", model);
      add("pct_of_peak", 100.0 * ops_rate / model);
      if (!w.pipe_busy.empty()) add(w.pipe_busy, 100.0 * ops_rate / model);
      if (w.peak_assumed) add("peak_assumed", 1);
    }
  }
  if (w.flops >= 0) add("flops_per_byte", w.flops / w.bytes);
  // A rate of nothing is no measurement: a case that does no arithmetic reports no FLOP rate.
  if (w.flops > 0)
    add("gflops_per_second",
        s.clean_seconds > 0 ? w.flops * static_cast<double>(s.clean_launches) / s.clean_seconds * 1e-9 : 0);
  std::vector<std::string> unknown = w.unknown;
  for (const auto& model : w.model) {
    std::optional<std::string> unmet;
    for (const Assumption& a : model_assumptions(model.name))
      if (!unmet) unmet = assumption_unmet(device.cc_major, device.cc_minor, a.fact, a.value);
    if (unmet)
      unknown.push_back(model.name + ": " + *unmet);
    else
      add(model.name, model.value);
  }
  if (m.power && s.clean_launches > 0) {
    add("power_w", m.power->watts);
    add("energy_j", m.power->watts * s.clean_seconds / static_cast<double>(s.clean_launches));  // per launch
    if (rate > 0) {
      add("pj_per_byte", m.power->watts / rate * 1e12);
      if (idle_w) add("pj_per_byte_above_idle", (m.power->watts - *idle_w) / rate * 1e12);
    }
    add("energy_window_s", m.power->window_seconds);
  }
  add("noise_pct", std::isfinite(s.noise_pct) ? s.noise_pct : -1);
  if (m.turns_sem_pct) add("turns_sem_pct", *m.turns_sem_pct);
  add("noisy", engine::noisy(s, m.rule, m.turns_sem_pct) ? 1 : 0);
  add("noise_target_pct", m.rule.max_noise_pct);
  add("batches", s.clean_batches);
  add("batch_launches", m.batch_launches);
  add("throttled_batches", s.throttled_batches);
  add("sm_clock_mhz", s.clock_mhz);
  add("device", device.ordinal);
  add("host_paced", w.host_paced ? 1 : 0);
  if (m.health.other_processes) {
    add("other_processes", *m.health.other_processes);
    add("contended", m.health.contended() ? 1 : 0);
  }
  if (m.health.clock_event_reasons) {
    add("clock_event_reasons", static_cast<double>(*m.health.clock_event_reasons));
    add("clock_event", m.health.clock_event() ? 1 : 0);
    add("power_capped", m.health.power_capped() ? 1 : 0);
  }
  if (facts) {
    add("grid", shape.grid);
    add("block", shape.block);
    add("blocks_per_sm", facts->blocks_per_sm);
    add("registers", facts->registers);
    add("smem_per_block", static_cast<double>(facts->smem_per_block));
  }
  if (s.throttled_batches > 0 && s.clean_batches < m.rule.min_batches) o.label = describe_throttle(s, m.rule);
  for (const std::string& why : unknown) o.label += (o.label.empty() ? "model unknown: " : "; model unknown: ") + why;
}

// Makes `name` the held case (the previous one's buffers are freed first).
void Runner::start_case(const std::string& name) {
  if (current_ == name) return;
  prepared_.reset();
  skip_.clear();
  failure_.clear();
  current_ = name;
}

void Runner::count_once(const std::string& name, int RunSummary::*counter) {
  if (counted_.insert(name).second) ++(summary_.*counter);
}

void Runner::note_resumed(const std::string& name) { count_once(name, &RunSummary::resumed); }

// A CUDA error that survives a synchronize has left the context unusable.
void Runner::note_failure(const std::string& name, const std::string& message) {
  if (counted_.insert(name).second) summary_.failures.push_back(name + ": " + message);
  cudaGetLastError();
  if (cudaDeviceSynchronize() != cudaSuccess) session_.note_lost(name + ": " + message);
}

// The first time a case sees another process or a clock event, stderr says so (once per run).
void Runner::note_health(const std::string& name, const engine::CaseHealth& h) {
  RunSummary& s = summary_;
  // Counted once a case, however many repetitions saw it (the summary counts cases).
  if (h.contended()) {
    if (counted_.insert("contended " + name).second) ++s.contended;
    if (s.first_other.empty()) {
      const unsigned pid = h.first_other_pid.value_or(0);
      const std::string process = nvml::process_name(pid);
      s.first_other =
          pid == 0 ? "pid not known" : "pid " + std::to_string(pid) + (process.empty() ? "" : ", " + process);
      std::cerr << "membench: another process holds the GPU (" << s.first_other << ") during " << name
                << "; cases measured while one does are marked contended = 1\n";
    }
  }
  if (h.clock_event()) {
    if (counted_.insert("clock event " + name).second) ++s.clock_events;
    const std::uint64_t marks = *h.clock_event_reasons & engine::kClockSlowdownMarks;
    if ((marks & ~s.clock_events_seen) != 0) {
      s.clock_events_seen |= marks;
      std::cerr << "membench: clock event during " << name << ": " << engine::clock_event_names(marks)
                << "; such cases are marked clock_event = 1\n";
    }
  }
}

Outcome Runner::run(const CaseSpec& c, std::int64_t target_launches) {
  Outcome o = measure(c, target_launches);
  if (observer_) observer_(c, o);
  return o;
}

Outcome Runner::measure(const CaseSpec& c, std::int64_t target_launches) {
  const std::string name = c.id.name();
  Outcome o;
  if (const auto why = engine::stop_reason()) {
    start_case(name);
    summary_.interrupted.insert(name);
    return outcome(Outcome::Kind::interrupted, *why);
  }
  try {
    session_.use(c.device);
    if (current_ != name) {
      start_case(name);
      if (!session_.lost().empty()) {
        failure_ = "not run: the CUDA context was lost after " + session_.lost();
      } else {
        try {
          auto p = std::make_unique<Prepared>();
          p->def = c.define(CaseArgs(c.id, session_.device()));
          const CaseDefinition& def = p->def;
          const std::size_t in_bytes = def.input_elements * element_bytes(def.input_type);
          const std::size_t out_bytes = def.output_elements * element_bytes(def.output_type);
          require_device_memory(static_cast<double>(in_bytes + out_bytes));
          p->input = DeviceAllocation(in_bytes);
          p->output = DeviceAllocation(out_bytes);
          const cudaStream_t stream = session_.stream();
          const CaseBuffers buffers(p->input.get(), def.input_type, p->output.get(), def.output_type);
          fill_input(def, buffers, stream);
          if (out_bytes > 0) MEMBENCH_CUDA(launch_poison(p->output.get(), out_bytes, stream));
          MEMBENCH_CUDA(def.bind(buffers, stream, &p->bound));
          if (p->bound.before_each) MEMBENCH_CUDA(p->bound.before_each(stream));
          MEMBENCH_CUDA(p->bound.run(stream));
          MEMBENCH_CUDA(cudaStreamSynchronize(stream));
          verify(session_, def, p->output.get());
          if (p->bound.shape.function != nullptr) {
            KernelFacts facts;
            MEMBENCH_CUDA(kernel_facts(p->bound.shape, &facts));
            p->facts = facts;
          }
          p->timer = std::make_unique<engine::CaseTimer>(
              engine::Timed{p->bound.run, def.graphable, def.warm_up_launches, p->bound.before_each, p->bound.round,
                            def.paced_by_clock || def.copy_engine},
              c.cold ? engine::cold_l2() : engine::warm_l2());
          prepared_ = std::move(p);
        } catch (const CaseSkipped& e) { skip_ = e.what(); } catch (const CaseFailed& e) {
          failure_ = e.what();
        }
      }
    }
    if (!skip_.empty()) {
      count_once(name, &RunSummary::skipped);
      return outcome(Outcome::Kind::skipped, skip_);
    }
    if (!failure_.empty()) {
      note_failure(name, failure_);
      return outcome(Outcome::Kind::failed, failure_);
    }
    // The board's idle power first (once per device), while nothing runs.
    const bool energy = session_.options().energy && !c.cold && !prepared_->bound.before_each;
    const std::optional<double> idle_w = energy ? session_.idle_power_w() : std::nullopt;
    engine::Measurement m = prepared_->timer->measure(session_, target_launches);
    if (energy && m.summary.clean_launches > 0)
      if (const auto read = session_.energy_counter())
        m.power = prepared_->timer->measure_power(session_, *read, engine::kEnergyIntervals, kEnergyMaxSeconds);
    if (m.summary.clean_launches == 0) {
      count_once(name, &RunSummary::skipped);
      return outcome(Outcome::Kind::skipped, describe_throttle(m.summary, m.rule) + "; no batch is left to report");
    }
    note_health(name, m.health);
    if (session_.options().exclusive && m.health.contended()) {
      const std::string why =
          "--exclusive: another process (" + summary_.first_other + ") used the GPU during this case";
      note_failure(name, why);
      engine::request_stop("stopped: --exclusive and another process (" + summary_.first_other + ") holds the GPU");
      return outcome(Outcome::Kind::failed, why);
    }
    o.launches = m.summary.clean_launches;
    o.seconds = m.summary.clean_seconds;
    set_counters(o, session_.device(), prepared_->def.work, m, prepared_->facts, prepared_->bound.shape, idle_w);
    if (prepared_->def.after_timing) {
      const SelfMeasured extra = prepared_->def.after_timing(session_.stream());
      for (const ModelCounter& counter : extra.counters) o.counters.emplace_back(counter.name, counter.value);
      if (!extra.unmeasured.empty() && said_.insert(extra.unmeasured).second)
        std::cerr << "membench: " << extra.unmeasured << "\n";
    }
    count_once(name, &RunSummary::measured);
    return o;
  } catch (const engine::Interrupted& e) {
    prepared_.reset();
    current_.clear();
    summary_.interrupted.insert(name);
    return outcome(Outcome::Kind::interrupted, e.what());
  } catch (const std::exception& e) {
    const std::string message = std::string("CUDA failure: ") + e.what();
    prepared_.reset();
    failure_ = message;
    note_failure(name, message);
    return outcome(Outcome::Kind::failed, message);
  }
}

}  // namespace membench::cases
