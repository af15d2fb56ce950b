//==============================================================================
// shared: bank conflicts, padding, swizzle, and the degree of conflict
//
// The hypothesis: shared memory has 32 banks of 4 bytes. A warp that writes a
// 32 x 32 tile by rows and reads it back by columns hits one bank 32 times
// (tile[tx][ty]: a word stride of 32), serialising the read 32-way; one
// float of padding per row (a stride of 33) or an XOR swizzle of the column
// index spreads the column over all 32 banks. The matrix kernels are
// dominated by their global traffic, so the conflict costs only part of the
// time; shared/conflict_degree isolates shared memory: every lane reads at a
// stride of S elements of 4, 8 or 16 bytes, and the model conflict_ways =
// gcd(S, 128 / width) predicts shared bandwidth = peak / conflict_ways
// (wide accesses are served 128 bytes per phase, so they conflict at most
// 16- and 8-way). A stride of 0 is the exception the bank model names: every
// lane reads the same word, which the banks broadcast (conflict_ways 1, where
// gcd(0, 32) would say 32), and the lanes are served together across phases:
// one wavefront, two for 16-byte loads, so a wide broadcast delivers twice the
// bytes of a conflict-free read of distinct words (wavefronts_per_request).
//
// shared/column_tile asks where padding does not help: the same column read
// of a tile of side 16, 32 or 64 by blocks of 128 threads. One float of
// padding turns the 32-way conflict of a 32- or 64-wide column into none; a
// pad of 32 is a stride of 64, as bad as none. A 16-wide tile puts two rows
// in a warp: its column read is 8-way, one float of padding leaves it
// two-way and makes the row stores two-way (store_conflict_ways), two
// floats fix the read but not the stores. And the pad is shared memory: a
// 64-wide tile with a pad of 32 holds 24 KiB a block, which lowers the
// blocks an SM holds (blocks_per_sm, beside every case).
//==============================================================================
#include <cstdint>
#include <string>

#include "cases/family.hpp"
#include "cases/planned.hpp"
#include "membench/platform/cuda.hpp"
#include "membench/shared.hpp"

