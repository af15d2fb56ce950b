#include "engine/options.hpp"

#include <sstream>

namespace membench::engine {

const std::vector<OptionSpec>& measure_options() {
  static const std::vector<OptionSpec> specs = {
      {"l2",
       "warm|cold|both",
       "cold: empty the L2 before every timed launch; both: each case twice (cold cases are named "
       ".../l2:cold/...)",
       &MeasureOptions::l2,
       0,
       0,
       {"warm", "cold", "both"}},
      {"min_batches",
       "N",
       "timed batches a case needs before it may stop",
       &MeasureOptions::min_batches,
       1,
       100000,
       {}},
      {"max_noise",
       "PCT",
       "stop once the per-launch time's relative std. deviation over the batches is at most PCT",
       &MeasureOptions::max_noise_pct,
       0,
       100,
       {}},
      {"max_time", "SECONDS", "per case: stop there and report noisy = 1", &MeasureOptions::max_seconds, 0, 3600, {}},
      {"throttle",
       "PCT",
       "discard batches that ran below PCT of the peak SM clock",
       &MeasureOptions::throttle_pct,
       0,
       100,
       {}},
      {"exclusive",
       "true|false",
       "for machines that must never publish a contended number: refuse to start while another process holds the "
       "GPU, and fail the case and stop (exit 1) if one appears",
       &MeasureOptions::exclusive,
       0,
       0,
       {}},
      {"energy",
       "true|false",
       "after its timing, run each case again for two updates of the board's energy counter (about 0.25 s a "
       "case) and report its power and picojoules per byte",
       &MeasureOptions::energy,
       0,
       0,
       {}},
  };
  return specs;
}

std::string show(const OptionSpec& spec, const MeasureOptions& o) {
  return std::visit(
      [&](auto field) -> std::string {
        const auto& v = o.*field;
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, L2>) {
          return spec.choices.at(static_cast<std::size_t>(v));
        } else if constexpr (std::is_same_v<T, bool>) {
          return v ? "true" : "false";
        } else {
          std::ostringstream os;
          os << v;
          return os.str();
        }
      },
      spec.field);
}

}  // namespace membench::engine
