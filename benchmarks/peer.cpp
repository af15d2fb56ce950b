//==============================================================================
// peer: GPU <-> GPU, over NVLink or PCIe
//
// The local GPU reads a peer GPU's memory, writes it, or both at once, by
// its copy engine (cudaMemcpyPeerAsync; peer access enabled, or disabled so
// the driver finds another path) or by an SM kernel through peer access. The
// names are nvbandwidth's; bidirectional cases count the bytes of both
// directions. The model: the links NVML reports active between the two GPUs
// times their per-direction rate (NVLink), else the PCIe link,
// model_bytes_per_second (doubled for both directions). The hypothesis: with
// peer access both engines approach the NVLink rate for large copies;
// without it the copy engine falls to what the host path allows. An SM case
// may copy its bytes `passes` times in one launch, as nvbandwidth's kernels
// do (transfer's passes): a small copy's launch and its first round trip
// over the link are then shared out.
//
// The peer is the GPU `peer_step` places after the local one in the visible
// order (1, the default: the next); peer_device names it. Over the steps 1
// .. GPUs - 1, with --device=all, every GPU reaches every other: the pair
// matrix nvbandwidth reports, in which a slower link is one cell.
//
// device_to_device_latency_sm: one thread of the local GPU chases a random
// cyclic chain of pointers that lies in the peer's memory, as
// hierarchy/latency does in its own, every load past its L1 (ld.global.cg):
// latency_ns and latency_cycles per load. nvbandwidth's test of the name
// chases 2 MiB, its nodes 128 bytes apart, the default here. The
// hypothesis: the peer's L2 latency plus a round trip over NVLink, the same
// for every working set the peer's L2 holds, and its DRAM's latency past it.
//==============================================================================
#include <cstdint>
#include <memory>

#include "cases/copy_case.hpp"
#include "cases/family.hpp"
#include "chase_case.hpp"
#include "membench/hierarchy.hpp"
#include "membench/peer.hpp"
#include "membench/platform/arch_facts.hpp"
#include "membench/platform/cuda.hpp"
#include "membench/platform/links.hpp"
#include "membench/platform/pattern.hpp"

