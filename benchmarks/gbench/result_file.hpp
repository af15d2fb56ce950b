// The result file: Google Benchmark's JSON, written by its own JSON reporter,
// closed by a "membench" object that says what the numbers mean, once:
//
//   "membench": {
//     "schema_version": 3,               2: a family's axis added later carries "before" (1: none did);
//                                        3: figures may compute a model from another case ("model_from"),
//                                           draw a slowdown ("slowdown_vs") and note counters ("notes"),
//                                           and global, layout and shared declare theirs; an axis that
//                                           picks the GPU a case reaches says so ("picks_peer")
//     "complete": true,                  false while the run goes on (or if it was killed)
//     "counters": {"bytes_per_second": {"unit": "B/s", "better": "higher", "kind": "measured",
//                                        "description": "..."}, ...},   every number the file holds
//     "cases": [{"name", "family", "variant", "tags", "axes", "kernels"}, ...],   --list_cases=json's
//     "families": {"global": {"title", "study", "axes": [...], "figures": [{"heading", "x", "x_log",
//                  "y", "y_log", "model", "variants", "lines", "vlines", "best_of", "bars", "notes",
//                  "model_from": {"variant", "axes", "label", "times", "over"},
//                  "slowdown_vs": {"variant", "axes"}}, ...]}, ...}    what each declares downstream
//     "roofs": [{"name", "family", "counter", "unit", "gpu", "value", "case"}, ...],  the roofs the families
//                                        declare: each the best of its counter over the cases it names ("gpu"
//                                        "" measured here; a datasheet roof names another GPU and no case)
//     "ridges": [{"gpu", "compute", "memory", "ops_per_byte"}, ...],  each compute roof over each memory roof
//                                        of the same GPU
//     "end": {"cases_selected": 46, "cases_not_run": 0, ...}             how the run ended
//   }
//
// The file is valid JSON after every case: each case's runs are written,
// then a closing with "complete": false, flushed, and the next case writes
// over that closing. A process killed outright (SIGKILL after a scheduler's
// grace period, the OOM killer) leaves every finished case readable, and
// --resume carries them.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "cases/family.hpp"

namespace membench::gbench {

struct ResultFileSpec {
  std::vector<const cases::CaseSpec*> cases;  // the selected cases
  // How the run ended (the end-of-run keys), asked for when the run is over.
  std::function<nlohmann::ordered_json()> end;
};

// The "membench" object's schema version; readers check it.
// 4: clock_event no longer counts the board's power cap (power_capped does),
// and noise_target_pct says what noisy was judged at.
inline constexpr int kSchemaVersion = 4;

// The run's roofline: each roof its families declare, the best of the
// roof's counter over the runs of the cases it names, and the ridge points.
class Roofs {
 public:
  // A run of case `c` that reported these counters (a failed or skipped run reports none).
  void note(const cases::CaseSpec& c, const std::map<std::string, double>& counters);
  // The roofs of the families that have cases among `cases` (a measured roof
  // only where a run reached it), and each compute roof over each memory
  // roof of the same GPU.
  nlohmann::ordered_json roofs(const std::vector<const cases::CaseSpec*>& cases) const;
  nlohmann::ordered_json ridges(const std::vector<const cases::CaseSpec*>& cases) const;

 private:
  struct Best {
    double value = 0;
    std::string case_name;
  };
  std::map<std::pair<std::string, std::size_t>, Best> best_;  // by family and the roof's place in its declarations
};

// The catalog entry of a counter (unit, better, kind, description); a
// counter nothing declares has kind "undeclared".
nlohmann::ordered_json counter_entry(const std::string& name);

// The cases as data: --list_cases=json's entries.
nlohmann::ordered_json case_entries(const std::vector<const cases::CaseSpec*>& cases);

// What the families of these cases declare, by name: title, study, axes
// (name, unit, help, and the names of a named axis in order) and figures.
nlohmann::ordered_json family_entries(const std::vector<const cases::CaseSpec*>& cases);

}  // namespace membench::gbench
