// Every GPU of the node at once: each copying to or from its own pinned host
// buffer (the host's links shared by all), or each writing to every other
// (all-to-all over NVLink), by its copy engines or by an SM kernel. Case
// names follow NVIDIA's nvbandwidth where it has the test.
//
// One launch starts every GPU's copies together, after what the conductor's
// stream holds, and makes that stream wait for the last of them: the
// conductor's clock times the node from the first start to the last end.
// Each GPU also records its own start and end, so its share can be read.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "membench/copy.hpp"
#include "membench/platform/int_list.hpp"

namespace membench {

enum class NodeVariant { all_to_host_ce, host_to_all_ce, all_to_all_ce, all_to_host_sm, host_to_all_sm, all_to_all_sm };
inline constexpr auto kNodeVariants =
    enum_names<NodeVariant>("all_to_host_memcpy_ce", "host_to_all_memcpy_ce", "all_to_all_memcpy_write_ce",
                            "all_to_host_memcpy_sm", "host_to_all_memcpy_sm", "all_to_all_memcpy_write_sm");

struct NodeConfig {
  NodeVariant variant = NodeVariant::all_to_host_ce;
  std::size_t bytes = 0;  // per copy, a multiple of 16
};

// Where each GPU's copies go: its own host buffer, or every other GPU.
inline bool node_to_peers(NodeVariant v) { return v == NodeVariant::all_to_all_ce || v == NodeVariant::all_to_all_sm; }
inline bool node_uses_sm(NodeVariant v) { return static_cast<int>(v) >= static_cast<int>(NodeVariant::all_to_host_sm); }
inline bool node_comes_in(NodeVariant v) {
  return v == NodeVariant::host_to_all_ce || v == NodeVariant::host_to_all_sm;
}

// Copies one GPU makes in one launch: one (to or from the host), or one to
// each other GPU.
int node_copies_per_device(NodeVariant v, int devices);
// Bytes one launch moves, all GPUs together.
double node_bytes(const NodeConfig& c, int devices);
// Whether the case runs from `conductor` with `visible` GPUs; otherwise why
// not. It needs two GPUs, and runs once per node, from device 0.
bool node_supported(const NodeConfig& c, int conductor, int visible, std::string* why);

// The links a GPU writes to the others through: its links to NVSwitches
// once (each reaches every peer) and its direct links to each peer.
// `links[j]` and `switch_links[j]`: the NVLink path to GPU j (0 for itself).
int node_egress_links(const std::vector<int>& links, const std::vector<int>& switch_links);

class Event;
class HostBuffer;

// The buffers, streams and events of every GPU of a node-wide case: each
// source holds the float pattern with seed + its device, each destination
// starts poisoned.
class NodeCopy {
 public:
  NodeCopy(const NodeConfig& c, int devices, std::uint32_t seed);
  ~NodeCopy();
  NodeCopy(const NodeCopy&) = delete;
  NodeCopy& operator=(const NodeCopy&) = delete;

  // Every GPU's copies, all started after what `stream` (a stream of the
  // conductor, device 0) holds; `stream` then waits for the last. Never
  // synchronizes; leaves the current device as it was.
  cudaError_t launch(cudaStream_t stream) const;
  // Every destination against its source's pattern: empty when right.
  std::optional<std::string> check() const;
  // After a finished launch: each GPU's seconds from its start to its last copy's end.
  cudaError_t device_seconds(std::vector<double>* seconds) const;
  double device_bytes() const;  // what each GPU moves per launch
  int devices() const { return devices_; }

 private:
  struct Copy;
  struct Device;
  NodeConfig config_;
  int devices_;
  std::unique_ptr<Event> kick_;  // of the conductor: every copy starts after it
  std::vector<std::unique_ptr<Device>> gpus_;
};

}  // namespace membench
