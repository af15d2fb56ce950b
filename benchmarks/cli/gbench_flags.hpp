// Google Benchmark's own flags, checked before it sees them: it would print
// its usage and exit 0 on some bad values, and take others silently. The list
// is kept by hand, for the versions the suite builds with.
#pragma once

#include <optional>
#include <string>

namespace membench::cli {

// Whether `name` (without --) is one of Google Benchmark's flags.
bool is_benchmark_flag(const std::string& name);

// The value to hand on for --name[=value] (nullopt for a bare --name), in
// the form the linked version expects; throws UsageError when it is wrong.
std::string check_benchmark_flag(const std::string& name, const std::optional<std::string>& value);

// --benchmark_min_time when none is given: Google Benchmark is satisfied by
// the first measurement, and the suite's own stopping rule decides.
std::string default_min_time();

}  // namespace membench::cli
