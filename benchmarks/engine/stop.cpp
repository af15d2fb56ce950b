#include "engine/stop.hpp"

#include <time.h>

#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <mutex>

namespace membench::engine {

namespace {

volatile std::sig_atomic_t g_signal = 0;
std::atomic<std::int64_t> g_first_ns{0};  // when the first arrived (CLOCK_MONOTONIC)
std::mutex g_mutex;
std::string g_reason;  // a stop of our own; guarded by g_mutex

constexpr int kStopSignals[] = {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2};
static_assert(std::atomic<std::int64_t>::is_always_lock_free, "read in a signal handler");

std::int64_t monotonic_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);  // async-signal-safe
  return std::int64_t{t.tv_sec} * 1000000000 + t.tv_nsec;
}

extern "C" void on_stop_signal(int signal) {
  const std::int64_t now = monotonic_ns();
  if (g_signal == 0) {
    g_first_ns.store(now);
    g_signal = signal;
    return;
  }
  // The same signal again within the window is the same request, delivered
  // twice: `timeout` and launchers signal the process and then its group.
  if (is_repeat_of_first(g_signal, g_first_ns.load(), signal, now)) return;
  // Any other: end now, as the signal's default action does.
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

}  // namespace

void install_stop_signals() {
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (int s : kStopSignals) sigaction(s, &action, nullptr);
}

bool is_repeat_of_first(int first, std::int64_t first_ns, int signal, std::int64_t now_ns) {
  return signal == first && now_ns >= first_ns && now_ns - first_ns < kRepeatWindowNs;
}

int stop_signal() { return g_signal; }

void request_stop(const std::string& reason) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_reason.empty()) g_reason = reason;
}

std::optional<std::string> stop_reason() {
  if (const int s = g_signal; s != 0) return "interrupted by " + signal_name(s);
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_reason.empty()) return g_reason;
  return std::nullopt;
}

std::string signal_name(int signal) {
  switch (signal) {
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    case SIGUSR1: return "SIGUSR1";
    case SIGUSR2: return "SIGUSR2";
    case SIGKILL: return "SIGKILL";
    default: return "signal " + std::to_string(signal);
  }
}

void clear_stop_for_test() {
  g_signal = 0;
  g_first_ns.store(0);
  std::lock_guard<std::mutex> lock(g_mutex);
  g_reason.clear();
}

}  // namespace membench::engine
