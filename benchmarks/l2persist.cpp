//==============================================================================
// l2persist: L2 residency control
//
// A kernel reads a hot buffer (hot_bytes) four times per launch while it
// streams a cold buffer sixteen times its size, four cold bytes beside
// every hot one, every load past the L1. Every launch carries an access
// policy window over the hot buffer (hitRatio = hit_ratio %, hits
// persisting, misses streaming), and the case sets aside set_aside % of
// the device's largest persisting L2 (cudaLimitPersistingL2CacheSize).
//
// The model (l2persist.hpp): the persisting bytes are the hit ratio of the
// hot buffer, up to the set-aside; they stay in the L2 from launch to launch
// while the cold stream evicts every other line before it is read again.
// model_l2_hot_bytes is the hot bytes served from the L2 per launch,
// model_dram_read_bytes the rest, which ncu's dram__bytes_read checks; the
// rate if DRAM is the only limit, model_bytes_per_second. The hypothesis:
// with the whole hot buffer persisting, a fifth of the bytes never reach
// DRAM, and the launch is that much faster; a hit ratio above what the
// set-aside holds makes persisting lines evict each other and gains little.
//
// The set-aside is the context's: the case sets it when it is defined and,
// whatever happens to the case, puts it back and resets the persisting lines
// to normal (cudaCtxResetPersistingL2Cache) when the next case starts, so a
// later case finds the L2 as it was (a GPU test shows it).
//==============================================================================
#include <cstdint>
#include <memory>

#include "cases/family.hpp"
#include "cases/planned.hpp"
#include "membench/l2persist.hpp"
#include "membench/platform/cuda.hpp"

namespace membench::cases {

namespace {

constexpr std::uint32_t kSeed = 0x12;

CaseDefinition define(const L2PersistConfig& c, const DeviceInfo& gpu) {
  const L2PersistLimits limits = l2persist_limits(gpu.ordinal);
  std::string why;
  if (!l2persist_config_supported(c, limits, &why)) throw CaseSkipped(why);
  const auto plan = planned<L2PersistPlan>(c);
  auto scope = std::make_shared<const PersistingL2>(l2persist_set_aside_bytes(c, limits));
  CaseDefinition d;
  d.input_elements = l2persist_input_floats(c);
  d.output_elements = plan.shape.grid;
  d.output_type = Element::f64;
  d.seed = kSeed;
  d.bind = bind_plan<float, double>(plan);
  d.scopes.push_back(scope);
  auto sums = std::make_shared<const std::vector<double>>(l2persist_chunk_sums(c, kSeed));
  d.expected_f64 = [plan, sums](std::size_t b) { return l2persist_expected(plan, *sums, static_cast<unsigned>(b)); };
  d.graphable = false;     // the window is a launch attribute; launched as it is, never captured
  d.warm_up_launches = 2;  // the persisting lines in place before timing
  d.work.bytes = l2persist_bytes(c);
  const double dram = l2persist_model_dram_read_bytes(c, limits);
  d.work.model.push_back({"set_aside_bytes", static_cast<double>(l2persist_set_aside_bytes(c, limits))});
  d.work.model.push_back({"model_persisting_bytes", l2persist_model_persisting_bytes(c, limits)});
  d.work.model.push_back({"model_l2_hot_bytes", l2persist_model_l2_hot_bytes(c, limits)});
  d.work.model.push_back({"model_dram_read_bytes", dram});
  if (dram > 0)
    d.work.model.push_back({"model_bytes_per_second", d.work.bytes / dram * gpu.dram_peak_bytes_per_second});
  return d;
}

void cases(Family& f) {
  f.add("hot_cold", {"hot_bytes", "hit_ratio", "set_aside"}, {"l2persist_read"}, [](const CaseArgs& a) {
    return define({a.size("hot_bytes"), a.integer("hit_ratio"), a.integer("set_aside")}, a.device());
  });
}

const Registrar registrar{{"l2persist",
                           {axis("hot_bytes", "bytes", "the buffer re-read under the window (a multiple of 4096)",
                                 {std::int64_t{16} << 20}, 4096, std::int64_t{1} << 32, 4096),
                            axis("hit_ratio", "percent", "of the window's accesses that persist", {0, 100}, 0, 100),
                            axis("set_aside", "percent", "of the largest persisting L2 set-aside", {50, 100}, 0, 100)},
                           cases,
                           {"L2 residency control: a hot buffer under an access policy window",
                            {figure("measured", "set_aside", "bytes_per_second"),
                             figure("model: what DRAM still serves", "set_aside", "model_dram_read_bytes")},
                            "",
                            {}}}};

}  // namespace

}  // namespace membench::cases
