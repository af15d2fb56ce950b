// The suite's command line: the sweep-list grammar, the axes the families
// declared, the suite's own measurement flags, --sweep=FILE.json, and a check
// of Google Benchmark's flags. Parsed before Google Benchmark sees argv;
// anything wrong is a UsageError whose message is the one line to print.
// The CLI knows the grammar, not the families: it validates each axis flag
// against what the families declared.
//
//   LIST  := ITEM[,ITEM...]
//   ITEM  := VALUE | VALUE:VALUE[:STEP]      inclusive range
//   STEP  := +K | *K                          default +1
//   VALUE := integer | 2^K | integer with K/M/G (powers of 1024)
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <optional>
#include <regex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace membench::cli {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One axis of one family: its name (= the ArgName and the flag it fills), the
// values it accepts, its default list and one line of help. A named axis
// (`names` not empty, e.g. type: float, double) takes names on the command
// line; its values are their indices, and a case shows it as axis:name.
struct AxisSpec {
  std::string name;
  std::string help;
  std::vector<std::int64_t> defaults;
  std::int64_t min = 1;
  std::int64_t max = INT64_MAX;
  std::vector<std::int64_t> allowed;  // empty: any value in [min, max]
  std::int64_t multiple_of = 1;
  std::vector<std::string> names;     // a named axis: value i is names[i]
};

// Expands a LIST for `axis` (used in messages as --name=text) and checks each
// value against it. Duplicates are dropped, order is kept.
std::vector<std::int64_t> parse_list(const AxisSpec& axis, const std::string& text);
// The same for a numeric axis, duplicates kept.
std::vector<std::int64_t> expand_list(const AxisSpec& axis, const std::string& text);

// The axis flags: every axis name the families declared, once, with each
// family's meaning. Families that share an axis name (n) must accept the same
// values; only their help and defaults differ.
class AxisTable {
 public:
  struct Use {
    std::string family;
    AxisSpec axis;
  };
  // Throws std::logic_error when two families declare one name with different values.
  explicit AxisTable(const std::vector<Use>& declared);
  const AxisSpec* find(const std::string& name) const;                              // the shared domain
  const AxisSpec* find(const std::string& family, const std::string& name) const;   // one family's axis
  const std::vector<std::pair<AxisSpec, std::vector<Use>>>& flags() const { return flags_; }

 private:
  std::vector<std::pair<AxisSpec, std::vector<Use>>> flags_;
};

enum class L2Mode { warm, cold, both };

// How each case is measured (the suite's own flags).
struct MeasureOptions {
  int min_batches = 10;          // --min_batches: timed batches before the noise may stop a case
  double max_noise_pct = 0.5;    // --max_noise: stop once the batches' relative std. deviation is this low
  double max_seconds = 0.5;      // --max_time: per case, then stop and report noisy = 1
  double throttle_pct = 90;      // --throttle: batches below this % of the peak SM clock are discarded
  L2Mode l2 = L2Mode::warm;      // --l2 (and --l2_flush = --l2=cold)
  bool exclusive = false;        // --exclusive: another process on the GPU fails the case and stops the run
  bool corrupt_for_test = false; // MEMBENCH_TEST_CORRUPT=1: corrupt one output element before verifying
};

// --device: the GPUs to measure, one after another in this process.
struct DeviceSelection {
  enum class Kind { list, all, local };
  Kind kind = Kind::list;
  std::vector<int> ordinals{0};  // Kind::list
};

