// membench: argv in, exit status out. main() reads the command line and the
// environment against the axes the families declared and hands the rest to
// one of two programs: the run (Google Benchmark's flags, the filter, the
// cases measured with one measuring session, the result file) or --check
// (the run of the check's cases, then each GPU's verdict). Exit status: 0
// every selected case ran and verified (skips included), 1 a case failed or
// the GPU was in trouble, 2 usage (one line, before anything touches the
// GPU), 3 to 6 the check's verdicts (run/check.hpp), 128 + N after signal N
// (the JSON still whole).
#include <algorithm>
#include <chrono>
#include <functional>
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

// What the command line and the environment asked for, read once.
struct Invocation {
  mb::cli::Options options;
  mb::cli::LauncherInfo launcher;
  std::vector<mb::cases::CaseSpec> cases;
  std::vector<mb::run::Reference> references = mb::run::built_in_references();
  int visible = 0;  // CUDA devices visible
  std::string why;  // why none is
};

// Reads argv (Google Benchmark's environment variables first, as flags) and
// the launcher's environment against the axes, resolves the devices and the
// output files' patterns, and enumerates the cases; a cli::UsageError or
// cases::TooManyCases where they are wrong. Touches no GPU but to count them.
Invocation read_invocation(int argc, char** argv, const mb::cli::AxisTable& axes) {
  const mb::cli::Environment env = mb::cli::process_environment();
  Invocation in;
  std::vector<char*> args_in(argv, argv + argc);
  std::vector<std::string> from_env = mb::cli::environment_flags(env);
  args_in.insert(args_in.begin() + 1, from_env.size(), nullptr);
  for (std::size_t i = 0; i < from_env.size(); ++i) args_in[1 + i] = from_env[i].data();
  mb::cli::Options& options = in.options;
  options = mb::cli::parse_command_line(static_cast<int>(args_in.size()), args_in.data(), axes);
  in.launcher = mb::cli::launcher_info(env);
  options.measure.corrupt_for_test = mb::cli::corrupt_for_test(env);
  options.measure.utilisation_view_for_test = mb::cli::utilisation_view_for_test(env);
  options.measure.profile_launches = mb::cli::profile_launches(env);
  // The devices, resolved once: as given where listed (checked against the
  // visible ones later, once usage errors, --help and listing, which need no
  // GPU, are done), else from what is visible and the launcher's rank.
  in.visible = mb::visible_devices(&in.why);
  const bool as_given = options.device.kind == mb::cli::DeviceSelection::Kind::list;
  options.run_devices =
      mb::cli::resolve_devices(options.device, as_given ? mb::cli::kMaxDevices : std::max(in.visible, 1), in.launcher);
  const std::string host = mb::run::host_name();
  const auto fill_in = [&](const std::string& flag, const std::string& pattern) {
    try {
      return mb::cli::expand_output_pattern(pattern, host, in.launcher, options.run_devices.front());
    } catch (const mb::cli::UsageError& e) { throw mb::cli::UsageError("--" + flag + "=" + pattern + ": " + e.what()); }
  };
  if (!options.output_file.empty()) options.output_file = fill_in("benchmark_out", options.output_file);
  if (!options.resume_file.empty()) options.resume_file = fill_in("resume", options.resume_file);
  in.cases = mb::cases::enumerate_cases(options.selection());
  return in;
}

// Hands Google Benchmark its share of argv (the result file written as
// FILE.partial until the run ends); --help prints both usages and exits 0.
// False where Google Benchmark refuses a flag.
bool start_google_benchmark(const Invocation& in, const mb::cli::AxisTable& axes) {
  std::vector<std::string> args;
  for (const auto& arg : in.options.passthrough) {
    const bool out_flag = arg.rfind("--benchmark_out=", 0) == 0 || arg.rfind("--benchmark_out_format=", 0) == 0;
    if (out_flag && (in.options.list_only || in.options.list_cases)) continue;  // a listing writes no file
    args.push_back(arg.rfind("--benchmark_out=", 0) == 0
                       ? "--benchmark_out=" + mb::run::partial_path(in.options.output_file)
                       : arg);
  }
  if (in.options.help) {
    std::cout << mb::cli::usage(axes);
    args.emplace_back("--help");  // Google Benchmark prints its own flags and exits 0
  }
  return mb::gbench::initialize(args);
}

