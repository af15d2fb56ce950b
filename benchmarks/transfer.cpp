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
// needs enough bytes in flight to cover the link's latency. Pageable copies
// do not settle: the staging runs on a CPU thread the GPU's clock cannot
// see, so their time per launch varies with the host's scheduling and
// memory, and they stay noisy = 1 however long they run; the gates judge
// them untrusted and the CI sweep leaves them out.
//==============================================================================
#include <cstdint>
#include <memory>

#include "cases/copy_case.hpp"
#include "cases/family.hpp"
#include "membench/cuda.hpp"
#include "membench/links.hpp"
#include "membench/pattern.hpp"
#include "membench/transfer.hpp"

namespace membench::cases {

namespace {

constexpr std::uint32_t kSeed = 0x7F;

// The link model: model_bytes_per_second and the link's generation and width.
void add_link_model(Work& w, int directions) {
  std::string why;
  const auto link = pcie_link(session_device().pci_bus_id, &why);
  if (!link) {
    w.peak_bytes_per_second = -1;  // no model: no pct_of_peak
    return;
  }
  w.peak_bytes_per_second = link->bytes_per_second * directions;
  w.model.push_back({"model_bytes_per_second", w.peak_bytes_per_second});
  w.model.push_back({"link_generation", static_cast<double>(link->generation)});
  w.model.push_back({"link_width", static_cast<double>(link->width)});
}

CaseDefinition define(const TransferConfig& c) {
  std::shared_ptr<const TransferHostSide> host;
  try {
    host = std::make_shared<const TransferHostSide>(c, kSeed);
  } catch (const CudaError& e) {
    throw CaseSkipped(std::string("cannot allocate the host memory: ") + e.what());
  } catch (const std::bad_alloc&) {
    throw CaseSkipped("cannot allocate the host memory");
  }
  const CopyOperation op = transfer_operation(c.variant);
  CaseDefinition d = copy_case(op, c.bytes, kSeed, host, host_engine_copy(c.bytes));
  add_link_model(d.work, op.directions());
  return d;
}

void cases(Family& f) {
  for (TransferVariant v : kTransferVariants.all()) {
    const std::string name(kTransferVariants(v));
    if (transfer_operation(v).uses_sm())
      f.add(name, {"bytes"}, {"copy_words"},
            [v](const CaseArgs& a) { return define({v, TransferHost::pinned, a.size("bytes")}); });
    else
      f.add(name, {"host", "bytes"}, {}, [v](const CaseArgs& a) {
        return define({v, static_cast<TransferHost>(a["host"]), a.size("bytes")});
      });
  }
}

const Registrar registrar{{"transfer",
                           {axis_named("host", "copy-engine cases: host memory", {"pinned", "pageable"}, {0, 1}),
                            axis("bytes", "bytes", "per direction (a multiple of 16)",
                                 {std::int64_t{4} << 10, std::int64_t{1} << 20, std::int64_t{64} << 20}, 16,
                                 std::int64_t{1} << 36, 16)},
                           cases}};

}  // namespace

}  // namespace membench::cases
