// The SM copy kernel and the side stream. See copy.hpp.
#include "membench/copy.hpp"
#include "membench/platform/cuda.hpp"
#include "platform/launch_utils.cuh"

namespace membench {

namespace kernels {

// A 16-byte load the compiler must issue each time, though the source of a
// later pass holds what the first pass read; its memory clobber keeps the
// stores of every pass (else all but the last pass's would be dead).
__device__ __forceinline__ uint4 load_again(const uint4* p) {
  uint4 v;
  asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p)
               : "memory");
  return v;
}

__global__ void copy_words(const uint4* __restrict__ src0, uint4* __restrict__ dst0, const uint4* __restrict__ src1,
                           uint4* __restrict__ dst1, std::size_t words, int jobs, int passes) {
  const bool second = jobs == 2 && (blockIdx.x & 1) != 0;
  const std::size_t blocks = jobs == 2 ? gridDim.x / 2 : gridDim.x;
  const std::size_t block = jobs == 2 ? blockIdx.x / 2 : blockIdx.x;
  const uint4* src = second ? src1 : src0;
  uint4* dst = second ? dst1 : dst0;
  const std::size_t stride = blocks * blockDim.x;
  const std::size_t first = block * blockDim.x + threadIdx.x;
  for (std::size_t i = first; i < words; i += stride) dst[i] = src[i];
  for (int pass = 1; pass < passes; ++pass)
    for (std::size_t i = first; i < words; i += stride) dst[i] = load_again(src + i);
}

}  // namespace kernels

namespace {
constexpr unsigned kCopyBlock = 256;
}

cudaError_t plan(bool two_jobs, CopyPlan* p, int passes) {
  if (passes < 1 || passes > kCopyMaxPasses) return cudaErrorInvalidValue;
  unsigned grid = 0;
  if (const cudaError_t rc = detail::resident_grid(kernels::copy_words, kCopyBlock, 0, &grid); rc != cudaSuccess)
    return rc;
  if (two_jobs) grid = std::max(2u, grid / 2 * 2);
  p->shape = detail::shape_of(kernels::copy_words, grid, kCopyBlock);
  p->two_jobs = two_jobs;
  p->passes = passes;
  return cudaSuccess;
}

cudaError_t launch_copy(const CopyPlan& p, const CopyJob& first, const CopyJob* second, cudaStream_t stream) {
  if (first.bytes % 16 != 0 || (second != nullptr) != p.two_jobs || (second != nullptr && second->bytes != first.bytes))
    return cudaErrorInvalidValue;
  const uint4* src1 = second != nullptr ? static_cast<const uint4*>(second->src) : nullptr;
  uint4* dst1 = second != nullptr ? static_cast<uint4*>(second->dst) : nullptr;
  kernels::copy_words<<<p.shape.grid, p.shape.block, 0, stream>>>(
      static_cast<const uint4*>(first.src), static_cast<uint4*>(first.dst), src1, dst1, first.bytes / 16,
      second != nullptr ? 2 : 1, p.passes);
  return cudaGetLastError();
}

cudaError_t launch_copy(const CopyJob& first, const CopyJob* second, cudaStream_t stream) {
  CopyPlan p;
  if (const cudaError_t rc = plan(second != nullptr, &p); rc != cudaSuccess) return rc;
  return launch_copy(p, first, second, stream);
}

cudaError_t launch(const CopyOperation& op, std::size_t bytes, const CopyEnds& ends, const CopyPlan& sm,
                   const SideStream* side, const EngineCopy& engine, cudaStream_t stream) {
  if (bytes % 16 != 0) return cudaErrorInvalidValue;
  const CopyJob in{ends.in_source, ends.in_destination, bytes};
  const CopyJob out{ends.out_source, ends.out_destination, bytes};
  if (op.uses_sm()) {
    if (op.direction == CopyDirection::both) return launch_copy(sm, in, &out, stream);
    return launch_copy(sm, op.comes_in() ? in : out, nullptr, stream);
  }
  if (op.direction != CopyDirection::both) {
    const CopyJob& job = op.comes_in() ? in : out;
    return engine(job.dst, job.src, op.comes_in(), stream);
  }
  // Both at once: out on the side stream, in on the main one, joined.
  if (side == nullptr) return cudaErrorInvalidValue;
  cudaError_t rc = side->fork(stream);
  if (rc == cudaSuccess) rc = engine(out.dst, out.src, false, side->get());
  if (rc == cudaSuccess) rc = engine(in.dst, in.src, true, stream);
  return rc == cudaSuccess ? side->join(stream) : rc;
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
