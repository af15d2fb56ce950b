// The links data crosses between host and GPU and between GPUs, and their
// theoretical rates: PCIe from the generation and width NVML reports (the
// most the device and the system allow, not the current state, which idles
// down), NVLink from the links NVML reports active between two GPUs and
// the per-link rate of the GPU's architecture (NVML's version numbering has
// changed between releases; the architecture fixes the NVLink generation). NVML (libnvidia-ml, part of the driver) is
// opened at run time, so a machine without it still runs the suite; the models are then absent, with the reason.
#pragma once

#include <optional>
#include <string>

namespace membench {

struct PcieLink {
  int generation = 0;
  int width = 0;                // lanes
  double bytes_per_second = 0;  // per direction, after line encoding
};

struct NvlinkPath {
  int links = 0;                // active links from one GPU to the other
  int switch_links = 0;         // of them, links to NVSwitches (shared by every peer)
  double bytes_per_second = 0;  // per direction
};

// Theoretical per-direction rates. PCIe: GT/s per lane x encoding (8b/10b
// up to gen 2, 128b/130b for gen 3-5, 242/256 flits for gen 6) x width / 8.
// NVLink: the architecture facts' rate per link and direction (0 where
// they have no source for the compute capability) x links.
double pcie_bytes_per_second(int generation, int width);
double nvlink_bytes_per_second(int cc_major, int cc_minor, int links);

// "0000:19:00.0" and "00000000:19:00.0" name the same function.
bool same_pci_function(const std::string& a, const std::string& b);

// The PCIe link of the GPU at this bus id (cudaDeviceGetPCIBusId's form);
// empty with `why` when NVML cannot tell.
std::optional<PcieLink> pcie_link(const std::string& pci_bus_id, std::string* why);
// The NVLinks from the GPU at `from` (of compute capability `cc_major`.`cc_minor`)
// to the GPU at `to`: links to it directly, or to NVSwitches (which reach
// every GPU of the fabric); empty with `why` when there are none or NVML
// cannot tell.
std::optional<NvlinkPath> nvlink_path(const std::string& from, const std::string& to, int cc_major, int cc_minor,
                                      std::string* why);

}  // namespace membench
