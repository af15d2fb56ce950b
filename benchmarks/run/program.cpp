// The run and --check, from a command line read once. See run/program.hpp.
#include "run/program.hpp"

#include <chrono>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/files.hpp"
#include "cli/gbench_flags.hpp"
#include "cli/grammar.hpp"
#include "gbench/adapter.hpp"
#include "gbench/resume.hpp"
#include "membench/platform/cuda.hpp"
#include "membench/platform/nvml.hpp"
#include "run/check_run.hpp"
#include "run/measure_run.hpp"
#include "run/output_file.hpp"
#include "run/provenance.hpp"

namespace membench::run {

namespace {

const auto kStarted = std::chrono::steady_clock::now();

// Hands Google Benchmark its share of argv (the result file written as
// FILE.partial until the run ends); --help prints both usages and exits 0.
// False where Google Benchmark refuses a flag.
bool start_google_benchmark(const Invocation& in, const cli::AxisTable& axes) {
  std::vector<std::string> args;
  for (const auto& arg : in.options.passthrough) {
    const bool out_flag = arg.rfind("--benchmark_out=", 0) == 0 || arg.rfind("--benchmark_out_format=", 0) == 0;
    if (out_flag && (in.options.list_only || in.options.list_cases)) continue;  // a listing writes no file
    args.push_back(arg.rfind("--benchmark_out=", 0) == 0 ? "--benchmark_out=" + partial_path(in.options.output_file)
                                                         : arg);
  }
  if (in.options.help) {
    std::cout << cli::usage(axes);
    args.emplace_back("--help");  // Google Benchmark prints its own flags and exits 0
  }
  return gbench::initialize(args);
}

// The cases Google Benchmark's filter (flag or environment) selects; a
// cli::UsageError where it is no pattern or matches none.
std::vector<const cases::CaseSpec*> filtered(const std::vector<cases::CaseSpec>& cases) {
  try {
    auto selected = gbench::selected(cases, gbench::Filter(gbench::filter()));
    if (selected.empty())
      throw cli::UsageError("--benchmark_filter=" + cli::printable(gbench::filter()) +
                            " matches no case (see --benchmark_list_tests)");
    return selected;
  } catch (const gbench::Filter::Invalid& e) {
    throw cli::UsageError("--benchmark_filter=" + cli::printable(gbench::filter()) + ": " + e.what());
  }
}

// Before any GPU is looked for: the output files can be written, and
// --resume's file (or FILE.partial, where a run was killed outright) is
// read and checked. A cli::UsageError or gbench::ResumeError where not.
std::optional<gbench::ResumeFile> read_resume(const cli::Options& options) {
  if (!options.output_file.empty()) {
    // Google Benchmark opens the file only when the run starts, where a
    // folder that does not exist would end the run with status 1.
    cli::check_output_file("--benchmark_out", options.output_file);
    cli::check_output_file("--benchmark_out", partial_path(options.output_file));
  }
  if (options.resume_file.empty()) return std::nullopt;
  const auto source = read_resume_source(options.resume_file);
  if (!source) return std::nullopt;
  return gbench::read_resume(source->path, source->text, options.repetitions);
}

// Which build, driver and GPUs measure; carries --resume's finished cases
// where they are this run's. A UsageError or ResumeError where the resumed
// file does not fit.
gbench::RunIdentity run_identity(Invocation& in, std::optional<gbench::ResumeFile> resumed) {
  const cli::Options& options = in.options;
  gbench::RunIdentity identity;
  identity.membench_version = in.version;
  identity.membench_build = build_id();
  identity.driver_version = nvml::driver_version();
  for (const DeviceInfo& d : devices_of(in)) identity.gpu_uuids.push_back(d.uuid);
  identity.cuda_driver_version = cuda_version_string(devices_of(in).front().driver_version);
  if (resumed) {
    gbench::check_identity(*resumed, identity);
    std::cerr << "membench: " << resumed->origin << "carrying " << resumed->carried.cases.size() << " finished case(s)"
              << (resumed->carried.incomplete
                      ? ", measuring " + std::to_string(resumed->carried.incomplete) + " it holds unfinished again"
                      : std::string())
              << (resumed->cut ? " (the file ends inside a case: a process killed while it wrote)" : "") << '\n';
    gbench::set_carried(std::move(resumed->carried));
  } else if (!options.resume_file.empty()) {
    std::cerr << "membench: --resume=" << options.resume_file << ": no such file yet (nor "
              << partial_path(options.resume_file) << "); measuring every case\n";
  }
  return identity;
}

// How a run ended: its status, and whether it measured (a listing or a
// refusal measures nothing).
struct RunEnd {
  int status = 0;
  bool measured = false;
};

// The run: Google Benchmark's flags, the filter, a listing, --resume and the
// devices checked, then the cases measured, each outcome handed to `observe`.
RunEnd run_program(Invocation& in, const cli::AxisTable& axes, const Observer& observe) {
  if (!start_google_benchmark(in, axes)) return {kUsage};
  try {
    const std::vector<const cases::CaseSpec*> selected = filtered(in.cases);
    if (in.options.list_cases) {
      std::cout << gbench::cases_json(selected) << '\n';
      return {0};
    }
    gbench::register_cases(selected);
    if (in.options.list_only) {
      gbench::list();
      return {0};
    }
    std::optional<gbench::ResumeFile> resumed = read_resume(in.options);
    const gbench::RunIdentity identity = run_identity(in, std::move(resumed));
    return {measure(in, axes, selected, identity, observe), true};
  } catch (const cli::UsageError& e) { return {usage(e.what())}; } catch (const gbench::ResumeError& e) {
    return {usage(e.what())};
  } catch (const RunError& e) {
    std::cerr << "membench: " << e.what() << "; nothing measured\n";
    return {kFailed};
  } catch (const std::exception& e) {  // a device that fails while the run starts
    std::cerr << "membench: cannot start the run: " << e.what() << '\n';
    return {kFailed};
  }
}

// --check: the reference each GPU's model names (or a provisional one), the
// check's cases among those selected, the run, and the verdicts.
int check_program(Invocation& in, const cli::AxisTable& axes) {
  const cli::Options& options = in.options;
  try {
    if (!options.check_file.empty()) in.references = {read_reference_file(options.check_file)};
    if (!options.check_metrics.empty()) cli::check_output_file("--check_metrics", options.check_metrics);
    if (options.list_cases) {
      std::cout << check_listing(in.cases) << '\n';
      return 0;
    }
    if (!options.judge_file.empty())
      return judge_recorded(options.judge_file, in.references, options.check_metrics, std::cout);
    devices_of(in);
  } catch (const cli::UsageError& e) { return usage(e.what()); } catch (const RunError& e) {
    std::cerr << "membench: --check: " << e.what() << '\n';
    return kFailed;
  }
  CheckRun check(in.references, in.devices);
  if (!check.any_reference()) return check.finish(0, host_name(), options.check_metrics, std::cout);
  in.cases = check.cases(std::move(in.cases));
  const RunEnd run = run_program(in, axes, [&](const auto& c, const auto& o) { check.observe(c, o); });
  if (!run.measured || run.status > kFailed) return run.status;  // a signal's status stands
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - kStarted).count();
  const int verdict = check.finish(seconds, host_name(), options.check_metrics, std::cout);
  return run.status == kFailed ? kFailed : verdict;
}

}  // namespace

