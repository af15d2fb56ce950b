// Which of the binary's GPU code a device runs. The build carries machine
// code for some architectures and PTX for others (CMake's
// CUDA_ARCHITECTURES); a GPU with no machine code of its own runs the PTX,
// compiled by the driver at load (JIT), with that PTX version's instructions
// only (a compute_80 PTX kernel has no Hopper TMA on an H200). The result
// file names both, so two runs of the same GPU by differently built binaries
// can be told apart.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace membench {

// The architectures the build was configured with, as CMake wrote them
// ("75-real;80-real;90-real;90-virtual").
const char* built_cuda_architectures();

// How a kernel runs, from its attributes (binary_version: the architecture
// of the machine code the device runs, ptx_version: of its PTX) and the
// build's list: "sm_90 machine code" where the build carries that machine
// code, "compute_80 PTX, JIT-compiled for sm_90" where it does not; where the
// list names no architecture (native, all), what the attributes say.
std::string code_ran_as(const std::string& built, int binary_version, int ptx_version);

// code_ran_as() of this binary's kernels on the current device.
cudaError_t code_ran_as_here(std::string* out);

}  // namespace membench
