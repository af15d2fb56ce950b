// The two programs membench runs once main() has read its command line: the
// run (Google Benchmark's flags, the filter, the cases measured with one
// measuring session, the result file) and --check (the run of the check's
// cases, then each GPU's verdict). What the command line and the
// environment asked for is read once, into an Invocation; the devices are
// resolved once, when a program first needs them.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "cases/family.hpp"
#include "cli/command_line.hpp"
#include "cli/launcher.hpp"
#include "membench/platform/device_info.hpp"
#include "run/check.hpp"

namespace membench::run {

inline constexpr int kFailed = 1;
inline constexpr int kUsage = 2;

// Why a run cannot go on, though its command line was right: no GPU visible,
// a device that cannot be queried or used. Said in one line on stderr by the
// program that catches it, status 1.
class RunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What the command line and the environment asked for, read once.
struct Invocation {
  std::string version;  // membench's own, for the result file
  cli::Options options;
  cli::LauncherInfo launcher;
  std::vector<cases::CaseSpec> cases;
  std::vector<Reference> references = built_in_references();
  int visible = 0;                  // CUDA devices visible
  std::string why;                  // why none is
  std::vector<DeviceInfo> devices;  // the devices the run measures, resolved once (devices_of)
};

// Reads argv (Google Benchmark's environment variables first, as flags) and
// the launcher's environment against the axes, resolves the devices' ordinals
// and the output files' patterns, and enumerates the cases; a
// cli::UsageError or cases::TooManyCases where they are wrong. Touches no GPU
// but to count them.
Invocation read_invocation(int argc, char** argv, const cli::AxisTable& axes, std::string version);

// The devices the run measures, checked against those visible and queried
// the first time it is asked, then the same: a cli::UsageError where a listed
// one is not visible, a RunError where none is or one cannot be queried.
const std::vector<DeviceInfo>& devices_of(Invocation& in);

// A usage error: one line on stderr (control characters escaped, a long
// message cut), and its exit status.
int usage(const std::string& message);

// The run, or --check where it was asked for: the exit status.
int run_command(Invocation& in, const cli::AxisTable& axes);

}  // namespace membench::run
