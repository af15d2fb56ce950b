// membench --check: a health check a scheduler runs. A reference per GPU
// model (benchmarks/references/, built into the binary, or --check=FILE)
// names a short list of cases, each with the level of the hierarchy it
// tests and a band that covers what healthy GPUs of that model measured;
// the check runs those cases and judges each GPU by them. The judging, the
// lines it prints and the Prometheus text it writes are pure functions,
// tested on the CPU.
//
//   exit 0  healthy: every case within its band (or better)
//   exit 1  unhealthy: a case below its band, a wrong result, ECC errors
//   exit 2  usage: a bad flag or reference file (before any GPU work)
//   exit 3  inconclusive: a case below its band while another process used
//           the GPU or a clock event slowed it, or a case that could not run
//   exit 4  no reference for this GPU's model, and none to judge it provisionally
//   exit 5  provisionally healthy: no reference for its model; every case
//           with a peak on this GPU within its provisional band (or better)
//   exit 6  provisionally unhealthy: no reference for its model; a case
//           below its provisional band
//
// A provisional band judges a GPU whose model no reference names by the
// model: a case's pct_of_peak (its rate over the peak this GPU's own
// attributes give: DRAM from the memory clock and bus width, the host link
// from its PCIe generation and width, the L1, L2 and shared memory from the
// SMs, their clock and the architecture facts) against the efficiencies
// the references in use measured on their models, from the lowest band's
// low less kProvisionalMarginPct to the highest's high plus it. A case with
// no peak (a latency, an atomic rate) is not judged provisionally.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cases/case_id.hpp"

