// Where host memory lies on a host of several CPU sockets: its NUMA nodes,
// the node a GPU's PCIe slot hangs off, and host buffers bound to a node.
// A host copy's rate depends on the socket whose memory it uses (the other
// socket's memory is a hop further, over the link between the sockets), so
// a case binds its host buffers to a node it names, and reads back where
// the pages are rather than trusting the request. Linux's sysfs tells the
// nodes (/sys/devices/system/node) and a PCI device's node
// (/sys/bus/pci/devices/<bus id>/numa_node, -1 where the firmware gives
// none); the binding is mbind(2), the check move_pages(2).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace membench {

inline constexpr const char* kSysfs = "/sys";

// A sysfs node list ("0", "0-1", "0,2-3") as numbers; empty where it is not one.
std::vector<int> parse_node_list(const std::string& text);
// The numbers back as a list: {0, 1, 3} -> "0-1,3".
std::string format_node_list(const std::vector<int>& nodes);

// The nodes with both CPUs and memory: the host's sockets (a GPU's own
// memory, where it is a node, has no CPUs). Empty where sysfs does not say.
std::vector<int> host_numa_nodes(const std::string& sysfs = kSysfs);
// The node a PCI device (cudaDeviceGetPCIBusId's form, any domain width)
// is attached to; nullopt where sysfs names none.
std::optional<int> pci_numa_node(const std::string& pci_bus_id, const std::string& sysfs = kSysfs);
// The other node nearest to `node` by the host's distance table (the first
// listed among equals); nullopt where there is no other.
std::optional<int> nearest_other_node(int node, const std::vector<int>& nodes, const std::string& sysfs = kSysfs);

// The host node a case uses: the GPU's own (`remote` false) or the nearest
// other. False, with `why`, where the host has no such node; true with
// `node` empty where there is nothing to choose (one node, or none listed):
// the memory is then left unbound, where a container may not bind it.
// `gpu_node`: the GPU's node (not known: a host of one node does not need it).
bool choose_host_node(bool remote, std::optional<int> gpu_node, const std::vector<int>& nodes, std::optional<int>* node,
                      std::string* why, const std::string& sysfs = kSysfs);

// Anonymous host memory, its pages bound to a node before any touches them
// (or left to the kernel's policy: no node). Throws std::bad_alloc when the
// memory cannot be had, std::runtime_error when the binding is refused.
class NodeMemory {
 public:
  NodeMemory() = default;
  NodeMemory(std::size_t bytes, std::optional<int> node);
  ~NodeMemory();
  NodeMemory(NodeMemory&& other) noexcept;
  NodeMemory& operator=(NodeMemory&& other) noexcept;
  NodeMemory(const NodeMemory&) = delete;
  NodeMemory& operator=(const NodeMemory&) = delete;
  void* get() const { return data_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// The node of every `stride`-th touched page of [p, p + bytes), from the
// kernel (move_pages); a page not present reads as -1. Empty where the
// kernel cannot tell (no NUMA support).
std::vector<int> page_nodes(const void* p, std::size_t bytes, std::size_t stride_pages = 64);

}  // namespace membench
