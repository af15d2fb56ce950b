// Stopping on a scheduler's signal: the first signal asks the run to stop,
// a second ends the process by that signal. Checked in forked children, so
// the test process keeps its own handlers.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include "engine/stop.hpp"

namespace membench::engine {
namespace {

// Runs `body` in a child; returns its wait status.
template <class Body>
int in_child(Body&& body) {
  const pid_t pid = fork();
  if (pid == 0) {
    body();
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

TEST(Stop, EachSchedulerSignalAsksTheRunToStop) {
  for (int s : {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2}) {
    const int status = in_child([s] {
      install_stop_signals();
      if (stop_signal() != 0 || stop_reason()) _exit(10);
      raise(s);
      if (stop_signal() != s) _exit(11);
      if (stop_reason() != "interrupted by " + signal_name(s)) _exit(12);
      _exit(0);
    });
    ASSERT_TRUE(WIFEXITED(status)) << signal_name(s) << " ended the child";
    EXPECT_EQ(WEXITSTATUS(status), 0) << signal_name(s);
  }
}

TEST(Stop, ASecondSignalEndsTheProcessAtOnce) {
  const int status = in_child([] {
    install_stop_signals();
    raise(SIGTERM);  // asks
    raise(SIGINT);   // ends, by SIGINT's default action
    _exit(3);        // not reached
  });
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGINT);
}

TEST(Stop, AReasonOfOurOwnAndTheFirstReasonWins) {
  clear_stop_for_test();
  EXPECT_FALSE(stop_reason());
  request_stop("stopped: --exclusive and another process holds the GPU");
  request_stop("a later reason");
  EXPECT_EQ(stop_reason(), "stopped: --exclusive and another process holds the GPU");
  EXPECT_EQ(stop_signal(), 0);
  clear_stop_for_test();
  EXPECT_FALSE(stop_reason());
}

TEST(Stop, SignalNames) {
  EXPECT_EQ(signal_name(SIGTERM), "SIGTERM");
  EXPECT_EQ(signal_name(SIGUSR2), "SIGUSR2");
  EXPECT_EQ(signal_name(42), "signal 42");
}

}  // namespace
}  // namespace membench::engine