struct Options {
  std::map<std::string, std::vector<std::int64_t>> sweep;                          // --axis=LIST
  std::map<std::string, std::map<std::string, std::vector<std::int64_t>>> scoped;  // --family.axis=LIST
  MeasureOptions measure;
  DeviceSelection device;
  std::vector<int> run_devices{0};  // `device` resolved by main (resolve_devices); cases run on each
  bool tag_devices = false;         // name cases .../device:K/... (more than one device in the run)
  std::string sweep_file;
  std::string resume_file;          // --resume=FILE (a pattern like --benchmark_out's)
  std::string output_file;          // --benchmark_out (a pattern; main fills it in)
  std::string output_format = "json";  // --benchmark_out_format
  int repetitions = 1;              // --benchmark_repetitions
  bool help = false;
  bool list_only = false;        // --benchmark_list_tests
  bool min_time_given = false;   // --benchmark_min_time: Google Benchmark's own iteration rule applies too
  std::string filter;            // --benchmark_filter (empty: every case)
  std::vector<std::string> passthrough;  // argv[0] and Google Benchmark's flags, checked and normalized

  // The values of a family's axis: --family.axis, else --axis, else `fallback`.
  std::vector<std::int64_t> values(const std::string& family, const std::string& axis,
                                   const std::vector<std::int64_t>& fallback) const;
};

// Parses argv (and the --sweep file it names; flags on the command line win,
// key by key). Google Benchmark's flags (--benchmark_*, --v) are checked and
// passed through; anything else that is not ours is refused.
Options parse_command_line(int argc, const char* const* argv, const AxisTable& axes);

// ---- running under a launcher (Slurm, mpirun, torchrun, ...) ------------------

// Reads an environment variable (empty optional when unset); tests pass their own.
using Environment = std::function<std::optional<std::string>(const std::string& name)>;
Environment process_environment();

// What the launcher says about this process: its rank on the node (the
// first of SLURM_LOCALID, OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID,
// LOCAL_RANK that is set), its global rank (SLURM_PROCID,
// OMPI_COMM_WORLD_RANK, PMI_RANK, RANK) and the job (SLURM_JOB_ID,
// PBS_JOBID, LSB_JOBID). A set variable that is not a non-negative integer
// is a UsageError naming it.
// A variable that is set but malformed breaks only what reads it
// (--device=local, {rank}, the context's rank keys): its error is kept, not thrown.
struct LauncherInfo {
  std::optional<int> local_rank;
  std::string local_rank_variable;
  std::string local_rank_error;  // "LOCAL_RANK=x: not a rank (a non-negative integer)"
  std::optional<int> rank;
  std::string rank_error;
  std::string job_id;
};
LauncherInfo launcher_info(const Environment& env);

// MEMBENCH_TEST_CORRUPT: unset, "" or "0" off, "1" on; anything else is a UsageError.
bool corrupt_for_test(const Environment& env);

// The device ordinals to run, in order. list: as given, each below
// `visible`; all: 0 .. visible-1; local: the launcher's local rank, or the
// one visible device when the launcher has already bound each process to
// its GPU (CUDA_VISIBLE_DEVICES). Throws UsageError (one line) when no
// local rank is set or an ordinal is not visible.
std::vector<int> resolve_devices(const DeviceSelection& selection, int visible, const LauncherInfo& launcher);

// --benchmark_out=PATTERN: {host}, {rank} (the global rank, else the local
// rank, else 0) and {device} (the first device measured) replaced, so that
// processes under one launcher write different files. {rank} with a
// malformed rank variable is a UsageError.
std::string expand_output_pattern(const std::string& pattern, const std::string& host, const LauncherInfo& launcher,
                                  int device);

// The usage text for --help, made from the declared axes.
std::string usage(const AxisTable& axes);

// The flags used, as JSON text (for the benchmark context).
std::string describe_sweep(const Options& options, const AxisTable& axes);

// --benchmark_filter as Google Benchmark applies it: an extended regular
// expression searched in the case name, negated by a leading '-'; "" and
// "all" match everything.
class CaseFilter {
 public:
  explicit CaseFilter(const std::string& spec);  // throws UsageError when the expression does not compile
  bool matches(const std::string& name) const;

 private:
  bool negative_ = false;
  std::regex re_;
};

}  // namespace membench::cli
