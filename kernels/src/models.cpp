#include "membench/models.hpp"

#include <set>

namespace membench {

int sectors_per_request(int access_bytes, std::size_t byte_stride) {
  std::set<std::size_t> sectors;
  for (std::size_t lane = 0; lane < kWarpSize; ++lane) {
    const std::size_t first = lane * byte_stride;
    const std::size_t last = first + static_cast<std::size_t>(access_bytes) - 1;
    for (std::size_t s = first / kSectorBytes; s <= last / kSectorBytes; ++s) sectors.insert(s);
  }
  return static_cast<int>(sectors.size());
}

double request_efficiency(int access_bytes, std::size_t byte_stride) {
  const double useful = static_cast<double>(kWarpSize) * access_bytes;
  return useful / (static_cast<double>(sectors_per_request(access_bytes, byte_stride)) * kSectorBytes);
}

}  // namespace membench
