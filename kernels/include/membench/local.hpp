// Local memory: a per-thread array of `elements` floats, filled from global
// memory (coalesced, each block from a contiguous run of its own), then read
// `rounds` times at an index the warp shares, and the sum written.
//
//   dynamic    the index is known only at run time (j = 5 j + 1 mod elements,
//              from a start the kernel is given): the array cannot be
//              registers indexed by number, so it lives in local memory,
//              unless the compiler picks the element among a few registers
//              by comparisons (it does for 8 floats)
//   unrolled   the same reads at indices the compiler knows (the loop over
//              the array unrolled): the array lives in registers until it
//              outgrows them, and the compiler spills the rest
//   shared     the dynamic index into the block's shared memory, one column
//              a thread (no bank conflict)
//
// Every variant reads each element rounds / elements times (the sequence
// has full period), so each thread's sum is (rounds / elements) x the sum
// of its array, exact in float.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "membench/platform/int_list.hpp"
#include "membench/platform/kernel_shape.hpp"
#include "membench/platform/pattern.hpp"  // MEMBENCH_HOST_DEVICE

namespace membench {

enum class LocalVariant { dynamic, unrolled, shared };
inline constexpr auto kLocalVariants = enum_names<LocalVariant>("dynamic", "unrolled", "shared");

using LocalSizes = IntList<8, 16, 32, 64, 128, 256>;  // floats per thread
inline constexpr int kLocalBlock = 256;
inline constexpr int kLocalMaxRounds = 8192;

struct LocalConfig {
  LocalVariant variant = LocalVariant::dynamic;
  int elements = 8;
  int rounds = 1024;  // a multiple of elements
  std::size_t threads = std::size_t{1} << 20;
};

// Where thread t's k-th input float lies: each block's arrays are one
// contiguous run, element k of its threads a row of kLocalBlock floats. A
// layout of rows a whole grid wide (k x threads + t) put a thread's loads
// megabytes apart, and the rate followed where the allocation landed (the
// DRAM pages the rows fell on), so a case moved with what ran before it.
MEMBENCH_HOST_DEVICE inline std::size_t local_input_index(int k, std::size_t t, int elements) {
  return (t / kLocalBlock * elements + k) * kLocalBlock + t % kLocalBlock;
}

// Its launch: in holds elements x threads floats (thread t's k-th at
// local_input_index), out one sum a thread. plan() refuses an unbuilt size, rounds
// that are not a multiple of elements, and threads that are not a multiple
// of the block, with cudaErrorInvalidValue before any CUDA call; a shared
// plan that needs more shared memory than a block may have, with
// cudaErrorInvalidConfiguration.
using LocalPlan = Plan<LocalConfig, const float*, float*>;
cudaError_t plan(const LocalConfig& c, LocalPlan* plan);

// Local memory a thread of the variant's kernel has (cudaFuncGetAttributes).
cudaError_t local_bytes_per_thread(const LocalPlan& p, std::size_t* bytes);

// Shared memory a block of the shared variant needs.
std::size_t local_shared_bytes(const LocalConfig& c);
// Useful bytes: the array read from global memory, and the sums written.
double local_bytes(const LocalConfig& c);
// The traffic through the L1 of an array in local memory: the array stored
// once, and every read a load (a warp's 32 lanes at one index: 128
// contiguous bytes, 4 sectors).
double local_store_bytes(const LocalConfig& c);
double local_load_bytes(const LocalConfig& c);

}  // namespace membench
