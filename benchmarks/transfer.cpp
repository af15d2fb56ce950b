//==============================================================================
// transfer: host <-> device, over the GPU's link to the host
//
// H2D, D2H and both at once, by the copy engine from pinned or pageable host
// memory, or by an SM kernel reading or writing mapped (zero-copy) host
// memory; the names are nvbandwidth's (bidirectional_* moves both directions
// at once and counts the bytes of both). The model: the link's theoretical
// rate per direction from the PCIe generation and width NVML reports (twice
// that for both directions at once), model_bytes_per_second, against which
// pct_of_peak is given. The hypothesis: pinned copies reach most of the link
// at 64 MiB and more, small copies are bound by the launch, pageable copies
// pay for the driver's staging through a pinned buffer, and the SM kernel
// needs enough bytes in flight to cover the link's latency. An SM case may
// copy its bytes `passes` times in one launch, as nvbandwidth's kernels do
// (its loop count, 16): one small copy per launch pays the launch and the
// link's round trip at its start and end, which the passes share out; every
// pass crosses the link again (its loads are volatile, and the L2 keeps no
// host memory), which ncu's pcie__read_bytes and pcie__write_bytes confirm:
// passes x bytes, and the link's packet overhead on top. Pageable copies do
// not settle: the staging runs on a CPU thread the GPU's clock cannot
// see, so their time per launch varies with the host's scheduling and
// memory, and they stay noisy = 1 however long they run. Every case here is
// host_paced: the host's side of the link (its root complex, its memory and,
// for pageable copies, its CPU) sets the rate and its spread from run to
// run, so the gates judge a change against the case's own noise, never as a
// sign that another process shared the GPU.
//
// host_device_latency_sm: one thread chases a random cyclic chain of
// pointers that lies in mapped host memory, every load past its L1
// (ld.global.cg), as hierarchy/latency does in device memory: latency_ns and
// latency_cycles per load. nvbandwidth's test of the name chases 2 MiB, its
// nodes 128 bytes apart, the default here. The hypothesis: each load is a
// round trip over PCIe to the host's memory controller, a few times the
// DRAM latency and the same at every working set, since the L2 does not
// keep host memory that another agent may change.
//
// On a host of several sockets the host buffers lie on one NUMA node, bound
// before any page is touched: remote_node 0 (the default) is the node the
// GPU's PCIe slot hangs off, 1 the nearest other socket's. The hypothesis:
// a remote buffer costs the link between the sockets (its bandwidth, and a
// hop of latency each way). On a host of one node nothing is bound (there
// is nothing to choose) and remote_node 1 is skipped; the context names the
// nodes once (host_numa_nodes, gpu_numa_node). host_numa_node is where the
// pages were found, read back from the kernel; a buffer not on the node it
// was bound to is skipped.
//==============================================================================
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include "cases/copy_case.hpp"
#include "cases/family.hpp"
#include "chase_case.hpp"
#include "membench/hierarchy.hpp"
#include "membench/platform/cuda.hpp"
#include "membench/platform/links.hpp"
#include "membench/platform/numa.hpp"
#include "membench/platform/pattern.hpp"
#include "membench/transfer.hpp"

