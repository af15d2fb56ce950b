//==============================================================================
// indirect: gather and scatter through an index array
//
// The hypothesis: a warp whose 32 lanes read (gather) or write (scatter) 32
// consecutive floats is served by 4 sectors; through a random permutation
// the lanes land in 32 different sectors, so the requests the L1 sends the
// L2 grow eight-fold whether or not DRAM is involved. Whether DRAM is
// involved is the window's size: a permutation random within windows the L2
// could hold (4 MiB) reads each line from DRAM once, like the identity;
// random over an array far past the L2, nearly every access misses and moves
// a 64-byte unit for 4 useful bytes. Every element is read once a launch
// either way. indirect/lookup is the access that re-reads a hot set: an
// embedding-table lookup, n indices into a table of `table` floats, each run
// of `table` indices a fresh permutation of it. A table the L1 holds is
// served there, one the L2 holds is read from DRAM once a launch and its
// sectors served by the L2 (the gather's sector count, DRAM as the
// identity's, the table read at most once a launch: part of it stays in the
// L2 between launches, so its DRAM bytes are a bound), and one past the L2 is
// the whole-array gather again.
//
// The model, which ncu checks: sectors_per_request over every load (the
// index's 4 and the indirect read's expected distinct sectors, 32 draws
// from the window), store_sectors_per_request (the scatter's), the sector
// bytes the L1 asks of the L2 (l2_read_bytes, l2_write_bytes: the L1 keeps
// no store, so each scattered lane writes a sector of its own), and the DRAM
// bytes where they are exact (a gather whose window fits in half the L2: each
// array once; a scatter's identity). Past the L2, and for a scatter whose
// sectors are written by several requests, the L2's reuse and merging decide
// DRAM's share, which has no exact model here: dram_read_bytes_bound and
// dram_write_bytes_bound are what DRAM moves if every indirect access costs
// what a lone one does (a 64-byte read; a sector read to merge and written
// back), and ncu checks that DRAM moves no more. window 1 is the identity,
// the coalesced baseline in the same kernel. A lookup's table the L1 holds is
// read from the L2 once an SM (l2_read_bytes: the index and the table's
// sectors an SM). Verified exactly: the permutation and its inverse are
// computed on the host as on the GPU.
//==============================================================================
#include <cstdint>
#include <memory>

#include "cases/family.hpp"
#include "cases/planned.hpp"
#include "membench/indirect.hpp"
#include "membench/platform/cuda.hpp"

