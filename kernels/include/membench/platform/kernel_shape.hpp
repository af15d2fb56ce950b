// What a launcher will launch: the kernel, its grid and block, its dynamic
// shared memory. The runner turns it into occupancy facts (blocks per SM,
// registers, shared memory per block) reported beside every measurement,
// and the support checks read from it what the kernel was compiled for.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

namespace membench {

struct KernelShape {
  const void* function = nullptr;  // nullptr: the case launches no kernel of ours (a copy engine)
  unsigned grid = 0;               // blocks in all (x * y * z)
  unsigned block = 0;              // threads per block
  std::size_t dynamic_smem = 0;    // bytes
};

// A launch worked out once on the current device: the config, the kernel and
// its grid, and `run`, the typed launch of that kernel (<<<>>> or
// cudaLaunchKernelEx) with the config's arguments. Launching a plan does no
// host work but the launch; a family's plan(config, &plan) makes it.
template <class Config, class In, class Out>
struct Plan {
  using Run = cudaError_t (*)(const Plan&, In, Out, cudaStream_t);
  Config config;
  KernelShape shape;
  Run run = nullptr;
};

// The plan alone fixes In and Out: the arguments convert to them (a float*
// where a const float* goes, nullptr) as they would to a plain function's.
template <class T>
struct NotDeduced {
  using type = T;
};
template <class Config, class In, class Out>
cudaError_t launch(const Plan<Config, In, Out>& p, typename NotDeduced<In>::type in, typename NotDeduced<Out>::type out,
                   cudaStream_t stream) {
  return p.run == nullptr ? cudaErrorInvalidValue : p.run(p, in, out, stream);
}

struct KernelFacts {
  int blocks_per_sm = 0;           // resident blocks per SM, from the occupancy API
  int registers = 0;               // per thread
  std::size_t smem_per_block = 0;  // static + dynamic bytes
  int compiled_arch = 0;           // e.g. 90: the architecture the kernel body was compiled for
};

// Reads the facts of `shape` on the current device.
cudaError_t kernel_facts(const KernelShape& shape, KernelFacts* facts);

// The architecture the code that runs was compiled for (`__CUDA_ARCH__` / 10):
// the smaller of the PTX and the machine-code versions. A build that carries
// only PTX for an older architecture runs JIT-compiled machine code of the
// device's own version, but its body was compiled for the older one, so the
// machine-code version alone would overstate it.
int compiled_arch(int ptx_version, int binary_version);

// Whether `kernel`, whose body needs sm_90 (bulk copies, tensor maps,
// clusters), can run here: a device of compute capability 9.0 or newer, and
// the kernel compiled for sm_90 or newer (not older PTX the driver
// JIT-compiled). Otherwise `why` names `feature` (what needs sm_90) or
// `kernel_name` (what the build lacks).
bool sm90_kernel_runs(const void* kernel, const std::string& feature, const std::string& kernel_name, std::string* why);

}  // namespace membench
