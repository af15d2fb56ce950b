//==============================================================================
// shared: bank conflicts, padding, swizzle, and the degree of conflict
//
// The study: shared memory has 32 banks of 4 bytes. A warp that writes a
// 32 x 32 tile by rows and reads it back by columns hits one bank 32 times
// (tile[tx][ty]: a word stride of 32), serialising the read 32-way; one
// float of padding per row (a stride of 33) or an XOR swizzle of the column
// index spreads the column over all 32 banks. The matrix kernels are
// dominated by their global traffic, so the conflict costs only part of the
// time; shared/conflict_degree isolates shared memory: every lane reads at a
// stride of S elements of 4, 8 or 16 bytes, and the model conflict_ways =
// gcd(S, 128 / width) predicts shared bandwidth = peak / conflict_ways.
//
// H200, 2026-11-30, n = 4096: the 32-way column read costs 1.81x of row
// (the study saw 1.19x on an RTX 4090); pad 1 and the swizzle come within 5%
// of row. conflict_degree follows the model within 2% at every stride 1..33
// and width, and ncu's wavefronts per request match it exactly.
//==============================================================================
#include <cstdint>
#include <string>

#include "families.hpp"
#include "harness.hpp"
#include "membench/pattern.hpp"
#include "membench/shared.hpp"

namespace membench::bench {

namespace {

constexpr std::uint32_t kSeed = 0x53;
constexpr std::int64_t kMaxSide = 65535LL * kSharedTile;  // a 2-D grid's y limit

cudaError_t launch_matrix(SharedVariant v, const float* in, float* out, int n, int pad, cudaStream_t s) {
  switch (v) {
    case SharedVariant::row: return launch_shared_row(in, out, n, s);
    case SharedVariant::column: return launch_shared_column(in, out, n, pad, s);
    case SharedVariant::swizzle: return launch_shared_swizzle(in, out, n, s);
    default: return cudaErrorInvalidValue;
  }
}

void prepare_matrix(Prepared& p, SharedVariant v, std::int64_t side, int pad) {
  if (side > kMaxSide) throw CaseSkipped("matrix side " + std::to_string(side) + " exceeds the grid limit of " + std::to_string(kMaxSide));
  const auto n = static_cast<int>(side);
  const std::size_t elements = static_cast<std::size_t>(side) * static_cast<std::size_t>(side);
  const InOut io = allocate_in_out(p, elements, kSeed);
  const float* in = io.in;
  float* out = io.out;
  const cudaStream_t stream = session().stream->get();
  p.launch = [v, in, out, n, pad](cudaStream_t s) { return launch_matrix(v, in, out, n, pad, s); };
  finish_launch(p.launch(stream));
  const bool transposed = v != SharedVariant::row;
  const auto side_u = static_cast<std::size_t>(side);
  verify_output(out, elements, "out", [&](std::size_t i) {
    const std::size_t source = transposed ? (i % side_u) * side_u + i / side_u : i;
    return 2.0f * pattern_value(source, kSeed);
  });

  p.work.bytes = shared_matrix_bytes(n);
  p.work.model.push_back({"conflict_ways", static_cast<double>(shared_variant_conflict_ways(v, pad))});
}

void prepare_conflict_degree(Prepared& p, int stride, int width) {
  const std::size_t smem = conflict_smem_bytes(stride, width);
  if (smem > session().device.smem_per_block_optin)
    throw CaseSkipped("needs " + std::to_string(smem) + " bytes of shared memory per block; the device allows " +
                      std::to_string(session().device.smem_per_block_optin));
  unsigned grid = 0;
  MEMBENCH_CUDA(conflict_degree_grid(stride, width, &grid));
  const std::size_t threads = static_cast<std::size_t>(grid) * kConflictBlock;
  float* out = p.allocate<float>(threads);
  const cudaStream_t stream = session().stream->get();
  MEMBENCH_CUDA(launch_poison(out, threads * sizeof(float), stream));
  p.launch = [out, stride, width, grid](cudaStream_t s) {
    return launch_conflict_degree(out, stride, width, kConflictReps, grid, s);
  };
  finish_launch(p.launch(stream));
  verify_output(out, threads, "out",
                [&](std::size_t t) { return conflict_degree_expected(t, stride, width, kConflictReps); });

  p.work.bytes = conflict_degree_bytes(grid, width, kConflictReps);
  p.work.peak_bytes_per_second = session().device.smem_peak_bytes_per_second;
  p.work.model.push_back({"conflict_ways", static_cast<double>(conflict_ways(stride, width))});
  p.work.model.push_back({"wavefronts_per_request", static_cast<double>(conflict_wavefronts(stride, width))});
}

std::vector<std::int64_t> default_strides() {
  std::vector<std::int64_t> strides;
  for (std::int64_t s = 1; s <= 33; ++s) strides.push_back(s);
  return strides;
}

}  // namespace

void register_shared(const cli::Options& o) {
  const auto n = o.values("n", {4096});
  register_case("shared/row", {"n"}, {n}, [](Prepared& p, benchmark::State& s) {
    prepare_matrix(p, SharedVariant::row, s.range(0), 0);
  });
  register_case("shared/column", {"n", "pad"}, {n, o.values("pad", {0, 1})}, [](Prepared& p, benchmark::State& s) {
    prepare_matrix(p, SharedVariant::column, s.range(0), static_cast<int>(s.range(1)));
  });
  register_case("shared/swizzle", {"n"}, {n}, [](Prepared& p, benchmark::State& s) {
    prepare_matrix(p, SharedVariant::swizzle, s.range(0), 0);
  });
  register_case("shared/conflict_degree", {"shared_stride", "width"},
                {o.values("shared_stride", default_strides()), o.values("width", {4, 8, 16})},
                [](Prepared& p, benchmark::State& s) {
                  prepare_conflict_degree(p, static_cast<int>(s.range(0)), static_cast<int>(s.range(1)));
                });
}

}  // namespace membench::bench
