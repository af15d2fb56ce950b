// compute/wgmma_*'s plan, built apart (sm_90a code alone). See compute.hpp.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include "membench/compute.hpp"
#include "platform/launch_utils.cuh"

namespace membench::detail {

// B's width: wgmma.m64n128, 64 accumulators a thread each chain.
inline constexpr int kWgmmaN = 128;

// The occupancy check and the shape every compute plan shares: `occupancy`
// blocks of kComputeBlock on each SM, cudaErrorInvalidConfiguration where
// the SM holds fewer.
template <class Kernel>
cudaError_t plan_compute_kernel(const ComputeConfig& c, Kernel kernel, ComputePlan::Run run, ComputePlan* p) {
  int per_sm = 0;
  const cudaError_t rc = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kComputeBlock, 0);
  if (rc != cudaSuccess) return rc;
  if (per_sm < c.occupancy) return cudaErrorInvalidConfiguration;
  p->shape = detail::shape_of(kernel, static_cast<unsigned>(c.sm_count * c.occupancy), kComputeBlock);
  p->run = run;
  return cudaSuccess;
}

// A wgmma variant's plan for chains 1 or 2 (cudaErrorInvalidValue for any
// other: 64 accumulators a thread each); cudaErrorNotSupported where the
// build carries no sm_90a code or the GPU is not compute capability 9.0.
cudaError_t plan_wgmma(const ComputeConfig& c, ComputePlan* p);

}  // namespace membench::detail
