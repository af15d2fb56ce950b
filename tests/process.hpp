// Running the membench binary (and helpers) from a test, as a user's shell would.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace membench::test {

struct Outcome {
  int exit_code = -1;  // the status a shell would show: 128 + N for a process ended by signal N
  std::string output;  // stdout and stderr together
  int lines() const {
    int count = 0;
    for (char c : output) count += c == '\n';
    return count;
  }
};

inline int shell_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

// A path of this test's own under the test temp folder (ctest runs tests in parallel).
inline std::string temp_path(const std::string& suffix) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return ::testing::TempDir() + std::string(info->test_suite_name()) + "." + info->name() + suffix;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A shell command line, its stdout and stderr together.
inline Outcome run_command(const std::string& line) {
  const std::string command = line + " 2>&1";
  Outcome r;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  char buffer[4096];
  std::size_t got = 0;
  while ((got = fread(buffer, 1, sizeof buffer, pipe)) > 0) r.output.append(buffer, got);
  r.exit_code = shell_status(pclose(pipe));
  return r;
}

// membench; `env` ("NAME=value ...") and `args` are shell words.
inline Outcome run(const std::string& args, const std::string& env = "") {
  return run_command(env + " '" MEMBENCH_EXE "' " + args);
}

// A process started in the background, its output in a file; signal it, then finish it.
class Background {
 public:
  Background(const std::string& command, const std::string& output_path) : output_(output_path) {
    pid_ = fork();
    if (pid_ == 0) {
      const std::string line = "exec " + command + " > '" + output_ + "' 2>&1";
      execl("/bin/sh", "sh", "-c", line.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
  }
  ~Background() {
    if (pid_ > 0 && !finished_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  Background(const Background&) = delete;
  Background& operator=(const Background&) = delete;

  void signal(int s) const { kill(pid_, s); }
  // Waits until its output contains `text` (true) or `seconds` pass (false).
  bool wait_for_output(const std::string& text, double seconds) const {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < until) {
      if (read_file(output_).find(text) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
  Outcome finish() {
    int status = 0;
    waitpid(pid_, &status, 0);
    finished_ = true;
    return {shell_status(status), read_file(output_)};
  }

 private:
  pid_t pid_ = -1;
  std::string output_;
  bool finished_ = false;
};

}  // namespace membench::test
