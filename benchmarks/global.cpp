//==============================================================================
// global: coalescing, stride and access width
//
// The study: 32 threads of a warp that read 32 consecutive floats are served
// by 4 sectors of 32 bytes; spread them `stride` floats apart and the warp
// needs min(32, 4 x stride) sectors for the same 128 useful bytes. The model
// (sectors_per_request, dram_efficiency = useful / fetched sector bytes)
// predicts effective bandwidth falling as 1 / stride until stride 8, where
// every lane has a sector of its own, and flat after. global/vectorized asks
// the second question: a 4.8 TB/s HBM3e part needs more bytes in flight per
// thread than one float, so float2/float4 accesses and several independent
// loads per thread (ilp) should close the gap to cudaMemcpy (global/memcpy).
// persistent:1 strides a GPU-filling grid over the array (the textbook
// grid-stride loop); persistent:0 launches enough blocks for one trip each.
//
// H200, 2026-11-30: stride 2 gives 0.54-0.56x of coalesced at 2^24 and 2^28
// floats, as the model says; from stride 16 the measurement falls below the
// model's flat 1/8 (DRAM fetches 64 bytes per lone sector). One float per
// thread reaches 54-57% of the 4.8 TB/s peak, float4 in a grid-stride loop
// 78-82%, float4 with one trip per thread 89% at 2^28, cudaMemcpy's own speed.
//==============================================================================
#include <cstdint>

#include "families.hpp"
#include "harness.hpp"
#include "membench/global.hpp"
#include "membench/models.hpp"
#include "membench/pattern.hpp"

namespace membench::bench {

namespace {

constexpr std::uint32_t kSeed = 0x61;

struct GlobalCase {
  GlobalVariant variant;
  std::size_t n;
  std::size_t stride = 1;
  int vec = 1;
  int ilp = 1;
  int persistent = 1;
};

cudaError_t launch(const GlobalCase& c, const float* in, float* out, cudaStream_t s) {
  switch (c.variant) {
    case GlobalVariant::coalesced: return launch_global_coalesced(in, out, c.n, s);
    case GlobalVariant::strided: return launch_global_strided(in, out, c.n, c.stride, s);
    case GlobalVariant::vectorized: return launch_global_vectorized(in, out, c.n, c.vec, c.ilp, c.persistent, s);
    case GlobalVariant::memcpy: return launch_global_memcpy(in, out, c.n, s);
  }
  return cudaErrorInvalidValue;
}

void prepare(Prepared& p, const GlobalCase& c) {
  const InOut io = allocate_in_out(p, c.n, kSeed);
  const float* in = io.in;
  float* out = io.out;
  const cudaStream_t stream = session().stream->get();
  p.launch = [c, in, out](cudaStream_t s) { return launch(c, in, out, s); };
  // Captured in a CUDA graph, a large device-to-device copy became a
  // copy-engine node on the H200 (2.77 TB/s at 2^28 floats against 4.28 TB/s
  // as a stream copy), so the reference's batches stay on the stream.
  p.graphable = c.variant != GlobalVariant::memcpy;
  finish_launch(p.launch(stream));
  verify_output(out, c.n, "out", [&](std::size_t i) {
    return global_writes(c.variant, i, c.stride) ? global_reference(c.variant, pattern_value(i, kSeed)) : poison_value();
  });

  p.work.bytes = global_bytes(c.variant, c.n, c.stride);
  const int access = global_access_bytes(c.variant, c.vec);
  const std::size_t lane_stride = global_lane_stride_bytes(c.variant, c.stride, c.vec);
  if (c.variant != GlobalVariant::memcpy)  // the copy engine's access pattern is not ours to model
    p.work.model.push_back({"sectors_per_request", static_cast<double>(sectors_per_request(access, lane_stride))});
  p.work.model.push_back({"dram_efficiency", c.variant == GlobalVariant::memcpy ? 1.0 : request_efficiency(access, lane_stride)});
}

std::size_t arg(const benchmark::State& s, int i) { return static_cast<std::size_t>(s.range(i)); }

}  // namespace

void register_global(const cli::Options& o) {
  const auto n = o.values("n", {std::int64_t{1} << 24});
  register_case("global/coalesced", {"n"}, {n}, [](Prepared& p, benchmark::State& s) {
    prepare(p, {GlobalVariant::coalesced, arg(s, 0)});
  });
  register_case("global/strided", {"n", "stride"}, {n, o.values("stride", {1, 2, 4, 8, 16, 32})},
                [](Prepared& p, benchmark::State& s) { prepare(p, {GlobalVariant::strided, arg(s, 0), arg(s, 1)}); });
  register_case("global/vectorized", {"n", "vec", "ilp", "persistent"},
                {n, o.values("vec", {2, 4}), o.values("ilp", {1, 4}), o.values("persistent", {1, 0})},
                [](Prepared& p, benchmark::State& s) {
                  prepare(p, {GlobalVariant::vectorized, arg(s, 0), 1, static_cast<int>(s.range(1)),
                              static_cast<int>(s.range(2)), static_cast<int>(s.range(3))});
                });
  register_case("global/memcpy", {"n"}, {n}, [](Prepared& p, benchmark::State& s) {
    prepare(p, {GlobalVariant::memcpy, arg(s, 0)});
  });
}

}  // namespace membench::bench
