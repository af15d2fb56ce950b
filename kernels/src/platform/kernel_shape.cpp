#include "membench/platform/kernel_shape.hpp"

#include <algorithm>
#include <utility>

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

namespace {

// The answer for one kernel on the current device: empty when it runs, else why not.
std::string sm90_refusal(const void* kernel, const std::string& feature, const std::string& kernel_name, int device) {
  constexpr int kArch = 90;
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess)
    return std::string("no CUDA device");
  if (major * 10 + minor < kArch)
    return std::string(feature + " needs compute capability 9.0 or newer (this GPU is " + std::to_string(major) + "." +
                       std::to_string(minor) + ")");
  cudaFuncAttributes attr{};
  if (cudaFuncGetAttributes(&attr, kernel) != cudaSuccess)
    return std::string("this binary holds no code for the " + kernel_name + " kernel that this GPU can run");
  const int arch = compiled_arch(attr.ptxVersion, attr.binaryVersion);
  if (arch < kArch)
    return std::string("the " + kernel_name + " kernel was compiled for sm_" + std::to_string(arch) +
                       " (JIT-compiled on this GPU), which has no " + feature.substr(feature.find(' ') + 1) +
                       "; rebuild with CMAKE_CUDA_ARCHITECTURES including 90");
  return {};
}

}  // namespace

bool sm90_kernel_runs(const void* kernel, const std::string& feature, const std::string& kernel_name,
                      std::string* why) {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    if (why != nullptr) *why = "no CUDA device";
    return false;
  }
  const std::string refusal = sm90_refusal(kernel, feature, kernel_name, device);
  if (!refusal.empty() && why != nullptr) *why = refusal;
  return refusal.empty();
}

}  // namespace membench
