// Global-memory experiment: how coalescing, stride and access width set the
// bandwidth a kernel gets from DRAM. Every variant computes out[i] = 2 * in[i]
// (memcpy copies) over n floats; the launcher never synchronizes.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

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
//   misaligned         coalesced, reading from `offset` floats past an
//                      aligned start: out[i] = 2 * in[i + offset]
//   strided_readonly   strided, through the read-only data path (ld.global.nc)
//   strided_texture    strided, through a texture object (tex1Dfetch)
enum class GlobalVariant {
  coalesced,
  strided,
  strided_full_grid,
  vectorized,
  memcpy,
  broadcast,
  misaligned,
  strided_readonly,
  strided_texture
};
inline constexpr auto kGlobalVariants =
    enum_names<GlobalVariant>("coalesced", "strided", "strided_full_grid", "vectorized", "memcpy", "broadcast",
                              "misaligned", "strided_readonly", "strided_texture");

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
  std::size_t offset = 0;  // misaligned: floats past the aligned start
};

inline constexpr std::size_t kGlobalMaxOffset = 32;  // floats

// Its launch (shape.function == nullptr for memcpy): out[i] = 2 * in[i] for
// every element the variant touches (memcpy: out = in), the others
// untouched; vectorized needs 16-byte aligned pointers. plan() refuses a
// config this build does not run (stride 0, an unbuilt vector width or
// depth) with cudaErrorInvalidValue, before any CUDA call.
using GlobalPlan = Plan<GlobalConfig, const float*, float*>;
cudaError_t plan(const GlobalConfig& c, GlobalPlan* plan);

// strided_texture reads through a texture object over the input, made once
// for the case's buffer (a launch of the plan alone is refused).
class FloatTexture {
 public:
  FloatTexture(const float* in, std::size_t n);  // throws CudaError
  ~FloatTexture();
  FloatTexture(const FloatTexture&) = delete;
  FloatTexture& operator=(const FloatTexture&) = delete;
  cudaTextureObject_t get() const noexcept { return texture_; }

 private:
  cudaTextureObject_t texture_ = 0;
};
cudaError_t launch(const GlobalPlan& p, const FloatTexture& in, float* out, cudaStream_t stream);
// Whether the device's linear textures hold n floats (else why not).
bool texture_holds(std::size_t n, std::string* why);

// Floats of input a case reads: n, and `offset` more for misaligned.
std::size_t global_input_floats(const GlobalConfig& c);

// Whether the variant writes element i, which input element it reads for it
// (i itself but for broadcast), and what the host reference says it holds.
bool global_writes(const GlobalConfig& c, std::size_t i);
std::size_t global_source(const GlobalConfig& c, std::size_t i);
inline float global_reference(const GlobalConfig& c, float x) {
  return c.variant == GlobalVariant::memcpy ? x : 2.0f * x;
}

// Elements a case reads (and writes): n, or ceil(n / stride) for the strided variants.
std::size_t global_elements_touched(const GlobalConfig& c);
// Useful bytes per launch: each touched element read once and written once;
// for broadcast, the float each warp needs (one for its 32 lanes) and every
// float written.
double global_bytes(const GlobalConfig& c);
// Sector bytes the L1 (or the texture path) asks of the L2 per launch: every
// sector the reads touch, once (no warp shares a sector with another).
double global_l2_read_bytes(const GlobalConfig& c);

// The model of one warp load: bytes per access and byte stride between lanes
// (0 for broadcast: one sector serves the warp).
int global_access_bytes(const GlobalConfig& c);
std::size_t global_lane_stride_bytes(const GlobalConfig& c);
// Sectors one warp's load touches: sectors_per_request of the access and
// the lane stride, from a sector-aligned start but for misaligned, whose
// 128 bytes straddle a fifth sector unless offset is a multiple of 8.
int global_sectors_per_request(const GlobalConfig& c);
// DRAM bytes one launch moves when the arrays are far larger than the L2.
DramTraffic global_dram_traffic(const GlobalConfig& c);

}  // namespace membench
