// The SM copy kernel and the side stream. See copy.hpp.
#include "launch_utils.cuh"
#include "membench/copy.hpp"
#include "membench/cuda.hpp"

namespace membench {

namespace kernels {

__global__ void copy_words(const uint4* __restrict__ src0, uint4* __restrict__ dst0, const uint4* __restrict__ src1,
                           uint4* __restrict__ dst1, std::size_t words, int jobs) {
  const bool second = jobs == 2 && (blockIdx.x & 1) != 0;
  const std::size_t blocks = jobs == 2 ? gridDim.x / 2 : gridDim.x;
  const std::size_t block = jobs == 2 ? blockIdx.x / 2 : blockIdx.x;
  const uint4* src = second ? src1 : src0;
  uint4* dst = second ? dst1 : dst0;
  const std::size_t stride = blocks * blockDim.x;
  for (std::size_t i = block * blockDim.x + threadIdx.x; i < words; i += stride) dst[i] = src[i];
}

}  // namespace kernels

namespace {
constexpr unsigned kCopyBlock = 256;
}

cudaError_t copy_kernel_shape(bool two_jobs, KernelShape* shape) {
  unsigned grid = 0;
  if (const cudaError_t rc = detail::resident_grid(kernels::copy_words, kCopyBlock, 0, &grid); rc != cudaSuccess)
    return rc;
  if (two_jobs) grid = std::max(2u, grid / 2 * 2);
  *shape = detail::shape_of(kernels::copy_words, grid, kCopyBlock);
  return cudaSuccess;
}

cudaError_t launch_copy(const CopyJob& first, const CopyJob* second, cudaStream_t stream) {
  if (first.bytes % 16 != 0 || (second != nullptr && second->bytes != first.bytes)) return cudaErrorInvalidValue;
  KernelShape shape;
  if (const cudaError_t rc = copy_kernel_shape(second != nullptr, &shape); rc != cudaSuccess) return rc;
  const uint4* src0 = static_cast<const uint4*>(first.src);
  uint4* dst0 = static_cast<uint4*>(first.dst);
  const uint4* src1 = second != nullptr ? static_cast<const uint4*>(second->src) : nullptr;
  uint4* dst1 = second != nullptr ? static_cast<uint4*>(second->dst) : nullptr;
  std::size_t words = first.bytes / 16;
  int jobs = second != nullptr ? 2 : 1;
  void* args[] = {&src0, &dst0, &src1, &dst1, &words, &jobs};
  return detail::launch_shape(shape, args, stream);
}

SideStream::SideStream() {
  MEMBENCH_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  MEMBENCH_CUDA(cudaEventCreateWithFlags(&forked_, cudaEventDisableTiming));
  MEMBENCH_CUDA(cudaEventCreateWithFlags(&joined_, cudaEventDisableTiming));
}

SideStream::~SideStream() {
  if (joined_ != nullptr) cudaEventDestroy(joined_);
  if (forked_ != nullptr) cudaEventDestroy(forked_);
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

cudaError_t SideStream::fork(cudaStream_t main) const {
  const cudaError_t rc = cudaEventRecord(forked_, main);
  return rc != cudaSuccess ? rc : cudaStreamWaitEvent(stream_, forked_, 0);
}

cudaError_t SideStream::join(cudaStream_t main) const {
  const cudaError_t rc = cudaEventRecord(joined_, stream_);
  return rc != cudaSuccess ? rc : cudaStreamWaitEvent(main, joined_, 0);
}

}  // namespace membench
