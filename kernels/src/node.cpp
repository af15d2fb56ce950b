// Every GPU of a node at once. See node.hpp.
#include "membench/node.hpp"

#include <algorithm>
#include <cstring>

#include "membench/peer.hpp"
#include "membench/platform/cuda.hpp"
#include "membench/platform/numa.hpp"
#include "membench/platform/pattern.hpp"
#include "membench/platform/verify.hpp"
#include "membench/transfer.hpp"

namespace membench {

namespace {

// The host node of a GPU's own buffers: its PCIe slot's node (the only one
// on a host of one), or none where the host does not say.
std::optional<int> own_numa_node(int device) {
  char bus[32] = {};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, device) != cudaSuccess) return std::nullopt;
  std::optional<int> node;
  return choose_host_node(false, pci_numa_node(bus), host_numa_nodes(), &node, nullptr) ? node : std::nullopt;
}

}  // namespace

int node_copies_per_device(NodeVariant v, int devices) { return node_to_peers(v) ? std::max(devices - 1, 0) : 1; }

double node_bytes(const NodeConfig& c, int devices) {
  return static_cast<double>(c.bytes) * node_copies_per_device(c.variant, devices) * devices;
}

bool node_supported(const NodeConfig& c, int conductor, int visible, std::string* why) {
  auto refuse = [&](const std::string& reason) {
    if (why != nullptr) *why = reason;
    return false;
  };
  if (visible < 2) return refuse("needs two GPUs; " + std::to_string(visible) + " visible");
  if (conductor != 0)
    return refuse("a node-wide case runs once per node, from device 0 (this is device " + std::to_string(conductor) +
                  ")");
  if (c.bytes == 0 || c.bytes % 16 != 0) return refuse("bytes must be a positive multiple of 16");
  if (node_to_peers(c.variant))
    for (int i = 0; i < visible; ++i)
      for (int j = 0; j < visible; ++j) {
        int can = 0;
        if (i != j && (cudaDeviceCanAccessPeer(&can, i, j) != cudaSuccess || can == 0))
          return refuse("peer access from device " + std::to_string(i) + " to " + std::to_string(j) +
                        " is not possible");
      }
  return true;
}

int node_egress_links(const std::vector<int>& links, const std::vector<int>& switch_links) {
  int through_switches = 0, direct = 0;
  for (std::size_t j = 0; j < links.size(); ++j) {
    const int s = j < switch_links.size() ? switch_links[j] : 0;
    through_switches = std::max(through_switches, s);
    direct += links[j] - s;
  }
  return through_switches + direct;
}

// One copy of one GPU: its stream, its source and destination, and what
// the destination must then hold.
struct NodeCopy::Copy {
  int from = 0, to = 0;              // GPUs (the host end of a host copy is `from`'s own buffer)
  std::unique_ptr<HostBuffer> host;  // the host end, if any
  DeviceAllocation landing;          // a destination on a GPU
  const void* source = nullptr;
  void* destination = nullptr;
  std::uint32_t seed = 0;          // of the pattern the destination must hold
  std::unique_ptr<Stream> stream;  // of `from`
  std::unique_ptr<Event> done;     // of `from`: the copy's end
  CopyPlan plan;                   // the SM copy, planned on `from`
};

struct NodeCopy::Device {
  int ordinal = 0;
  DeviceAllocation source;  // what goes out, when it starts on this GPU
  std::unique_ptr<Event> start, end;
  std::vector<Copy> copies;
};

NodeCopy::NodeCopy(const NodeConfig& c, int devices, std::uint32_t seed) : config_(c), devices_(devices) {
  const NodeVariant v = c.variant;
  const std::size_t floats = c.bytes / sizeof(float);
  {
    DeviceScope conductor(0);
    kick_ = std::make_unique<Event>();
  }
  if (node_to_peers(v))
    for (int i = 0; i < devices; ++i)
      for (int j = i + 1; j < devices; ++j) MEMBENCH_CUDA(set_peer_access(i, j, true));
  for (int i = 0; i < devices; ++i) {
    auto gpu = std::make_unique<Device>();
    gpu->ordinal = i;
    DeviceScope scope(i);
    gpu->start = std::make_unique<Event>();
    gpu->end = std::make_unique<Event>();
    const std::uint32_t own = seed + static_cast<std::uint32_t>(i);
    if (!node_comes_in(v)) {
      gpu->source = DeviceAllocation(c.bytes);
      MEMBENCH_CUDA(launch_fill_pattern(gpu->source.as<float>(), floats, own, nullptr));
    }
    for (int k = 0; k < node_copies_per_device(v, devices); ++k) {
      Copy copy;
      copy.from = i;
      copy.to = node_to_peers(v) ? (i + 1 + k) % devices : i;
      copy.seed = own;
      copy.stream = std::make_unique<Stream>();
      copy.done = std::make_unique<Event>();
      if (node_uses_sm(v)) MEMBENCH_CUDA(plan(false, &copy.plan));
      if (node_to_peers(v)) {
        DeviceScope there(copy.to);
        copy.landing = DeviceAllocation(c.bytes);
        MEMBENCH_CUDA(launch_poison(copy.landing.get(), c.bytes, nullptr));
        MEMBENCH_CUDA(cudaDeviceSynchronize());
        copy.source = gpu->source.get();
        copy.destination = copy.landing.get();
      } else {
        // Mapped and portable: pinned for the copy engine, reachable by the SMs
        // at the same address; on the GPU's own NUMA node where the host says.
        copy.host = std::make_unique<HostBuffer>(HostMemory::mapped, c.bytes, own_numa_node(i));
        if (node_comes_in(v)) {
          fill_host_pattern(copy.host->host(), floats, own);
          copy.landing = DeviceAllocation(c.bytes);
          MEMBENCH_CUDA(launch_poison(copy.landing.get(), c.bytes, nullptr));
          copy.source = copy.host->device();
          copy.destination = copy.landing.get();
        } else {
          std::memset(copy.host->host(), kPoisonByte, c.bytes);
          copy.source = gpu->source.get();
          copy.destination = copy.host->device();
        }
      }
      gpu->copies.push_back(std::move(copy));
    }
    MEMBENCH_CUDA(cudaDeviceSynchronize());
    gpus_.push_back(std::move(gpu));
  }
}

