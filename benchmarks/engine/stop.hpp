// Stopping a run early without losing it. A scheduler's signal (Slurm sends
// SIGTERM at a time limit, or the signal named by --signal) or --exclusive
// finding another process on the GPU asks the run to stop: the case in
// flight is abandoned after the batches already queued, every case not yet
// run is reported as skipped with the reason (no GPU work, so fast), and
// Google Benchmark writes its JSON whole. The same signal again within a
// second is the same request (GNU timeout and many launchers signal the
// process and then its process group, so it arrives twice); any other
// signal, or the same one later, ends the process at once, by that signal's
// default action.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace membench::engine {

// How long after the first signal the same one counts as the same request.
inline constexpr std::int64_t kRepeatWindowNs = 1'000'000'000;

// Is `signal` at now_ns the first one (`first` at first_ns) delivered again?
bool is_repeat_of_first(int first, std::int64_t first_ns, int signal, std::int64_t now_ns);

// SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2.
void install_stop_signals();

// The signal that asked the run to stop; 0 when none did.
int stop_signal();

// Asks the run to stop for a reason of its own (not a signal).
void request_stop(const std::string& reason);

// Why the run is stopping ("interrupted by SIGTERM"), or nothing.
std::optional<std::string> stop_reason();

// "SIGTERM" for SIGTERM, "signal 42" for one without a name here.
std::string signal_name(int signal);

// Test hook: forget any stop request.
void clear_stop_for_test();

}  // namespace membench::engine
