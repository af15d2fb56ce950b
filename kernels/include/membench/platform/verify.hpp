// Host-side checking of a device result against a host reference, bit for
// bit: an expected poison value means "this element must stay unwritten".
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "membench/platform/cuda.hpp"
#include "membench/platform/pattern.hpp"

namespace membench {

struct Mismatch {
  std::size_t index = 0;  // the first element that differs
  double got = 0;
  double expected = 0;
  bool got_poison = false;
  bool expected_poison = false;
  std::size_t count = 1;  // elements that differ in all
  std::size_t total = 0;  // elements checked
};

// Copies `count` elements from device memory (synchronously).
template <class T>
std::vector<T> copy_to_host(const T* device, std::size_t count) {
  std::vector<T> host(count);
  MEMBENCH_CUDA(cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

template <class T>
Mismatch mismatch_at(std::size_t i, T got, T want, std::size_t total) {
  return {i, static_cast<double>(got), static_cast<double>(want), is_poison(got), is_poison(want), 1, total};
}

// First index where `got[i]` and `expected(i)` differ in their bits.
template <class T, class Expected>
std::optional<Mismatch> first_mismatch(const std::vector<T>& got, Expected&& expected) {
  for (std::size_t i = 0; i < got.size(); ++i) {
    const T want = expected(i);
    if (std::memcmp(&got[i], &want, sizeof(T)) != 0) return mismatch_at(i, got[i], want, got.size());
  }
  return std::nullopt;
}

// Runs work(worker, begin, end) over [0, n) split across the host's cores,
// in pieces of at least min_piece: parallel_workers(n, min_piece) workers,
// numbered from 0, each on its own thread.
std::size_t parallel_workers(std::size_t n, std::size_t min_piece);
void parallel_for(std::size_t n, std::size_t min_piece,
                  const std::function<void(std::size_t, std::size_t, std::size_t)>& work);

// Host reference for kernels that sum what they read: the exact sum of the
// float pattern (seed) over each of `chunks` consecutive runs of
// `floats_per_chunk` elements, on all host cores.
std::vector<double> pattern_chunk_sums(std::size_t chunks, std::size_t floats_per_chunk, std::uint32_t seed);

// The whole check split across the host's cores (`expected` must be a pure
// function of i): the lowest bad index and how many elements differ. The
// pieces are small (kCheckMinPiece elements at least), because one element
// may stand for a long sum: a reduction's partial sum of a whole block.
inline constexpr std::size_t kCheckMinPiece = 64;
std::optional<Mismatch> all_mismatches(const std::vector<float>& got,
                                       const std::function<float(std::size_t)>& expected);
std::optional<Mismatch> all_mismatches(const float* got, std::size_t count,
                                       const std::function<float(std::size_t)>& expected);
std::optional<Mismatch> all_mismatches(const std::vector<double>& got,
                                       const std::function<double(std::size_t)>& expected);

// The same check of `count` elements that arrive a piece at a time:
// fetch(first, n, into) puts elements [first, first + n) into `into`, one of
// the two buffers, each `piece` elements long; piece k is checked while piece
// k + 1 is fetched into the other buffer. Indices and counts are those of the
// whole array.
template <class T>
using FetchPiece = std::function<void(std::size_t first, std::size_t n, T* into)>;
std::optional<Mismatch> piecewise_mismatches(std::size_t count, std::size_t piece, float* const buffers[2],
                                             const FetchPiece<float>& fetch,
                                             const std::function<float(std::size_t)>& expected);
std::optional<Mismatch> piecewise_mismatches(std::size_t count, std::size_t piece, double* const buffers[2],
                                             const FetchPiece<double>& fetch,
                                             const std::function<double(std::size_t)>& expected);

// The check of `count` elements of device memory (the current device's, or
// any the runtime can address), copied to the host through two pinned
// buffers of kStagingBytes each: one pair for the process, whatever the
// element type. No host copy of the whole array is made, and the copy runs
// at the link's pinned rate while the previous piece is checked.
inline constexpr std::size_t kStagingBytes = std::size_t{32} << 20;
std::optional<Mismatch> device_mismatches(const float* device, std::size_t count,
                                          const std::function<float(std::size_t)>& expected);
std::optional<Mismatch> device_mismatches(const double* device, std::size_t count,
                                          const std::function<double(std::size_t)>& expected);

// "verification failed: out[12] = poison (never written), expected 4.5 (2 of 1024 elements differ)".
std::string describe(const Mismatch& m, const std::string& array_name);

}  // namespace membench