// The cases Google Benchmark's filter (flag or environment) selects; a
// cli::UsageError where it is no pattern or matches none.
std::vector<const mb::cases::CaseSpec*> filtered(const std::vector<mb::cases::CaseSpec>& cases) {
  try {
    auto selected = mb::gbench::selected(cases, mb::gbench::Filter(mb::gbench::filter()));
    if (selected.empty())
      throw mb::cli::UsageError("--benchmark_filter=" + mb::cli::printable(mb::gbench::filter()) +
                                " matches no case (see --benchmark_list_tests)");
    return selected;
  } catch (const mb::gbench::Filter::Invalid& e) {
    throw mb::cli::UsageError("--benchmark_filter=" + mb::cli::printable(mb::gbench::filter()) + ": " + e.what());
  }
}

// Before any GPU is looked for: the output files can be written, and
// --resume's file (or FILE.partial, where a run was killed outright) is
// read and checked. A cli::UsageError or gbench::ResumeError where not.
std::optional<mb::gbench::ResumeFile> read_resume(const mb::cli::Options& options) {
  if (!options.output_file.empty()) {
    // Google Benchmark opens the file only when the run starts, where a
    // folder that does not exist would end the run with status 1.
    mb::cli::check_output_file("--benchmark_out", options.output_file);
    mb::cli::check_output_file("--benchmark_out", mb::run::partial_path(options.output_file));
  }
  if (options.resume_file.empty()) return std::nullopt;
  const auto source = mb::run::read_resume_source(options.resume_file);
  if (!source) return std::nullopt;
  return mb::gbench::read_resume(source->path, source->text, options.repetitions);
}

// Which build, driver and GPUs measure; carries --resume's finished cases
// where they are this run's. A UsageError or ResumeError where the devices
// or the resumed file do not fit; another exception where a device cannot
// be queried.
mb::gbench::RunIdentity run_identity(Invocation& in, std::optional<mb::gbench::ResumeFile> resumed) {
  const mb::cli::Options& options = in.options;
  mb::cli::resolve_devices(options.device, in.visible, in.launcher);
  mb::gbench::RunIdentity identity;
  identity.membench_version = MEMBENCH_VERSION;
  identity.membench_build = mb::run::build_id();
  identity.driver_version = mb::nvml::driver_version();
  for (int ordinal : options.run_devices) identity.gpu_uuids.push_back(mb::query_device(ordinal).uuid);
  identity.cuda_driver_version = mb::cuda_version_string(mb::query_device(options.run_devices.front()).driver_version);
  if (resumed) {
    mb::gbench::check_identity(*resumed, identity);
    std::cerr << "membench: " << resumed->origin << "carrying " << resumed->carried.cases.size() << " finished case(s)"
              << (resumed->carried.incomplete
                      ? ", measuring " + std::to_string(resumed->carried.incomplete) + " it holds unfinished again"
                      : std::string())
              << (resumed->cut ? " (the file ends inside a case: a process killed while it wrote)" : "") << '\n';
    mb::gbench::set_carried(std::move(resumed->carried));
  } else if (!options.resume_file.empty()) {
    std::cerr << "membench: --resume=" << options.resume_file << ": no such file yet (nor "
              << mb::run::partial_path(options.resume_file) << "); measuring every case\n";
  }
  return identity;
}

