#include "membench/kernel_shape.hpp"

#include <algorithm>

namespace membench {

int compiled_arch(int ptx_version, int binary_version) {
  if (ptx_version <= 0) return binary_version;
  return std::min(ptx_version, binary_version);
}

cudaError_t kernel_facts(const KernelShape& shape, KernelFacts* facts) {
  if (shape.function == nullptr) return cudaErrorInvalidDeviceFunction;
  cudaFuncAttributes attr{};
  cudaError_t rc = cudaFuncGetAttributes(&attr, shape.function);
  if (rc != cudaSuccess) return rc;
  int per_sm = 0;
  rc = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, shape.function, static_cast<int>(shape.block),
                                                     shape.dynamic_smem);
  if (rc != cudaSuccess) return rc;
  facts->blocks_per_sm = per_sm;
  facts->registers = attr.numRegs;
  facts->smem_per_block = attr.sharedSizeBytes + shape.dynamic_smem;
  facts->compiled_arch = compiled_arch(attr.ptxVersion, attr.binaryVersion);
  return cudaSuccess;
}

}  // namespace membench
