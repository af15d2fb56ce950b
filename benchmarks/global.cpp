//==============================================================================
// global: coalescing, stride and access width
//
// The hypothesis: the 32 threads of a warp that read 32 consecutive floats are
// served by 4 sectors of 32 bytes; spread them `stride` floats apart and the
// warp needs min(32, 4 x stride) sectors for the same 128 useful bytes. The
// model (sectors_per_request, dram_efficiency = useful / fetched sector bytes)
// predicts effective bandwidth falling as 1 / stride until stride 8, where
// every lane has a sector of its own, and flat after.
//
// What DRAM really moves is a second model (dram_read_bytes,
// dram_write_bytes): a read miss fetches 64 bytes, so from stride 16 a lone
// float costs twice its sector; and a sector the kernel writes only in part
// is read from DRAM before it is written back, so every strided store costs
// a read too. Both strided geometries run: `strided` launches ceil(n / stride)
// threads, `strided_full_grid` n threads, of which all but
// 1 / stride exit at once (they still cost scheduling).
//
// global/vectorized asks the second question: an HBM part needs more bytes in
// flight per thread than one float, so float2/float4 accesses and several
// independent loads per thread (ilp) should close the gap to cudaMemcpy
// (global/memcpy). persistent:1 strides a GPU-filling grid over the array (the
// textbook grid-stride loop); persistent:0 launches one trip per thread.
//
// global/broadcast is the exception coalescing names: every lane of a warp
// reads the same address (its warp's first element), which one sector serves
// (sectors_per_request 1); its useful bytes are what the warps need, one
// float a warp read and every float written, against what DRAM moves: one
// 64-byte unit per warp read and the whole output written.
//
// global/misaligned reads from `offset` floats past an aligned start: a
// warp's 128 bytes then straddle a fifth sector unless the offset is a whole
// sector (8 floats), 5 sectors for 4 sectors' bytes; DRAM moves the same.
// global/strided_readonly and global/strided_texture run the strided read
// through the read-only data path (ld.global.nc) and a texture object. The
// hypothesis, against the folklore that such a path makes a strided access
// safe: both fetch the same 32-byte sectors from the L2 (l2_read_bytes) and
// DRAM as plain loads do, so the bytes moved, and the time, stay.
//==============================================================================
#include <cstdint>
#include <memory>
#include <string>

#include "cases/family.hpp"
#include "cases/planned.hpp"
#include "membench/global.hpp"
#include "membench/platform/cuda.hpp"
#include "membench/platform/pattern.hpp"

