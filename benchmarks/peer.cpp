//==============================================================================
// peer: GPU <-> GPU, over NVLink or PCIe
//
// The local GPU reads the next GPU's memory, writes it, or both at once, by
// its copy engine (cudaMemcpyPeerAsync; peer access enabled, or disabled so
// the driver finds another path) or by an SM kernel through peer access. The
// names are nvbandwidth's; bidirectional cases count the bytes of both
// directions. The model: the links NVML reports active between the two GPUs
// times their per-direction rate (NVLink), else the PCIe link,
// model_bytes_per_second (doubled for both directions). The hypothesis: with
// peer access both engines approach the NVLink rate for large copies;
// without it the copy engine falls to what the host path allows.
//==============================================================================
#include <cstdint>
#include <memory>

#include "cases/copy_case.hpp"
#include "cases/family.hpp"
#include "membench/cuda.hpp"
#include "membench/links.hpp"
#include "membench/pattern.hpp"
#include "membench/peer.hpp"

namespace membench::cases {

namespace {

constexpr std::uint32_t kSeed = 0x2E;

void add_link_model(Work& w, int peer, int directions) {
  std::string why;
  const DeviceInfo& here = session_device();
  const std::string to = query_device(peer).pci_bus_id;
  double rate = 0;
  if (const auto nvlink = nvlink_path(here.pci_bus_id, to, here.cc_major, &why)) {
    rate = nvlink->bytes_per_second;
    w.model.push_back({"nvlink_links", static_cast<double>(nvlink->links)});
  } else if (const auto pcie = pcie_link(here.pci_bus_id, &why)) {
    rate = pcie->bytes_per_second;
  }
  w.peak_bytes_per_second = rate > 0 ? rate * directions : -1;
  if (rate > 0) w.model.push_back({"model_bytes_per_second", rate * directions});
}

CaseDefinition define(const PeerConfig& c) {
  const int local = session_device().ordinal;
  int visible = 0;
  MEMBENCH_CUDA(cudaGetDeviceCount(&visible));
  const int peer = peer_of(local, visible);
  std::string why;
  if (!peer_supported(c, local, peer, visible, &why)) throw CaseSkipped(why);
  MEMBENCH_CUDA(set_peer_access(local, peer, c.access));
  const auto side = std::make_shared<const PeerSide>(c, local, peer, kSeed);
  const CopyOperation op = peer_operation(c.variant);
  CaseDefinition d = copy_case(op, c.bytes, kSeed, side, side->engine_copy());
  d.work.model.push_back({"peer_device", static_cast<double>(peer)});
  add_link_model(d.work, peer, op.directions());
  return d;
}

void cases(Family& f) {
  for (PeerVariant v : kPeerVariants.all()) {
    const std::string name(kPeerVariants(v));
    if (peer_operation(v).uses_sm())
      f.add(name, {"bytes"}, {"copy_words"}, [v](const CaseArgs& a) { return define({v, true, a.size("bytes")}); });
    else
      f.add(name, {"peer_access", "bytes"}, {},
            [v](const CaseArgs& a) { return define({v, a["peer_access"] != 0, a.size("bytes")}); });
  }
}

const Registrar registrar{
    {"peer",
     {axis("peer_access", "switch", "copy-engine cases: 1 = peer access enabled, 0 = disabled", {1, 0}, 0, 1),
      axis("bytes", "bytes", "per direction (a multiple of 16)", {std::int64_t{64} << 20}, 16, std::int64_t{1} << 36,
           16)},
     cases}};

}  // namespace

}  // namespace membench::cases
