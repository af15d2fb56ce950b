//==============================================================================
// stream: the traffic mixes, at the DRAM's speed
//
// BabelStream's kernels and gpu-benches' read and write, over arrays several
// times the L2, so every byte crosses the DRAM interface once: read (1 array
// read), write (1 written), copy and scale (1 read, 1 written), add and triad
// (2 read, 1 written), dot (2 read). Bytes are counted as BabelStream counts
// them. The hypothesis: with 16-byte accesses and enough bytes in flight
// every mix is bound by DRAM, and the mixes differ only by how the interface
// turns between reads and writes: read-only comes closest to the theoretical
// peak, write-only next, and the mixes that read and write pay for the
// turnarounds. The model counters say what DRAM must move (every array once,
// plus the reductions' partial sums); pct_of_peak says how close to the
// theoretical peak each mix comes.
//==============================================================================
#include <cstdint>

#include "cases/family.hpp"
#include "cases/planned.hpp"
#include "membench/platform/cuda.hpp"
#include "membench/stream.hpp"

namespace membench::cases {

namespace {

constexpr std::uint32_t kSeed = 0x5E;

CaseDefinition define(const StreamConfig& c) {
  CaseDefinition d;
  const auto plan = planned<StreamPlan>(c);
  const unsigned grid = plan.shape.grid;
  const Element type = c.type == StreamType::f32 ? Element::f32 : Element::f64;
  d.input_elements = stream_input_elements(c);
  d.input_type = type;
  d.output_elements = stream_reduces(c.kernel) ? grid : c.n;
  d.output_type = stream_reduces(c.kernel) ? Element::f64 : type;
  d.seed = kSeed;
  if (type == Element::f64)
    d.bind = bind_plan<double, double>(plan);
  else if (stream_reduces(c.kernel))
    d.bind = bind_plan<float, double>(plan);
  else
    d.bind = bind_plan<float, float>(plan);
  d.expected = [c](std::size_t i) { return static_cast<float>(stream_expected(c, i, kSeed)); };
  d.expected_f64 = [c, grid](std::size_t i) { return stream_expected(c, i, kSeed, grid); };
  d.work.bytes = stream_bytes(c);
  const DramTraffic t = stream_dram_traffic(c, grid);
  d.work.model.push_back({"dram_read_bytes", t.read_bytes});
  d.work.model.push_back({"dram_write_bytes", t.write_bytes});
  return d;
}

void cases(Family& f) {
  for (StreamKernel k : kStreamKernels.all()) {
    f.add(std::string(kStreamKernels(k)), {"type", "elements", "block"},
          {stream_reduces(k) ? "stream_reduce" : "stream_elementwise"}, [k](const CaseArgs& a) {
            return define({k, static_cast<StreamType>(a["type"]), a.size("elements"), a.integer("block")});
          });
  }
}

const Registrar registrar{
    {"stream",
     {axis_named("type", "element type", {"float", "double"}, {0, 1}),
      axis("elements", "elements", "elements of each array, of the type", {std::int64_t{1} << 27}),
      axis_of<StreamBlocks>("block", "threads", "threads per block", {256})},
     cases,
     {"Stream: the traffic mixes against the DRAM peak",
      {figure("each kernel, the best block size", "variant", "bytes_per_second")
           .as_bars()
           .best_over({"block"})
           .across({"dram_peak_bytes_per_second"})},
      "",
      {},
      {check_case(CheckLevel::dram_read, "bytes_per_second", at("read", {{"type", "float"}})),
       check_case(CheckLevel::dram_write, "bytes_per_second", at("write", {{"type", "float"}})),
       check_case(CheckLevel::dram_copy, "bytes_per_second", at("copy", {{"type", "float"}})),
       check_case(CheckLevel::dram_triad, "bytes_per_second", at("triad", {{"type", "double"}}))},
      {roof("DRAM", "bytes_per_second", at("read", {{"type", "float"}}))}}}};

}  // namespace

}  // namespace membench::cases
