//==============================================================================
// node: every GPU of the node at once
//
// all_to_host / host_to_all: each visible GPU copies `bytes` to or from its
// own pinned host buffer, all at once, by its copy engine or by an SM kernel
// through mapped memory; the host's links and memory are shared by all.
// all_to_all_memcpy_write: each GPU writes `bytes` to every other GPU at
// once (N x (N-1) copies, each on its own stream). The names follow
// nvbandwidth's where it has the test.
//
// bytes_per_second is the node's: every byte moved over the time from the
// first copy's start to the last one's end, on device 0's clock. Then each
// GPU's own rate, device<i>_bytes_per_second (its bytes over its own start
// to end, the median of a few launches), and their sum,
// sum_of_devices_bytes_per_second, which is how nvbandwidth sums a node (it
// counts a GPU that finished early at its own rate).
//
// The model, model_bytes_per_second: host copies, the sum of each GPU's
// PCIe link per direction (no API reports what the host's root complexes
// and memory allow, so the sum is a ceiling); all-to-all, the sum of each
// GPU's NVLink egress: its links to NVSwitches once, as each reaches every
// peer, plus its direct links to each peer. The hypothesis: host copies
// reach each link's rate when the GPUs hang off separate root ports, and
// all-to-all writes reach each GPU's NVLink rate.
//
// The cases run only from device 0 of two or more visible GPUs (a run per
// device, or one process per GPU, would measure the node once per GPU).
//==============================================================================
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cases/family.hpp"
#include "membench/node.hpp"
#include "membench/platform/arch_facts.hpp"
#include "membench/platform/cuda.hpp"
#include "membench/platform/links.hpp"

namespace membench::cases {

namespace {

constexpr std::uint32_t kSeed = 0x5A;
constexpr int kShareLaunches = 5;

// model_bytes_per_second: every GPU's link to the host, or its NVLink egress.
void add_link_model(Work& w, const NodeConfig& c, int devices) {
  std::vector<DeviceInfo> gpus;
  for (int i = 0; i < devices; ++i) gpus.push_back(query_device(i));
  double sum = 0;
  for (int i = 0; i < devices; ++i) {
    std::string why;
    if (!node_to_peers(c.variant)) {
      const auto link = pcie_link(gpus[i].pci_bus_id, &why);
      if (!link) return;  // no model: no pct_of_peak
      sum += link->bytes_per_second;
      continue;
    }
    std::vector<int> links(devices, 0), switch_links(devices, 0);
    for (int j = 0; j < devices; ++j) {
      if (j == i) continue;
      if (const auto path =
              nvlink_path(gpus[i].pci_bus_id, gpus[j].pci_bus_id, gpus[i].cc_major, gpus[i].cc_minor, &why)) {
        links[j] = path->links;
        switch_links[j] = path->switch_links;
      }
    }
    const int egress = node_egress_links(links, switch_links);
    if (egress == 0) return;
    if (i == 0) w.model.push_back({"nvlink_links", static_cast<double>(egress)});
    const double rate = nvlink_bytes_per_second(gpus[i].cc_major, gpus[i].cc_minor, egress);
    if (rate == 0) {
      w.unknown.push_back("model_bytes_per_second: " +
                          unknown_fact(gpus[i].cc_major, gpus[i].cc_minor, Fact::nvlink_bytes_per_link));
      return;
    }
    sum += rate;
  }
  w.peak_bytes_per_second = sum;
  w.model.push_back({"model_bytes_per_second", sum});
}

// Each GPU's rate over its own start and end: the median of a few launches.
std::vector<ModelCounter> shares(const NodeCopy& node, cudaStream_t stream) {
  std::vector<std::vector<double>> seconds(node.devices());
  std::vector<double> once;
  for (int k = 0; k < kShareLaunches; ++k) {
    MEMBENCH_CUDA(node.launch(stream));
    MEMBENCH_CUDA(cudaStreamSynchronize(stream));
    MEMBENCH_CUDA(node.device_seconds(&once));
    for (int i = 0; i < node.devices(); ++i) seconds[i].push_back(once[i]);
  }
  std::vector<ModelCounter> out;
  double sum = 0;
  for (int i = 0; i < node.devices(); ++i) {
    std::vector<double>& s = seconds[i];
    std::nth_element(s.begin(), s.begin() + s.size() / 2, s.end());
    const double rate = s[s.size() / 2] > 0 ? node.device_bytes() / s[s.size() / 2] : 0;
    out.push_back({"device" + std::to_string(i) + "_bytes_per_second", rate});
    sum += rate;
  }
  out.push_back({"sum_of_devices_bytes_per_second", sum});
  return out;
}

CaseDefinition define(const NodeConfig& c, const DeviceInfo& gpu) {
  int visible = 0;
  MEMBENCH_CUDA(cudaGetDeviceCount(&visible));
  std::string why;
  if (!node_supported(c, gpu.ordinal, visible, &why)) throw CaseSkipped(why);
  std::shared_ptr<const NodeCopy> node;
  try {
    node = std::make_shared<const NodeCopy>(c, visible, kSeed);
  } catch (const CudaError& e) {
    throw CaseSkipped(std::string("cannot allocate the buffers of every GPU: ") + e.what());
  } catch (const std::bad_alloc&) { throw CaseSkipped("cannot allocate the host memory"); }
  CaseDefinition d;  // no buffer of the runner's: every GPU's are the node's
  d.bind = [node](const CaseBuffers&, cudaStream_t, BoundLaunch* bound) {
    bound->run = [node](cudaStream_t s) { return node->launch(s); };
    return cudaSuccess;
  };
  d.check = [node] { return node->check(); };
  d.after_timing = [node](cudaStream_t s) { return SelfMeasured{shares(*node, s), {}}; };
  d.graphable = false;  // streams of several devices
  d.work.bytes = node_bytes(c, visible);
  d.work.model.push_back({"devices", static_cast<double>(visible)});
  d.work.peak_bytes_per_second = -1;
  // The host's side of the links (its root complexes and memory) paces copies to and from it.
  d.work.host_paced = c.variant != NodeVariant::all_to_all_ce && c.variant != NodeVariant::all_to_all_sm;
  add_link_model(d.work, c, visible);
  return d;
}

void cases(Family& f) {
  for (NodeVariant v : kNodeVariants.all())
    f.add(std::string(kNodeVariants(v)), {"bytes"},
          node_uses_sm(v) ? std::vector<std::string>{"copy_words"} : std::vector<std::string>{},
          [v](const CaseArgs& a) {
            return define({v, a.size("bytes")}, a.device());
          });
}

const Registrar registrar{
    {"node",
     {axis("bytes", "bytes", "per copy (a multiple of 16)", {std::int64_t{512} << 20}, 16, std::int64_t{1} << 36, 16)},
     cases,
     {"Every GPU at once: to and from the host, and all-to-all",
      {figure("every GPU at once, against the links' model", "variant", "bytes_per_second")
           .as_bars()
           .model("model_bytes_per_second")},
      "",
      {}}}};

}  // namespace

}  // namespace membench::cases
