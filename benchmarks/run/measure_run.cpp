// The run's measuring part. See run/measure_run.hpp.
#include "run/measure_run.hpp"

#include <algorithm>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/files.hpp"
#include "cli/grammar.hpp"
#include "engine/health.hpp"
#include "engine/session.hpp"
#include "engine/stop.hpp"
#include "gbench/adapter.hpp"
#include "gbench/result_file.hpp"
#include "membench/platform/code.hpp"
#include "membench/platform/cuda.hpp"
#include "membench/platform/numa.hpp"
#include "membench/platform/nvml.hpp"
#include "run/output_file.hpp"
#include "run/provenance.hpp"

namespace membench::run {

namespace {

// The result file's context: where the numbers came from.
void add_context(const std::string& version, const cli::Options& options, const cli::AxisTable& axes,
                 const cli::LauncherInfo& launcher, const gbench::RunIdentity& identity, engine::Session& session,
                 const nvml::Ecc& ecc) {
  run::RunFacts facts;
  facts.version = version;
  facts.identity = identity;
  facts.device = session.device();
  if (options.run_devices.size() > 1)
    for (int ordinal : options.run_devices) facts.run_devices.push_back(query_device(ordinal));
  facts.host_numa_nodes = host_numa_nodes();
  facts.launcher = launcher;
  facts.health = run::health_description(session.health());
  facts.power_limit_w = session.power_limit_w();
  const bool energy = options.measure.energy;
  facts.energy = run::energy_description(energy, energy && !session.energy_counter() ? session.energy_why() : "");
  if (energy && session.energy_counter()) facts.idle_power_w = session.idle_power_w();
  if (energy && !session.energy_counter())
    std::cerr << "membench: --energy: " << session.energy_why() << "; cases report no power\n";
  facts.ecc_start = ecc;
  facts.resumed_from = options.resume_file;
  facts.sweep = cli::describe_sweep(options, axes);
  facts.cuda_architectures = built_cuda_architectures();
  if (const cudaError_t rc = code_ran_as_here(&facts.code_ran_as); rc != cudaSuccess)
    facts.code_ran_as = std::string("unknown: ") + cudaGetErrorString(rc);
  for (const auto& [key, value] : run::context_keys(facts)) gbench::add_context(key, value);
}

// How the run ended, for the result file's "end".
nlohmann::ordered_json end_of_run(const nvml::Ecc& ecc_end, const cases::RunSummary& summary, std::size_t selected) {
  nlohmann::ordered_json end = nlohmann::ordered_json::object();
  for (const auto& [key, value] : run::ecc_keys(ecc_end, "_end")) end[key] = value;
  end["cases_selected"] = selected;
  end["cases_not_run"] = summary.interrupted.size();
  end["cases_resumed"] = summary.resumed;
  if (const auto reason = engine::stop_reason()) end["stopped"] = *reason;
  return end;
}

// The run's verdict on stderr, and the exit status it stands for.
int summarize(const cases::RunSummary& s, std::size_t selected, const cli::Options& options, const nvml::Ecc& start,
              const nvml::Ecc& end) {
  if (!s.failures.empty())
    std::cerr << "membench: " << s.failures.size() << " of " << selected
              << " cases failed; first: " << s.failures.front() << '\n';
  const bool ecc_grew = start.uncorrected && end.uncorrected && *end.uncorrected > *start.uncorrected;
  if (ecc_grew)
    std::cerr << "membench: " << *end.uncorrected - *start.uncorrected
              << " uncorrected ECC error(s) during the run; its numbers cannot be trusted\n";
  if (s.contended > 0)
    std::cerr << "membench: " << s.contended << " of " << selected
              << " cases measured while another process held the GPU (" << s.first_other
              << "); they are marked contended = 1\n";
  if (s.skipped > 0)
    std::cerr << "membench: " << s.skipped << " of " << selected << " cases skipped (see their messages)\n";
  const int signal = engine::stop_signal();
  const auto why = engine::stop_reason();
  if (signal != 0) {
    const std::size_t finished = selected - std::min(selected, s.interrupted.size());
    std::cerr << "membench: interrupted by " << engine::signal_name(signal) << " after " << finished << " of "
              << selected << " cases; "
              << (options.output_file.empty() ? "with --benchmark_out=FILE, --resume=FILE would run the rest"
                                              : "--resume=" + options.output_file + " runs the rest")
              << '\n';
  } else if (why) {
    std::cerr << "membench: " << *why << " (" << s.interrupted.size() << " of " << selected << " cases not run)\n";
  }
  return cases::exit_status(s, ecc_grew, signal, why.has_value());
}

// The measuring session on the first device; null, said on stderr, where it
// cannot start or --exclusive finds another process on the GPU.
std::unique_ptr<engine::Session> open_session(const cli::Options& options) {
  const int first = options.run_devices.front();
  std::unique_ptr<engine::Session> session;
  try {
    session = std::make_unique<engine::Session>(first, options.measure);
  } catch (const std::exception& e) {
    std::cerr << "membench: cannot use device " << first << ": " << e.what() << '\n';
    return nullptr;
  }
  engine::HealthMonitor& health = session->health();
  if (!options.measure.exclusive) return session;
  if (!health.sees_processes()) {
    std::cerr << "membench: --exclusive: cannot tell whether another process holds the GPU ("
              << (health.why().empty() ? "NVML cannot list processes" : health.why()) << "); not starting\n";
    return nullptr;
  }
  if (const auto others = health.others_now(); !others.empty()) {
    std::cerr << "membench: --exclusive: another process holds device " << first << " (pid " << others.front().first
              << (others.front().second.empty() ? "" : ", " + others.front().second) << "); not starting\n";
    return nullptr;
  }
  return session;
}

}  // namespace

int measure(const Invocation& in, const cli::AxisTable& axes, const std::vector<const cases::CaseSpec*>& selected,
            const gbench::RunIdentity& identity, const Observer& observe) {
  const cli::Options& options = in.options;
  std::unique_ptr<engine::Session> session = open_session(options);
  if (!session) return kFailed;
  const nvml::Ecc ecc_start = run::run_ecc(options.run_devices);
  add_context(in.version, options, axes, in.launcher, identity, *session, ecc_start);
  engine::install_stop_signals();
  cases::RunSummary summary;
  nvml::Ecc ecc_end;
  bool ended = false;  // the result file asked how the run ended
  {
    cases::Runner runner(*session);
    if (observe) runner.set_observer(observe);
    const auto ending = [&] {
      ecc_end = run::run_ecc(options.run_devices);
      ended = true;
      return end_of_run(ecc_end, runner.summary(), selected.size());
    };
    const gbench::ResultFileSpec file{selected, ending};
    const bool result_file = !options.output_file.empty() && options.output_format == "json";
    gbench::run(runner, result_file ? &file : nullptr);
    summary = runner.summary();
  }
  session.reset();
  if (!ended) ecc_end = run::run_ecc(options.run_devices);
  gbench::shutdown();
  if (!options.output_file.empty()) run::finish_output(options.output_file);
  return summarize(summary, selected.size(), options, ecc_start, ecc_end);
}

}  // namespace membench::run