namespace membench::cases {

namespace {

constexpr std::uint32_t kSeed = 0x49;

CaseDefinition define(const IndirectConfig& c, const DeviceInfo& gpu) {
  auto plan = planned<IndirectPlan>(c);
  auto index = std::make_shared<DeviceBuffer<std::uint32_t>>(c.n);
  MEMBENCH_CUDA(fill_index(c, index->get(), nullptr));
  MEMBENCH_CUDA(cudaDeviceSynchronize());
  plan.index = index->get();

  CaseDefinition d;
  d.input_elements = indirect_input_floats(c);
  d.output_elements = c.n;
  d.seed = kSeed;
  d.bind = bind_plan<float, float>(plan, index);
  d.expected = [c](std::size_t i) { return indirect_reference(c, i, kSeed); };
  d.work.bytes = indirect_bytes(c);
  d.work.model.push_back({"sectors_per_request", indirect_load_sectors_per_request(c)});
  d.work.model.push_back({"store_sectors_per_request", indirect_store_sectors_per_request(c)});
  if (c.variant != IndirectVariant::lookup)
    d.work.model.push_back({"l2_read_bytes", indirect_l2_read_bytes(c)});
  else if (gpu.l1_bytes == 0)
    d.work.unknown.push_back("l2_read_bytes: " + unknown_fact(gpu.cc_major, gpu.cc_minor, Fact::unified_l1_bytes));
  else if (const auto l2 = lookup_l2_read_bytes(c, gpu.l1_bytes, gpu.sm_count))
    d.work.model.push_back({"l2_read_bytes", *l2});
  d.work.model.push_back({"l2_write_bytes", indirect_l2_write_bytes(c)});
  if (const auto t = indirect_dram_traffic(c, gpu.l2_bytes)) {
    d.work.model.push_back({"dram_read_bytes", t->read_bytes});
    d.work.model.push_back({"dram_write_bytes", t->write_bytes});
  } else {
    const DramTraffic bound = indirect_dram_bound(c, gpu.l2_bytes);
    d.work.model.push_back({"dram_read_bytes_bound", bound.read_bytes});
    d.work.model.push_back({"dram_write_bytes_bound", bound.write_bytes});
  }
  return d;
}

void cases(Family& f) {
  for (IndirectVariant v : {IndirectVariant::gather, IndirectVariant::scatter}) {
    const char* kernel = v == IndirectVariant::gather ? "gather_scale" : "scatter_scale";
    f.add(std::string(kIndirectVariants(v)), {"entries", "window"}, {kernel}, [v](const CaseArgs& a) {
      return define({v, a.size("entries"), a.size("window")}, a.device());
    });
  }
  f.add("lookup", {"entries", "table"}, {"gather_scale"}, [](const CaseArgs& a) {
    IndirectConfig c{IndirectVariant::lookup, a.size("entries")};
    c.table = a.size("table");
    return define(c, a.device());
  });
}

std::vector<std::int64_t> powers_of_two() {
  std::vector<std::int64_t> v;
  for (int b = 0; b <= 32; ++b) v.push_back(std::int64_t{1} << b);
  return v;
}

AxisSpec window_axis() {
  AxisSpec a = axis("window", "floats",
                    "elements within which the index is a random permutation (a power of two; 1: the identity)",
                    {1, std::int64_t{1} << 20, std::int64_t{1} << 26});
  a.allowed = powers_of_two();
  return a;
}

// 4 KiB (the L1 holds it), 16 MiB (the L2), 1 GiB (DRAM).
AxisSpec table_axis() {
  AxisSpec a = axis("table", "floats", "lookup: floats in the table the indices fall in (a power of two)",
                    {std::int64_t{1} << 10, std::int64_t{1} << 22, std::int64_t{1} << 28});
  a.allowed = powers_of_two();
  return a;
}

const Registrar registrar{
    {"indirect",
     {axis("entries", "floats", "elements of each array, and indices", {std::int64_t{1} << 26}, 1,
           static_cast<std::int64_t>(kIndirectMaxElements)),
      window_axis(), table_axis()},
     cases,
     {"Indirect access: gather and scatter through a permutation",
      {figure("GB/s of index, input and output by the permutation's window", "window", "bytes_per_second")
           .log_x()
           .only({"gather", "scatter"}),
       figure("lookup: GB/s of index, table reads and output by the table's size", "table", "bytes_per_second")
           .log_x()
           .only({"lookup"})},
      "the article's random access: the transactions a warp request needs soar, whether or not DRAM is involved",
      {study_row(StudyTable::claims, "random reads within 4 MiB windows: 8x the L2 sectors, DRAM as the identity",
                 at("gather", {{"entries", std::int64_t{1} << 26}, {"window", std::int64_t{1} << 20}}))
           .why({"sectors_per_request", "dram_read_bytes"})
           .beside(at("gather", {{"entries", std::int64_t{1} << 26}, {"window", 1}})),
       study_row(StudyTable::claims, "random reads over 256 MiB: the sectors soar and DRAM moves 64 bytes a float",
                 at("gather", {{"entries", std::int64_t{1} << 26}, {"window", std::int64_t{1} << 26}}))
           .why({"sectors_per_request", "dram_read_bytes_bound"})
           .beside(at("gather", {{"entries", std::int64_t{1} << 26}, {"window", 1}})),
       study_row(StudyTable::claims, "random writes over 256 MiB: a 32-byte sector written for each float",
                 at("scatter", {{"entries", std::int64_t{1} << 26}, {"window", std::int64_t{1} << 26}}))
           .why({"store_sectors_per_request", "l2_write_bytes"})
           .beside(at("scatter", {{"entries", std::int64_t{1} << 26}, {"window", 1}})),
       study_row(
           StudyTable::claims,
           "a hot 16 MiB table looked up 16 times a launch: the gather's sectors, DRAM reads the table at most once",
           at("lookup", {{"entries", std::int64_t{1} << 26}, {"table", std::int64_t{1} << 22}}))
           .why({"sectors_per_request", "dram_read_bytes_bound"})
           .beside(at("gather", {{"entries", std::int64_t{1} << 26}, {"window", std::int64_t{1} << 20}}))}}}};

}  // namespace

}  // namespace membench::cases
