// Copies by SM threads between any memory a kernel can reach (device
// memory, mapped host memory, another GPU's memory with peer access), and a
// side stream that runs a second copy at the same time as the first.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "membench/kernel_shape.hpp"

namespace membench {

struct CopyJob {
  const void* src = nullptr;
  void* dst = nullptr;
  std::size_t bytes = 0;  // a multiple of 16
};

// One kernel on a resident grid copying 16-byte words: `first` alone, or
// `first` and `*second` at once (even blocks the first, odd the second; the
// two must be the same size).
cudaError_t launch_copy(const CopyJob& first, const CopyJob* second, cudaStream_t stream);
cudaError_t copy_kernel_shape(bool two_jobs, KernelShape* shape);

// A second stream of the current device. fork: work enqueued on it next
// starts after what `main` holds so far; join: what `main` gets next waits
// for the side's work. Both only record and wait on events, so a CUDA graph
// can capture them.
class SideStream {
 public:
  SideStream();
  ~SideStream();
  SideStream(const SideStream&) = delete;
  SideStream& operator=(const SideStream&) = delete;
  cudaStream_t get() const { return stream_; }
  cudaError_t fork(cudaStream_t main) const;
  cudaError_t join(cudaStream_t main) const;

 private:
  cudaStream_t stream_ = nullptr;
  cudaEvent_t forked_ = nullptr, joined_ = nullptr;
};

}  // namespace membench
