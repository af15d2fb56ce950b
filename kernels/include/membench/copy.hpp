// One copy operation between this GPU and a far end (host memory, another
// GPU), as NVIDIA's nvbandwidth models it: the bytes come in to this GPU, go
// out from it, or both at once, moved by a copy engine or by this GPU's SMs
// (a kernel copying 16-byte words through any memory it can reach: mapped
// host memory, another GPU's memory with peer access). The transfer and peer
// families are this operation with different far ends.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>

#include "membench/platform/kernel_shape.hpp"

namespace membench {

enum class CopyDirection { in, out, both };
enum class CopyInitiator { copy_engine, sm };

struct CopyOperation {
  CopyDirection direction = CopyDirection::in;
  CopyInitiator initiator = CopyInitiator::copy_engine;
  bool comes_in() const { return direction != CopyDirection::out; }
  bool goes_out() const { return direction != CopyDirection::in; }
  int directions() const { return (comes_in() ? 1 : 0) + (goes_out() ? 1 : 0); }
  bool uses_sm() const { return initiator == CopyInitiator::sm; }
};

// The order in which both families list their variants (nvbandwidth's names):
// in, out and both by the copy engine, then the same by the SMs.
inline constexpr CopyOperation kCopyOperations[] = {
    {CopyDirection::in, CopyInitiator::copy_engine},   {CopyDirection::out, CopyInitiator::copy_engine},
    {CopyDirection::both, CopyInitiator::copy_engine}, {CopyDirection::in, CopyInitiator::sm},
    {CopyDirection::out, CopyInitiator::sm},           {CopyDirection::both, CopyInitiator::sm}};

// Bytes per launch: the bytes of one direction x the directions moved x the passes.
inline double copy_bytes(const CopyOperation& op, std::size_t bytes, int passes = 1) {
  return static_cast<double>(bytes) * op.directions() * passes;
}

struct CopyJob {
  const void* src = nullptr;
  void* dst = nullptr;
  std::size_t bytes = 0;  // a multiple of 16
};

// The SM copy worked out once: one kernel on a resident grid copying
// 16-byte words, for one job, or for two at once (even blocks the first, odd
// the second; the two the same size), `passes` times over the same words in
// one launch (nvbandwidth's loop count). Past the first pass every load is
// volatile, so each pass reads its source again rather than a register; a
// pass is not ordered after the one before it, as nvbandwidth's are not.
inline constexpr int kCopyMaxPasses = 1024;
struct CopyPlan {
  KernelShape shape;
  bool two_jobs = false;
  int passes = 1;
};
// cudaErrorInvalidValue, before any CUDA call, for passes outside 1..kCopyMaxPasses.
cudaError_t plan(bool two_jobs, CopyPlan* plan, int passes = 1);
cudaError_t launch_copy(const CopyPlan& p, const CopyJob& first, const CopyJob* second, cudaStream_t stream);
// Planned for this launch alone.
cudaError_t launch_copy(const CopyJob& first, const CopyJob* second, cudaStream_t stream);

class SideStream;

// The four addresses of an operation: what goes out from this GPU and where
// it lands at the far end, and what comes in from the far end and where it
// lands here. For the copy engine the far end's addresses as its call takes
// them (a host pointer); for the SMs as a kernel reaches them.
struct CopyEnds {
  const void* out_source = nullptr;
  void* out_destination = nullptr;
  const void* in_source = nullptr;
  void* in_destination = nullptr;
};

// One direction by the copy engine, the far end's own call
// (cudaMemcpyAsync for host memory, cudaMemcpyPeerAsync for another GPU).
using EngineCopy = std::function<cudaError_t(void* dst, const void* src, bool comes_in, cudaStream_t stream)>;

// Moves `bytes` each way the operation goes, on `stream`: by `engine` (both
// directions at once on two streams, the second on `side`), or by the SM
// copy `sm`. Never synchronizes.
cudaError_t launch(const CopyOperation& op, std::size_t bytes, const CopyEnds& ends, const CopyPlan& sm,
                   const SideStream* side, const EngineCopy& engine, cudaStream_t stream);

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
