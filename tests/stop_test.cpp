// Stopping on a scheduler's signal: the first signal asks the run to stop,
// the same one again at once is the same request, any other ends the
// process by that signal. Checked in forked children, so
// the test process keeps its own handlers.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include "cases/runner.hpp"
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

// GNU timeout (and launchers like it) signal the process and then its
// process group: the same SIGTERM twice, a moment apart, is one request.
TEST(Stop, TheSameSignalToTheProcessAndItsGroupIsOneRequest) {
  for (int s : {SIGTERM, SIGINT, SIGHUP}) {
    const int status = in_child([s] {
      setpgid(0, 0);  // a group of its own, so kill(0, ...) reaches only this child
      install_stop_signals();
      raise(s);
      kill(0, s);
      if (stop_signal() != s) _exit(11);
      _exit(0);
    });
    ASSERT_TRUE(WIFEXITED(status)) << signal_name(s) << " twice ended the child";
    EXPECT_EQ(WEXITSTATUS(status), 0) << signal_name(s);
  }
}

TEST(Stop, OnlyTheSameSignalWithinTheWindowIsARepeat) {
  const std::int64_t t0 = 5'000'000'000;
  EXPECT_TRUE(is_repeat_of_first(SIGTERM, t0, SIGTERM, t0));
  EXPECT_TRUE(is_repeat_of_first(SIGTERM, t0, SIGTERM, t0 + kRepeatWindowNs - 1));
  EXPECT_FALSE(is_repeat_of_first(SIGTERM, t0, SIGTERM, t0 + kRepeatWindowNs));
  EXPECT_FALSE(is_repeat_of_first(SIGTERM, t0, SIGINT, t0 + 1));
  EXPECT_FALSE(is_repeat_of_first(SIGTERM, t0, SIGTERM, t0 - 1));  // a clock that went back: not a repeat
  EXPECT_EQ(kRepeatWindowNs, 1'000'000'000);
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

namespace membench::cases {
namespace {

// The exit status as a pure decision: one failed case among many fails the
// run; marks (skipped, contended, resumed) do not; a signal wins.
TEST(ExitStatusDecision, OneFailureAmongManyFailsAndASignalWins) {
  RunSummary s;
  s.measured = 319;
  s.skipped = 21;
  s.contended = 5;
  s.resumed = 100;
  EXPECT_EQ(exit_status(s, false, 0, false), 0);
  EXPECT_EQ(exit_status(s, true, 0, false), 1) << "uncorrected ECC errors during the run";
  EXPECT_EQ(exit_status(s, false, 0, true), 1) << "stopped early (--exclusive, a lost context)";
  s.failures.push_back("global/coalesced/n:1024: out[3] is 0, expected 6");
  EXPECT_EQ(exit_status(s, false, 0, false), 1);
  EXPECT_EQ(exit_status(s, false, 15, true), 128 + 15);
  EXPECT_EQ(exit_status(RunSummary{}, false, 2, true), 128 + 2);
}

}  // namespace
}  // namespace membench::cases
