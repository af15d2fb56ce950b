// membench: reads the command line against the axes the families declared,
// registers every family's cases, and hands the rest of argv to Google
// Benchmark. Exit status: 0 every selected case ran and verified (skips
// included), 1 a case failed, 2 usage. Usage errors are refused with one line
// before anything touches the GPU.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "family.hpp"
#include "harness.hpp"
#include "membench/cuda.hpp"
#include "membench/device_info.hpp"

#ifndef MEMBENCH_VERSION
#define MEMBENCH_VERSION "unknown"
#endif

namespace {

namespace mb = membench;

constexpr int kUsage = 2;
constexpr int kFailed = 1;

void add_context(const mb::cli::Options& options, const mb::cli::AxisTable& axes, const mb::cli::LauncherInfo& launcher) {
  const mb::DeviceInfo& d = mb::bench::session_device();
  const auto add = [](const char* key, const std::string& value) { benchmark::AddCustomContext(key, value); };
  add("membench_version", MEMBENCH_VERSION);
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
  add("driver_version", mb::cuda_version_string(d.driver_version));
  add("runtime_version", mb::cuda_version_string(d.runtime_version));
  add("sweep", mb::cli::describe_sweep(options, axes));
}

std::vector<char*> as_argv(std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return argv;
}

// The run's verdict on stderr, and the exit status it stands for.
int summarize(std::size_t selected) {
  const mb::bench::RunSummary& s = mb::bench::run_summary();
  if (!s.failures.empty()) {
    std::cerr << "membench: " << s.failures.size() << " of " << selected << " cases failed; first: " << s.failures.front()
              << '\n';
    return kFailed;
  }
  if (s.skipped > 0) std::cerr << "membench: " << s.skipped << " of " << selected << " cases skipped (see their messages)\n";
  return 0;
}

std::string host_name() {
  char name[256] = {};
  return gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string("unknown-host");
}

}  // namespace

int main(int argc, char** argv) {
  mb::cli::Options options;
  mb::cli::LauncherInfo launcher;
  const mb::cli::AxisTable axes = mb::bench::axis_table();
  try {
    options = mb::cli::parse_command_line(argc, argv, axes);
    launcher = mb::cli::launcher_info(mb::cli::process_environment());
    if (options.device.kind == mb::cli::DeviceSelection::Kind::local && !launcher.local_rank)
      mb::cli::resolve_devices(options.device, 0, launcher);  // refuses: no local rank
  } catch (const mb::cli::UsageError& e) {
    std::cerr << "membench: " << e.what() << '\n';
    return kUsage;
  }

  // The devices to name the cases for; checked against the visible ones
  // below, once usage errors, --help and listing (which need no GPU) are done.
  std::string why;
  const int visible = mb::visible_devices(&why);
  try {
    const bool as_given = options.device.kind == mb::cli::DeviceSelection::Kind::list;
    options.run_devices = mb::cli::resolve_devices(options.device, as_given ? 1024 : std::max(visible, 1), launcher);
  } catch (const mb::cli::UsageError& e) {
    std::cerr << "membench: " << e.what() << '\n';
    return kUsage;
  }
  for (auto& arg : options.passthrough) {
    const std::string out_flag = "--benchmark_out=";
    if (arg.rfind(out_flag, 0) == 0)
      arg = out_flag + mb::cli::expand_output_pattern(arg.substr(out_flag.size()), host_name(), launcher,
                                                      options.run_devices.front());
  }
  const std::vector<std::string> names = mb::bench::register_families(options);

  std::vector<std::string> args = options.passthrough;
  if (options.help) {
    std::cout << mb::cli::usage(axes);
    args.emplace_back("--help");  // Google Benchmark prints its own flags and exits 0
  }
  std::vector<char*> argv_bm = as_argv(args);
  int argc_bm = static_cast<int>(argv_bm.size()) - 1;
  benchmark::Initialize(&argc_bm, argv_bm.data());
  if (benchmark::ReportUnrecognizedArguments(argc_bm, argv_bm.data())) return kUsage;

  // The filter as Google Benchmark will apply it (flag or environment).
  std::size_t selected = 0;
  try {
    const mb::cli::CaseFilter filter(benchmark::GetBenchmarkFilter());
    selected = static_cast<std::size_t>(std::count_if(names.begin(), names.end(), [&](const auto& n) { return filter.matches(n); }));
  } catch (const mb::cli::UsageError& e) {
    std::cerr << "membench: " << e.what() << '\n';
    return kUsage;
  }
  if (selected == 0) {
    std::cerr << "membench: --benchmark_filter=" << benchmark::GetBenchmarkFilter()
              << " matches no case (see --benchmark_list_tests)\n";
    return kUsage;
  }
  if (options.list_only) {
    benchmark::RunSpecifiedBenchmarks();
    return 0;
  }

  if (visible == 0) {
    std::cerr << "membench: no CUDA device visible: " << why << "; nothing to measure\n";
    return kFailed;
  }
  try {
    mb::cli::resolve_devices(options.device, visible, launcher);
  } catch (const mb::cli::UsageError& e) {
    std::cerr << "membench: " << e.what() << '\n';
    return kUsage;
  }
  const int first = options.run_devices.front();
  try {
    mb::bench::start_session(first, options.measure);
  } catch (const std::exception& e) {
    std::cerr << "membench: cannot use device " << first << ": " << e.what() << '\n';
    return kFailed;
  }
  add_context(options, axes, launcher);
  benchmark::RunSpecifiedBenchmarks();
  mb::bench::end_session();
  benchmark::Shutdown();
  return summarize(selected);
}
