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
#include <vector>

#include "membench/platform/arch_facts.hpp"

namespace membench::cases {

enum class Better { higher, lower, neither };
enum class CounterKind { measured, model, configuration, health };

// The Nsight Compute counter a model counter predicts, for ncu_check.py: the
// sum of `metrics` in one pass, over the sum of `per` (empty: 1), times
// `scale`, in the model's unit. The pass is "counters" (one profiled launch,
// the caches as the launch before left them) or "dram" (the median over
// launches of the DRAM bytes alone, in steady state).
struct NcuMeasure {
  std::string pass;
  std::vector<std::string> metrics;
  std::vector<std::string> per;
  double scale = 1;
  // When the check is judged, beyond the tolerance:
  //   always       every case that reports the model
  //   large        where the case's arrays hold 2^24 elements or more (a
  //                model of arrays far larger than the L2), and the side
  //                is 1% or more of the case's DRAM traffic
  //   beyond_l1    not where the case is served by the L1 (model_level 1:
  //                the model is each SM's first read, a bound)
  //   at_most      the model is a bound: fails only where the counter passes it
  //   never        shown beside the model, not judged (a degree, not a count)
  std::string judged = "always";
};

struct CounterMeaning {
  std::string unit;  // "B/s", "ns", "%", "flag" (0 or 1), ...
  Better better = Better::neither;
  CounterKind kind = CounterKind::configuration;
  std::string description;  // one line
};

// The meaning of a counter (or of real_time, cpu_time and iterations, as
// this suite reports them); nullopt for a name nothing declares.
std::optional<CounterMeaning> counter_meaning(const std::string& name);
// Every name the catalog declares, sorted (device<i>_bytes_per_second, a
// pattern, not among them).
std::vector<std::string> counter_names();
// The Nsight Compute counter a model counter predicts; nullopt for one that
// names none (a measurement, a model no hardware counter sees).
std::optional<NcuMeasure> ncu_measure(const std::string& name);

// What a case measures, the number a person reads first (the report's
// "measured", the comparisons' metrics), in the order a case is read by:
// the first of them it reports is its result. Each with the model counter
// that predicts it in its unit, where there is one.
struct Headline {
  std::string counter;
  std::string model;  // empty: no model in this unit
};
const std::vector<Headline>& headlines();

// The architecture facts a model counter's value rests on, each with the
// value its model's code assumes (its constant); empty for a counter that
// rests on none or reads its facts itself (a family reports those unknown
// through Work::unknown). Where one does not hold on a GPU, the counter is
// left out and the case's label says why.
struct Assumption {
  Fact fact;
  double value;
};
std::vector<Assumption> model_assumptions(const std::string& counter);

const char* to_string(Better better);
const char* to_string(CounterKind kind);

}  // namespace membench::cases
