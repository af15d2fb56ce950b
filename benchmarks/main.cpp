// membench: parses the suite's sweep flags, registers every family's cases,
// and hands the rest of argv to Google Benchmark. Bad flags are refused with
// one line and exit code 2 before anything touches the GPU.
#include <benchmark/benchmark.h>

#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "families.hpp"
#include "harness.hpp"
#include "membench/cuda.hpp"
#include "membench/device_info.hpp"

#ifndef MEMBENCH_VERSION
#define MEMBENCH_VERSION "unknown"
#endif

namespace {

void add_context(const membench::cli::Options& options) {
  const membench::DeviceInfo& d = membench::bench::session().device;
  benchmark::AddCustomContext("membench_version", MEMBENCH_VERSION);
  benchmark::AddCustomContext("gpu_name", d.name);
  benchmark::AddCustomContext("gpu_ordinal", std::to_string(d.ordinal));
  benchmark::AddCustomContext("compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor));
  benchmark::AddCustomContext("sm_count", std::to_string(d.sm_count));
  benchmark::AddCustomContext("l2_bytes", std::to_string(d.l2_bytes));
  benchmark::AddCustomContext("global_memory_bytes", std::to_string(d.global_mem_bytes));
  benchmark::AddCustomContext("memory_clock_khz", std::to_string(d.mem_clock_khz));
  benchmark::AddCustomContext("memory_bus_bits", std::to_string(d.bus_width_bits));
  benchmark::AddCustomContext("dram_peak_bytes_per_second", std::to_string(d.dram_peak_bytes_per_second));
  benchmark::AddCustomContext("smem_peak_bytes_per_second", std::to_string(d.smem_peak_bytes_per_second));
  benchmark::AddCustomContext("sm_clock_peak_mhz", std::to_string(d.sm_clock_khz / 1000));
  benchmark::AddCustomContext("driver_version", membench::cuda_version_string(d.driver_version));
  benchmark::AddCustomContext("runtime_version", membench::cuda_version_string(d.runtime_version));
  benchmark::AddCustomContext("l2_flush", options.l2_flush ? "true" : "false");
  benchmark::AddCustomContext("sweep", membench::cli::describe_sweep(options));
}

}  // namespace

int main(int argc, char** argv) {
  namespace mb = membench;
  mb::cli::Options options;
  try {
    options = mb::cli::parse_command_line(argc, argv);
  } catch (const mb::cli::UsageError& e) {
    std::cerr << "membench: " << e.what() << '\n';
    return 2;
  }

  mb::bench::register_global(options);
  mb::bench::register_layout(options);
  mb::bench::register_shared(options);
  mb::bench::register_async(options);

  std::vector<std::string> args = options.passthrough;
  if (options.help) {
    std::cout << mb::cli::usage();
    args.emplace_back("--help");
  }
  std::vector<char*> argv_bm;
  for (auto& a : args) argv_bm.push_back(a.data());
  int argc_bm = static_cast<int>(argv_bm.size());
  argv_bm.push_back(nullptr);
  benchmark::Initialize(&argc_bm, argv_bm.data());
  if (benchmark::ReportUnrecognizedArguments(argc_bm, argv_bm.data())) return 2;

  if (!options.list_only) {
    std::string why;
    const int devices = mb::visible_devices(&why);
    if (devices == 0) {
      std::cerr << "membench: no CUDA device visible (" << why << "); nothing to measure\n";
      return 1;
    }
    if (options.device >= devices) {
      std::cerr << "membench: --device=" << options.device << ": only " << devices << " device(s) visible\n";
      return 2;
    }
    try {
      mb::bench::start_session(options.device, options.l2_flush);
    } catch (const std::exception& e) {
      std::cerr << "membench: cannot use device " << options.device << ": " << e.what() << '\n';
      return 1;
    }
    add_context(options);
  }

  benchmark::RunSpecifiedBenchmarks();
  mb::bench::end_session();
  benchmark::Shutdown();
  return 0;
}
