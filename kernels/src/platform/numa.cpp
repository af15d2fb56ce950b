// Host NUMA nodes, a GPU's node, memory bound to a node. See numa.hpp.
#include "membench/platform/numa.hpp"

#include <linux/mempolicy.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <new>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace membench {

namespace {

std::optional<std::string> read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  return line;
}

std::vector<int> node_list_file(const std::string& sysfs, const char* name) {
  const auto line = read_line(sysfs + "/devices/system/node/" + name);
  return line ? parse_node_list(*line) : std::vector<int>{};
}

// "0000:1B:00.0" from "00000000:1B:00.0" or "0000:1b:00.0": sysfs's form, a
// four-digit domain, lower case.
std::string sysfs_bus_id(const std::string& id) {
  const auto colon = id.find(':');
  if (colon == std::string::npos) return id;
  std::string domain = id.substr(0, colon);
  if (domain.size() > 4) domain = domain.substr(domain.size() - 4);
  std::string out = domain + id.substr(colon);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

bool refuse(std::string* why, const std::string& reason) {
  if (why != nullptr) *why = reason;
  return false;
}

}  // namespace

std::vector<int> parse_node_list(const std::string& text) {
  std::vector<int> out;
  if (!text.empty() && text.back() == ',') return {};  // getline would not see the empty last part
  std::stringstream parts(text);
  for (std::string part; std::getline(parts, part, ',');) {
    int first = 0, last = 0;
    char dash = 0, extra = 0;
    std::istringstream in(part);
    if (!(in >> first) || first < 0) return {};
    last = first;
    if (in >> dash && (dash != '-' || !(in >> last) || last < first)) return {};
    if (in >> extra) return {};
    for (int n = first; n <= last; ++n) out.push_back(n);
  }
  return out;
}

std::string format_node_list(const std::vector<int>& nodes) {
  std::string out;
  for (std::size_t i = 0; i < nodes.size();) {
    std::size_t j = i;
    while (j + 1 < nodes.size() && nodes[j + 1] == nodes[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(nodes[i]);
    if (j > i) out += '-' + std::to_string(nodes[j]);
    i = j + 1;
  }
  return out;
}

std::vector<int> host_numa_nodes(const std::string& sysfs) {
  const std::vector<int> cpus = node_list_file(sysfs, "has_cpu"), memory = node_list_file(sysfs, "has_memory");
  std::vector<int> both;
  std::set_intersection(cpus.begin(), cpus.end(), memory.begin(), memory.end(), std::back_inserter(both));
  return both;
}

std::optional<int> pci_numa_node(const std::string& pci_bus_id, const std::string& sysfs) {
  const auto line = read_line(sysfs + "/bus/pci/devices/" + sysfs_bus_id(pci_bus_id) + "/numa_node");
  if (!line) return std::nullopt;
  std::istringstream in(*line);
  int node = -1;
  if (!(in >> node) || node < 0) return std::nullopt;
  return node;
}

std::optional<int> nearest_other_node(int node, const std::vector<int>& nodes, const std::string& sysfs) {
  // The distance row of `node`: its distance to node 0, 1, ... in turn.
  std::vector<int> distance;
  if (const auto line = read_line(sysfs + "/devices/system/node/node" + std::to_string(node) + "/distance")) {
    std::istringstream in(*line);
    for (int d; in >> d;) distance.push_back(d);
  }
  std::optional<int> best;
  int best_distance = std::numeric_limits<int>::max();
  for (int other : nodes) {
    if (other == node) continue;
    const int d = other < static_cast<int>(distance.size()) ? distance[static_cast<std::size_t>(other)]
                                                            : std::numeric_limits<int>::max() - 1;
    if (!best || d < best_distance) best = other, best_distance = d;
  }
  return best;
}

bool choose_host_node(bool remote, std::optional<int> gpu_node, const std::vector<int>& nodes, std::optional<int>* node,
                      std::string* why, const std::string& sysfs) {
  node->reset();
  if (nodes.empty()) {
    if (remote) return refuse(why, "this host lists no NUMA nodes (sysfs devices/system/node): no other node");
    return true;  // nothing to bind to: the kernel places the pages
  }
  if (nodes.size() == 1) {
    if (remote) return refuse(why, "one NUMA node with CPUs on this host: all its memory is the GPU's own");
    return true;  // the one node: nothing to choose, so nothing is bound (a container may not bind)
  }
  if (!gpu_node) return refuse(why, "the GPU's NUMA node is not known (sysfs numa_node of its PCI device is -1)");
  *node = remote ? nearest_other_node(*gpu_node, nodes, sysfs) : gpu_node;
  if (!*node) return refuse(why, "no NUMA node other than the GPU's " + std::to_string(*gpu_node));
  return true;
}

NodeMemory::NodeMemory(std::size_t bytes, std::optional<int> node) : bytes_(bytes) {
  if (bytes == 0) return;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  if (node) {
    constexpr std::size_t kMaskBits = 1024;
    unsigned long mask[kMaskBits / (8 * sizeof(unsigned long))] = {};
    const auto n = static_cast<std::size_t>(*node);
    if (n >= kMaskBits) {
      munmap(p, bytes);
      throw std::runtime_error("NUMA node " + std::to_string(*node) + " is past the " + std::to_string(kMaskBits) +
                               " a mask holds");
    }
    mask[n / (8 * sizeof(unsigned long))] |= 1UL << (n % (8 * sizeof(unsigned long)));
    if (syscall(SYS_mbind, p, bytes, MPOL_BIND, mask, kMaskBits, MPOL_MF_STRICT) != 0) {
      const int error = errno;
      munmap(p, bytes);
      throw std::runtime_error("cannot bind host memory to NUMA node " + std::to_string(*node) + ": " +
                               std::strerror(error) +
                               (error == EPERM ? " (a container binds memory only with CAP_SYS_NICE)" : ""));
    }
  }
  data_ = p;
}

NodeMemory::~NodeMemory() {
  if (data_ != nullptr) munmap(data_, bytes_);
}

NodeMemory::NodeMemory(NodeMemory&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

NodeMemory& NodeMemory::operator=(NodeMemory&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) munmap(data_, bytes_);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

std::vector<int> page_nodes(const void* p, std::size_t bytes, std::size_t stride_pages) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t step = page * std::max<std::size_t>(stride_pages, 1);
  std::vector<void*> pages;
  for (std::size_t at = 0; at < bytes; at += step) pages.push_back(const_cast<char*>(static_cast<const char*>(p)) + at);
  std::vector<int> status(pages.size(), -1);
  if (pages.empty()) return status;
  if (syscall(SYS_move_pages, 0, pages.size(), pages.data(), nullptr, status.data(), 0) != 0) return {};
  for (int& s : status)
    if (s < 0) s = -1;  // -ENOENT: not present; -EFAULT: not mapped
  return status;
}

}  // namespace membench
