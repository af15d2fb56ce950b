#include "cli/launcher.hpp"

#include <cerrno>
#include <cstdlib>

#include "cli/gbench_flags.hpp"
#include "cli/grammar.hpp"

namespace membench::cli {

Environment process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    if (auto taken = taken_benchmark_variable(name)) return taken;
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

namespace {

// The first of `names` that is set: its name and, when it is a rank, its value.
struct RankVariable {
  std::string name;
  std::optional<int> value;
  std::string error;
};

std::optional<RankVariable> first_rank(const Environment& env, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const auto v = env(name);
    if (!v) continue;
    char* end = nullptr;
    errno = 0;
    const long r = std::strtol(v->c_str(), &end, 10);
    // strtol would take " 3" and "+3": a rank is digits only.
    const bool digits = !v->empty() && v->find_first_not_of("0123456789") == std::string::npos;
    if (!digits || *end != '\0' || errno != 0 || r < 0 || r > 1 << 30)
      return RankVariable{name, std::nullopt, std::string(name) + "=" + *v + ": not a rank (a non-negative integer)"};
    return RankVariable{name, static_cast<int>(r), ""};
  }
  return std::nullopt;
}

}  // namespace

LauncherInfo launcher_info(const Environment& env) {
  LauncherInfo info;
  if (const auto local =
          first_rank(env, {"SLURM_LOCALID", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "LOCAL_RANK"})) {
    info.local_rank_variable = local->name;
    info.local_rank = local->value;
    info.local_rank_error = local->error;
  }
  if (const auto rank = first_rank(env, {"SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "RANK"})) {
    info.rank = rank->value;
    info.rank_error = rank->error;
  }
  for (const char* name : {"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID"}) {
    if (const auto v = env(name)) {
      info.job_id = *v;
      break;
    }
  }
  return info;
}

int profile_launches(const Environment& env) {
  const auto v = env("MEMBENCH_PROFILE");
  if (!v) return 0;
  char* end = nullptr;
  errno = 0;
  const long k = std::strtol(v->c_str(), &end, 10);
  if (v->empty() || *end != '\0' || errno != 0 || k < 1 || k > 1000)
    throw UsageError("MEMBENCH_PROFILE=" + *v + ": expects a launch count within 1..1000 (a profiling hook)");
  return static_cast<int>(k);
}

bool corrupt_for_test(const Environment& env) {
  const auto v = env("MEMBENCH_TEST_CORRUPT");
  if (!v || v->empty() || *v == "0") return false;
  if (*v == "1") return true;
  throw UsageError("MEMBENCH_TEST_CORRUPT=" + *v + ": expects 0 or 1 (a test hook)");
}

bool utilisation_view_for_test(const Environment& env) {
  const auto v = env("MEMBENCH_TEST_PROCESS_VIEW");
  if (!v || v->empty()) return false;
  if (*v == "utilisation") return true;
  throw UsageError("MEMBENCH_TEST_PROCESS_VIEW=" + *v + ": expects utilisation (a test hook)");
}

std::vector<int> resolve_devices(const DeviceSelection& selection, int visible, const LauncherInfo& launcher) {
  switch (selection.kind) {
    case DeviceSelection::Kind::all: {
      std::vector<int> all;
      for (int d = 0; d < visible; ++d) all.push_back(d);
      return all;
    }
    case DeviceSelection::Kind::local: {
      if (!launcher.local_rank_error.empty()) throw UsageError("--device=local: " + launcher.local_rank_error);
      if (!launcher.local_rank)
        throw UsageError(
            "--device=local: no local rank is set (SLURM_LOCALID, OMPI_COMM_WORLD_LOCAL_RANK, "
            "MPI_LOCALRANKID or LOCAL_RANK); start membench under a launcher or pass --device=N");
      if (visible == 1) return {0};  // the launcher bound this process to its GPU
      if (*launcher.local_rank >= visible)
        throw UsageError("--device=local: " + launcher.local_rank_variable + "=" +
                         std::to_string(*launcher.local_rank) + " but only " + std::to_string(visible) +
                         " device(s) visible");
      return {*launcher.local_rank};
    }
    case DeviceSelection::Kind::list: break;
  }
  for (int d : selection.ordinals)
    if (d >= visible)
      throw UsageError("--device=" + std::to_string(d) + ": only " + std::to_string(visible) + " device(s) visible");
  return selection.ordinals;
}

std::string expand_output_pattern(const std::string& pattern, const std::string& host, const LauncherInfo& launcher,
                                  int device) {
  if (pattern.find("{rank}") != std::string::npos) {
    // The global rank's variable decides when it is set, else the local rank's.
    const std::string& bad =
        !launcher.rank_error.empty() || launcher.rank ? launcher.rank_error : launcher.local_rank_error;
    if (!bad.empty()) throw UsageError("{rank} cannot be filled in: " + bad);
  }
  const int rank = launcher.rank ? *launcher.rank : launcher.local_rank ? *launcher.local_rank : 0;
  const std::pair<std::string, std::string> fields[] = {
      {"{host}", host}, {"{rank}", std::to_string(rank)}, {"{device}", std::to_string(device)}};
  std::string out = pattern;
  for (const auto& [key, value] : fields)
    for (auto at = out.find(key); at != std::string::npos; at = out.find(key, at + value.size()))
      out.replace(at, key.size(), value);
  return out;
}

}  // namespace membench::cli
