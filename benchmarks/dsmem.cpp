//==============================================================================
// dsmem: distributed shared memory, a cluster's blocks reading each other
//
// Hopper lets the blocks of a thread-block cluster (2..8 blocks, on SMs of
// one GPC) load from each other's shared memory. Each block holds 128 KiB,
// so each SM holds one block and "remote" always crosses the SM-to-SM
// network. read_local / read_remote: every thread reads its own block's or
// the next block's buffer with 16-byte loads (bytes_per_second against the
// shared-memory peak, 128 bytes per SM per clock: the ceiling both share).
// chase_local / chase_remote: one thread per block follows a random cyclic
// chain through it (latency_ns, latency_cycles). The hypothesis: a remote
// load costs several times the latency of a local one and its bandwidth is
// bound by the network, not the banks; the cluster size should change
// neither much while each block reads one neighbour.
//==============================================================================
#include <cstdint>

#include "cases/family.hpp"
#include "cases/planned.hpp"
#include "membench/dsmem.hpp"
#include "membench/platform/cuda.hpp"

namespace membench::cases {

namespace {

constexpr std::uint32_t kSeed = 0xD5;

CaseDefinition define(const DsmemConfig& c, const DeviceInfo& gpu) {
  std::string why;
  if (!dsmem_config_supported(c, &why) || !dsmem_available(&why)) throw CaseSkipped(why);
  CaseDefinition d;
  const auto plan = planned<DsmemPlan>(c);
  const unsigned grid = plan.shape.grid;
  d.input_elements = dsmem_input_elements(c, grid);
  d.output_elements = grid;
  d.output_type = Element::f64;
  d.seed = kSeed;
  if (dsmem_chases(c.variant)) {
    d.input_type = Element::u32;
    d.fill = [](const CaseBuffers& b, cudaStream_t s) { return dsmem_fill_chain(b.input_to_fill<std::uint32_t>(), s); };
    d.bind = bind_plan<std::uint32_t, double>(plan);
    d.work.dependent_loads = static_cast<double>(kDsmemChaseSteps);
    d.work.model.push_back({"chain_nodes", static_cast<double>(dsmem_chain_nodes())});
  } else {
    d.work.bytes = dsmem_bytes(c, grid);
    d.work.peak_bytes_per_second = shared_peak(gpu, d.work);
    if (d.work.peak_bytes_per_second > 0)
      d.work.model.push_back({"model_bytes_per_second", gpu.smem_peak_bytes_per_second});
    d.bind = bind_plan<float, double>(plan);
  }
  d.work.model.push_back({"remote", dsmem_remote(c.variant) ? 1.0 : 0.0});
  d.expected_f64 = [c](std::size_t b) { return dsmem_expected(c, static_cast<unsigned>(b), kSeed); };
  return d;
}

void cases(Family& f) {
  for (DsmemVariant v : kDsmemVariants.all())
    f.add(std::string(kDsmemVariants(v)), {"cluster"}, {dsmem_chases(v) ? "dsmem_chase" : "dsmem_read"},
          [v](const CaseArgs& a) {
            return define({v, a.integer("cluster")}, a.device());
          });
}

const Registrar registrar{
    {"dsmem",
     {axis("cluster", "blocks", "blocks per thread-block cluster", {2, 4, 8}, 1, kDsmemMaxCluster)},
     cases,
     {"Distributed shared memory: a cluster's blocks reading each other",
      {figure("every thread reads a buffer", "cluster", "bytes_per_second")
           .only({"read_local", "read_remote"})
           .across({"smem_peak_bytes_per_second"}),
       figure("one thread chases a chain", "cluster", "latency_ns").only({"chase_local", "chase_remote"})},
      "",
      {}}}};

}  // namespace

}  // namespace membench::cases
