#include "membench/verify.hpp"

#include <sstream>

#include "membench/cuda.hpp"
#include "membench/pattern.hpp"

namespace membench {

std::vector<float> copy_to_host(const float* device, std::size_t count) {
  std::vector<float> host(count);
  MEMBENCH_CUDA(cudaMemcpy(host.data(), device, count * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

namespace {
std::string show(float x) {
  if (is_poison(x)) return "poison (never written)";
  std::ostringstream os;
  os.precision(9);
  os << x;
  return os.str();
}
}  // namespace

std::string describe(const Mismatch& m, const std::string& array_name) {
  std::ostringstream os;
  os << "verification failed: " << array_name << '[' << m.index << "] = " << show(m.got)
     << ", expected " << show(m.expected);
  return os.str();
}

}  // namespace membench