namespace membench::cases {

namespace {

constexpr std::uint32_t kSeed = 0x2E;
constexpr std::int64_t kMaxPeerStep = 63;  // a node of 64 GPUs

void add_link_model(Work& w, int peer, int directions, const DeviceInfo& gpu) {
  std::string why;
  const DeviceInfo& here = gpu;
  const std::string to = query_device(peer).pci_bus_id;
  double rate = 0;
  if (const auto nvlink = nvlink_path(here.pci_bus_id, to, here.cc_major, here.cc_minor, &why)) {
    rate = nvlink->bytes_per_second;
    w.model.push_back({"nvlink_links", static_cast<double>(nvlink->links)});
    if (rate == 0)
      w.unknown.push_back("model_bytes_per_second: " +
                          unknown_fact(here.cc_major, here.cc_minor, Fact::nvlink_bytes_per_link));
  } else if (const auto pcie = pcie_link(here.pci_bus_id, &why)) {
    rate = pcie->bytes_per_second;
  }
  w.peak_bytes_per_second = rate > 0 ? rate * directions : -1;
  if (rate > 0) w.model.push_back({"model_bytes_per_second", rate * directions});
}

// The GPU a case reaches, `step` places after the one it runs on; skipped
// where there is none, or where the pair cannot run `c`.
struct Pair {
  int local = 0, peer = 0;
};
Pair pair_of(const PeerConfig& c, const DeviceInfo& gpu, std::int64_t step) {
  int visible = 0;
  MEMBENCH_CUDA(cudaGetDeviceCount(&visible));
  std::string why;
  if (!peer_step_supported(static_cast<int>(step), visible, &why)) throw CaseSkipped(why);
  const Pair p{gpu.ordinal, peer_of(gpu.ordinal, visible, static_cast<int>(step))};
  if (!peer_supported(c, p.local, p.peer, visible, &why)) throw CaseSkipped(why);
  return p;
}

CaseDefinition define(const PeerConfig& c, const DeviceInfo& gpu, std::int64_t step) {
  const auto [local, peer] = pair_of(c, gpu, step);
  auto access = std::make_shared<const PeerAccess>(local, peer, c.access);
  const auto side = std::make_shared<const PeerSide>(c, local, peer, kSeed);
  const CopyOperation op = peer_operation(c.variant);
  CaseDefinition d = copy_case(op, c.bytes, kSeed, side, side->engine_copy(), c.passes);
  d.scopes.push_back(std::move(access));
  d.work.model.push_back({"peer_device", static_cast<double>(peer)});
  add_link_model(d.work, peer, op.directions(), gpu);
  return d;
}

CaseDefinition define_latency(const LatencyConfig& c, const DeviceInfo& gpu, std::int64_t step) {
  const auto [local, peer] = pair_of({PeerVariant::read_sm, true, 16}, gpu, step);
  if (std::string why; !latency_config_supported(c, &why)) throw CaseSkipped(why);
  auto access = std::make_shared<const PeerAccess>(local, peer, true);
  auto chain = std::make_shared<DeviceAllocation>();
  DeviceInfo far;
  {
    DeviceScope there(peer);
    far = query_device(peer);
    try {
      *chain = DeviceAllocation(c.working_set);
    } catch (const CudaError& e) {
      throw CaseSkipped(std::string("cannot allocate the chain on the peer: ") + e.what());
    }
    MEMBENCH_CUDA(fill_chain(c, chain->as<std::uint64_t>(), nullptr));
    MEMBENCH_CUDA(cudaDeviceSynchronize());
  }
  CaseDefinition d = chase_case(c, chain, chain->as<std::uint64_t>(), far.l2_bytes);
  d.scopes.push_back(std::move(access));
  d.work.model.push_back({"peer_device", static_cast<double>(peer)});
  // Where the chain lies on the peer: its L2 or its DRAM (1 would be an L1, never here).
  d.work.model.push_back({"model_level", static_cast<double>(c.working_set <= far.l2_bytes ? Level::l2 : Level::dram)});
  return d;
}

void cases(Family& f) {
  for (PeerVariant v : kPeerVariants.all()) {
    const std::string name(kPeerVariants(v));
    if (peer_operation(v).uses_sm())
      f.add(name, {"bytes", "passes", "peer_step"}, {"copy_words"}, [v](const CaseArgs& a) {
        return define({v, true, a.size("bytes"), a.integer("passes")}, a.device(), a["peer_step"]);
      });
    else
      f.add(name, {"peer_access", "bytes", "peer_step"}, {}, [v](const CaseArgs& a) {
        return define({v, a["peer_access"] != 0, a.size("bytes")}, a.device(), a["peer_step"]);
      });
  }
  f.add("device_to_device_latency_sm", {"working_set", "chase_stride", "peer_step"}, {"hierarchy_chase"},
        [](const CaseArgs& a) {
          return define_latency({a.size("working_set"), a.size("chase_stride"), false}, a.device(), a["peer_step"]);
        });
}

const Registrar registrar{
    {"peer",
     {axis("peer_access", "switch", "copy-engine cases: 1 = peer access enabled, 0 = disabled", {1, 0}, 0, 1),
      axis("bytes", "bytes", "per direction (a multiple of 16)", {std::int64_t{64} << 20}, 16, std::int64_t{1} << 36,
           16),
      axis("passes", "copies", "SM cases: times one launch copies the bytes", {1}, 1, kCopyMaxPasses).added_later(1),
      axis("working_set", "bytes", "latency: spanned by the chain in the peer's memory", {std::int64_t{2} << 20}, 16,
           std::int64_t{1} << 36),
      axis("chase_stride", "bytes", "latency: between the chain's nodes (a multiple of 8)", {128}, 8,
           std::int64_t{1} << 30, 8),
      axis("peer_step", "GPUs",
           "the peer: the GPU this many places after the one measured, in the visible order (1: the next); over "
           "1 .. GPUs - 1 with --device=all, every pair",
           {1}, 1, kMaxPeerStep)
          .added_later(1)
          .picking_the_peer()},
     cases,
     {"GPU <-> GPU: copy engine and SM over the link",
      {figure("copies over the link", "bytes", "bytes_per_second").log_x().model("model_bytes_per_second"),
       figure("one thread chases the peer's memory", "working_set", "latency_ns").log_x()},
      "",
      {}}}};

}  // namespace

}  // namespace membench::cases
