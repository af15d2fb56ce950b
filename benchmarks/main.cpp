// membench: argv in, exit status out. Reads the command line against the
// axes the families declared, enumerates their cases, hands them and the
// rest of argv to Google Benchmark, and runs them with one measuring
// session. Exit status: 0 every selected case ran and verified (skips
// included), 1 a case failed or the GPU was in trouble, 2 usage (one line,
// before anything touches the GPU), 128 + N after signal N (the JSON still
// whole).
#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cases/family.hpp"
#include "cases/runner.hpp"
#include "cli/command_line.hpp"
#include "cli/files.hpp"
#include "cli/gbench_flags.hpp"
#include "cli/grammar.hpp"
#include "cli/launcher.hpp"
#include "engine/health.hpp"
#include "engine/session.hpp"
#include "engine/stop.hpp"
#include "gbench/adapter.hpp"
#include "gbench/result_file.hpp"
#include "gbench/resume.hpp"
#include "membench/platform/code.hpp"
#include "membench/platform/cuda.hpp"
#include "membench/platform/device_info.hpp"
#include "membench/platform/numa.hpp"
#include "membench/platform/nvml.hpp"
#include "run/check_run.hpp"
#include "run/output_file.hpp"
#include "run/provenance.hpp"

#ifndef MEMBENCH_VERSION
#define MEMBENCH_VERSION "unknown"
#endif

namespace {

namespace mb = membench;
namespace engine = membench::engine;

constexpr int kUsage = 2;
const auto kStarted = std::chrono::steady_clock::now();
constexpr int kFailed = 1;

// A usage error: one line on stderr (control characters escaped, a long
// message cut), and its exit status.
int usage(const std::string& message) {
  std::cerr << "membench: " << mb::cli::printable(message, 400) << '\n';
  return kUsage;
}

// The result file's context: where the numbers came from.
void add_context(const mb::cli::Options& options, const mb::cli::AxisTable& axes, const mb::cli::LauncherInfo& launcher,
                 const mb::gbench::RunIdentity& identity, engine::Session& session, const mb::nvml::Ecc& ecc) {
  mb::run::RunFacts facts;
  facts.version = MEMBENCH_VERSION;
  facts.identity = identity;
  facts.device = session.device();
  if (options.run_devices.size() > 1)
    for (int ordinal : options.run_devices) facts.run_devices.push_back(mb::query_device(ordinal));
  facts.host_numa_nodes = mb::host_numa_nodes();
  facts.launcher = launcher;
  facts.health = mb::run::health_description(session.health());
  facts.power_limit_w = session.power_limit_w();
  const bool energy = options.measure.energy;
  facts.energy = mb::run::energy_description(energy, energy && !session.energy_counter() ? session.energy_why() : "");
  if (energy && session.energy_counter()) facts.idle_power_w = session.idle_power_w();
  if (energy && !session.energy_counter())
    std::cerr << "membench: --energy: " << session.energy_why() << "; cases report no power\n";
  facts.ecc_start = ecc;
  facts.resumed_from = options.resume_file;
  facts.sweep = mb::cli::describe_sweep(options, axes);
  facts.cuda_architectures = mb::built_cuda_architectures();
  if (const cudaError_t rc = mb::code_ran_as_here(&facts.code_ran_as); rc != cudaSuccess)
    facts.code_ran_as = std::string("unknown: ") + cudaGetErrorString(rc);
  for (const auto& [key, value] : mb::run::context_keys(facts)) mb::gbench::add_context(key, value);
}

// How the run ended, for the result file's "end".
nlohmann::ordered_json end_of_run(const mb::nvml::Ecc& ecc_end, const mb::cases::RunSummary& summary,
                                  std::size_t selected) {
  nlohmann::ordered_json end = nlohmann::ordered_json::object();
  for (const auto& [key, value] : mb::run::ecc_keys(ecc_end, "_end")) end[key] = value;
  end["cases_selected"] = selected;
  end["cases_not_run"] = summary.interrupted.size();
  end["cases_resumed"] = summary.resumed;
  if (const auto reason = mb::engine::stop_reason()) end["stopped"] = *reason;
  return end;
}

// The run's verdict on stderr, and the exit status it stands for.
int summarize(const mb::cases::RunSummary& s, std::size_t selected, const mb::cli::Options& options,
              const mb::nvml::Ecc& start, const mb::nvml::Ecc& end) {
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
  return mb::cases::exit_status(s, ecc_grew, signal, why.has_value());
}

// Before any library initialises (Google Benchmark reads its variables then):
// the executable's .preinit_array runs first.
void take_benchmark_variables_first(int, char**, char** environment) { mb::cli::take_benchmark_variables(environment); }
[[gnu::used, gnu::section(".preinit_array")]] void (*const kTakeFirst)(int, char**,
                                                                       char**) = take_benchmark_variables_first;

}  // namespace

