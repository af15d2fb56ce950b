// Indirect access: a kernel that reads or writes through an index array.
//
//   gather   out[i] = 2 * in[index[i]]
//   scatter  out[index[i]] = 2 * in[i]
//   lookup   out[i] = 2 * table[index[i]]   (the gather's kernel, its input a table)
//
// For the gather and the scatter the index array is a permutation of
// 0 .. n-1 that is random within windows of `window` elements (a power of
// two) and keeps every window in place: window 1 is the identity (the
// coalesced baseline, the same kernel), a window of a few MiB is random
// within a span the L2 could hold, a window of n is random over the whole
// array. Either way each element is read once a launch, so no window makes
// a set the L2 serves twice. The lookup does: its n indices fall in a table
// of `table` floats (a power of two), each run of `table` consecutive
// indices a permutation of the table drawn afresh (an embedding-table
// lookup: a hot table read n / table times a launch). The permutation is a keyed bijection on the
// window's bits (multiply-add and xorshift rounds), computed the same way on
// the host and the GPU, with its inverse for the scatter's reference; a last
// window shorter than the others is permuted over its own size by cycle
// walking.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <optional>

#include "membench/platform/int_list.hpp"
#include "membench/platform/kernel_shape.hpp"
#include "membench/platform/models.hpp"
#include "membench/platform/pattern.hpp"

