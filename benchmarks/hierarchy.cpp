//==============================================================================
// hierarchy: every level of the on-GPU memory system, by working set
//
// hierarchy/bandwidth: the whole grid reads a working set over and over, so
// the level that holds the set is the one measured; `width` bytes a load (4,
// 8, 16), so a wider load's fewer requests can be told from the level's own
// ceiling. persistent:1, a resident grid: each block reads through all of the
// set from its own starting point, so every SM reads the whole set before it
// reads a byte again. persistent:0: short blocks of 16 chunks each, which the
// GPU replaces as they finish, so the set is read front to back in block
// order. The two orders present the L2 a different mix of addresses at once;
// a figure for the L2 takes the better of those whose reads ncu sees reach
// the L2 (l2_read_bytes). The hypothesis: three plateaus, L1 (up to
// the SM's unified L1/shared size, with the least shared memory that keeps
// the SM full), L2 (up to the L2 size) and DRAM, with the steps at the
// reported sizes. Each case reports the level the model expects
// (model_level), that level's read ceiling (model_bytes_per_second) and the
// bytes each level must serve per launch (l2_read_bytes, dram_read_bytes),
// which the ncu check compares with the counters.
//
// hierarchy/latency: one thread chases a random cyclic chain of pointers
// spread chase_stride bytes apart over the working set: every load depends on
// the one before, and no prefetcher or coalescer can guess the next address.
// latency_ns and latency_cycles (at the SM clock measured over the batches)
// are the time per load. The hypothesis: the same three levels as steps, and
// past the TLB's reach a further rise inside DRAM. Near the L1's size the
// time depends on where the chain starts within its page (hierarchy.hpp): there the
// launches take turns over copies of the chain (`placements`), and the
// standard error of the copies' mean (`turns_sem_pct`) marks a value that
// another allocation could move.
//==============================================================================
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "cases/family.hpp"
#include "cases/planned.hpp"
#include "membench/hierarchy.hpp"
#include "membench/platform/cuda.hpp"
#include "membench/platform/pattern.hpp"
#include "membench/platform/verify.hpp"

