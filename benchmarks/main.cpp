// membench: argv in, exit status out. Reads the command line against the
// axes the families declared, enumerates their cases, hands them and the
// rest of argv to Google Benchmark, and runs them with one measuring
// session. Exit status: 0 every selected case ran and verified (skips
// included), 1 a case failed or the GPU was in trouble, 2 usage (one line,
// before anything touches the GPU), 128 + N after signal N (the JSON still
// whole).
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cases/family.hpp"
#include "cases/runner.hpp"
#include "cli/command_line.hpp"
#include "cli/gbench_flags.hpp"
#include "cli/grammar.hpp"
#include "cli/launcher.hpp"
#include "engine/health.hpp"
#include "engine/session.hpp"
#include "engine/stop.hpp"
#include "gbench/adapter.hpp"
#include "gbench/resume.hpp"
#include "membench/cuda.hpp"
#include "membench/device_info.hpp"
#include "membench/nvml.hpp"

#ifndef MEMBENCH_VERSION
#define MEMBENCH_VERSION "unknown"
#endif

namespace {

namespace mb = membench;
namespace engine = membench::engine;

constexpr int kUsage = 2;
constexpr int kFailed = 1;

// A usage error: one line on stderr (control characters escaped, a long
// message cut), and its exit status.
int usage(const std::string& message) {
  std::cerr << "membench: " << mb::cli::printable(message, 400) << '\n';
  return kUsage;
}

// The build, as a hash of the executable (FNV-1a, 64 bits): --resume refuses
// numbers another build measured.
std::string build_id() {
  std::ifstream exe("/proc/self/exe", std::ios::binary);
  if (!exe) return "unknown";
  std::uint64_t h = 1469598103934665603ull;
  char buffer[1 << 16];
  while (exe.read(buffer, sizeof buffer) || exe.gcount() > 0) {
    for (std::streamsize i = 0; i < exe.gcount(); ++i) {
      h ^= static_cast<unsigned char>(buffer[i]);
      h *= 1099511628211ull;
    }
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

std::string host_name() {
  char name[256] = {};
  return gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string("unknown-host");
}

// The ECC state as context keys with a suffix (_start, _end).
std::vector<std::pair<std::string, std::string>> ecc_keys(const mb::nvml::Ecc& e, const std::string& suffix) {
  std::vector<std::pair<std::string, std::string>> keys;
  if (e.corrected) keys.emplace_back("ecc_corrected_volatile" + suffix, std::to_string(*e.corrected));
  if (e.uncorrected) keys.emplace_back("ecc_uncorrected_volatile" + suffix, std::to_string(*e.uncorrected));
  if (e.remap_pending) keys.emplace_back("row_remap_pending" + suffix, std::to_string(*e.remap_pending));
  if (e.remap_failed) keys.emplace_back("row_remap_failed" + suffix, std::to_string(*e.remap_failed));
  return keys;
}

// The ECC state of the run's devices, summed (counts only grow, so a sum
// that grew is an error on one of them).
mb::nvml::Ecc run_ecc(const std::vector<int>& ordinals) {
  mb::nvml::Ecc total;
  const auto add = [](auto& sum, const auto& part) {
    if (part) sum = sum.value_or(0) + *part;
  };
  for (int ordinal : ordinals) {
    const auto device = mb::nvml::device_by_bus_id(mb::query_device(ordinal).pci_bus_id, nullptr);
    if (!device) continue;
    const mb::nvml::Ecc e = mb::nvml::ecc(*device);
    add(total.corrected, e.corrected);
    add(total.uncorrected, e.uncorrected);
    add(total.remap_pending, e.remap_pending);
    add(total.remap_failed, e.remap_failed);
  }
  return total;
}

std::string health_description(const engine::HealthMonitor& health) {
  if (!health.available()) return "unavailable: " + health.why();
  if (!health.sees_processes()) return "NVML: clock event reasons, ECC; other processes unknown: " + health.why();
  if (health.process_view() == engine::ProcessView::utilisation)
    return "NVML: other processes (busy ones, from utilisation samples: " + health.why() + "), clock event reasons, ECC";
  return "NVML: other processes, clock event reasons, ECC";
}

void add_context(const mb::cli::Options& options, const mb::cli::AxisTable& axes, const mb::cli::LauncherInfo& launcher,
                 const mb::gbench::RunIdentity& identity, engine::Session& session, const mb::nvml::Ecc& ecc) {
  const mb::DeviceInfo& d = session.device();
  const auto add = [](const std::string& key, const std::string& value) { mb::gbench::add_context(key, value); };
  add("membench_version", MEMBENCH_VERSION);
  add("membench_build", identity.membench_build);
  add("gpu_name", d.name);
  add("gpu_ordinal", std::to_string(d.ordinal));
  add("gpu_uuid", d.uuid);
  add("pci_bus_id", d.pci_bus_id);
  if (options.run_devices.size() > 1) {  // every device of the run, for cases named .../device:K/...
    nlohmann::json all = nlohmann::json::array();
    for (int ordinal : options.run_devices) {
      const mb::DeviceInfo info = mb::query_device(ordinal);
      all.push_back({{"ordinal", ordinal}, {"name", info.name}, {"uuid", info.uuid}, {"pci_bus_id", info.pci_bus_id}});
    }
    add("devices", all.dump());
  }
  if (launcher.rank) add("rank", std::to_string(*launcher.rank));
  if (launcher.local_rank) add("local_rank", std::to_string(*launcher.local_rank));
  for (const std::string* error : {&launcher.rank_error, &launcher.local_rank_error})
    if (!error->empty()) add("launcher_error", *error);
  if (!launcher.job_id.empty()) add("job_id", launcher.job_id);
  add("compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor));
  add("sm_count", std::to_string(d.sm_count));
  add("l2_bytes", std::to_string(d.l2_bytes));
  add("l1_shared_bytes_per_sm", std::to_string(d.l1_bytes));
  add("smem_bytes_per_sm", std::to_string(d.smem_per_sm));
  add("global_memory_bytes", std::to_string(d.global_mem_bytes));
  add("memory_clock_khz", std::to_string(d.mem_clock_khz));
  add("memory_bus_bits", std::to_string(d.bus_width_bits));
  add("dram_peak_bytes_per_second", std::to_string(d.dram_peak_bytes_per_second));
  add("smem_peak_bytes_per_second", std::to_string(d.smem_peak_bytes_per_second));
  add("sm_clock_peak_mhz", std::to_string(d.sm_clock_khz / 1000));
  add("driver_version", identity.driver_version.empty() ? "unknown" : identity.driver_version);
  add("cuda_driver_version", identity.cuda_driver_version);
  add("runtime_version", mb::cuda_version_string(d.runtime_version));
  add("gpu_health", health_description(session.health()));
  for (const auto& [key, value] : ecc_keys(ecc, "_start")) add(key, value);
  if (!options.resume_file.empty()) add("resumed_from", options.resume_file);
  add("sweep", mb::cli::describe_sweep(options, axes));
}

// Google Benchmark opens --benchmark_out only when the run starts, and a
// folder that does not exist then ends the run with status 1: try it now.
void check_writable(const std::string& path) {
  std::error_code ec;
  const bool existed = std::filesystem::exists(path, ec);
  std::ofstream probe(path, std::ios::app);
  if (!probe) throw mb::cli::UsageError("--benchmark_out=" + path + ": cannot write the file (does its folder exist?)");
  probe.close();
  if (!existed) std::filesystem::remove(path, ec);
}

// Reads --resume's file: nothing to carry when it does not exist yet (the
// first attempt of a requeued job), a UsageError when it cannot be read.
std::optional<std::string> read_resume_text(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  if (!std::filesystem::is_regular_file(path, ec)) throw mb::cli::UsageError("--resume=" + path + ": not a regular file");
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  if (!in || !(text << in.rdbuf())) throw mb::cli::UsageError("--resume=" + path + ": cannot read the file");
  return text.str();
}

// Google Benchmark writes --benchmark_out=FILE here, and FILE appears only
// when the run ends, by a rename, so FILE is whole at every moment. The
// partial file is valid JSON after every case (result_file.hpp): a process
// killed outright leaves it behind, and --resume=FILE carries what it holds.
std::string partial_path(const std::string& output) { return output + ".partial"; }

void finish_output(const std::string& path) {
  std::error_code ec;
  std::filesystem::rename(partial_path(path), path, ec);
  if (ec) std::cerr << "membench: warning: cannot rename " << partial_path(path) << " to " << path << " (" << ec.message() << ")\n";
}

// How the run ended, for the result file's "end".
nlohmann::ordered_json end_of_run(const mb::nvml::Ecc& ecc_end, const mb::cases::RunSummary& summary, std::size_t selected) {
  nlohmann::ordered_json end = nlohmann::ordered_json::object();
  for (const auto& [key, value] : ecc_keys(ecc_end, "_end")) end[key] = value;
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
    std::cerr << "membench: " << s.failures.size() << " of " << selected << " cases failed; first: " << s.failures.front()
              << '\n';
  const bool ecc_grew = start.uncorrected && end.uncorrected && *end.uncorrected > *start.uncorrected;
  if (ecc_grew)
    std::cerr << "membench: " << *end.uncorrected - *start.uncorrected
              << " uncorrected ECC error(s) during the run; its numbers cannot be trusted\n";
  if (s.contended > 0)
    std::cerr << "membench: " << s.contended << " of " << selected << " cases measured while another process held the GPU ("
              << s.first_other << "); they are marked contended = 1\n";
  if (s.skipped > 0) std::cerr << "membench: " << s.skipped << " of " << selected << " cases skipped (see their messages)\n";
  const int signal = engine::stop_signal();
  const auto why = engine::stop_reason();
  if (signal != 0) {
    const std::size_t finished = selected - std::min(selected, s.interrupted.size());
    std::cerr << "membench: interrupted by " << engine::signal_name(signal) << " after " << finished << " of " << selected
              << " cases; "
              << (options.output_file.empty() ? "with --benchmark_out=FILE, --resume=FILE would run the rest"
                                              : "--resume=" + options.output_file + " runs the rest")
              << '\n';
  } else if (why) {
    std::cerr << "membench: " << *why << " (" << s.interrupted.size() << " of " << selected << " cases not run)\n";
  }
  return mb::cases::exit_status(s, ecc_grew, signal, why.has_value());
}

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
    const std::string host = host_name();
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
  } catch (const mb::cli::UsageError& e) {
    return usage(e.what());
  } catch (const mb::cases::TooManyCases& e) {
    return usage(e.what());
  }

  std::vector<std::string> args;
  for (const auto& arg : options.passthrough) {
    const bool out_flag = arg.rfind("--benchmark_out=", 0) == 0 || arg.rfind("--benchmark_out_format=", 0) == 0;
    if (out_flag && (options.list_only || options.list_cases)) continue;  // a listing writes no file
    args.push_back(arg.rfind("--benchmark_out=", 0) == 0 ? "--benchmark_out=" + partial_path(options.output_file) : arg);
  }
  if (options.help) {
    std::cout << mb::cli::usage(axes);
    args.emplace_back("--help");  // Google Benchmark prints its own flags and exits 0
  }
  if (!mb::gbench::initialize(args)) return kUsage;

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
  mb::gbench::register_cases(cases);
  if (options.list_only) {
    mb::gbench::list();
    return 0;
  }
  // --resume's file is read and checked before any GPU is looked for; where
  // FILE is not there but FILE.partial is (a run killed outright), that.
  std::optional<mb::gbench::ResumeFile> resumed;
  try {
    if (!options.output_file.empty()) {
      check_writable(options.output_file);
      check_writable(partial_path(options.output_file));
    }
    if (!options.resume_file.empty()) {
      std::string source = options.resume_file;
      std::optional<std::string> text = read_resume_text(source);
      if (!text) {
        source = partial_path(options.resume_file);
        text = read_resume_text(source);
      }
      if (text) resumed = mb::gbench::read_resume(source, *text, options.repetitions);
    }
  } catch (const mb::cli::UsageError& e) {
    return usage(e.what());
  } catch (const mb::gbench::ResumeError& e) {
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
    identity.membench_build = build_id();
    identity.driver_version = mb::nvml::driver_version();
    for (int ordinal : options.run_devices) identity.gpu_uuids.push_back(mb::query_device(ordinal).uuid);
    identity.cuda_driver_version = mb::cuda_version_string(mb::query_device(options.run_devices.front()).driver_version);
    if (resumed) {
      mb::gbench::check_identity(*resumed, identity);
      std::cerr << "membench: " << resumed->origin << "carrying " << resumed->carried.cases.size() << " finished case(s)"
                << (resumed->carried.incomplete ? ", measuring " + std::to_string(resumed->carried.incomplete) +
                                                      " it holds unfinished again"
                                                : std::string())
                << (resumed->cut ? " (the file ends inside a case: a process killed while it wrote)" : "") << '\n';
      mb::gbench::set_carried(std::move(resumed->carried));
    } else if (!options.resume_file.empty()) {
      std::cerr << "membench: --resume=" << options.resume_file << ": no such file yet (nor "
                << partial_path(options.resume_file) << "); measuring every case\n";
    }
  } catch (const mb::cli::UsageError& e) {
    return usage(e.what());
  } catch (const mb::gbench::ResumeError& e) {
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
  const mb::nvml::Ecc ecc_start = run_ecc(options.run_devices);
  add_context(options, axes, launcher, identity, *session, ecc_start);
  engine::install_stop_signals();
  mb::cases::RunSummary summary;
  mb::nvml::Ecc ecc_end;
  bool ended = false;  // the result file asked how the run ended
  {
    mb::cases::Runner runner(*session);
    const auto ending = [&] {
      ecc_end = run_ecc(options.run_devices);
      ended = true;
      return end_of_run(ecc_end, runner.summary(), selected.size());
    };
    const mb::gbench::ResultFileSpec file{selected, ending};
    const bool result_file = !options.output_file.empty() && options.output_format == "json";
    mb::gbench::run(runner, result_file ? &file : nullptr);
    summary = runner.summary();
  }
  session.reset();
  if (!ended) ecc_end = run_ecc(options.run_devices);
  mb::gbench::shutdown();
  if (!options.output_file.empty()) finish_output(options.output_file);
  return summarize(summary, selected.size(), options, ecc_start, ecc_end);
}
