// Global-memory experiment: how coalescing, stride and access width set the
// bandwidth a kernel gets from DRAM. Every variant computes out[i] = 2 * in[i]
// (memcpy copies) over n floats; the launcher never synchronizes.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "membench/platform/int_list.hpp"
#include "membench/platform/kernel_shape.hpp"
#include "membench/platform/models.hpp"

namespace membench {

//   coalesced          one float per thread
//   strided            thread t handles element t * stride: ceil(n / stride) threads
//   strided_full_grid  the same kernel launched over n threads, those
//                      with t * stride >= n exit at once
//   vectorized         vec-float accesses, ilp loads in flight, grid-stride or one trip
//   memcpy             cudaMemcpyAsync device to device, the ceiling
//   broadcast          every lane of a warp reads one address, its warp's
//                      first element: out[i] = 2 * in[i rounded down to 32]
enum class GlobalVariant { coalesced, strided, strided_full_grid, vectorized, memcpy, broadcast };
inline constexpr auto kGlobalVariants =
    enum_names<GlobalVariant>("coalesced", "strided", "strided_full_grid", "vectorized", "memcpy", "broadcast");

inline constexpr int kGlobalBlock = 256;  // threads per block
using VectorWidths = IntList<1, 2, 4>;    // floats per access
using IlpDepths = IntList<1, 2, 4, 8>;    // independent loads in flight per thread

struct GlobalConfig {
  GlobalVariant variant = GlobalVariant::coalesced;
  std::size_t n = 0;       // floats
  std::size_t stride = 1;  // strided variants
  int vec = 1;             // vectorized
  int ilp = 1;             // vectorized
  bool persistent = true;  // vectorized: a GPU-filling grid strides over the array; else one trip per thread
};

// Its launch (shape.function == nullptr for memcpy): out[i] = 2 * in[i] for
// every element the variant touches (memcpy: out = in), the others
// untouched; vectorized needs 16-byte aligned pointers. plan() refuses a
// config this build does not run (stride 0, an unbuilt vector width or
// depth) with cudaErrorInvalidValue, before any CUDA call.
using GlobalPlan = Plan<GlobalConfig, const float*, float*>;
cudaError_t plan(const GlobalConfig& c, GlobalPlan* plan);
// Planned for this launch alone.
cudaError_t launch(const GlobalConfig& c, const float* in, float* out, cudaStream_t stream);

// Whether the variant writes element i, which input element it reads for it
// (i itself but for broadcast), and what the host reference says it holds.
bool global_writes(const GlobalConfig& c, std::size_t i);
std::size_t global_source(const GlobalConfig& c, std::size_t i);
inline float global_reference(const GlobalConfig& c, float x) {
  return c.variant == GlobalVariant::memcpy ? x : 2.0f * x;
}

// Elements a case reads (and writes): n, or ceil(n / stride) for the strided variants.
std::size_t global_elements_touched(const GlobalConfig& c);
// Useful bytes per launch: each touched element read once and written once.
double global_bytes(const GlobalConfig& c);

// The model of one warp load: bytes per access and byte stride between lanes
// (0 for broadcast: one sector serves the warp).
int global_access_bytes(const GlobalConfig& c);
std::size_t global_lane_stride_bytes(const GlobalConfig& c);
// DRAM bytes one launch moves when the arrays are far larger than the L2.
DramTraffic global_dram_traffic(const GlobalConfig& c);

}  // namespace membench
