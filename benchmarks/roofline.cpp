//==============================================================================
// roofline: where each level of the hierarchy turns from bytes to FLOPs
//
// A resident grid reads a working set one level holds (dram: four times the
// L2 and at least 256 MiB; l2: a quarter of it; l1: 16 KiB a block, four
// blocks an SM; shared: the same 16 KiB copied into each block's shared
// memory) as 16-byte loads, and does `fmas` dependent fp32 multiply-adds on
// every float before summing it: 2 fmas FLOPs per 4 bytes loaded, so
// flops_per_byte = fmas / 2.
//
// The hypothesis, the roofline: a case runs at min(bandwidth x intensity,
// the FMA pipe's rate). At fmas 0 it measures the level's bandwidth; past the
// level's ridge point (the pipe's rate over the level's bandwidth) its
// GFLOP/s stop growing with fmas and sit at the compute/fp32 ceiling. The
// faster the level, the lower its ridge: the L1 and shared memory turn
// after a few FLOPs a byte, DRAM after tens. The model: the same min() from
// the theoretical peaks (the level's, and the FMA pipe's at the boost clock
// from the architecture facts), as model_bytes_per_second; the measured
// ceilings and the ridges they give are in the result file's roofs.
// Verified exactly: each thread's sum against the host's.
//==============================================================================
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "cases/family.hpp"
#include "cases/planned.hpp"
#include "membench/hierarchy.hpp"
#include "membench/platform/cuda.hpp"
#include "membench/roofline.hpp"

namespace membench::cases {

namespace {

constexpr std::uint32_t kSeed = 0x52;
constexpr std::size_t kMiB = std::size_t{1} << 20;

// The set a level holds on this GPU, in floats: DRAM's well past the L2, the L2's well inside it.
std::size_t working_set(RooflineLevel level, const DeviceInfo& gpu) {
  if (level == RooflineLevel::dram) return std::max<std::size_t>(256 * kMiB, 4 * gpu.l2_bytes + kMiB) / kMiB * kMiB / 4;
  if (level == RooflineLevel::l2) return std::max<std::size_t>(gpu.l2_bytes / 4 / kMiB, 1) * kMiB / 4;
  return 0;
}

// The level's theoretical read bandwidth, or -1 with why in `w.unknown`.
double level_peak(RooflineLevel level, const DeviceInfo& gpu, Work& w) {
  if (level == RooflineLevel::shared) return shared_peak(gpu, w);
  const Level held = level == RooflineLevel::dram ? Level::dram : level == RooflineLevel::l2 ? Level::l2 : Level::l1;
  std::string why;
  if (const auto peak = level_read_ceiling(held, gpu, &why)) {
    if (const auto fact = level_ceiling_fact(held))
      w.peak_assumed = arch_fact(gpu.cc_major, gpu.cc_minor, *fact)->basis == Basis::assumed;
    return *peak;
  }
  w.unknown.push_back("pct_of_peak: " + why);
  return -1;
}

CaseDefinition define(const RooflineConfig& c, const DeviceInfo& gpu) {
  const auto plan = planned<RooflinePlan>(c);
  CaseDefinition d;
  d.input_elements = roofline_input_floats(c);
  d.output_elements = roofline_shape(c).threads;
  d.output_type = Element::f64;
  d.seed = kSeed;
  d.bind = bind_plan<float, double>(plan);
  const auto reference = std::make_shared<const RooflineReference>(c, kSeed);
  d.expected_f64 = [reference](std::size_t t) { return (*reference)(t); };
  d.work.bytes = roofline_bytes(c);
  d.work.flops = roofline_flops(c);
  d.work.peak_bytes_per_second = level_peak(c.level, gpu, d.work);
  // The roofline from the theoretical peaks: the level's bandwidth, or the
  // FMA pipe's rate over the case's FLOPs a byte, whichever binds first.
  const auto fma = arch_fact(gpu.cc_major, gpu.cc_minor, Fact::fp32_fma_per_clock);
  if (d.work.peak_bytes_per_second > 0 && fma) {
    const double pipe = fma->value * 2 * gpu.sm_count * gpu.sm_clock_khz * 1e3;
    const double per_byte = d.work.flops / d.work.bytes;
    d.work.model.push_back({"model_bytes_per_second", per_byte > 0
                                                          ? std::min(d.work.peak_bytes_per_second, pipe / per_byte)
                                                          : d.work.peak_bytes_per_second});
  } else if (!fma) {
    d.work.unknown.push_back("model_bytes_per_second: " +
                             unknown_fact(gpu.cc_major, gpu.cc_minor, Fact::fp32_fma_per_clock));
  }
  return d;
}

void cases(Family& f) {
  for (RooflineLevel level : kRooflineLevels.all()) {
    const std::string name(kRooflineLevels(level));
    f.add(name, {"fmas"}, {"roofline_read"}, [level](const CaseArgs& a) {
      const DeviceInfo& gpu = a.device();
      return define({level, a.integer("fmas"), gpu.sm_count, working_set(level, gpu)}, gpu);
    });
  }
}

const Registrar registrar{
    {"roofline",
     {axis("fmas", "FMAs", "fp32 multiply-adds on each float loaded (flops_per_byte = fmas / 2)",
           {0, 1, 2, 4, 8, 16, 32, 64, 128, 256}, 0, kRooflineMaxFmas)},
     cases,
     {"Roofline: each level's bandwidth against the FMA pipe, by the arithmetic on each float loaded",
      {figure("each level on this GPU's measured roofline", "fmas", "gflops_per_second").on_roofline("fp32 FMA"),
       figure("GB/s by the multiply-adds on each float", "fmas", "bytes_per_second")
           .log_x()
           .log_y()
           .model("model_bytes_per_second")},
      "the study's ridge point (the RTX 4090's 81.9 FLOP/B from its datasheet) measured at every level of this GPU",
      {},
      {},
      {roof("DRAM", "bytes_per_second", at("dram", {{"fmas", 0}})),
       roof("L2", "bytes_per_second", at("l2", {{"fmas", 0}})), roof("L1", "bytes_per_second", at("l1", {{"fmas", 0}})),
       roof("shared memory", "bytes_per_second", at("shared", {{"fmas", 0}})),
       // The study's figures for its RTX 4090: 82.6 fp32 TFLOP/s over 1008 GB/s, 81.9 FLOP/B.
       datasheet_roof("fp32 FMA", "ops_per_second", "RTX 4090 (the study's datasheet figures)", 82.6e12),
       datasheet_roof("DRAM", "bytes_per_second", "RTX 4090 (the study's datasheet figures)", 1008e9)}}}};

}  // namespace

}  // namespace membench::cases