Invocation read_invocation(int argc, char** argv, const cli::AxisTable& axes, std::string version) {
  const cli::Environment env = cli::process_environment();
  Invocation in;
  in.version = std::move(version);
  std::vector<char*> args_in(argv, argv + argc);
  std::vector<std::string> from_env = cli::environment_flags(env);
  args_in.insert(args_in.begin() + 1, from_env.size(), nullptr);
  for (std::size_t i = 0; i < from_env.size(); ++i) args_in[1 + i] = from_env[i].data();
  cli::Options& options = in.options;
  options = cli::parse_command_line(static_cast<int>(args_in.size()), args_in.data(), axes);
  in.launcher = cli::launcher_info(env);
  options.measure.corrupt_for_test = cli::corrupt_for_test(env);
  options.measure.utilisation_view_for_test = cli::utilisation_view_for_test(env);
  options.measure.profile_launches = cli::profile_launches(env);
  // The devices' ordinals: as given where listed (checked against the visible
  // ones by devices_of, once usage errors, --help and listing, which need no
  // GPU, are done), else from what is visible and the launcher's rank.
  in.visible = visible_devices(&in.why);
  const bool as_given = options.device.kind == cli::DeviceSelection::Kind::list;
  options.run_devices =
      cli::resolve_devices(options.device, as_given ? cli::kMaxDevices : std::max(in.visible, 1), in.launcher);
  const std::string host = host_name();
  const auto fill_in = [&](const std::string& flag, const std::string& pattern) {
    try {
      return cli::expand_output_pattern(pattern, host, in.launcher, options.run_devices.front());
    } catch (const cli::UsageError& e) { throw cli::UsageError("--" + flag + "=" + pattern + ": " + e.what()); }
  };
  if (!options.output_file.empty()) options.output_file = fill_in("benchmark_out", options.output_file);
  if (!options.resume_file.empty()) options.resume_file = fill_in("resume", options.resume_file);
  in.cases = cases::enumerate_cases(options.selection());
  return in;
}

const std::vector<DeviceInfo>& devices_of(Invocation& in) {
  if (!in.devices.empty()) return in.devices;
  if (in.visible == 0) throw RunError("no CUDA device visible: " + in.why);
  cli::resolve_devices(in.options.device, in.visible, in.launcher);  // a listed ordinal that is not visible
  try {
    for (int ordinal : in.options.run_devices) in.devices.push_back(query_device(ordinal));
  } catch (const std::exception& e) {
    in.devices.clear();
    throw RunError(std::string("cannot query the devices: ") + e.what());
  }
  return in.devices;
}

int usage(const std::string& message) {
  std::cerr << "membench: " << cli::printable(message, 400) << '\n';
  return kUsage;
}

int run_command(Invocation& in, const cli::AxisTable& axes) {
  if (in.options.check && !in.options.help) return check_program(in, axes);
  return run_program(in, axes, {}).status;
}

}  // namespace membench::run
