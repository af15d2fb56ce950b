// Constant memory against global memory through the L1: every thread of a
// GPU-filling grid reads a table of `words` floats `rounds` times, the
// lanes of a warp reading `addresses` distinct words at once (lane l the
// word of lane l % addresses), and writes the sum of what it read.
//
//   constant  the table in __constant__ memory (the constant cache)
//   global    the same table in global memory (ld.global through the L1)
//
// The word lane l reads in round r is (97 r + 8 (l % addresses)) mod the
// table's words: the distinct words a sector apart, so `addresses` is also
// the sectors a global request touches; 97 is odd, so the rounds walk the
// whole table. The constant cache serves one
// address a request and serialises the rest; the L1 serves a request's
// sectors 4 (128 bytes) a clock.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "membench/platform/int_list.hpp"
#include "membench/platform/kernel_shape.hpp"

namespace membench {

enum class ConstantSpace { constant, global };
inline constexpr auto kConstantSpaces = enum_names<ConstantSpace>("constant", "global");

inline constexpr std::size_t kConstantMaxWords = 16384;  // 64 KiB: all constant memory a kernel may have
inline constexpr std::size_t kConstantMinWords = 256;    // 32 sectors: a sector for each lane
inline constexpr int kConstantBlock = 256;
inline constexpr int kConstantMaxRounds = 8192;  // every partial sum stays exact in float

struct ConstantConfig {
  ConstantSpace space = ConstantSpace::constant;
  int addresses = 1;         // distinct words a warp reads at once: 1 .. 32
  int rounds = 1024;         // reads per thread
  std::size_t words = 4096;  // the table's floats: a power of two from kConstantMinWords to kConstantMaxWords
};

// The word lane `lane` reads in round r.
inline std::size_t constant_word(const ConstantConfig& c, int round, int lane) {
  return (97u * static_cast<unsigned>(round) + 8u * static_cast<unsigned>(lane % c.addresses)) % c.words;
}

// Its launch: the input (`words` floats) is the table; a constant plan
// copies it into constant memory when bound (bind_table), before any
// launch. plan() refuses addresses outside 1 .. 32, rounds outside 1 ..
// kConstantMaxRounds or a table size it does not take with
// cudaErrorInvalidValue, before any CUDA call.
struct ConstantPlan {
  ConstantConfig config;
  KernelShape shape;
  std::size_t threads = 0;
};
cudaError_t plan(const ConstantConfig& c, ConstantPlan* plan);
// Copies the table into constant memory (a constant plan reads it from
// there), on `stream`: after the table's fill and before the launches that
// read it, whatever else the GPU runs. (cudaMemcpyToSymbol would go on the
// legacy default stream, which a non-blocking stream is not ordered with: a
// neighbour's load then lets the launch read a table not yet copied.)
cudaError_t bind_table(const ConstantPlan& p, const float* table, cudaStream_t stream);
cudaError_t launch(const ConstantPlan& p, const float* table, float* out, cudaStream_t stream);

// Thread t's sum: what it read, in any order (every partial sum is exact).
float constant_reference(const ConstantConfig& c, std::size_t thread, const float* table);

// Bytes the lanes receive per launch (4 a read), and the output written.
double constant_bytes(const ConstantConfig& c, std::size_t threads);
// Sectors a global request touches: one per distinct word.
int constant_sectors_per_request(const ConstantConfig& c);
// The requests the constant cache serves one after another for one warp read.
int constant_serialization(const ConstantConfig& c);
// The ceiling: a constant read costs `addresses` SM clocks a warp, a global
// read ceil(addresses / 4) (4 sectors a clock), 128 bytes delivered a warp read.
double constant_model_bytes_per_second(const ConstantConfig& c, int sm_count, double sm_clock_hz);

}  // namespace membench
