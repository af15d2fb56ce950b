// Running under a launcher (Slurm, mpirun, torchrun, ...): what its
// environment says about this process, the GPUs to measure, and the output
// file's name per process.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace membench::cli {

// --device: the GPUs to measure, one after another in this process.
struct DeviceSelection {
  enum class Kind { list, all, local };
  Kind kind = Kind::list;
  std::vector<int> ordinals{0};  // Kind::list
};

// Reads an environment variable (empty optional when unset); tests pass their own.
using Environment = std::function<std::optional<std::string>(const std::string& name)>;
Environment process_environment();

// What the launcher says about this process: its rank on the node (the
// first of SLURM_LOCALID, OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID,
// LOCAL_RANK that is set), its global rank (SLURM_PROCID,
// OMPI_COMM_WORLD_RANK, PMI_RANK, RANK) and the job (SLURM_JOB_ID,
// PBS_JOBID, LSB_JOBID). A variable that is set but malformed breaks only
// what reads it
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

// MEMBENCH_TEST_PROCESS_VIEW: unset or "" as NVML allows; "utilisation" sees
// other processes through NVML's utilisation samples only, as where NVML
// cannot list them; anything else is a UsageError.
bool utilisation_view_for_test(const Environment& env);
// MEMBENCH_PROFILE=K (set by scripts/ncu_check.py): K launches per case
// inside cudaProfilerStart/Stop, after the warm-up, so `ncu
// --profile-from-start off` sees exactly them; 0 when unset. A value that is
// not a positive count is a UsageError.
int profile_launches(const Environment& env);

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

}  // namespace membench::cli