namespace membench::cases {

namespace {

constexpr std::uint32_t kSeed = 0x61;

bool is_strided_read(GlobalVariant v) {
  return v == GlobalVariant::strided || v == GlobalVariant::strided_readonly || v == GlobalVariant::strided_texture;
}

// A texture case's launch: its texture object, made once over the case's input.
auto bind_texture(const GlobalPlan& plan) {
  return [plan](const CaseBuffers& buffers, cudaStream_t, BoundLaunch* bound) {
    auto texture = std::make_shared<const FloatTexture>(buffers.input<float>(), plan.config.n);
    bound->shape = plan.shape;
    bound->run = [plan, texture, out = buffers.output<float>()](cudaStream_t s) {
      return launch(plan, *texture, out, s);
    };
    return cudaSuccess;
  };
}

CaseDefinition define(const GlobalConfig& c) {
  CaseDefinition d;
  d.input_elements = global_input_floats(c);
  d.output_elements = c.n;
  d.seed = kSeed;
  const auto plan = planned<GlobalPlan>(c);
  if (std::string why; c.variant == GlobalVariant::strided_texture && !texture_holds(c.n, &why)) throw CaseSkipped(why);
  if (c.variant == GlobalVariant::strided_texture)
    d.bind = bind_texture(plan);
  else
    d.bind = bind_plan(plan);
  d.expected = [c](std::size_t i) {
    return global_writes(c, i) ? global_reference(c, pattern_value(global_source(c, i), kSeed)) : poison_value();
  };
  // Captured in a CUDA graph, a large device-to-device copy becomes a
  // copy-engine node, which is not what a stream copy does; memcpy batches
  // stay on the stream.
  d.graphable = c.variant != GlobalVariant::memcpy;
  d.work.bytes = global_bytes(c);
  const int access = global_access_bytes(c);
  const std::size_t lane_stride = global_lane_stride_bytes(c);
  // The copy's access pattern is the driver's; a texture's loads are not the LSU's.
  if (c.variant != GlobalVariant::memcpy && c.variant != GlobalVariant::strided_texture)
    d.work.model.push_back({"sectors_per_request", static_cast<double>(global_sectors_per_request(c))});
  if (is_strided_read(c.variant)) d.work.model.push_back({"l2_read_bytes", global_l2_read_bytes(c)});
  // A broadcast's sector holds one useful float for the whole warp: 4 of its 32 bytes.
  const double efficiency = c.variant == GlobalVariant::memcpy      ? 1.0
                            : c.variant == GlobalVariant::broadcast ? 4.0 / 32.0
                                                                    : request_efficiency(access, lane_stride);
  d.work.model.push_back({"dram_efficiency", efficiency});
  const DramTraffic t = global_dram_traffic(c);
  d.work.model.push_back({"dram_read_bytes", t.read_bytes});
  d.work.model.push_back({"dram_write_bytes", t.write_bytes});
  return d;
}

GlobalConfig strided(GlobalVariant v, const CaseArgs& a) {
  GlobalConfig c{v, a.size("n")};
  c.stride = a.size("stride");
  return c;
}

void cases(Family& f) {
  f.add("coalesced", {"n"}, {"coalesced_scale"}, [](const CaseArgs& a) {
    return define({GlobalVariant::coalesced, a.size("n")});
  });
  f.add("strided", {"n", "stride"}, {"strided_scale"},
        [](const CaseArgs& a) { return define(strided(GlobalVariant::strided, a)); });
  f.add("strided_full_grid", {"n", "stride"}, {"strided_scale"},
        [](const CaseArgs& a) { return define(strided(GlobalVariant::strided_full_grid, a)); });
  f.add("vectorized", {"n", "vec", "ilp", "persistent"}, {"vectorized_scale"}, [](const CaseArgs& a) {
    GlobalConfig c{GlobalVariant::vectorized, a.size("n")};
    c.vec = a.integer("vec");
    c.ilp = a.integer("ilp");
    c.persistent = a["persistent"] == 1;
    return define(c);
  });
  f.add("memcpy", {"n"}, {}, [](const CaseArgs& a) { return define({GlobalVariant::memcpy, a.size("n")}); });
  f.add("broadcast", {"n"}, {"broadcast_scale"}, [](const CaseArgs& a) {
    return define({GlobalVariant::broadcast, a.size("n")});
  });
  f.add("misaligned", {"n", "offset"}, {"coalesced_scale"}, [](const CaseArgs& a) {
    GlobalConfig c{GlobalVariant::misaligned, a.size("n")};
    c.offset = a.size("offset");
    return define(c);
  });
  f.add("strided_readonly", {"n", "stride"}, {"strided_readonly_scale"},
        [](const CaseArgs& a) { return define(strided(GlobalVariant::strided_readonly, a)); });
  f.add("strided_texture", {"n", "stride"}, {"strided_texture_scale"},
        [](const CaseArgs& a) { return define(strided(GlobalVariant::strided_texture, a)); });
}

// The counters of the study's first table that say why.
const std::vector<std::string> kWhy = {"sectors_per_request", "dram_efficiency"};
// What a case would reach if its modelled DRAM bytes moved at memcpy's rate:
// the rate a strided read loses to the sectors it fetches and does not use.
const ModelFrom kDramModel{
    "memcpy's rate x useful / modelled DRAM bytes", at("memcpy"), {"bytes"}, {"dram_read_bytes", "dram_write_bytes"}};

const Registrar registrar{
    {"global",
     {axis("n", "floats", "elements of each array", {std::int64_t{1} << 24}),
      axis("stride", "floats", "strided variants: elements between neighbouring threads", {1, 2, 4, 8, 16, 32}, 1,
           std::int64_t{1} << 30),
      axis_of<VectorWidths>("vec", "floats", "vectorized: floats per access", {2, 4}),
      axis_of<IlpDepths>("ilp", "loads", "vectorized: independent loads in flight per thread", {1, 4}),
      axis("persistent", "switch", "vectorized: 1 = grid-stride over a resident grid, 0 = one trip per thread", {1, 0},
           0, 1)
          .added_later(1),  // before it, vectorized ran on a resident grid
      axis("offset", "floats", "misaligned: floats past an aligned start the reads begin", {0, 1, 4, 8}, 0,
           static_cast<std::int64_t>(kGlobalMaxOffset))},
     cases,
     {"Global memory: stride and size",
      {figure("strided reads: two launch geometries, two read paths", "stride", "bytes_per_second")
           .log_x()
           .log_y()
           .only({"strided", "strided_full_grid", "strided_readonly", "strided_texture"})
           .model_from(kDramModel),
       figure("every other variant by n", "n", "bytes_per_second")
           .log_x()
           .only({"coalesced", "vectorized", "memcpy", "broadcast", "misaligned"})
           .across({"dram_peak_bytes_per_second"})},
      "the article's first table: coalesced against strided reads, and the sectors a warp request touches",
      {study_row(StudyTable::coalescing, "coalesced", at("coalesced", {{"n", std::int64_t{1} << 24}}))
           .article(925.31)
           .why(kWhy),
       study_row(StudyTable::coalescing, "stride 2 (the article's launch: n threads)",
                 at("strided_full_grid", {{"n", std::int64_t{1} << 24}, {"stride", 2}}))
           .article(427.34)
           .why(kWhy),
       study_row(StudyTable::claims, "every lane of a warp one address: one sector, half the DRAM reads",
                 at("broadcast", {{"n", std::int64_t{1} << 24}}))
           .why({"sectors_per_request", "dram_read_bytes"})
           .beside(at("coalesced", {{"n", std::int64_t{1} << 24}})),
       study_row(StudyTable::claims, "a start one float past alignment: a fifth sector a request",
                 at("misaligned", {{"n", std::int64_t{1} << 24}, {"offset", 1}}))
           .why({"sectors_per_request"})
           .beside(at("misaligned", {{"n", std::int64_t{1} << 24}, {"offset", 0}})),
       study_row(StudyTable::claims, "misconception: the read-only path makes a strided read safe (stride 8)",
                 at("strided_readonly", {{"n", std::int64_t{1} << 24}, {"stride", 8}}))
           .why({"l2_read_bytes", "dram_read_bytes"})
           .beside(at("strided", {{"n", std::int64_t{1} << 24}, {"stride", 8}})),
       study_row(StudyTable::claims, "misconception: the texture path makes a strided read safe (stride 8)",
                 at("strided_texture", {{"n", std::int64_t{1} << 24}, {"stride", 8}}))
           .why({"l2_read_bytes", "dram_read_bytes"})
           .beside(at("strided", {{"n", std::int64_t{1} << 24}, {"stride", 8}}))}}}};

}  // namespace

}  // namespace membench::cases
