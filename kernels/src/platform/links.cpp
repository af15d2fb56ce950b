// Link rates, and the NVML calls that tell a GPU's links. See links.hpp.
#include "membench/platform/links.hpp"

#include "membench/platform/arch_facts.hpp"
#include "membench/platform/nvml.hpp"

#include <cstdio>
#include <cstring>

namespace membench {

double pcie_bytes_per_second(int generation, int width) {
  static const double kGigatransfers[] = {0, 2.5, 5, 8, 16, 32, 64};
  if (generation < 1 || generation > 6 || width < 1) return 0;
  const double encoding = generation <= 2 ? 8.0 / 10 : generation <= 5 ? 128.0 / 130 : 242.0 / 256;
  return kGigatransfers[generation] * 1e9 * encoding * width / 8;
}

double nvlink_bytes_per_second(int cc_major, int cc_minor, int links) {
  return arch_value_or_zero(cc_major, cc_minor, Fact::nvlink_bytes_per_link) * links;
}

namespace {

struct PciFunction {
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  bool operator==(const PciFunction& o) const {
    return domain == o.domain && bus == o.bus && device == o.device && function == o.function;
  }
};

std::optional<PciFunction> parse_pci(const std::string& id) {
  PciFunction f;
  if (std::sscanf(id.c_str(), "%x:%x:%x.%x", &f.domain, &f.bus, &f.device, &f.function) != 4) return std::nullopt;
  return f;
}

constexpr unsigned kMaxNvlinks = 18;
constexpr int kRemoteSwitch = 2;  // NVML_NVLINK_DEVICE_TYPE_SWITCH

}  // namespace

bool same_pci_function(const std::string& a, const std::string& b) {
  const auto pa = parse_pci(a), pb = parse_pci(b);
  return pa && pb && *pa == *pb;
}

std::optional<PcieLink> pcie_link(const std::string& pci_bus_id, std::string* why) {
  const auto d = nvml::device_by_bus_id(pci_bus_id, why);
  if (!d) return std::nullopt;
  const nvml::Api& n = nvml::api();
  unsigned gen = 0, width = 0;
  if (n.max_pcie_gen == nullptr || n.max_pcie_width == nullptr || n.max_pcie_gen(*d, &gen) != 0 ||
      n.max_pcie_width(*d, &width) != 0 || gen == 0 || width == 0) {
    if (why != nullptr) *why = "NVML reports no PCIe link for " + pci_bus_id;
    return std::nullopt;
  }
  return PcieLink{static_cast<int>(gen), static_cast<int>(width),
                  pcie_bytes_per_second(static_cast<int>(gen), static_cast<int>(width))};
}

std::optional<NvlinkPath> nvlink_path(const std::string& from, const std::string& to, int cc_major, int cc_minor,
                                      std::string* why) {
  const auto d = nvml::device_by_bus_id(from, why);
  if (!d) return std::nullopt;
  const nvml::Api& n = nvml::api();
  if (n.nvlink_state == nullptr || n.nvlink_remote_pci == nullptr) {
    if (why != nullptr) *why = "this NVML cannot tell NVLinks";
    return std::nullopt;
  }
  NvlinkPath path;
  for (unsigned link = 0; link < kMaxNvlinks; ++link) {
    int active = 0;
    nvml::PciInfo remote{};
    if (n.nvlink_state(*d, link, &active) != 0 || active == 0) continue;
    // A link to an NVSwitch reaches every GPU on the fabric, the peer too.
    int type = -1;
    if (n.nvlink_remote_type != nullptr && n.nvlink_remote_type(*d, link, &type) == 0 && type == kRemoteSwitch) {
      ++path.links;
      ++path.switch_links;
      continue;
    }
    if (n.nvlink_remote_pci(*d, link, &remote) != 0 || !same_pci_function(remote.bus_id, to)) continue;
    ++path.links;
  }
  if (path.links == 0) {
    if (why != nullptr) *why = "NVML reports no active NVLink from " + from + " to " + to;
    return std::nullopt;
  }
  path.bytes_per_second = nvlink_bytes_per_second(cc_major, cc_minor, path.links);
  return path;
}

}  // namespace membench