namespace membench::cases {

namespace {

constexpr std::uint32_t kSeed = 0x53;

CaseDefinition define(const SharedConfig& c, const DeviceInfo& gpu) {
  CaseDefinition d;
  d.seed = kSeed;
  if (c.variant == SharedVariant::conflict_degree) {
    const std::size_t smem = conflict_smem_bytes(c.stride, c.width);
    if (smem > gpu.smem_per_block_optin)
      throw CaseSkipped("needs " + std::to_string(smem) + " bytes of shared memory per block; the device allows " +
                        std::to_string(gpu.smem_per_block_optin));
    d.work.peak_bytes_per_second = shared_peak(gpu, d.work);
    d.work.model.push_back({"wavefronts_per_request", static_cast<double>(conflict_wavefronts(c.stride, c.width))});
  }
  const auto plan = planned<SharedPlan>(c);
  d.input_elements = shared_input_floats(c);
  MEMBENCH_CUDA(shared_output_floats(c, &d.output_elements));
  d.bind = bind_plan(plan);
  d.expected = [c](std::size_t i) { return shared_reference(c, i, kSeed); };
  d.work.bytes = shared_bytes(c, plan.shape.grid);
  d.work.model.insert(d.work.model.begin(), {"conflict_ways", static_cast<double>(shared_conflict_ways(c))});
  if (c.variant == SharedVariant::column_tile)
    d.work.model.push_back({"store_conflict_ways", static_cast<double>(tile_store_conflict_ways(c))});
  return d;
}

SharedConfig matrix(SharedVariant v, const CaseArgs& a, int pad = 0) {
  if (a["side"] > kSharedMaxSide)
    throw CaseSkipped("matrix side " + std::to_string(a["side"]) + " exceeds the grid limit of " +
                      std::to_string(kSharedMaxSide));
  SharedConfig c{v, a.integer("side")};
  c.pad = pad;
  return c;
}

void cases(Family& f) {
  f.add("row", {"side"}, {"shared_row"},
        [](const CaseArgs& a) { return define(matrix(SharedVariant::row, a), a.device()); });
  f.add("column", {"side", "pad"}, {"shared_column"},
        [](const CaseArgs& a) { return define(matrix(SharedVariant::column, a, a.integer("pad")), a.device()); });
  f.add("column_tile", {"side", "tile_side", "pad"}, {"shared_column_tile"}, [](const CaseArgs& a) {
    SharedConfig c = matrix(SharedVariant::column_tile, a, a.integer("pad"));
    c.tile = a.integer("tile_side");
    if ((c.n + c.tile - 1) / c.tile > 65535)
      throw CaseSkipped("matrix side " + std::to_string(c.n) + " needs more than 65535 tiles of " +
                        std::to_string(c.tile) + " a side");
    return define(c, a.device());
  });
  f.add("swizzle", {"side"}, {"shared_swizzle"},
        [](const CaseArgs& a) { return define(matrix(SharedVariant::swizzle, a), a.device()); });
  f.add("conflict_degree", {"shared_stride", "width"}, {"conflict_degree"}, [](const CaseArgs& a) {
    SharedConfig c{SharedVariant::conflict_degree};
    c.stride = a.integer("shared_stride");
    c.width = a.integer("width");
    return define(c, a.device());
  });
}

std::vector<std::int64_t> zero_to(std::int64_t last) {
  std::vector<std::int64_t> v;
  for (std::int64_t s = 0; s <= last; ++s) v.push_back(s);
  return v;
}

const Registrar registrar{
    {"shared",
     {axis("side", "floats", "row, column, swizzle: side of the square matrix", {4096}),
      axis_of<SharedPads>("pad", "floats", "column, column_tile: padding per tile row", {0, 1}),
      axis_of<SharedTiles>("tile_side", "floats", "column_tile: the tile's side", {16, 32, 64}),
      axis("shared_stride", "accesses",
           "conflict_degree: accesses of `width` bytes between lanes (0: every lane the same word)", zero_to(33), 0,
           1024),
      axis_of<ConflictWidths>("width", "bytes", "conflict_degree: bytes per access", {4, 8, 16})},
     cases,
     {"Shared memory: bank conflicts",
      {figure("a 32 x 32 tile through shared memory", "variant", "bytes_per_second")
           .only({"row", "column", "swizzle"})
           .as_bars()
           .noted({"conflict_ways"}),
       figure("conflict_degree: the slowdown against stride 1", "shared_stride", "bytes_per_second")
           .log_y()
           .only({"conflict_degree"})
           .slowdown_against(at("conflict_degree", {{"shared_stride", 1}}))
           .model("conflict_ways"),
       figure("column_tile: the pad by tile side", "tile_side", "bytes_per_second")
           .only({"column_tile"})
           .as_bars()
           .noted({"conflict_ways", "blocks_per_sm"})},
      "the article's second table: a column read through shared memory, its 32-way conflict, and the [32][33] pad",
      {study_row(StudyTable::shared_memory, "row", at("row", {{"side", std::int64_t{1} << 12}}))
           .article(879.49)
           .why({"conflict_ways"}),
       study_row(StudyTable::shared_memory, "column, 32-way conflict",
                 at("column", {{"side", std::int64_t{1} << 12}, {"pad", 0}}))
           .article(740.07)
           .why({"conflict_ways"}),
       study_row(StudyTable::shared_memory, "column, padded [32][33]",
                 at("column", {{"side", std::int64_t{1} << 12}, {"pad", 1}}))
           .article(826.01)
           .why({"conflict_ways"}),
       study_row(StudyTable::claims, "every lane the same shared word: a broadcast, no conflict",
                 at("conflict_degree", {{"shared_stride", 0}, {"width", 4}}))
           .why({"wavefronts_per_request"})
           .beside(at("conflict_degree", {{"shared_stride", 1}, {"width", 4}})),
       study_row(StudyTable::claims, "a pad of 1 float on a 32-wide tile: the 32-way conflict gone",
                 at("column_tile", {{"side", std::int64_t{1} << 12}, {"tile_side", 32}, {"pad", 1}}))
           .why({"conflict_ways"})
           .beside(at("column_tile", {{"side", std::int64_t{1} << 12}, {"tile_side", 32}, {"pad", 0}})),
       study_row(StudyTable::claims, "misconception: a little padding fixes any conflict (a 16-wide tile)",
                 at("column_tile", {{"side", std::int64_t{1} << 12}, {"tile_side", 16}, {"pad", 1}}))
           .why({"conflict_ways", "store_conflict_ways"})
           .beside(at("column_tile", {{"side", std::int64_t{1} << 12}, {"tile_side", 16}, {"pad", 0}}))},
      {check_case(CheckLevel::shared_read, "bytes_per_second",
                  at("conflict_degree", {{"shared_stride", 1}, {"width", 16}}))},
      {roof("shared memory", "bytes_per_second", at("conflict_degree", {{"shared_stride", 1}}))}}}};

}  // namespace

}  // namespace membench::cases
