//==============================================================================
// layout: array of structs against struct of arrays
//
// The study: with a 16-byte struct {x, y, z, w}, a warp's load of one field
// touches 16 sectors (lanes 16 bytes apart) where the SoA load touches 4.
// Reading every field, the later field loads of AoS hit the sectors the first
// one brought in, so both layouts move the same DRAM bytes (model
// dram_efficiency 1 vs 1). Reading only x, AoS drags the three unused fields
// through every sector: the model predicts a quarter of SoA's effective
// bandwidth (dram_efficiency 0.25).
//
// H200, 2026-11-30, 2^24 elements: all fields, AoS 4215 and SoA 4152 GB/s;
// x only, AoS 737 GB/s = 0.28x of SoA's 2663 (model 0.25x).
//==============================================================================
#include <cstdint>

#include "families.hpp"
#include "harness.hpp"
#include "membench/layout.hpp"
#include "membench/pattern.hpp"

namespace membench::bench {

namespace {

constexpr std::uint32_t kSeed = 0x4c;

void prepare(Prepared& p, LayoutVariant v, std::size_t n, int fields) {
  const std::size_t floats = kLayoutFields * n;
  const InOut io = allocate_in_out(p, floats, kSeed);
  const float* in = io.in;
  float* out = io.out;
  const cudaStream_t stream = session().stream->get();
  p.launch = [v, in, out, n, fields](cudaStream_t s) { return launch_layout(v, in, out, n, fields, s); };
  finish_launch(p.launch(stream));
  verify_output(out, floats, "out", [&](std::size_t j) {
    return layout_field_of(v, j, n) < fields ? 2.0f * pattern_value(j, kSeed) : poison_value();
  });

  p.work.bytes = layout_bytes(n, fields);
  p.work.model.push_back({"sectors_per_request", static_cast<double>(layout_sectors_per_request(v))});
  p.work.model.push_back({"dram_efficiency", layout_dram_efficiency(v, fields)});
}

}  // namespace

void register_layout(const cli::Options& o) {
  const auto n = o.values("n", {std::int64_t{1} << 24});
  const auto fields = o.values("fields", {4, 1});
  for (LayoutVariant v : layout_variants()) {
    register_case("layout/" + to_string(v), {"n", "fields"}, {n, fields}, [v](Prepared& p, benchmark::State& s) {
      prepare(p, v, static_cast<std::size_t>(s.range(0)), static_cast<int>(s.range(1)));
    });
  }
}

}  // namespace membench::bench
