//==============================================================================
// managed: unified memory as the GPU sees it
//
// A kernel reads a buffer of cudaMallocManaged memory (or, for pageable,
// malloc'd system memory) page by page, a 4 KiB page per block-step, while
// its pages start where the variant puts them (managed.hpp): resident on
// the GPU, on the host and faulted over (fault, with the page-touch pattern
// touch: sequential, strided = one page in 16, random), prefetched by
// cudaMemPrefetchAsync inside the timed launch (prefetch), duplicated under
// cudaMemAdviseSetReadMostly after the host wrote them (read_mostly), read
// over the link under PreferredLocation host + AccessedBy GPU (remote), or
// written by the host and read by the GPU within each launch (ping_pong).
// Putting the pages back on the host between launches is enqueued outside
// the timing, so these cases are timed one launch at a time.
//
// bytes_per_second counts the bytes the kernel reads. The model: resident
// reads at the ceiling of the level that holds the buffer (model_level, as
// hierarchy/bandwidth: the L2 up to its size, then DRAM); every other
// variant is bound by the host link (PCIe, from NVML), ping_pong at half of
// it since each page crosses twice;
// model_migrated_bytes is what should move: the driver migrates a fault's
// memory in 64 KiB blocks at least, so every block holding a page read
// moves whole, once (twice for ping_pong), and none for resident and remote.
// The driver's own unified-memory counters, read through CUPTI over one
// more launch after the timing, check it:
// migrated_bytes (migrated_htod_bytes + migrated_dtoh_bytes), and
// gpu_fault_groups, the GPU page faults the driver handled together.
//
// The hypothesis: a fault costs far more than the bytes it moves, so fault
// stays well below the link where prefetch approaches it; a random touch
// defeats the driver's prefetching of neighbouring pages; strided, reading
// one page in 16, pays for all of them; and remote, which
// migrates nothing, reads at what the SMs reach over the link
// (transfer/host_to_device_memcpy_sm). Fault-driven cases do not settle: the
// driver's fault handling runs on the host, and they stay noisy = 1.
//==============================================================================
#include <algorithm>
#include <cstdint>
#include <memory>

#include "cases/family.hpp"
#include "cases/planned.hpp"
#include "membench/hierarchy.hpp"
#include "membench/managed.hpp"
#include "membench/platform/cuda.hpp"
#include "membench/platform/links.hpp"
#include "membench/platform/um_counters.hpp"

