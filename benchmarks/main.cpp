// membench: argv in, exit status out. main() reads the command line and the
// environment against the axes the families declared and hands the rest to
// one of two programs (run/program.hpp): the run (Google Benchmark's flags,
// the filter, the cases measured with one measuring session, the result
// file) or --check (the run of the check's cases, then each GPU's verdict).
// Exit status: 0 every selected case ran and verified (skips included), 1 a
// case failed or the GPU was in trouble, 2 usage (one line, before anything
// touches the GPU), 3 to 6 the check's verdicts (run/check.hpp), 128 + N
// after signal N (the JSON still whole).
#include <cstdio>
#include <iostream>

#include "cli/gbench_flags.hpp"
#include "cli/grammar.hpp"
#include "gbench/adapter.hpp"
#include "gbench/result_file.hpp"
#include "membench/platform/cuda.hpp"
#include "run/program.hpp"
#include "run/provenance.hpp"

#ifndef MEMBENCH_VERSION
#define MEMBENCH_VERSION "unknown"
#endif

namespace {

namespace mb = membench;

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
  mb::run::Invocation in;
  try {
    in = mb::run::read_invocation(argc, argv, axes, MEMBENCH_VERSION);
  } catch (const mb::cli::UsageError& e) { return mb::run::usage(e.what()); } catch (const mb::cases::TooManyCases& e) {
    return mb::run::usage(e.what());
  }
  if (in.options.version) {
    std::cout << "membench " << MEMBENCH_VERSION << " (build " << mb::run::build_id() << ", result schema "
              << mb::gbench::kSchemaVersion << ", Google Benchmark " << mb::gbench::kVersion / 10000 << '.'
              << mb::gbench::kVersion / 100 % 100 << ", CUDA runtime " << mb::cuda_version_string(CUDART_VERSION)
              << ")\n";
    return 0;
  }
  return mb::run::run_command(in, axes);
}
