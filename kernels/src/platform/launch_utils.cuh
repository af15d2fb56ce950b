// Small helpers shared by the launchers: grid arithmetic, the size of a grid
// that just fills the GPU for grid-stride kernels, the shape record, and a
// cluster launch configuration.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include "membench/platform/kernel_shape.hpp"

namespace membench::detail {

constexpr std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// Blocks that fit on the whole GPU at once (occupancy x SM count) on the
// current device. Asked when a launch is planned, never per launch.
template <class Kernel>
cudaError_t resident_grid(Kernel kernel, int block, std::size_t dynamic_smem, unsigned* grid) {
  int device = 0;
  cudaError_t rc = cudaGetDevice(&device);
  if (rc != cudaSuccess) return rc;
  int sms = 0;
  rc = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (rc != cudaSuccess) return rc;
  int per_sm = 0;
  rc = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, dynamic_smem);
  if (rc != cudaSuccess) return rc;
  if (per_sm < 1) return cudaErrorInvalidConfiguration;
  *grid = static_cast<unsigned>(sms * per_sm);
  return cudaSuccess;
}

// Gives `kernel` as much of the SM's unified L1 as cache as it can have
// without losing a block: the smallest shared-memory carveout (a percentage
// of the most an SM can have) at which as many blocks of `block` threads fit
// on an SM as at the largest. A carveout of 0 alone can cost blocks: each
// block also holds the shared memory the system reserves for it, and the
// smallest shared-memory size holds only so many of those.
template <class Kernel>
cudaError_t prefer_l1(Kernel kernel, int block) {
  auto blocks_at = [&](int carveout, int* per_sm) {
    const cudaError_t rc = cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, carveout);
    return rc != cudaSuccess ? rc : cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, kernel, block, 0);
  };
  int most = 0;
  if (const cudaError_t rc = blocks_at(100, &most); rc != cudaSuccess) return rc;
  for (int carveout = 0; carveout < 100; ++carveout) {
    int per_sm = 0;
    if (const cudaError_t rc = blocks_at(carveout, &per_sm); rc != cudaSuccess) return rc;
    if (per_sm >= most) return cudaSuccess;
  }
  return blocks_at(100, &most);
}

template <class Kernel>
KernelShape shape_of(Kernel kernel, dim3 grid, dim3 block, std::size_t dynamic_smem = 0) {
  return {reinterpret_cast<const void*>(kernel), grid.x * grid.y * grid.z, block.x * block.y * block.z, dynamic_smem};
}

// Launch-time errors (bad configuration) surface here, without synchronizing.
inline cudaError_t last_launch_error() { return cudaGetLastError(); }

// A launch configuration in thread-block clusters of `cluster` blocks along x.
class ClusterLaunch {
 public:
  ClusterLaunch(unsigned grid, unsigned block, std::size_t dynamic_smem, unsigned cluster, cudaStream_t stream) {
    attr_.id = cudaLaunchAttributeClusterDimension;
    attr_.val.clusterDim.x = cluster;
    attr_.val.clusterDim.y = 1;
    attr_.val.clusterDim.z = 1;
    config_.gridDim = dim3(grid);
    config_.blockDim = dim3(block);
    config_.dynamicSmemBytes = dynamic_smem;
    config_.stream = stream;
    config_.attrs = &attr_;
    config_.numAttrs = 1;
  }
  ClusterLaunch(const ClusterLaunch&) = delete;
  ClusterLaunch& operator=(const ClusterLaunch&) = delete;
  const cudaLaunchConfig_t* config() const { return &config_; }

 private:
  cudaLaunchAttribute attr_{};
  cudaLaunchConfig_t config_{};
};

// Clusters of `cluster` blocks that fit on the GPU at once.
inline cudaError_t resident_clusters(const void* kernel, unsigned cluster, int block, std::size_t dynamic_smem,
                                     int* clusters) {
  const ClusterLaunch launch(cluster, static_cast<unsigned>(block), dynamic_smem, cluster, nullptr);
  return cudaOccupancyMaxActiveClusters(clusters, kernel, launch.config());
}

}  // namespace membench::detail
