// The roofline at every level: a resident grid reads a working set held by
// one level (DRAM, the L2, each SM's L1, or each block's shared memory) as
// 16-byte loads, and does `fmas` dependent fp32 multiply-adds on each float
// it loads before summing it. At fmas 0 a case is bound by the level's
// bandwidth; as fmas grows the same bytes carry more arithmetic, until the
// FMA pipe binds: the turn is the level's ridge point, at fmas / 2 FLOP
// per byte loaded.
//
// Each float's chain is x = x a + b with a = 1 and b = 1/4 passed at run
// time (the compiler must issue every FFMA), so it ends at v + fmas / 4,
// exact in fp32 for the input's multiples of 1/4; a thread sums them in
// fp64, exactly, and the host's reference sums the same floats.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "membench/platform/int_list.hpp"
#include "membench/platform/kernel_shape.hpp"

namespace membench {

enum class RooflineLevel { dram, l2, l1, shared };
inline constexpr auto kRooflineLevels = enum_names<RooflineLevel>("dram", "l2", "l1", "shared");

inline constexpr int kRooflineBlock = 256;
inline constexpr int kRooflineOccupancy = 4;   // blocks an SM
inline constexpr int kRooflineMaxFmas = 1024;  // multiply-adds on each float loaded, at most
inline constexpr std::size_t kRooflineBlockFloats = std::size_t{1} << 12;  // l1, shared: each block's 16 KiB
// A launch reads at least this much (16 MiB of the L2 read 64 times, a DRAM
// set once), so it lasts long enough to time at every level.
inline constexpr double kRooflineMinBytes = double(std::size_t{1} << 30);

struct RooflineConfig {
  RooflineLevel level = RooflineLevel::dram;
  int fmas = 0;
  int sm_count = 1;
  std::size_t working_set = 0;  // floats the grid reads (dram, l2); each block reads kRooflineBlockFloats (l1, shared)
  double min_bytes = kRooflineMinBytes;  // a launch reads at least this much (a test: less)
};

// How the grid covers the set, pass after pass: `threads` threads, each
// loading float4 j = first + k x readers of its part for k < per_pass while
// j < float4s, `passes` times. dram and l2: the grid's threads over the whole
// set (readers = the grid's threads, first = the thread as `shift` moves it);
// l1 and shared: a block's threads over its own kRooflineBlockFloats
// (readers = the block, first = the thread in the block).
struct RooflineShape {
  std::size_t threads = 0;
  std::size_t float4s = 0;   // in the part a thread's block reads (dram, l2: the set)
  std::size_t per_pass = 0;  // float4 loads a thread makes in a pass, at most
  std::size_t passes = 0;
  // dram, l2: in pass p thread t reads as the thread (t + p shift) mod threads
  // (whole blocks, about 0.618 of the grid), so no SM reads a part again
  // while its L1 could still hold it; l1, shared: 0, each block its own part
  // every pass.
  std::size_t shift = 0;
};
RooflineShape roofline_shape(const RooflineConfig& c);

// Bytes a launch loads (and the sums written), and the FLOPs it does.
double roofline_bytes(const RooflineConfig& c);
double roofline_flops(const RooflineConfig& c);

// The input the case allocates: the set (dram, l2) or every block's region (l1, shared).
std::size_t roofline_input_floats(const RooflineConfig& c);

// Thread t's sum, on the host, over an input of pattern_value(i, seed): for
// dram and l2 each reader's one-pass sum worked out once (a pass over the
// set, on all cores), then the passes a thread makes looked up; a pure
// function of t, called from many threads.
class RooflineReference {
 public:
  RooflineReference(const RooflineConfig& c, std::uint32_t seed);
  double operator()(std::size_t t) const;

 private:
  RooflineConfig c_;
  RooflineShape shape_;
  std::uint32_t seed_;
  std::vector<double> passes_;  // dram, l2: reader v's one-pass sum
};

// Refuses fmas outside [0, kRooflineMaxFmas], sm_count < 1, a dram or l2
// set that is empty or not whole float4s, and a pass whose fp32 sum would
// not stay exact (more than about 2^22 quarters), with cudaErrorInvalidValue
// before any CUDA call. The output: one double a thread.
using RooflinePlan = Plan<RooflineConfig, const float*, double*>;
cudaError_t plan(const RooflineConfig& c, RooflinePlan* plan);

}  // namespace membench
