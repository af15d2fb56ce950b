// Which of the binary's GPU code a device runs. See code.hpp.
#include <cctype>
#include <set>
#include <sstream>

#include "membench/platform/code.hpp"

#include "membench_architectures.h"  // written by CMake

namespace membench {

namespace kernels {

// Built as every kernel of the library is: its attributes are theirs.
__global__ void code_probe() {}

}  // namespace kernels

const char* built_cuda_architectures() { return MEMBENCH_CUDA_ARCHITECTURES; }

namespace {

// The architectures the list carries machine code for ("90", "90-real", "90a-real": 90), and whether every entry
// named one.
std::set<int> real_architectures(const std::string& built, bool* named) {
  std::set<int> reals;
  *named = !built.empty();
  std::istringstream entries(built);
  for (std::string entry; std::getline(entries, entry, ';');) {
    std::size_t digits = 0;
    while (digits < entry.size() && std::isdigit(static_cast<unsigned char>(entry[digits]))) ++digits;
    if (digits == 0 || digits > 4) {
      *named = false;
      continue;
    }
    std::string rest = entry.substr(digits);
    if (!rest.empty() && (rest[0] == 'a' || rest[0] == 'f')) rest.erase(0, 1);  // sm_90a, sm_100f
    if (rest.empty() || rest == "-real")
      reals.insert(std::stoi(entry.substr(0, digits)));
    else if (rest != "-virtual")
      *named = false;
  }
  return reals;
}

}  // namespace

std::string code_ran_as(const std::string& built, int binary_version, int ptx_version) {
  const std::string sm = "sm_" + std::to_string(binary_version);
  bool named = false;
  const std::set<int> reals = real_architectures(built, &named);
  if (reals.count(binary_version) != 0) return sm + " machine code";
  if (!named)
    return sm + " code from compute_" + std::to_string(ptx_version) + " (the build's architectures: " + built + ")";
  return "compute_" + std::to_string(ptx_version) + " PTX, JIT-compiled for " + sm;
}

cudaError_t code_ran_as_here(std::string* out) {
  cudaFuncAttributes attr{};
  if (const cudaError_t rc = cudaFuncGetAttributes(&attr, kernels::code_probe); rc != cudaSuccess) return rc;
  *out = code_ran_as(built_cuda_architectures(), attr.binaryVersion, attr.ptxVersion);
  return cudaSuccess;
}

}  // namespace membench
