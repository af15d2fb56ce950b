//==============================================================================
// layout: array of structs against struct of arrays
//
// The hypothesis: with a 16-byte struct {x, y, z, w}, a warp's load of one field
// touches 16 sectors (lanes 16 bytes apart) where the SoA load touches 4.
// Reading every field, the later field loads of AoS hit the sectors the first
// one brought in, so both layouts move the same DRAM bytes (model
// dram_efficiency 1 vs 1). Reading only x, AoS drags the three unused fields
// through every sector: a quarter of the fetched bytes are useful
// (dram_efficiency 0.25).
//
// The DRAM model (dram_read_bytes, dram_write_bytes) adds the write side:
// AoS with fewer than four fields writes every sector only in part, so each
// output sector is also read from DRAM before it is written back. One field
// of AoS therefore moves 3 x 16 bytes of DRAM per 8 useful bytes, not 2 x 16:
// a sixth of the useful-byte rate of a DRAM-bound copy, where the sector model
// alone says a quarter.
//==============================================================================
#include <cstdint>

#include "cases/family.hpp"
#include "cases/planned.hpp"
#include "membench/layout.hpp"
#include "membench/platform/cuda.hpp"
#include "membench/platform/pattern.hpp"

namespace membench::cases {

namespace {

constexpr std::uint32_t kSeed = 0x4c;

CaseDefinition define(const LayoutConfig& c) {
  CaseDefinition d;
  d.input_elements = d.output_elements = kLayoutFields * c.n;
  d.seed = kSeed;
  const auto plan = planned<LayoutPlan>(c);
  d.bind = bind_plan(plan);
  d.expected = [c](std::size_t j) {
    return layout_field_of(c, j) < c.fields ? 2.0f * pattern_value(j, kSeed) : poison_value();
  };
  d.work.bytes = layout_bytes(c);
  d.work.model.push_back({"sectors_per_request", static_cast<double>(layout_sectors_per_request(c))});
  d.work.model.push_back({"dram_efficiency", layout_dram_efficiency(c)});
  const DramTraffic t = layout_dram_traffic(c);
  d.work.model.push_back({"dram_read_bytes", t.read_bytes});
  d.work.model.push_back({"dram_write_bytes", t.write_bytes});
  return d;
}

void cases(Family& f) {
  for (LayoutVariant v : kLayoutVariants.all()) {
    f.add(std::string(kLayoutVariants(v)), {"structs", "fields"}, {v == LayoutVariant::aos ? "aos_scale" : "soa_scale"},
          [v](const CaseArgs& a) {
            return define({v, a.size("structs"), a.integer("fields")});
          });
  }
}

// The counters of the study's first table, beside global's rows, that say why.
const std::vector<std::string> kWhy = {"sectors_per_request", "dram_efficiency"};

const Registrar registrar{
    {"layout",
     {axis("structs", "structs", "elements: structs of 4 floats, or 4 floats across the arrays",
           {std::int64_t{1} << 24}),
      axis_of<LayoutFieldCounts>("fields", "fields", "the first fields of {x, y, z, w} read and written", {4, 1})},
     cases,
     {"Layout: AoS vs SoA",
      {figure("each layout by the fields read", "fields", "bytes_per_second")
           .as_bars()
           .model_from({"the AoS all-fields rate x useful / modelled DRAM bytes",
                        at("aos", {{"fields", 4}}),
                        {"bytes"},
                        {"dram_read_bytes", "dram_write_bytes"}})},
      "the article's first table: an array of structs against a struct of arrays",
      {study_row(StudyTable::coalescing, "AoS, four fields",
                 at("aos", {{"structs", std::int64_t{1} << 24}, {"fields", 4}}))
           .article(922.31)
           .why(kWhy),
       study_row(StudyTable::coalescing, "SoA, four fields",
                 at("soa", {{"structs", std::int64_t{1} << 24}, {"fields", 4}}))
           .article(912.82)
           .why(kWhy)}}}};

}  // namespace

}  // namespace membench::cases