namespace membench::cases {

namespace {

constexpr std::uint32_t kSeed = 0x4B;

// The level's model; where the architecture facts cannot tell the level or
// its ceiling, each unknown with why, and no pct_of_peak.
void add_level_model(Work& w, std::optional<Level> level, const DeviceInfo& gpu) {
  std::string why;
  const auto ceiling = level ? level_read_ceiling(*level, gpu, &why) : std::nullopt;
  if (level)
    w.model.push_back({"model_level", static_cast<double>(*level)});
  else
    w.unknown.push_back("model_level: " + unknown_fact(gpu.cc_major, gpu.cc_minor, Fact::unified_l1_bytes));
  if (ceiling)
    w.model.push_back({"model_bytes_per_second", *ceiling});
  else if (level)
    w.unknown.push_back("model_bytes_per_second: " + why);
  w.peak_bytes_per_second = ceiling.value_or(-1);
  if (const auto fact = level ? level_ceiling_fact(*level) : std::nullopt)
    if (const auto v = arch_fact(gpu.cc_major, gpu.cc_minor, *fact)) w.peak_assumed = v->basis == Basis::assumed;
}

CaseDefinition define_bandwidth(const BandwidthConfig& c, const DeviceInfo& gpu) {
  std::string why;
  if (!bandwidth_config_supported(c, &why)) throw CaseSkipped(why);
  CaseDefinition d;
  const auto plan = planned<BandwidthPlan>(c);
  const BandwidthCoverage cover = plan.coverage;
  d.input_elements = c.working_set / sizeof(float);
  d.output_elements = cover.grid;
  d.output_type = Element::f64;
  d.seed = kSeed;
  d.bind = bind_plan<float, double>(plan);
  const auto sums = std::make_shared<const std::vector<double>>(bandwidth_chunk_sums(c, kSeed));
  d.expected_f64 = [cover, sums](std::size_t b) { return bandwidth_expected(cover, *sums, static_cast<unsigned>(b)); };
  const DeviceInfo& device = gpu;
  // Past the L1 (through_l1:0), a set the L1 could hold is read from the L2.
  std::optional<Level> level = level_holding(c.working_set, device);
  if (!c.through_l1 && (!level || *level < Level::l2)) level = Level::l2;
  d.work.bytes = cover.bytes;
  add_level_model(d.work, level, gpu);
  // In the steady state: held in L1, each SM reads the set from the L2 at
  // most once per launch (less where the L1 keeps it across launches); past
  // the L1 every byte read is an L2 read, and past the L2 a DRAM read too
  // (a chunk is read again only after the whole set has been).
  const double first_touch = static_cast<double>(device.sm_count) * static_cast<double>(c.working_set);
  if (level) {
    d.work.model.push_back({"l2_read_bytes", level == Level::l1 ? std::min(cover.bytes, first_touch) : cover.bytes});
    d.work.model.push_back({"dram_read_bytes", level == Level::dram ? cover.bytes : 0.0});
  }
  return d;
}

// The chain's copies (l1_edge_placements) and the turn: a launch chases
// copy `turn` and hands the next launch its copy. The first launch (the one
// verified) chases copy 0. `scratch`, a state of its own for what runs
// outside the timing (a lap, a check), is made where there are copies.
struct ChaseCopies {
  const std::uint64_t* chain = nullptr;
  std::size_t working_set = 0;
  int count = 1;
  int turn = 0;
  DeviceAllocation scratch;
  const std::uint64_t* copy(int k) const { return chain + placement_start(working_set, k) / sizeof(std::uint64_t); }
  const std::uint64_t* take_turn() {
    const std::uint64_t* at = copy(turn);
    turn = (turn + 1) % count;
    return at;
  }
};

// Where a chain has copies, before each launch one lap of the copy it will
// chase (on the scratch state, outside the timing) brings it back into the
// caches the other copies took, so that every launch starts as a single
// chain's does. `check` chases each other copy once from its head, where it
// must stop at the same node.
CaseDefinition define_latency(const LatencyConfig& c, const DeviceInfo& gpu) {
  std::string why;
  if (!latency_config_supported(c, &why)) throw CaseSkipped(why);
  CaseDefinition d;
  const auto plan = planned<LatencyPlan>(c);
  LatencyConfig lap = c;
  lap.steps = latency_nodes(c);
  const auto warm = planned<LatencyPlan>(lap);
  const int placements = l1_edge_placements(c.working_set, gpu.l1_bytes);
  d.input_elements = placements_bytes(c.working_set, placements) / sizeof(std::uint64_t);
  d.input_type = Element::u64;
  d.fill = [c, placements](const CaseBuffers& b, cudaStream_t s) {
    std::uint64_t* base = b.input_to_fill<std::uint64_t>();
    for (int k = 0; k < placements; ++k)
      if (const cudaError_t rc = fill_chain(c, base + placement_start(c.working_set, k) / sizeof(std::uint64_t), s);
          rc != cudaSuccess)
        return rc;
    return cudaSuccess;
  };
  d.output_elements = 1;
  d.output_type = Element::f64;
  const auto copies = std::make_shared<std::shared_ptr<ChaseCopies>>();
  d.bind = [c, plan, warm, placements, copies](const CaseBuffers& buffers, cudaStream_t, BoundLaunch* bound) {
    auto at = std::make_shared<ChaseCopies>();
    at->chain = buffers.input<std::uint64_t>();
    at->working_set = c.working_set;
    at->count = placements;
    if (placements > 1) at->scratch = DeviceAllocation(sizeof(double));
    *copies = at;
    bound->shape = plan.shape;
    bound->round = placements;
    bound->run = [plan, at, state = buffers.output<double>()](cudaStream_t s) {
      return launch(plan, at->take_turn(), state, s);
    };
    if (placements > 1)
      bound->before_each = [warm, at](cudaStream_t s) {
        return launch(warm, at->copy(at->turn), at->scratch.as<double>(), s);
      };
    return cudaSuccess;
  };
  const double end = latency_expected(c);
  d.expected_f64 = [end](std::size_t) { return end; };
  d.check = [plan, end, copies]() -> std::optional<std::string> {
    const ChaseCopies& at = **copies;
    for (int k = 1; k < at.count; ++k) {
      MEMBENCH_CUDA(launch_poison(at.scratch.get(), at.scratch.bytes(), nullptr));
      MEMBENCH_CUDA(launch(plan, at.copy(k), at.scratch.as<double>(), nullptr));
      const double got = copy_to_host(at.scratch.as<double>(), 1)[0];
      if (got != end)
        return "copy " + std::to_string(k) + " of the chain: the chase stopped at node " +
               std::to_string(static_cast<long long>(got)) + ", expected " +
               std::to_string(static_cast<long long>(end));
    }
    return std::nullopt;
  };
  d.warm_up_launches = std::max(latency_warm_up_launches(c, gpu.l2_bytes), placements);
  d.work.dependent_loads = static_cast<double>(c.steps);
  add_level_model(d.work, level_holding(c.working_set, gpu), gpu);
  d.work.model.push_back({"chain_nodes", static_cast<double>(latency_nodes(c))});
  d.work.model.push_back({"placements", static_cast<double>(placements)});
  return d;
}

void cases(Family& f) {
  f.add("bandwidth", {"working_set", "width", "persistent", "through_l1"}, {"hierarchy_read"}, [](const CaseArgs& a) {
    return define_bandwidth({a.size("working_set"), a.integer("width"), a["persistent"] == 1, 0, a["through_l1"] == 1},
                            a.device());
  });
  f.add("latency", {"working_set", "chase_stride"}, {"hierarchy_chase"}, [](const CaseArgs& a) {
    return define_latency({a.size("working_set"), a.size("chase_stride")}, a.device());
  });
}

std::vector<std::int64_t> powers_of_two(int from, int to) {
  std::vector<std::int64_t> v;
  for (int k = from; k <= to; ++k) v.push_back(std::int64_t{1} << k);
  return v;
}

const Registrar registrar{
    {"hierarchy",
     {axis("working_set", "bytes", "read over and over (bandwidth: a multiple of 16 KiB) or spanned by the chain",
           powers_of_two(14, 32), 16, std::int64_t{1} << 36),
      axis_of<HierarchyWidths>("width", "bytes", "bandwidth: bytes per load (float, float2, float4)", {16})
          .added_later(16),
      axis("persistent", "switch", "bandwidth: 1 = a resident grid, each block through the set; 0 = short blocks", {1},
           0, 1)
          .added_later(1),
      axis("through_l1", "switch",
           "bandwidth: 1 = loads may hit in the L1; 0 = ld.global.cg, which the L1 does not keep", {1}, 0, 1)
          .added_later(1),
      axis("chase_stride", "bytes", "latency: between the chain's nodes (a multiple of 8)", {128}, 8,
           std::int64_t{1} << 30, 8)},
     cases,
     {"Memory hierarchy: read bandwidth and latency by working set",
      {figure("read bandwidth: the whole grid re-reads the set", "working_set", "bytes_per_second")
           .log_x()
           .only({"bandwidth"})
           .model("model_bytes_per_second")
           .upright({"l1_shared_bytes_per_sm", "l2_bytes"}),
       figure("latency: a random pointer chase", "working_set", "latency_ns")
           .log_x()
           .log_y()
           .only({"latency"})
           .upright({"l1_shared_bytes_per_sm", "l2_bytes"})},
      "",
      {},
      {check_case(CheckLevel::dram_latency, "latency_ns", at("latency", {{"working_set", std::int64_t{1} << 30}})),
       check_case(CheckLevel::l2_read, "bytes_per_second", at("bandwidth", {{"working_set", std::int64_t{16} << 20}})),
       check_case(CheckLevel::l2_latency, "latency_ns", at("latency", {{"working_set", std::int64_t{16} << 20}})),
       check_case(CheckLevel::l1_read, "bytes_per_second", at("bandwidth", {{"working_set", std::int64_t{64} << 10}})),
       check_case(CheckLevel::l1_latency, "latency_ns", at("latency", {{"working_set", std::int64_t{16} << 10}}))},
      // The run's roofline takes each level's ceiling as the best the run measured there: these or the roofline
      // family's sweep at no arithmetic.
      {roof("L2", "bytes_per_second", at("bandwidth", {{"working_set", std::int64_t{16} << 20}})),
       roof("L1", "bytes_per_second", at("bandwidth", {{"working_set", std::int64_t{64} << 10}}))}}}};

}  // namespace

}  // namespace membench::cases
