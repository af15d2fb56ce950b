//==============================================================================
// async: Global -> Shared copies, and when overlapping them with compute pays
//
// The hypothesis: a tile-by-tile pass through shared memory, loaded with plain
// loads (async/sync), cg::memcpy_async (one stage) or a cuda::pipeline of
// several stages that copies tile i + stages - 1 while tile i is computed.
// With no arithmetic every version is bound by DRAM and should run at the same
// speed; overlap can only pay when the compute phase (flops per element, a
// chain of dependent FMAs) costs about as much as the copy. The model:
// time ~ max(bytes / bandwidth, flops / FMA rate) with perfect overlap,
// their sum with none; flops_per_byte says where a case sits. async/bulk does
// the same with Hopper's bulk-copy engine (cp.async.bulk on an mbarrier),
// async/tma with its tensor-memory accelerator (2-D boxes): a producer warp
// issues whole tiles up to `stages` ahead, and the compute warps release each
// buffer on a barrier of its own, so no block-wide barrier stalls the copies.
// Every variant moves a thread's elements as 16-byte groups (8-byte in
// 512-float tiles). Occupancy (blocks_per_sm, registers, smem_per_block) is
// reported beside each case, so a difference between stage counts can be
// told from a difference in resident blocks. persistent:0 launches short
// blocks of a few tiles each (kAsyncShortTiles), started in order: each block
// still overlaps its own tiles, and its setup (barriers, the first copy's
// wait, for tma the tensor map's fetch) is spread over them. With one tile a
// block that setup is paid per tile, which costs tma the most.
//==============================================================================
#include <cstdint>
#include <string>

#include "cases/family.hpp"
#include "membench/async.hpp"
#include "membench/platform/cuda.hpp"
#include "membench/platform/pattern.hpp"

namespace membench::cases {

namespace {

constexpr std::uint32_t kSeed = 0x41;

CaseDefinition define(const AsyncConfig& c, const DeviceInfo& gpu) {
  std::string why;
  if (!async_config_supported(c, &why) || !async_variant_available(c.variant, &why)) throw CaseSkipped(why);
  if (async_smem_bytes(c) > gpu.smem_per_block_optin)
    throw CaseSkipped("needs " + std::to_string(async_smem_bytes(c)) +
                      " bytes of shared memory per block; the device allows " +
                      std::to_string(gpu.smem_per_block_optin));
  CaseDefinition d;
  d.input_elements = d.output_elements = c.n;
  d.seed = kSeed;
  // Planned for the buffers: tma's tensor map points at the input.
  d.bind = [c](const CaseBuffers& buffers, cudaStream_t, BoundLaunch* bound) {
    const float* in = buffers.input<float>();
    AsyncPlan plan;
    if (const cudaError_t rc = membench::plan(c, in, &plan); rc != cudaSuccess) return rc;
    bound->shape = plan.shape;
    bound->run = [plan, in, out = buffers.output<float>()](cudaStream_t s) { return launch(plan, in, out, s); };
    return cudaSuccess;
  };
  d.expected = [c](std::size_t i) { return async_reference(pattern_value(i, kSeed), c.flops); };
  d.work.bytes = async_bytes(c);
  d.work.flops = async_flops(c);
  // Every element is read and written once, coalesced.
  d.work.model.push_back({"dram_read_bytes", d.work.bytes / 2});
  d.work.model.push_back({"dram_write_bytes", d.work.bytes / 2});
  return d;
}

AsyncConfig config(AsyncVariant v, const CaseArgs& a, int stages) {
  return {v, a.size("n"), a.integer("tile"), stages, a.integer("flops"), a["persistent"] == 1};
}

void cases(Family& f) {
  for (AsyncVariant v : kAsyncVariants.all()) {
    const std::string name(kAsyncVariants(v));
    const std::vector<std::string> kernels{"async_" + name};
    if (async_multi_stage(v))
      f.add(name, {"n", "tile", "stages", "flops", "persistent"}, kernels,
            [v](const CaseArgs& a) { return define(config(v, a, a.integer("stages")), a.device()); });
    else
      f.add(name, {"n", "tile", "flops", "persistent"}, kernels,
            [v](const CaseArgs& a) { return define(config(v, a, 1), a.device()); });
  }
}

// The counters of the study's third table that say why a stage costs.
const std::vector<std::string> kWhy = {"blocks_per_sm", "registers"};

const Registrar registrar{
    {"async",
     {axis("n", "floats", "elements of each array", {std::int64_t{1} << 26}),
      axis_of<AsyncTiles>("tile", "floats", "floats per tile", {1024}),
      axis_of<AsyncStages>("stages", "tiles", "pipeline, bulk, tma: tiles in flight", {1, 2, 3, 4}),
      // An element moves 8 bytes (read, written): flops_per_byte = flops / 8,
      // 0 to 64 FLOP/B, below, about and above a Hopper's fp32 ridge (14 to 21).
      axis("flops", "flops", "floating-point operations per element (even; flops_per_byte = flops / 8)",
           {0, 16, 64, 128, 256, 512}, 0, kAsyncMaxFlops, 2),
      axis("persistent", "switch",
           "1 = a resident grid striding over the tiles, 0 = short blocks of " + std::to_string(kAsyncShortTiles) +
               " tiles",
           {1}, 0, 1)
          .added_later(1)},
     cases,
     {"Async copy: sync vs memcpy_async vs pipeline vs bulk vs tma",
      {figure("by the tiles in flight (the best tile)", "stages", "bytes_per_second")
           .best_over({"tile"})
           .only({"pipeline", "bulk", "tma"}),
       figure("where overlap pays (the best tile and stages)", "flops", "bytes_per_second")
           .best_over({"tile", "stages"}),
       figure("on this GPU's measured roofline (the best tile and stages)", "flops", "gflops_per_second")
           .best_over({"tile", "stages"})
           .on_roofline("fp32 FMA")},
      "the article's third table: sync against memcpy_async against cuda::pipeline",
      {study_row(
           StudyTable::async_copy, "sync",
           at("sync", {{"n", std::int64_t{1} << 26}, {"tile", std::int64_t{1} << 10}, {"flops", 0}, {"persistent", 1}}))
           .article(901.43)
           .why(kWhy),
       study_row(StudyTable::async_copy, "memcpy_async, one stage",
                 at("memcpy_async",
                    {{"n", std::int64_t{1} << 26}, {"tile", std::int64_t{1} << 10}, {"flops", 0}, {"persistent", 1}}))
           .article(898.00)
           .why(kWhy),
       study_row(StudyTable::async_copy, "pipeline, 3 stages",
                 at("pipeline", {{"n", std::int64_t{1} << 26},
                                 {"tile", std::int64_t{1} << 10},
                                 {"stages", 3},
                                 {"flops", 0},
                                 {"persistent", 1}}))
           .article(856.55)
           .why(kWhy)}}}};

}  // namespace

}  // namespace membench::cases