namespace membench::cases {

namespace {

constexpr std::uint32_t kSeed = 0x7F;
// The health check's copies: 64 MiB of pinned host memory.
const std::vector<std::pair<std::string, AxisValue>> kPinned64MiB = {{"host", "pinned"},
                                                                     {"bytes", std::int64_t{64} << 20}};

// The link model: model_bytes_per_second and the link's generation and width.
void add_link_model(Work& w, int directions, const DeviceInfo& gpu) {
  std::string why;
  const auto link = pcie_link(gpu.pci_bus_id, &why);
  if (!link) {
    w.peak_bytes_per_second = -1;  // no model: no pct_of_peak
    return;
  }
  w.peak_bytes_per_second = link->bytes_per_second * directions;
  w.model.push_back({"model_bytes_per_second", w.peak_bytes_per_second});
  w.model.push_back({"link_generation", static_cast<double>(link->generation)});
  w.model.push_back({"link_width", static_cast<double>(link->width)});
}

// The NUMA node the host buffers go on: the GPU's own or the nearest other;
// skipped where the host has no such node.
std::optional<int> host_node(TransferNode node, const DeviceInfo& gpu) {
  std::optional<int> chosen;
  const std::optional<int> gpu_node = gpu.numa_node >= 0 ? std::optional<int>(gpu.numa_node) : std::nullopt;
  if (std::string why; !choose_host_node(node == TransferNode::remote, gpu_node, host_numa_nodes(), &chosen, &why))
    throw CaseSkipped(why);
  return chosen;
}

// Where the host buffer's pages are, as the kernel says (-1: it cannot
// tell), and the GPU's node beside it. A buffer not all on the node it was
// bound to is refused: its rate would be a mix of two sockets'.
void add_numa(Work& w, const HostBuffer* buffer, std::optional<int> bound, const DeviceInfo& gpu) {
  w.model.push_back({"gpu_numa_node", static_cast<double>(gpu.numa_node)});
  if (buffer == nullptr) return;
  const std::vector<int> nodes = page_nodes(buffer->host(), buffer->floats() * sizeof(float));
  int where = nodes.empty() ? -1 : nodes.front();
  if (std::any_of(nodes.begin(), nodes.end(), [&](int n) { return n != where; })) where = -2;
  if (bound && where >= 0 && where != *bound)
    throw CaseSkipped("the host buffer was bound to NUMA node " + std::to_string(*bound) + " but lies on " +
                      std::to_string(where));
  if (bound && where == -2) throw CaseSkipped("the host buffer's pages lie on several NUMA nodes");
  w.model.push_back({"host_numa_node", static_cast<double>(where)});
}

CaseDefinition define(const TransferConfig& c, TransferNode node, const DeviceInfo& gpu) {
  const std::optional<int> bound = host_node(node, gpu);
  std::shared_ptr<const TransferHostSide> host;
  try {
    host = std::make_shared<const TransferHostSide>(c, kSeed, bound);
  } catch (const CudaError& e) {
    throw CaseSkipped(std::string("cannot allocate the host memory: ") + e.what());
  } catch (const std::bad_alloc&) {
    throw CaseSkipped("cannot allocate the host memory");
  } catch (const std::runtime_error& e) { throw CaseSkipped(e.what()); }
  const CopyOperation op = transfer_operation(c.variant);
  CaseDefinition d = copy_case(op, c.bytes, kSeed, host, host_engine_copy(c.bytes), c.passes);
  add_link_model(d.work, op.directions(), gpu);
  add_numa(d.work, host->source() != nullptr ? host->source() : host->destination(), bound, gpu);
  d.work.host_paced = true;
  return d;
}

CaseDefinition define_latency(const LatencyConfig& c, TransferNode node, const DeviceInfo& gpu) {
  std::string why;
  if (!latency_config_supported(c, &why)) throw CaseSkipped(why);
  const std::optional<int> bound = host_node(node, gpu);
  std::shared_ptr<HostBuffer> chain;
  try {
    chain = std::make_shared<HostBuffer>(HostMemory::mapped, c.working_set, bound);
  } catch (const CudaError& e) {
    throw CaseSkipped(std::string("cannot allocate the host memory: ") + e.what());
  } catch (const std::runtime_error& e) { throw CaseSkipped(e.what()); }
  MEMBENCH_CUDA(fill_chain(c, chain->device_as<std::uint64_t>(), nullptr));
  MEMBENCH_CUDA(cudaDeviceSynchronize());
  CaseDefinition d = chase_case(c, chain, chain->device_as<std::uint64_t>(), gpu.l2_bytes);
  add_numa(d.work, chain.get(), bound, gpu);
  d.work.host_paced = true;  // a round trip to the host's memory controller
  if (const auto link = pcie_link(gpu.pci_bus_id, &why)) {
    d.work.model.push_back({"link_generation", static_cast<double>(link->generation)});
    d.work.model.push_back({"link_width", static_cast<double>(link->width)});
  }
  return d;
}

void cases(Family& f) {
  for (TransferVariant v : kTransferVariants.all()) {
    const std::string name(kTransferVariants(v));
    if (transfer_operation(v).uses_sm())
      f.add(name, {"bytes", "passes", "remote_node"}, {"copy_words"}, [v](const CaseArgs& a) {
        return define({v, TransferHost::pinned, a.size("bytes"), a.integer("passes")},
                      static_cast<TransferNode>(a["remote_node"]), a.device());
      });
    else
      f.add(name, {"host", "bytes", "remote_node"}, {}, [v](const CaseArgs& a) {
        return define({v, static_cast<TransferHost>(a["host"]), a.size("bytes")},
                      static_cast<TransferNode>(a["remote_node"]), a.device());
      });
  }
  f.add("host_device_latency_sm", {"working_set", "chase_stride", "remote_node"}, {"hierarchy_chase"},
        [](const CaseArgs& a) {
          return define_latency({a.size("working_set"), a.size("chase_stride"), false, kLinkChaseSteps},
                                static_cast<TransferNode>(a["remote_node"]), a.device());
        });
}

const Registrar registrar{
    {"transfer",
     {axis_named("host", "copy-engine cases: host memory", {"pinned", "pageable"}, {0, 1}),
      axis("bytes", "bytes", "per direction (a multiple of 16)",
           {std::int64_t{4} << 10, std::int64_t{1} << 20, std::int64_t{64} << 20}, 16, std::int64_t{1} << 36, 16),
      axis("passes", "copies", "SM cases: times one launch copies the bytes", {1}, 1, kCopyMaxPasses).added_later(1),
      axis("working_set", "bytes", "latency: spanned by the chain in mapped host memory", {std::int64_t{2} << 20}, 16,
           std::int64_t{1} << 36),
      axis("chase_stride", "bytes", "latency: between the chain's nodes (a multiple of 8)", {128}, 8,
           std::int64_t{1} << 30, 8),
      axis("remote_node", "switch",
           "1: the host memory on the NUMA node nearest the GPU's but not its own (another socket's); 0: the GPU's "
           "own",
           {0}, 0, 1)
          .added_later(0)},
     cases,
     {"Host <-> device: copy engine and SM over the link",
      {figure("copies over the link", "bytes", "bytes_per_second").log_x().model("model_bytes_per_second"),
       figure("one thread chases host memory", "working_set", "latency_ns").log_x()},
      "",
      {},
      {check_case(CheckLevel::host_to_device, "bytes_per_second", at("host_to_device_memcpy_ce", kPinned64MiB)),
       check_case(CheckLevel::device_to_host, "bytes_per_second", at("device_to_host_memcpy_ce", kPinned64MiB)),
       check_case(CheckLevel::host_link_both_ways, "bytes_per_second", at("bidirectional_memcpy_ce", kPinned64MiB))}}}};

}  // namespace

}  // namespace membench::cases