NodeCopy::~NodeCopy() {
  // Streams and events go with their own device current.
  int previous = 0;
  cudaGetDevice(&previous);
  for (auto& gpu : gpus_) {
    cudaSetDevice(gpu->ordinal);
    cudaDeviceSynchronize();
    gpu.reset();
  }
  cudaSetDevice(0);
  kick_.reset();
  cudaSetDevice(previous);
}

cudaError_t NodeCopy::launch(cudaStream_t stream) const {
  int conductor = 0;
  if (const cudaError_t rc = cudaGetDevice(&conductor); rc != cudaSuccess) return rc;
  if (const cudaError_t rc = cudaEventRecord(kick_->get(), stream); rc != cudaSuccess) return rc;
  cudaError_t rc = cudaSuccess;
  auto step = [&rc](cudaError_t r) {
    if (rc == cudaSuccess) rc = r;
  };
  for (const auto& gpu : gpus_) {
    step(cudaSetDevice(gpu->ordinal));
    const cudaStream_t lead = gpu->copies.front().stream->get();
    step(cudaStreamWaitEvent(lead, kick_->get(), 0));
    step(cudaEventRecord(gpu->start->get(), lead));
    for (std::size_t k = 0; k < gpu->copies.size(); ++k) {
      const Copy& c = gpu->copies[k];
      const cudaStream_t s = c.stream->get();
      if (k > 0) step(cudaStreamWaitEvent(s, gpu->start->get(), 0));
      if (node_uses_sm(config_.variant)) {
        const CopyJob job{c.source, c.destination, config_.bytes};
        step(launch_copy(c.plan, job, nullptr, s));
      } else {
        step(cudaMemcpyAsync(c.destination, c.source, config_.bytes, cudaMemcpyDefault, s));
      }
      if (k > 0) {
        step(cudaEventRecord(c.done->get(), s));
        step(cudaStreamWaitEvent(lead, c.done->get(), 0));
      }
    }
    step(cudaEventRecord(gpu->end->get(), lead));
  }
  step(cudaSetDevice(conductor));
  for (const auto& gpu : gpus_) step(cudaStreamWaitEvent(stream, gpu->end->get(), 0));
  return rc;
}

std::optional<std::string> NodeCopy::check() const {
  const std::size_t floats = config_.bytes / sizeof(float);
  for (const auto& gpu : gpus_)
    for (const Copy& c : gpu->copies) {
      const std::uint32_t seed = c.seed;
      const auto expected = [seed](std::size_t i) { return pattern_value(i, seed); };
      const auto bad = c.host && !node_comes_in(config_.variant)
                           ? all_mismatches(c.host->host(), floats, expected)
                           : device_mismatches(static_cast<const float*>(c.destination), floats, expected);
      if (bad) {
        const std::string where = c.host ? node_comes_in(config_.variant)
                                               ? "device " + std::to_string(c.to)
                                               : "the host buffer of device " + std::to_string(c.from)
                                         : "device " + std::to_string(c.to) + " from device " + std::to_string(c.from);
        return describe(*bad, where);
      }
    }
  return std::nullopt;
}

cudaError_t NodeCopy::device_seconds(std::vector<double>* seconds) const {
  seconds->clear();
  for (const auto& gpu : gpus_) {
    float ms = 0;
    if (const cudaError_t rc = cudaEventElapsedTime(&ms, gpu->start->get(), gpu->end->get()); rc != cudaSuccess)
      return rc;
    seconds->push_back(ms * 1e-3);
  }
  return cudaSuccess;
}

double NodeCopy::device_bytes() const {
  return static_cast<double>(config_.bytes) * node_copies_per_device(config_.variant, devices_);
}

}  // namespace membench
