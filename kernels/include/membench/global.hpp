// Global-memory experiment: how coalescing, stride and access width set the
// bandwidth a kernel gets from DRAM. Launchers never synchronize.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <vector>

namespace membench {

enum class GlobalVariant { coalesced, strided, vectorized, memcpy };
const std::vector<GlobalVariant>& global_variants();
std::string to_string(GlobalVariant v);

inline constexpr int kGlobalBlock = 256;  // threads per block, as in the study

// out[i] = 2 * in[i], one float per thread (the study's kernel).
cudaError_t launch_global_coalesced(const float* in, float* out, std::size_t n, cudaStream_t stream);

// Thread t handles element t * stride of an n-element array: out[i] = 2 * in[i]
// for i a multiple of stride; the other elements stay untouched.
cudaError_t launch_global_strided(const float* in, float* out, std::size_t n, std::size_t stride,
                                  cudaStream_t stream);

// out[i] = 2 * in[i] with `vec`-float accesses (1, 2 or 4) and `ilp`
// independent loads in flight per thread (1, 2, 4 or 8), in a grid-stride
// loop. persistent = 1: a grid that just fills the GPU strides over the array;
// persistent = 0: enough blocks that every thread makes one trip. Pointers
// must be 16-byte aligned.
cudaError_t launch_global_vectorized(const float* in, float* out, std::size_t n, int vec, int ilp, int persistent,
                                     cudaStream_t stream);
bool vectorized_supported(int vec, int ilp);
inline constexpr int kVectorWidths[] = {1, 2, 4};
inline constexpr int kIlpDepths[] = {1, 2, 4, 8};

// cudaMemcpyAsync device to device: the ceiling the kernels are compared with.
cudaError_t launch_global_memcpy(const float* in, float* out, std::size_t n, cudaStream_t stream);

// Elements a case reads (and writes): n, or ceil(n / stride) for strided.
std::size_t global_elements_touched(GlobalVariant v, std::size_t n, std::size_t stride);

// Useful bytes per launch: each touched element read once and written once.
double global_bytes(GlobalVariant v, std::size_t n, std::size_t stride);

// Whether element i is written by the variant (all of them, except strided).
inline bool global_writes(GlobalVariant v, std::size_t i, std::size_t stride) {
  return v != GlobalVariant::strided || i % stride == 0;
}

// The host reference for a written element: the kernels double, memcpy copies.
inline float global_reference(GlobalVariant v, float x) { return v == GlobalVariant::memcpy ? x : 2.0f * x; }

// The model: bytes per access and byte stride between lanes of a warp load.
int global_access_bytes(GlobalVariant v, int vec);
std::size_t global_lane_stride_bytes(GlobalVariant v, std::size_t stride, int vec);

}  // namespace membench