namespace membench {

enum class IndirectVariant { gather, scatter, lookup };
inline constexpr auto kIndirectVariants = enum_names<IndirectVariant>("gather", "scatter", "lookup");

inline constexpr int kIndirectBlock = 256;
inline constexpr std::size_t kIndirectMaxElements = std::size_t{1} << 32;  // 32-bit indices

struct IndirectConfig {
  IndirectVariant variant = IndirectVariant::gather;
  std::size_t n = 0;       // floats in each array, and indices (lookup: in the index and the output)
  std::size_t window = 1;  // gather, scatter: a power of two
  std::size_t table = 0;   // lookup: the table's floats, a power of two
};

namespace detail {

// The rounds' odd multipliers and their addends (functions: device code reads no host array).
MEMBENCH_HOST_DEVICE constexpr std::uint32_t permute_mul(int r) {
  return r == 0 ? 0x9E3779B1u : r == 1 ? 0x85EBCA77u : 0xC2B2AE3Du;
}
MEMBENCH_HOST_DEVICE constexpr std::uint32_t permute_add(int r) {
  return r == 0 ? 0x7F4A7C15u : r == 1 ? 0x165667B1u : 0x27D4EB2Fu;
}

MEMBENCH_HOST_DEVICE inline std::uint32_t low_mask(int bits) { return bits >= 32 ? ~0u : (1u << bits) - 1u; }

// The multiplicative inverse of an odd number modulo 2^32 (Newton's iteration).
MEMBENCH_HOST_DEVICE inline std::uint32_t odd_inverse(std::uint32_t m) {
  std::uint32_t inv = m;
  for (int k = 0; k < 5; ++k) inv *= 2u - m * inv;
  return inv;
}

}  // namespace detail

// A bijection on `bits`-bit numbers: three rounds of an odd multiply-add and
// an xorshift by half the width, each invertible on `bits` bits.
MEMBENCH_HOST_DEVICE inline std::uint32_t permute_bits(std::uint32_t x, int bits) {
  const std::uint32_t mask = detail::low_mask(bits);
  const int shift = (bits + 1) / 2;
  for (int r = 0; r < 3; ++r) {
    x = (x * detail::permute_mul(r) + detail::permute_add(r)) & mask;
    if (shift > 0) x ^= x >> shift;
  }
  return x;
}

MEMBENCH_HOST_DEVICE inline std::uint32_t unpermute_bits(std::uint32_t y, int bits) {
  const std::uint32_t mask = detail::low_mask(bits);
  const int shift = (bits + 1) / 2;
  for (int r = 2; r >= 0; --r) {
    if (shift > 0) {
      std::uint32_t x = y;
      for (int k = shift; k < bits; k += shift) x = y ^ (x >> shift);
      y = x;
    }
    y = ((y - detail::permute_add(r)) * detail::odd_inverse(detail::permute_mul(r))) & mask;
  }
  return y;
}

// The bits that number a window of `size` elements (the smallest power of two >= size).
MEMBENCH_HOST_DEVICE inline int window_bits(std::size_t size) {
  int bits = 0;
  while ((std::size_t{1} << bits) < size) ++bits;
  return bits;
}

// Walks i through its window's permutation (or its inverse): a last,
// shorter window is permuted over its own size by cycle walking.
template <bool INVERSE>
MEMBENCH_HOST_DEVICE inline std::size_t window_walk(std::size_t i, std::size_t n, std::size_t window) {
  const std::size_t base = i & ~(window - 1);
  const std::size_t size = n - base < window ? n - base : window;
  const int bits = window_bits(size);
  std::uint32_t p = static_cast<std::uint32_t>(i - base);
  do p = INVERSE ? unpermute_bits(p, bits) : permute_bits(p, bits);
  while (p >= size);
  return base + p;
}

// index[i]: element i's partner, within its window.
MEMBENCH_HOST_DEVICE inline std::size_t indirect_index(std::size_t i, std::size_t n, std::size_t window) {
  return window_walk<false>(i, n, window);
}

// The i whose index is j: the inverse permutation.
MEMBENCH_HOST_DEVICE inline std::size_t indirect_source(std::size_t j, std::size_t n, std::size_t window) {
  return window_walk<true>(j, n, window);
}

// A lookup's index[i]: the table entry it reads. Run r of `table`
// consecutive indices is the table permuted after an xor with a key of r's
// own (a bijection on the low bits), so every run reads each entry once in
// an order of its own.
MEMBENCH_HOST_DEVICE inline std::size_t lookup_index(std::size_t i, std::size_t table) {
  const int bits = window_bits(table);
  const std::uint32_t low = static_cast<std::uint32_t>(i) & detail::low_mask(bits);
  const auto run = static_cast<std::uint32_t>(bits >= 32 ? 0 : i >> bits);
  const std::uint32_t key = (run * detail::permute_mul(1) + detail::permute_add(1)) & detail::low_mask(bits);
  return permute_bits(low ^ key, bits);
}

// Its launch, once the index array is filled: out as the variant says, every
// element written once. plan() refuses a window (a lookup's table) that is
// not a power of two, or more than 2^32 elements, with cudaErrorInvalidValue,
// before any CUDA call.
struct IndirectPlan {
  IndirectConfig config;
  KernelShape shape;
  const std::uint32_t* index = nullptr;
};
cudaError_t plan(const IndirectConfig& c, IndirectPlan* plan);
// Writes the index array (n entries) on `stream`.
cudaError_t fill_index(const IndirectConfig& c, std::uint32_t* index, cudaStream_t stream);
cudaError_t launch(const IndirectPlan& p, const float* in, float* out, cudaStream_t stream);

// The input's floats: the table for a lookup, else n.
std::size_t indirect_input_floats(const IndirectConfig& c);

// What the host reference says out[i] holds.
inline float indirect_reference(const IndirectConfig& c, std::size_t i, std::uint32_t seed) {
  const std::size_t from = c.variant == IndirectVariant::lookup   ? lookup_index(i, c.table)
                           : c.variant == IndirectVariant::gather ? indirect_index(i, c.n, c.window)
                                                                  : indirect_source(i, c.n, c.window);
  return 2.0f * pattern_value(from, seed);
}

// Useful bytes per launch: each of the n places' index, the float it reads
// (the input's, the table's) and the float it writes.
double indirect_bytes(const IndirectConfig& c);

// Sectors one warp's indirect access touches: 32 lanes at distinct places of
// one window of `size` elements (drawn without replacement, uniformly): the
// expected number of 8-float sectors hit, 4 for a window within 32 elements.
double indirect_lane_sectors(std::size_t size);
// A lookup's warp: 32 draws from one run of the table's permutations (a
// table of 32 floats or more), or every entry of a smaller table (its
// sectors, at least one).
double lookup_lane_sectors(std::size_t table);
// What ncu sees: the sectors of every load request (the index's 4 and the
// gather's indirect read, or the scatter's coalesced input), and of every store.
double indirect_load_sectors_per_request(const IndirectConfig& c);
double indirect_store_sectors_per_request(const IndirectConfig& c);

// Sector bytes the L1 asks of the L2 per launch: reads (the index and the
// coalesced side, 4 bytes a float; the gather's indirect read, its sectors
// a request) and writes (the L1 keeps no store: a scattered lane's store is
// a 32-byte sector write of its own).
double indirect_l2_read_bytes(const IndirectConfig& c);
// A lookup's, where a model holds: a table the L1 holds (`l1_bytes`) and
// that each of the `sms` SMs looks up eight times over is read from the L2
// once an SM (its sectors) and then hits; a table of 32 times the L1 or more
// hits too little to count, and every lookup's sectors come from the L2 (as
// the gather's). Between the two, nullopt.
std::optional<double> lookup_l2_read_bytes(const IndirectConfig& c, std::size_t l1_bytes, int sms);
double indirect_l2_write_bytes(const IndirectConfig& c);

// DRAM bytes per launch in steady state, where the model is exact: every
// array once, for a gather whose window fits in half the L2 (`l2_bytes`),
// and for a scatter whose window lies within a warp's 32 stores (every
// sector written whole by one request). Elsewhere nullopt, and the bound
// holds: every indirect access moves what a lone access costs (a gather's or
// lookup's 64-byte read; a scatter's sector read to merge and written back).
// A lookup is never exact: a table the L2 holds is read at most once a launch
// (its bound), and part of it stays in the L2 from one launch to the next.
std::optional<DramTraffic> indirect_dram_traffic(const IndirectConfig& c, std::size_t l2_bytes);
DramTraffic indirect_dram_bound(const IndirectConfig& c, std::size_t l2_bytes);

}  // namespace membench