int main(int argc, char** argv) {
  // A line per case as it finishes, also into a scheduler's log file (not 4 KiB at a time).
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const mb::cli::AxisTable axes = mb::cli::declared_axes();
  const mb::cli::Environment env = mb::cli::process_environment();
  mb::cli::Options options;
  mb::cli::LauncherInfo launcher;
  std::vector<mb::cases::CaseSpec> cases;
  std::string why;
  int visible = 0;
  std::vector<mb::run::Reference> references = mb::run::built_in_references();
  try {
    // Google Benchmark's environment variables, checked and read as flags
    // that come before the command line's.
    std::vector<char*> args_in(argv, argv + argc);
    std::vector<std::string> from_env = mb::cli::environment_flags(env);
    args_in.insert(args_in.begin() + 1, from_env.size(), nullptr);
    for (std::size_t i = 0; i < from_env.size(); ++i) args_in[1 + i] = from_env[i].data();
    options = mb::cli::parse_command_line(static_cast<int>(args_in.size()), args_in.data(), axes);
    launcher = mb::cli::launcher_info(env);
    options.measure.corrupt_for_test = mb::cli::corrupt_for_test(env);
    options.measure.utilisation_view_for_test = mb::cli::utilisation_view_for_test(env);
    options.measure.profile_launches = mb::cli::profile_launches(env);
    // The devices, resolved once: as given where listed (checked against the
    // visible ones below, once usage errors, --help and listing, which need
    // no GPU, are done), else from what is visible and the launcher's rank.
    visible = mb::visible_devices(&why);
    const bool as_given = options.device.kind == mb::cli::DeviceSelection::Kind::list;
    options.run_devices =
        mb::cli::resolve_devices(options.device, as_given ? mb::cli::kMaxDevices : std::max(visible, 1), launcher);
    const std::string host = mb::run::host_name();
    const auto fill_in = [&](const std::string& flag, const std::string& pattern) {
      try {
        return mb::cli::expand_output_pattern(pattern, host, launcher, options.run_devices.front());
      } catch (const mb::cli::UsageError& e) {
        throw mb::cli::UsageError("--" + flag + "=" + pattern + ": " + e.what());
      }
    };
    if (!options.output_file.empty()) options.output_file = fill_in("benchmark_out", options.output_file);
    if (!options.resume_file.empty()) options.resume_file = fill_in("resume", options.resume_file);
    cases = mb::cases::enumerate_cases(options.selection());
    if (options.check) {
      if (!options.check_file.empty()) references = {mb::run::read_reference_file(options.check_file)};
      if (!options.check_metrics.empty()) mb::cli::check_output_file("--check_metrics", options.check_metrics);
      if (options.list_cases) {
        std::cout << mb::run::check_listing(cases) << '\n';
        return 0;
      }
      if (!options.judge_file.empty())
        return mb::run::judge_recorded(options.judge_file, references, options.check_metrics, std::cout);
    }
  } catch (const mb::cli::UsageError& e) { return usage(e.what()); } catch (const mb::cases::TooManyCases& e) {
    return usage(e.what());
  }

  std::vector<std::string> args;
  for (const auto& arg : options.passthrough) {
    const bool out_flag = arg.rfind("--benchmark_out=", 0) == 0 || arg.rfind("--benchmark_out_format=", 0) == 0;
    if (out_flag && (options.list_only || options.list_cases)) continue;  // a listing writes no file
    args.push_back(
        arg.rfind("--benchmark_out=", 0) == 0 ? "--benchmark_out=" + mb::run::partial_path(options.output_file) : arg);
  }
  if (options.version) {
    std::cout << "membench " << MEMBENCH_VERSION << " (build " << mb::run::build_id() << ", result schema "
              << mb::gbench::kSchemaVersion << ", Google Benchmark " << mb::gbench::kVersion / 10000 << '.'
              << mb::gbench::kVersion / 100 % 100 << ", CUDA runtime " << mb::cuda_version_string(CUDART_VERSION)
              << ")\n";
    return 0;
  }
  if (options.help) {
    std::cout << mb::cli::usage(axes);
    args.emplace_back("--help");  // Google Benchmark prints its own flags and exits 0
  }
  if (!mb::gbench::initialize(args)) return kUsage;
  // --check: each GPU's model picks its reference, and the reference the cases.
  std::optional<mb::run::CheckRun> check;
  if (options.check) {
    if (visible == 0) {
      std::cerr << "membench: --check: no CUDA device visible: " << why << '\n';
      return kFailed;
    }
    try {
      mb::cli::resolve_devices(options.device, visible, launcher);
      std::vector<mb::DeviceInfo> devices;
      for (int ordinal : options.run_devices) devices.push_back(mb::query_device(ordinal));
      check.emplace(references, devices);
    } catch (const mb::cli::UsageError& e) { return usage(e.what()); } catch (const std::exception& e) {
      std::cerr << "membench: --check: cannot query the devices: " << e.what() << '\n';
      return kFailed;
    }
    if (!check->any_reference()) return check->finish(0, mb::run::host_name(), options.check_metrics, std::cout);
    cases = check->cases(std::move(cases));
  }

  // The filter as Google Benchmark will apply it (flag or environment).
  std::vector<const mb::cases::CaseSpec*> selected;
  try {
    selected = mb::gbench::selected(cases, mb::gbench::Filter(mb::gbench::filter()));
  } catch (const mb::gbench::Filter::Invalid& e) {
    return usage("--benchmark_filter=" + mb::cli::printable(mb::gbench::filter()) + ": " + e.what());
  }
  if (selected.empty()) {
    return usage("--benchmark_filter=" + mb::cli::printable(mb::gbench::filter()) +
                 " matches no case (see --benchmark_list_tests)");
  }
  if (options.list_cases) {
    std::cout << mb::gbench::cases_json(selected) << '\n';
    return 0;
  }
  mb::gbench::register_cases(selected);
  if (options.list_only) {
    mb::gbench::list();
    return 0;
  }
  // --resume's file is read and checked before any GPU is looked for; where
  // FILE is not there but FILE.partial is (a run killed outright), that.
  std::optional<mb::gbench::ResumeFile> resumed;
  try {
    if (!options.output_file.empty()) {
      // Google Benchmark opens the file only when the run starts, where a
      // folder that does not exist would end the run with status 1.
      mb::cli::check_output_file("--benchmark_out", options.output_file);
      mb::cli::check_output_file("--benchmark_out", mb::run::partial_path(options.output_file));
    }
    if (!options.resume_file.empty()) {
      if (const auto source = mb::run::read_resume_source(options.resume_file))
        resumed = mb::gbench::read_resume(source->path, source->text, options.repetitions);
    }
  } catch (const mb::cli::UsageError& e) { return usage(e.what()); } catch (const mb::gbench::ResumeError& e) {
    return usage(e.what());
  }

  if (visible == 0) {
    std::cerr << "membench: no CUDA device visible: " << why << "; nothing to measure\n";
    return kFailed;
  }
  mb::gbench::RunIdentity identity;
  try {
    mb::cli::resolve_devices(options.device, visible, launcher);
    identity.membench_version = MEMBENCH_VERSION;
    identity.membench_build = mb::run::build_id();
    identity.driver_version = mb::nvml::driver_version();
    for (int ordinal : options.run_devices) identity.gpu_uuids.push_back(mb::query_device(ordinal).uuid);
    identity.cuda_driver_version =
        mb::cuda_version_string(mb::query_device(options.run_devices.front()).driver_version);
    if (resumed) {
      mb::gbench::check_identity(*resumed, identity);
      std::cerr << "membench: " << resumed->origin << "carrying " << resumed->carried.cases.size()
                << " finished case(s)"
                << (resumed->carried.incomplete
                        ? ", measuring " + std::to_string(resumed->carried.incomplete) + " it holds unfinished again"
                        : std::string())
                << (resumed->cut ? " (the file ends inside a case: a process killed while it wrote)" : "") << '\n';
      mb::gbench::set_carried(std::move(resumed->carried));
    } else if (!options.resume_file.empty()) {
      std::cerr << "membench: --resume=" << options.resume_file << ": no such file yet (nor "
                << mb::run::partial_path(options.resume_file) << "); measuring every case\n";
    }
  } catch (const mb::cli::UsageError& e) { return usage(e.what()); } catch (const mb::gbench::ResumeError& e) {
    return usage(e.what());
  } catch (const std::exception& e) {
    std::cerr << "membench: cannot query the devices: " << e.what() << '\n';
    return kFailed;
  }
  const int first = options.run_devices.front();
  std::unique_ptr<engine::Session> session;
  try {
    session = std::make_unique<engine::Session>(first, options.measure);
  } catch (const std::exception& e) {
    std::cerr << "membench: cannot use device " << first << ": " << e.what() << '\n';
    return kFailed;
  }
  engine::HealthMonitor& health = session->health();
  if (options.measure.exclusive) {
    if (!health.sees_processes()) {
      std::cerr << "membench: --exclusive: cannot tell whether another process holds the GPU ("
                << (health.why().empty() ? "NVML cannot list processes" : health.why()) << "); not starting\n";
      return kFailed;
    }
    if (const auto others = health.others_now(); !others.empty()) {
      std::cerr << "membench: --exclusive: another process holds device " << first << " (pid " << others.front().first
                << (others.front().second.empty() ? "" : ", " + others.front().second) << "); not starting\n";
      return kFailed;
    }
  }
  const mb::nvml::Ecc ecc_start = mb::run::run_ecc(options.run_devices);
  add_context(options, axes, launcher, identity, *session, ecc_start);
  engine::install_stop_signals();
  mb::cases::RunSummary summary;
  mb::nvml::Ecc ecc_end;
  bool ended = false;  // the result file asked how the run ended
  {
    mb::cases::Runner runner(*session);
    if (check) runner.set_observer([&](const auto& c, const auto& o) { check->observe(c, o); });
    const auto ending = [&] {
      ecc_end = mb::run::run_ecc(options.run_devices);
      ended = true;
      return end_of_run(ecc_end, runner.summary(), selected.size());
    };
    const mb::gbench::ResultFileSpec file{selected, ending};
    const bool result_file = !options.output_file.empty() && options.output_format == "json";
    mb::gbench::run(runner, result_file ? &file : nullptr);
    summary = runner.summary();
  }
  session.reset();
  if (!ended) ecc_end = mb::run::run_ecc(options.run_devices);
  mb::gbench::shutdown();
  if (!options.output_file.empty()) mb::run::finish_output(options.output_file);
  const int status = summarize(summary, selected.size(), options, ecc_start, ecc_end);
  if (!check || status > kFailed) return status;  // a signal's status stands
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - kStarted).count();
  const int verdict = check->finish(seconds, mb::run::host_name(), options.check_metrics, std::cout);
  return status == kFailed ? kFailed : verdict;
}
