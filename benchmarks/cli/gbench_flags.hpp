// Google Benchmark's own flags, checked before it sees them: it would print
// its usage and exit 0 on some bad values, and take others silently. The list
// is kept by hand, for the versions the suite builds with.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/launcher.hpp"

namespace membench::cli {

// Whether `name` (without --) is one of Google Benchmark's flags.
bool is_benchmark_flag(const std::string& name);

// The value to hand on for --name[=value] (nullopt for a bare --name), in
// the form the linked version expects; throws UsageError when it is wrong.
std::string check_benchmark_flag(const std::string& name, const std::optional<std::string>& value);

// Google Benchmark takes BENCHMARK_<FLAG> from the environment as each flag's
// default (BENCHMARK_FORMAT=json): the ones set, checked as the flags are
// (a UsageError names the variable), as flags to put before the command
// line's, which still win.
std::vector<std::string> environment_flags(const Environment& env);

// Google Benchmark reads those variables while its library initialises,
// before main, and prints a warning of its own for a value it cannot parse,
// before membench's one line. Called before any library's initialiser (an
// entry of the executable's .preinit_array), this takes them out of
// `environment` (the process's environ, changed in place, nothing
// allocated), so that Google Benchmark sees only the flags made of them;
// process_environment() still reads them.
void take_benchmark_variables(char** environment);
// NAME's value where take_benchmark_variables took it.
std::optional<std::string> taken_benchmark_variable(const std::string& name);

// --benchmark_min_time when none is given: Google Benchmark is satisfied by
// the first measurement, and the suite's own stopping rule decides.
std::string default_min_time();

}  // namespace membench::cli
