#include "engine/stop.hpp"

#include <csignal>
#include <cstring>
#include <mutex>

namespace membench::engine {

namespace {

volatile std::sig_atomic_t g_signal = 0;
std::mutex g_mutex;
std::string g_reason;  // a stop of our own; guarded by g_mutex

constexpr int kStopSignals[] = {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2};

extern "C" void on_stop_signal(int signal) {
  if (g_signal != 0) {  // the second: end now, as the signal's default action does
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  g_signal = signal;
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
  std::lock_guard<std::mutex> lock(g_mutex);
  g_reason.clear();
}

}  // namespace membench::engine
