// What every counter a case reports means, written once: its unit, which
// way is better, and its kind. The result file carries this catalog, so no
// reader keeps a table of its own: a gate reads which direction is a
// regression, an exporter which counters are measured rates, from the file.
//
//   kind         what the number is
//   measured     a measurement of this run (a rate, a latency, a count the driver saw)
//   model        a model's prediction, reported beside the measurement it explains
//   configuration what the case did or how it was launched (bytes per launch, grid, ...)
//   health       how far the measurement can be trusted (noise, clocks, other processes)
#pragma once

#include <optional>
#include <string>

namespace membench::cases {

enum class Better { higher, lower, neither };
enum class CounterKind { measured, model, configuration, health };

struct CounterMeaning {
  std::string unit;  // "B/s", "ns", "%", "flag" (0 or 1), ...
  Better better = Better::neither;
  CounterKind kind = CounterKind::configuration;
  std::string description;  // one line
};

// The meaning of a counter (or of real_time, cpu_time and iterations, as
// this suite reports them); nullopt for a name nothing declares.
std::optional<CounterMeaning> counter_meaning(const std::string& name);

const char* to_string(Better better);
const char* to_string(CounterKind kind);

}  // namespace membench::cases
