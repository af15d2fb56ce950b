// Link rates, and the few NVML calls they need (opened with dlopen). See links.hpp.
#include "membench/links.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <mutex>
#include <type_traits>

namespace membench {

double pcie_bytes_per_second(int generation, int width) {
  static const double kGigatransfers[] = {0, 2.5, 5, 8, 16, 32, 64};
  if (generation < 1 || generation > 6 || width < 1) return 0;
  const double encoding = generation <= 2 ? 8.0 / 10 : generation <= 5 ? 128.0 / 130 : 242.0 / 256;
  return kGigatransfers[generation] * 1e9 * encoding * width / 8;
}

double nvlink_bytes_per_second(int cc_major, int links) {
  const double per_link = cc_major == 6 ? 20e9 : cc_major >= 7 && cc_major <= 9 ? 25e9 : cc_major >= 10 ? 50e9 : 0;
  return per_link * links;
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

// The NVML entry points used, with NVML's own types reduced to what the calls need.
struct Nvml {
  using Device = void*;
  struct PciInfo {  // nvmlPciInfo_t (the _v2 / _v3 layout)
    char bus_id_legacy[16];
    unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
  };
  int (*init)() = nullptr;
  int (*by_bus_id)(const char*, Device*) = nullptr;
  int (*max_gen)(Device, unsigned*) = nullptr;
  int (*max_width)(Device, unsigned*) = nullptr;
  int (*link_state)(Device, unsigned, int*) = nullptr;
  int (*link_remote)(Device, unsigned, PciInfo*) = nullptr;
  int (*remote_type)(Device, unsigned, int*) = nullptr;  // optional: 0 GPU, 2 NVSwitch
  std::string error;
};

const Nvml& nvml() {
  static Nvml n;
  static std::once_flag once;
  std::call_once(once, [] {
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      n.error = "NVML (libnvidia-ml.so.1) cannot be loaded";
      return;
    }
    auto get = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
      return fn != nullptr;
    };
    const bool all = get(n.init, "nvmlInit_v2") && get(n.by_bus_id, "nvmlDeviceGetHandleByPciBusId_v2") &&
                     get(n.max_gen, "nvmlDeviceGetMaxPcieLinkGeneration") &&
                     get(n.max_width, "nvmlDeviceGetMaxPcieLinkWidth") &&
                     get(n.link_state, "nvmlDeviceGetNvLinkState") &&
                     get(n.link_remote, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
    get(n.remote_type, "nvmlDeviceGetNvLinkRemoteDeviceType");  // older drivers lack it
    if (!all) n.error = "this NVML lacks a function the link model needs";
    else if (n.init() != 0) n.error = "nvmlInit failed";
  });
  return n;
}

std::optional<Nvml::Device> nvml_device(const std::string& bus_id, std::string* why) {
  const Nvml& n = nvml();
  Nvml::Device d = nullptr;
  if (!n.error.empty()) {
    if (why != nullptr) *why = n.error;
    return std::nullopt;
  }
  if (n.by_bus_id(bus_id.c_str(), &d) != 0) {
    if (why != nullptr) *why = "NVML does not know the GPU at " + bus_id;
    return std::nullopt;
  }
  return d;
}

constexpr unsigned kMaxNvlinks = 18;
constexpr int kRemoteSwitch = 2;  // NVML_NVLINK_DEVICE_TYPE_SWITCH

}  // namespace

bool same_pci_function(const std::string& a, const std::string& b) {
  const auto pa = parse_pci(a), pb = parse_pci(b);
  return pa && pb && *pa == *pb;
}

std::optional<PcieLink> pcie_link(const std::string& pci_bus_id, std::string* why) {
  const auto d = nvml_device(pci_bus_id, why);
  if (!d) return std::nullopt;
  unsigned gen = 0, width = 0;
  if (nvml().max_gen(*d, &gen) != 0 || nvml().max_width(*d, &width) != 0 || gen == 0 || width == 0) {
    if (why != nullptr) *why = "NVML reports no PCIe link for " + pci_bus_id;
    return std::nullopt;
  }
  return PcieLink{static_cast<int>(gen), static_cast<int>(width),
                  pcie_bytes_per_second(static_cast<int>(gen), static_cast<int>(width))};
}

std::optional<NvlinkPath> nvlink_path(const std::string& from, const std::string& to, int cc_major, std::string* why) {
  const auto d = nvml_device(from, why);
  if (!d) return std::nullopt;
  NvlinkPath path;
  for (unsigned link = 0; link < kMaxNvlinks; ++link) {
    int active = 0;
    Nvml::PciInfo remote{};
    if (nvml().link_state(*d, link, &active) != 0 || active == 0) continue;
    // A link to an NVSwitch reaches every GPU on the fabric, the peer too.
    int type = -1;
    if (nvml().remote_type != nullptr && nvml().remote_type(*d, link, &type) == 0 && type == kRemoteSwitch) {
      ++path.links;
      continue;
    }
    if (nvml().link_remote(*d, link, &remote) != 0 || !same_pci_function(remote.bus_id, to)) continue;
    ++path.links;
  }
  if (path.links == 0) {
    if (why != nullptr) *why = "NVML reports no active NVLink from " + from + " to " + to;
    return std::nullopt;
  }
  path.bytes_per_second = nvlink_bytes_per_second(cc_major, path.links);
  return path;
}

}  // namespace membench
