//==============================================================================
// atomics: the cost of a read-modify-write
//
// Every thread of a resident grid adds 1 to an address `updates` times. The
// threads that share an address (shared_by): the whole grid, its block, its
// warp, or none (each its own). add uses atomicAdd's old value (each thread
// sums the values it got back); red issues the PTX reduction, which returns
// nothing. In global memory or in a block's shared memory, on u32, u64, f32
// and f64. updates_per_second is every thread's updates over the launch's
// time.
//
// The model: the unit that owns an address (an L2 slice; a shared-memory
// bank) applies its updates one after another, at most one per SM clock,
// while different addresses proceed in parallel up to one warp-wide
// instruction per SM per clock: model_updates_per_second =
// min(addresses x clock, SMs x 32 x clock), with updates_per_address, the
// serial depth, beside it: a bound, which only one address shared by the
// whole grid comes near. What the hardware is asked is modelled exactly and
// checked with ncu (atomics.hpp): model_l2_requests (global: one L2 request
// per lane that shares its address with others in the warp, one per warp
// when all differ) and model_shared_wavefronts (integers in shared memory).
// The hypothesis: red beats add wherever the old value's round trip, not
// the unit, is the limit; lanes of a warp that share an address cost 32
// requests, since nothing combines them on the way, so an update shared by
// a warp is dearer than 32 private ones.
//
// Where the targets lie moves the rate (atomics.hpp): a global target of
// several addresses takes turns over 64 placements, one a launch, batches
// hold whole rounds, and the rate is the placements' mean (`placements`);
// the engine times each placement alone once, and the mean's standard error
// over them (`turns_sem_pct`) says how far another allocation's may lie.
//
// Verified exactly, after one launch from zeros: every address holds its
// threads x updates, and under add the old values its threads got back sum
// to N (N - 1) / 2 for its N updates (each of 0 .. N - 1 returned once).
// Floats too: every partial sum is an integer below 2^24.
//==============================================================================
#include <cstdint>
#include <memory>

#include "cases/family.hpp"
#include "membench/atomics.hpp"
#include "membench/platform/cuda.hpp"
#include "membench/platform/verify.hpp"

namespace membench::cases {

namespace {

CaseDefinition define(const AtomicsConfig& c, const DeviceInfo& gpu) {
  AtomicsPlan plan;
  const cudaError_t planned = membench::plan(c, &plan);
  if (planned == cudaErrorInvalidValue) {
    std::string why;
    atomics_config_supported(c, plan.shape.grid > 0 ? plan.shape.grid : 1, &why);
    throw CaseSkipped(why.empty() ? "not supported" : why);
  }
  MEMBENCH_CUDA(planned);
  struct Buffers {
    DeviceAllocation target, tickets;
  };
  auto buffers = std::make_shared<Buffers>();
  buffers->target = DeviceAllocation(atomics_target_bytes(plan));
  buffers->tickets = DeviceAllocation(plan.ticket_elements * sizeof(double));
  MEMBENCH_CUDA(cudaMemset(buffers->target.get(), 0, buffers->target.bytes()));
  if (buffers->tickets.bytes() > 0)
    MEMBENCH_CUDA(launch_poison(buffers->tickets.get(), buffers->tickets.bytes(), nullptr));
  MEMBENCH_CUDA(cudaDeviceSynchronize());

  CaseDefinition d;
  d.bind = [plan, buffers](const CaseBuffers&, cudaStream_t, BoundLaunch* bound) {
    bound->shape = plan.shape;
    bound->round = plan.placements;
    // The first launch (the one verified) at placement 0, then each in turn.
    bound->run = [plan, buffers, turn = std::make_shared<int>(0)](cudaStream_t s) {
      const AtomicTarget at = atomics_target(plan, buffers->target, *turn);
      *turn = (*turn + 1) % plan.placements;
      return launch(plan, at, buffers->tickets.as<double>(), s);
    };
    return cudaSuccess;
  };
  d.check = [plan, buffers]() -> std::optional<std::string> {
    std::vector<unsigned char> target(buffers->target.bytes());
    MEMBENCH_CUDA(cudaMemcpy(target.data(), buffers->target.get(), target.size(), cudaMemcpyDeviceToHost));
    const auto tickets = copy_to_host(buffers->tickets.as<double>(), plan.ticket_elements);
    return atomics_check_placements(plan, target, tickets);
  };
  d.work.updates = plan.layout.updates;
  d.work.peak_bytes_per_second = -1;
  d.work.model.push_back({"updates_per_address", static_cast<double>(plan.layout.updates_per_address)});
  d.work.model.push_back({"addresses", static_cast<double>(plan.layout.addresses)});
  d.work.model.push_back({"placements", static_cast<double>(plan.placements)});
  d.work.model.push_back({"model_updates_per_second",
                          atomics_model_updates_per_second(plan.layout, gpu.sm_count, gpu.sm_clock_khz * 1e3)});
  if (c.space == AtomicSpace::global)
    d.work.model.push_back({"model_l2_requests", atomics_model_l2_requests(c, plan.layout)});
  if (const auto wavefronts = atomics_model_shared_wavefronts(c, plan.layout);
      wavefronts && c.space == AtomicSpace::shared)
    d.work.model.push_back({"model_shared_wavefronts", *wavefronts});
  return d;
}

void cases(Family& f) {
  for (AtomicVariant v : kAtomicVariants.all())
    f.add(std::string(kAtomicVariants(v)), {"word", "space", "shared_by", "updates"}, {"atomics_update"},
          [v](const CaseArgs& a) {
            return define({v, static_cast<AtomicType>(a["word"]), static_cast<AtomicSpace>(a["space"]),
                           static_cast<AtomicSharing>(a["shared_by"]), a.integer("updates")},
                          a.device());
          });
}

const Registrar registrar{{"atomics",
                           {axis_named("word", "the type of the updated word", kAtomicTypes, {0}),
                            axis_named("space", "where the addresses are", kAtomicSpaces, {0, 1}),
                            axis_named("shared_by", "the threads that update one address", kAtomicSharings, {0, 2, 3}),
                            axis("updates", "updates", "additions of 1 by each thread", {16}, 1, kAtomicsMaxUpdates)},
                           cases,
                           {"Atomics: updates per second by the threads sharing an address",
                            {figure("updates by the threads that share an address", "shared_by", "updates_per_second")
                                 .log_y()
                                 .model("model_updates_per_second")},
                            "",
                            {},
                            {check_case(CheckLevel::l2_atomics, "updates_per_second",
                                        at("red", {{"word", "u32"}, {"space", "global"}, {"shared_by", "thread"}})),
                             check_case(CheckLevel::shared_atomics, "updates_per_second",
                                        at("add", {{"word", "u32"}, {"space", "shared"}, {"shared_by", "thread"}}))}}}};

}  // namespace

}  // namespace membench::cases