namespace membench::cases {

namespace {

constexpr std::uint32_t kSeed = 0x3D;

CaseDefinition define(const ManagedConfig& c, const DeviceInfo& gpu) {
  std::string why;
  if (!managed_config_supported(c, &why) || !managed_variant_available(c.variant, gpu.ordinal, &why))
    throw CaseSkipped(why);
  std::shared_ptr<const ManagedBuffer> buffer;
  try {
    buffer = std::make_shared<const ManagedBuffer>(c, gpu.ordinal, kSeed);
  } catch (const CudaError& e) {
    throw CaseSkipped(std::string("cannot allocate the memory: ") + e.what());
  } catch (const std::bad_alloc&) { throw CaseSkipped("cannot allocate the host memory"); }
  const auto plan = planned<ManagedPlan>(c);
  CaseDefinition d;
  d.output_elements = plan.shape.grid;
  d.output_type = Element::f64;
  d.bind = [plan, buffer](const CaseBuffers& buffers, cudaStream_t, BoundLaunch* bound) {
    bound->shape = plan.shape;
    bound->run = [plan, buffer, partial = buffers.output<double>()](cudaStream_t s) {
      if (const cudaError_t rc = buffer->before_kernel(s); rc != cudaSuccess) return rc;
      return launch(plan, buffer->data(), partial, s);
    };
    if (buffer->has_before_each()) bound->before_each = [buffer](cudaStream_t s) { return buffer->before_each(s); };
    return cudaSuccess;
  };
  auto sums = std::make_shared<const std::vector<double>>(managed_page_sums(c, kSeed));
  d.expected_f64 = [c, sums, grid = plan.shape.grid](std::size_t b) {
    return managed_expected(c, *sums, grid, static_cast<unsigned>(b));
  };
  // A host function or a prefetch inside the launch: no graph.
  d.graphable = c.variant != ManagedVariant::prefetch && c.variant != ManagedVariant::ping_pong;
  // The driver's own count of one more launch, its pages put back first (not counted).
  auto scratch = std::make_shared<DeviceAllocation>(plan.shape.grid * sizeof(double));
  d.after_timing = [plan, buffer, scratch, device = gpu.ordinal](cudaStream_t s) {
    SelfMeasured out;
    MEMBENCH_CUDA(buffer->before_each(s));
    MEMBENCH_CUDA(cudaStreamSynchronize(s));
    std::string missing;
    const auto counts = count_unified_memory(
        device,
        [&] {
          if (const cudaError_t rc = buffer->before_kernel(s); rc != cudaSuccess) return rc;
          if (const cudaError_t rc = launch(plan, buffer->data(), scratch->as<double>(), s); rc != cudaSuccess)
            return rc;
          return cudaStreamSynchronize(s);
        },
        &missing);
    if (!counts) {
      out.unmeasured = "managed: the driver's unified-memory counters are not read: " + missing;
      return out;
    }
    out.counters = {{"migrated_bytes", counts->htod_bytes + counts->dtoh_bytes},
                    {"migrated_htod_bytes", counts->htod_bytes},
                    {"migrated_dtoh_bytes", counts->dtoh_bytes},
                    {"gpu_fault_groups", counts->gpu_fault_groups},
                    {"gpu_faults", counts->gpu_faults}};
    return out;
  };
  d.work.bytes = managed_read_bytes(c);
  // Every variant but resident crosses the host link or waits on the driver
  // (faults and prefetches it serves on the CPU, the host's writes, host
  // memory read in place): the host paces it.
  d.work.host_paced = c.variant != ManagedVariant::resident;
  // Resident: the level that holds the buffer (the L2 up to its size, then DRAM), as hierarchy/bandwidth.
  const Level level = std::max(level_holding(c.bytes, gpu).value_or(Level::l2), Level::l2);
  double model = -1;
  if (c.variant == ManagedVariant::resident) {
    d.work.model.push_back({"model_level", static_cast<double>(level)});
    std::string unknown;
    model = level_read_ceiling(level, gpu, &unknown).value_or(-1);
    if (model < 0) d.work.unknown.push_back("model_bytes_per_second: " + unknown);
  } else {
    const auto link = pcie_link(gpu.pci_bus_id, &why);
    model = !link ? -1 : c.variant == ManagedVariant::ping_pong ? link->bytes_per_second / 2 : link->bytes_per_second;
  }
  d.work.peak_bytes_per_second = model;
  if (model > 0) d.work.model.push_back({"model_bytes_per_second", model});
  d.work.model.push_back({"model_migrated_bytes", managed_migrated_bytes(c)});
  d.work.model.push_back({"link_bytes", managed_link_bytes(c)});
  d.work.model.push_back({"pages_read", static_cast<double>(managed_visited_pages(c))});
  return d;
}

void cases(Family& f) {
  for (ManagedVariant v : kManagedVariants.all()) {
    const std::string name(kManagedVariants(v));
    if (v == ManagedVariant::fault || v == ManagedVariant::pageable)
      f.add(name, {"touch", "bytes"}, {"managed_read"}, [v](const CaseArgs& a) {
        return define({v, static_cast<ManagedTouch>(a["touch"]), a.size("bytes")}, a.device());
      });
    else
      f.add(name, {"bytes"}, {"managed_read"}, [v](const CaseArgs& a) {
        return define({v, ManagedTouch::sequential, a.size("bytes")}, a.device());
      });
  }
}

const Registrar registrar{
    {"managed",
     {axis_named("touch", "the pages read and their order: all in order, one in 16, all at random", kManagedTouches,
                 {0, 1, 2}),
      axis("bytes", "bytes", "the buffer (a multiple of 4096)", {std::int64_t{32} << 20}, 16, std::int64_t{1} << 36,
           16)},
     cases,
     {"Unified memory: where the pages are when the GPU reads them",
      {figure("GB/s of the bytes the kernel reads", "bytes", "bytes_per_second")
           .log_x()
           .log_y()
           .model("model_bytes_per_second")},
      "",
      {}}}};

}  // namespace

}  // namespace membench::cases
