// The async-copy experiment's host side that needs no GPU: which configs this
// build runs, shared memory per block, the references, the byte and flop
// counts. See async.hpp.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>

#include "membench/async.hpp"

namespace membench {

bool async_multi_stage(AsyncVariant v) {
  return v == AsyncVariant::pipeline || v == AsyncVariant::bulk || v == AsyncVariant::tma;
}

bool async_config_supported(const AsyncConfig& c, std::string* why) {
  auto refuse = [&](const std::string& reason) {
    if (why != nullptr) *why = reason;
    return false;
  };
  if (!AsyncTiles::contains(c.tile)) return refuse("tile must be one of " + AsyncTiles::joined());
  if (async_multi_stage(c.variant) && !AsyncStages::contains(c.stages))
    return refuse("stages must be one of " + AsyncStages::joined());
  if (c.flops < 0 || c.flops > kAsyncMaxFlops || c.flops % 2 != 0)
    return refuse("flops must be even and within 0.." + std::to_string(kAsyncMaxFlops));
  const std::size_t box_rows = static_cast<std::size_t>(kTmaRowFloats) * (c.tile / kTmaBoxCols);
  if (c.variant == AsyncVariant::tma && (c.n == 0 || c.n % box_rows != 0))
    return refuse("tma needs n to be a positive multiple of " + std::to_string(box_rows) + " (whole rows of " +
                  std::to_string(c.tile / kTmaBoxCols) + " x " + std::to_string(kTmaRowFloats) + "-float boxes)");
  return true;
}

std::size_t async_smem_bytes(const AsyncConfig& c) {
  const int buffers = async_multi_stage(c.variant) ? c.stages : 1;
  return static_cast<std::size_t>(buffers) * c.tile * sizeof(float);
}

float async_reference(float x, int flops) {
  // x + (flops / 2) * 1/2: exact while the sum stays below 2^22 (inputs are
  // multiples of 1/4 under 257 and flops <= 65536).
  return x + static_cast<float>(flops / 2) * kAsyncFmaB;
}

float async_reference_chain(float x, int flops) {
  for (int k = 0; k < flops / 2; ++k) x = std::fma(x, kAsyncFmaA, kAsyncFmaB);
  return x;
}

double async_bytes(const AsyncConfig& c) { return 2.0 * sizeof(float) * static_cast<double>(c.n); }

double async_flops(const AsyncConfig& c) { return static_cast<double>(c.n) * c.flops; }

unsigned async_grid(std::size_t tiles, unsigned resident, bool persistent) {
  if (persistent) return static_cast<unsigned>(std::min<std::size_t>(tiles, resident));
  const std::size_t short_blocks = (tiles + kAsyncShortTiles - 1) / kAsyncShortTiles;
  return static_cast<unsigned>(std::min<std::size_t>(short_blocks, kAsyncMaxGrid));
}

}  // namespace membench