// The measuring session on the first device; null, said on stderr, where it
// cannot start or --exclusive finds another process on the GPU.
std::unique_ptr<engine::Session> open_session(const mb::cli::Options& options) {
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

using Observer = std::function<void(const mb::cases::CaseSpec&, const mb::cases::Outcome&)>;

// The selected cases measured, the result file written whole; the status.
int measure(const Invocation& in, const mb::cli::AxisTable& axes,
            const std::vector<const mb::cases::CaseSpec*>& selected, const mb::gbench::RunIdentity& identity,
            const Observer& observe) {
  const mb::cli::Options& options = in.options;
  std::unique_ptr<engine::Session> session = open_session(options);
  if (!session) return kFailed;
  const mb::nvml::Ecc ecc_start = mb::run::run_ecc(options.run_devices);
  add_context(options, axes, in.launcher, identity, *session, ecc_start);
  engine::install_stop_signals();
  mb::cases::RunSummary summary;
  mb::nvml::Ecc ecc_end;
  bool ended = false;  // the result file asked how the run ended
  {
    mb::cases::Runner runner(*session);
    if (observe) runner.set_observer(observe);
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
  return summarize(summary, selected.size(), options, ecc_start, ecc_end);
}

// How a run ended: its status, and whether it measured (a listing or a
// refusal measures nothing).
struct RunEnd {
  int status = 0;
  bool measured = false;
};

// The run: Google Benchmark's flags, the filter, a listing, --resume and the
// devices checked, then the cases measured, each outcome handed to `observe`.
RunEnd run_program(Invocation& in, const mb::cli::AxisTable& axes, const Observer& observe) {
  if (!start_google_benchmark(in, axes)) return {kUsage};
  try {
    const std::vector<const mb::cases::CaseSpec*> selected = filtered(in.cases);
    if (in.options.list_cases) {
      std::cout << mb::gbench::cases_json(selected) << '\n';
      return {0};
    }
    mb::gbench::register_cases(selected);
    if (in.options.list_only) {
      mb::gbench::list();
      return {0};
    }
    std::optional<mb::gbench::ResumeFile> resumed = read_resume(in.options);
    if (in.visible == 0) {
      std::cerr << "membench: no CUDA device visible: " << in.why << "; nothing to measure\n";
      return {kFailed};
    }
    const mb::gbench::RunIdentity identity = run_identity(in, std::move(resumed));
    return {measure(in, axes, selected, identity, observe), true};
  } catch (const mb::cli::UsageError& e) { return {usage(e.what())}; } catch (const mb::gbench::ResumeError& e) {
    return {usage(e.what())};
  } catch (const std::exception& e) {
    std::cerr << "membench: cannot query the devices: " << e.what() << '\n';
    return {kFailed};
  }
}

// --check: the reference each GPU's model names (or a provisional one), the
// check's cases among those selected, the run, and the verdicts.
int check_program(Invocation& in, const mb::cli::AxisTable& axes) {
  const mb::cli::Options& options = in.options;
  std::vector<mb::DeviceInfo> devices;
  try {
    if (!options.check_file.empty()) in.references = {mb::run::read_reference_file(options.check_file)};
    if (!options.check_metrics.empty()) mb::cli::check_output_file("--check_metrics", options.check_metrics);
    if (options.list_cases) {
      std::cout << mb::run::check_listing(in.cases) << '\n';
      return 0;
    }
    if (!options.judge_file.empty())
      return mb::run::judge_recorded(options.judge_file, in.references, options.check_metrics, std::cout);
    if (in.visible == 0) {
      std::cerr << "membench: --check: no CUDA device visible: " << in.why << '\n';
      return kFailed;
    }
    mb::cli::resolve_devices(options.device, in.visible, in.launcher);
    for (int ordinal : options.run_devices) devices.push_back(mb::query_device(ordinal));
  } catch (const mb::cli::UsageError& e) { return usage(e.what()); } catch (const std::exception& e) {
    std::cerr << "membench: --check: cannot query the devices: " << e.what() << '\n';
    return kFailed;
  }
  mb::run::CheckRun check(in.references, devices);
  if (!check.any_reference()) return check.finish(0, mb::run::host_name(), options.check_metrics, std::cout);
  in.cases = check.cases(std::move(in.cases));
  const RunEnd run = run_program(in, axes, [&](const auto& c, const auto& o) { check.observe(c, o); });
  if (!run.measured || run.status > kFailed) return run.status;  // a signal's status stands
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - kStarted).count();
  const int verdict = check.finish(seconds, mb::run::host_name(), options.check_metrics, std::cout);
  return run.status == kFailed ? kFailed : verdict;
}

}  // namespace

int main(int argc, char** argv) {
  // A line per case as it finishes, also into a scheduler's log file (not 4 KiB at a time).
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const mb::cli::AxisTable axes = mb::cli::declared_axes();
  Invocation in;
  try {
    in = read_invocation(argc, argv, axes);
  } catch (const mb::cli::UsageError& e) { return usage(e.what()); } catch (const mb::cases::TooManyCases& e) {
    return usage(e.what());
  }
  if (in.options.version) {
    std::cout << "membench " << MEMBENCH_VERSION << " (build " << mb::run::build_id() << ", result schema "
              << mb::gbench::kSchemaVersion << ", Google Benchmark " << mb::gbench::kVersion / 10000 << '.'
              << mb::gbench::kVersion / 100 % 100 << ", CUDA runtime " << mb::cuda_version_string(CUDART_VERSION)
              << ")\n";
    return 0;
  }
  if (in.options.check && !in.options.help) return check_program(in, axes);
  return run_program(in, axes, {}).status;
}