namespace membench::run {

inline constexpr int kCheckHealthy = 0, kCheckUnhealthy = 1, kCheckInconclusive = 3, kCheckNoReference = 4,
                     kCheckProvisionalHealthy = 5, kCheckProvisionalUnhealthy = 6;
// How far beyond the efficiencies the references measured a provisional band reaches.
inline constexpr double kProvisionalMarginPct = 10;
// The noise (percent) at or above which a value is no evidence, below its band
// or above: the scripts' NOISE_THRESHOLD, the one rule of both languages (a
// test holds the two equal). The stopping rule's own target (noise_target_pct,
// 0.5% by default) says whether a case converged, not whether it can be judged.
inline constexpr double kUntrustedNoisePct = 5;
// A case the host paces (pageable staging, a small copy's round trip, page faults) moves by up to this many
// times its own noise from the host alone: its band is that much wider on both sides before a value leaves it.
// The scripts' HOST_NOISE_WIDTHS, the same rule (a test holds the two equal).
inline constexpr double kHostNoiseWidths = 3;

// A case of the check sweep: what the reference builder measures bands for.
struct CheckCase {
  std::string name;    // without /manual_time and without a device tag
  std::string level;   // "DRAM read", "L2 latency", "host to device", ...
  std::string metric;  // the counter judged: bytes_per_second, latency_ns, updates_per_second
};
// The check sweep, in the order it runs: every level from the host link to
// the L1, as the families declare their check cases.
const std::vector<CheckCase>& check_cases();

// A case's pct_of_peak as the reference's runs measured it: its band, in percent.
struct Efficiency {
  double median = 0, low = 0, high = 0;
};

struct Band {
  CheckCase of;
  std::string unit;  // the metric's, from the catalog
  bool higher_better = true;
  double median = 0, low = 0, high = 0;  // in the unit (a provisional band: unused)
  int runs = 0, gpus = 0;                // what the band rests on
  std::optional<Efficiency> efficiency;  // where the runs report pct_of_peak; a provisional band judges by it
};

struct Reference {
  std::string gpu_name;  // as CUDA names the model ("NVIDIA H200")
  std::string origin;    // "built in", the file's path, or what a provisional one rests on
  double margin_pct = 0;
  int runs = 0, gpus = 0;
  std::vector<Band> bands;
  bool provisional = false;  // bands of efficiencies other models' references measured
};

// Whether a recorded case is the case `wanted`: the same case, or the same
// recorded before some of wanted's axes were added. A name holds every axis
// its case has, so an axis it lacks had then the value before it (the
// axis's declared value before, else its one default); where wanted's value
// is that, the two are one case. A device tag is not part of it.
bool same_case(const cases::CaseId& recorded, const cases::CaseId& wanted);
// The same, of two names (a band's, made from runs of its time, and today's).
bool names_case(const std::string& recorded, const std::string& today);

// A reference file's text; a std::invalid_argument naming what is wrong.
Reference parse_reference(const std::string& text, const std::string& origin);
// The built-in references (benchmarks/references/*.json at build time).
const std::vector<Reference>& built_in_references();
// The reference for this model among `references`; null where none.
const Reference* reference_for(const std::vector<Reference>& references, const std::string& gpu_name);
// A provisional reference for a model none of `references` names: per check
// case, the efficiency bands of every reference that has one, joined and
// widened by kProvisionalMarginPct; nullopt where no reference has one.
std::optional<Reference> provisional_reference(const std::vector<Reference>& references, const std::string& gpu_name);

// What one GPU's run of a case came to.
struct Observed {
  std::vector<double> values;       // the metric, one per repetition
  std::vector<double> pct_of_peak;  // the rate over this GPU's peak, one per repetition that has one
  bool peak_assumed = false;        // that peak rests on an assumed architecture fact
  bool contended = false;           // another process used the GPU
  std::string clock_event;          // a thermal or hardware slowdown's names, or the batches throttled
  std::string noisy;                // the noise and the target it missed, where the binary marked it noisy
  double host_noise_pct = 0;        // host-paced: kHostNoiseWidths x its largest noise under 5% (percent); else 0
  std::string failed;               // why it failed (a wrong result, a CUDA error)
  std::string not_run;              // why it was skipped or interrupted
  bool skipped = false;             // it cannot run on this GPU (an architecture it needs, its size)
};

struct CaseVerdict {
  // unmodelled: a provisional band, and the case has no peak on this GPU or cannot run on it (not judged, not
  // counted).
  enum class Kind { within, better, slow, contended, clock_event, noisy, failed, not_run, unmodelled };
  Kind kind = Kind::not_run;
  const Band* band = nullptr;
  std::optional<double> value;  // the median of the values (a provisional band's: of pct_of_peak)
  double widened_pct = 0;       // how far the band was widened on each side for the host's noise (percent)
  std::string why;              // failed, not run, the clock event, the noise
};

struct GpuVerdict {
  int ordinal = 0;
  std::string name, uuid;
  const Reference* reference = nullptr;  // null: none for this model
  std::vector<CaseVerdict> cases;
  int status() const;  // kCheck*
};

// Judges one GPU: each band of `reference` against what was observed
// (keyed by the band's case name; a case absent was not run).
GpuVerdict judge(int ordinal, const std::string& name, const std::string& uuid, const Reference* reference,
                 const std::map<std::string, Observed>& observed);

// The exit status of several GPUs' verdicts: unhealthy over provisionally
// unhealthy over inconclusive over no reference over provisionally healthy
// over healthy.
int check_status(const std::vector<GpuVerdict>& gpus);

// A line per case and one per GPU, as printed.
std::vector<std::string> verdict_lines(const GpuVerdict& gpu);

// The verdicts in Prometheus' text format, for a node exporter's textfile
// collector: per GPU its status, per case its status and its value over the
// reference's median.
std::string prometheus_text(const std::vector<GpuVerdict>& gpus, const std::string& host, double seconds);

// "4478 GB/s", "32.26 TB/s", "612 ns", "75.3 G updates/s": a value in its
// metric's unit, with the prefix `scale` (0: the value itself) calls for.
std::string show_value(double value, const std::string& unit, double scale = 0);

}  // namespace membench::run
