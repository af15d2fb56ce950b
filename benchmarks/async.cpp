//==============================================================================
// async: Global -> Shared copies, and when overlapping them with compute pays
//
// The study: a tile-by-tile pass through shared memory, loaded with plain
// loads (async/sync), cg::memcpy_async (one stage) or a cuda::pipeline of
// several stages that copies tile i + stages - 1 while tile i is computed.
// With no arithmetic every version is bound by DRAM and should run at the same
// speed; overlap can only pay when the compute phase (flops per element, a
// chain of dependent FMAs) costs about as much as the copy. The model:
// time ~ max(bytes / bandwidth, flops / FMA rate) with perfect overlap,
// their sum with none; flops_per_byte says where a case sits. async/bulk does
// the same with Hopper's bulk-copy engine (cp.async.bulk on an mbarrier):
// one thread moves a whole tile, freeing the others' issue slots.
//
// H200, 2026-11-30, 2^26 floats: with no arithmetic sync = memcpy_async =
// one-stage pipeline = 4.04 TB/s and extra stages only cost occupancy
// (3-stage cuda::pipeline 0.87x); at 8 flops per byte the two-stage bulk copy
// beats sync by 9%; at 32 flops per byte every variant is FMA-bound near
// 50 TFLOP/s.
//==============================================================================
#include <cstdint>
#include <string>

#include "families.hpp"
#include "harness.hpp"
#include "membench/async.hpp"
#include "membench/pattern.hpp"

namespace membench::bench {

namespace {

constexpr std::uint32_t kSeed = 0x41;

void prepare(Prepared& p, const AsyncConfig& c, std::size_t n) {
  std::string why;
  if (!async_config_supported(c, &why)) throw CaseSkipped(why);
  if (!async_variant_available(c.variant, &why)) throw CaseSkipped(why);
  if (async_smem_bytes(c) > session().device.smem_per_block_optin)
    throw CaseSkipped("needs " + std::to_string(async_smem_bytes(c)) + " bytes of shared memory per block; the device allows " +
                      std::to_string(session().device.smem_per_block_optin));
  const InOut io = allocate_in_out(p, n, kSeed);
  const float* in = io.in;
  float* out = io.out;
  const cudaStream_t stream = session().stream->get();
  p.launch = [c, in, out, n](cudaStream_t s) { return launch_async(c, in, out, n, s); };
  finish_launch(p.launch(stream));
  verify_output(out, n, "out", [&](std::size_t i) { return async_reference(pattern_value(i, kSeed), c.flops); });

  p.work.bytes = async_bytes(n);
  p.work.flops = async_flops(n, c.flops);
}

AsyncConfig config(AsyncVariant v, std::int64_t tile, std::int64_t stages, std::int64_t flops) {
  return {v, static_cast<int>(tile), static_cast<int>(stages), static_cast<int>(flops)};
}

}  // namespace

void register_async(const cli::Options& o) {
  const auto n = o.values("n", {std::int64_t{1} << 26});
  const auto tile = o.values("tile", {1024});
  const auto stages = o.values("stages", {1, 2, 3, 4});
  const auto flops = o.values("flops", {0, 16, 64, 256});
  for (AsyncVariant v : {AsyncVariant::sync, AsyncVariant::memcpy_async}) {
    register_case("async/" + to_string(v), {"n", "tile", "flops"}, {n, tile, flops},
                  [v](Prepared& p, benchmark::State& s) {
                    prepare(p, config(v, s.range(1), 1, s.range(2)), static_cast<std::size_t>(s.range(0)));
                  });
  }
  for (AsyncVariant v : {AsyncVariant::pipeline, AsyncVariant::bulk}) {
    register_case("async/" + to_string(v), {"n", "tile", "stages", "flops"}, {n, tile, stages, flops},
                  [v](Prepared& p, benchmark::State& s) {
                    prepare(p, config(v, s.range(1), s.range(2), s.range(3)), static_cast<std::size_t>(s.range(0)));
                  });
  }
}

}  // namespace membench::bench
