// The end of every reading kernel that proves what it read: the block's
// per-thread sums added up (cub::BlockReduce) into one double per block.
#pragma once

#include <cub/block/block_reduce.cuh>

namespace membench::kernels {

// partial[blockIdx.x] = the sum of `value` over the block's BLOCK threads
// (a 1-D block). Every thread must call it: it holds a barrier.
template <int BLOCK>
__device__ __forceinline__ void store_block_sum(double value, double* partial) {
  using Reduce = cub::BlockReduce<double, BLOCK>;
  __shared__ typename Reduce::TempStorage scratch;
  const double sum = Reduce(scratch).Sum(value);
  if (threadIdx.x == 0) partial[blockIdx.x] = sum;
}

}  // namespace membench::kernels
