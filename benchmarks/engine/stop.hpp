// Stopping a run early without losing it. A scheduler's signal (Slurm sends
// SIGTERM at a time limit, or the signal named by --signal) or --exclusive
// finding another process on the GPU asks the run to stop: the case in
// flight is abandoned after the batches already queued, every case not yet
// run is reported as skipped with the reason (no GPU work, so fast), and
// Google Benchmark writes its JSON whole. A second signal ends the process
// at once, by that signal's default action.
#pragma once

#include <optional>
#include <string>

namespace membench::engine {

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
