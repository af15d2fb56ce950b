// membench --check's part of a run: the reference each GPU is judged by, the
// cases that follow from it, what the runner observed of them, and the
// verdicts at the end (printed, written for Prometheus, and the exit status).
// The judging itself is run/check.hpp's.
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "cases/family.hpp"
#include "cases/runner.hpp"
#include "membench/platform/device_info.hpp"
#include "run/check.hpp"

namespace membench::run {

// --check=FILE's reference; a cli::UsageError naming the file where it cannot be read or is not one.
Reference read_reference_file(const std::string& path);

// A case's name with neither its device tag nor /manual_time: how a reference names it.
std::string check_name(const cases::CaseSpec& c);

// --check --list_cases=json: the check sweep's cases among `cases`, each
// listed as --list_cases lists it, with its level and the metric judged.
std::string check_listing(const std::vector<cases::CaseSpec>& cases);

// --check --judge=RUN.json: the verdicts of a run recorded earlier, judged
// by the references for its GPUs' models (its context names them), with no
// GPU; a cli::UsageError where the file cannot be read or is not
// membench's. The status is the check's.
int judge_recorded(const std::string& path, const std::vector<Reference>& references, const std::string& metrics_file,
                   std::ostream& out);

class CheckRun {
 public:
  // Each device judged by the reference for its model among `references`
  // (copied: the run keeps its own), else by a provisional one made from
  // their efficiencies.
  CheckRun(const std::vector<Reference>& references, const std::vector<DeviceInfo>& devices);
  CheckRun(const CheckRun&) = delete;  // reference_ points into references_ and provisional_
  CheckRun& operator=(const CheckRun&) = delete;

  bool any_reference() const;
  // The references the devices are judged by, each once.
  std::vector<const Reference*> in_use() const;
  // The cases of `all` the reference of each case's device names.
  std::vector<cases::CaseSpec> cases(std::vector<cases::CaseSpec> all) const;
  // For Runner::set_observer.
  void observe(const cases::CaseSpec& c, const cases::Outcome& o);
  // The verdicts, a line each on `out`, the Prometheus text into
  // `metrics_file` (when given, replaced whole by a rename); the status.
  // `seconds` < 0: judged from a recorded run.
  int finish(double seconds, const std::string& host, const std::string& metrics_file, std::ostream& out) const;
  // What a recorded run observed, by (ordinal, check name), in place of observe().
  void set_observed(std::map<std::pair<int, std::string>, Observed> observed) { recorded_ = std::move(observed); }

 private:
  std::vector<DeviceInfo> devices_;
  std::vector<Reference> references_;                                        // as given
  std::map<std::string, Reference> provisional_;                             // by model, for models with none
  std::map<int, const Reference*> reference_;                                // by ordinal
  std::map<std::pair<int, std::string>, std::vector<cases::Outcome>> seen_;  // (ordinal, check name)
  std::map<std::pair<int, std::string>, Observed> recorded_;                 // judge_recorded's
};

}  // namespace membench::run
