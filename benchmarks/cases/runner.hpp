// The case skeleton: the first time a case is asked for, allocate its
// buffers, fill the input, poison the output, bind the launch, launch once
// and verify every element against the host reference; then time it with the
// engine, and turn the measurement and the case's Work into counters.
// Bandwidth is computed here and nowhere else. Knows nothing of Google
// Benchmark: an Outcome is what the adapter reports.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cases/family.hpp"
#include "engine/measure.hpp"
#include "engine/session.hpp"

namespace membench::cases {

struct Outcome {
  enum class Kind { measured, skipped, failed, interrupted };
  Kind kind = Kind::measured;
  std::string message;                                   // why it was skipped, failed or interrupted
  std::int64_t launches = 0;                             // launches kept
  double seconds = 0;                                    // their GPU time
  std::vector<std::pair<std::string, double>> counters;  // in the order they were set
  std::string label;
};

// The counters of a measured case: the rates computed from its Work and the
// GPU time kept, the model's predictions, the measurement (its noise, the
// batches dropped for a low clock, the clock) and the GPU's health. Host
// arithmetic only, tested on the CPU.
void set_counters(Outcome& o, const DeviceInfo& device, const Work& w, const engine::Measurement& m,
                  const std::optional<KernelFacts>& facts, const KernelShape& shape, std::optional<double> idle_w);

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

// The run's exit status, from what it came to: 128 + N after signal N (the
// file whole); 1 when a case failed, uncorrected ECC errors grew during the
// run, or it stopped early for another reason (--exclusive, a lost
// context); else 0 (skipped, resumed and contended cases included: they are
// marked in the file, not failures).
int exit_status(const RunSummary& summary, bool ecc_errors_grew, int stop_signal, bool stopped_early);

class Runner {
 public:
  explicit Runner(engine::Session& session);
  ~Runner();

  // Measures `c` (at least `target_launches` launches); the prepared case is
  // kept for the next call of the same case (a repetition).
  Outcome run(const CaseSpec& c, std::int64_t target_launches);
  // Counts a case carried over from --resume.
  void note_resumed(const std::string& name);
  // Called with every outcome run() returns (membench --check keeps them).
  using Observer = std::function<void(const CaseSpec&, const Outcome&)>;
  void set_observer(Observer observer) { observer_ = std::move(observer); }

  const RunSummary& summary() const { return summary_; }
  engine::Session& session() { return session_; }

 private:
  struct Prepared;
  Outcome measure(const CaseSpec& c, std::int64_t target_launches);
  void start_case(const std::string& name);
  void count_once(const std::string& name, int RunSummary::*counter);
  void note_failure(const std::string& name, const std::string& message);
  void note_health(const std::string& name, const engine::CaseHealth& health);

  engine::Session& session_;
  std::string current_;  // the case whose buffers are held
  std::unique_ptr<Prepared> prepared_;
  std::string skip_, failure_;
  std::set<std::string> counted_;
  std::set<std::string> said_;  // what the cases could not measure, said once a run
  RunSummary summary_;
  Observer observer_;
};

}  // namespace membench::cases
